#!/bin/busybox sh
# /init of the pto-npu test VM. The mode comes from the kernel command line
# (pto.mode=check|demo|shell|peer|bench[:ARG,ARG...]). Output is framed for
# tools/vm/parse-results.py (bench: tools/bench/report.py):
#   === PTO-SUITE <kind> <name>   ...TAP...   === PTO-END <name> rc=<rc>
/bin/busybox --install -s /bin
# kmod's modprobe, insmod, rmmod, lsmod, modinfo: the module tree under
# /lib/modules is installed as on a host (modules_install + depmod).
for t in modprobe insmod rmmod lsmod modinfo depmod; do
	ln -sf /usr/bin/kmod "/bin/$t"
	ln -sf /usr/bin/kmod "/sbin/$t"
done
export PATH=/bin:/sbin:/usr/bin:/pto/bin
export LD_LIBRARY_PATH=/pto/lib

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t tmpfs tmp /tmp
echo "=== PTO-VM $(uname -r)"

mode=check
only=""
host_repo=""
host_build=""
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	pto.mode=*) mode=${arg#pto.mode=} ;;
	pto.only=*) only=$(echo "${arg#pto.only=}" | tr ',' ' ') ;;
	pto.repo=*) host_repo=${arg#pto.repo=} ;;
	pto.build=*) host_build=${arg#pto.build=} ;;
	pto.env=*)
		# pto.env=A=1,B=2: environment of the tests (make fuzz, make soak).
		for kv in $(echo "${arg#pto.env=}" | tr ',' ' '); do
			export "${kv?}"
		done
		;;
	esac
done
# bench:-r,5 -> mode bench, pto-bench arguments "-r 5"
bench_args=""
case "$mode" in
bench:*)
	bench_args=$(echo "${mode#bench:}" | tr ',' ' ')
	mode=bench
	;;
esac

KMEMLEAK=/sys/kernel/debug/kmemleak

suite() {
	echo "=== PTO-SUITE $1 $2"
	# For the timing of each suite in the console log.
	echo "# uptime $(cut -d' ' -f1 /proc/uptime)"
}
suite_end() { echo "=== PTO-END $1 rc=$2 uptime=$(cut -d' ' -f1 /proc/uptime)"; }

# The run's time factor: how much slower than the reference machine this VM
# runs, from a fixed amount of shell work timed three times (the fastest
# counts), at least 1. Test limits are multiplied by it (PTO_TIME_FACTOR,
# selftests/pto_npu/pto_test.h), and so is each suite's budget below; no
# result depends on the host's speed in any other way.
CALIBRATE_LOOPS=20000
# Centiseconds the loop takes on the reference machine (2 host CPUs, qemu
# TCG, unloaded), measured with this script: on a kernel without debug
# options, and on the debug kernel (KASAN and lockdep slow user space too).
CALIBRATE_REF_CS=55
CALIBRATE_REF_DEBUG_CS=120
# /proc/uptime in centiseconds. Without its leading zeros: "0.98" would
# be "098", which shell arithmetic reads as a bad octal number.
uptime_cs() {
	cs=$(cut -d' ' -f1 /proc/uptime | tr -d . | sed 's/^0*//')
	echo "${cs:-0}"
}

calibrate() {
	if dmesg | grep -q KernelAddressSanitizer; then
		CALIBRATE_REF_CS=$CALIBRATE_REF_DEBUG_CS
	fi
	best=""
	for _ in 1 2 3; do
		t0=$(uptime_cs)
		i=0
		while [ $i -lt $CALIBRATE_LOOPS ]; do i=$((i + 1)); done
		t1=$(uptime_cs)
		cs=$((t1 - t0))
		if [ -z "$best" ] || [ $cs -lt "$best" ]; then best=$cs; fi
	done
	# Tenths, rounded up, at least 1.0.
	f10_boot=$(( (best * 10 + CALIBRATE_REF_CS - 1) / CALIBRATE_REF_CS ))
	[ $f10_boot -ge 10 ] || f10_boot=10
	f10=$f10_boot
	export PTO_TIME_FACTOR="$((f10 / 10)).$((f10 % 10))"
	echo "# time factor $PTO_TIME_FACTOR (calibration ${best}0 ms, reference ${CALIBRATE_REF_CS}0 ms)"
}

