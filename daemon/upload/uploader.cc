// The background uploader. See uploader.h.
#include "daemon/upload/uploader.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "build_info.h"
#include "daemon/upload/spool_pending.h"
#include "daemon/upload/upload_file.h"

namespace gotraced::upload {

namespace {

using Clock = std::chrono::steady_clock;

std::int64_t NowUnixNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::optional<std::uint64_t> FileSize(const std::string &path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return static_cast<std::uint64_t>(st.st_size);
}

std::string NodeName(const std::string &configured) {
  if (!configured.empty()) return configured;
  if (const char *n = std::getenv("NODE_NAME"); n && *n) return n;  // Kubernetes: the downward API
  char host[256] = {0};
  if (::gethostname(host, sizeof host - 1) == 0 && host[0]) return host;
  return "unknown";
}

// Full jitter in [d/2, d] of d = initial * 2^(failures-1), capped.
Clock::duration Backoff(const UploadConfig &c, unsigned failures) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  const double d = std::min(c.retry_max_seconds, c.retry_initial_seconds * std::pow(2.0, std::min(failures, 40u) - 1.0));
  const double j = std::uniform_real_distribution<double>(d / 2, d)(rng);
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(j));
}

}  // namespace

std::optional<UploadSettings> ResolveUpload(const UploadConfig &c, std::string *error) {
  UploadSettings s;
  s.config = c;
  const std::string endpoint = c.endpoint.empty() ? "https://s3." + c.region + ".amazonaws.com" : c.endpoint;
  std::optional<S3Endpoint> ep = ParseEndpoint(endpoint, error);
  if (!ep) return std::nullopt;
  if (auto why = BucketNameProblem(c.bucket)) {
    if (error) *error = *why;
    return std::nullopt;
  }
  if (auto why = KeyTemplateProblem(c.key_template)) {
    if (error) *error = "key_template: " + *why;
    return std::nullopt;
  }
  std::optional<Credentials> creds =
      LoadCredentials(CredentialFiles{c.access_key_file, c.secret_key_file, c.session_token_file}, error);
  if (!creds) return std::nullopt;
  s.s3.endpoint = *ep;
  s.s3.region = c.region;
  s.s3.bucket = c.bucket;
  s.s3.path_style = c.path_style;
  s.s3.credentials = std::move(*creds);
  s.s3.ca_file = c.ca_file;
  s.s3.tls_verify = c.tls_verify;
  s.s3.max_bytes_per_second = c.max_bytes_per_second;
  s.node = NodeName(c.node);
  return s;
}

bool CheckStore(const UploadSettings &s, std::string *error, std::string *warning) {
  S3Client client(s.s3);
  const S3Result r = client.CheckBucket();
  if (r.ok) return true;
  const std::string where = fmt::format("s3://{} at {}", s.s3.bucket, s.s3.endpoint.Text());
  if (r.code == "NotS3" && r.status >= 500) {  // a proxy's error page while the store is down
    if (warning) *warning = fmt::format("{} cannot be checked now ({}); trace files wait in the spool", where, r.Describe());
    return true;
  }
  if (r.code == "NotS3") {
    if (error) *error = fmt::format("{}: the endpoint does not answer as S3 does ({})", where, r.Describe());
    return false;
  }
  if (r.code == "NoSuchBucket" || r.code == "NotFound" || r.code == "InvalidBucketName" ||
      (r.code.rfind("Http", 0) == 0 && r.status < 500)) {
    if (error) *error = fmt::format("{}: {}", where, r.Describe());
    return false;
  }
  if (warning) *warning = fmt::format("{} cannot be checked now ({}); trace files wait in the spool", where, r.Describe());
  return true;
}

Uploader::Uploader() = default;

Uploader::~Uploader() { Stop(); }

