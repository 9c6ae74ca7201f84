#include "cli/status_line.h"

#include <fmt/format.h>

#include <cstdio>

namespace gotraced::cli {
namespace {

std::string Count(std::uint64_t n) {
  if (n >= 10'000'000) return fmt::format("{:.1f}M", n / 1e6);
  if (n >= 10'000) return fmt::format("{:.1f}k", n / 1e3);
  return fmt::format("{}", n);
}

double Seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

void StatusLine::Update(pid_t pid, const session::SessionStats &s, std::chrono::steady_clock::duration elapsed) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(250)) return;
  last_ = now;
  drawn_ = true;
  std::string line = fmt::format("recording pid {}  {:.1f}s  events {}  goroutines {}  {:.1f} MB  lost {}", pid,
                                 Seconds(elapsed), Count(s.events), s.goroutines_live, s.bytes_written / 1e6,
                                 Count(s.records_lost));
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
}

void StatusLine::Clear() {
  if (!enabled_ || !drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

std::string FormatSummary(const std::string &out, pid_t pid, const session::SessionStats &s,
                          std::chrono::steady_clock::duration elapsed, const std::string &container) {
  std::string lost = s.records_lost ? fmt::format("; LOST {} records ({} generation cuts{}; a larger --ring-size keeps them)",
                                                  s.records_lost, s.generation_cuts,
                                                  s.goroutines_gone ? fmt::format(", {} goroutines whose end was lost left "
                                                                                  "blocked in the trace", s.goroutines_gone)
                                                                    : "")
                                    : "; nothing lost";
  std::string where = out;
  if (!s.output_error.empty()) {
    // The counts above are those of the file(s); say what the lost generations held.
    const std::string gone = fmt::format(
        "{} generation(s) lost ({} events, {} goroutines created, {} blocks, {} syscalls)", s.generations_lost,
        s.events_lost, s.goroutines_created_lost, s.blocks_lost, s.syscalls_lost);
    std::string kept;
    if (s.output_files.empty()) {
      kept = "no trace file is left";
    } else if (s.output_files.size() == 1 && s.output_files[0].path == out && s.output_files[0].first_gen <= 1) {
      // The output stopped (or every later file failed): the file holds what came before.
      // A first generation > 1 means the first write failed and the file began anew
      // (--on-write-error drop): that file is not "before" the failure, so it is listed.
      kept = fmt::format("the file keeps the {} whole generation(s) before", s.output_files[0].generations);
    } else {
      kept = fmt::format("the trace is in {} file(s), each parseable on its own:", s.output_files.size());
      for (const auto &f : s.output_files)
        kept += fmt::format(" {} ({} generation(s) from {})", f.path, f.generations, f.first_gen);
    }
    lost = fmt::format("; OUTPUT FAILED, {}, {}: {}", gone, kept, s.output_error) +
           (s.output_write_errors > 1 ? fmt::format(" ({} write errors)", s.output_write_errors) : "") +
           (s.records_lost ? fmt::format("; and LOST {} records", s.records_lost) : "");
    if (s.output_files.empty()) where = "(no file)";
  }
  return fmt::format(
      "gotraced: pid {} ({}){}{} {:.1f}s -> {} [{} format]: {} events, {} goroutines created, {} blocks, {} syscalls, "
      "{} generations, {:.2f} MB{}",
      pid, s.go_version.empty() ? "?" : s.go_version, container.empty() ? "" : ", ", container, Seconds(elapsed), where, s.trace_format, s.events,
      s.goroutines_created, s.blocks, s.syscalls, s.generations, s.bytes_written / 1e6, lost);
}

}  // namespace gotraced::cli
