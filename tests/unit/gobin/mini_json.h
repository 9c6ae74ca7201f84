// A minimal JSON reader for test tools (the Go test programs print JSON). Not for
// untrusted input: it is strict enough to reject malformed text, no more.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gotraced::testing {

struct Json {
  enum Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = kNull;
  bool b = false;
  double num = 0;
  std::string str;
  std::vector<Json> arr;
  std::map<std::string, Json> obj;

  const Json &operator[](const std::string &k) const {
    static const Json kNullJson;
    auto it = obj.find(k);
    return it == obj.end() ? kNullJson : it->second;
  }
  static std::optional<Json> Parse(std::string_view text);
};

namespace json_detail {

inline void SkipWs(std::string_view s, size_t &i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) i++;
}

inline void AppendUtf8(std::string &o, uint32_t r) {
  if (r < 0x80) o += static_cast<char>(r);
  else if (r < 0x800) { o += static_cast<char>(0xC0 | (r >> 6)); o += static_cast<char>(0x80 | (r & 0x3F)); }
  else if (r < 0x10000) { o += static_cast<char>(0xE0 | (r >> 12)); o += static_cast<char>(0x80 | ((r >> 6) & 0x3F)); o += static_cast<char>(0x80 | (r & 0x3F)); }
  else { o += static_cast<char>(0xF0 | (r >> 18)); o += static_cast<char>(0x80 | ((r >> 12) & 0x3F)); o += static_cast<char>(0x80 | ((r >> 6) & 0x3F)); o += static_cast<char>(0x80 | (r & 0x3F)); }
}

inline bool ParseValue(std::string_view s, size_t &i, Json &out, int depth);

inline bool ParseString(std::string_view s, size_t &i, std::string &out) {
  if (i >= s.size() || s[i] != '"') return false;
  i++;
  while (i < s.size() && s[i] != '"') {
    char c = s[i++];
    if (c != '\\') { out += c; continue; }
    if (i >= s.size()) return false;
    char e = s[i++];
    switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        if (i + 4 > s.size()) return false;
        uint32_t r = static_cast<uint32_t>(std::stoul(std::string(s.substr(i, 4)), nullptr, 16));
        i += 4;
        if (r >= 0xD800 && r < 0xDC00 && i + 6 <= s.size() && s[i] == '\\' && s[i + 1] == 'u') {
          uint32_t lo = static_cast<uint32_t>(std::stoul(std::string(s.substr(i + 2, 4)), nullptr, 16));
          i += 6;
          r = 0x10000 + ((r - 0xD800) << 10) + (lo - 0xDC00);
        }
        AppendUtf8(out, r);
        break;
      }
      default: return false;
    }
  }
  if (i >= s.size()) return false;
  i++;
  return true;
}

inline bool ParseValue(std::string_view s, size_t &i, Json &out, int depth) {
  if (depth > 100) return false;
  SkipWs(s, i);
  if (i >= s.size()) return false;
  char c = s[i];
  if (c == '{') {
    out.kind = Json::kObject;
    i++;
    SkipWs(s, i);
    if (i < s.size() && s[i] == '}') { i++; return true; }
    while (true) {
      SkipWs(s, i);
      std::string key;
      if (!ParseString(s, i, key)) return false;
      SkipWs(s, i);
      if (i >= s.size() || s[i] != ':') return false;
      i++;
      Json v;
      if (!ParseValue(s, i, v, depth + 1)) return false;
      out.obj.emplace(std::move(key), std::move(v));
      SkipWs(s, i);
      if (i < s.size() && s[i] == ',') { i++; continue; }
      if (i < s.size() && s[i] == '}') { i++; return true; }
      return false;
    }
  }
  if (c == '[') {
    out.kind = Json::kArray;
    i++;
    SkipWs(s, i);
    if (i < s.size() && s[i] == ']') { i++; return true; }
    while (true) {
      Json v;
      if (!ParseValue(s, i, v, depth + 1)) return false;
      out.arr.push_back(std::move(v));
      SkipWs(s, i);
      if (i < s.size() && s[i] == ',') { i++; continue; }
      if (i < s.size() && s[i] == ']') { i++; return true; }
      return false;
    }
  }
  if (c == '"') { out.kind = Json::kString; return ParseString(s, i, out.str); }
  if (s.substr(i, 4) == "true") { out.kind = Json::kBool; out.b = true; i += 4; return true; }
  if (s.substr(i, 5) == "false") { out.kind = Json::kBool; out.b = false; i += 5; return true; }
  if (s.substr(i, 4) == "null") { out.kind = Json::kNull; i += 4; return true; }
  size_t start = i;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '-' || s[i] == '+' || s[i] == '.' || s[i] == 'e' || s[i] == 'E')) i++;
  if (start == i) return false;
  out.kind = Json::kNumber;
  out.num = std::stod(std::string(s.substr(start, i - start)));
  return true;
}

}  // namespace json_detail

inline std::optional<Json> Json::Parse(std::string_view text) {
  Json j;
  size_t i = 0;
  try {
    if (!json_detail::ParseValue(text, i, j, 0)) return std::nullopt;
  } catch (...) {
    return std::nullopt;
  }
  json_detail::SkipWs(text, i);
  if (i != text.size()) return std::nullopt;
  return j;
}

}  // namespace gotraced::testing
