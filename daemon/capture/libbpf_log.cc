#include "daemon/capture/libbpf_log.h"

#include <bpf/libbpf.h>

#include <cstdarg>
#include <cstdio>
#include <mutex>

namespace gotraced::capture {
namespace {

// libbpf prints on the thread that loads, so a thread-local pointer sends each message
// to the capture of the load that caused it, even with captures starting on several
// threads at once (serve mode).
thread_local LibbpfLogCapture *current = nullptr;
libbpf_print_fn_t previous = nullptr;

int Print(enum libbpf_print_level level, const char *format, va_list args) {
  if (current && level == LIBBPF_WARN) {
    va_list copy;
    va_copy(copy, args);
    int n = std::vsnprintf(nullptr, 0, format, copy);
    va_end(copy);
    if (n > 0) {
      std::string text(size_t(n) + 1, '\0');
      va_copy(copy, args);
      std::vsnprintf(text.data(), text.size(), format, copy);
      va_end(copy);
      text.resize(size_t(n));
      current->Feed(text);
    }
  }
  return previous ? previous(level, format, args) : 0;
}

void InstallOnce() {
  static std::once_flag once;
  std::call_once(once, [] { previous = libbpf_set_print(Print); });
}

// "prog 'NAME': REST" anywhere in `msg` (after the "libbpf: " prefix) -> NAME, REST.
bool SplitProg(std::string_view msg, std::string_view *name, std::string_view *rest) {
  constexpr std::string_view kProg = "prog '";
  size_t at = msg.find(kProg);
  if (at == std::string_view::npos) return false;
  size_t start = at + kProg.size();
  size_t end = msg.find("': ", start);
  if (end == std::string_view::npos) return false;
  *name = msg.substr(start, end - start);
  *rest = msg.substr(end + 3);
  return true;
}

}  // namespace

LibbpfLogCapture::LibbpfLogCapture(size_t max_lines) : max_lines_(max_lines), outer_(current) {
  InstallOnce();
  current = this;
}

LibbpfLogCapture::~LibbpfLogCapture() { current = outer_; }

void LibbpfLogCapture::Feed(std::string_view message) {
  std::string_view name, rest;
  if (!SplitProg(message, &name, &rest)) return;
  constexpr std::string_view kFailed = "BPF program load failed";
  constexpr std::string_view kBegin = "-- BEGIN PROG LOAD LOG --\n";
  constexpr std::string_view kEnd = "-- END PROG LOAD LOG --";
  if (rest.starts_with(kFailed)) {
    if (program_.empty()) program_ = std::string(name);
    return;
  }
  if (!rest.starts_with(kBegin)) return;
  // Only the refused program's log: libbpf stops at the first refusal, but keep the
  // first one should a later message ever follow.
  if (!program_.empty() && name != program_) return;
  if (program_.empty()) program_ = std::string(name);
  std::string_view log = rest.substr(kBegin.size());
  if (size_t end = log.rfind(kEnd); end != std::string_view::npos) log = log.substr(0, end);
  tail_.clear();
  while (!log.empty()) {
    size_t nl = log.find('\n');
    std::string_view line = log.substr(0, nl);
    log = nl == std::string_view::npos ? std::string_view{} : log.substr(nl + 1);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.empty()) continue;
    tail_.emplace_back(line);
    if (tail_.size() > max_lines_) tail_.pop_front();
  }
}

}  // namespace gotraced::capture
