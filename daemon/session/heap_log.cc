#include "daemon/session/heap_log.h"

#include <malloc.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace gotraced::session {

std::unique_ptr<HeapLog> HeapLog::FromEnv() {
  const char *v = std::getenv("GOTRACED_HEAP_LOG");
  const double s = v ? std::atof(v) : 0;
  if (s <= 0) return nullptr;
  return std::make_unique<HeapLog>(std::chrono::milliseconds(static_cast<long>(s * 1000)));
}

void HeapLog::Maybe(std::chrono::steady_clock::time_point now, const model::ModelFootprint &f,
                    const encoder::WriterStats &w) {
  if (start_ == std::chrono::steady_clock::time_point{}) start_ = now;
  if (now < next_) return;
  next_ = now + every_;
  const struct mallinfo2 mi = mallinfo2();
  long pages = 0, resident = 0;
  if (std::FILE *st = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(st, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(st);
  }
  const double rss_mb = static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1e6;
  spdlog::info("gotraced: heap t={:.0f}s in_use={:.2f} MB free_in_heap={:.2f} MB mmapped={:.2f} MB rss={:.1f} MB "
               "goroutines={} ended={} threads={} queues={} strings={} stacks={}",
               std::chrono::duration<double>(now - start_).count(), static_cast<double>(mi.uordblks) / 1e6,
               static_cast<double>(mi.fordblks) / 1e6, static_cast<double>(mi.hblkhd) / 1e6, rss_mb, f.goroutines,
               f.ended, f.threads, f.queues, w.strings, w.stacks);
}

}  // namespace gotraced::session
