#!/usr/bin/env bash
# Fetches Debian's own kernels for the kernel matrix WITHOUT installing them: the image
# packages are downloaded (apt-get download) through a private apt configuration (scripts/lib/private-apt.sh:
# its own sources list, lists and cache under the cache dir; the host's apt sources and
# state are never touched) and only boot/vmlinuz-* is unpacked from them (dpkg-deb, dpkg's own
# unpacker). Unpacked kernels are kept in the cache and reused across runs.
#
#   tests/kernels/fetch-kernels.sh [--out DIR] LINE...   LINE: 6.1 | 6.12 | 6.16+ | 7.x | 7.0 | 7.1 | 7.2
#
# For each LINE it picks the newest kernel of that line in its suite:
#   6.1    linux-image-6.1.0-N-amd64[-unsigned]   bookworm, bookworm-security
#   6.12   linux-image-6.12.*+deb12-amd64[-...]    bookworm-backports
#   6.16+  linux-image-6.X.*+deb13-amd64, X >= 16 trixie-backports
#   7.x    linux-image-7.*+deb13-amd64            trixie-backports
#   7.N    linux-image-7.N.*+deb13-amd64          trixie-backports (not in the default set:
#          the older 7.x lines, for a run by hand: run-matrix.sh --kernel 7.0)
# and writes DIR/LINE.env (DIR: default CACHE/lines; shell assignments: LINE, IMAGE the
# linux-image package, PKG the package the vmlinuz came from, VERSION, SUITE, VMLINUZ) or,
# when it cannot, DIR/LINE.err: one line saying which package and why. Exit
# status: 0 when every LINE has a kernel, 1 otherwise (the .err files say why).
#
# Cache dir: $GOTRACED_KERNEL_CACHE, default /var/cache/gotraced-kernels.
set -uo pipefail
CACHE=${GOTRACED_KERNEL_CACHE:-/var/cache/gotraced-kernels}
APTD=$CACHE/apt
# shellcheck source=../../scripts/lib/private-apt.sh
source "$(dirname "$0")/../../scripts/lib/private-apt.sh"
# Lists younger than this are not refreshed (each refresh downloads ~15 MB of indexes).
MAX_LIST_AGE_MIN=${GOTRACED_KERNEL_LIST_AGE_MIN:-360}
# Each apt-get run is bounded, so an unreachable mirror fails the matrix in bounded time.
APT_TIMEOUT=${GOTRACED_KERNEL_APT_TIMEOUT:-120}

log() { echo "[fetch-kernels] $*" >&2; }
OUTD=$CACHE/lines
if [[ ${1:-} == --out ]]; then OUTD=$2; shift 2; fi

