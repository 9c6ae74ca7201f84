// Where finished trace bytes go. The writer hands over the 16-byte header once and then
// every finished generation as one chunk (for v26 including its 0x34 marker), so a
// sink always holds a prefix of the trace that ends on a generation boundary — a
// complete, parseable file at every moment.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "encoder/legacy_restart.h"

namespace gotraced::encoder {

struct StoredLegacyRestart;
class LegacyRebaser;

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

// What a FileSink does when a write fails (gotraced --on-write-error).
enum class WriteErrorPolicy : std::uint8_t {
  // The file keeps its whole generations; that generation and every later one are lost
  // (the session stops recording).
  kStop,
  // That generation is lost; the next one is tried again, in a continuation file
  // (ContinuationPath): a file that skipped a generation would not parse, since Go's
  // reader carries goroutine and P state from one generation to the next
  // (internal/trace/order.go: "found goroutine status for new goroutine after the first
  // generation"), while a file that starts at generation k parses on its own (the first
  // generation's leniency, as runtime/trace's FlightRecorder relies on). A legacy
  // (pre-1.22) file has no such leniency: its continuation starts with generation k's
  // restart prelude and the generations are rebased to it (legacy_rebase.h), as a
  // flight-recorder dump is; the FileSink takes the preludes as a LegacyRestartSink.
  kDrop,
};

// "dir/t.trace", 2 -> "dir/t.2.trace"; "dir/t" -> "dir/t.2".
std::string ContinuationPath(const std::string &path, unsigned n);

// Writes the trace to a file (created/truncated on open). Every file it leaves holds
// the header and whole generations, nothing else, so it parses whatever happened:
// - the header is written with the first generation, in one write;
// - a failed or short write (disk full, EIO ...) cuts the file back to the end of its
//   last whole generation (ftruncate); a file left without a generation is removed;
// - the file being removed (unlinked) while written is noticed at the next generation
//   and at Close (fstat), and counts as an error: its generations are lost.
// Then the policy says what happens to the later generations. error() keeps the first
// error ("" if none); the counts below say what is on disk and what was lost.
// A legacy-format writer given the FileSink as its LegacyRestartSink (kDrop only: a file
// that never skips a generation needs no prelude) makes each continuation file a trace
// of its own, as above.
class FileSink final : public Sink, public LegacyRestartSink {
 public:
  explicit FileSink(const std::string &path, WriteErrorPolicy policy = WriteErrorPolicy::kStop);
  ~FileSink() override;
  FileSink(const FileSink &) = delete;
  FileSink &operator=(const FileSink &) = delete;

  void WriteHeader(std::span<const std::uint8_t> header) override;
  void WriteGeneration(std::uint64_t gen, std::span<const std::uint8_t> bytes) override;
  void Close() override;
  // Kept for `gen` (called right before its WriteGeneration), used when that generation
  // opens a continuation file.
  void WriteLegacyPrelude(std::uint64_t gen, const LegacyRestart &restart) override;

  const std::string &error() const { return error_; }
  const std::string &latest_error() const { return latest_error_; }  // the last one
  // kStop after an error: nothing more will be written (the session stops).
  bool stopped() const { return policy_ == WriteErrorPolicy::kStop && !error_.empty(); }
  std::uint64_t write_errors() const { return write_errors_; }  // failed writes and removals

  // One file the trace went to, in order (more than one only with kDrop after an error).
  struct File {
    std::string path;
    std::uint64_t generations = 0;  // whole generations in it
    std::uint64_t bytes = 0;        // its size: header and whole generations
    std::uint64_t first_gen = 0;    // number of its first generation (0: none yet)
    bool removed = false;           // unlinked while written: its generations are lost
  };
  const std::vector<File> &files() const { return files_; }
  // Index in files() of the file the last generation went to; -1 if it was lost.
  int last_file() const { return last_file_; }

  // Whole generations in files still on disk; generations handed over and not kept
  // (failed, skipped after a kStop error, or in a removed file); their bytes.
  std::uint64_t generations_written() const;
  std::uint64_t generations_lost() const { return lost_; }
  std::uint64_t good_bytes() const;

 private:
  bool OpenFile(const std::string &path);
  void NoteError(std::string msg);
  void CheckRemoved();
  // Writes `parts` at the end of the open file; on failure cuts back to its last whole
  // generation and records why.
  bool Append(std::span<const std::span<const std::uint8_t>> parts, std::uint64_t gen);
  void CloseFd();

  std::string path_;
  WriteErrorPolicy policy_;
  int fd_ = -1;
  bool regular_ = false;  // a regular file (not a pipe or a tty): can be cut back and checked
  std::vector<std::uint8_t> header_;
  std::vector<File> files_;
  int last_file_ = -1;
  std::uint64_t lost_ = 0, write_errors_ = 0;
  std::string error_, latest_error_;
  // Legacy format: the restart of generation restart_gen_, and the rebaser of the open
  // file when it is a continuation (null for the file that starts at generation 1).
  std::unique_ptr<StoredLegacyRestart> restart_;
  std::uint64_t restart_gen_ = 0;
  std::unique_ptr<LegacyRebaser> rebaser_;
  std::vector<std::uint8_t> rebased_;
};

}  // namespace gotraced::encoder
