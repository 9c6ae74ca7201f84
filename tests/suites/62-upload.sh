#!/usr/bin/env bash
# Upload to S3-compatible storage (issue 32, docs/upload.md) against a real S3 server:
# versitygw (scripts/build-versitygw.sh, pinned, built once into $BUILD/tools) on
# 127.0.0.1 with an ephemeral port and its posix backend in a temporary directory.
# serve's triggers save pairs of files (a syscall trigger of tests/serve/trigger-target);
# each case asserts the objects' bytes equal the spooled files' (copied while pending)
# and that Go's parser (tracecheck) reads the downloaded traces:
#   store down when the trigger fires, started 30 s later: uploaded then, key + metadata;
#   wrong credentials: 403 SignatureDoesNotMatch logged and counted, retried, the file
#     kept; right credentials after a reload: uploaded; no secret in log/metrics/ps;
#   the server killed in the middle of a multipart upload: one whole object in the end,
#     no unfinished multipart upload left;
#   the daemon killed (SIGKILL) with uploads pending, started again: uploaded;
#   a spool full of pending files: the oldest evicted, counted and named as lost;
#   a bucket that does not exist, an endpoint that is not S3, a malformed URL: refused at
#     start-up and at reload (the running configuration kept);
#   a dump asked to upload (`gotraced dump --upload`): saved to serve's spool, uploaded;
#   one-off `--out s3://` (launch): uploaded and the local file removed, with the store from
#     serve's config (--store) or the AWS_* environment; to a missing bucket: exit 1, the
#     local file kept and named.
# Retry caps are shortened by the config (retry_max_seconds = 2). Takes ~3 min.
set -uo pipefail
ROOT=${GOTRACED_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${GOTRACED_BUILD:-$ROOT/build}
SUITE=62-upload
GOTRACED=$BUILD/cli/gotraced
TC=$BUILD/tools/tracecheck
VGW=$BUILD/tools/versitygw
# shellcheck source=../lib/suite.sh
source "$ROOT/tests/lib/suite.sh"

need_gotraced
need_bpf
build_tools
if ! bash "$ROOT/scripts/build-versitygw.sh" "$BUILD" >"$BUILD/versitygw-build.log" 2>&1; then
  echo "FAIL $SUITE: versitygw does not build: $(tail -3 "$BUILD/versitygw-build.log")"
  exit 1
fi
for t in curl python3; do command -v $t >/dev/null || { echo "FAIL $SUITE: $t is not installed"; exit 1; }; done

W=$(mktemp -d -t gotraced-upload.XXXXXX)
SOCK=$W/s.sock
AK=gotracedtestkey
SK=gotraced-test-secret-$RANDOM$RANDOM
BUCKET=traces
DAEMON= VPID= TPID= HPID= TLSPID=
FAILS=0
cleanup() {
  for p in $TPID $HPID $VPID $TLSPID; do kill -9 "$p" 2>/dev/null; done
  if [[ -n $DAEMON ]]; then kill -TERM "$DAEMON" 2>/dev/null; wait "$DAEMON" 2>/dev/null; fi
  if [[ ${KEEP:-0} == 1 ]]; then echo "kept $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
die() {
  echo "FAIL $SUITE: $*"
  tail -n 25 "$W/serve.log" 2>/dev/null | sed 's/^/  serve: /'
  exit 1
}
ok() { echo "ok   $SUITE: $*"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
EP=http://127.0.0.1:$PORT
get() { curl -s --max-time 30 --unix-socket "$SOCK" "http://gotraced$1"; }
upload_json() { get /processes | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["upload"]))'; }
ufield() { upload_json | python3 -c 'import json,sys; u=json.load(sys.stdin); print(u[sys.argv[1]] if u else "")' "$1"; }
# wait_for SECONDS COMMAND...: polls every 0.2 s until COMMAND succeeds.
wait_for() {
  local secs=$1 i
  shift
  for ((i = 0; i < secs * 5; i++)); do "$@" && return 0; sleep 0.2; done
  return 1
}

start_store() {
  ROOT_ACCESS_KEY=$AK ROOT_SECRET_KEY=$SK "$VGW" --port "127.0.0.1:$PORT" posix "$W/store" >>"$W/versitygw.log" 2>&1 &
  VPID=$!
  wait_for 20 curl -s -o /dev/null "$EP/" || die "versitygw did not listen on $EP: $(tail -3 "$W/versitygw.log")"
}
stop_store() { kill -9 "$VPID" 2>/dev/null; wait "$VPID" 2>/dev/null; VPID=; }
start_daemon() {
  "$GOTRACED" serve --config "$W/c.toml" >>"$W/serve.log" 2>&1 &
  DAEMON=$!
  wait_for 30 test -S "$SOCK" || die "serve did not start"
}
stop_daemon() { kill -TERM "$DAEMON" 2>/dev/null; wait "$DAEMON" 2>/dev/null; DAEMON=; rm -f "$SOCK"; }
reload() {
  local n
  n=$(grep -c "configuration reloaded\|SIGHUP" "$W/serve.log")
  kill -HUP "$DAEMON"
  wait_for 30 eval '(( $(grep -c "configuration reloaded\|SIGHUP" "$W/serve.log") > n ))' || die "no reload logged"
}
# A trigger target: a 100 ms goroutine syscall every 200 ms; the config fires once per process.
run_target() {
  [[ -n $TPID ]] && { kill -9 "$TPID" 2>/dev/null; wait "$TPID" 2>/dev/null; }
  "$W/t-syscall" -mode syscall -spin 100ms >/dev/null 2>&1 &
  TPID=$!
}
# pair PID: waits until the pair of PID is in the spool (whole) and copies it to $W/saved.
pair() {
  local pid=$1 f
  wait_for 60 eval '(( $(ls "$W"/spool/*-"$pid"-*.trace 2>/dev/null | wc -l) >= 2 ))' ||
    die "no trigger pair of pid $pid in the spool: $(ls "$W/spool")"
  mkdir -p "$W/saved"
  for f in "$W"/spool/*-"$pid"-*.trace; do cp "$f" "$W/saved/"; done
}
# check_objects PID: every spooled file of PID (saved copy) is an object with equal bytes that
# tracecheck accepts, with the metadata listed by `gotraced traces`.
# The listing is read again for up to 10 s while an object is not in it: versitygw's posix
# backend writes an object's file before its metadata (xattrs), so a listing right after
# the upload was confirmed can show it without the metadata that names it (fresh clone,
# 2026-12-06: "after" object NONE, listed a moment after its upload).
check_objects() {
  local pid=$1 f key n=0 try
  for f in "$W"/saved/*-"$pid"-*.trace; do
    for try in 1 2 3 4 5 6 7 8 9 10; do
      "$GOTRACED" traces --store "$W/c.toml" --json >"$W/list.json" 2>"$W/list.err" || die "gotraced traces: $(cat "$W/list.err")"
      key=$(find_key "$f" "$pid")
      [[ $key == NONE ]] || break
      sleep 1
    done
    [[ $key == gt/* ]] || die "pid $pid: $(basename "$f"): $key (listing: $(head -c 600 "$W/list.json"))"
    "$GOTRACED" traces get "$key" --out "$W/got.trace" --store "$W/c.toml" 2>/dev/null || die "traces get $key failed"
    cmp -s "$f" "$W/got.trace" || die "$key: the object's bytes differ from the spooled file's"
    "$TC" "$W/got.trace" >/dev/null 2>"$W/tc.err" || die "$key: tracecheck refused it: $(head -c 300 "$W/tc.err")"
    n=$((n + 1))
  done
  ((n == 2)) || die "pid $pid: $n objects checked, want 2"
}
# find_key FILE PID: the key of the listed object (list.json) that FILE was uploaded as,
# or NONE / MISSING / BADMETA / BADKEY with what is wrong.
find_key() {
  python3 - "$W/list.json" "$(basename "$1")" "$2" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1])); name = sys.argv[2]; pid = sys.argv[3]
part = "before" if name.endswith(".before.trace") else "after"
for r in rows:
    m = r["metadata"]
    if m.get("pid") == pid and m.get("part") == part:
        need = ["gotraced-version", "node", "exe", "go-version", "build-id", "trace-format", "trigger", "at-ns", "at-utc", "window-seconds"]
        missing = [k for k in need if not m.get(k)]
        if missing: print("MISSING", missing); sys.exit(0)
        if m["node"] != "testnode" or m["trigger"] != "syscall": print("BADMETA", m); sys.exit(0)
        if not r["key"].startswith("gt/testnode/") or not r["key"].endswith(f"-{pid}-syscall.{part}.trace"): print("BADKEY", r["key"]); sys.exit(0)
        print(r["key"]); sys.exit(0)
print("NONE")
PY
}
no_spool_trace() { ! ls "$W"/spool/*.trace >/dev/null 2>&1; }

(cd "$ROOT/tests/serve/trigger-target" && GOTOOLCHAIN=local GOFLAGS=-buildvcs=false go build -o "$W/t-syscall" .) ||
  die "trigger-target does not build"
umask 077
printf '%s\n' "$AK" >"$W/ak"
printf '%s\n' "$SK" >"$W/sk"
write_config() {  # write_config [extra [upload] lines]
  cat >"$W/c.toml" <<TOML
[flight]
window_seconds = 4
generation_ms = 500
ring_mb = 2
[spool]
dir = "$W/spool"
max_files = ${MAX_FILES:-40}
[endpoint]
socket = "$SOCK"
[discovery]
rescan_seconds = 1
[upload]
endpoint = "${ENDPOINT:-$EP}"
bucket = "${UBUCKET:-$BUCKET}"
prefix = "gt"
node = "testnode"
access_key_file = "$W/ak"
secret_key_file = "$W/sk"
part_mb = 5
retry_initial_seconds = 0.5
retry_max_seconds = 2
${1:-}
[[watch]]
exe = "$W/t-syscall"
[watch.triggers]
syscall_ms = 50
after_seconds = 1
min_interval_seconds = 600
TOML
}
T0=$SECONDS

# ---- the bucket, then the store down when the trigger fires; up 30 s later ------------------
mkdir -p "$W/store"
start_store
EMPTY=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
curl -sf -X PUT --aws-sigv4 "aws:amz:us-east-1:s3" --user "$AK:$SK" -H "x-amz-content-sha256: $EMPTY" "$EP/$BUCKET" ||
  die "cannot create the bucket"
stop_store
write_config
start_daemon
grep -q "cannot be checked now" "$W/serve.log" || die "a store down at start-up was not reported"
run_target
P1=$TPID
pair "$P1"
DOWN_AT=$SECONDS
sleep 2
[[ $(ls "$W"/spool/*-"$P1"-*.trace | wc -l) == 2 ]] || die "files left the spool while the store was down"
F=$(get /metrics | awk '/^gotraced_upload_failures_total\{code="CouldNotConnect"\}/ {print $2}')
((${F:-0} >= 2)) || die "connection failures not counted: $(get /metrics | grep upload_failures)"
sleep $((30 - (SECONDS - DOWN_AT)))
start_store
wait_for 30 no_spool_trace || die "pending files not uploaded 30 s after the store came up: $(ls "$W/spool")"
check_objects "$P1"
ok "store down at the trigger (failures: $F CouldNotConnect), up 30 s later: pair uploaded, bytes equal, key and metadata, tracecheck ok"

# ---- wrong credentials, then right ones after a reload ------------------------------------------
printf 'wrong-secret-%s\n' "$RANDOM$RANDOM" >"$W/sk"
reload
run_target
P2=$TPID
pair "$P2"
wait_for 20 grep -q "SignatureDoesNotMatch" "$W/serve.log" || die "no SignatureDoesNotMatch logged"
sdm() { get /metrics | awk '/^gotraced_upload_failures_total\{code="SignatureDoesNotMatch"\}/ {print $2}'; }
wait_for 20 eval '(( $(sdm) + 0 >= 3 ))' ||
  die "403s not counted/retried: $(get /metrics | grep upload_)"
R=$(ufield retries)
((R >= 2)) || die "retries not counted ($R)"
[[ $(ls "$W"/spool/*-"$P2"-*.trace | wc -l) == 2 ]] || die "files left the spool with wrong credentials"
get "/processes?format=text" | grep -q "last error: 403 SignatureDoesNotMatch" || die "gotraced ps lacks the last error"
WRONG=$(tr -d '\n' <"$W/sk")
printf '%s\n' "$SK" >"$W/sk"
reload
wait_for 30 no_spool_trace || die "not uploaded after the reload with right credentials"
check_objects "$P2"
for s in "$SK" "$WRONG"; do
  for src in "$W/serve.log" <(get /metrics) <(get /processes) <(get "/processes?format=text"); do
    grep -qF "$s" "$src" && die "a secret appears in the daemon's output ($src)"
  done
done
ok "wrong credentials: 403 SignatureDoesNotMatch logged, counted, $R retries, files kept; reload: uploaded; no secret in log, metrics, /processes"

# ---- the daemon killed with uploads pending ---------------------------------------------------------
stop_store
run_target
P3=$TPID
pair "$P3"
kill -9 "$DAEMON"; wait "$DAEMON" 2>/dev/null; DAEMON=; rm -f "$SOCK"
ls "$W"/spool/*-"$P3"-*.trace.upload.json >/dev/null 2>&1 || die "no manifest of the pending files"
start_store
start_daemon
wait_for 30 no_spool_trace || die "pending uploads not resumed after a restart"
check_objects "$P3"
ok "daemon SIGKILLed with 2 uploads pending: uploaded after its restart"

# ---- the server killed in the middle of a multipart upload ----------------------------------------------
# A trace of more than 10 MiB (three parts of 5 MiB) put in the spool with its manifest, as serve does;
# 4 MiB/s, so the server is killed after the first part.
stop_daemon
write_config "max_mb_per_second = 4"
(cd "$ROOT/tests/serve/target" && GOTOOLCHAIN=local GOFLAGS=-buildvcs=false go build -o "$W/busy" .) || die "serve-target does not build"
"$GOTRACED" --out "$W/big.trace" -- "$W/busy" -rate 20000 -workers 4 >/dev/null 2>&1 &
BP=$!
wait_for 90 eval '(( $(stat -c %s "$W/big.trace" 2>/dev/null || echo 0) > 21 << 19 ))'
kill -INT "$BP"; sleep 0.5; kill -INT "$BP" 2>/dev/null; wait "$BP" 2>/dev/null
SZ=$(stat -c %s "$W/big.trace" 2>/dev/null || echo 0)
((SZ > 10 << 20)) || die "could not record a trace of more than 10 MiB ($SZ bytes)"
"$TC" "$W/big.trace" >/dev/null 2>"$W/tc.err" || die "the big trace does not parse: $(head -c 300 "$W/tc.err")"
cp "$W/big.trace" "$W/spool/big-1-x-dump.trace"
printf '{"file":"big-1-x-dump.trace","key":"gt/testnode/big.trace","metadata":{"trigger":"dump"},"queued_unix_ns":1}\n' \
  >"$W/spool/big-1-x-dump.trace.upload.json"
start_daemon
# Killed once the upload exists (its id in the manifest) and a part is on its way.
wait_for 60 grep -q '"multipart_upload_id":"[^"]' "$W/spool/big-1-x-dump.trace.upload.json" ||
  die "no multipart upload begun: $(cat "$W/spool/big-1-x-dump.trace.upload.json")"
sleep 0.5
stop_store
sleep 3
start_store
wait_for 60 no_spool_trace || die "the multipart upload did not complete after the server came back"
"$GOTRACED" traces get gt/testnode/big.trace --out "$W/got.trace" --store "$W/c.toml" 2>/dev/null || die "big object missing"
cmp -s "$W/big.trace" "$W/got.trace" || die "the big object's bytes differ from the spooled file's"
"$TC" "$W/got.trace" >/dev/null 2>&1 || die "the big object does not parse"
U=$("$GOTRACED" traces uploads --store "$W/c.toml" 2>&1)
[[ $U == *"0 unfinished multipart uploads"* ]] || die "orphan multipart uploads left: $U"
grep -q "aborted the unfinished multipart upload of big-1-x-dump.trace" "$W/serve.log" ||
  die "the upload cut by the kill was not aborted"
grep -q "big-1-x-dump.trace -> .* in 3 parts" "$W/serve.log" || die "no 3-part upload logged"
ok "server SIGKILLed during a multipart upload of $((SZ >> 20)) MiB: the cut upload aborted, one whole object (3 parts), equal bytes, 0 unfinished uploads"

# ---- a spool full of pending files --------------------------------------------------------------
stop_store
MAX_FILES=3 write_config
reload
run_target
P4=$TPID
pair "$P4"
OLDEST=$(ls -tr "$W"/spool/*-"$P4"-*.trace | head -1)
run_target
P5=$TPID
pair "$P5"
[[ -f $OLDEST ]] && die "the oldest pending file was not evicted: $(ls "$W/spool")"
wait_for 10 eval '(( $(ufield lost) + 0 >= 1 ))' || die "the loss is not counted: $(upload_json)"
grep -q "evicted $(basename "$OLDEST").*LOST" "$W/serve.log" || die "the lost file is not named in the log"
"$GOTRACED" ps --socket "$SOCK" | grep -q "LOST (evicted before upload): $(basename "$OLDEST")" || die "gotraced ps does not name the lost file"
get /metrics | grep -q '^gotraced_upload_lost_total 1' || die "/metrics: lost $(get /metrics | grep lost_total)"
start_store
wait_for 30 no_spool_trace || die "the remaining pending files were not uploaded"
ok "spool full (max_files 3) of pending files: $(basename "$OLDEST") evicted, counted, named in log and gotraced ps"

# ---- a dump asked to upload ---------------------------------------------------------------------------
# serve saves the window to its spool and uploads it like a trigger's files (retried until the
# target has a generation to give).
run_target
P6=$TPID
wait_for 30 eval '"$GOTRACED" dump --pid "$P6" --socket "$SOCK" --upload 2>"$W/dump.err"' ||
  die "dump --upload: $(cat "$W/dump.err")"
DKEY=$(grep -o "queued for upload to s3://$BUCKET/[^ ]*" "$W/dump.err" | sed "s|.*s3://$BUCKET/||")
[[ $DKEY == gt/testnode/*-t-syscall-$P6-dump.trace ]] || die "dump --upload: key '$DKEY': $(cat "$W/dump.err")"
wait_for 30 eval '[[ -z $(ls "$W"/spool/*-"$P6"-*dump.trace 2>/dev/null) ]]' || die "the dump was not uploaded: $(ls "$W/spool")"
"$GOTRACED" traces get "$DKEY" --out "$W/dump.trace" --store "$W/c.toml" 2>/dev/null || die "the dump's object is missing"
"$TC" "$W/dump.trace" >/dev/null 2>&1 || die "the dump's object does not parse"
"$GOTRACED" traces --store "$W/c.toml" --json >"$W/list.json" 2>/dev/null || die "gotraced traces failed"
python3 - "$W/list.json" "$DKEY" "$P6" <<'PY' || die "the dump's object lacks its metadata: $(cat "$W/list.json")"
import json, sys
rows = [r for r in json.load(open(sys.argv[1])) if r["key"] == sys.argv[2]]
m = rows[0]["metadata"] if rows else {}
sys.exit(0 if m.get("trigger") == "dump" and m.get("pid") == sys.argv[3] and m.get("window-seconds") else 1)
PY
ok "dump --upload: the window saved to serve's spool and uploaded as $(basename "$DKEY") (trigger dump), tracecheck ok"
kill -9 "$TPID"; wait "$TPID" 2>/dev/null; TPID=

# ---- bad stores at start-up and at reload -------------------------------------------------------------
cp "$W/c.toml" "$W/good.toml"
python3 -m http.server --bind 127.0.0.1 0 >"$W/http.log" 2>&1 &
HPID=$!
wait_for 10 grep -q "Serving HTTP" "$W/http.log"
HPORT=$(grep -o 'port [0-9]*' "$W/http.log" | head -1 | cut -d' ' -f2)
bad_case() {  # NAME EXPECT (config in c.toml): refused at start-up, refused at reload
  local name=$1 expect=$2 out
  cp "$W/c.toml" "$W/bad.toml"
  out=$(timeout 30 "$GOTRACED" serve --config "$W/bad.toml" 2>&1 >/dev/null | sed 's/\/tmp[^ ]*//')
  [[ $? != 0 ]] && grep -q "$expect" <<<"$out" || die "$name: start-up not refused with '$expect': $out"
  cp "$W/good.toml" "$W/c.toml"
  start_daemon
  cp "$W/bad.toml" "$W/c.toml"
  reload
  wait_for 10 grep -q "configuration refused\|cannot apply" "$W/serve.log" || die "$name: reload not refused"
  tail -5 "$W/serve.log" | grep -q "$expect" || die "$name: the reload error does not say '$expect'"
  get "/processes" | grep -q "s3://$BUCKET " || die "$name: the running configuration was not kept"
  cp "$W/good.toml" "$W/c.toml"
  stop_daemon
  ok "$name: refused at start-up and at reload ('$expect'), the running configuration kept"
}
stop_daemon
UBUCKET=no-such-bucket write_config; bad_case "a bucket that does not exist" NoSuchBucket
ENDPOINT=http://127.0.0.1:$HPORT write_config; bad_case "an endpoint that is not S3" "does not answer as S3 does"
ENDPOINT="http//127.0.0.1:$PORT" write_config; bad_case "a malformed endpoint URL" "expected a URL"

# ---- one-off --out s3:// -------------------------------------------------------------------------------
# oneoff ERRFILE GOTRACED-ARGS...: a 2 s launch of t-syscall, then Ctrl-C; rc is its exit code.
oneoff() {
  local err=$1
  shift
  TMPDIR=$W/tmp "$GOTRACED" "$@" -- "$W/t-syscall" -mode syscall -spin 1ms >/dev/null 2>"$err" &
  OP=$!
  sleep 2; kill -INT "$OP"; sleep 0.3; kill -INT "$OP" 2>/dev/null; wait "$OP"; rc=$?
}
mkdir -p "$W/tmp"
# The store's settings from serve's config file ([upload]) instead of the environment.
oneoff "$W/oneoff0.err" --out "s3://$BUCKET/oneoff/store.trace" --store "$W/c.toml"
grep -q "uploaded to s3://$BUCKET/oneoff/store.trace" "$W/oneoff0.err" ||
  die "one-off upload with --store: $(tail -3 "$W/oneoff0.err") (rc $rc)"
"$GOTRACED" traces get oneoff/store.trace --out "$W/got.trace" --store "$W/c.toml" 2>/dev/null || die "--store object missing"
"$TC" "$W/got.trace" >/dev/null 2>&1 || die "the --store one-off object does not parse"
ok "one-off --out s3:// --store CONFIG (serve's [upload] table, no AWS_* environment): uploaded, parsed"
export AWS_ENDPOINT_URL=$EP AWS_ACCESS_KEY_ID=$AK AWS_SECRET_ACCESS_KEY=$SK AWS_REGION=us-east-1
oneoff "$W/oneoff.err" --out "s3://$BUCKET/oneoff/launch.trace"
grep -q "uploaded to s3://$BUCKET/oneoff/launch.trace" "$W/oneoff.err" || die "one-off upload: $(tail -3 "$W/oneoff.err") (rc $rc)"
[[ -z $(ls "$W/tmp") ]] || die "one-off: the local file was not removed: $(ls "$W/tmp")"
"$GOTRACED" traces get oneoff/launch.trace --out "$W/got.trace" --store "s3://$BUCKET" 2>/dev/null || die "one-off object missing"
"$TC" "$W/got.trace" >/dev/null 2>&1 || die "the one-off object does not parse"
oneoff "$W/oneoff2.err" --out "s3://no-such-bucket/x.trace"
KEPT=$(ls "$W"/tmp/* 2>/dev/null | head -1)
((rc == 1)) && [[ -f $KEPT ]] && grep -q "kept in $KEPT" "$W/oneoff2.err" && grep -q "NoSuchBucket" "$W/oneoff2.err" ||
  die "one-off to a missing bucket: rc $rc, kept '$KEPT': $(tail -3 "$W/oneoff2.err")"
"$TC" "$KEPT" >/dev/null 2>&1 || die "the kept one-off file does not parse"
ok "one-off --out s3://: uploaded, parsed, local file removed; to a missing bucket: exit 1, $(basename "$KEPT") kept and named"

# ---- TLS: the store behind https with a private CA --------------------------------------------------
# A certificate for 127.0.0.1 made here; the same store served over https. With ca_file the
# listing works; without it the certificate is refused, and the error says so.
unset AWS_ENDPOINT_URL AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_REGION
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$W/tls.key" -out "$W/tls.pem" >"$W/openssl.log" 2>&1 || die "openssl: $(tail -2 "$W/openssl.log")"
TPORT=$(free_port)
ROOT_ACCESS_KEY=$AK ROOT_SECRET_KEY=$SK "$VGW" --port "127.0.0.1:$TPORT" --cert "$W/tls.pem" --key "$W/tls.key" \
  posix "$W/store" >>"$W/versitygw-tls.log" 2>&1 &
TLSPID=$!
wait_for 20 curl -s -o /dev/null --cacert "$W/tls.pem" "https://127.0.0.1:$TPORT/" ||
  die "versitygw did not listen on https://127.0.0.1:$TPORT: $(tail -3 "$W/versitygw-tls.log")"
ENDPOINT=https://127.0.0.1:$TPORT write_config "ca_file = \"$W/tls.pem\""
"$GOTRACED" traces --store "$W/c.toml" --json >"$W/tls-list.json" 2>"$W/tls.err" || die "TLS with ca_file: $(tail -3 "$W/tls.err")"
grep -q "\"gt/testnode/" "$W/tls-list.json" || die "TLS with ca_file: the listing has no object of this run: $(head -c 300 "$W/tls-list.json")"
ENDPOINT=https://127.0.0.1:$TPORT write_config
# (its log lines are on stdout: spdlog's default logger, outside serve)
if "$GOTRACED" traces --store "$W/c.toml" >"$W/tls-bad.err" 2>&1 ||
  ! grep -qi "certificate\|SSL" "$W/tls-bad.err"; then
  die "TLS without ca_file: not refused for the certificate: $(tail -3 "$W/tls-bad.err")"
fi
kill -9 "$TLSPID" 2>/dev/null; wait "$TLSPID" 2>/dev/null; TLSPID=
ok "TLS: https store with ca_file: $(grep -c "\"key\"" "$W/tls-list.json") objects listed; without it refused: $(grep -oi '[^:]*certificate[^.]*' "$W/tls-bad.err" | head -1)"

echo "PASS $SUITE ($((SECONDS - T0)) s)"
