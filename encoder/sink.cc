#include "encoder/sink.h"

#include <cerrno>
#include <cstring>

namespace gotraced::encoder {

void MemorySink::WriteHeader(std::span<const std::uint8_t> header) {
  bytes_.insert(bytes_.end(), header.begin(), header.end());
}

void MemorySink::WriteGeneration(std::uint64_t, std::span<const std::uint8_t> bytes) {
  offsets_.push_back(bytes_.size());
  bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
}

FileSink::FileSink(const std::string &path) : path_(path) {
  f_ = std::fopen(path.c_str(), "wb");
  if (!f_) error_ = "open " + path + ": " + std::strerror(errno);
}

FileSink::~FileSink() { Close(); }

void FileSink::Write(std::span<const std::uint8_t> bytes) {
  if (!f_ || !error_.empty()) return;
  if (std::fwrite(bytes.data(), 1, bytes.size(), f_) != bytes.size())
    error_ = "write " + path_ + ": " + std::strerror(errno);
}

void FileSink::WriteHeader(std::span<const std::uint8_t> header) { Write(header); }

void FileSink::WriteGeneration(std::uint64_t, std::span<const std::uint8_t> bytes) {
  Write(bytes);
  // A finished generation is a parseable prefix; push it out so a reader (or a crash)
  // sees whole generations.
  if (f_ && error_.empty() && std::fflush(f_) != 0) error_ = "flush " + path_ + ": " + std::strerror(errno);
}

void FileSink::Close() {
  if (!f_) return;
  if (std::fclose(f_) != 0 && error_.empty()) error_ = "close " + path_ + ": " + std::strerror(errno);
  f_ = nullptr;
}

}  // namespace gotraced::encoder
