// Loads every program of a BPF object into the kernel ON ITS OWN, so the verifier's
// verdict and figures belong to that one program: the object is opened afresh for each
// program with only that program autoloaded (the maps are created each time, as in a
// recording), its config filled by the caller, its log at BPF_LOG_STATS. Programs are
// found by iterating the object (bpf_object__for_each_program), never by name, so a
// renamed or split program is checked without a change here.
#pragma once

#include <bpf/libbpf.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "daemon/capture/verifier_stats.h"

namespace gotraced::bpfcheck {

// A freshly opened, not yet loaded object (a skeleton behind it); closing it frees all.
class OpenedObject {
 public:
  virtual ~OpenedObject() = default;
  virtual bpf_object *obj() = 0;
};

// Opens the object and fills its .rodata as a recording would; nullptr with *err.
using OpenObjectFn = std::function<std::unique_ptr<OpenedObject>(std::string *err)>;

struct ProgramCheck {
  std::string object;   // "gotrace"
  std::string name;     // bpf_program__name
  std::string section;  // "uprobe", "tp_btf/sched_switch" ...
  bool loaded = false;
  int err = 0;          // errno of a refusal
  std::string error;    // what refused it, in words (libbpf's first complaint when the
                        // kernel never saw the program: a map, BTF, an attach target)
  capture::VerifierStats stats;
  std::vector<std::string> subprog_names;  // from the kernel (BTF), when it says
  // The deepest call chain's stack (prog_stack.h) and whether it follows the real call
  // graph (false: every subprog's frame summed, an upper bound).
  uint32_t combined_stack = 0;
  bool combined_from_call_graph = false;
  std::vector<uint32_t> deepest_chain;  // subprog indices, entry first
  std::vector<std::string> log_tail;    // the verifier's last lines (refusals)

  bool IsUprobe() const { return section == "uprobe" || section.starts_with("uprobe/"); }
};

// Checks each program of the object `open` gives. `object` names it in the results.
// When `first_refusal_log` is set, the first refused program is loaded once more at
// BPF_LOG_LEVEL1 to quote the instructions before the refusal (not for a refusal at
// the instruction limit, whose last instructions say nothing and whose log is huge).
std::vector<ProgramCheck> CheckObjectPrograms(const std::string &object, const OpenObjectFn &open,
                                              bool first_refusal_log = true);

// For skeletons: Skel *open(), void destroy(Skel *), void fill(Skel *).
template <class Skel>
OpenObjectFn SkeletonOpener(Skel *(*open)(), void (*destroy)(Skel *), std::function<void(Skel *)> fill = {}) {
  struct Opened : OpenedObject {
    Skel *s;
    void (*destroy)(Skel *);
    Opened(Skel *skel, void (*d)(Skel *)) : s(skel), destroy(d) {}
    ~Opened() override { destroy(s); }
    bpf_object *obj() override { return s->obj; }
  };
  return [=](std::string *err) -> std::unique_ptr<OpenedObject> {
    Skel *s = open();
    if (!s) {
      *err = std::string("opening the BPF object failed: ") + std::strerror(errno);
      return nullptr;
    }
    if (fill) fill(s);
    return std::make_unique<Opened>(s, destroy);
  };
}

}  // namespace gotraced::bpfcheck
