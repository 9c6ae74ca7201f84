// The one definition of every record that crosses from BPF to user space.
// Included by bpf/*.bpf.c (with vmlinux.h types) and by daemon/ (with <cstdint>).
// Plain fixed-width fields only; every record starts with struct gt_record_header.
#pragma once

#ifdef __BPF__
typedef __u8 gt_u8;
typedef __u16 gt_u16;
typedef __u32 gt_u32;
typedef __u64 gt_u64;
#else
#include <stdint.h>
typedef uint8_t gt_u8;
typedef uint16_t gt_u16;
typedef uint32_t gt_u32;
typedef uint64_t gt_u64;
#endif

// Version of this layout; the daemon refuses a BPF object built with another.
#define GT_PROTO_VERSION 1

enum gt_record_kind {
  GT_REC_NONE = 0,
  GT_REC_HELLO = 1,  // build-path self test: one record per exec of a traced pid
};

struct gt_record_header {
  gt_u64 ts_ns;  // bpf_ktime_get_ns (CLOCK_MONOTONIC)
  gt_u32 tgid;   // process id
  gt_u32 tid;    // thread id (the M's procid)
  gt_u16 kind;   // enum gt_record_kind
  gt_u16 cpu;
  gt_u32 pad;
};

struct gt_hello_record {
  struct gt_record_header h;
  gt_u64 value;
};