# Before each suite: the boot's factor, or more if the machine has slowed
# since (a shared host's load comes and goes): a quarter of the loop, once.
# A suite's limits and budget follow the machine it runs on, never fall
# below the boot's.
suite_factor() {
	t0=$(uptime_cs)
	i=0
	while [ $i -lt $((CALIBRATE_LOOPS / 4)) ]; do i=$((i + 1)); done
	t1=$(uptime_cs)
	s10=$(( ((t1 - t0) * 40 + CALIBRATE_REF_CS - 1) / CALIBRATE_REF_CS ))
	[ $s10 -gt $f10_boot ] || s10=$f10_boot
	f10=$s10
	export PTO_TIME_FACTOR="$((f10 / 10)).$((f10 % 10))"
	echo "# time factor $PTO_TIME_FACTOR for this suite"
}

# Each suite's budget, in seconds on the reference machine with the debug
# kernel (about three times what it takes there), times the time factor.
# A suite that overruns it is killed with everything it started, reported
# as a failure, and the suites after it still run.
suite_budget() {
	case "$1" in
	uapi_bo | uapi_query | early_stage | local_scrub) echo 150 ;;
	isolation | kernel_upload | predicate_skip | spmd_launch | quantum | \
		syncall_soft | work_budget) echo 240 ;;
	gm_mmap | mixed_ring | syncall_hard | tasks_lifetime | tasks_run | \
		soak | examples) echo 360 ;;
	fuzz | queue_uapi) echo 480 ;;
	# make fuzz runs it long (PTO_GS_FUZZ_ITERS): its own budget.
	graph_shape_fuzz) [ "${PTO_GS_FUZZ_ITERS:-0}" -ge 200 ] && echo 1500 || echo 480 ;;
	fairness | bench) echo 720 ;;
	tasks_graph) echo 720 ;;
	faults) echo 900 ;;
	*) echo 300 ;;
	esac
}

# run_suite NAME CMD...: CMD in a session of its own under NAME's budget.
run_suite() {
	name=$1
	shift
	suite_factor
	budget=$(suite_budget "$name")
	budget=$(( (budget * f10 + 9) / 10 ))
	rm -f /tmp/overran
	(cd /tmp && exec setsid "$@" 2>&1) &
	pid=$!
	(
		sleep "$budget"
		echo "$budget" >/tmp/overran
		kill -KILL -- "-$pid" "$pid" 2>/dev/null
	) &
	watchdog=$!
	wait $pid
	rc=$?
	kill $watchdog 2>/dev/null
	wait $watchdog 2>/dev/null
	if [ -f /tmp/overran ]; then
		echo "not ok 9999 $name overran its budget of ${budget} s (time factor $PTO_TIME_FACTOR): killed"
		rc=1
	fi
	return $rc
}

finish() {
	# The whole kernel log, every level, for the host's splat scan.
	echo "=== PTO-DMESG"
	dmesg
	echo "=== PTO-DONE"
	sync
	reboot -f
}

calibrate

# Suspects from boot are not ours.
if [ -w $KMEMLEAK ]; then
	echo scan >$KMEMLEAK
	echo clear >$KMEMLEAK
fi

vm_tests() {
	n=0
	fails=0
	tap() {
		n=$((n + 1))
		if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fails=$((fails + 1)); fi
	}
	suite vm module
	echo "TAP version 13"
	echo "1..5"
	modprobe pto_npu
	rc=$?
	[ $rc = 0 ] && [ -c /dev/accel/accel0 ]
	tap $? "modprobe pto_npu creates /dev/accel/accel0"
	ok=0
	for i in 1 2 3 4 5; do
		rmmod pto_npu || ok=1
		[ -e /dev/accel/accel0 ] && ok=1
		modprobe pto_npu || ok=1
	done
	[ -c /dev/accel/accel0 ]
	tap $((ok | $?)) "load/unload cycles"
	rmmod pto_npu
	modprobe pto_npu clusters=0 2>/dev/null
	[ $? != 0 ]
	tap $? "invalid topology refused at load"
	modprobe pto_npu clusters=4 devices=2 &&
		[ -c /dev/accel/accel0 ] && [ -c /dev/accel/accel1 ] &&
		rmmod pto_npu && modprobe pto_npu
	tap $? "several device instances"
	deps_ok=0
	for d in $(modinfo -F depends pto_npu | tr ',' ' '); do
		grep -q "^$d " /proc/modules || { echo "# $d is not loaded"; deps_ok=1; }
	done
	tap $deps_ok "modprobe loaded the modules pto_npu depends on: $(modinfo -F depends pto_npu)"
	suite_end module $fails
	udev_tests
}

