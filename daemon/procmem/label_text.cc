#include "daemon/procmem/label_text.h"

#include <algorithm>
#include <cstdint>

namespace gotraced::procmem {

namespace {

// Length of the valid UTF-8 sequence at s[i] (1..4), 0 when it is not one.
std::size_t Utf8Len(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; k++)
    if ((b(i + k) & 0xc0) != 0x80) return 0;
  if (n == 2 && c < 0xc2) return 0;  // overlong
  if (n == 3) {
    const unsigned cp = ((c & 0xfu) << 12) | ((b(i + 1) & 0x3fu) << 6) | (b(i + 2) & 0x3fu);
    if (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  }
  if (n == 4) {
    const unsigned cp = ((c & 0x7u) << 18) | ((b(i + 1) & 0x3fu) << 12);
    if (cp < 0x10000 || cp > 0x10ffff) return 0;
  }
  return n;
}

bool Plain(std::string_view s) {
  if (s.empty()) return false;
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c <= 0x20 || c == 0x7f || c == '=' || c == '"' || c == '\\') return false;
      i++;
      continue;
    }
    std::size_t n = Utf8Len(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

void Append(std::string &out, std::string_view s) {
  if (Plain(s)) {
    out.append(s);
    return;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 1 : Utf8Len(s, i);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c == '\n') {
      out.append("\\n");
    } else if (c == '\t') {
      out.append("\\t");
    } else if (n == 0 || c < 0x20 || c == 0x7f) {
      out.append("\\x");
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
      n = 1;
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
  out.push_back('"');
}

// One key or value at text[*i]: quoted or plain (up to '=' or ' ').
bool ParseString(std::string_view t, std::size_t *i, std::string *out) {
  out->clear();
  if (*i < t.size() && t[*i] == '"') {
    for (std::size_t k = *i + 1; k < t.size(); k++) {
      char c = t[k];
      if (c == '"') {
        *i = k + 1;
        return true;
      }
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (++k >= t.size()) return false;
      c = t[k];
      if (c == 'n') out->push_back('\n');
      else if (c == 't') out->push_back('\t');
      else if (c == 'x') {
        if (k + 2 >= t.size()) return false;
        auto hex = [](char h) { return h >= 'a' ? h - 'a' + 10 : h - '0'; };
        out->push_back(static_cast<char>(hex(t[k + 1]) * 16 + hex(t[k + 2])));
        k += 2;
      } else {
        out->push_back(c);
      }
    }
    return false;
  }
  std::size_t k = *i;
  while (k < t.size() && t[k] != '=' && t[k] != ' ') k++;
  *out = std::string(t.substr(*i, k - *i));
  *i = k;
  return !out->empty();
}

}  // namespace

std::string LabelText(LabelSet set) {
  std::sort(set.labels.begin(), set.labels.end());
  std::string out;
  std::size_t shown = 0;
  bool cut = set.cut;
  // The tail a cut set ends with. Its count is the target's (a map's count, a slice's
  // len: any 64-bit value in memory being freed), so its room is its own length, not a
  // guess: labels_fuzz found a 15-digit count pushing the text to 1005 bytes.
  const std::string tail = "[cut: " + std::to_string(std::max(set.total, set.labels.size())) + " labels]";
  for (const auto &[k, v] : set.labels) {
    std::string one;
    Append(one, k);
    one.push_back('=');
    Append(one, v);
    // Room for the cut tail.
    if (out.size() + 1 + one.size() + 1 + tail.size() > kMaxTextBytes) {
      cut = true;
      break;
    }
    if (!out.empty()) out.push_back(' ');
    out += one;
    shown++;
  }
  if (cut || shown < set.total) {
    if (!out.empty()) out.push_back(' ');
    out += tail;
  }
  return out;
}

bool ParseLabelText(std::string_view t, std::vector<std::pair<std::string, std::string>> *out) {
  out->clear();
  std::size_t i = 0;
  std::string k, v;
  while (i < t.size()) {
    if (t.substr(i).starts_with("[cut: ")) return true;
    if (!ParseString(t, &i, &k) || i >= t.size() || t[i] != '=') return false;
    i++;
    if (!ParseString(t, &i, &v)) return false;
    out->emplace_back(k, v);
    if (i < t.size()) {
      if (t[i] != ' ') return false;
      i++;
    }
  }
  return true;
}

}  // namespace gotraced::procmem
