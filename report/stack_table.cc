#include "report/stack_table.h"

namespace gotraced::report {

std::uint32_t StackTable::InternFunc(std::string_view f) {
  auto it = func_ids_.find(f);
  if (it != func_ids_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(funcs_.size());
  funcs_.emplace_back(f);
  func_ids_.emplace(std::string(f), id);
  return id;
}

std::uint32_t StackTable::Intern(const std::vector<std::string_view> &funcs) {
  if (funcs.empty()) return 0;
  std::vector<std::uint32_t> ids;
  ids.reserve(funcs.size());
  for (std::string_view f : funcs) ids.push_back(InternFunc(f));
  return InternFrames(std::move(ids));
}

std::uint32_t StackTable::InternFrames(std::vector<std::uint32_t> ids) {
  if (ids.empty()) return 0;
  auto [it, added] = stack_ids_.try_emplace(ids, static_cast<std::uint32_t>(stacks_.size()));
  if (added) stacks_.push_back(std::move(ids));
  return it->second;
}

const std::string &StackTable::Outermost(std::uint32_t stack) const {
  const auto &fr = Frames(stack);
  return fr.empty() ? funcs_[0] : funcs_[fr.back()];
}

bool IsPlumbing(std::string_view f) {
  static constexpr std::string_view kPrefixes[] = {
      "runtime.", "internal/", "sync.", "sync/atomic.", "syscall.", "time.Sleep", "golang.org/x/sys/unix."};
  for (std::string_view p : kPrefixes)
    if (f.starts_with(p)) return true;
  return false;
}

std::string StackTable::CallSite(std::uint32_t stack, std::size_t depth) const {
  const auto &fr = Frames(stack);
  if (fr.empty()) return "?";
  std::size_t i = 0;
  while (i < fr.size() && IsPlumbing(funcs_[fr[i]])) ++i;
  if (i == fr.size()) i = 0;
  std::string s;
  for (std::size_t k = i; k < fr.size() && k < i + depth; ++k) {
    if (!s.empty()) s += " < ";
    s += funcs_[fr[k]];
  }
  return s;
}

}  // namespace gotraced::report
