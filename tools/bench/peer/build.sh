#!/bin/sh
# make bench-peer, host side: build simpler's CPU simulator (a2a3sim) from a
# build copy of SIMPLER_DIR and this project's driver for it.
#
#   OUT/simpler          the build copy (git archive of SIMPLER_DIR's HEAD, or
#                        a plain copy of a tree that is not a git checkout),
#                        with one local patch: the width a run takes
#                        (SIM_AUTO_BLOCKDIM, 8 clusters, in
#                        src/common/platform/sim/host/device_runner_base.cpp)
#                        is read from PTO_PEER_SIM_BLOCKDIM when set, so one
#                        build runs at every width; the patch changes nothing
#                        when it is unset. SIMPLER_DIR itself is never written.
#   OUT/simpler/build/lib   its runtime, by simpler_setup/build_runtimes.py
#                        --platforms a2a3sim (CMake, C++17; Python's standard
#                        library only)
#   OUT/sim-peer         the driver (sim_driver.cpp + simpler's ChipWorker)
#   OUT/sim_orch.so, OUT/sim_kernel.so   the orchestration and the empty kernel
#   OUT/simpler.commit   the commit measured
#
# usage: build.sh SIMPLER_DIR OUT
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
cxx=${CXX:-g++}

# What simpler's build wants beyond tools/install-deps.sh's: cmake, g++ (Debian 12's).
missing=""
command -v cmake >/dev/null || missing="$missing cmake"
command -v g++ >/dev/null || missing="$missing g++"
command -v python3 >/dev/null || missing="$missing python3"
if [ -n "$missing" ]; then
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	echo "bench-peer: installing$missing" >&2
	# shellcheck disable=SC2086 # a word list
	$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

