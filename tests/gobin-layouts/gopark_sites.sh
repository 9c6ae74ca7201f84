#!/usr/bin/env bash
# Lists every gopark/goparkunlock call site of a Go toolchain's runtime (non-test, linux
# and portable files): "file:line  waitReason  traceBlockReason" — the evidence for
# daemon/gobin/wait_reasons.cc (which waitReason a parked goroutine carries, and which
# trace block reason string the in-process tracer writes for it).
#   bash tests/gobin-layouts/gopark_sites.sh GOROOT
set -euo pipefail
root=${1:?GOROOT}
cd "$root/src/runtime"
for f in *.go; do
  case $f in *_test.go|*_js.go|*_wasm.go|*_windows.go|*_darwin.go|*_plan9.go|*_aix.go|*_solaris.go|*_bsd.go|*_openbsd.go|*_netbsd.go|*_freebsd.go|*_dragonfly.go|*_illumos.go|*_ios.go|*_wasip1.go) continue ;; esac
  # Join multi-line calls: print from "gopark(" to the closing of the call's last line.
  awk -v F="$f" '
    /^func gopark|^func goparkunlock/ { next }
    /gopark(unlock)?\(/ { buf = $0; line = NR; open = 1 }
    open && NR > line { buf = buf " " $0 }
    open && /, *[0-9a-zA-Z_+]+\) *(\/\/.*)?$/ {
      gsub(/[\t ]+/, " ", buf);
      n = split(buf, parts, ",");
      tr = parts[n-1]; wr = parts[n-2];
      gsub(/^ +| +$/, "", tr); gsub(/^ +| +$/, "", wr);
      printf "%s:%d\t%s\t%s\n", F, line, wr, tr; open = 0
    }' "$f"
done
