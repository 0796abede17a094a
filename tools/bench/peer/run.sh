#!/bin/sh
# make bench-peer: pto-npu side by side with simpler's CPU simulator (a2a3sim)
# on the same workloads (tools/bench/peer/pto_peer.c, sim_orch.cpp):
#   1. build the simulator and its driver (build.sh) into BUILD/bench/peer
#   2. stage BUILD/bench/peer/vm: pto-peer, sim-peer, the orchestration and
#      kernel, simpler's runtime libraries (debug info stripped), vm-run.sh
#   3. boot the bench VM once on PEER_SMP vCPUs (default 1) and run both
#      runtimes there (tools/vm/init.sh, pto.mode=peer)
#   4. run the simulator natively on the host, pinned to one CPU, so a
#      reader sees how much of the VM's figure is the emulator
#   5. report.py: BUILD/bench/peer.json and the table
#
# usage: run.sh BUILD_DIR SIMPLER_DIR
# environment: PTO_PEER_REPS (repetitions, default 15), PEER_SMP, PEER_TIMEOUT,
# PEER_PERF=WORKLOAD (instead of the comparison: that workload on pto-npu
# under perf in the VM, the profile printed)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
build=$1 simpler=${2:-}
py=${BENCH_PY:-python3}
if [ -z "$simpler" ] || [ ! -f "$simpler/simpler_setup/build_runtimes.py" ]; then
	cat >&2 <<-MSG
	bench-peer: needs a checkout of hw-native-sys/simpler:
	    make bench-peer SIMPLER_DIR=/path/to/simpler
	(its CPU simulator, platform a2a3sim, is built in a copy under $build/bench/peer; it needs
	g++, cmake and python3, nothing of simpler's Python front end)
	MSG
	exit 2
fi
out=$build/bench/peer
"$here/build.sh" "$simpler" "$out"

stage=$out/vm
rm -rf "$stage"
mkdir -p "$stage/lib/a2a3/sim/tensormap_and_ringbuffer"
lib=$out/simpler/build/lib
strip --strip-debug -o "$stage/lib/libcpu_sim_context.so" "$lib/libcpu_sim_context.so"
for f in "$lib"/a2a3/sim/tensormap_and_ringbuffer/*.so; do
	strip --strip-debug -o "$stage/lib/a2a3/sim/tensormap_and_ringbuffer/$(basename "$f")" "$f"
done
strip --strip-debug -o "$stage/sim-peer" "$out/sim-peer"
cp "$out/pto-peer" "$out/sim_orch.so" "$out/sim_kernel.so" "$out/simpler.commit" "$here/vm-run.sh" "$stage/"

if [ -n "${PEER_PERF:-}" ]; then
	# PEER_PERF=WORKLOAD: where pto-npu's time goes on it (perf in the VM).
	log=$build/vm/bench-peer-perf.log
	PTO_VM_PERF=1 PTO_VM_PEER=1 "$here/../../vm/vm.sh" --mode peer --build "$build" --kernel bench \
		--smp "${PEER_SMP:-1}" --timeout "${PEER_TIMEOUT:-3000}" --log "$log" \
		--env "PTO_PEER_PERF=$PEER_PERF PTO_PEER_REPS=${PTO_PEER_REPS:-5}"
	grep '=== PTO-PEER ' "$log" || true
	sed -n '/=== PTO-PERF-BEGIN/,/=== PTO-PERF-END/p' "$log"
	exit 0
fi
log=$build/vm/bench-peer.log
# shellcheck disable=SC2086 # --env and its value as two words
PTO_VM_PEER=1 "$here/../../vm/vm.sh" --mode peer --build "$build" --kernel bench --smp "${PEER_SMP:-1}" \
	--timeout "${PEER_TIMEOUT:-3000}" --log "$log" \
	${PTO_PEER_REPS:+--env "PTO_PEER_REPS=$PTO_PEER_REPS"}

native=$out/native.log
echo "bench-peer: the simulator natively on the host (one CPU)" >&2
pin=""
command -v taskset >/dev/null && pin="taskset -c $(($(nproc) - 1))"
$pin env PTO_PEER_NATIVE=1 PTO_PEER_DIR="$stage" "$stage/vm-run.sh" >"$native" 2>&1 || true
exec "$py" "$here/report.py" --vm-log "$log" --native-log "$native" --out "$build/bench/peer.json"
