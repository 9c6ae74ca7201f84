// Where a Go thread keeps its g in thread-local storage, for the CPU sampler
// (bpf/gt_cpu.bpf.h cpu_ext_start reads g at fsbase + this offset, because R14 is
// anything while the thread runs C or VDSO code).
#pragma once

#include <cstdint>
#include <optional>

#include "daemon/gobin/go_binary.h"

namespace gotraced::probes {

// The FS-relative offset of the runtime's g slot (runtime.tlsg), as the runtime's own
// code addresses it: on linux/amd64 every `get_tls(CX); MOVQ g(CX), ...` in the runtime's
// assembly (asm_amd64.s gogo, mstart0; go_tls.h) is a MOV with an %fs:disp32 operand
// whose displacement the linker fills in (or, in a PIE, a MOV of that offset into the
// register the access uses): -8 with Go's internal linker, whatever the TLS layout
// gives with an external linker. Read from the code of gogo / mstart0 /
// rt0_go, so stripped binaries work too. nullopt when none of them has such a MOV (the
// sampler then does without).
std::optional<int32_t> TlsGOffset(const gobin::GoBinary &bin);

}  // namespace gotraced::probes
