// The pending state of a spooled trace, changed in one place. A file in serve's spool is
// pending upload while its manifest (manifest.h) is beside it; every change of a (file,
// manifest) pair happens under SpoolLock(dir), which the spool (service/spool.h) and the
// uploader (uploader.h) share:
//   the spool's save     writes the manifest, then renames the trace into place: a file
//                        meant for the store is never in the spool without its manifest;
//   the spool's eviction removes file and manifest together, and "pending" is whether the
//                        manifest was there (the loss to count);
//   the uploader         removes both once the store confirmed the object, rewrites a
//                        manifest only while its file is there, and drops a manifest only
//                        if its file is gone.
// Without one lock, the uploader could drop the manifest of a file the eviction had just
// removed, before the eviction looked for it: a pending file lost uncounted (suite 62's
// "spool-full" flake).
#pragma once

#include <mutex>
#include <string>

#include "daemon/upload/manifest.h"

namespace gotraced::upload {

// One mutex per spool directory, for the life of the process.
std::mutex &SpoolLock(const std::string &dir);

// Writes e's manifest if dir/e.file is still in the spool (not evicted meanwhile). False
// with *error only when the write failed; true when there was nothing to write.
bool RewriteIfSpooled(const std::string &dir, const ManifestEntry &e, std::string *error);
// Removes the manifest of `file` if the file is gone (removed by hand). True if removed.
bool DropIfOrphan(const std::string &dir, const std::string &file);
// The store confirmed the object: the file and its manifest leave the spool. False when
// the manifest was no longer there (the spool's eviction took the file first).
bool RemoveConfirmed(const std::string &dir, const std::string &file);

}  // namespace gotraced::upload
