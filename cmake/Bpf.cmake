# BPF build path: vmlinux.h from the running kernel's BTF, clang -target bpf,
# bpftool gen skeleton. gotraced_bpf_skeleton(NAME SRC) produces NAME.skel.h.
# One BPF compiler, pinned: whether the verifier accepts a program depends on clang's
# code generation (register allocation, spills, how a switch of ctx loads is lowered),
# so the BPF objects are built by exactly this clang and by no other one found on PATH.
# scripts/install-deps.sh installs it (Debian bookworm's clang-19).
set(GOTRACED_BPF_CLANG_VERSION 19)
find_program(CLANG_BPF NAMES clang-${GOTRACED_BPF_CLANG_VERSION}
             PATHS /usr/lib/llvm-${GOTRACED_BPF_CLANG_VERSION}/bin NO_DEFAULT_PATH)
if(NOT CLANG_BPF)
  message(FATAL_ERROR "BPF compiler clang-${GOTRACED_BPF_CLANG_VERSION} not found: run `make deps` "
                      "(scripts/install-deps.sh installs Debian's clang-${GOTRACED_BPF_CLANG_VERSION})")
endif()
execute_process(COMMAND ${CLANG_BPF} --version OUTPUT_VARIABLE _gt_clang_v OUTPUT_STRIP_TRAILING_WHITESPACE)
string(REGEX MATCH "^[^\n]*" _gt_clang_v "${_gt_clang_v}")
message(STATUS "BPF compiler: ${CLANG_BPF} (${_gt_clang_v})")
find_program(BPFTOOL NAMES bpftool PATHS /usr/sbin /sbin REQUIRED)
set(GOTRACED_VMLINUX_BTF /sys/kernel/btf/vmlinux CACHE FILEPATH "kernel BTF used for vmlinux.h")
set(BPF_GEN_DIR ${CMAKE_BINARY_DIR}/bpf-gen)
file(MAKE_DIRECTORY ${BPF_GEN_DIR})

if(NOT EXISTS ${GOTRACED_VMLINUX_BTF})
  message(FATAL_ERROR "No kernel BTF at ${GOTRACED_VMLINUX_BTF}: gotraced needs a kernel built with CONFIG_DEBUG_INFO_BTF=y")
endif()

# Must be called in the directory whose targets use the skeletons (custom-command
# outputs are only visible to targets of the same directory).
macro(gotraced_vmlinux_h)
  add_custom_command(OUTPUT ${BPF_GEN_DIR}/vmlinux.h
    COMMAND ${BPFTOOL} btf dump file ${GOTRACED_VMLINUX_BTF} format c > ${BPF_GEN_DIR}/vmlinux.h.tmp
    COMMAND ${CMAKE_COMMAND} -E rename ${BPF_GEN_DIR}/vmlinux.h.tmp ${BPF_GEN_DIR}/vmlinux.h
    COMMENT "vmlinux.h from ${GOTRACED_VMLINUX_BTF}")
endmacro()

function(gotraced_bpf_skeleton name src)
  set(obj ${BPF_GEN_DIR}/${name}.bpf.o)
  set(skel ${BPF_GEN_DIR}/${name}.skel.h)
  add_custom_command(OUTPUT ${obj}
    COMMAND ${CLANG_BPF} -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -Wall -Werror
            -I${BPF_GEN_DIR} -I${CMAKE_SOURCE_DIR} -c ${src} -o ${obj}
    DEPENDS ${src} ${BPF_GEN_DIR}/vmlinux.h ${ARGN}
    IMPLICIT_DEPENDS C ${src}
    COMMENT "BPF ${name}")
  add_custom_command(OUTPUT ${skel}
    COMMAND ${BPFTOOL} gen skeleton ${obj} name ${name} > ${skel}.tmp
    COMMAND ${CMAKE_COMMAND} -E rename ${skel}.tmp ${skel}
    DEPENDS ${obj}
    COMMENT "skeleton ${name}")
  add_custom_target(${name}_skel DEPENDS ${skel})
endfunction()