# The udev rule of make install (tools/udev), under Debian's udevd: the
# accel node goes to group render, mode 0660; a member of render can use
# the device without root, another user cannot.
udev_tests() {
	[ -x /usr/lib/systemd/systemd-udevd ] || return 0
	n=0
	fails=0
	suite vm udev
	echo "TAP version 13"
	echo "1..3"
	if [ ! -e /proc/net/netlink ]; then
		# udevd hears of devices through netlink (uevents).
		echo "ok 1 the rule's owner and mode # SKIP kernel without networking: no uevents for udevd"
		echo "ok 2 a member of render # SKIP kernel without networking"
		echo "ok 3 another user # SKIP kernel without networking"
		suite_end udev 0
		return 0
	fi
	if [ ! -d /proc/sys/fs/inotify ]; then
		# udevd watches its rules and devices with inotify; the debug
		# kernel has networking (the 9p share) but not inotify.
		echo "ok 1 the rule's owner and mode # SKIP kernel without inotify (CONFIG_INOTIFY_USER): udevd cannot run"
		echo "ok 2 a member of render # SKIP kernel without inotify"
		echo "ok 3 another user # SKIP kernel without inotify"
		suite_end udev 0
		return 0
	fi
	printf 'root:x:0:0:root:/:/bin/sh\nnpu:x:1000:1000::/tmp:/bin/sh\nother:x:1001:1001::/tmp:/bin/sh\n' >/etc/passwd
	printf 'root:x:0:\nrender:x:105:npu\nnpu:x:1000:\nother:x:1001:\n' >/etc/group
	rmmod pto_npu
	mkdir -p /run/udev
	/usr/lib/systemd/systemd-udevd --daemon 2>/dev/null
	modprobe pto_npu && udevadm settle -t 30
	mode=$(stat -c '%a %G' /dev/accel/accel0 2>&1)
	echo "# /dev/accel/accel0: $mode"
	[ "$mode" = "660 render" ]
	tap $? "the rule gives /dev/accel/accel0 to group render, mode 0660"
	su -s /bin/sh npu -c '/pto/bin/ptoctl info >/dev/null'
	tap $? "a member of render uses the device without root"
	! su -s /bin/sh other -c '/pto/bin/ptoctl info 2>/dev/null >/dev/null'
	tap $? "a user outside render cannot open it"
	udevadm control --exit
	suite_end udev $fails
}

# After the suites, every user gone (killed ones too): the module unloads.
unload() {
	suite vm unload
	echo "1..1"
	if rmmod pto_npu && [ ! -e /dev/accel/accel0 ]; then
		echo "ok 1 rmmod after the suites"
	else
		lsmod
		echo "not ok 1 rmmod after the suites"
	fi
	suite_end unload 0
}

# The KUnit suites: pto_npu.ko must be loaded.
kunit_suites() {
	modinfo pto_npu_kunit >/dev/null 2>&1 || return 0
	modprobe pto_npu_kunit
	for d in /sys/kernel/debug/kunit/pto_*; do
		[ -d "$d" ] || continue
		name=$(basename "$d")
		suite kunit "$name"
		cat "$d/results"
		suite_end "$name" 0
	done
	rmmod pto_npu_kunit
}

