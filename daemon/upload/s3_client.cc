// S3 requests on libcurl. See s3_client.h.
#include "daemon/upload/s3_client.h"

// curl_easy_setopt as the plain variadic function, not the type-checking macro: it is
// called through a pointer (Lib below).
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>
#include <dlfcn.h>
#include <fmt/format.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>

namespace gotraced::upload {

namespace {

// libcurl and libcrypto, loaded when an upload first needs them rather than linked:
// linked, they and the ~35 libraries they pull in cost every run of gotraced ~5 ms of
// dynamic loading before main (LD_DEBUG=statistics; `gotraced report` of a small
// trace spent half its time there: issue 33). Their sonames are the ones
// scripts/install-deps.sh installs (libcurl4, libssl3).
struct Libs {
#define GT_FN(f) decltype(&::f) f = nullptr;
  GT_FN(curl_global_init) GT_FN(curl_easy_init) GT_FN(curl_easy_cleanup) GT_FN(curl_easy_setopt)
  GT_FN(curl_easy_perform) GT_FN(curl_easy_getinfo) GT_FN(curl_easy_strerror) GT_FN(curl_slist_append)
  GT_FN(curl_slist_free_all)
  GT_FN(EVP_Digest) GT_FN(EVP_sha256) GT_FN(EVP_MD_CTX_new) GT_FN(EVP_MD_CTX_free) GT_FN(EVP_DigestInit_ex)
  GT_FN(EVP_DigestUpdate) GT_FN(EVP_DigestFinal_ex)
#undef GT_FN
};

Libs LoadLibs() {
  Libs l;
  void *curl = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  void *crypto = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
  if (!curl || !crypto) {
    std::fprintf(stderr, "gotraced: uploads need libcurl.so.4 and libcrypto.so.3: %s\n", dlerror());
    std::abort();
  }
  auto sym = [](void *h, const char *name, auto &fn) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
    if (!fn) {
      std::fprintf(stderr, "gotraced: %s: %s\n", name, dlerror());
      std::abort();
    }
  };
#define GT_SYM(h, f) sym(h, #f, l.f);
  GT_SYM(curl, curl_global_init) GT_SYM(curl, curl_easy_init) GT_SYM(curl, curl_easy_cleanup)
  GT_SYM(curl, curl_easy_setopt) GT_SYM(curl, curl_easy_perform) GT_SYM(curl, curl_easy_getinfo)
  GT_SYM(curl, curl_easy_strerror) GT_SYM(curl, curl_slist_append) GT_SYM(curl, curl_slist_free_all)
  GT_SYM(crypto, EVP_Digest) GT_SYM(crypto, EVP_sha256) GT_SYM(crypto, EVP_MD_CTX_new)
  GT_SYM(crypto, EVP_MD_CTX_free) GT_SYM(crypto, EVP_DigestInit_ex) GT_SYM(crypto, EVP_DigestUpdate)
  GT_SYM(crypto, EVP_DigestFinal_ex)
#undef GT_SYM
  return l;
}

const Libs &Lib() {
  static const Libs libs = LoadLibs();  // once, thread-safe
  return libs;
}

std::string Hex(const unsigned char *d, unsigned n) {
  std::string out;
  for (unsigned i = 0; i < n; i++) out += fmt::format("{:02x}", d[i]);
  return out;
}

std::string Lower(std::string s) {
  for (char &c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { Lib().curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct CurlDeleter {
  void operator()(CURL *c) const { Lib().curl_easy_cleanup(c); }
};
struct SlistDeleter {
  void operator()(curl_slist *l) const { Lib().curl_slist_free_all(l); }
};
struct FileCloser {
  void operator()(std::FILE *f) const { std::fclose(f); }
};

}  // namespace

std::string Sha256Hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned n = 0;
  Lib().EVP_Digest(data.data(), data.size(), md, &n, Lib().EVP_sha256(), nullptr);
  return Hex(md, n);
}

std::optional<std::string> FileSha256(const std::string &path, std::uint64_t offset, std::uint64_t length,
                                      std::string *error) {
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f || fseeko(f.get(), static_cast<off_t>(offset), SEEK_SET) != 0) {
    if (error) *error = fmt::format("{}: {}", path, std::strerror(errno));
    return std::nullopt;
  }
  std::unique_ptr<EVP_MD_CTX, decltype(Lib().EVP_MD_CTX_free)> ctx(Lib().EVP_MD_CTX_new(), Lib().EVP_MD_CTX_free);
  Lib().EVP_DigestInit_ex(ctx.get(), Lib().EVP_sha256(), nullptr);
  std::vector<char> buf(1 << 16);
  while (length > 0) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(length, buf.size()));
    const std::size_t got = std::fread(buf.data(), 1, want, f.get());
    if (got == 0) {
      if (error) *error = fmt::format("{}: {}", path, std::ferror(f.get()) ? std::strerror(errno) : "shorter than expected");
      return std::nullopt;
    }
    Lib().EVP_DigestUpdate(ctx.get(), buf.data(), got);
    length -= got;
  }
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned n = 0;
  Lib().EVP_DigestFinal_ex(ctx.get(), md, &n);
  return Hex(md, n);
}

