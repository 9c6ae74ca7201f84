#include "tests/unit/encoder/scenario/flat_json.h"

#include <nlohmann/json.hpp>

namespace gotraced::encoder::scenario {
namespace {

std::string Join(const std::string &path, const std::string &k) { return path.empty() ? k : path + "." + k; }

// Objects by key, arrays by index plus "<path>.length"; a scalar's text is a string's
// value or the number's (bool's, null's) JSON text.
void Flatten(const nlohmann::json &j, const std::string &path, FlatJson &out) {
  if (j.is_object()) {
    for (const auto &[k, v] : j.items()) Flatten(v, Join(path, k), out);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) Flatten(j[i], Join(path, std::to_string(i)), out);
    out[Join(path, "length")] = std::to_string(j.size());
  } else {
    out[path] = j.is_string() ? j.get<std::string>() : j.dump();
  }
}

}  // namespace

std::optional<FlatJson> ParseFlatJson(const std::string &text, std::string *error) {
  FlatJson out;
  try {
    Flatten(nlohmann::json::parse(text), "", out);
  } catch (const nlohmann::json::parse_error &e) {
    if (error) *error = e.what();
    return std::nullopt;
  }
  return out;
}

}  // namespace gotraced::encoder::scenario