# The host's directory for the files this guest exports (tools/vm/vm.sh:
# virtio-9p, tag ptoexport, writable), at /export: demo.sh copies its
# traces there (PTO_EXPORT_DIR), much faster than the serial port it
# falls back to when the mount fails (tools/vm/extract-files.py reads
# both). Waits as host_root() does.
export_mount() {
	[ -n "${PTO_EXPORT_DIR:-}" ] && return 0
	for m in virtio_pci 9pnet_virtio 9p; do
		modprobe -q "$m" 2>/dev/null
	done
	mkdir -p /export
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288 ptoexport /export &
	i=0
	while ! grep -q " /export 9p " /proc/mounts && kill -0 $! 2>/dev/null && [ $i -lt 240 ]; do
		sleep 0.5
		i=$((i + 1))
	done
	if grep -q " /export 9p " /proc/mounts && : >/export/.pto-export; then
		rm -f /export/.pto-export
		export PTO_EXPORT_DIR=/export
	else
		echo "# export: the 9p mount failed; the files go over the serial port"
	fi
}

# The host's root, read-only (tools/vm/vm.sh: virtio-9p, tag hostroot), at
# /host, with this guest's /dev, /proc, /sys and a fresh /tmp over the
# host's: "chroot /host" runs the host's programs (Debian's python3 with
# numpy and torch) on this guest's device. The checkout and its build are
# at the same paths there (pto.repo, pto.build).
host_root() {
	[ -d /host/usr ] && return 0
	for m in virtio_pci 9pnet_virtio 9p; do
		modprobe -q "$m" 2>/dev/null
	done
	mkdir -p /host
	# In the background: a 9p device that never interrupts (see vm.sh,
	# pci=noacpi) leaves mount(8) waiting in the kernel for good; the
	# boot goes on without the share after 120 s (a last resort: a
	# healthy mount takes well under a second).
	mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=524288,cache=loose \
		hostroot /host &
	i=0
	while ! [ -d /host/usr ] && kill -0 $! 2>/dev/null && [ $i -lt 240 ]; do
		sleep 0.5
		i=$((i + 1))
	done
	[ -d /host/usr ] || { echo "# host root: the 9p mount failed"; return 1; }
	mount --bind /dev /host/dev &&
		mount --bind /proc /host/proc &&
		mount --bind /sys /host/sys || { echo "# host root: the binds failed"; return 1; }
	host_tmp
}

# A fresh /tmp over the host's, for what the chroot's programs write; a
# checkout or build under the host's /tmp stays visible at its own path
# (bound from the share before the tmpfs hides it).
host_tmp() {
	n=0
	for p in "$host_repo" "$host_build"; do
		case $p in /tmp/?*) ;; *) continue ;; esac
		mkdir -p "/hosttmp/$n" && mount --bind "/host$p" "/hosttmp/$n" ||
			{ echo "# host root: $p"; return 1; }
		n=$((n + 1))
	done
	mount -t tmpfs tmp /host/tmp || { echo "# host root: /tmp"; return 1; }
	n=0
	for p in "$host_repo" "$host_build"; do
		case $p in /tmp/?*) ;; *) continue ;; esac
		mkdir -p "/host$p" && mount --bind "/hosttmp/$n" "/host$p" ||
			{ echo "# host root: $p"; return 1; }
		n=$((n + 1))
	done
}

# pto-bench row 20 (tools/bench/py_call.py): a @pl.jit call against the C
# launch, under the host's python3, with pass 1 (or when -R names 20).
py_bench_row() {
	set -- $bench_args
	reps="" quick="" rows="" pass=""
	while [ $# -gt 0 ]; do
		case $1 in
		-r) reps=$2; shift ;;
		-q) quick=-q ;;
		-R) rows=$2; shift ;;
		-P) pass=$2; shift ;;
		esac
		shift
	done
	if [ -n "$rows" ]; then
		echo ",$rows," | tr "+" "," | grep -q ",20," || return 0
	elif [ "$pass" = 2 ]; then
		return 0
	fi
	host_root || { echo "=== PTO-BENCH-RC rc=python-row"; return 0; }
	chroot /host /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp \
		PYTHONPATH="$host_repo/python" PTO_LIBPTO="$host_build/lib/libpto.so" \
		/usr/bin/python3 "$host_repo/tools/bench/py_call.py" ${reps:+-r "$reps"} $quick ||
		echo "=== PTO-BENCH-RC rc=python-row"
}

