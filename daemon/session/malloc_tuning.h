// TuneMalloc: glibc malloc settings for a process that records (serve and the recorder of
// `gotraced --pid` / launch alike), called once at its start.
//
// Trace generations, ring-drain chunks and flight windows are large, short-lived blocks.
// glibc's dynamic mmap threshold moves such blocks onto the heap after the first one is
// freed, where fragmentation keeps the freed memory resident: a recording's RSS then
// swung by 10-20 MB with what was freed lately, not with what it holds (the go1.19 soak:
// 17-29 MB free in the heap between trims, RSS 179-190 MB at 10 s steps; issue 30). A
// fixed threshold keeps them in mmap, given back at free; few arenas bound the per-thread
// heaps.
#pragma once

namespace gotraced::session {

void TuneMalloc();

}  // namespace gotraced::session