std::string S3Result::Describe() const {
  if (ok) return "ok";
  std::string s = status ? fmt::format("{} {}", status, code) : code;
  if (!message.empty()) s += ": " + message;
  return s;
}

struct S3Client::Request {
  std::string method = "GET";
  std::string key;
  Query query;
  std::map<std::string, std::string> meta;
  std::string content_type;
  // The request body: bytes of a file, or a string.
  std::string file;
  std::uint64_t offset = 0, length = 0;
  bool from_file = false;
  std::string body;
  // The answer.
  std::FILE *sink = nullptr;  // the response body goes here (GetObject), else into response
  std::uint64_t sink_bytes = 0;
  std::string response;
  long http_status = 0;  // of the response being received (an error's body never goes to sink)
  std::map<std::string, std::string> headers;  // lowercase names
  bool want_etag = false;
  // Read state.
  std::FILE *in = nullptr;
  std::uint64_t left = 0;
};

S3Client::S3Client(S3Settings s) : s_(std::move(s)) { GlobalInit(); }

S3Result S3Client::Perform(Request &r) {
  S3Result res;
  auto fail = [&](std::string code, std::string msg) {
    res.ok = false;
    res.code = std::move(code);
    res.message = s_.credentials.Redact(msg);
    return res;
  };
  std::string hash;
  std::unique_ptr<std::FILE, FileCloser> in;
  if (r.from_file) {
    std::string err;
    std::optional<std::string> h = FileSha256(r.file, r.offset, r.length, &err);
    if (!h) return fail("LocalFileError", err);
    hash = *h;
    in.reset(std::fopen(r.file.c_str(), "rb"));
    if (!in || fseeko(in.get(), static_cast<off_t>(r.offset), SEEK_SET) != 0)
      return fail("LocalFileError", fmt::format("{}: {}", r.file, std::strerror(errno)));
    r.in = in.get();
    r.left = r.length;
  } else {
    hash = Sha256Hex(r.body);
  }
  std::unique_ptr<CURL, CurlDeleter> c(Lib().curl_easy_init());
  if (!c) return fail("CurlInitFailed", "curl_easy_init failed");
  CURL *h = c.get();
  const std::string url = RequestUrl(s_.endpoint, s_.bucket, s_.path_style, r.key, r.query);
  curl_slist *raw = nullptr;
  raw = Lib().curl_slist_append(raw, ("x-amz-content-sha256: " + hash).c_str());
  if (!s_.credentials.session_token.empty())
    raw = Lib().curl_slist_append(raw, ("x-amz-security-token: " + s_.credentials.session_token).c_str());
  for (const auto &[k, v] : r.meta) raw = Lib().curl_slist_append(raw, fmt::format("x-amz-meta-{}: {}", k, v).c_str());
  if (!r.content_type.empty()) raw = Lib().curl_slist_append(raw, ("Content-Type: " + r.content_type).c_str());
  // No "Expect: 100-continue" round trip before a body: the store answers errors at the end.
  raw = Lib().curl_slist_append(raw, "Expect:");
  std::unique_ptr<curl_slist, SlistDeleter> headers(raw);
  const std::string sigv4 = "aws:amz:" + s_.region + ":s3";
  char errbuf[CURL_ERROR_SIZE] = {0};

  Lib().curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  Lib().curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  Lib().curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
  Lib().curl_easy_setopt(h, CURLOPT_AWS_SIGV4, sigv4.c_str());
  Lib().curl_easy_setopt(h, CURLOPT_USERNAME, s_.credentials.access_key.c_str());
  Lib().curl_easy_setopt(h, CURLOPT_PASSWORD, s_.credentials.secret_key.c_str());
  Lib().curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
  Lib().curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, s_.connect_timeout_ms);
  Lib().curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1024L);
  Lib().curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, s_.stall_seconds);
  Lib().curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, s_.tls_verify ? 1L : 0L);
  Lib().curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, s_.tls_verify ? 2L : 0L);
  if (!s_.ca_file.empty()) Lib().curl_easy_setopt(h, CURLOPT_CAINFO, s_.ca_file.c_str());
  Lib().curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  if (s_.max_bytes_per_second)
    Lib().curl_easy_setopt(h, CURLOPT_MAX_SEND_SPEED_LARGE, static_cast<curl_off_t>(s_.max_bytes_per_second));
  if (r.method == "PUT") {
    Lib().curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
    Lib().curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(r.from_file ? r.length : r.body.size()));
    if (!r.from_file) {
      r.in = nullptr;
      r.left = r.body.size();
    }
    Lib().curl_easy_setopt(h, CURLOPT_READDATA, &r);
    Lib().curl_easy_setopt(h, CURLOPT_READFUNCTION, +[](char *buf, std::size_t sz, std::size_t n, void *p) -> std::size_t {
      auto *rq = static_cast<Request *>(p);
      const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(sz * n, rq->left));
      if (want == 0) return 0;
      std::size_t got;
      if (rq->in) {
        got = std::fread(buf, 1, want, rq->in);
        if (got == 0) return CURL_READFUNC_ABORT;  // the file shrank under us
      } else {
        got = want;
        std::memcpy(buf, rq->body.data() + (rq->body.size() - rq->left), got);
      }
      rq->left -= got;
      return got;
    });
  } else if (r.method == "POST") {
    Lib().curl_easy_setopt(h, CURLOPT_POST, 1L);
    Lib().curl_easy_setopt(h, CURLOPT_POSTFIELDS, r.body.c_str());
    Lib().curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
  } else if (r.method == "HEAD") {
    Lib().curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  } else if (r.method != "GET") {
    Lib().curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, r.method.c_str());
  }
  Lib().curl_easy_setopt(h, CURLOPT_WRITEDATA, &r);
  Lib().curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, +[](char *d, std::size_t sz, std::size_t n, void *p) -> std::size_t {
    auto *rq = static_cast<Request *>(p);
    const std::size_t len = sz * n;
    if (rq->sink && rq->http_status >= 200 && rq->http_status <= 299) {
      if (std::fwrite(d, 1, len, rq->sink) != len) return 0;
      rq->sink_bytes += len;
      return len;
    }
    if (rq->response.size() + len > kMaxXmlBytes) return 0;
    rq->response.append(d, len);
    return len;
  });
  Lib().curl_easy_setopt(h, CURLOPT_HEADERDATA, &r);
  Lib().curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, +[](char *d, std::size_t sz, std::size_t n, void *p) -> std::size_t {
    auto *rq = static_cast<Request *>(p);
    const std::string_view line(d, sz * n);
    const std::size_t colon = line.find(':');
    if (line.substr(0, 5) == "HTTP/") {  // a new response (after a 100)
      rq->headers.clear();
      const std::size_t sp = line.find(' ');
      rq->http_status = sp == std::string_view::npos ? 0 : std::strtol(std::string(line.substr(sp + 1, 3)).c_str(), nullptr, 10);
    }
    if (colon != std::string_view::npos) {
      std::string v(line.substr(colon + 1));
      while (!v.empty() && (v.back() == '\r' || v.back() == '\n' || v.back() == ' ')) v.pop_back();
      while (!v.empty() && v.front() == ' ') v.erase(v.begin());
      rq->headers[Lower(std::string(line.substr(0, colon)))] = v;
    }
    return sz * n;
  });
  if (cancel_) {
    Lib().curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    Lib().curl_easy_setopt(h, CURLOPT_XFERINFODATA, cancel_);
    Lib().curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION,
                     +[](void *p, curl_off_t, curl_off_t, curl_off_t, curl_off_t) -> int {
                       return static_cast<const std::atomic<bool> *>(p)->load() ? 1 : 0;
                     });
  }
  const CURLcode cc = Lib().curl_easy_perform(h);
  Lib().curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &res.status);
  if (cc != CURLE_OK) {
    const std::string msg = errbuf[0] ? errbuf : Lib().curl_easy_strerror(cc);
    switch (cc) {
      case CURLE_COULDNT_CONNECT:
      case CURLE_COULDNT_RESOLVE_HOST: return fail("CouldNotConnect", fmt::format("{}: {}", s_.endpoint.Text(), msg));
      case CURLE_OPERATION_TIMEDOUT: return fail("Timeout", msg);
      case CURLE_ABORTED_BY_CALLBACK: return fail("Cancelled", "the daemon is stopping");
      case CURLE_SSL_CONNECT_ERROR:
      case CURLE_PEER_FAILED_VERIFICATION:
      case CURLE_SSL_CACERT_BADFILE:
      case CURLE_SSL_CERTPROBLEM: return fail("TlsError", msg);
      default: return fail("NetworkError", msg);
    }
  }
  if (auto it = r.headers.find("etag"); it != r.headers.end()) res.etag = it->second;
  if (res.status < 200 || res.status > 299) {
    if (std::optional<S3Error> e = ParseS3Error(r.response)) return fail(e->code, e->message);
    if (!r.response.empty()) {
      // A body that is no S3 <Error>: a web server, a proxy's page. Not a store.
      std::string snippet = r.response.substr(0, 120);
      for (char &ch : snippet)
        if (ch < 0x20 || ch >= 0x7f) ch = ' ';
      return fail("NotS3", fmt::format("HTTP {} with a body that is no S3 error document: {}", res.status, snippet));
    }
    if (res.status == 404) return fail("NotFound", "");  // HEAD: no body to say more
    if (res.status == 403) return fail("Forbidden", "");
    return fail(fmt::format("Http{}", res.status), "");
  }
  if (r.want_etag && res.etag.empty()) return fail("NoETag", "the store answered without an ETag: not confirmed");
  res.ok = true;
  return res;
}