# The python suite: python/tests/run.py (pytest, TAP out) under the host's
# Debian python3, with the checkout's package and its libpto.so.
python_suite() {
	suite vm python
	if ! host_root || [ ! -f "/host$host_repo/python/tests/run.py" ]; then
		echo "1..1"
		echo "not ok 1 the host's python3 and $host_repo/python/tests/run.py (9p share)"
		suite_end python 1
		return
	fi
	run_suite python chroot /host /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp \
		PTO_TIME_FACTOR="$PTO_TIME_FACTOR" PYTHONDONTWRITEBYTECODE=1 \
		PYTHONPATH="$host_repo/python" PTO_LIBPTO="$host_build/lib/libpto.so" \
		/bin/sh -c 'cd "$1" && exec /usr/bin/python3 python/tests/run.py' sh "$host_repo"
	suite_end python $?
}

# make check runs everything under the hazard sanitizer (every queue
# sanitizes, on the chip's non-coherent GM unless a queue asks for
# coherent): a test or example whose GM use would corrupt data on the
# chip gets a report with its completions.
sanitize_on() {
	mkdir -p /etc/modprobe.d
	echo "options pto_npu sanitize=1" >/etc/modprobe.d/pto-sanitize.conf
	echo 1 >/sys/module/pto_npu/parameters/sanitize &&
		echo "# sanitizer on: $(cat /sys/module/pto_npu/parameters/sanitize), non-coherent GM: $(cat /sys/module/pto_npu/parameters/noncoherent)"
}

# Every pto-bench row once (pto-bench -s, one TAP result a row): a row
# that errors, hangs (the suite's budget) or leaks (the kmemleak scan
# after the suites) fails make check. Targets are not judged here.
bench_suite() {
	suite vm bench
	if [ -x /pto/bench/pto-bench ]; then
		run_suite bench /pto/bench/pto-bench -s
		suite_end bench $?
	else
		echo "1..1"
		echo "not ok 1 pto-bench is in the image (build/bench/pto-bench)"
		suite_end bench 1
	fi
}

# The examples, with their swimlanes and graphs sent to the host for
# tools/demo/confirm.py (the "How to confirm" checks); each example's
# time in the log.
examples_suite() {
	suite vm examples
	echo "1..1"
	# decoder_layer: 12 tokens a form here (100 in make demo); one timed
	# run a form (examples/example.h: ex_timed_runs()): make check judges
	# what the examples compute and confirm.py's structure, not timing.
	export PTO_EXAMPLE_TOKENS=12 PTO_EXAMPLE_RUNS=1
	host_root && export PTO_HOST_REPO="$host_repo" PTO_HOST_BUILD="$host_build"
	export_mount
	if run_suite examples /pto/demo.sh >/tmp/demo.out 2>&1; then
		echo "ok 1 every example checks its result"
	else
		cat /tmp/demo.out
		echo "not ok 1 every example checks its result"
	fi
	grep '^== .* s$' /tmp/demo.out | sed 's/^/# /'
	unset PTO_EXAMPLE_TOKENS PTO_EXAMPLE_RUNS
	suite_end examples 0
}

# make vm-test T="a b": only those kselftests ("kunit": the KUnit suites),
# then the kmemleak scan.
if [ "$mode" = check ] && [ -n "$only" ]; then
	modprobe pto_npu
	sanitize_on
	for name in $only; do
		if [ "$name" = kunit ]; then
			kunit_suites
			continue
		fi
		if [ "$name" = vm ]; then
			vm_tests
			sanitize_on
			continue
		fi
		if [ "$name" = bench ]; then
			bench_suite
			continue
		fi
		if [ "$name" = python ]; then
			python_suite
			continue
		fi
		if [ "$name" = examples ]; then
			examples_suite
			continue
		fi
		suite kselftest "$name"
		run_suite "$name" "/pto/selftests/$name"
		suite_end "$name" $?
	done
	unload
	mode=leakscan
fi

