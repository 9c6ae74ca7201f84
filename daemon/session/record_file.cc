#include "daemon/session/record_file.h"

#include <cerrno>
#include <cstring>

namespace gotraced::session {
namespace {
constexpr char kMagic[] = "gotraced-records 1\n";
}

RecordFileWriter::RecordFileWriter(const std::string &path, const std::map<std::string, std::string> &meta) {
  f_ = std::fopen(path.c_str(), "wb");
  if (!f_) {
    error_ = path + ": " + std::strerror(errno);
    return;
  }
  std::fputs(kMagic, f_);
  for (const auto &[k, v] : meta) std::fprintf(f_, "%s=%s\n", k.c_str(), v.c_str());
  std::fputs("\n", f_);
}

RecordFileWriter::~RecordFileWriter() {
  if (f_) std::fclose(f_);
}

void RecordFileWriter::Write(const capture::RecordView &v) {
  if (!f_) return;
  const std::uint32_t n = static_cast<std::uint32_t>(v.size());
  const std::uint8_t le[4] = {std::uint8_t(n), std::uint8_t(n >> 8), std::uint8_t(n >> 16), std::uint8_t(n >> 24)};
  std::fwrite(le, 1, 4, f_);
  std::fwrite(v.data(), 1, v.size(), f_);
}

gobin::Result<RecordFile> ReadRecordFile(const std::string &path) {
  RecordFile rf;
  std::vector<std::uint8_t> all;
  {
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (!f) return gobin::Error{path + ": " + std::strerror(errno)};
    std::uint8_t buf[1 << 16];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) all.insert(all.end(), buf, buf + n);
    std::fclose(f);
  }
  rf.bytes.reserve(all.size());
  const std::size_t magic = sizeof(kMagic) - 1;
  if (all.size() < magic || std::memcmp(all.data(), kMagic, magic) != 0)
    return gobin::Error{path + ": not a gotraced record file"};
  std::size_t pos = magic;
  for (;;) {
    std::size_t eol = pos;
    while (eol < all.size() && all[eol] != '\n') eol++;
    if (eol >= all.size()) return gobin::Error{path + ": header not terminated"};
    std::string line(all.begin() + static_cast<std::ptrdiff_t>(pos), all.begin() + static_cast<std::ptrdiff_t>(eol));
    pos = eol + 1;
    if (line.empty()) break;
    auto eq = line.find('=');
    if (eq != std::string::npos) rf.meta[line.substr(0, eq)] = line.substr(eq + 1);
  }
  while (pos + 4 <= all.size()) {
    const std::uint32_t n = std::uint32_t(all[pos]) | std::uint32_t(all[pos + 1]) << 8 |
                            std::uint32_t(all[pos + 2]) << 16 | std::uint32_t(all[pos + 3]) << 24;
    pos += 4;
    if (pos + n > all.size()) break;  // a recording cut short: its last record is torn
    rf.records.push_back({rf.bytes.size(), n});
    rf.bytes.insert(rf.bytes.end(), all.begin() + static_cast<std::ptrdiff_t>(pos),
                    all.begin() + static_cast<std::ptrdiff_t>(pos + n));
    pos += n;
  }
  return rf;
}

}  // namespace gotraced::session
