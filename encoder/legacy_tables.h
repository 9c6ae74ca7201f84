// String and stack tables of the legacy (pre-1.22) format. The format has one table per
// file, not per generation: EvString [id, len, bytes] and EvStack [id, n, {pc, func,
// file, line} x n] may appear anywhere, and ids must never repeat (parser.go readTrace:
// "string ... has duplicate id").
// * Strings keep their id for the whole file: Go 1.22+'s reader matches a region's end
//   to its start by the name's string id (internal/trace/internal/tracev1 postProcess),
//   so a region open across generations needs the same id in both. A trace that starts
//   at a later generation (a flight-recorder dump) gets every string defined before it
//   in its prelude (all_strings()).
// * Bounded: the table grows with the distinct strings a file uses (function and file
//   names, region, task and log types), never with time, up to kMaxStrings strings or
//   kMaxStringBytes bytes. Past either bound a new string is not defined: it is written
//   as kOverflowString (counted in strings_over_bound()), so what is given up is the
//   text of strings first seen after that (a program that makes a region type per
//   request); the runtime's own tracer keeps every string for the trace's life
//   (runtime/trace.go traceString, trace.stringSeq) and has no bound at all.
// * Stacks are defined again in each generation that uses them, under fresh ids from a
//   counter that never restarts, so a run of consecutive generations holds every stack
//   id it references, once, and a generation's stacks cost memory only while it is open.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "encoder/byte_buffer.h"
#include "encoder/trace_types.h"

namespace gotraced::encoder::legacy {

// runtime/trace.go traceStackSize: the runtime keeps at most 128 frames.
inline constexpr std::size_t kMaxFrames = 128;
// The string table's bounds (above): ~65k strings, 8 MiB of text; a file's whole string
// table is held in memory twice (strings_ and all_strings_), so ~16 MiB at most.
inline constexpr std::uint64_t kMaxStrings = 1 << 16;
inline constexpr std::size_t kMaxStringBytes = 8 << 20;
inline constexpr std::string_view kOverflowString = "gotraced: string table full";

class Tables {
 public:
  // Id of `s` in this generation ("" is 0, as the parser reads an undefined id).
  std::uint64_t String(std::string_view s);
  // Id of the stack (leaf first). Empty: 0.
  std::uint64_t Stack(std::span<const Frame> frames);
  // Id for a raw pc list; `resolve` runs on its first sighting in the generation.
  template <typename Resolve>
  std::uint64_t StackPcs(std::span<const std::uint64_t> pcs, Resolve &&resolve) {
    if (pcs.empty()) return 0;
    key_.assign(pcs.begin(), pcs.end());
    if (auto it = by_pcs_.find(key_); it != by_pcs_.end()) return it->second;
    frames_.clear();
    resolve(pcs, frames_);
    std::uint64_t id = Stack(frames_);
    by_pcs_.emplace(key_, id);
    return id;
  }
  // Text of an id this generation returned ("" if none).
  std::string_view Text(std::uint64_t id) const {
    auto it = text_.find(id);
    return it == text_.end() ? std::string_view{} : it->second;
  }
  // The EvString and EvStack entries defined in this generation.
  const ByteBuffer &bytes() const { return out_; }
  // Every EvString entry written so far (a later generation's restart prelude).
  const ByteBuffer &all_strings() const { return all_strings_; }
  // Starts a new generation: forgets the stacks (their ids keep counting) and the bytes.
  void NewGeneration();
  std::uint64_t strings_defined() const { return strings_defined_; }
  std::uint64_t stacks_defined() const { return stacks_defined_; }
  // Strings written as kOverflowString because a bound was reached.
  std::uint64_t strings_over_bound() const { return strings_over_bound_; }

 private:
  struct VecHash {
    std::size_t operator()(const std::vector<std::uint64_t> &v) const;
  };
  std::unordered_map<std::string, std::uint64_t> strings_;
  std::unordered_map<std::uint64_t, std::string_view> text_;  // views of strings_' keys
  std::unordered_map<std::vector<std::uint64_t>, std::uint64_t, VecHash> by_pcs_, by_frames_;
  std::vector<std::uint64_t> key_;
  std::vector<Frame> frames_;
  ByteBuffer out_, all_strings_;
  std::uint64_t next_string_ = 1, next_stack_ = 1;
  std::uint64_t strings_defined_ = 0, stacks_defined_ = 0;
  std::uint64_t strings_over_bound_ = 0;
  std::size_t string_bytes_ = 0;
  std::uint64_t Define(std::string_view s);
};

}  // namespace gotraced::encoder::legacy
