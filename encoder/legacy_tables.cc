// Legacy string and stack tables. See legacy_tables.h.
#include "encoder/legacy_tables.h"

#include "encoder/legacy_event_table.h"
#include "encoder/string_table.h"

namespace gotraced::encoder::legacy {

std::size_t Tables::VecHash::operator()(const std::vector<std::uint64_t> &v) const {
  std::uint64_t h = v.size();
  for (std::uint64_t x : v) h = (h ^ x) * 0x100000001b3ull + (h >> 29);
  return static_cast<std::size_t>(h);
}

std::uint64_t Tables::String(std::string_view s) {
  // runtime/trace.go traceString keeps the first maxStringLen (1024) bytes.
  s = TruncateStringHead(s);
  if (s.empty()) return 0;
  if (auto it = strings_.find(std::string(s)); it != strings_.end()) return it->second;
  // The bounds (legacy_tables.h); the overflow string is defined the first time one is
  // reached (it fits: it is counted in neither bound).
  if (next_string_ > kMaxStrings || string_bytes_ + s.size() > kMaxStringBytes) {
    ++strings_over_bound_;
    if (auto it = strings_.find(std::string(kOverflowString)); it != strings_.end()) return it->second;
    return Define(kOverflowString);
  }
  string_bytes_ += s.size();
  return Define(s);
}

std::uint64_t Tables::Define(std::string_view s) {
  const auto it = strings_.try_emplace(std::string(s), next_string_).first;
  ++next_string_;
  ++strings_defined_;
  text_.emplace(it->second, it->first);
  // [EvString][id][len][bytes]: no argument count, no timestamp (parser.go readTrace).
  for (ByteBuffer *b : {&out_, &all_strings_}) {
    b->PutByte(static_cast<std::uint8_t>(Ev::kString));
    b->PutVarint(it->second);
    b->PutVarint(s.size());
    b->PutBytes(s);
  }
  return it->second;
}

std::uint64_t Tables::Stack(std::span<const Frame> frames) {
  if (frames.empty()) return 0;
  if (frames.size() > kMaxFrames) frames = frames.first(kMaxFrames);
  // Identity: every frame's pc, line, func and file ids (func/file interned first, so
  // the key is all integers).
  std::vector<std::uint64_t> key;
  key.reserve(frames.size() * 4);
  for (const Frame &f : frames) {
    key.push_back(f.pc);
    key.push_back(f.line);
    key.push_back(String(TruncateStringTail(f.func)));
    key.push_back(String(TruncateStringTail(f.file)));
  }
  if (auto it = by_frames_.find(key); it != by_frames_.end()) return it->second;
  const std::uint64_t id = next_stack_++;
  ++stacks_defined_;
  by_frames_.emplace(key, id);
  // [EvStack | 3 << 6][length][id][n]{pc func file line}: runtime/trace.go
  // traceStackTable.dump; length counts the bytes after itself.
  ByteBuffer body;
  body.PutVarint(id);
  body.PutVarint(frames.size());
  for (std::size_t i = 0; i < key.size(); i += 4) {
    body.PutVarint(key[i]);      // pc
    body.PutVarint(key[i + 2]);  // func
    body.PutVarint(key[i + 3]);  // file
    body.PutVarint(key[i + 1]);  // line
  }
  out_.PutByte(static_cast<std::uint8_t>(static_cast<unsigned>(Ev::kStack) | 3u << kArgCountShift));
  out_.PutVarint(body.size());
  out_.PutBytes(body.span());
  return id;
}

void Tables::NewGeneration() {
  by_pcs_.clear();
  by_frames_.clear();
  out_.Clear();
}

}  // namespace gotraced::encoder::legacy
