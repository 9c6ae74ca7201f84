#!/usr/bin/env bash
# The kernel matrix (issues 11/12): boots Debian's own kernels in qemu (TCG), each in its
# DEFAULT preemption mode, and in each guest runs `gotraced selftest`, a launch-mode
# recording and a --pid attach; Go's parser (tracecheck) judges both traces on the host,
# and the guest's console must hold no "BUG:", "Oops", "panic", "Call Trace" or "general
# protection". Prints one table (kernel x check); per-guest logs stay in WORK/logs/LINE/.
#
#   bash tests/kernels/run-matrix.sh [--build DIR] [--kernel LINE]... [--keep]
#     --build DIR    the build dir whose cli/gotraced is tested ($GOTRACED_BUILD, else build)
#     --kernel LINE  6.1 | 6.12 | 6.16+ | 7.x (also: 6.16, 6, 7), or an older 7.x line by hand: 7.0 | 7.1 | 7.2; repeatable; default the first four
#     --keep         keep the initramfs (WORK/initramfs.cpio.gz) after the run
# Exit status 0 only when every cell of every row is ok. A kernel that cannot be fetched
# is a failed row that names the package and why.
#
# Time (2 cores, TCG): the whole matrix has MATRIX_BUDGET seconds (default 510: `make
# test` allows it 8.5 minutes). Guests run one after another; each gets an equal share of
# what is left (at most GUEST_MAX, 200 s), qemu is killed at the end of it (a hung guest
# fails in bounded time), and its steps get that share less 20 s (a guest reaches /init
# in 7.5-11 s) as their budget, so time a quick guest does not use goes to the next.
# Kernels are cached in $GOTRACED_KERNEL_CACHE (default /var/cache/gotraced-kernels).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${GOTRACED_BUILD:-$ROOT/build}
CACHE=${GOTRACED_KERNEL_CACHE:-/var/cache/gotraced-kernels}
lines=()
keep=0
while (($#)); do
  case $1 in
    --build) BUILD=$2; shift 2 ;;
    --kernel)
      case $2 in
        6.1 | 6.12 | 6.16+ | 7.x | 7.0 | 7.1 | 7.2) lines+=("$2") ;;
        6.16 | 6 | 6.x) lines+=(6.16+) ;;
        7) lines+=(7.x) ;;
        *) echo "run-matrix: unknown kernel line '$2' (6.1, 6.12, 6.16+, 7.x)" >&2; exit 2 ;;
      esac
      shift 2 ;;
    --keep) keep=1; shift ;;
    -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "run-matrix: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
