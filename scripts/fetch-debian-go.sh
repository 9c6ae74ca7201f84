#!/usr/bin/env bash
# Fetches the Debian trixie Go toolchains (and one real program built with one of them)
# that bookworm has no package for, WITHOUT installing them: the packages are downloaded
# (apt-get download) through a private apt configuration (scripts/lib/private-apt.sh, shared with
# tests/kernels/fetch-kernels.sh: the host's apt sources and state are never touched) and unpacked with dpkg -x into a
# directory per package version. Pinned: each entry below is one exact Debian version;
# changing a pin fetches the new one beside the old. Idempotent: when every pinned version
# is unpacked it returns without touching the network.
#
#   scripts/fetch-debian-go.sh      fetch and unpack what is missing (exit 1 when a pin fails)
#
# The cache is shared by every build directory and worktree of the machine (the suites
# find it through tests/lib/suite.sh's debian_go_root, not through a build dir):
#   $GOTRACED_GO_CACHE (default /var/cache/gotraced-go)/
#     go1.24 -> pkgs/golang-1.24_1.24.4-1/usr/lib/go-1.24       (a GOROOT: bin/go, src/...)
#     go1.25 -> pkgs/golang-1.25_1.25.12-1~bpo13+1/usr/lib/go-1.25
#     caddy  -> pkgs/caddy_2.6.2-12+deb13u1/usr/bin/caddy       (built with go1.24.4)
# The toolchains are static binaries that run on bookworm: GOTOOLCHAIN=local GOROOT is
# found from the binary's own path. One fetch at a time per cache (flock).
set -uo pipefail
CACHE=${GOTRACED_GO_CACHE:-/var/cache/gotraced-go}
APTD=$CACHE/apt
APT_TIMEOUT=${GOTRACED_GO_APT_TIMEOUT:-300}
# shellcheck source=lib/private-apt.sh
source "$(dirname "$0")/lib/private-apt.sh"

# LINK DIR_NAME PATH_IN_DIR PACKAGE=VERSION...  (the pins: one line per link)
PINS=(
  "go1.24 golang-1.24_1.24.4-1 usr/lib/go-1.24 golang-1.24-go=1.24.4-1 golang-1.24-src=1.24.4-1"
  "go1.25 golang-1.25_1.25.12-1~bpo13+1 usr/lib/go-1.25 golang-1.25-go=1.25.12-1~bpo13+1 golang-1.25-src=1.25.12-1~bpo13+1"
  "caddy caddy_2.6.2-12+deb13u1 usr/bin/caddy caddy=2.6.2-12+deb13u1"
)

log() { echo "[fetch-debian-go] $*" >&2; }

# present LINK DIR PATH: the link points at DIR/PATH and that exists.
present() { [[ $(readlink "$CACHE/$1" 2>/dev/null) == "pkgs/$2/$3" && -e $CACHE/pkgs/$2/$3 ]]; }

all_present() {
  local l link dir path
  for l in "${PINS[@]}"; do
    read -r link dir path _ <<<"$l"
    present "$link" "$dir" "$path" || return 1
  done
}
all_present && exit 0

mkdir -p "$CACHE/pkgs" "$CACHE/debs" || exit 1
exec 9>"$CACHE/fetch.lock"
flock -w 600 9 || { log "another fetch has held $CACHE/fetch.lock for 10 minutes"; exit 1; }
all_present && exit 0 # the fetch we waited for did it

private_apt_setup "$APTD" trixie trixie-security trixie-backports || exit 1

# The lists are fetched only when a pin is missing, i.e. once per pin change.
log "apt-get update (private lists in $APTD)"
if ! private_apt_update "$APTD/update.log"; then
  log "apt-get update of $APTD/sources.list failed: $(grep -E '^(W|E):' "$APTD/update.log" | head -3 | tr '\n' ' ')"
  exit 1
fi

# fetch_pin LINK DIR PATH PKG=VER...: downloads the packages, unpacks them into
# pkgs/DIR.tmp, renames it to pkgs/DIR and points LINK at DIR/PATH.
fetch_pin() {
  local link=$1 dir=$2 path=$3 deb
  shift 3
  present "$link" "$dir" "$path" && return 0
  log "$link: downloading $*"
  rm -rf "$CACHE/debs"/*.deb "$CACHE/pkgs/$dir.tmp"
  if ! (cd "$CACHE/debs" && timeout "$APT_TIMEOUT" apt-get "${PRIVATE_APT[@]}" -q download "$@") >"$CACHE/debs/download.log" 2>&1; then
    log "$link: apt-get download $* failed: $(grep -E '^(E|W|Err):' "$CACHE/debs/download.log" | head -3 | tr '\n' ' ')"
    return 1
  fi
  mkdir -p "$CACHE/pkgs/$dir.tmp"
  for deb in "$CACHE/debs"/*.deb; do
    dpkg -x "$deb" "$CACHE/pkgs/$dir.tmp" || { log "$link: dpkg -x $deb failed"; return 1; }
  done
  rm -f "$CACHE/debs"/*.deb
  [[ -e $CACHE/pkgs/$dir.tmp/$path ]] || { log "$link: $path is not in $*"; return 1; }
  rm -rf "$CACHE/pkgs/$dir"
  mv "$CACHE/pkgs/$dir.tmp" "$CACHE/pkgs/$dir"
  ln -sfn "pkgs/$dir/$path" "$CACHE/$link.tmp" && mv -T "$CACHE/$link.tmp" "$CACHE/$link"
  log "$link: $CACHE/$link -> pkgs/$dir/$path"
}

status=0
for l in "${PINS[@]}"; do
  # shellcheck disable=SC2086 # the pin's words are its arguments
  fetch_pin $l || status=1
done
exit $status
