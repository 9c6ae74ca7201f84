#!/usr/bin/env bash
# Suite 75: gotraced on Kubernetes (issue 31), for real where a cluster cannot be had:
#   chart   helm v4 (built pinned from the Go module proxy, tests/kubernetes/build-tools.sh)
#           lints and renders packaging/helm/gotraced, with default and privileged values;
#           every rendered object decodes strictly against k8s.io/api (tests/kubernetes/
#           validate); packaging/kubernetes/gotraced.yaml is the chart's default render.
#   image   packaging/image/build-image.sh (mmdebstrap of bookworm + this build's .deb,
#           podman import; the root is cached in BUILD/image by the .deb's hash).
#   podman  a Go program in a container of its own (pid, mount, uts, ipc namespaces, its
#           own root where its path does not exist on the host) with containerd's
#           Kubernetes annotations and a kubelet-style cgroup parent (/kubepods/burstable/
#           pod<uid>); the gotraced image beside it with the DaemonSet's securityContext
#           (the capability set, no privileged), mounts and NODE_NAME: serve selects the
#           program by pod name, `gotraced ps` shows pod, namespace and container, the
#           window parses (tracecheck) and starts with its "gotraced: target" log, a
#           trigger's spool file is named after the pod, /metrics over TCP names the
#           process by namespace/pod/container (no pid) and `promtool check metrics` is
#           clean, /ready answers; `gotraced --pod` records it from inside the image; the
#           same serve in a privileged container; and without SYS_ADMIN a refusal that
#           names it.
#   cleanup containers, the image and the cgroups are removed (names unique to the run).
# Podman facts of this machine (issue 31): --runtime runc (crun refuses the hybrid
# cgroups), --ulimit nofile=N:N with N = ulimit -Hn and nproc=32768:32768, --network none
# or host (the default bridge leaves nft tables and ip_forward behind).
set -euo pipefail
: "${GOTRACED_BUILD:?}" "${GOTRACED_ROOT:?}"
SUITE=75-kubernetes
B=$(realpath "$GOTRACED_BUILD")
ROOT=$GOTRACED_ROOT
GT=$B/cli/gotraced
source "$ROOT/tests/lib/suite.sh"
GOTRACED=$GT need_gotraced
for t in podman runc mmdebstrap promtool curl python3; do
  command -v "$t" >/dev/null || { echo "FAIL $SUITE: $t is not installed (scripts/install-deps.sh)"; exit 1; }
done
GOTRACED=$GT need_bpf
T0=$(date +%s)