((${#lines[@]})) || lines=(6.1 6.12 6.16+ 7.x)
BUILD=$(cd "$BUILD" && pwd)
WORK=$BUILD/kernel-matrix
MATRIX_BUDGET=${MATRIX_BUDGET:-510}
GUEST_MAX=${GUEST_MAX:-200}
t_start=$SECONDS
die() { echo "run-matrix: $*"; exit 1; }

# What the matrix needs on the host; each missing piece is named.
[[ -x $BUILD/cli/gotraced ]] || die "$BUILD/cli/gotraced is not built (cmake --build $BUILD)"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found (qemu-system-x86 from bookworm-backports: scripts/install-deps.sh)"
qv=$(qemu-system-x86_64 --version | sed -n 's/^QEMU emulator version \([0-9]*\).*/\1/p')
((qv >= 10)) || die "QEMU $(qemu-system-x86_64 --version | head -1) is too old: bookworm's 7.2 double-faults 6.12 guests under TCG; install bookworm-backports' (scripts/install-deps.sh)"
for t in busybox cpio apt-get dpkg-deb python3 go; do
  command -v "$t" >/dev/null || die "$t not found (scripts/install-deps.sh)"
done
[[ -r /usr/share/keyrings/debian-archive-keyring.gpg ]] || die "no /usr/share/keyrings/debian-archive-keyring.gpg (debian-archive-keyring)"
bash "$ROOT/scripts/build-tools.sh" "$BUILD" >/dev/null || die "tracecheck does not build (scripts/build-tools.sh $BUILD)"
TRACECHECK=$BUILD/tools/tracecheck

rm -rf "$WORK"
mkdir -p "$WORK/lines" "$WORK/logs"
echo "kernel matrix: $("$BUILD/cli/gotraced" --version 2>/dev/null | head -1) from $BUILD; kernels: ${lines[*]}"
echo "kernel matrix: logs in $WORK/logs/<line>/ (console.log = the guest's console, files/ = what it sent)"

# 1. Kernels (cached; a kernel that cannot be fetched fails its row, named with why).
GOTRACED_KERNEL_CACHE=$CACHE bash "$HERE/fetch-kernels.sh" --out "$WORK/lines" "${lines[@]}" 2>&1 | sed 's/^/  /' || true

# 2. The initramfs (gotraced, its libraries, busybox, the target).
if ! initrd=$(bash "$HERE/build-initramfs.sh" "$BUILD" "$WORK" 2>"$WORK/initramfs.err"); then
  die "cannot build the guest initramfs: $(cat "$WORK/initramfs.err")"
fi
echo "kernel matrix: initramfs $(du -h "$initrd" | cut -f1), matrix budget ${MATRIX_BUDGET}s ($((SECONDS - t_start))s used)"

# 3. One guest after another (2 cores: two TCG guests at once would slow both).
guest=
stop_guest() {
  if [[ -n $guest ]]; then
    kill "$guest" 2>/dev/null || true
    wait "$guest" 2>/dev/null || true
  fi
  guest=
}
trap stop_guest EXIT
trap 'stop_guest; exit 130' INT TERM
# Newest first: an old kernel's verifier is the slow one (75-120 s under TCG to refuse
# today's largest program on 6.1), so the old kernels come last and get the time the
# newer ones left (the table keeps the order of LINES).
todo=()
for l in 7.x 7.2 7.1 7.0 6.16+ 6.12 6.1; do
  [[ " ${lines[*]} " == *" $l "* ]] || continue
  if [[ -e $WORK/lines/$l.env ]]; then todo+=("$l"); else echo "  $l: not fetched: $(cat "$WORK/lines/$l.err" 2>/dev/null)"; fi
done
n=${#todo[@]}
for l in "${todo[@]}"; do
  # shellcheck disable=SC1090
  VMLINUZ=$(source "$WORK/lines/$l.env" && echo "$VMLINUZ")
  share=$(((MATRIX_BUDGET - (SECONDS - t_start) - 5) / n))
  ((share <= GUEST_MAX)) || share=$GUEST_MAX
  n=$((n - 1))
  g0=$SECONDS
  rc=0
  if ((share < 40)); then
    mkdir -p "$WORK/logs/$l"
    echo "  $l: not booted: only ${share}s of the matrix's ${MATRIX_BUDGET}s budget left"
    rc=125
  else
    # In the background, so a signal to this script stops the guest at once.
    # The go1.24/go1.25 launches on one kernel only, the first booted (the newest: 7.x by
    # default; the guests of old kernels need their time for their slow verifiers):
    # 20-60 s more of a TCG guest's time per kernel would not fit the matrix's budget.
    newgo=0
    [[ $l == "${todo[0]}" ]] && newgo=1
    bash "$HERE/boot-guest.sh" "$VMLINUZ" "$initrd" "$WORK/logs/$l" "$share" "$((share - 20))" "$newgo" &
    guest=$!
    wait "$guest" || rc=$?
    guest=
  fi
  python3 "$HERE/judge_guest.py" "$WORK/logs/$l" "$TRACECHECK" "$rc" ||
    echo "  $l: judge_guest.py failed"
  killed=$(sed -n 's/^boot-guest: //p' "$WORK/logs/$l/qemu.log" 2>/dev/null | tail -1)
  echo "  $l: guest ran $((SECONDS - g0))s of its ${share}s (qemu exit $rc${killed:+: $killed})"
done

# 4. The table.
echo
status=0
python3 "$HERE/table.py" "$WORK" "${lines[@]}" || status=1
((keep)) || rm -f "$initrd"
echo
echo "kernel matrix: $( ((status)) && echo FAILED || echo passed) in $((SECONDS - t_start))s; logs in $WORK/logs/"
exit $status
