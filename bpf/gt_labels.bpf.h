// The identity of a pprof label set (proto/records.h struct gt_labels_id): with the
// g.labels pointer, the two words at it and two words at daemon-chosen offsets from the
// first of them, copied as they are. The daemon reads the set later and checks these
// words against what it reads then (daemon/procmem/label_identity.h). Stands on its own.
#pragma once

#include "bpf/gt_maps.bpf.h"
#include "bpf/gt_read.bpf.h"

// Two reads of the target (three on a map version: cfg.labels_id_w1_at_w3): cfg.labels_id_head
// bytes at ptr, and the span from the first offset to the end of the second word at w[0]
// (cfg.labels_id_off: at most 56 bytes). When
// the span cannot be read (it may end past a small object, on a page nothing has touched,
// which the helper cannot fault in), the first word alone. A global function, verified
// once; the words are left in s->lwin[0..3] (0 where a read failed).
__noinline int gt_labels_id(struct scratch *s, __u64 ptr) {
  if (!s) return 0;
  s->lwin[0] = s->lwin[1] = s->lwin[2] = s->lwin[3] = 0;
  if (!ptr) return 0;
  long err = cfg.labels_id_head == 16 ? bpf_probe_read_user(s->lwin, 16, (const void *)ptr)
                                      : bpf_probe_read_user(s->lwin, 8, (const void *)ptr);
  if (err != 0) {
    count_fault();
    s->lwin[0] = s->lwin[1] = 0;
    return 0;
  }
  __u64 base = s->lwin[0];
  __s32 lo = cfg.labels_id_off[0], hi = cfg.labels_id_off[1];
  if (!base || lo < 0 || hi <= lo || hi - lo > 48) return 0;
  __u64 n = (__u64)(hi - lo) + 8;
  asm volatile("%[n] &= 63" : [n] "+r"(n));
  if (n < 16) return 0;
  if (bpf_probe_read_user(&s->lwin[4], n, (const void *)(base + (__u64)lo)) != 0) {
    if (bpf_probe_read_user(&s->lwin[2], 8, (const void *)(base + (__u64)lo)) != 0) {
      count_fault();
      s->lwin[2] = 0;
    }
    return 0;
  }
  __u64 j = (__u64)(hi - lo) / 8;  // <= 6: lwin[4 + j] is inside the 8-word buffer
  asm volatile("%[j] &= 7" : [j] "+r"(j));
  s->lwin[2] = s->lwin[4];
  s->lwin[3] = s->lwin[4 + j];
  // A third read on map versions: the first word of the first bucket (the set's third
  // object: its own memory may be reused while the hmap's is not).
  if (cfg.labels_id_w1_at_w3 && s->lwin[3] && bpf_probe_read_user(&s->lwin[1], 8, (const void *)s->lwin[3]) != 0) {
    count_fault();
    s->lwin[1] = 0;
  }
  return 0;
}