RUN=$(date +%s%N | tail -c 9)$$
POD_UID=$(cat /proc/sys/kernel/random/uuid)
POD=web-$RUN
APP=gtk8s-app-$RUN
DAEMONS=()
IMG=
W=$(mktemp -d /tmp/gotraced-k8s.XXXXXX)
chmod 755 "$W"
# Every cgroup podman makes for this run's containers: the program's kubelet-style
# /kubepods/burstable/pod<uid> and the daemons' /gotraced-test-<run> (with podman's conmon/
# and libpod-<id>/ children, which it leaves behind on this machine's cgroupfs manager).
GT_CGROUP=/gotraced-test-$RUN
run_cgroups() { ls -d /sys/fs/cgroup/*/kubepods/burstable/pod"$POD_UID" /sys/fs/cgroup/*"$GT_CGROUP" 2>/dev/null || true; }
remove_everything() {
  local c d
  for c in "$APP" "${DAEMONS[@]}"; do podman rm -f -t 0 "$c" >/dev/null 2>&1 || true; done
  [[ -n $IMG ]] && podman rmi -f "$IMG" >/dev/null 2>&1 || true
  for d in $(run_cgroups); do
    find "$d" -depth -type d -exec rmdir {} + 2>/dev/null || true
    # /kubepods/burstable and /kubepods: only when this run left them empty.
    [[ $d == */kubepods/* ]] && rmdir "$(dirname "$d")" "$(dirname "$(dirname "$d")")" 2>/dev/null || true
  done
}
cleanup() {
  remove_everything
  if [[ ${KEEP:-0} == 1 ]]; then echo "kept $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
fail() {
  echo "FAIL $SUITE: $*" >&2
  for c in "${DAEMONS[@]}"; do
    echo "--- $c (last 30 lines)" >&2
    podman logs "$c" 2>&1 | tail -n 30 >&2 || true
  done
  exit 1
}
ok() { echo "ok: $*"; }

# ---- the chart -----------------------------------------------------------------------
bash "$ROOT/tests/kubernetes/build-tools.sh" "$B" >"$W/tools.log" 2>&1 || { tail -20 "$W/tools.log"; fail "helm / k8s-validate do not build"; }
HELM=$B/tools/helm
CHART=$ROOT/packaging/helm/gotraced
"$HELM" version --short >/dev/null
"$HELM" lint --strict "$CHART" >"$W/lint.log" 2>&1 || { cat "$W/lint.log"; fail "helm lint"; }
ok "helm lint --strict ($("$HELM" version --short))"
"$HELM" template gotraced "$CHART" --namespace gotraced >"$W/default.yaml" || fail "helm template"
"$B/tools/k8s-validate" <"$W/default.yaml" || fail "the default render does not decode strictly"
"$HELM" template gotraced "$CHART" --namespace gotraced --set privileged=true >"$W/privileged.yaml" || fail "helm template privileged"
"$B/tools/k8s-validate" <"$W/privileged.yaml" || fail "the privileged render does not decode strictly"
grep -q 'privileged: true' "$W/privileged.yaml" || fail "privileged=true renders no privileged container"
diff -u <(grep -v '^#' "$ROOT/packaging/kubernetes/gotraced.yaml") <(grep -v '^#' "$W/default.yaml") >"$W/manifest.diff" ||
  { cat "$W/manifest.diff"; fail "packaging/kubernetes/gotraced.yaml is not the chart's default render (regenerate: docs/kubernetes.md)"; }
ok "helm template: default and privileged renders decode strictly against k8s.io/api; the plain manifest is the chart's render"

# ---- the image -----------------------------------------------------------------------
IMG=$(bash "$ROOT/packaging/image/build-image.sh" "$B") || fail "image build"
IMG_MB=$(( $(podman image inspect -f '{{.Size}}' "$IMG") / 1048576 ))
ok "image $IMG from Debian packages ($IMG_MB MiB)"

# ---- a Go program in a pod-like container --------------------------------------------
mkdir -p "$W/app-root/app" "$W/spool" "$W/run" "$W/conf" "$W/out"
(cd "$ROOT/tests/serve/trigger-target" && CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-buildvcs=false go build -o "$W/app-root/app/svc" .)
[[ ! -e /app/svc ]] || fail "/app/svc exists on the host: the test needs a path only the container has"
PODMAN=(podman run --runtime runc --ulimit "nofile=$(ulimit -Hn):$(ulimit -Hn)" --ulimit nproc=32768:32768)
"${PODMAN[@]}" -d --name "$APP" --network=none --cgroup-parent="/kubepods/burstable/pod$POD_UID" \
  --annotation io.kubernetes.cri.sandbox-name="$POD" --annotation io.kubernetes.cri.sandbox-namespace=shop \
  --annotation io.kubernetes.cri.sandbox-uid="$POD_UID" --annotation io.kubernetes.cri.container-name=api \
  --rootfs "$W/app-root" /app/svc -mode syscall -spin 120ms >/dev/null || fail "podman run (the Go program)"
APP_ID=$(podman inspect -f '{{.Id}}' "$APP")
APP_PID=$(podman inspect -f '{{.State.Pid}}' "$APP")
ok "Go program in container ${APP_ID:0:12} (host pid $APP_PID), cgroup $(grep -m1 kubepods /proc/$APP_PID/cgroup | cut -d: -f3)"

# ---- gotraced serve in the image, with the DaemonSet's privileges and mounts -----------
cat >"$W/conf/gotraced.toml" <<TOML
[flight]
level = "low"
memory_mb = 192
generation_ms = 500
[endpoint]
socket = "/run/gotraced/gotraced.sock"
metrics_address = "127.0.0.1:0"
[spool]
dir = "/var/lib/gotraced/spool"
[discovery]
rescan_seconds = 2
[[watch]]
pod = "$POD"
namespace = "shop"
[watch.triggers]
syscall_ms = 60
after_seconds = 1
min_interval_seconds = 600
TOML
CAPS=(--cap-drop=ALL --cap-add=SYS_ADMIN,BPF,PERFMON,SYS_PTRACE,DAC_READ_SEARCH)
MOUNTS=(-v /sys/kernel/tracing:/sys/kernel/tracing -v /sys/fs/cgroup:/sys/fs/cgroup:ro
  -v /var/lib/containers/storage/overlay-containers:/var/lib/containers/storage/overlay-containers:ro
  -v "$W/conf":/etc/gotraced:ro -v "$W/spool":/var/lib/gotraced/spool -v "$W/run":/run/gotraced)
[[ -d /sys/kernel/debug/tracing ]] && MOUNTS+=(-v /sys/kernel/debug:/sys/kernel/debug)
start_serve() {  # NAME EXTRA-ARGS...
  local name=$1
  shift
  DAEMONS+=("$name")
  rm -f "$W/run/gotraced.sock"
  "${PODMAN[@]}" -d --name "$name" --network=host --pid=host --read-only -e NODE_NAME="node-$RUN" \
    --cgroup-parent="$GT_CGROUP" \
    "${MOUNTS[@]}" "$@" "$IMG" serve --config /etc/gotraced/gotraced.toml >/dev/null || fail "podman run $name"
}
exec_gt() { podman exec "$1" gotraced "${@:2}"; }
# Waits until the daemon NAME records the program; prints its metrics port.
wait_recording() {
  local i
  for ((i = 0; i < 150; i++)); do
    if [[ -S $W/run/gotraced.sock ]] && exec_gt "$1" ps 2>/dev/null | grep -q "^ *$APP_PID recording"; then
      podman logs "$1" 2>&1 | grep -o 'metrics and readiness on tcp [^ ]* (port [0-9]*' | grep -o '[0-9]*$'
      return 0
    fi
    [[ $(podman inspect -f '{{.State.Running}}' "$1") == true ]] || fail "$1 exited"
    sleep 0.2
  done
  fail "$1 does not record pid $APP_PID"
}

SERVE=gtk8s-serve-$RUN
start_serve "$SERVE" "${CAPS[@]}"
PORT=$(wait_recording "$SERVE")
PS=$(exec_gt "$SERVE" ps)
echo "$PS" | head -3
grep -E "^ *$APP_PID recording .* shop/$POD +api +/app/svc$" <<<"$PS" >/dev/null || fail "gotraced ps does not show shop/$POD api /app/svc"
ok "serve (capabilities ${CAPS[*]:1}) selects pod $POD; gotraced ps shows its namespace/pod and container"

curl -s --unix-socket "$W/run/gotraced.sock" http://gotraced/processes >"$W/processes.json"
python3 - "$W/processes.json" "$APP_PID" "$APP_ID" "$POD" "$POD_UID" "node-$RUN" <<'PY' || fail "/processes identity"
import json, sys
path, pid, cid, pod, uid, node = sys.argv[1:]
p = [x for x in json.load(open(path))["processes"] if x["pid"] == int(pid)][-1]
i = p["identity"]
want = {"ns_pid": 1, "runtime": "podman", "container_id": cid, "container": "api", "pod": pod,
        "namespace": "shop", "pod_uid": uid, "qos": "Burstable", "node": node}
bad = {k: (i.get(k), v) for k, v in want.items() if i.get(k) != v}
if bad or p["exe"] != "/app/svc":
    print("identity mismatch (got, want):", bad, p["exe"]); sys.exit(1)
PY
ok "/processes: ns_pid 1, runtime podman, container api, pod shop/$POD (uid, Burstable), node node-$RUN"

# The window: parses, and starts with who it is of.
sleep 1.5
curl -s --max-time 30 --unix-socket "$W/run/gotraced.sock" -o "$W/flight.trace" "http://gotraced/flight?pid=$APP_PID" || fail "/flight"
bash "$ROOT/scripts/build-tools.sh" "$B" >/dev/null
"$B/tools/tracecheck" "$W/flight.trace" >"$W/tracecheck.log" 2>&1 || { tail "$W/tracecheck.log"; fail "the window does not parse"; }
grep -aq "gotraced: target" "$W/flight.trace" && grep -aq "pod shop/$POD uid $POD_UID" "$W/flight.trace" ||
  fail "the window lacks its 'gotraced: target' log naming the pod"
ok "window of $(stat -c %s "$W/flight.trace") bytes parses (tracecheck); its 'gotraced: target' log names the pod"

# A trigger (a 120 ms syscall > syscall_ms 60) saved to the spool, named after the pod.
for ((i = 0; i < 100; i++)); do
  ls "$W/spool" | grep -q "^shop_${POD}_api-svc-$APP_PID-.*-syscall\.after\.trace$" && break
  sleep 0.2
done
ls "$W/spool" | grep -q "^shop_${POD}_api-svc-$APP_PID-.*\.trace$" || { ls -la "$W/spool"; fail "no trigger file named after the pod"; }
ok "trigger files: $(ls "$W/spool" | tr '\n' ' ')"

# Metrics over TCP: the pod's series without pid; promtool clean; readiness.
curl -sf "http://127.0.0.1:$PORT/ready" >/dev/null || fail "/ready on port $PORT"
curl -sf "http://127.0.0.1:$PORT/metrics" >"$W/metrics.txt" || fail "/metrics on port $PORT"
grep -q "^gotraced_target_events_total{namespace=\"shop\",pod=\"$POD\",container=\"api\"} " "$W/metrics.txt" ||
  { grep gotraced_target_events_total "$W/metrics.txt"; fail "/metrics: no series named by namespace/pod/container"; }
! grep "pod=\"$POD\"" "$W/metrics.txt" | grep -v '^gotraced_target_info' | grep -q 'pid=' || fail "/metrics: the pod's series carry a pid"
promtool check metrics <"$W/metrics.txt" >"$W/promtool.log" 2>&1 || { cat "$W/promtool.log"; fail "promtool check metrics"; }
[[ ! -s $W/promtool.log ]] || { cat "$W/promtool.log"; fail "promtool check metrics has findings"; }
[[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/processes") == 404 ]] || fail "TCP serves more than /metrics and /ready"
ok "/metrics over TCP (port $PORT): series by namespace/pod/container, promtool check metrics clean; /ready 200; /processes not on TCP"

# What it cost: the daemon's RSS and CPU with this one target at level low.
RSS_MB=$(grep '^gotraced_daemon_rss_bytes ' "$W/metrics.txt" | awk '{printf "%.1f", $2 / 1048576}')
SPID=$(podman inspect -f '{{.State.Pid}}' "$SERVE")
read -r u1 s1 < <(awk '{print $14, $15}' /proc/$SPID/stat); sleep 5; read -r u2 s2 < <(awk '{print $14, $15}' /proc/$SPID/stat)
CPU_PCT=$(awk -v t=$((u2 + s2 - u1 - s1)) -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", t * 100 / hz / 5 }')
ok "cost: daemon RSS $RSS_MB MiB, CPU ${CPU_PCT}% of a core over 5 s (one target, level low)"

# gotraced --pod from inside the image: every Go process of the pod, one file each.
exec_gt "$SERVE" --pod "$POD" --namespace shop --out-dir /tmp/out --duration 2s --level low -q >"$W/record.log" 2>&1 ||
  { cat "$W/record.log"; fail "gotraced --pod"; }
grep -q "pod shop/$POD container api (podman ${APP_ID:0:12})" "$W/record.log" || { cat "$W/record.log"; fail "gotraced --pod's summary lacks the pod"; }
F=$(podman exec "$SERVE" sh -c 'ls /tmp/out')
[[ $F == shop_${POD}_api-svc-$APP_PID.trace ]] || fail "gotraced --pod wrote '$F'"
podman cp "$SERVE:/tmp/out/$F" "$W/out/" && "$B/tools/tracecheck" "$W/out/$F" >/dev/null || fail "the --pod trace does not parse"
exec_gt "$SERVE" --pod "no-such-$RUN" --out-dir /tmp/out2 --duration 1s >"$W/none.log" 2>&1 && fail "--pod of no pod succeeded"
grep -q "no Go process in pod no-such-$RUN" "$W/none.log" || { cat "$W/none.log"; fail "--pod of no pod: unclear error"; }
ok "gotraced --pod $POD --namespace shop: $F parses; an unknown pod is refused by name"
podman rm -f -t 5 "$SERVE" >/dev/null

# Privileged instead of the capability set: the same selection.
start_serve "gtk8s-priv-$RUN" --privileged
wait_recording "gtk8s-priv-$RUN" >/dev/null
ok "privileged: records pod $POD too"
podman rm -f -t 5 "gtk8s-priv-$RUN" >/dev/null

# Without SYS_ADMIN: a refusal that names it.
start_serve "gtk8s-nosa-$RUN" --cap-drop=ALL --cap-add=BPF,PERFMON,SYS_PTRACE,DAC_READ_SEARCH
for ((i = 0; i < 100; i++)); do
  [[ $(podman inspect -f '{{.State.Running}}' "gtk8s-nosa-$RUN") == true ]] || break
  podman logs "gtk8s-nosa-$RUN" 2>&1 | grep -q "CAP_SYS_ADMIN" && break
  sleep 0.2
done
podman logs "gtk8s-nosa-$RUN" 2>&1 | grep -m1 "CAP_SYS_ADMIN" || fail "without SYS_ADMIN: no message naming CAP_SYS_ADMIN"
ok "without SYS_ADMIN: refused, naming CAP_SYS_ADMIN"

# ---- cleanup, checked ------------------------------------------------------------------
remove_everything
left=$(podman ps -a --format '{{.Names}}' | grep -e "-$RUN\$" || true)
[[ -z $left ]] || fail "containers left: $left"
! podman image exists "$IMG" || fail "image $IMG left"
[[ -z $(run_cgroups) ]] || fail "cgroups left: $(run_cgroups | tr '\n' ' ')"
IMG=
ok "containers, image and cgroups of this run removed"
echo "75-kubernetes: passed in $(( $(date +%s) - T0 )) s"
