// Where finished trace bytes go. The writer hands over the 16-byte header once and then
// every finished generation as one chunk (for v26 including its 0x34 marker), so a
// sink always holds a prefix of the trace that ends on a generation boundary — a
// complete, parseable file at every moment.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace gotraced::encoder {

class Sink {
 public:
  virtual ~Sink() = default;
  // Called once, first, with the header ("go 1.NN trace" padded to 16 bytes).
  virtual void WriteHeader(std::span<const std::uint8_t> header) = 0;
  // Called once per finished generation with all its bytes, in generation order.
  // The span is valid only during the call.
  virtual void WriteGeneration(std::uint64_t gen, std::span<const std::uint8_t> bytes) = 0;
  // Called by TraceWriter::Close after the last generation.
  virtual void Close() {}
};

// Keeps the whole trace in memory (tests, small captures).
class MemorySink final : public Sink {
 public:
  void WriteHeader(std::span<const std::uint8_t> header) override;
  void WriteGeneration(std::uint64_t gen, std::span<const std::uint8_t> bytes) override;
  const std::vector<std::uint8_t> &bytes() const { return bytes_; }
  // Byte offset where each generation starts, in order (for splitting or truncating).
  const std::vector<std::size_t> &generation_offsets() const { return offsets_; }
  bool closed() const { return closed_; }
  void Close() override { closed_ = true; }

 private:
  std::vector<std::uint8_t> bytes_;
  std::vector<std::size_t> offsets_;
  bool closed_ = false;
};

// Hands each chunk to a function (a ring buffer, a socket, a flight-recorder window).
// `gen` is 0 for the header.
class CallbackSink final : public Sink {
 public:
  using Fn = std::function<void(std::uint64_t gen, std::span<const std::uint8_t> bytes)>;
  explicit CallbackSink(Fn fn) : fn_(std::move(fn)) {}
  void WriteHeader(std::span<const std::uint8_t> header) override { fn_(0, header); }
  void WriteGeneration(std::uint64_t gen, std::span<const std::uint8_t> bytes) override { fn_(gen, bytes); }

 private:
  Fn fn_;
};

// Appends to a file (created/truncated on open). The file only ever holds whole
// generations: a failed or short write (disk full, the file system gone, EIO) cuts the
// file back to the end of the last complete generation (ftruncate), so what is on disk
// still parses, and the error is sticky: error() returns the first one ("" if none),
// that generation and every later one are counted as lost and skipped.
class FileSink final : public Sink {
 public:
  explicit FileSink(const std::string &path);
  ~FileSink() override;
  FileSink(const FileSink &) = delete;
  FileSink &operator=(const FileSink &) = delete;

  void WriteHeader(std::span<const std::uint8_t> header) override;
  void WriteGeneration(std::uint64_t gen, std::span<const std::uint8_t> bytes) override;
  void Close() override;
  const std::string &error() const { return error_; }
  // Generations on disk, whole; generations handed over but not kept (the failed one
  // and every one after it).
  std::uint64_t generations_written() const { return written_; }
  std::uint64_t generations_lost() const { return lost_; }
  // Bytes of whole generations on disk (the file's size after a cut).
  std::uint64_t good_bytes() const { return good_end_; }

 private:
  // Writes all of `bytes` at the end; on failure cuts back to good_end_ and records why.
  bool Append(std::span<const std::uint8_t> bytes, const char *what);
  std::string path_;
  int fd_ = -1;
  std::uint64_t good_end_ = 0;  // end of the header or of the last whole generation
  std::uint64_t written_ = 0, lost_ = 0;
  std::string error_;
};

}  // namespace gotraced::encoder