void Uploader::Configure(std::optional<UploadSettings> s, const std::string &spool_dir) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    settings_ = s ? std::make_shared<const UploadSettings>(std::move(*s)) : nullptr;
    spool_dir_ = spool_dir;
    stats_.configured = settings_ != nullptr;
    stats_.store = settings_ ? fmt::format("s3://{} ({})", settings_->s3.bucket, settings_->s3.endpoint.Text()) : "";
    next_try_.clear();  // new settings (credentials fixed?): every pending file is tried now
    wake_ = true;
    if (settings_ && !settings_->s3.tls_verify)
      spdlog::warn("upload: TLS certificate verification is OFF for {} (tls_verify = false)", settings_->s3.endpoint.Text());
  }
  cv_.notify_all();
  if (s && !thread_.joinable() && !stop_.load()) thread_ = std::thread([this] { Run(); });
}

std::optional<ManifestEntry> Uploader::Entry(const std::string &file, TraceFacts facts, std::string *error) const {
  std::shared_ptr<const UploadSettings> s;
  {
    std::lock_guard<std::mutex> lock(mu_);
    s = settings_;
  }
  if (!s) {
    if (error) *error = "no [upload] configured";
    return std::nullopt;
  }
  facts.node = s->node;
  ManifestEntry e;
  e.file = file;
  e.key = ExpandKey(s->config.key_template, s->config.prefix, facts);
  e.metadata = Metadata(facts, GOTRACED_VERSION);
  e.queued_unix_ns = NowUnixNs();
  return e;
}

void Uploader::Wake() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    wake_ = true;
  }
  cv_.notify_all();
}

void Uploader::NoteEvicted(const std::string &file, std::uint64_t bytes, bool pending) {
  if (!pending) return;
  std::lock_guard<std::mutex> lock(mu_);
  stats_.lost++;
  stats_.recent_lost.push_back(file);
  if (stats_.recent_lost.size() > 8) stats_.recent_lost.erase(stats_.recent_lost.begin());
  next_try_.erase(file);
  failures_in_row_.erase(file);
  spdlog::error("upload: the spool's cap evicted {} ({} bytes) before it was uploaded: LOST ({} lost since start)", file,
                bytes, stats_.lost);
}

UploadStats Uploader::Stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void Uploader::Stop() {
  stop_ = true;
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Uploader::RefreshPending(const std::vector<ManifestEntry> &entries) {
  std::uint64_t bytes = 0;
  const std::string dir = [&] {
    std::lock_guard<std::mutex> lock(mu_);
    return spool_dir_;
  }();
  for (const ManifestEntry &e : entries) bytes += FileSize((std::filesystem::path(dir) / e.file).string()).value_or(0);
  std::lock_guard<std::mutex> lock(mu_);
  stats_.pending = entries.size();
  stats_.pending_bytes = bytes;
  stats_.oldest_pending_seconds = entries.empty() ? 0 : std::max<double>(0, (NowUnixNs() - entries.front().queued_unix_ns) / 1e9);
}

void Uploader::Run() {
  while (!stop_.load()) {
    std::shared_ptr<const UploadSettings> s;
    std::string dir;
    {
      std::lock_guard<std::mutex> lock(mu_);
      s = settings_;
      dir = spool_dir_;
      wake_ = false;
    }
    std::vector<std::string> broken;
    std::vector<ManifestEntry> entries = s ? ListManifests(dir, &broken) : std::vector<ManifestEntry>{};
    for (const std::string &b : broken) spdlog::warn("upload: unreadable manifest ignored: {}", b);
    // A manifest whose file is gone (removed by hand; an evicted file's manifest went
    // with it, under the same lock: spool_pending.h) has nothing left to upload.
    std::erase_if(entries, [&](const ManifestEntry &e) {
      if (FileSize((std::filesystem::path(dir) / e.file).string())) return false;
      DropIfOrphan(dir, e.file);
      return true;
    });
    RefreshPending(entries);
    const auto now = Clock::now();
    auto wait_until = now + std::chrono::seconds(1);
    ManifestEntry *due = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (ManifestEntry &e : entries) {
        auto it = next_try_.find(e.file);
        if (it == next_try_.end() || it->second <= now) {
          due = &e;
          break;
        }
        wait_until = std::min(wait_until, it->second);
      }
    }
    if (!s || !due) {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_until(lock, wait_until, [&] { return wake_ || stop_.load(); });
      continue;
    }
    S3Client client(s->s3);
    client.SetCancel(&stop_);
    S3Result fail;
    const std::string path = (std::filesystem::path(dir) / due->file).string();
    const std::uint64_t size = FileSize(path).value_or(0);
    if (due->attempts > 0) {
      std::lock_guard<std::mutex> lock(mu_);
      stats_.retries++;
    }
    if (Attempt(*s, client, *due, &fail)) {
      RemoveConfirmed(dir, due->file);
      std::lock_guard<std::mutex> lock(mu_);
      stats_.uploaded++;
      stats_.bytes += size;
      stats_.last_key = due->key;
      next_try_.erase(due->file);
      failures_in_row_.erase(due->file);
      continue;
    }
    if (fail.code == "Cancelled") break;
    due->attempts++;
    due->last_error = fail.Describe();
    std::string err;
    if (!RewriteIfSpooled(dir, *due, &err)) spdlog::warn("upload: {}", err);
    std::lock_guard<std::mutex> lock(mu_);
    const unsigned n = ++failures_in_row_[due->file];
    const auto delay = Backoff(s->config, n);
    next_try_[due->file] = Clock::now() + delay;
    stats_.failures[fail.code.empty() ? "Unknown" : fail.code]++;
    stats_.last_error = due->last_error;
    stats_.last_error_file = due->file;
    spdlog::warn("upload: {} -> s3://{}/{} failed (attempt {}): {}; next try in {:.1f} s", due->file, s->s3.bucket,
                 due->key, due->attempts, due->last_error, std::chrono::duration<double>(delay).count());
  }
}

