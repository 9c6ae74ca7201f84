# A private apt configuration for fetching Debian packages WITHOUT installing them, shared by
# scripts/fetch-debian-go.sh (trixie's Go toolchains) and tests/kernels/fetch-kernels.sh
# (Debian's kernels): its own sources list, lists and package cache under one directory,
# so the host's apt sources, pins and state are never read or written (apt-cache reads the
# host's dpkg status, read only: it needs one, and update/download never write it).
#
#   source scripts/lib/private-apt.sh
#   private_apt_setup DIR SUITE...   # DIR/sources.list for the suites (bookworm,
#                                    # bookworm-security, trixie-backports...); sets PRIVATE_APT,
#                                    # the -o options every apt-get/apt-cache call takes
#   private_apt_update LOG           # apt-get update into DIR/lists, bounded by APT_TIMEOUT;
#                                    # status 1 when apt says an index failed (LOG says which)
#
# Mirrors: GOTRACED_DEBIAN_MIRROR, GOTRACED_DEBIAN_SECURITY (the -security suites).
# shellcheck shell=bash

private_apt_setup() {
  local dir=$1 suite keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  local mirror=${GOTRACED_DEBIAN_MIRROR:-http://deb.debian.org/debian}
  local security=${GOTRACED_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}
  shift
  mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/sources.list.d" "$dir/preferences.d" || return 1
  : >"$dir/sources.list"
  for suite in "$@"; do
    if [[ $suite == *-security ]]; then
      echo "deb [signed-by=$keyring] $security $suite main" >>"$dir/sources.list"
    else
      echo "deb [signed-by=$keyring] $mirror $suite main" >>"$dir/sources.list"
    fi
  done
  # SourceParts and PreferencesParts point at empty dirs of our own, so the host's
  # sources.list.d and pins do not leak in.
  PRIVATE_APT=(
    -o "Dir::Etc::SourceList=$dir/sources.list"
    -o "Dir::Etc::SourceParts=$dir/sources.list.d"
    -o "Dir::Etc::PreferencesParts=$dir/preferences.d"
    -o "Dir::State::Lists=$dir/lists"
    -o "Dir::Cache=$dir/cache"
    -o "Dir::Cache::pkgcache=pkgcache.bin"       # kept (docker images turn it off: each
    -o "Dir::Cache::srcpkgcache=srcpkgcache.bin" # apt-cache call then re-reads all lists)
    -o "APT::Architecture=amd64"
    -o "Acquire::Languages=none"
    -o "Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false" # appstream metadata: unused
    -o "APT::Sandbox::User=root" # downloads land in our cache dirs, which _apt cannot write
  )
}

private_apt_update() {
  timeout "${APT_TIMEOUT:-300}" apt-get "${PRIVATE_APT[@]}" -q update >"$1" 2>&1 &&
    ! grep -qE '^(W|E): (Failed|Some index files failed)' "$1"
}
