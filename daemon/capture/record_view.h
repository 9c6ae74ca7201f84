// RecordView: a checked, typed view of one record from the BPF ring buffer
// (proto/records.h). It does not own the bytes: valid for as long as the buffer it was
// made from (inside a Capture/RingConsumer callback: until the callback returns).
//
//   capture->Poll([&](const RecordView &r) {
//     if (auto *gs = r.gstatus()) { ... gs->gp, gs->oldval, gs->newval ...; r.stack(); }
//   });
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "proto/records.h"

namespace gotraced::capture {

class RecordView {
 public:
  RecordView() = default;
  // Checks that `size` covers the header, the body of header.kind and (when the record
  // says so) the stack tail with its nframes PCs. valid() is false otherwise.
  RecordView(const void *data, size_t size);

  bool valid() const { return valid_; }
  const gt_record_header &header() const { return *reinterpret_cast<const gt_record_header *>(data_); }
  gt_record_kind kind() const { return static_cast<gt_record_kind>(header().kind); }
  uint64_t ts() const { return header().ts_ns; }
  uint32_t tid() const { return header().tid; }
  const uint8_t *data() const { return data_; }
  size_t size() const { return size_; }

  // The typed body, or nullptr when the kind differs (or the view is invalid).
  const gt_gstatus_record *gstatus() const;
  const gt_call_record *call() const;
  const gt_sched_switch_record *sched_switch() const;
  const gt_syscall_record *syscall() const;   // SYS_ENTER/EXIT, KSYS_ENTER/EXIT
  const gt_task_record *task() const;         // TASK_EXIT, EXEC or TASK_NEW
  const gt_hello_record *hello() const;
  const gt_user_record *user() const;         // USER (runtime/trace annotation sites)
  const gt_cpu_sample_record *cpu_sample() const;
  const gt_sys_sample_record *sys_sample() const;  // SYS_SAMPLE (the syscall sampler)
  const gt_sys_switch_record *sys_switch() const;  // SYS_SWITCH (syscalls from sched_switch)
  // The Go context of a GSTATUS, CALL or USER record, else nullptr.
  const gt_go_ctx *go_ctx() const;

  // The stack tail of a GSTATUS/CALL record, or nullptr when it carries none.
  const gt_stack_tail *stack_tail() const;
  // Its PCs, leaf first (raw return addresses, see gt_stack_source); empty when none.
  std::span<const uint64_t> stack() const;

  // One line for humans ("capture-dump"), e.g.
  // "123.456789012 tid=4242 cpu=1 GSTATUS gp=0xc000007c0 goid=18 2->4 wr=7 ...".
  std::string Describe() const;

 private:
  const uint8_t *data_ = nullptr;
  size_t size_ = 0;
  size_t tail_off_ = 0;  // offset of the stack tail, 0 when none
  bool valid_ = false;
};

// Name of a record kind ("GSTATUS", "CALL", ...); "?" for unknown values.
const char *RecordKindName(uint16_t kind);
// Size of the fixed body of a kind (0 for unknown kinds).
size_t RecordBodySize(uint16_t kind);

}  // namespace gotraced::capture
