// GOTRACED_HEAP_LOG=SECONDS: every SECONDS, one log line of the daemon's memory as a
// recording goes on -- malloc's in-use bytes (mallinfo2, no trim: what is live), the
// process's RSS, and the model's tables -- so a soak tells what grows (the heap, glibc's
// free pages, or mappings) without a profiler on the machine (docs/memory.md; issue 30).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "daemon/model/model.h"
#include "encoder/event_writer.h"

namespace gotraced::session {

class HeapLog {
 public:
  // Null when GOTRACED_HEAP_LOG is unset or not a positive number.
  static std::unique_ptr<HeapLog> FromEnv();
  explicit HeapLog(std::chrono::milliseconds every) : every_(every) {}
  void Maybe(std::chrono::steady_clock::time_point now, const model::ModelFootprint &f, const encoder::WriterStats &w);

 private:
  std::chrono::milliseconds every_;
  std::chrono::steady_clock::time_point start_{}, next_{};
};

}  // namespace gotraced::session
