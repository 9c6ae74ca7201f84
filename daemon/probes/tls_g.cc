// TlsGOffset: see tls_g.h.
#include "daemon/probes/tls_g.h"

#include <algorithm>
#include <cstring>

namespace gotraced::probes {

namespace {

// The g slot's offset as the first TLS access in [entry, end) spells it. Two forms:
//   * local exec (non-PIE): `MOV r64, %fs:disp32` / `MOV %fs:disp32, r64` /
//     `MOVQ $imm32, %fs:disp32`: 64 (FS) REX.W 8b|89|c7 ModRM(mod 00, rm 100) SIB 25
//     (no base, no index) disp32;
//   * initial exec relaxed by the linker (PIE, e.g. gogo: `MOVQ $-8, CX; MOVQ DX,
//     %fs:(CX)`): REX.W(+B) c7 ModRM(11 000 reg) imm32, then an FS-prefixed instruction.
std::optional<int32_t> FsDisp(const gobin::GoBinary &bin, const gobin::FunctionSym &f) {
  const uint64_t len = std::min<uint64_t>(f.end > f.entry ? f.end - f.entry : 0, 512);
  auto code = bin.elf().ReadVirtual(f.entry, len);
  if (!code) return std::nullopt;
  const auto &b = *code;
  for (size_t i = 0; i + 9 <= b.size(); ++i) {
    int32_t v;
    if (b[i] == 0x64 && (b[i + 1] & 0xf8) == 0x48 && (b[i + 2] == 0x8b || b[i + 2] == 0x89 || b[i + 2] == 0xc7) &&
        (b[i + 3] & 0xc7) == 0x04 && b[i + 4] == 0x25) {
      std::memcpy(&v, &b[i + 5], 4);
      return v;
    }
    if ((b[i] == 0x48 || b[i] == 0x49) && b[i + 1] == 0xc7 && (b[i + 2] & 0xf8) == 0xc0 && b[i + 7] == 0x64) {
      std::memcpy(&v, &b[i + 3], 4);
      return v;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<int32_t> TlsGOffset(const gobin::GoBinary &bin) {
  // gogo (asm_amd64.s: get_tls(CX); MOVQ DX, g(CX)) is in every program since 1.17;
  // mstart0 and rt0_go load or store g the same way.
  for (const char *name : {"gogo", "runtime.gogo", "runtime.mstart0", "runtime.rt0_go"}) {
    const gobin::FunctionSym *f = bin.FindFunction(name);
    if (f == nullptr) continue;
    if (auto d = FsDisp(bin, *f); d && *d < 0) return d;
  }
  return std::nullopt;
}

}  // namespace gotraced::probes