if git -C "$src" rev-parse HEAD >/dev/null 2>&1; then
	commit=$(git -C "$src" rev-parse HEAD)
	if [ -n "$(git -C "$src" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
		echo "bench-peer: $src has local changes; measuring its HEAD ($commit) as committed" >&2
	fi
else
	commit="unknown (not a git checkout)"
fi
sim=$out/simpler
if [ "$(cat "$out/simpler.commit" 2>/dev/null)" != "$commit" ] || [ ! -d "$sim/src" ]; then
	echo "bench-peer: build copy of simpler $commit in $sim" >&2
	rm -rf "$sim"
	mkdir -p "$sim"
	if [ "${commit#unknown}" = "$commit" ]; then
		git -C "$src" archive --format=tar HEAD | tar -x -C "$sim"
	else
		(cd "$src" && tar -c --exclude=./build --exclude=./.git .) | tar -x -C "$sim"
	fi
	f=$sim/src/common/platform/sim/host/device_runner_base.cpp
	grep -q 'const int block_dim = SIM_AUTO_BLOCKDIM;' "$f" || {
		echo "bench-peer: $f no longer has 'const int block_dim = SIM_AUTO_BLOCKDIM;': update the patch in $0" >&2
		exit 1
	}
	sed -i 's|const int block_dim = SIM_AUTO_BLOCKDIM;|const int block_dim = getenv("PTO_PEER_SIM_BLOCKDIM") ? atoi(getenv("PTO_PEER_SIM_BLOCKDIM")) : SIM_AUTO_BLOCKDIM; /* pto-npu bench-peer */|' "$f"
	grep -q '^#include <cstdlib>' "$f" || sed -i '0,/^#include/s//#include <cstdlib>\n#include/' "$f"
	echo "$commit" >"$out/simpler.commit"
fi

lib=$sim/build/lib/a2a3/sim/tensormap_and_ringbuffer
if [ ! -f "$lib/libhost_runtime.so" ] || [ ! -f "$sim/build/lib/libcpu_sim_context.so" ]; then
	echo "bench-peer: building simpler's a2a3sim runtime (a few minutes)" >&2
	(cd "$sim" && python3 simpler_setup/build_runtimes.py --platforms a2a3sim) >"$out/build-runtimes.log" 2>&1 || {
		tail -30 "$out/build-runtimes.log" >&2
		echo "bench-peer: simpler_setup/build_runtimes.py failed; log: $out/build-runtimes.log" >&2
		exit 1
	}
fi

# stale TARGET DEP...: TARGET is missing or older than a DEP.
stale() {
	t=$1
	shift
	[ -f "$t" ] || return 0
	for d in "$@"; do
		[ -z "$(find "$d" -newer "$t")" ] || return 0
	done
	return 1
}

# The orchestration, as simpler's KernelCompiler builds one for a2a3sim
# (host g++, C++17, the runtime's orchestration sources beside it).
rt=$sim/src/a2a3/runtime/tensormap_and_ringbuffer
inc="-I$rt/runtime -I$rt/orchestration -I$rt/common -I$sim/src/a2a3/runtime -I$sim/src/common/task_interface \
	-I$sim/src/common -I$sim/src/a2a3/platform/include -I$sim/src/common/platform/include \
	-I$sim/src/common/log/include"
flags="-shared -fPIC -O3 -g -std=c++17 -fno-gnu-unique -pthread -Wl,--build-id=sha1"
if stale "$out/sim_orch.so" "$here/sim_orch.cpp" "$0"; then
	# shellcheck disable=SC2086 # word lists
	$cxx $flags -Wall -Wextra -Werror -c $inc -o "$out/sim_orch.o" "$here/sim_orch.cpp"
	# shellcheck disable=SC2086
	$cxx $flags $inc -o "$out/sim_orch.so" "$out/sim_orch.o" "$rt"/orchestration/*.cpp \
		"$sim/src/common/platform/sim/aicpu/cache_ops.cpp" "$sim/src/common/platform/sim/aicpu/device_time.cpp" \
		"$sim/src/common/log/host_log.cpp" "$sim/src/common/log/unified_log_host.cpp"
fi
if stale "$out/sim_kernel.so" "$here/sim_kernel.cpp"; then
	$cxx -shared -fPIC -O2 -std=c++17 -Wall -Wextra -Werror -D__CPU_SIM -DNDEBUG \
		-o "$out/sim_kernel.so" "$here/sim_kernel.cpp"
fi

# The driver: ChipWorker and the host logger from simpler's sources, as
# simpler's own C++ unit tests link them (tests/ut/cpp/CMakeLists.txt).
w=$sim/src/common/worker
winc="-I$w -I$sim/src/common/hierarchical -I$sim/src/common/task_interface -I$sim/src/common/log/include \
	-I$sim/src/common/platform/include -I$sim/src/common"
if [ ! -f "$out/worker.a" ]; then
	mkdir -p "$out/obj"
	for f in "$w/chip_worker.cpp" "$w/chip_run_lane.cpp" "$sim/src/common/log/host_log.cpp" \
		"$sim/src/common/log/unified_log_host.cpp" "$sim/src/common/task_interface/assert_compat.cpp"; do
		# shellcheck disable=SC2086
		$cxx -O2 -g -std=c++17 -fPIC $winc -c -o "$out/obj/$(basename "$f" .cpp).o" "$f"
	done
	rm -f "$out/worker.a"
	ar rcs "$out/worker.a" "$out"/obj/*.o
fi
if stale "$out/sim-peer" "$here/sim_driver.cpp" "$out/worker.a"; then
	# simpler's headers as system headers: -Werror is for this project's code.
	# shellcheck disable=SC2046,SC2086
	$cxx -O2 -g -std=c++17 -Wall -Wextra -Werror $(echo "$winc" | sed 's/-I/-isystem /g') \
		-o "$out/sim-peer" "$here/sim_driver.cpp" \
		"$out/worker.a" -ldl -lpthread -lrt
fi
echo "bench-peer: simpler $commit built in $sim" >&2
