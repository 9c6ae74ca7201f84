#!/usr/bin/env bash
# Faults: whatever goes wrong around a recording, the file parses, the summary tells the
# truth and the exit code says so (issue 16). Cases so far:
#   disk full mid-recording (--out on a small tmpfs, several sizes): the file is cut back
#   to whole generations and parses; the summary says OUTPUT FAILED with what was lost,
#   never "nothing lost"; gotraced exits 1; the target keeps running.
#   target SIGKILLed mid-recording: parses, "target exited".
# Skips (with the reason) only when this machine cannot load BPF programs at all.
set -euo pipefail
ROOT=${GOTRACED_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${GOTRACED_BUILD:-$ROOT/build}
SUITE=65-faults
GOTRACED=$BUILD/cli/gotraced
TOOLS=$BUILD/tools
WORK=$BUILD/faults
fail=0
ok() { echo "ok   $SUITE: $*"; }
bad() { echo "FAIL $SUITE: $*"; fail=1; }
# shellcheck source=../lib/suite.sh
source "$ROOT/tests/lib/suite.sh"

need_gotraced
need_bpf
build_tools

if [[ $EUID -ne 0 ]]; then
  echo "FAIL $SUITE: needs root (mounts a tmpfs to fill)"
  exit 1
fi

rm -rf "$WORK"
mkdir -p "$WORK/prog"
cat >"$WORK/prog/main.go" <<'GO'
// A busy target: goroutines over channels, sleeps and file syscalls, until killed.
package main

import (
	"os"
	"time"
)

func main() {
	for {
		done := make(chan int)
		for i := 0; i < 8; i++ {
			go func(i int) {
				f, err := os.Open("/proc/self/stat")
				if err == nil {
					f.Close()
				}
				done <- i
			}(i)
		}
		for i := 0; i < 8; i++ {
			<-done
		}
		time.Sleep(200 * time.Microsecond)
	}
}
GO
(cd "$WORK/prog" && printf 'module faults\ngo 1.22\n' >go.mod && GOTOOLCHAIN=local go build -o "$WORK/target" .) ||
  { echo "FAIL $SUITE: cannot build the target"; exit 1; }

MNT=$WORK/full
cleanup() {
  [[ -n ${tpid:-} ]] && kill "$tpid" 2>/dev/null || true
  mountpoint -q "$MNT" && umount "$MNT" || true
}
trap cleanup EXIT

# disk_full SIZE: --pid recording onto a SIZE tmpfs with short generations.
disk_full() {
  local size=$1
  mkdir -p "$MNT"
  mountpoint -q "$MNT" && umount "$MNT"
  mount -t tmpfs -o size="$size" tmpfs "$MNT"
  "$WORK/target" &
  tpid=$!
  sleep 0.3
  local rc=0
  "$GOTRACED" --quiet --pid "$tpid" --out "$MNT/t.trace" --duration 8s --generation-period 200ms \
    >"$WORK/full-$size.out" 2>&1 || rc=$?
  local summary
  summary=$(grep -E "^gotraced: pid" "$WORK/full-$size.out" || true)
  if ! kill -0 "$tpid" 2>/dev/null; then bad "disk full $size: the target died"; fi
  kill "$tpid" 2>/dev/null || true
  wait "$tpid" 2>/dev/null || true
  tpid=
  if [[ $rc -eq 0 ]]; then bad "disk full $size: exit 0 (want 1)"; fi
  if grep -q "nothing lost" <<<"$summary"; then bad "disk full $size: summary says nothing lost: $summary"; fi
  if ! grep -q "OUTPUT FAILED" <<<"$summary"; then bad "disk full $size: summary does not say the output failed: $summary"; fi
  cp "$MNT/t.trace" "$WORK/full-$size.trace"
  umount "$MNT"
  local check
  if check=$("$TOOLS/tracecheck" "$WORK/full-$size.trace" 2>&1); then
    ok "disk full $size: exit $rc, file parses ($(stat -c %s "$WORK/full-$size.trace") bytes): ${summary#gotraced: }"
  else
    bad "disk full $size: the file does not parse: $(tail -c 300 <<<"$check")"
  fi
}

disk_full 300k
disk_full 1m

# Target SIGKILLed mid-recording.
"$WORK/target" &
tpid=$!
sleep 0.3
("$GOTRACED" --quiet --pid "$tpid" --out "$WORK/kill.trace" --duration 20s >"$WORK/kill.out" 2>&1; echo $? >"$WORK/kill.rc") &
gpid=$!
sleep 1.5
kill -9 "$tpid"
wait "$tpid" 2>/dev/null || true
tpid=
wait "$gpid" || true
if ! grep -q "target exited" "$WORK/kill.out"; then bad "target SIGKILL: summary does not say the target exited: $(tail -2 "$WORK/kill.out")"; fi
if "$TOOLS/tracecheck" "$WORK/kill.trace" >/dev/null 2>"$WORK/kill.check"; then
  ok "target SIGKILL: exit $(cat "$WORK/kill.rc"), file parses"
else
  bad "target SIGKILL: the file does not parse: $(tail -c 300 "$WORK/kill.check")"
fi

exit $fail
