// A file of capture records as the ring delivered them, to replay a recording's records
// through the daemon's pipeline later (bench/replay): a recording writes one when
// GOTRACED_RECORD_FILE=PATH is set (Session).
//
// Format: the line "gotraced-records 1", key=value lines describing the target (exe,
// load_bias, launched, version, cpu_samples; whatever a replay needs to rebuild the
// pipeline), an empty line, then per record a little-endian u32 size and the record's
// bytes (proto/records.h), in delivery order.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "daemon/capture/record_view.h"
#include "daemon/gobin/result.h"

namespace gotraced::session {

class RecordFileWriter {
 public:
  // Creates `path` and writes the header; error() says why not.
  RecordFileWriter(const std::string &path, const std::map<std::string, std::string> &meta);
  ~RecordFileWriter();
  RecordFileWriter(const RecordFileWriter &) = delete;
  RecordFileWriter &operator=(const RecordFileWriter &) = delete;
  void Write(const capture::RecordView &v);
  const std::string &error() const { return error_; }

 private:
  std::FILE *f_ = nullptr;
  std::string error_;
};

struct RecordFile {
  std::map<std::string, std::string> meta;
  std::vector<std::uint8_t> bytes;  // every record, back to back
  struct Span {
    std::uint64_t offset;
    std::uint32_t size;
  };
  std::vector<Span> records;
  capture::RecordView view(std::size_t i) const {
    return capture::RecordView(bytes.data() + records[i].offset, records[i].size);
  }
};

gobin::Result<RecordFile> ReadRecordFile(const std::string &path);

}  // namespace gotraced::session