S3Result S3Client::PutObject(const std::string &key, const std::string &path, const std::map<std::string, std::string> &meta) {
  Request r;
  r.method = "PUT";
  r.key = key;
  r.meta = meta;
  r.content_type = "application/octet-stream";
  r.file = path;
  r.from_file = true;
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) return S3Result{false, 0, "LocalFileError", fmt::format("{}: {}", path, std::strerror(errno)), ""};
  fseeko(f, 0, SEEK_END);
  r.length = static_cast<std::uint64_t>(ftello(f));
  std::fclose(f);
  r.want_etag = true;
  return Perform(r);
}

S3Result S3Client::CreateMultipart(const std::string &key, const std::map<std::string, std::string> &meta,
                                   std::string *upload_id) {
  Request r;
  r.method = "POST";
  r.key = key;
  r.query = {{"uploads", ""}};
  r.meta = meta;
  r.content_type = "application/octet-stream";  // the object's, as for PutObject
  S3Result res = Perform(r);
  if (!res.ok) return res;
  std::string err;
  std::optional<std::string> id = ParseUploadId(r.response, &err);
  if (!id) return S3Result{false, res.status, "NotS3", err, ""};
  *upload_id = *id;
  return res;
}

S3Result S3Client::UploadPart(const std::string &key, const std::string &upload_id, int part, const std::string &path,
                              std::uint64_t offset, std::uint64_t length) {
  Request r;
  r.method = "PUT";
  r.key = key;
  r.query = {{"partNumber", std::to_string(part)}, {"uploadId", upload_id}};
  r.file = path;
  r.from_file = true;
  r.offset = offset;
  r.length = length;
  r.want_etag = true;
  return Perform(r);
}

