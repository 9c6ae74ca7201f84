// What libbpf says while it loads programs: which program the kernel refused and the
// tail of the verifier's log. libbpf (1.1, libbpf.c bpf_object_load_prog) reloads a
// refused program with a log buffer and prints, at WARN level,
//   "libbpf: prog 'NAME': BPF program load failed: <strerror>"
//   "libbpf: prog 'NAME': -- BEGIN PROG LOAD LOG --\n<log>-- END PROG LOAD LOG --\n"
// through its one process-wide print function. The first LibbpfLogCapture installs a
// print function that hands every message on to the one that was there before (libbpf's
// default prints WARN and INFO to stderr), so what users saw before is unchanged, and
// also parses the messages printed on a thread while a capture is alive on that thread.
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace gotraced::capture {

class LibbpfLogCapture {
 public:
  // Keeps the last `max_lines` non-empty lines of the verifier log: the reason is at
  // the end ("R2 min value is negative, ...", then "processed N insns ..."); the log
  // before it can be megabytes of instruction trace.
  explicit LibbpfLogCapture(size_t max_lines = 15);
  ~LibbpfLogCapture();
  LibbpfLogCapture(const LibbpfLogCapture &) = delete;
  LibbpfLogCapture &operator=(const LibbpfLogCapture &) = delete;

  // The first program libbpf reported as refused; empty if none.
  const std::string &failed_program() const { return program_; }
  std::vector<std::string> log_tail() const { return {tail_.begin(), tail_.end()}; }

  // One formatted WARN message from libbpf (public for the unit tests).
  void Feed(std::string_view message);

 private:
  size_t max_lines_;
  std::string program_;
  std::deque<std::string> tail_;
  LibbpfLogCapture *outer_;  // the capture this one hides on this thread, if any
};

}  // namespace gotraced::capture
