// The stacks a trace names, interned across generations and formats: a stack is its
// functions, innermost first (the report never needs pcs, files or lines). Ids are
// stable for the whole report (a trace's own stack ids restart every generation:
// internal/trace/generation.go), so an analysis can keep them; memory grows with the
// number of distinct stacks, not with the trace.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gotraced::report {

class StackTable {
 public:
  StackTable() {
    funcs_.emplace_back();
    stacks_.emplace_back();
  }
  // funcs: innermost first. Returns 0 for an empty stack.
  std::uint32_t Intern(const std::vector<std::string_view> &funcs);
  // The same from the functions' InternString ids.
  std::uint32_t InternFrames(std::vector<std::uint32_t> ids);
  const std::vector<std::uint32_t> &Frames(std::uint32_t stack) const {
    return stack < stacks_.size() ? stacks_[stack] : stacks_[0];
  }
  const std::string &Func(std::uint32_t f) const { return f < funcs_.size() ? funcs_[f] : funcs_[0]; }
  // Any string of the trace (a block reason, a region's type ...) in the same table as the
  // function names: its id, 0 for "". Func(id) gives it back.
  std::uint32_t InternString(std::string_view s) { return s.empty() ? 0 : InternFunc(s); }
  // The outermost function (a goroutine's start function), "" if none.
  const std::string &Outermost(std::uint32_t stack) const;
  // The call site a goroutine stopped at: the innermost frames not in the runtime or the
  // standard library's plumbing (runtime, internal/, sync, syscall, time.Sleep...),
  // `depth` of them joined by " < " (innermost first); the innermost frame if all are.
  std::string CallSite(std::uint32_t stack, std::size_t depth = 2) const;
  std::size_t size() const { return stacks_.size() - 1; }

 private:
  std::uint32_t InternFunc(std::string_view f);
  std::vector<std::string> funcs_;
  struct Hash {  // looks a string_view up without making a std::string of it
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> func_ids_;
  std::vector<std::vector<std::uint32_t>> stacks_;
  std::map<std::vector<std::uint32_t>, std::uint32_t> stack_ids_;
};

// True for a function of the runtime or of the standard library's waiting plumbing, which
// CallSite skips (a mutex's call site is the caller of sync.(*Mutex).Lock).
bool IsPlumbing(std::string_view func);

}  // namespace gotraced::report
