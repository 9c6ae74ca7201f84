#include "encoder/sink.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace gotraced::encoder {

void MemorySink::WriteHeader(std::span<const std::uint8_t> header) {
  bytes_.insert(bytes_.end(), header.begin(), header.end());
}

void MemorySink::WriteGeneration(std::uint64_t, std::span<const std::uint8_t> bytes) {
  offsets_.push_back(bytes_.size());
  bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
}

FileSink::FileSink(const std::string &path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) error_ = "open " + path + ": " + std::strerror(errno);
}

FileSink::~FileSink() { Close(); }

bool FileSink::Append(std::span<const std::uint8_t> bytes, const char *what) {
  if (fd_ < 0 || !error_.empty()) return false;
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n > 0) {
      done += size_t(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    int err = n < 0 ? errno : ENOSPC;  // a write of 0 bytes: no room
    error_ = fmt::format("write {}: {} ({} of {} bytes of the {} written)", path_, std::strerror(err), done,
                         bytes.size(), what);
    // Cut back to whole generations: a torn one would make the file unparseable.
    if (::ftruncate(fd_, off_t(good_end_)) != 0)
      error_ += fmt::format("; and cutting the file back to its last whole generation failed: {}",
                            std::strerror(errno));
    else
      ::lseek(fd_, off_t(good_end_), SEEK_SET);
    return false;
  }
  good_end_ += bytes.size();
  return true;
}

void FileSink::WriteHeader(std::span<const std::uint8_t> header) { Append(header, "header"); }

void FileSink::WriteGeneration(std::uint64_t, std::span<const std::uint8_t> bytes) {
  // write(2) hands each whole generation to the kernel: a reader (or a crash of
  // gotraced) sees whole generations.
  if (Append(bytes, "generation")) written_++;
  else lost_++;
}

void FileSink::Close() {
  if (fd_ < 0) return;
  if (::close(fd_) != 0 && error_.empty()) error_ = "close " + path_ + ": " + std::strerror(errno);
  fd_ = -1;
}

}  // namespace gotraced::encoder
