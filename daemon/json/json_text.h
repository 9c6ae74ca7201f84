// How gotraced turns a JSON document into text: every JSON it writes (GET /processes,
// `gotraced report --json`, `selftest --json`, `inspect --json`) goes through here, so
// the choices below are made once.
//
// - nlohmann::ordered_json: keys stay in the order the writer set them, so a document
//   reads as it did when it was written by hand (pid first, ...) and line-oriented
//   readers (tests/suites/60-serve.sh greps `"pid":N,`) keep working.
// - error_handler_t::replace: the strings come from outside the daemon (process names,
//   executable and file paths, Go strings read from target memory, verifier logs) and
//   need not be UTF-8. nlohmann's default (strict) throws type_error 316 on the first
//   invalid byte, which would abort a dump of everything else; `ignore` would silently
//   drop bytes. `replace` writes U+FFFD for each invalid sequence: the document stays
//   valid JSON and a reader still sees that something was there.
#pragma once

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

namespace gotraced::json {

using Json = nlohmann::ordered_json;

// Compact (one line) text of j, or indented by `indent` spaces; never throws for bad UTF-8.
inline std::string Text(const Json &j, int indent = -1) {
  return j.dump(indent, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

// x rounded to `decimals` places, for figures written with a fixed precision before
// (nlohmann writes the shortest text that reads back as the same double).
inline double Rounded(double x, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(x * scale) / scale;
}

}  // namespace gotraced::json