bool Uploader::Attempt(const UploadSettings &s, S3Client &client, ManifestEntry &e, S3Result *fail) {
  std::string dir;
  {
    std::lock_guard<std::mutex> lock(mu_);
    dir = spool_dir_;
  }
  const std::string path = (std::filesystem::path(dir) / e.file).string();
  // A multipart upload begun by an attempt that did not finish (a crash, a kill, a
  // failed abort): abort it first, so its parts do not stay in the store.
  if (!e.multipart_upload_id.empty()) {
    S3Result r = client.AbortMultipart(e.key, e.multipart_upload_id);
    if (!r.ok) {
      *fail = r;
      return false;
    }
    spdlog::info("upload: aborted the unfinished multipart upload of {} (its parts removed)", e.file);
    e.multipart_upload_id.clear();
    std::string err;
    if (!RewriteIfSpooled(dir, e, &err)) spdlog::warn("upload: {}", err);
  }
  std::string err;
  UploadOutcome o = UploadFile(client, e.key, path, e.metadata, s.config.part_bytes, [&](const std::string &id) {
    // Known to the manifest before any part is sent: a crash from here on leaves an id
    // the next attempt aborts.
    e.multipart_upload_id = id;
    if (!RewriteIfSpooled(dir, e, &err)) spdlog::warn("upload: {}", err);
  });
  if (!o.result.ok) {
    *fail = o.result;
    if (e.multipart_upload_id != o.unfinished_upload_id) {
      e.multipart_upload_id = o.unfinished_upload_id;  // aborted (""), or left for the next attempt
      if (!RewriteIfSpooled(dir, e, &err)) spdlog::warn("upload: {}", err);
    }
    if (!o.unfinished_upload_id.empty() && o.result.code != "Cancelled")
      spdlog::warn("upload: aborting the multipart upload of {} failed; the next attempt aborts it", e.file);
    return false;
  }
  if (o.parts)
    spdlog::info("upload: {} -> s3://{}/{} ({} bytes in {} parts, ETag {})", e.file, s.s3.bucket, e.key, o.bytes,
                 o.parts, o.result.etag);
  else
    spdlog::info("upload: {} -> s3://{}/{} ({} bytes, ETag {})", e.file, s.s3.bucket, e.key, o.bytes, o.result.etag);
  return true;
}

}  // namespace gotraced::upload
