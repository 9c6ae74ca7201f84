#include "tests/unit/encoder/scenario/flat_json.h"

#include <cctype>

namespace gotraced::encoder::scenario {
namespace {

class Parser {
 public:
  Parser(const std::string &s, FlatJson &out) : s_(s), out_(out) {}

  bool Document(std::string *error) {
    bool ok = Value("") && (Skip(), i_ == s_.size());
    if (!ok && error) *error = "JSON parse error near offset " + std::to_string(i_);
    return ok;
  }

 private:
  void Skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool Eat(char c) {
    Skip();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  static std::string Join(const std::string &path, const std::string &k) { return path.empty() ? k : path + "." + k; }

  bool String(std::string &out) {
    if (!Eat('"')) return false;
    while (i_ < s_.size() && s_[i_] != '"') {
      char c = s_[i_++];
      if (c == '\\' && i_ < s_.size()) {
        char e = s_[i_++];
        switch (e) {
          case 'n': out += '\n'; break;
          case 't': out += '\t'; break;
          case 'u':  // keep escapes of non-ASCII as written; keys we compare are ASCII
            out += "\\u";
            break;
          default: out += e;
        }
      } else {
        out += c;
      }
    }
    return i_++ < s_.size();
  }

  bool Value(const std::string &path) {
    Skip();
    if (i_ >= s_.size()) return false;
    char c = s_[i_];
    if (c == '{') {
      ++i_;
      if (Eat('}')) return true;
      do {
        std::string key;
        if (!String(key) || !Eat(':') || !Value(Join(path, key))) return false;
      } while (Eat(','));
      return Eat('}');
    }
    if (c == '[') {
      ++i_;
      int n = 0;
      if (!Eat(']')) {
        do {
          if (!Value(Join(path, std::to_string(n++)))) return false;
        } while (Eat(','));
        if (!Eat(']')) return false;
      }
      out_[Join(path, "length")] = std::to_string(n);
      return true;
    }
    if (c == '"') {
      std::string v;
      if (!String(v)) return false;
      out_[path] = v;
      return true;
    }
    std::size_t start = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '-' || s_[i_] == '.' ||
                              s_[i_] == '+'))
      ++i_;
    if (start == i_) return false;
    out_[path] = s_.substr(start, i_ - start);
    return true;
  }

  const std::string &s_;
  FlatJson &out_;
  std::size_t i_ = 0;
};

}  // namespace

std::optional<FlatJson> ParseFlatJson(const std::string &text, std::string *error) {
  FlatJson out;
  if (!Parser(text, out).Document(error)) return std::nullopt;
  return out;
}

}  // namespace gotraced::encoder::scenario
