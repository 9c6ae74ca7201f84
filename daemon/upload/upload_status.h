// The uploader's state as the endpoint shows it: in GET /processes (JSON "upload"), in
// `gotraced ps` (text) and in /metrics (Prometheus). Nothing here holds a credential:
// UploadStats has none (the store is named by bucket and endpoint only).
#pragma once

#include <string>

#include "daemon/upload/uploader.h"

namespace gotraced::upload {

std::string UploadStatusJson(const UploadStats &s);  // a JSON object ("null" when never configured)
std::string UploadStatusText(const UploadStats &s);  // lines for `gotraced ps` ("" when nothing to say)
// gotraced_upload_objects_total, _bytes_total, _retries_total, _failures_total{code},
// _pending, _pending_bytes, _oldest_pending_seconds, _lost_total.
std::string UploadMetrics(const UploadStats &s);

}  // namespace gotraced::upload