S3Result S3Client::CompleteMultipart(const std::string &key, const std::string &upload_id,
                                     const std::vector<std::string> &part_etags) {
  Request r;
  r.method = "POST";
  r.key = key;
  r.query = {{"uploadId", upload_id}};
  r.content_type = "application/xml";
  r.body = "<CompleteMultipartUpload>";
  for (std::size_t i = 0; i < part_etags.size(); i++) {
    std::string etag;
    for (char c : part_etags[i]) etag += c == '"' ? std::string("&quot;") : c == '&' ? "&amp;" : c == '<' ? "&lt;" : std::string(1, c);
    r.body += fmt::format("<Part><PartNumber>{}</PartNumber><ETag>{}</ETag></Part>", i + 1, etag);
  }
  r.body += "</CompleteMultipartUpload>";
  S3Result res = Perform(r);
  if (!res.ok) return res;
  std::string err;
  std::optional<CompleteResult> c = ParseCompleteMultipart(r.response, &err);
  if (!c) return S3Result{false, res.status, "NotS3", err, ""};
  if (c->error) return S3Result{false, res.status, c->error->code, s_.credentials.Redact(c->error->message), ""};
  res.etag = c->etag;
  return res;
}

S3Result S3Client::AbortMultipart(const std::string &key, const std::string &upload_id) {
  Request r;
  r.method = "DELETE";
  r.key = key;
  r.query = {{"uploadId", upload_id}};
  S3Result res = Perform(r);
  // Already gone (aborted or completed before a crash): nothing is left to abort.
  if (!res.ok && res.code == "NoSuchUpload") {
    res.ok = true;
    res.code.clear();
  }
  return res;
}

