#!/usr/bin/env bash
# Builds bench/syscall-hooks (not part of the project's CMake build: a bench for issue 28
# part 2, run in the kernel matrix's guests by run-guests.sh):
#   OUTDIR/syscall-hooks-bench   static (libbpf, libelf, zlib, zstd linked in), so a
#                                guest initramfs needs nothing else for it
# The BPF object is built as bpf/CMakeLists.txt builds the project's (cmake/Bpf.cmake:
# the pinned clang-19, -mcpu=v3, bpftool gen skeleton); it needs no vmlinux.h.
#   bench/syscall-hooks/build.sh [OUTDIR]     (default: build/syscall-hooks)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../../build/syscall-hooks}
mkdir -p "$OUT"
CLANG=/usr/lib/llvm-19/bin/clang-19
[[ -x $CLANG ]] || { echo "build.sh: $CLANG not found (scripts/install-deps.sh)" >&2; exit 1; }
"$CLANG" -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -I/usr/include/x86_64-linux-gnu \
  -Wall -Werror -c "$HERE/syscall_hooks.bpf.c" -o "$OUT/syscall_hooks.bpf.o"
bpftool gen skeleton "$OUT/syscall_hooks.bpf.o" name syscall_hooks >"$OUT/syscall_hooks.skel.h.tmp"
mv "$OUT/syscall_hooks.skel.h.tmp" "$OUT/syscall_hooks.skel.h"
gcc -O2 -Wall -Wextra -Werror -static -I"$OUT" "$HERE/syscall_hooks.c" -o "$OUT/syscall-hooks-bench" \
  -lbpf -lelf -lz -lzstd
echo "$OUT/syscall-hooks-bench"
