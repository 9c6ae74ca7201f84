#!/usr/bin/env bash
# Builds gotraced's OCI image from Debian packages only: a bookworm root made by
# mmdebstrap with the .deb that `cpack -G DEB` makes of this build (packaging/CPackConfig.cmake)
# and its library dependencies, imported into podman's store.
#   bash packaging/image/build-image.sh BUILD_DIR [TAG]
# Prints the image reference (default localhost/gotraced:<16 hex of the .deb's content hash>).
# The root's tarball is cached in BUILD_DIR/image/, keyed by that hash: an unchanged .deb
# costs no new mmdebstrap (~4 min here, mostly downloads) nor import.
# To publish: podman push <ref> REGISTRY/gotraced:VERSION (packaging/kubernetes uses that name).
set -euo pipefail
B=$(realpath "${1:?usage: build-image.sh BUILD_DIR [TAG]}")
log() { printf '[build-image] %s\n' "$*" >&2; }
for t in cpack mmdebstrap podman dpkg-deb; do
  command -v "$t" >/dev/null || { echo "build-image: $t not installed (scripts/install-deps.sh)" >&2; exit 1; }
done
# The .deb of this build (cpack installs what is built: CMAKE_SKIP_INSTALL_ALL_DEPENDENCY).
cmake --build "$B" --target gotraced >"$B/cpack-image.log" 2>&1 || { tail -20 "$B/cpack-image.log" >&2; exit 1; }
(cd "$B" && cpack -G DEB >>"$B/cpack-image.log" 2>&1) || { tail -20 "$B/cpack-image.log" >&2; exit 1; }
DEB=$(ls -t "$B"/gotraced_*_amd64.deb | head -1)
# Keyed by what the .deb holds (its files' contents and its control fields), not its
# bytes: cpack stamps every build's .deb with new times.
HASH=$({ dpkg-deb -f "$DEB"; dpkg-deb --fsys-tarfile "$DEB" | tar -xO; } | sha256sum | cut -c1-16)
TAG=${2:-localhost/gotraced:$HASH}
mkdir -p "$B/image"
ROOTFS=$B/image/gotraced-rootfs-$HASH.tar
if [[ ! -s $ROOTFS ]]; then
  log "mmdebstrap bookworm + $(basename "$DEB") -> $ROOTFS"
  rm -f "$B"/image/gotraced-rootfs-*.tar  # one cached root is enough
  # essential: dpkg and the base files, no apt; the .deb's Depends come with it (apt
  # installs a local .deb given by path). Docs, man pages and locales are left out.
  # The file-mirror-automount hook makes the .deb's path visible to apt inside the root.
  mmdebstrap --variant=essential --format=tar --include="$DEB" \
    --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/gotraced/*' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
    --customize-hook='mkdir -p "$1/var/lib/gotraced/spool" "$1/run/gotraced"' \
    bookworm "$ROOTFS.partial" >"$B/image/mmdebstrap.log" 2>&1 ||
    { tail -30 "$B/image/mmdebstrap.log" >&2; rm -rf "$ROOTFS.partial"; exit 1; }
  mv "$ROOTFS.partial" "$ROOTFS"
fi
if ! podman image exists "$TAG"; then
  log "podman import -> $TAG"
  podman import \
    --change 'ENTRYPOINT ["/usr/bin/gotraced"]' \
    --change 'CMD ["serve", "--config", "/etc/gotraced/gotraced.toml"]' \
    --change 'LABEL org.opencontainers.image.title=gotraced' \
    --change "LABEL org.opencontainers.image.description=Go execution traces from outside the process, with eBPF" \
    "$ROOTFS" "$TAG" >"$B/image/import.log" 2>&1 || { cat "$B/image/import.log" >&2; exit 1; }
fi
echo "$TAG"
