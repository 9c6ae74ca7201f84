#!/usr/bin/env bash
# Installs everything gotraced needs to build, test and record on a fresh Debian
# bookworm machine, as root. Idempotent: when everything is present it returns in
# well under a second without touching the network.
set -euo pipefail

STAMP_DIR=/var/lib/gotraced-setup
STAMP="$STAMP_DIR/deps-v5"
GO127=go1.27.3

log() { printf '[install-deps] %s\n' "$*"; }

if [[ $EUID -ne 0 ]]; then
  echo "install-deps: must run as root (apt-get, mounting tracefs). Try: sudo make $*" >&2
  exit 1
fi

PKGS=(
  build-essential cmake ninja-build pkg-config git curl ca-certificates
  clang clang-format llvm lld libclang-rt-14-dev
  clang-19  # the one BPF compiler (cmake/Bpf.cmake pins it): BPF acceptance depends on codegen
  busybox-static cpio  # the kernel matrix's guest initramfs (tests/kernels/)
  libbpf-dev bpftool libelf-dev libdw-dev zlib1g-dev libzstd-dev
  libcli11-dev libspdlog-dev libfmt-dev libgtest-dev libgmock-dev libbenchmark-dev
  libcapstone-dev libtomlplusplus-dev libcpp-httplib-dev libsystemd-dev
  golang-1.19-go
  dpkg-dev file systemd
  ccache  # CMakeLists.txt uses it when present: build dirs of one tree share compiled objects
  nlohmann-json3-dev  # every JSON gotraced writes or reads
  libcurl4-openssl-dev libssl-dev  # S3 upload (daemon/upload): libcurl's SigV4, libcrypto's SHA-256
  # The Kubernetes suite (tests/suites/75-kubernetes.sh): the image from Debian packages
  # (mmdebstrap), run with podman 4.3 on runc (crun refuses this machine's hybrid
  # cgroups), promtool (Debian's prometheus package) to check /metrics.
  podman runc mmdebstrap prometheus
)
# qemu-system-x86 from backports: bookworm's QEMU 7.2 double-faults 6.12 guests under TCG.
BACKPORT_PKGS=(golang-1.21-go golang-1.22-go golang-1.23-go qemu-system-x86)

missing=()
for p in "${PKGS[@]}" "${BACKPORT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  log "installing: ${missing[*]}"
  if ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
    log "adding bookworm-backports"
    cat > /etc/apt/sources.list.d/gotraced-backports.sources <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq || apt-get update
  apt-get install -y -qq --no-install-recommends "${PKGS[@]}" >/dev/null
  apt-get install -y -qq --no-install-recommends -t bookworm-backports "${BACKPORT_PKGS[@]}" >/dev/null
  # Only promtool is wanted of the prometheus package: a server it started is stopped.
  if [[ " ${missing[*]} " == *" prometheus "* && -d /run/systemd/system ]]; then
    systemctl disable --now prometheus.service >/dev/null 2>&1 || true
  fi
fi

# tracefs: uprobes and tracepoints are attached through it.
if [[ ! -d /sys/kernel/tracing/events ]]; then
  log "mounting tracefs at /sys/kernel/tracing"
  mount -t tracefs tracefs /sys/kernel/tracing
fi
if [[ ! -d /sys/kernel/debug/tracing ]] && ! mountpoint -q /sys/kernel/debug; then
  mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null || true
fi

# Go 1.27 through the module proxy (GOTOOLCHAIN download); the machine's Go is 1.26.
if ! command -v go >/dev/null; then
  echo "install-deps: no 'go' on PATH; the machine's Go toolchain (1.26) is required" >&2
  exit 1
fi
GO127_ROOT=$(GOTOOLCHAIN=$GO127 go env GOROOT 2>/dev/null || true)
if [[ -z "$GO127_ROOT" || ! -x "$GO127_ROOT/bin/go" ]]; then
  log "fetching $GO127 through the module proxy"
  GOTOOLCHAIN=$GO127 go version >/dev/null
fi

# Go 1.24 (trixie) and 1.25 (trixie-backports), and caddy built with Go 1.24 for the
# benches: Debian's packages unpacked into /var/cache/gotraced-go, never installed
# (bookworm has neither; tests/lib/suite.sh's go_for finds them there).
if ! bash "$(dirname "${BASH_SOURCE[0]}")/fetch-debian-go.sh"; then
  echo "install-deps: fetching Go 1.24/1.25 from Debian trixie failed (scripts/fetch-debian-go.sh says why above)" >&2
  exit 1
fi

mkdir -p "$STAMP_DIR"
touch "$STAMP"
log "ok: BPF compiler $(clang-19 --version | head -1); $(bpftool version | head -1); $(go version)"
