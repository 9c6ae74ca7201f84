#!/bin/sh
# /init of run-guests.sh's initramfs (busybox sh): mounts what libbpf and the bench read
# (/sys/kernel/btf, tracefs's available_filter_functions), runs syscall-hooks-bench with
# the REPS and CALLS of the kernel command line (shb_reps=, shb_calls=), every line of its
# output prefixed "@@SHB " on the console (ttyS0, a file on the host), and powers off.
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
mkdir -p /tmp /sys/kernel/tracing
mount -t tmpfs tmpfs /tmp
mount -t tracefs tracefs /sys/kernel/tracing
arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=\([0-9][0-9]*\)\$/\1/p"; }
reps=$(arg shb_reps)
calls=$(arg shb_calls)
echo "@@SHB begin uptime=$(cut -d' ' -f1 /proc/uptime) nproc=$(grep -c ^processor /proc/cpuinfo) clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
/bin/syscall-hooks-bench "${reps:-7}" "${calls:-200000}" >/tmp/out 2>&1
rc=$?
sed 's/^/@@SHB /' /tmp/out
echo "@@SHB end rc=$rc uptime=$(cut -d' ' -f1 /proc/uptime)"
poweroff -f
