#!/bin/sh
# Boot the pto-npu VM under qemu (software emulation), with the serial
# console captured to a log kept under BUILD/vm/. The module is built
# against the chosen kernel (tools/vm/kernel.sh: debug, bench, debian-6.12,
# debian-sid) and installed in the guest's module tree.
#
# usage: vm.sh --mode check|demo|shell [--build DIR] [--kernel NAME]
#              [--timeout SECONDS] [--smp N] [--log FILE] [--only "KSELFTEST..."]
#              [--env "NAME=VALUE..."]
set -eu

here=$(cd "$(dirname "$0")" && pwd)
mode=check
build=build
kernel=debug
# No more vCPUs than the host has CPUs (at most 4): qemu TCG runs each
# vCPU as a host thread, and an oversubscribed host deschedules vCPUs that
# hold a spinlock the others then spin on, which slows a loaded guest far
# more than its share of the CPUs (the fairness suite beside a 2-CPU load:
# 477 s and failed with 4 vCPUs, 314 s and passed with 2;
# Documentation/build-and-test.rst).
host_cpus=$(nproc)
smp=${PTO_VM_SMP:-$((host_cpus < 4 ? host_cpus : 4))}
[ "$smp" -ge 1 ] || smp=1
mem=${PTO_VM_MEM:-2G}
timeout_s=${PTO_VM_TIMEOUT:-3300}
log=""
only=""
vmenv=""

while [ $# -gt 0 ]; do
	case "$1" in
	--mode) mode=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--env) vmenv=$2; shift 2 ;;
	*) echo "vm.sh: unknown option $1" >&2; exit 2 ;;
	esac
done

kout=$("$here/build-module.sh" "$kernel" "$build")
eval "$(cat "$kout/kernel.env")"
mkdir -p "$build/vm"
[ -n "$log" ] || log="$build/vm/$mode.log"
# The guest's /dev/ttyS1: files it exports (tools/vm/extract-files.py),
# beside the console log.
data="${log%.log}.data"
# And the host directory it copies them into over virtio-9p (tag
# ptoexport, writable: tools/vm/init.sh export_mount), beside the data.
files="${log%.log}.files"
rm -rf "$data" "$files" "$log".boot*
mkdir -p "$files"
initrd="$build/vm/initramfs-$kernel.cpio"
"$here/mkinitramfs.sh" "$build" "$kout/modroot" "$initrd"

# oops=panic + panic=-1 + -no-reboot: a crashed kernel ends the run at once.
# The clock: the TSC, unless PTO_VM_CLOCK=hpet (tsc=unstable: the guest
# keeps time by the HPET, which qemu derives from the host's
# CLOCK_MONOTONIC). Under TCG the guest's TSC is the host's raw rdtsc,
# and a host that is itself a VM restored from a snapshot can move it by
# days at once; a guest clocked by the TSC then jumps, fires every
# timeout at once and prints timekeeping splats (seen once in CI:
# "Long readout interval" with cs_nsec 4.7e14 against a watchdog's 5.7e8).
# The HPET is immune but each read is an emulated MMIO access: an empty
# task costs 13.3 us instead of 9.4 (make bench row 1, two boots one after
# the other), and in make check the debug kernel's fairness suite 256 s
# against 154. On a host
# that is snapshotted while it runs, use PTO_VM_CLOCK=hpet.
case "${PTO_VM_CLOCK:-}" in
hpet) clock=tsc=unstable ;;
*) clock= ;;
esac
append="console=ttyS0 loglevel=5 oops=panic panic=-1 $clock pto.mode=$mode"
[ -z "$only" ] || append="$append pto.only=$(echo "$only" | tr ' ' ',')"
[ -z "$vmenv" ] || append="$append pto.env=$(echo "$vmenv" | tr ' ' ',')"
# The host's root, read-only over virtio-9p (mount tag "hostroot"): the
# guest runs Debian's python3 with numpy and torch and the checkout's
# python/ package from it (init.sh host_root); pto.repo and pto.build name
# the checkout and the build directory there.
repo=$(cd "$here/../.." && pwd)
append="$append pci=noacpi pto.repo=$repo pto.build=$(cd "$build" && pwd)"
# PTO_VM_ICOUNT=N: qemu -icount shift=N (the guest's clock advances
# 2^N ns per instruction, idle time skipped): the bench's times count the
# guest's instructions, the same on a loaded host as on a quiet one. The
# tool for a cost too small for the host's noise (issue #46: row 18's
# launch grew 3.5%, which real time on this host could not resolve); not
# what the rows measure otherwise, as TCG makes some instructions cost
# far more than others.
accel="-accel tcg,thread=multi"
[ -z "${PTO_VM_ICOUNT:-}" ] ||
	accel="-accel tcg,thread=single -icount shift=$PTO_VM_ICOUNT,sleep=off"
# shellcheck disable=SC2086 # $accel is two words
set -- qemu-system-x86_64 $accel -cpu max -smp "$smp" -m "$mem" \
	-kernel "$K_IMAGE" -initrd "$initrd" \
	-append "$append" -display none -no-reboot \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs local,path="$files",mount_tag=ptoexport,security_model=none \
	-serial mon:stdio -serial "file:$data"

if [ "$mode" = shell ]; then
	exec "$@"
fi

echo "vm: booting $K_NAME ($K_RELEASE, $mode, $smp vCPUs, timeout ${timeout_s}s, console log $log)" >&2
# A kernel that dies before /init has run (no "=== PTO-VM" line: none of
# pto-npu's code, the module included, has run yet) is booted again, at
# most twice more; the crashed boot's console log is kept beside as
# LOG.bootN. qemu TCG runs the vCPUs as host threads, and a distro kernel
# live-patching its own text at boot (jump labels, with int3) has been seen
# to trap on a stale int3 there: "Oops: int3" in set_next_task_fair on
# debian-sid 7.2.13, once in the CI runs so far. A crash after /init is
# the run's result, never retried.
boot=1
while :; do
	rc=0
	timeout --foreground -k 10 "$timeout_s" "$@" </dev/null >"$log" 2>&1 || rc=$?
	[ $boot -lt 3 ] || break
	[ $rc != 124 ] && [ $rc != 137 ] || break
	! grep -q '=== PTO-VM' "$log" || break
	grep -q -E 'Kernel panic|Oops|BUG:|general protection fault' "$log" || break
	mv "$log" "$log.boot$boot"
	echo "vm: the kernel crashed before /init ran (boot $boot, console log $log.boot$boot); booting again" >&2
	boot=$((boot + 1))
done
if [ "$mode" = demo ]; then
	# The demo's own output, without the kernel's boot chatter or the
	# bench's framed lines; its files to BUILD/demo-raw/<log name>/, for
	# tools/demo/run.sh (make demo).
	sed -n '/^== /,/^=== PTO-DEMO/p' "$log" | grep -v '^=== PTO-' || true
	raw="$build/demo-raw/$(basename "$log" .log)"
	rm -rf "$raw"
	"$here/extract-files.py" "$data" "$raw" >/dev/null
	grep -q '^=== PTO-DEMO rc=0' "$log" ||
		{ echo "vm: an example failed; console log: $log" >&2; exit 1; }
fi
if [ $rc = 124 ] || [ $rc = 137 ]; then
	echo "vm: TIMEOUT after ${timeout_s}s; console log: $log" >&2
	echo "=== PTO-VM-TIMEOUT" >>"$log"
fi
exit 0
