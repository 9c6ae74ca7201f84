// See layout_cache.h.
#include "daemon/gobin/layout_cache.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <type_traits>
#include <vector>

#include "daemon/gobin/buildinfo.h"
#include "daemon/gobin/elf_file.h"

namespace gotraced::gobin {
namespace {

constexpr char kMagic[] = "gotraced-layout-cache 1\n";

std::string CacheDir() {
  if (const char *d = std::getenv("GOTRACED_CACHE_DIR"); d && *d) return std::string(d) == "off" ? "" : d;
  if (const char *x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/gotraced";
  if (const char *h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/gotraced";
  return "";
}

// This executable, as a file: a rebuilt gotraced is another key.
std::string SelfIdentity() {
  struct stat st {};
  if (stat("/proc/self/exe", &st) != 0) return "";
  return fmt::format("{}:{}:{}:{}.{}", st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

std::uint64_t Fnv1a(const std::string &s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

std::string PathFor(const std::string &dir, const std::string &key) {
  return fmt::format("{}/layout-{:016x}", dir, Fnv1a(key));
}

// ---- a flat little-endian encoding of RuntimeLayout ----
template <typename T>
void PutPod(std::vector<char> &out, const T &v) {
  static_assert(std::is_trivially_copyable_v<T>);
  const char *p = reinterpret_cast<const char *>(&v);
  out.insert(out.end(), p, p + sizeof(T));
}
void PutStr(std::vector<char> &out, const std::string &s) {
  PutPod(out, static_cast<std::uint32_t>(s.size()));
  out.insert(out.end(), s.begin(), s.end());
}
void PutStrs(std::vector<char> &out, const std::vector<std::string> &v) {
  PutPod(out, static_cast<std::uint32_t>(v.size()));
  for (const auto &s : v) PutStr(out, s);
}

struct Reader {
  const char *p, *end;
  template <typename T>
  bool Pod(T &v) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (static_cast<std::size_t>(end - p) < sizeof(T)) return false;
    std::memcpy(&v, p, sizeof(T));
    p += sizeof(T);
    return true;
  }
  bool Str(std::string &s) {
    std::uint32_t n = 0;
    if (!Pod(n) || static_cast<std::size_t>(end - p) < n) return false;
    s.assign(p, n);
    p += n;
    return true;
  }
  bool Strs(std::vector<std::string> &v) {
    std::uint32_t n = 0;
    if (!Pod(n)) return false;
    v.resize(n);
    for (auto &s : v)
      if (!Str(s)) return false;
    return true;
  }
};

// The struct sizes are part of the format: a RuntimeLayout of another shape (which the
// executable identity in the key already excludes) cannot be read by mistake.
std::string Shape() {
  return fmt::format("{}.{}.{}.{}.{}.{}.{}", sizeof(GLayout), sizeof(MLayout), sizeof(PLayout), sizeof(GobufLayout),
                     sizeof(SchedtLayout), sizeof(GcControllerLayout), sizeof(MspanLayout));
}

}  // namespace

std::string DwarfLayoutCacheKey(const ElfFile &elf) {
  const std::string dir = CacheDir();
  if (dir.empty()) return "";
  if (!elf.FindSection(".debug_info") && !elf.FindSection(".zdebug_info")) return "";
  auto bi = ReadBuildInfo(elf);
  if (!bi || bi->go_version.empty()) return "";
  // go_version carries non-default experiments ("go1.27.3 X:nocoverageredesign").
  std::string key = "gotraced=" + SelfIdentity() + "\ngo=" + bi->go_version;
  for (const char *k : {"GOOS", "GOARCH", "GOEXPERIMENT", "-race", "-asan", "-msan"})
    key += fmt::format("\n{}={}", k, bi->Setting(k).value_or(""));
  key += "\nshape=" + Shape();
  return key;
}

std::optional<RuntimeLayout> LoadCachedDwarfLayout(const std::string &key) {
  const std::string dir = CacheDir();
  if (key.empty() || dir.empty()) return std::nullopt;
  std::FILE *f = std::fopen(PathFor(dir, key).c_str(), "rb");
  if (!f) return std::nullopt;
  std::vector<char> buf;
  char tmp[8192];
  std::size_t n;
  while ((n = std::fread(tmp, 1, sizeof tmp, f)) > 0) buf.insert(buf.end(), tmp, tmp + n);
  std::fclose(f);
  const std::size_t magic = sizeof(kMagic) - 1;
  if (buf.size() < magic || std::memcmp(buf.data(), kMagic, magic) != 0) return std::nullopt;
  Reader r{buf.data() + magic, buf.data() + buf.size()};
  std::string stored_key;
  if (!r.Str(stored_key) || stored_key != key) return std::nullopt;  // a hash collision or foreign file
  RuntimeLayout l;
  std::uint32_t nconst = 0;
  std::uint8_t source = 0;
  if (!r.Pod(l.g) || !r.Pod(l.m) || !r.Pod(l.p) || !r.Pod(l.gobuf) || !r.Pod(l.sched) || !r.Pod(l.gc_controller) ||
      !r.Pod(l.mspan) || !r.Pod(nconst))
    return std::nullopt;
  l.constants.resize(nconst);
  for (auto &[name, value] : l.constants)
    if (!r.Str(name) || !r.Pod(value)) return std::nullopt;
  if (!r.Strs(l.wait_reason_strings) || !r.Strs(l.trace_block_reason_strings) ||
      !r.Strs(l.trace_go_stop_reason_strings) || !r.Strs(l.stw_reason_strings) || !r.Pod(source) ||
      !r.Str(l.go_version) || r.p != r.end)
    return std::nullopt;
  l.source = static_cast<LayoutSource>(source);
  if (l.source != LayoutSource::kDwarf) return std::nullopt;
  return l;
}

void StoreCachedDwarfLayout(const std::string &key, const RuntimeLayout &l) {
  const std::string dir = CacheDir();
  if (key.empty() || dir.empty() || l.source != LayoutSource::kDwarf) return;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return;
  std::vector<char> out(kMagic, kMagic + sizeof(kMagic) - 1);
  PutStr(out, key);
  PutPod(out, l.g);
  PutPod(out, l.m);
  PutPod(out, l.p);
  PutPod(out, l.gobuf);
  PutPod(out, l.sched);
  PutPod(out, l.gc_controller);
  PutPod(out, l.mspan);
  PutPod(out, static_cast<std::uint32_t>(l.constants.size()));
  for (const auto &[name, value] : l.constants) {
    PutStr(out, name);
    PutPod(out, value);
  }
  PutStrs(out, l.wait_reason_strings);
  PutStrs(out, l.trace_block_reason_strings);
  PutStrs(out, l.trace_go_stop_reason_strings);
  PutStrs(out, l.stw_reason_strings);
  PutPod(out, static_cast<std::uint8_t>(l.source));
  PutStr(out, l.go_version);
  const std::string path = PathFor(dir, key);
  const std::string tmp = fmt::format("{}.{}.tmp", path, getpid());
  std::FILE *f = std::fopen(tmp.c_str(), "wb");
  if (!f) return;
  const bool ok = std::fwrite(out.data(), 1, out.size(), f) == out.size();
  if (std::fclose(f) != 0 || !ok || std::rename(tmp.c_str(), path.c_str()) != 0) std::remove(tmp.c_str());
}

}  // namespace gotraced::gobin
