# What the suite scripts (tests/suites/NN-*.sh) and their target builders share. Source
# it; it defines functions only. The suite-facing ones read, when called:
#   SUITE   the suite's name as its lines print it (45-record-smoke ...)
#   ROOT    the repository, BUILD the build directory, GOTRACED the gotraced binary.

# need_gotraced: fails the suite (exit 1) when gotraced is not built.
need_gotraced() {
  if [[ ! -x $GOTRACED ]]; then
    echo "FAIL $SUITE: $GOTRACED is not built (cmake --build $BUILD)"
    exit 1
  fi
}

# need_bpf: skips the suite (exit 0, saying why) when this machine cannot load BPF
# programs at all (`gotraced selftest` exits 1: not root, a kernel feature missing ...);
# fails it (exit 1) when selftest exits 2, a program refused on a capable kernel: a
# gotraced bug, which a skip would hide.
need_bpf() {
  local selftest rc=0
  selftest=$("$GOTRACED" selftest 2>&1) || rc=$?
  if ((rc == 2)); then
    echo "FAIL $SUITE: gotraced's BPF programs are refused on this kernel: $selftest"
    exit 1
  elif ((rc != 0)); then
    echo "SKIP $SUITE: this machine cannot run gotraced's BPF programs: $selftest"
    exit 0
  fi
}

# build_tools: tracecheck and tracecompare into $BUILD/tools (scripts/build-tools.sh;
# quick when up to date). Fails the suite (exit 1) when they do not build; go's own
# errors are on stderr.
build_tools() {
  if ! bash "$ROOT/scripts/build-tools.sh" "$BUILD" >/dev/null; then
    echo "FAIL $SUITE: tracecheck/tracecompare do not build"
    exit 1
  fi
}

# go_for VERSION (1.26 or go1.26): the command line that runs that toolchain's go, to be
# used unquoted ($g build ...); returns 1 for a version this project does not know.
# Whether the toolchain is installed is the caller's question ($g version).
# CONTRIBUTING.md (Go toolchains): the Debian Gos need GOTOOLCHAIN=local (never switch on a
# go.mod line); 1.27 is the module proxy's toolchain module, run by the machine's go;
# 1.24 and 1.25 are trixie's packages unpacked by scripts/fetch-debian-go.sh (its cache,
# shared by every build dir: $GOTRACED_GO_CACHE, default /var/cache/gotraced-go).
go_for() {
  case ${1#go} in
    1.26) echo "env GOTOOLCHAIN=local go" ;;
    1.27) echo "env GOTOOLCHAIN=go1.27.3 go" ;;
    1.19 | 1.21 | 1.22 | 1.23) echo "env GOTOOLCHAIN=local /usr/lib/go-${1#go}/bin/go" ;;
    1.24 | 1.25) echo "env GOTOOLCHAIN=local ${GOTRACED_GO_CACHE:-/var/cache/gotraced-go}/go${1#go}/bin/go" ;;
    *) return 1 ;;
  esac
}

# run_twice_on_fail MISSED KEEP MESSAGE -- RUN ARGS...
# The suites' one retry rule, for checks whose figures are noisy on a loaded 2-core
# machine (a lost probe hit among 10-30 events, a 3-sigma sample band): RUN ARGS runs;
# when MISSED (a command, status 0 = the run missed a threshold) says so, KEEP puts the
# first run's results aside (they stay in the log and on disk), MESSAGE is printed, and
# RUN ARGS runs once more: only this second run counts. Never silent, never a third run.
# MISSED and KEEP run in this shell, so they may read and set the caller's variables;
# RUN runs as a plain command (not in an || list), so the caller's set -e holds in it.
run_twice_on_fail() {
  local missed=$1 keep=$2 message=$3
  [[ $4 == -- ]] || { echo "run_twice_on_fail: usage: MISSED KEEP MESSAGE -- RUN ARGS..." >&2; return 2; }
  shift 4
  "$@"
  if $missed; then
    $keep
    echo "$message"
    "$@"
  fi
}

# own_reader_parses VERSION FILE: that Go version's own `go tool trace` reads every event
# of FILE in its debug mode (cmd/trace/main.go: the parser the viewer uses, nothing
# served): -d on 1.19/1.21 (the v1 parser), -d=1 on 1.22/1.23, -d=parsed from 1.24 on
# (internal/trace's Reader, event by event). Status 0 when it reads them all; otherwise
# prints the tool's first error line.
own_reader_parses() {
  local g flag out
  g=$(go_for "$1") || { echo "unknown Go version $1"; return 1; }
  case ${1#go} in
    1.19 | 1.20 | 1.21) flag=-d ;;
    1.22 | 1.23) flag=-d=1 ;;
    *) flag=-d=parsed ;;
  esac
  if ! out=$($g tool trace "$flag" "$2" 2>&1 >/dev/null); then
    echo "go${1#go} tool trace $flag: $(grep -v '^Parsing' <<<"$out" | head -n1)"
    return 1
  fi
}

# goroot_for VERSION: that toolchain's GOROOT (`go env GOROOT` of go_for's command: no
# machine's path written here); prints nothing and returns 1 when it is not installed.
goroot_for() {
  local g
  g=$(go_for "$1") || return 1
  $g env GOROOT 2>/dev/null
}
