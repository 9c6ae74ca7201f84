// The text of GET /processes (api.cc builds the entries): one JSON document laid out with
// one process per line,
//
//   {"processes":[
//   {"pid":1234,"exe":"/srv/app",...},
//   {"pid":1240,...}
//   ],
//   "daemon":{"pid":...},
//   "upload":{...}}            (daemon/upload/upload_status.h; absent without [upload])
//
// so that shell readers can pick a process's line with grep (tests/suites/60-serve.sh
// field, 65-faults.sh) while JSON readers (gotraced ps --json, tests/serve/*.sh) parse the
// whole. Strings that are not UTF-8 come out as U+FFFD (daemon/json/json_text.h).
#pragma once

#include <string>
#include <vector>

#include "daemon/json/json_text.h"

namespace gotraced::service {

std::string ProcessesDocument(const std::vector<json::Json> &processes, const json::Json &daemon,
                              const json::Json &upload = nullptr);

}  // namespace gotraced::service
