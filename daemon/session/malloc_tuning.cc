#include "daemon/session/malloc_tuning.h"

#include <malloc.h>

namespace gotraced::session {

void TuneMalloc() {
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  mallopt(M_ARENA_MAX, 4);
}

}  // namespace gotraced::session
