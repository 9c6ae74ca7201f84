// Reads .go.buildinfo. Authority: $GOROOT/src/debug/buildinfo/buildinfo.go
// (readRawBuildInfo, searchMagic, decodeString, readString; elfExe.DataStart) and
// src/runtime/debug/mod.go (ParseBuildInfo, BuildInfo.String, quoteKey, quoteValue).
#include "daemon/gobin/buildinfo.h"

#include <cstring>

#include <fmt/format.h>

#include "daemon/gobin/elf_file.h"

namespace gotraced::gobin {

namespace {

constexpr std::string_view kMagic("\xff Go buildinf:", 14);
constexpr uint64_t kHeaderSize = 32;
constexpr uint64_t kAlign = 16;

// Appends code point r as UTF-8.
void AppendUtf8(std::string *out, uint32_t r) {
  if (r < 0x80) {
    out->push_back(static_cast<char>(r));
  } else if (r < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (r >> 6)));
    out->push_back(static_cast<char>(0x80 | (r & 0x3F)));
  } else if (r < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (r >> 12)));
    out->push_back(static_cast<char>(0x80 | ((r >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (r & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (r >> 18)));
    out->push_back(static_cast<char>(0x80 | ((r >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((r >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (r & 0x3F)));
  }
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// strconv.Unquote for the quoted keys/values of build lines ("..." or `...`).
std::optional<std::string> Unquote(std::string_view s) {
  if (s.size() < 2) return std::nullopt;
  if (s.front() == '`') {
    if (s.back() != '`') return std::nullopt;
    return std::string(s.substr(1, s.size() - 2));
  }
  if (s.front() != '"' || s.back() != '"') return std::nullopt;
  s = s.substr(1, s.size() - 2);
  std::string out;
  for (size_t i = 0; i < s.size(); i++) {
    char c = s[i];
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (++i >= s.size()) return std::nullopt;
    char e = s[i];
    auto hexn = [&](size_t n) -> std::optional<uint32_t> {
      if (i + n >= s.size()) return std::nullopt;  // needs s[i+1 .. i+n]
      uint32_t v = 0;
      for (size_t k = 1; k <= n; k++) {
        int d = HexDigit(s[i + k]);
        if (d < 0) return std::nullopt;
        v = v * 16 + static_cast<uint32_t>(d);
      }
      i += n;
      return v;
    };
    switch (e) {
      case 'a': out.push_back('\a'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'v': out.push_back('\v'); break;
      case '\\': out.push_back('\\'); break;
      case '"': out.push_back('"'); break;
      case '\'': out.push_back('\''); break;
      case 'x': {
        auto v = hexn(2);
        if (!v) return std::nullopt;
        out.push_back(static_cast<char>(*v));
        break;
      }
      case 'u': {
        auto v = hexn(4);
        if (!v) return std::nullopt;
        AppendUtf8(&out, *v);
        break;
      }
      case 'U': {
        auto v = hexn(8);
        if (!v) return std::nullopt;
        AppendUtf8(&out, *v);
        break;
      }
      default:
        if (e >= '0' && e <= '7' && i + 2 < s.size()) {
          uint32_t v = 0;
          for (size_t k = 0; k < 3; k++) {
            char d = s[i + k];
            if (d < '0' || d > '7') return std::nullopt;
            v = v * 8 + static_cast<uint32_t>(d - '0');
          }
          i += 2;
          out.push_back(static_cast<char>(v));
          break;
        }
        return std::nullopt;
    }
  }
  return out;
}

// The end of a quoted prefix of s (strconv.QuotedPrefix), or npos.
size_t QuotedPrefixLen(std::string_view s) {
  if (s.empty()) return std::string_view::npos;
  char q = s[0];
  for (size_t i = 1; i < s.size(); i++) {
    if (q == '"' && s[i] == '\\') {
      i++;
      continue;
    }
    if (s[i] == q) return i + 1;
  }
  return std::string_view::npos;
}

bool QuoteKey(std::string_view k) { return k.empty() || k.find_first_of("= \t\r\n\"`") != std::string_view::npos; }
bool QuoteValue(std::string_view v) { return v.find_first_of(" \t\r\n\"`") != std::string_view::npos; }

// strconv.Quote for the printable ASCII/UTF-8 strings build settings hold.
std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", c);
        else out.push_back(static_cast<char>(c));
    }
  }
  out += '"';
  return out;
}

std::vector<std::string_view> SplitTabs(std::string_view s) {
  std::vector<std::string_view> out;
  size_t p = 0;
  while (true) {
    size_t t = s.find('\t', p);
    out.push_back(s.substr(p, t == std::string_view::npos ? std::string_view::npos : t - p));
    if (t == std::string_view::npos) break;
    p = t + 1;
  }
  return out;
}

// runtime/debug.ParseBuildInfo (lenient: a malformed line is skipped, not fatal).
void ParseModInfo(std::string_view data, BuildInfo *bi) {
  GoModule *last = nullptr;
  while (!data.empty()) {
    size_t nl = data.find('\n');
    if (nl == std::string_view::npos) break;
    std::string_view line = data.substr(0, nl);
    data.remove_prefix(nl + 1);
    auto starts = [&](std::string_view p) { return line.substr(0, p.size()) == p; };
    auto module = [](std::string_view rest) -> std::optional<GoModule> {
      auto e = SplitTabs(rest);
      if (e.size() != 2 && e.size() != 3) return std::nullopt;
      GoModule m;
      m.path = e[0];
      m.version = e[1];
      if (e.size() == 3) m.sum = e[2];
      return m;
    };
    if (starts("path\t")) {
      bi->path = line.substr(5);
    } else if (starts("mod\t")) {
      bi->main = module(line.substr(4));
      last = bi->main ? &*bi->main : nullptr;
    } else if (starts("dep\t")) {
      auto m = module(line.substr(4));
      if (m) {
        bi->deps.push_back(*m);
        last = &bi->deps.back();
      } else {
        last = nullptr;
      }
    } else if (starts("=>\t")) {
      auto e = SplitTabs(line.substr(3));
      if (e.size() == 3 && last) {
        last->replace_path = std::string(e[0]);
        last->replace_version = std::string(e[1]);
        last->replace_sum = std::string(e[2]);
      }
      last = nullptr;
    } else if (starts("build\t")) {
      std::string_view kv = line.substr(6);
      if (kv.empty() || kv[0] == '=') continue;
      std::string key;
      std::string_view raw;
      if (kv[0] == '"' || kv[0] == '`') {
        size_t n = QuotedPrefixLen(kv);
        if (n == std::string_view::npos || n >= kv.size() || kv[n] != '=') continue;
        auto k = Unquote(kv.substr(0, n));
        if (!k) continue;
        key = *k;
        raw = kv.substr(n + 1);
      } else {
        size_t eq = kv.find('=');
        if (eq == std::string_view::npos) continue;
        key = kv.substr(0, eq);
        raw = kv.substr(eq + 1);
      }
      std::string value;
      if (!raw.empty() && (raw[0] == '"' || raw[0] == '`')) {
        auto v = Unquote(raw);
        if (!v) continue;
        value = *v;
      } else {
        value = raw;
      }
      bi->settings.push_back({std::move(key), std::move(value)});
    }
  }
}

// Go's binary.Uvarint.
std::optional<std::pair<uint64_t, size_t>> Uvarint(std::span<const uint8_t> b) {
  uint64_t x = 0;
  unsigned s = 0;
  for (size_t i = 0; i < b.size() && i < 10; i++) {
    uint8_t c = b[i];
    if (c < 0x80) {
      if (i == 9 && c > 1) return std::nullopt;
      return std::make_pair(x | uint64_t{c} << s, i + 1);
    }
    x |= uint64_t{c & 0x7fu} << s;
    s += 7;
  }
  return std::nullopt;
}

// Bytes from vaddr to the end of its PT_LOAD's file-backed part (debug/buildinfo's
// elfExe.DataReader semantics: reads go up to the segment end).
std::span<const uint8_t> SegmentTail(const ElfFile &elf, uint64_t vaddr) {
  for (const auto &ph : elf.Segments()) {
    if (ph.type != 1 /*PT_LOAD*/ || vaddr < ph.vaddr || vaddr - ph.vaddr >= ph.filesz) continue;
    uint64_t rem = ph.filesz - (vaddr - ph.vaddr);
    for (uint64_t n = rem; n > 0; n = n / 2) {  // clamp to the image when the file is truncated
      if (auto b = elf.ReadVirtual(vaddr, n)) return *b;
    }
  }
  return {};
}

}  // namespace

GoVersion GoVersion::Parse(std::string_view s) {
  GoVersion v;
  if (s.substr(0, 2) != "go") return v;
  s.remove_prefix(2);
  int parts[3] = {0, 0, 0};
  int idx = 0;
  size_t i = 0;
  bool any = false;
  while (i < s.size() && idx < 3) {
    if (s[i] >= '0' && s[i] <= '9') {
      parts[idx] = parts[idx] * 10 + (s[i] - '0');
      if (parts[idx] > 100000) return GoVersion{};
      any = true;
      i++;
    } else if (s[i] == '.' && any) {
      idx++;
      i++;
      any = false;
    } else {
      break;
    }
  }
  if (parts[0] == 0) return GoVersion{};
  v.major = parts[0];
  v.minor = parts[1];
  v.patch = parts[2];
  v.suffix = std::string(s.substr(i));
  return v;
}

std::optional<std::string> BuildInfo::Setting(std::string_view key) const {
  for (const auto &s : settings) {
    if (s.key == key) return s.value;
  }
  return std::nullopt;
}

std::string BuildInfo::FormatModInfoLikeGoVersionM() const {
  // runtime/debug.BuildInfo.String without the "go" line (go version -m prints the
  // version on the "PATH: VERSION" line), each line prefixed by a tab.
  std::string out;
  if (!path.empty()) out += fmt::format("\tpath\t{}\n", path);
  auto mod = [&](std::string_view word, const GoModule &m) {
    out += fmt::format("\t{}\t{}\t{}", word, m.path, m.version);
    if (m.replace_path) {
      out += fmt::format("\n\t=>\t{}\t{}\t{}", *m.replace_path, m.replace_version.value_or(""), m.replace_sum.value_or(""));
    } else {
      out += fmt::format("\t{}", m.sum);
    }
    out += "\n";
  };
  if (main && !(main->path.empty() && main->version.empty() && main->sum.empty())) mod("mod", *main);
  for (const auto &d : deps) mod("dep", d);
  for (const auto &s : settings) {
    out += fmt::format("\tbuild\t{}={}\n", QuoteKey(s.key) ? Quote(s.key) : s.key,
                       QuoteValue(s.value) ? Quote(s.value) : s.value);
  }
  return out;
}

Result<BuildInfo> ReadBuildInfo(const ElfFile &elf) {
  // elfExe.DataStart: the .go.buildinfo section, else the first PT_LOAD that is
  // writable and not executable. We go on to the next such segment when the first has
  // no magic: in a PIE the first is the RELRO one (.data.rel.ro) and .go.buildinfo
  // starts the second, so without section headers debug/buildinfo gives up there.
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  if (const ElfSection *s = elf.FindSection(".go.buildinfo")) {
    ranges.emplace_back(s->addr, s->size);
  } else {
    for (const auto &ph : elf.Segments()) {
      if (ph.type == 1 /*PT_LOAD*/ && (ph.flags & 3 /*PF_X|PF_W*/) == 2 /*PF_W*/) ranges.emplace_back(ph.vaddr, ph.memsz);
    }
  }
  std::optional<uint64_t> found;
  for (auto [start, size] : ranges) {
    // searchMagic: the 16-byte aligned magic within [start, start+size).
    uint64_t end = start + size;
    if (size == 0 || end < start) continue;
    uint64_t addr = (start + kAlign - 1) & ~(kAlign - 1);
    auto tail = SegmentTail(elf, addr);  // file-backed bytes to the segment's end
    uint64_t n = std::min<uint64_t>(tail.size(), end - addr);
    for (uint64_t i = 0; i + kMagic.size() <= n; i += kAlign) {
      if (std::memcmp(tail.data() + i, kMagic.data(), kMagic.size()) == 0) {
        found = addr + i;
        break;
      }
    }
    if (found) break;
  }
  if (!found) return Error{"no .go.buildinfo"};
  auto hdr = elf.ReadVirtual(*found, kHeaderSize);
  if (!hdr) return Error{"malformed .go.buildinfo: truncated header"};
  const uint8_t ptr_size = (*hdr)[14], flags = (*hdr)[15];
  std::string vers, mod;
  if ((flags & 2) == 2) {
    // flagsVersionInl (Go 1.18+): two varint-prefixed strings after the header.
    uint64_t a = *found + kHeaderSize;
    for (std::string *out : {&vers, &mod}) {
      auto tail = SegmentTail(elf, a);
      auto uv = Uvarint(tail);
      if (!uv) return Error{"malformed .go.buildinfo: bad string length"};
      auto [len, n] = *uv;
      if (len > tail.size() - n) return Error{"malformed .go.buildinfo: string beyond segment"};
      out->assign(reinterpret_cast<const char *>(tail.data() + n), len);
      a += n + len;
    }
  } else {
    // flagsVersionPtr (Go <= 1.17): pointers to Go string headers {data, len}.
    if (ptr_size != 8 || (flags & 1) != 0) return Error{"malformed .go.buildinfo: unsupported pointer format"};
    for (int k = 0; k < 2; k++) {
      uint64_t strhdr = 0;
      std::memcpy(&strhdr, hdr->data() + 16 + 8 * k, 8);
      auto p = elf.ReadPointer(strhdr);
      auto l = elf.ReadU64(strhdr + 8);
      if (!p || !l) continue;  // readString returns "" on any failure
      auto d = elf.ReadVirtual(*p, *l);
      if (!d) continue;
      (k == 0 ? vers : mod).assign(reinterpret_cast<const char *>(d->data()), d->size());
    }
  }
  if (vers.empty()) return Error{"malformed .go.buildinfo: empty Go version"};
  // Strip the 16-byte sentinels (cmd/go/internal/modload.infoStart/infoEnd).
  if (mod.size() >= 33 && mod[mod.size() - 17] == '\n') {
    mod = mod.substr(16, mod.size() - 32);
  } else {
    mod.clear();
  }
  BuildInfo bi;
  bi.go_version = vers;
  bi.version = GoVersion::Parse(vers);
  bi.mod_info = mod;
  ParseModInfo(mod, &bi);
  return bi;
}

}  // namespace gotraced::gobin
