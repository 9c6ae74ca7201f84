#!/usr/bin/env bash
# Bounded libFuzzer run (GOTRACED_FUZZ_SERVICE_SECONDS, default 20 s) over the parsers of
# gotraced serve: HTTP request heads, query numbers, the client's response decoder, the
# TOML config, the JSON of GET /processes from any bytes, S3's XML answers and the upload
# manifest, and the container identity files (cgroup paths, OCI config.json, runc
# state.json, containers.json, config.v2.json, NSpid) (tests/fuzz-service). Uses the
# clang+ASan build dir of scripts/fuzz.sh.
set -euo pipefail
: "${GOTRACED_BUILD:?}" "${GOTRACED_ROOT:?}"
secs=${GOTRACED_FUZZ_SERVICE_SECONDS:-20}
fb="$GOTRACED_BUILD/../$(basename "$GOTRACED_BUILD")-fuzz"
command -v clang++ >/dev/null || { echo "36-fuzz-service: clang++ not installed (scripts/install-deps.sh)" >&2; exit 1; }
cd "$GOTRACED_ROOT"
if [[ ! -f $fb/build.ninja ]]; then
  CC=clang CXX=clang++ cmake -S . -B "$fb" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGOTRACED_FUZZ=ON \
    -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer" \
    -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer" >/dev/null
else
  cmake "$fb" >/dev/null  # picks up tests/fuzz-service if the dir predates it
fi
cmake --build "$fb" -j 2 --target service_fuzz >/dev/null
seeds=$fb/service-fuzz-seeds corpus=$fb/service-fuzz-corpus artifacts=$fb/service-fuzz-artifacts/
rm -rf "$seeds"
mkdir -p "$seeds" "$corpus" "$artifacts"
printf '\x00GET /flight?pid=123&wait=0 HTTP/1.1\r\nHost: gotraced\r\nUser-Agent: curl\r\n\r\n' >"$seeds/req"
printf '\x00GET /trace?pid=1&seconds=2.5 HTTP/1.0\n\n' >"$seeds/req10"
printf '\x01HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n' >"$seeds/chunked"
printf '\x01HTTP/1.1 403 Forbidden\r\nContent-Length: 4\r\n\r\nnope' >"$seeds/cl"
printf '\x02a%%20b+c%%zz' >"$seeds/pct"
{ printf '\x03'; cat packaging/gotraced.toml; } >"$seeds/config"
printf '\x04/srv/app\xff\xfe\xc3(\xe2\x82' >"$seeds/json"
printf '\x05<?xml version="1.0"?><ListBucketResult><IsTruncated>true</IsTruncated><Contents><Key>a&amp;b</Key><Size>3</Size></Contents><NextContinuationToken>t</NextContinuationToken></ListBucketResult>' >"$seeds/s3list"
printf '\x05<Error><Code>NoSuchBucket</Code><Message>m</Message></Error>' >"$seeds/s3error"
printf '\x05{"file":"a.trace","key":"k","metadata":{"pid":"1"},"queued_unix_ns":1,"attempts":0}' >"$seeds/manifest"
# Container identity (daemon/container): the unit tests' samples of every runtime.
samples=tests/unit/container/samples
for f in "$samples"/*.cgroup; do { printf '\x06'; cat "$f"; } >"$seeds/$(basename "$f")"; done
for f in "$samples"/*-config.json; do { printf '\x07'; cat "$f"; } >"$seeds/$(basename "$f")"; done
{ printf '\x08'; cat "$samples/runc-state.json"; } >"$seeds/runc-state"
for f in podman-containers.json docker-config.v2.json status.txt; do { printf '\x09'; cat "$samples/$f"; } >"$seeds/$f"; done
set +e
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 "$fb/tests/fuzz-service/service_fuzz" -max_total_time="$secs" -timeout=10 \
  -rss_limit_mb=2048 -max_len=8192 -artifact_prefix="$artifacts" -print_final_stats=1 "$corpus" "$seeds" \
  2>"$fb/service-fuzz.log"
rc=$?
set -e
grep -E 'stat::number_of_executed_units|Done' "$fb/service-fuzz.log" | head -2 || true
if ((rc != 0)); then
  echo "36-fuzz-service: FAILED (rc=$rc): see $fb/service-fuzz.log; inputs in $artifacts" >&2
  grep -E 'ERROR|SUMMARY' "$fb/service-fuzz.log" | head -5 >&2
  exit 1
fi
echo "36-fuzz-service: no crash, hang or memory error in ${secs}s"
