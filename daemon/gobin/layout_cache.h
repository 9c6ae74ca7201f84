// The runtime's struct layout read from a binary's DWARF, cached on disk by the
// toolchain that built it. LayoutFromDwarf is most of a launch's binary analysis (libdw
// inflates the compressed .debug_* sections: 15 ms for a hello world, 30 ms for
// strings.test, of ~50), and what it reads depends on the runtime package alone: every
// binary built by one toolchain (version, GOOS/GOARCH, GOEXPERIMENT, -race/-asan/-msan,
// all in the binary's build info) has the same g/m/p layout. `go test` links a new test
// binary for every package, so a cache keyed by the binary would never hit; this one
// hits from the second binary of a toolchain on.
//
// The key also holds this gotraced executable's identity (device, inode, size, mtime of
// /proc/self/exe), so a rebuilt gotraced, whose RuntimeLayout may have changed, never
// reads another build's entries. Only a binary that has DWARF uses the cache (a stripped
// one keeps the table fallback, as without it).
//
// Where: $GOTRACED_CACHE_DIR, else $XDG_CACHE_HOME/gotraced, else $HOME/.cache/gotraced;
// GOTRACED_CACHE_DIR=off turns it off. Entries are written to a temporary file and
// renamed (concurrent launches, `go test -p N -exec gotraced`); an unreadable or foreign
// entry is ignored and rewritten.
#pragma once

#include <optional>
#include <string>

#include "daemon/gobin/runtime_layout.h"

namespace gotraced::gobin {

class ElfFile;

// The cache key of the binary's DWARF layout; "" when it is not cacheable (no DWARF, no
// build info, no cache directory).
std::string DwarfLayoutCacheKey(const ElfFile &elf);
std::optional<RuntimeLayout> LoadCachedDwarfLayout(const std::string &key);
void StoreCachedDwarfLayout(const std::string &key, const RuntimeLayout &layout);

}  // namespace gotraced::gobin
