#include "encoder/sink.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "encoder/legacy_rebase.h"

namespace gotraced::encoder {

void MemorySink::WriteHeader(std::span<const std::uint8_t> header) {
  bytes_.insert(bytes_.end(), header.begin(), header.end());
}

void MemorySink::WriteGeneration(std::uint64_t, std::span<const std::uint8_t> bytes) {
  offsets_.push_back(bytes_.size());
  bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
}

std::string ContinuationPath(const std::string &path, unsigned n) {
  const std::size_t slash = path.rfind('/');
  const std::size_t dot = path.rfind('.');
  const bool has_ext = dot != std::string::npos && dot > (slash == std::string::npos ? 0 : slash + 1);
  if (!has_ext) return fmt::format("{}.{}", path, n);
  return fmt::format("{}.{}{}", path.substr(0, dot), n, path.substr(dot));
}

FileSink::FileSink(const std::string &path, WriteErrorPolicy policy) : path_(path), policy_(policy) {
  OpenFile(path);
}

FileSink::~FileSink() { Close(); }

bool FileSink::OpenFile(const std::string &path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    NoteError(fmt::format("open {}: {}", path, std::strerror(errno)));
    return false;
  }
  struct stat st {};
  regular_ = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
  files_.push_back(File{path});
  return true;
}

void FileSink::NoteError(std::string msg) {
  write_errors_++;
  latest_error_ = msg;
  if (error_.empty()) error_ = std::move(msg);
}

void FileSink::CloseFd() {
  if (fd_ < 0) return;
  if (::close(fd_) != 0) NoteError(fmt::format("close {}: {}", files_.back().path, std::strerror(errno)));
  fd_ = -1;
  // A file left without a whole generation is no trace: remove it (never a pipe, a tty
  // or a file someone else removed already).
  File &f = files_.back();
  if (f.generations == 0 && regular_ && !f.removed) {
    ::unlink(f.path.c_str());
    files_.pop_back();
  }
}

void FileSink::CheckRemoved() {
  if (fd_ < 0 || !regular_) return;
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || st.st_nlink != 0) return;
  File &f = files_.back();
  f.removed = true;
  lost_ += f.generations;
  NoteError(fmt::format("{} was removed while being written: the {} generation(s) in it are lost", f.path,
                        f.generations));
  ::close(fd_);
  fd_ = -1;
}

bool FileSink::Append(std::span<const std::span<const std::uint8_t>> parts, std::uint64_t gen) {
  File &f = files_.back();
  std::size_t total = 0, done = 0;
  for (auto p : parts) total += p.size();
  for (auto p : parts) {
    std::size_t off = 0;
    while (off < p.size()) {
      ssize_t n = ::write(fd_, p.data() + off, p.size() - off);
      if (n > 0) {
        off += std::size_t(n);
        done += std::size_t(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      const int err = n < 0 ? errno : ENOSPC;  // a write of 0 bytes: no room
      std::string msg = fmt::format("write {}: {} ({} of the {} bytes of generation {}{} written)", f.path,
                                    std::strerror(err), done, total, gen,
                                    parts.size() > 1 ? " and the header" : "");
      // Cut back to whole generations: a torn one would make the file unparseable.
      if (!regular_) msg += "; not a regular file: it cannot be cut back to its last whole generation";
      else if (::ftruncate(fd_, off_t(f.bytes)) != 0)
        msg += fmt::format("; and cutting the file back to its last whole generation failed: {}", std::strerror(errno));
      else
        ::lseek(fd_, off_t(f.bytes), SEEK_SET);
      NoteError(std::move(msg));
      return false;
    }
  }
  f.bytes += total;
  f.generations++;
  if (f.first_gen == 0) f.first_gen = gen;
  return true;
}

void FileSink::WriteHeader(std::span<const std::uint8_t> header) { header_.assign(header.begin(), header.end()); }

void FileSink::WriteGeneration(std::uint64_t gen, std::span<const std::uint8_t> bytes) {
  last_file_ = -1;
  CheckRemoved();
  if (stopped()) {
    lost_++;
    return;
  }
  if (fd_ < 0) {
    // kDrop after an error: this generation starts the next file (header first).
    const unsigned index = unsigned(files_.size());
    if (!OpenFile(index == 0 ? path_ : ContinuationPath(path_, index))) {
      lost_++;
      return;
    }
  }
  // write(2) hands each whole generation to the kernel: a reader (or a crash of
  // gotraced) sees whole generations. The header goes with a file's first generation.
  const bool first = files_.back().generations == 0;
  std::span<const std::uint8_t> prelude;
  if (first) {
    // A legacy file that starts after generation 1 opens with that generation's restart
    // prelude, and its generations are rebased to it (legacy_rebase.h).
    rebaser_.reset();
    if (gen > 1 && restart_ && restart_gen_ == gen) rebaser_ = std::make_unique<LegacyRebaser>(std::move(*restart_));
    restart_.reset();
    if (rebaser_) prelude = rebaser_->prelude();
  }
  if (rebaser_) {
    rebased_.clear();
    std::string why;
    if (!rebaser_->Rewrite(bytes, rebased_, &why)) {
      NoteError(fmt::format("{}: generation {}: {}", files_.back().path, gen, why));
      lost_++;
      if (policy_ == WriteErrorPolicy::kDrop) CloseFd();
      return;
    }
    bytes = rebased_;
  }
  const std::span<const std::uint8_t> parts[3] = {header_, prelude, bytes};
  const bool ok = first ? Append(parts, gen) : Append(std::span(parts).subspan(2), gen);
  if (ok) {
    last_file_ = int(files_.size()) - 1;
    return;
  }
  lost_++;
  // kDrop: the next generation goes to a new file (this one keeps what it has, or is
  // removed when it has nothing).
  if (policy_ == WriteErrorPolicy::kDrop) CloseFd();
}

void FileSink::WriteLegacyPrelude(std::uint64_t gen, const LegacyRestart &restart) {
  // Kept only when this generation will open a file (the last write failed, or the file
  // was removed): the copy holds every string of the trace so far.
  restart_.reset();
  CheckRemoved();
  if (policy_ != WriteErrorPolicy::kDrop || (fd_ >= 0 && !files_.empty() && files_.back().generations > 0)) return;
  restart_ = std::make_unique<StoredLegacyRestart>(StoredLegacyRestart::From(restart));
  restart_gen_ = gen;
}

void FileSink::Close() {
  CheckRemoved();
  CloseFd();
}

std::uint64_t FileSink::generations_written() const {
  std::uint64_t n = 0;
  for (const File &f : files_)
    if (!f.removed) n += f.generations;
  return n;
}

std::uint64_t FileSink::good_bytes() const {
  std::uint64_t n = 0;
  for (const File &f : files_)
    if (!f.removed) n += f.bytes;
  return n;
}

}  // namespace gotraced::encoder
