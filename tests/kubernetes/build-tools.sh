#!/usr/bin/env bash
# Builds what the Kubernetes suite (tests/suites/75-kubernetes.sh) judges the chart with,
# into BUILD/tools/: helm v4, pinned, from the Go module proxy (helm.sh/helm/v4/cmd/helm),
# and k8s-validate (tests/kubernetes/validate: every rendered object decoded strictly
# against k8s.io/api). Go's own module and build caches are used (a first helm build is
# several minutes on 2 cores; later calls return at once).
#   bash tests/kubernetes/build-tools.sh BUILD
set -euo pipefail
HELM_VERSION=v4.3.2
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath "${1:?usage: build-tools.sh BUILD}")
mkdir -p "$build/tools"
export GOFLAGS=-buildvcs=false GOTOOLCHAIN=local
stamp=$build/tools/helm.version
if [[ ! -x $build/tools/helm || $(cat "$stamp" 2>/dev/null) != "$HELM_VERSION" ]]; then
  GOBIN=$build/tools go install -ldflags=-s "helm.sh/helm/v4/cmd/helm@$HELM_VERSION"
  echo "$HELM_VERSION" >"$stamp"
fi
(cd "$root/tests/kubernetes/validate" && go build -o "$build/tools/k8s-validate" .)
