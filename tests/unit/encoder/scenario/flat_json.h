// Two tracecheck-shaped documents compared key by key: a JSON document (nlohmann/json)
// as a flat map from dotted path ("transitions.goroutine.Runnable->Running") to the
// scalar's text.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace gotraced::encoder::scenario {

using FlatJson = std::map<std::string, std::string>;

// nullopt (and *error set) if the text is not valid JSON.
std::optional<FlatJson> ParseFlatJson(const std::string &text, std::string *error);

}  // namespace gotraced::encoder::scenario
