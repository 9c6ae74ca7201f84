// S3 XML responses. See s3_xml.h.
#include "daemon/upload/s3_xml.h"

#include <fmt/format.h>

#include <charconv>

namespace gotraced::upload {

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
         c == '.' || c == ':' || static_cast<unsigned char>(c) >= 0x80;
}

void AppendUtf8(std::uint32_t cp, std::string &out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

// A recursive-descent reader over the document; every method either advances or fails.
class Reader {
 public:
  explicit Reader(std::string_view d) : d_(d) {}

  std::optional<XmlElement> Document(std::string *error) {
    SkipMisc();
    XmlElement root;
    if (!Element(root, 1)) return Failed(error);
    SkipMisc();
    if (pos_ != d_.size()) {
      err_ = "content after the root element";
      return Failed(error);
    }
    return root;
  }

 private:
  std::optional<XmlElement> Failed(std::string *error) {
    if (error) *error = fmt::format("malformed XML at byte {}: {}", pos_, err_);
    return std::nullopt;
  }
  bool Fail(const char *why) {
    if (err_.empty()) err_ = why;
    return false;
  }
  bool Starts(std::string_view s) const { return d_.substr(pos_, s.size()) == s; }
  // Skips to just past `end`; false when it never comes.
  bool SkipPast(std::string_view end) {
    const std::size_t e = d_.find(end, pos_);
    if (e == std::string_view::npos) return false;
    pos_ = e + end.size();
    return true;
  }
  // Whitespace, the <?xml ...?> declaration and comments between elements.
  void SkipMisc() {
    while (pos_ < d_.size()) {
      if (IsSpace(d_[pos_])) {
        pos_++;
      } else if (Starts("<?")) {
        if (!SkipPast("?>")) return;
      } else if (Starts("<!--")) {
        if (!SkipPast("-->")) return;
      } else {
        return;
      }
    }
  }
  bool Name(std::string &out) {
    const std::size_t b = pos_;
    while (pos_ < d_.size() && IsNameChar(d_[pos_])) pos_++;
    if (pos_ == b) return Fail("expected a name");
    out.assign(d_.substr(b, pos_ - b));
    return true;
  }
  static std::string Local(std::string n) {
    const std::size_t c = n.rfind(':');
    return c == std::string::npos ? n : n.substr(c + 1);
  }
  // Attributes are read past (S3 answers carry only xmlns ones).
  bool Attributes(bool *empty) {
    while (true) {
      while (pos_ < d_.size() && IsSpace(d_[pos_])) pos_++;
      if (pos_ >= d_.size()) return Fail("unterminated start tag");
      if (Starts("/>")) {
        pos_ += 2;
        *empty = true;
        return true;
      }
      if (d_[pos_] == '>') {
        pos_++;
        *empty = false;
        return true;
      }
      std::string name;
      if (!Name(name)) return false;
      while (pos_ < d_.size() && IsSpace(d_[pos_])) pos_++;
      if (pos_ >= d_.size() || d_[pos_] != '=') return Fail("expected = after an attribute name");
      pos_++;
      while (pos_ < d_.size() && IsSpace(d_[pos_])) pos_++;
      if (pos_ >= d_.size() || (d_[pos_] != '"' && d_[pos_] != '\'')) return Fail("expected a quoted attribute value");
      const char q = d_[pos_++];
      const std::size_t e = d_.find(q, pos_);
      if (e == std::string_view::npos) return Fail("unterminated attribute value");
      pos_ = e + 1;
    }
  }
  bool Entity(std::string &out) {
    const std::size_t semi = d_.find(';', pos_);
    if (semi == std::string_view::npos || semi - pos_ > 12) return Fail("unterminated entity reference");
    const std::string_view ent = d_.substr(pos_ + 1, semi - pos_ - 1);
    pos_ = semi + 1;
    if (ent == "lt") out += '<';
    else if (ent == "gt") out += '>';
    else if (ent == "amp") out += '&';
    else if (ent == "quot") out += '"';
    else if (ent == "apos") out += '\'';
    else if (ent.size() > 1 && ent[0] == '#') {
      const bool hex = ent[1] == 'x' || ent[1] == 'X';
      const std::string_view digits = ent.substr(hex ? 2 : 1);
      std::uint32_t cp = 0;
      auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), cp, hex ? 16 : 10);
      if (digits.empty() || ec != std::errc() || p != digits.data() + digits.size() || cp == 0 || cp > 0x10ffff ||
          (cp >= 0xd800 && cp <= 0xdfff))
        return Fail("bad character reference");
      AppendUtf8(cp, out);
    } else {
      return Fail("unknown entity");
    }
    return true;
  }
  bool Element(XmlElement &el, int depth) {
    if (depth > kMaxXmlDepth) return Fail("nested too deeply");
    if (pos_ >= d_.size() || d_[pos_] != '<') return Fail("expected an element");
    pos_++;
    std::string raw;
    if (!Name(raw)) return false;
    el.name = Local(raw);
    bool empty = false;
    if (!Attributes(&empty)) return false;
    if (empty) return true;
    while (true) {
      if (pos_ >= d_.size()) return Fail("unterminated element");
      const char c = d_[pos_];
      if (c == '&') {
        if (!Entity(el.text)) return false;
      } else if (c != '<') {
        el.text += c;
        pos_++;
      } else if (Starts("</")) {
        pos_ += 2;
        std::string end;
        if (!Name(end)) return false;
        if (end != raw) return Fail("end tag does not match its start tag");
        while (pos_ < d_.size() && IsSpace(d_[pos_])) pos_++;
        if (pos_ >= d_.size() || d_[pos_] != '>') return Fail("unterminated end tag");
        pos_++;
        return true;
      } else if (Starts("<![CDATA[")) {
        pos_ += 9;
        const std::size_t e = d_.find("]]>", pos_);
        if (e == std::string_view::npos) return Fail("unterminated CDATA section");
        el.text.append(d_.substr(pos_, e - pos_));
        pos_ = e + 3;
      } else if (Starts("<!--")) {
        if (!SkipPast("-->")) return Fail("unterminated comment");
      } else if (Starts("<?") || Starts("<!")) {
        return Fail("declarations and processing instructions are not expected inside an element");
      } else {
        el.children.emplace_back();
        if (!Element(el.children.back(), depth + 1)) return false;
      }
    }
  }

  std::string_view d_;
  std::size_t pos_ = 0;
  std::string err_;
};