mkdir -p "$CACHE/kernels" "$CACHE/debs" "$OUTD"
lines=("$@")
((${#lines[@]})) || lines=(6.1 6.12 6.16+ 7.x)
for l in "${lines[@]}"; do rm -f "$OUTD/$l.env" "$OUTD/$l.err"; done
# One fetch at a time per cache (two engineers' matrices share it): apt's lists and the
# download dir are not for two at once.
exec 9>"$CACHE/fetch.lock"
if ! flock -w 300 9; then
  echo "[fetch-kernels] another fetch has held $CACHE/fetch.lock for 5 minutes" >&2
  for l in "${lines[@]}"; do echo "the kernel cache $CACHE is locked by another fetch (fetch.lock held > 300 s)" >"$OUTD/$l.err"; done
  exit 1
fi

private_apt_setup "$APTD" bookworm bookworm-security bookworm-backports trixie-backports

fail_all() { # REASON: every requested line fails with it
  for l in "${lines[@]}"; do echo "$1" >"$OUTD/$l.err"; done
  exit 1
}

# 1. The private lists: refreshed when older than MAX_LIST_AGE_MIN; a failed refresh
#    with older lists present is a warning (offline re-runs work from the cache).
stamp=$APTD/updated.stamp
if [[ ! -e $stamp ]] || [[ -n $(find "$stamp" -mmin +"$MAX_LIST_AGE_MIN" 2>/dev/null) ]]; then
  log "apt-get update (private lists in $APTD)"
  if private_apt_update "$APTD/update.log"; then
    touch "$stamp"
  elif [[ -e $stamp ]]; then
    log "WARNING: apt-get update failed, using the lists of $(date -r "$stamp" '+%F %T'): $(grep -E '^(W|E):' "$APTD/update.log" | head -3 | tr '\n' ' ')"
  else
    fail_all "apt-get update of the private lists ($APTD/sources.list) failed: $(grep -E '^(W|E):' "$APTD/update.log" | head -3 | tr '\n' ' ')"
  fi
fi

# 2. Candidates: every linux-image-*-amd64[-unsigned] with its version and suite.
#    apt-cache madison prints "PKG | VERSION | URI SUITE/main amd64 Packages".
madison=$APTD/madison.txt
mapfile -t names < <(apt-cache "${PRIVATE_APT[@]}" pkgnames linux-image- 2>/dev/null |
  grep -E '^linux-image-[0-9][^ ]*-amd64(-unsigned)?$')
if ((${#names[@]} == 0)); then
  fail_all "no linux-image-*-amd64 package in the private lists ($APTD/lists): see $APTD/update.log"
fi
apt-cache "${PRIVATE_APT[@]}" madison "${names[@]}" 2>/dev/null |
  awk -F' *[|] *' '{ split($3, u, " "); split(u[2], s, "/"); gsub(/^ +| +$/, "", $1); print $1, $2, s[1] }' >"$madison"

line_suites() {
  case $1 in
    6.1) echo "bookworm bookworm-security" ;;
    6.12) echo "bookworm-backports" ;;
    6.16+ | 7.x | 7.0 | 7.1 | 7.2) echo "trixie-backports" ;;
  esac
}
line_regex() {
  case $1 in
    6.1) echo '^linux-image-6\.1\.0-[0-9]+-amd64(-unsigned)?$' ;;
    6.12) echo '^linux-image-6\.12\.[0-9]+\+deb12(\.[0-9]+)?-amd64(-unsigned)?$' ;;
    6.16+) echo '^linux-image-6\.(1[6-9]|[2-9][0-9])\.[0-9]+\+deb13(\.[0-9]+)?-amd64(-unsigned)?$' ;;
    7.x) echo '^linux-image-7\.[0-9]+\.[0-9]+\+deb13(\.[0-9]+)?-amd64(-unsigned)?$' ;;
    7.0 | 7.1 | 7.2) echo "^linux-image-7\\.${1#7.}\\.[0-9]+\\+deb13(\\.[0-9]+)?-amd64(-unsigned)?\$" ;;
  esac
}

# pick LINE: prints "PKG VERSION SUITE" of the newest candidate (on equal versions the
# signed package, the one users boot, before -unsigned).
pick() {
  local line=$1 re suites best="" bver="" bsuite="" pkg ver suite
  re=$(line_regex "$line")
  suites=" $(line_suites "$line") "
  while read -r pkg ver suite; do
    [[ $pkg =~ $re && $suites == *" $suite "* ]] || continue
    if [[ -z $best ]] || dpkg --compare-versions "$ver" gt "$bver" ||
      { [[ $ver == "$bver" && $best == *-unsigned && $pkg != *-unsigned ]]; }; then
      best=$pkg bver=$ver bsuite=$suite
    fi
  done <"$madison"
  [[ -n $best ]] && echo "$best $bver $bsuite"
}

find_vmlinuz() { find "$1" -type f \( -name 'vmlinuz-*' -o -name vmlinuz \) 2>/dev/null | head -1; }