S3Result S3Client::ListObjects(const std::string &prefix, const std::string &token, ListPage *page) {
  Request r;
  r.query = {{"list-type", "2"}, {"prefix", prefix}};
  if (!token.empty()) r.query.emplace_back("continuation-token", token);
  S3Result res = Perform(r);
  if (!res.ok) return res;
  std::string err;
  std::optional<ListPage> p = ParseListObjectsV2(r.response, &err);
  if (!p) return S3Result{false, res.status, "NotS3", err, ""};
  *page = std::move(*p);
  return res;
}

S3Result S3Client::ListMultipartUploads(const std::string &prefix, std::vector<PendingUpload> *out) {
  Request r;
  r.query = {{"uploads", ""}, {"prefix", prefix}};
  S3Result res = Perform(r);
  if (!res.ok) return res;
  std::string err;
  auto p = ParseListMultipartUploads(r.response, &err);
  if (!p) return S3Result{false, res.status, "NotS3", err, ""};
  *out = std::move(*p);
  return res;
}

S3Result S3Client::HeadObject(const std::string &key, ObjectInfo *info) {
  Request r;
  r.method = "HEAD";
  r.key = key;
  S3Result res = Perform(r);
  if (!res.ok) return res;
  for (const auto &[k, v] : r.headers) {
    if (k.rfind("x-amz-meta-", 0) == 0) info->metadata[k.substr(11)] = v;
    else if (k == "content-length") info->size = std::strtoull(v.c_str(), nullptr, 10);
    else if (k == "last-modified") info->last_modified = v;
  }
  info->etag = res.etag;
  return res;
}

S3Result S3Client::GetObject(const std::string &key, const std::string &path, std::uint64_t *bytes) {
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "wb"));
  if (!f) return S3Result{false, 0, "LocalFileError", fmt::format("{}: {}", path, std::strerror(errno)), ""};
  Request r;
  r.key = key;
  r.sink = f.get();
  S3Result res = Perform(r);
  if (std::fclose(f.release()) != 0 && res.ok)
    return S3Result{false, res.status, "LocalFileError", fmt::format("{}: {}", path, std::strerror(errno)), ""};
  *bytes = r.sink_bytes;
  return res;
}

S3Result S3Client::CheckBucket() {
  Request r;
  r.query = {{"list-type", "2"}, {"max-keys", "0"}};
  S3Result res = Perform(r);
  if (!res.ok) return res;
  std::string err;
  if (!ParseListObjectsV2(r.response, &err))
    return S3Result{false, res.status, "NotS3",
                    "the endpoint answered a bucket listing with something else than S3's ListBucketResult (" + err + ")",
                    ""};
  return res;
}

}  // namespace gotraced::upload
