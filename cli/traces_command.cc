// `gotraced traces`: what the object store holds (docs/upload.md).
//   gotraced traces --store CONFIG|s3://BUCKET[/PREFIX] [--node N] [--exe GLOB] [--since 1h] [--json]
//   gotraced traces get KEY --out FILE --store ...
//   gotraced traces uploads --store ...      multipart uploads begun and never finished
// --store is serve's config file (its [upload] table) or an s3:// URL with the AWS_*
// environment (daemon/upload/env_settings.h).
#include <fnmatch.h>
#include <spdlog/spdlog.h>
#include <time.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/duration.h"
#include "cli/store_settings.h"

namespace gotraced::cli {
namespace {

struct TracesOptions {
  std::string store, node, exe, since, key, out;
  bool json = false;
};

struct Store {
  upload::UploadSettings settings;
  std::string prefix;  // listing prefix ("" = the whole bucket)
};

std::optional<Store> OpenStore(const std::string &store, std::string *error) {
  Store s;
  if (store.empty()) {
    *error = "--store CONFIG or --store s3://BUCKET[/PREFIX] is required";
    return std::nullopt;
  }
  if (store.rfind("s3://", 0) == 0) {
    const std::string rest = store.substr(5);
    const std::size_t slash = rest.find('/');
    const std::string bucket = rest.substr(0, slash);
    s.prefix = slash == std::string::npos ? "" : rest.substr(slash + 1);
    auto st = StoreSettings("", bucket, error);
    if (!st) return std::nullopt;
    s.settings = *st;
    return s;
  }
  auto st = StoreSettings(store, "", error);  // serve's config file: its [upload] table
  if (!st) return std::nullopt;
  s.settings = *st;
  s.prefix = st->config.prefix.empty() ? "" : st->config.prefix + "/";
  return s;
}

// ListObjectsV2's LastModified (2026-12-06T12:13:14.000Z) as Unix seconds.
std::optional<std::int64_t> ParseIso(const std::string &t) {
  tm tmv{};
  const char *end = strptime(t.c_str(), "%Y-%m-%dT%H:%M:%S", &tmv);
  if (!end) return std::nullopt;
  return static_cast<std::int64_t>(timegm(&tmv));
}

// The three subcommands' common start: the store, or the reason logged.
std::optional<Store> OpenStoreOrSay(const std::string &store) {
  std::string err;
  std::optional<Store> st = OpenStore(store, &err);
  if (!st) spdlog::error("{}", err);
  return st;
}

int List(const TracesOptions &o) {
  std::optional<Store> st = OpenStoreOrSay(o.store);
  if (!st) return 1;
  std::optional<std::chrono::nanoseconds> since;
  if (!o.since.empty() && !(since = ParseDuration(o.since))) {
    spdlog::error("--since {}: not a duration (examples: 1h, 30m)", o.since);
    return 1;
  }
  const std::int64_t cutoff = since ? static_cast<std::int64_t>(time(nullptr)) - since->count() / 1000000000 : 0;
  upload::S3Client client(st->settings.s3);
  nlohmann::json rows = nlohmann::json::array();
  std::string token;
  do {
    upload::ListPage page;
    upload::S3Result r = client.ListObjects(st->prefix, token, &page);
    if (!r.ok) {
      spdlog::error("listing s3://{}/{}: {}", st->settings.s3.bucket, st->prefix, r.Describe());
      return 1;
    }
    for (const upload::ListedObject &obj : page.objects) {
      if (cutoff && ParseIso(obj.last_modified).value_or(0) < cutoff) continue;
      upload::ObjectInfo info;
      r = client.HeadObject(obj.key, &info);
      if (!r.ok) {
        spdlog::warn("{}: {}", obj.key, r.Describe());
        continue;
      }
      const auto meta = [&](const char *k) {
        auto it = info.metadata.find(k);
        return it == info.metadata.end() ? std::string() : it->second;
      };
      if (!o.node.empty() && meta("node") != o.node) continue;
      if (!o.exe.empty()) {
        const std::string exe = meta("exe"), base = std::filesystem::path(exe).filename().string();
        if (fnmatch(o.exe.c_str(), exe.c_str(), 0) != 0 && fnmatch(o.exe.c_str(), base.c_str(), 0) != 0) continue;
      }
      rows.push_back({{"key", obj.key}, {"size", obj.size}, {"last_modified", obj.last_modified}, {"etag", obj.etag},
                      {"metadata", info.metadata}});
    }
    token = page.truncated ? page.next_token : "";
  } while (!token.empty());
  if (o.json) {
    std::printf("%s\n", rows.dump(1).c_str());
    return 0;
  }
  std::printf("%-24s %10s %-16s %7s %-16s %-13s %-6s %-9s %s\n", "AT_UTC", "BYTES", "NODE", "PID", "EXE", "TRIGGER",
              "PART", "GO", "KEY");
  for (const auto &row : rows) {
    const auto &m = row["metadata"];
    auto g = [&](const char *k) { return m.contains(k) ? m[k].get<std::string>() : std::string("-"); };
    std::printf("%-24s %10llu %-16s %7s %-16s %-13s %-6s %-9s %s\n", g("at-utc").c_str(),
                static_cast<unsigned long long>(row["size"].get<std::uint64_t>()), g("node").c_str(), g("pid").c_str(),
                std::filesystem::path(g("exe")).filename().c_str(), g("trigger").c_str(), g("part").c_str(),
                g("go-version").c_str(), row["key"].get<std::string>().c_str());
  }
  std::fprintf(stderr, "%zu objects in s3://%s/%s\n", rows.size(), st->settings.s3.bucket.c_str(), st->prefix.c_str());
  return 0;
}

int Get(const TracesOptions &o) {
  std::optional<Store> st = OpenStoreOrSay(o.store);
  if (!st) return 1;
  upload::S3Client client(st->settings.s3);
  const std::string partial = o.out + ".partial";
  std::uint64_t bytes = 0;
  upload::S3Result r = client.GetObject(o.key, partial, &bytes);
  if (!r.ok || std::rename(partial.c_str(), o.out.c_str()) != 0) {
    std::remove(partial.c_str());
    spdlog::error("s3://{}/{}: {}", st->settings.s3.bucket, o.key, r.ok ? "cannot rename into " + o.out : r.Describe());
    return 1;
  }
  std::fprintf(stderr, "%s: %llu bytes (s3://%s/%s)\n", o.out.c_str(), static_cast<unsigned long long>(bytes),
               st->settings.s3.bucket.c_str(), o.key.c_str());
  return 0;
}

int Uploads(const TracesOptions &o) {
  std::optional<Store> st = OpenStoreOrSay(o.store);
  if (!st) return 1;
  upload::S3Client client(st->settings.s3);
  std::vector<upload::PendingUpload> ups;
  upload::S3Result r = client.ListMultipartUploads(st->prefix, &ups);
  if (!r.ok) {
    spdlog::error("listing multipart uploads of s3://{}/{}: {}", st->settings.s3.bucket, st->prefix, r.Describe());
    return 1;
  }
  for (const auto &u : ups) std::printf("%s %s %s\n", u.initiated.c_str(), u.key.c_str(), u.upload_id.c_str());
  std::fprintf(stderr, "%zu unfinished multipart uploads in s3://%s/%s\n", ups.size(), st->settings.s3.bucket.c_str(),
               st->prefix.c_str());
  return 0;
}

}  // namespace

void RegisterTraces(CLI::App &app) {
  auto o = std::make_shared<TracesOptions>();
  auto *cmd = app.add_subcommand("traces", "list the traces an object store holds (serve's [upload], or s3:// with "
                                           "the AWS_* environment), fetch one");
  auto store = [&](CLI::App *c) {
    c->add_option("--store", o->store, "serve's config file (its [upload] table), or s3://BUCKET[/PREFIX] with the "
                                       "AWS_* environment");
  };
  store(cmd);
  cmd->add_option("--node", o->node, "only traces of this node");
  cmd->add_option("--exe", o->exe, "only traces of executables matching this glob (path or base name)");
  cmd->add_option("--since", o->since, "only objects written in this past (1h, 30m)");
  cmd->add_flag("--json", o->json, "print JSON");
  auto *get = cmd->add_subcommand("get", "fetch one trace");
  store(get);
  get->add_option("key", o->key, "object key (as `gotraced traces` lists it)")->required();
  get->add_option("--out,-o", o->out, "output file")->required();
  get->callback([o] { SetExitCode(Get(*o)); });
  auto *ups = cmd->add_subcommand("uploads", "list multipart uploads begun and never completed or aborted");
  store(ups);
  ups->callback([o] { SetExitCode(Uploads(*o)); });
  cmd->require_subcommand(0, 1);
  cmd->callback([o, cmd] {
    if (cmd->get_subcommands().empty()) SetExitCode(List(*o));
  });
}

}  // namespace gotraced::cli