# fetch_line LINE: resolves, downloads and unpacks; writes LINE.env or LINE.err.
fetch_line() {
  local line=$1 pick_out pkg ver suite binpkg dir deb member vmlinuz
  case $line in 6.1 | 6.12 | 6.16+ | 7.x | 7.0 | 7.1 | 7.2) ;; *)
    echo "unknown kernel line '$line' (known: 6.1 6.12 6.16+ 7.x)" >"$OUTD/$line.err"
    return 1 ;;
  esac
  if ! pick_out=$(pick "$line"); then
    echo "no package matching $(line_regex "$line") in $(line_suites "$line") (private lists of $(date -r "$stamp" '+%F %T' 2>/dev/null || echo never))" >"$OUTD/$line.err"
    return 1
  fi
  read -r pkg ver suite <<<"$pick_out"
  # From 6.19 on the image package is a small one whose vmlinuz is in linux-binary-ABI
  # (Depends: ..., linux-binary-ABI (= VERSION), linux-modules-ABI ...).
  binpkg=$(apt-cache "${PRIVATE_APT[@]}" show "$pkg=$ver" 2>/dev/null |
    sed -n 's/^Depends: //p' | head -1 | tr ',' '\n' | grep -oE 'linux-binary-[^ ]+' | head -1)
  local dlpkg=${binpkg:-$pkg}
  dir=$CACHE/kernels/${dlpkg}_$ver
  vmlinuz=$(find_vmlinuz "$dir")
  if [[ -z $vmlinuz ]]; then
    log "$line: downloading $dlpkg=$ver ($suite)"
    rm -rf "$dir" "$dir.tmp" "$CACHE/debs"/*.deb
    local rc=0
    (cd "$CACHE/debs" && timeout "$APT_TIMEOUT" apt-get "${PRIVATE_APT[@]}" -q download "$dlpkg=$ver") >"$CACHE/debs/download.log" 2>&1 || rc=$?
    if ((rc)); then
      echo "apt-get download $dlpkg=$ver ($suite) failed$( ((rc == 124)) && echo " (killed after ${APT_TIMEOUT}s)"): $(grep -E '^(E|W|Err):' "$CACHE/debs/download.log" | head -3 | tr '\n' ' ')" >"$OUTD/$line.err"
      return 1
    fi
    deb=$(ls "$CACHE/debs"/*.deb 2>/dev/null | head -1)
    # Only the kernel image of the package (the modules of a 6.1 image are ~400 MB
    # unpacked): boot/vmlinuz-ABI up to 6.18, usr/lib/modules/ABI/vmlinuz in the
    # linux-binary-ABI packages of 6.19 on.
    member=$(dpkg-deb -c "$deb" 2>/dev/null | awk '{ print $6 }' |
      grep -E '^\./(boot/vmlinuz-[^/]+|usr/lib/modules/[^/]+/vmlinuz)$' | head -1)
    if [[ -z $member ]]; then
      echo "$(basename "$deb") ($dlpkg=$ver, $suite) has no boot/vmlinuz-* nor usr/lib/modules/*/vmlinuz" >"$OUTD/$line.err"
      rm -f "$deb"
      return 1
    fi
    mkdir -p "$dir.tmp"
    if ! dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir.tmp" "$member" 2>"$CACHE/debs/unpack.log"; then
      echo "unpacking $member from $(basename "$deb") ($dlpkg=$ver) failed: $(head -3 "$CACHE/debs/unpack.log" | tr '\n' ' ')" >"$OUTD/$line.err"
      rm -rf "$dir.tmp" "$deb"
      return 1
    fi
    rm -f "$deb"
    mv "$dir.tmp" "$dir"
    vmlinuz=$(find_vmlinuz "$dir")
  fi
  printf 'LINE=%q\nIMAGE=%q\nPKG=%q\nVERSION=%q\nSUITE=%q\nVMLINUZ=%q\n' \
    "$line" "$pkg" "$dlpkg" "$ver" "$suite" "$vmlinuz" >"$OUTD/$line.env"
  log "$line: $dlpkg $ver ($suite): $vmlinuz"
}

status=0
for l in "${lines[@]}"; do fetch_line "$l" || status=1; done
exit $status
