// The register numbers BPF names (proto/records.h GT_REG_*) of capstone's x86 registers,
// for sites inside a function body whose operands are in registers (sweep_sites.cc,
// stw_steal_site.cc).
#pragma once

#include <capstone/capstone.h>

#include <cstdint>

#include "proto/records.h"

namespace gotraced::probes {

// GT_REG_* of a general-purpose register in 64, 32 or 16 bits (0: not one BPF can name).
inline uint32_t GtReg(unsigned r) {
  switch (r) {
    case X86_REG_RAX: case X86_REG_EAX: case X86_REG_AX: return GT_REG_AX;
    case X86_REG_RBX: case X86_REG_EBX: case X86_REG_BX: return GT_REG_BX;
    case X86_REG_RCX: case X86_REG_ECX: case X86_REG_CX: return GT_REG_CX;
    case X86_REG_RDX: case X86_REG_EDX: case X86_REG_DX: return GT_REG_DX;
    case X86_REG_RSI: case X86_REG_ESI: case X86_REG_SI: return GT_REG_SI;
    case X86_REG_RDI: case X86_REG_EDI: case X86_REG_DI: return GT_REG_DI;
    case X86_REG_R8: case X86_REG_R8D: case X86_REG_R8W: return GT_REG_R8;
    case X86_REG_R9: case X86_REG_R9D: case X86_REG_R9W: return GT_REG_R9;
    case X86_REG_R10: case X86_REG_R10D: case X86_REG_R10W: return GT_REG_R10;
    case X86_REG_R11: case X86_REG_R11D: case X86_REG_R11W: return GT_REG_R11;
    case X86_REG_R12: case X86_REG_R12D: case X86_REG_R12W: return GT_REG_R12;
    case X86_REG_R13: case X86_REG_R13D: case X86_REG_R13W: return GT_REG_R13;
    case X86_REG_R15: case X86_REG_R15D: case X86_REG_R15W: return GT_REG_R15;
    default: return GT_REG_NONE;
  }
}

// The same, the low byte registers too (SETcc's destination).
inline uint32_t GtRegAnyWidth(unsigned r) {
  switch (r) {
    case X86_REG_AL: return GT_REG_AX;
    case X86_REG_BL: return GT_REG_BX;
    case X86_REG_CL: return GT_REG_CX;
    case X86_REG_DL: return GT_REG_DX;
    case X86_REG_SIL: return GT_REG_SI;
    case X86_REG_DIL: return GT_REG_DI;
    case X86_REG_R8B: return GT_REG_R8;
    case X86_REG_R9B: return GT_REG_R9;
    case X86_REG_R10B: return GT_REG_R10;
    case X86_REG_R11B: return GT_REG_R11;
    case X86_REG_R12B: return GT_REG_R12;
    case X86_REG_R13B: return GT_REG_R13;
    case X86_REG_R15B: return GT_REG_R15;
    default: return GtReg(r);
  }
}

}  // namespace gotraced::probes
