// Just enough JSON to compare two tracecheck-shaped documents: parses objects,
// arrays, strings, numbers, booleans and null into a flat map from dotted path
// ("transitions.goroutine.Runnable->Running") to the scalar's text.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace gotraced::encoder::scenario {

using FlatJson = std::map<std::string, std::string>;

// nullopt (and *error set) if the text is not valid JSON of that subset.
std::optional<FlatJson> ParseFlatJson(const std::string &text, std::string *error);

}  // namespace gotraced::encoder::scenario
