// Where a Go release's toolchain is on this machine, found the way tests/lib/suite.sh's
// go_for finds it (never one machine's path): the Debian golang-1.NN-go packages under
// /usr/lib/go-1.NN, trixie's go1.24/go1.25 unpacked by scripts/fetch-debian-go.sh into
// $GOTRACED_GO_CACHE (default /var/cache/gotraced-go), the machine's own go
// (`GOTOOLCHAIN=local go env GOROOT`), and go1.27 as the module proxy's toolchain module
// (`GOTOOLCHAIN=go1.27.3 go env GOROOT`, fetched by scripts/install-deps.sh).
#pragma once

#include <string>

namespace gotraced::testutil {

// GOROOT of release `version` ("go1.19" ... "go1.27"), "" when this machine does not
// have it (or the version is not one the project knows).
std::string GoRoot(const std::string &version);

}  // namespace gotraced::testutil
