#!/bin/sh
# make bench-peer, in the bench VM (tools/vm/init.sh, pto.mode=peer; staged
# as /pto/peer by tools/bench/peer/run.sh): the workloads on pto-npu, then on
# simpler's CPU simulator at each width, one process per workload (a
# simulator run that crashes is retried, at most twice, and reported as
# === PTO-PEER-CRASH). Environment: PTO_PEER_REPS (default 15),
# PTO_PEER_WIDTHS ("reduced full"), PTO_PEER_WORKLOADS, PTO_PEER_PERF (a
# workload: only it, on pto-npu, under perf).
# The same script runs the simulator natively on the host (PTO_PEER_NATIVE=1:
# no pto-npu, the tree given by PTO_PEER_DIR).
d=${PTO_PEER_DIR:-/pto/peer}
reps=${PTO_PEER_REPS:-15}
widths=${PTO_PEER_WIDTHS:-reduced full}
workloads=${PTO_PEER_WORKLOADS:-fan chain skip singles48 spmd48}
where=vm
[ -z "${PTO_PEER_NATIVE:-}" ] || where=native

echo "=== PTO-PEER-INFO {\"where\":\"$where\",\"kernel\":\"$(uname -r)\",\"cpus\":$(nproc),\"simpler_commit\":\"$(cat "$d/simpler.commit")\"}"
if [ -n "${PTO_PEER_PERF:-}" ] && [ -x /pto/bin/perf ]; then
	# make bench-peer PEER_PERF=WORKLOAD: that workload on pto-npu alone,
	# under a cpu-clock profile of the whole VM (as make bench-perf).
	perf record -q -a -g -e cpu-clock -F 4000 -o /tmp/perf.data "$d/pto-peer" "$reps" "$PTO_PEER_PERF"
	echo "=== PTO-PERF-BEGIN"
	perf report -i /tmp/perf.data --stdio --no-children --percent-limit 0.5 -g none --sort sym 2>/dev/null | head -120
	perf report -i /tmp/perf.data --stdio --children --percent-limit 2 -g none --sort sym 2>/dev/null | head -80
	echo "=== PTO-PERF-END"
	exit 0
fi
if [ $where = vm ]; then
	"$d/pto-peer" "$reps" || echo "=== PTO-PEER-FAIL pto-npu rc=$?"
fi
for width in $widths; do
	# reduced: 2 clusters (2 AIC + 4 AIV threads) and 2 AICPU threads (one
	# orchestrator, one scheduler); full: the chip's 24 clusters (72 AICore
	# threads) and the default 4 AICPU threads.
	case $width in
	reduced) blockdim=2 threads=2 ;;
	full) blockdim=24 threads=4 ;;
	*) echo "vm-run.sh: unknown width $width" >&2; exit 2 ;;
	esac
	for w in $workloads; do
		try=0
		while :; do
			PTO_PEER_SIM_BLOCKDIM=$blockdim "$d/sim-peer" "$d/lib" "$d/sim_orch.so" "$d/sim_kernel.so" \
				"$width" "$threads" "$reps" "$w" && break
			rc=$?
			try=$((try + 1))
			echo "=== PTO-PEER-CRASH {\"where\":\"$where\",\"width\":\"$width\",\"workload\":\"$w\",\"rc\":$rc,\"try\":$try}"
			[ $try -lt 3 ] || break
		done
	done
done
exit 0
