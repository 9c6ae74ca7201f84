// The uploader's state for the endpoint. See upload_status.h.
#include "daemon/upload/upload_status.h"

#include <fmt/format.h>

#include "daemon/json/json_text.h"

namespace gotraced::upload {

std::string UploadStatusJson(const UploadStats &s) {
  if (!s.configured && !s.pending && !s.lost) return "null";
  const json::Json j = {{"configured", s.configured},
                        {"store", s.store},
                        {"uploaded", s.uploaded},
                        {"bytes", s.bytes},
                        {"retries", s.retries},
                        {"failures", s.failures},
                        {"pending", s.pending},
                        {"pending_bytes", s.pending_bytes},
                        {"oldest_pending_seconds", s.oldest_pending_seconds},
                        {"lost", s.lost},
                        {"recent_lost", s.recent_lost},
                        {"last_error", s.last_error},
                        {"last_error_file", s.last_error_file},
                        {"last_key", s.last_key}};
  return json::Text(j);  // an S3 error or a file name need not be UTF-8: U+FFFD (json_text.h)
}

std::string UploadStatusText(const UploadStats &s) {
  if (!s.configured && !s.pending && !s.lost) return "";
  std::string o = fmt::format("upload to {}: {} uploaded ({:.2f} MiB), {} pending ({:.2f} MiB, oldest {:.0f} s), {} retries, "
                              "{} lost\n",
                              s.configured ? s.store : "(not configured)", s.uploaded, s.bytes / 1048576.0, s.pending,
                              s.pending_bytes / 1048576.0, s.oldest_pending_seconds, s.retries, s.lost);
  for (const std::string &f : s.recent_lost) o += fmt::format("  LOST (evicted before upload): {}\n", f);
  if (!s.last_error.empty()) o += fmt::format("  last error: {} ({})\n", s.last_error, s.last_error_file);
  return o;
}

std::string UploadMetrics(const UploadStats &s) {
  std::string o;
  auto one = [&](std::string_view name, std::string_view type, std::string_view help, double v) {
    o += fmt::format("# HELP {} {}\n# TYPE {} {}\n{} {}\n", name, help, name, type, name, v);
  };
  one("gotraced_upload_objects_total", "counter", "Trace files the store confirmed (status and ETag).", double(s.uploaded));
  one("gotraced_upload_bytes_total", "counter", "Bytes of the trace files the store confirmed.", double(s.bytes));
  one("gotraced_upload_retries_total", "counter", "Upload attempts after a failed one.", double(s.retries));
  o += "# HELP gotraced_upload_failures_total Failed upload attempts, by S3 error code (or CouldNotConnect, Timeout, ...).\n"
       "# TYPE gotraced_upload_failures_total counter\n";
  for (const auto &[code, n] : s.failures) {
    std::string label;
    for (char c : code) label += (c == '"' || c == '\\' || c == '\n') ? '_' : c;
    o += fmt::format("gotraced_upload_failures_total{{code=\"{}\"}} {}\n", label, n);
  }
  one("gotraced_upload_pending", "gauge", "Trace files in the spool waiting for upload.", double(s.pending));
  one("gotraced_upload_pending_bytes", "gauge", "Bytes of the trace files waiting for upload.", double(s.pending_bytes));
  one("gotraced_upload_oldest_pending_seconds", "gauge", "Age of the oldest trace file waiting for upload.",
      s.oldest_pending_seconds);
  one("gotraced_upload_lost_total", "counter", "Trace files the spool's cap evicted before they were uploaded.",
      double(s.lost));
  return o;
}

}  // namespace gotraced::upload