leak_scan() {
	if [ -w $KMEMLEAK ]; then
		# Objects younger than 5 s are never reported: let them age.
		sleep 6
		echo scan >$KMEMLEAK
		echo scan >$KMEMLEAK
		suite vm kmemleak
		echo "1..1"
		leaks=$(cat $KMEMLEAK)
		if [ -n "$leaks" ]; then
			echo "$leaks"
			echo "kmemleak: suspected memory leaks after the suite"
			echo "not ok 1 no leaks after the suite and module unload"
		else
			echo "ok 1 no leaks after the suite and module unload"
		fi
		suite_end kmemleak 0
	fi
}

case "$mode" in
leakscan)
	leak_scan
	finish
	;;
check)
	vm_tests
	kunit_suites
	sanitize_on
	for t in /pto/selftests/*; do
		[ -x "$t" ] || continue
		name=$(basename "$t")
		suite kselftest "$name"
		run_suite "$name" "$t"
		suite_end "$name" $?
	done
	examples_suite
	python_suite
	bench_suite
	unload
	leak_scan
	finish
	;;
demo)
	modprobe pto_npu || finish
	# The Python example's interpreter: the host's (host_root).
	host_root && export PTO_HOST_REPO="$host_repo" PTO_HOST_BUILD="$host_build"
	export_mount
	if [ -x /pto/demo.sh ]; then
		/pto/demo.sh
		echo "=== PTO-DEMO rc=$?"
	else
		ptoctl info
		echo "=== PTO-DEMO rc=$?"
	fi
	finish
	;;
bench)
	# The module built against the bench kernel (make bench-module). A
	# block may run 60 s: a loaded host must not turn a slow repetition
	# into a timeout.
	echo "=== PTO-BENCH-BEGIN"
	if modprobe pto_npu timeout_ms=60000; then
		if [ -n "${PTO_PERF:-}" ] && [ -x /pto/bin/perf ]; then
			# make bench-perf: a cpu-clock profile of the whole VM.
			# shellcheck disable=SC2086
			(cd /tmp && perf record -q -a -g -e cpu-clock -F 4000 -o /tmp/perf.data \
				/pto/bench/pto-bench $bench_args)
			echo "=== PTO-BENCH-RC rc=$?"
			echo "=== PTO-PERF-BEGIN"
			(cd /tmp && perf report -i /tmp/perf.data --stdio --no-children \
				--percent-limit 0.5 -g none --sort sym 2>/dev/null | head -150)
			(cd /tmp && perf report -i /tmp/perf.data --stdio --children \
				--percent-limit 2 -g none --sort sym 2>/dev/null | head -80)
			echo "=== PTO-PERF-END"
		else
			# shellcheck disable=SC2086
			(cd /tmp && /pto/bench/pto-bench $bench_args)
			echo "=== PTO-BENCH-RC rc=$?"
			py_bench_row
		fi
	else
		echo "=== PTO-BENCH-RC rc=insmod"
	fi
	finish
	;;
peer)
	# make bench-peer (tools/bench/peer/run.sh): pto-npu and simpler's CPU
	# simulator on the same workloads in this one boot.
	echo "=== PTO-PEER-BEGIN"
	if modprobe pto_npu timeout_ms=60000 && [ -x /pto/peer/vm-run.sh ]; then
		(cd /tmp && /pto/peer/vm-run.sh)
		echo "=== PTO-PEER-RC rc=$?"
	else
		echo "=== PTO-PEER-RC rc=setup"
	fi
	finish
	;;
shell)
	modprobe pto_npu
	# python3: the host's, with the checkout's package (host_root).
	if host_root; then
		cat >/bin/python3 <<-EOF
		#!/bin/sh
		exec chroot /host /usr/bin/env PYTHONPATH=$host_repo/python \\
			PTO_LIBPTO=$host_build/lib/libpto.so /usr/bin/python3 "\$@"
		EOF
		chmod +x /bin/python3
	fi
	echo "pto-npu VM: module loaded, tools in /pto/bin, tests in /pto/selftests, python3 (the host's, /host); 'reboot -f' to leave"
	setsid cttyhack sh
	finish
	;;
*)
	echo "unknown pto.mode=$mode"
	finish
	;;
esac
