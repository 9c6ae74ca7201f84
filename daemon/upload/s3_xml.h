// The XML that S3-compatible stores answer with, parsed into what the uploader and
// `gotraced traces` need. Nothing above this file knows the format.
//
// The reference is Amazon's S3 API reference (ErrorResponses, CreateMultipartUpload,
// CompleteMultipartUpload, ListObjectsV2, ListMultipartUploads): UTF-8 documents of
// elements and text; the stores we talk to (AWS, MinIO, Ceph RGW, versitygw, GCS's XML
// API) send no DTD, no processing instructions beyond the <?xml?> declaration, and an
// xmlns attribute on the root. ParseXml reads exactly that subset: elements, attributes
// (skipped), character data with the five predefined entities and numeric references,
// CDATA sections and comments; anything else is an error, never a guess. Depth and size
// are bounded, so a hostile or broken server costs nothing but an error string.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gotraced::upload {

struct XmlElement {
  std::string name;  // without a namespace prefix ("s3:Key" -> "Key")
  std::string text;  // the element's own character data (children's excluded), entities decoded
  std::vector<XmlElement> children;

  const XmlElement *Child(std::string_view n) const;
  // The text of the first child named n, "" when there is none.
  std::string ChildText(std::string_view n) const;
};

inline constexpr std::size_t kMaxXmlBytes = 64 << 20;  // a ListObjectsV2 page of 1000 keys is ~300 KB
inline constexpr int kMaxXmlDepth = 32;

// The document's root element; nullopt with *error on malformed input.
std::optional<XmlElement> ParseXml(std::string_view doc, std::string *error);

// <Error><Code>NoSuchBucket</Code><Message>...</Message>...</Error>
struct S3Error {
  std::string code;     // "NoSuchBucket", "SignatureDoesNotMatch", ...
  std::string message;  // the store's words
};
// Only when body is an S3 <Error> document.
std::optional<S3Error> ParseS3Error(std::string_view body);

// CreateMultipartUpload's <InitiateMultipartUploadResult><UploadId>.
std::optional<std::string> ParseUploadId(std::string_view body, std::string *error);

// CompleteMultipartUpload answers 200 and may still carry an <Error> (the S3 reference:
// "a 200 OK response can contain either a success or an error"): the caller checks both.
struct CompleteResult {
  std::string etag;               // of the assembled object, when it succeeded
  std::optional<S3Error> error;   // when the body was an <Error>
};
std::optional<CompleteResult> ParseCompleteMultipart(std::string_view body, std::string *error);

// ListObjectsV2.
struct ListedObject {
  std::string key;
  std::uint64_t size = 0;
  std::string last_modified;  // ISO 8601 as the store wrote it
  std::string etag;
};
struct ListPage {
  std::vector<ListedObject> objects;
  bool truncated = false;
  std::string next_token;  // NextContinuationToken, when truncated
};
std::optional<ListPage> ParseListObjectsV2(std::string_view body, std::string *error);

// ListMultipartUploads: uploads begun and neither completed nor aborted (parts that
// cost storage and show in no listing of objects).
struct PendingUpload {
  std::string key;
  std::string upload_id;
  std::string initiated;
};
std::optional<std::vector<PendingUpload>> ParseListMultipartUploads(std::string_view body, std::string *error);

}  // namespace gotraced::upload