std::string Trim(std::string s) {
  std::size_t b = 0, e = s.size();
  while (b < e && IsSpace(s[b])) b++;
  while (e > b && IsSpace(s[e - 1])) e--;
  return s.substr(b, e - b);
}

std::optional<XmlElement> Root(std::string_view body, std::string_view want, std::string *error) {
  std::optional<XmlElement> root = ParseXml(body, error);
  if (!root) return std::nullopt;
  if (root->name != want) {
    if (error) *error = fmt::format("expected <{}>, the store answered <{}>", want, root->name.substr(0, 64));
    return std::nullopt;
  }
  return root;
}

}  // namespace

const XmlElement *XmlElement::Child(std::string_view n) const {
  for (const XmlElement &c : children)
    if (c.name == n) return &c;
  return nullptr;
}

std::string XmlElement::ChildText(std::string_view n) const {
  const XmlElement *c = Child(n);
  return c ? Trim(c->text) : std::string();
}

std::optional<XmlElement> ParseXml(std::string_view doc, std::string *error) {
  if (doc.size() > kMaxXmlBytes) {
    if (error) *error = fmt::format("XML document of {} bytes, more than the {} accepted", doc.size(), kMaxXmlBytes);
    return std::nullopt;
  }
  return Reader(doc).Document(error);
}

std::optional<S3Error> ParseS3Error(std::string_view body) {
  std::optional<XmlElement> root = ParseXml(body, nullptr);
  if (!root || root->name != "Error") return std::nullopt;
  S3Error e{root->ChildText("Code"), root->ChildText("Message")};
  if (e.code.empty()) return std::nullopt;
  return e;
}

std::optional<std::string> ParseUploadId(std::string_view body, std::string *error) {
  std::optional<XmlElement> root = Root(body, "InitiateMultipartUploadResult", error);
  if (!root) return std::nullopt;
  std::string id = root->ChildText("UploadId");
  if (id.empty()) {
    if (error) *error = "InitiateMultipartUploadResult without an UploadId";
    return std::nullopt;
  }
  return id;
}

std::optional<CompleteResult> ParseCompleteMultipart(std::string_view body, std::string *error) {
  std::optional<XmlElement> root = ParseXml(body, error);
  if (!root) return std::nullopt;
  CompleteResult r;
  if (root->name == "Error") {
    r.error = S3Error{root->ChildText("Code"), root->ChildText("Message")};
    return r;
  }
  if (root->name != "CompleteMultipartUploadResult") {
    if (error) *error = fmt::format("expected <CompleteMultipartUploadResult>, the store answered <{}>", root->name.substr(0, 64));
    return std::nullopt;
  }
  r.etag = root->ChildText("ETag");
  if (r.etag.empty()) {
    if (error) *error = "CompleteMultipartUploadResult without an ETag";
    return std::nullopt;
  }
  return r;
}

std::optional<ListPage> ParseListObjectsV2(std::string_view body, std::string *error) {
  std::optional<XmlElement> root = Root(body, "ListBucketResult", error);
  if (!root) return std::nullopt;
  ListPage page;
  page.truncated = root->ChildText("IsTruncated") == "true";
  page.next_token = root->ChildText("NextContinuationToken");
  if (page.truncated && page.next_token.empty()) {
    if (error) *error = "a truncated listing without a NextContinuationToken";
    return std::nullopt;
  }
  for (const XmlElement &c : root->children) {
    if (c.name != "Contents") continue;
    ListedObject o;
    o.key = c.ChildText("Key");
    const std::string size = c.ChildText("Size");
    auto [p, ec] = std::from_chars(size.data(), size.data() + size.size(), o.size);
    if (o.key.empty() || size.empty() || ec != std::errc() || p != size.data() + size.size()) {
      if (error) *error = "a <Contents> entry without a Key or a numeric Size";
      return std::nullopt;
    }
    o.last_modified = c.ChildText("LastModified");
    o.etag = c.ChildText("ETag");
    page.objects.push_back(std::move(o));
  }
  return page;
}

std::optional<std::vector<PendingUpload>> ParseListMultipartUploads(std::string_view body, std::string *error) {
  std::optional<XmlElement> root = Root(body, "ListMultipartUploadsResult", error);
  if (!root) return std::nullopt;
  std::vector<PendingUpload> out;
  for (const XmlElement &c : root->children) {
    if (c.name != "Upload") continue;
    PendingUpload u{c.ChildText("Key"), c.ChildText("UploadId"), c.ChildText("Initiated")};
    if (u.key.empty() || u.upload_id.empty()) {
      if (error) *error = "an <Upload> entry without a Key or an UploadId";
      return std::nullopt;
    }
    out.push_back(std::move(u));
  }
  return out;
}

}  // namespace gotraced::upload
