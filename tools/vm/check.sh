#!/bin/sh
# make check: host unit tests, then, on each kernel, KUnit (where the kernel
# has it) + kselftests + the examples' checks inside the VM; one summary over
# everything; non-zero exit on any failure.
#
# usage: check.sh BUILD_DIR "KERNEL..."   (names of tools/vm/kernel.sh)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
build=$1
kernels=${2:-debug}
mkdir -p "$build/vm"
hostlog="$build/vm/host-unit.log"

echo "check: host unit tests (libpto, ASan+UBSan)" >&2
: >"$hostlog"
for t in "$build"/unit/*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	echo "=== PTO-SUITE unit $name" >>"$hostlog"
	rc=0
	"$t" >>"$hostlog" 2>&1 || rc=$?
	echo "=== PTO-END $name rc=$rc" >>"$hostlog"
done
# tools/demo/render.py on synthetic swimlanes (skipped without matplotlib).
echo "=== PTO-SUITE unit render" >>"$hostlog"
rc=0
python3 "$here/../demo/test_render.py" >>"$hostlog" 2>&1 || rc=$?
echo "=== PTO-END render rc=$rc" >>"$hostlog"
# tools/demo/confirm.py: each check fails on its mutation (synthetic runs).
echo "=== PTO-SUITE unit confirm" >>"$hostlog"
rc=0
python3 "$here/../demo/test_confirm.py" >>"$hostlog" 2>&1 || rc=$?
echo "=== PTO-END confirm rc=$rc" >>"$hostlog"
# tools/demo/test_tef.js: the Trace Event Format checker on a good trace and
# its known-bad mutations (npm parsers of tools/install-deps.sh; SKIP without).
echo "=== PTO-SUITE unit tef" >>"$hostlog"
rc=0
if command -v node >/dev/null; then
	node "$here/../demo/test_tef.js" --self-test >>"$hostlog" 2>&1 || rc=$?
else
	printf '1..1\nok 1 tef # SKIP no node (tools/install-deps.sh)\n' >>"$hostlog"
fi
echo "=== PTO-END tef rc=$rc" >>"$hostlog"
echo "=== PTO-DONE" >>"$hostlog"

logs="host=$hostlog"
kunit=""
for k in $kernels; do
	start=$(date +%s)
	echo "check: $k: KUnit and kselftests in the VM" >&2
	log="$build/vm/check-$k.log"
	# A kernel or module that does not build is a failure of that kernel's
	# run, not of the whole check: the other kernels still run.
	# The guide's Python example runs on Debian's kernels: under the debug
	# kernel's KASAN, importing torch takes minutes, and the same blocks
	# run there in the python suite (python/tests/test_guide.py).
	skip="" vmenv=""
	if [ "$k" = debug ]; then
		skip="--skip python" vmenv="--env PTO_DEMO_NO_PY=1"
	fi
	# shellcheck disable=SC2086
	if ! "$here/vm.sh" --mode check --kernel "$k" --build "$build" --log "$log" $vmenv; then
		echo "=== PTO-VM-SETUP-FAILED (the kernel or the module did not build)" >>"$log"
	fi

	# The guide's "How to confirm" statements, on the traces the examples
	# wrote on this kernel.
	traces="$build/vm/traces-$k"
	confirmlog="$build/vm/confirm-$k.log"
	rm -rf "$traces"
	"$here/extract-files.py" "$build/vm/check-$k.data" "$traces" >/dev/null || true
	{
		echo "=== PTO-SUITE demo confirm"
		# shellcheck disable=SC2086
		python3 "$here/../demo/confirm.py" --tap $skip "$traces"
		echo "=== PTO-END confirm rc=0"
		echo "=== PTO-DONE"
	} >"$confirmlog" 2>&1
	# The same traces through two npm Trace Event Format parsers, and the
	# PyPTO/simpler profiles through simpler's own tools (SIMPLER_DIR: a
	# simpler checkout; never fetched: SKIP without it).
	tracelog="$build/vm/traces-$k.log"
	{
		echo "=== PTO-SUITE demo tef"
		rc=0
		if command -v node >/dev/null; then
			node "$here/../demo/test_tef.js" "$traces" || rc=$?
		else
			printf '1..1\nok 1 tef # SKIP no node (tools/install-deps.sh)\n'
		fi
		echo "=== PTO-END tef rc=$rc"
		echo "=== PTO-SUITE demo simpler"
		rc=0
		python3 "$here/../demo/test_simpler_tools.py" "$traces" || rc=$?
		echo "=== PTO-END simpler rc=$rc"
		echo "=== PTO-SUITE demo ftrace"
		rc=0
		python3 "$here/../demo/check_ftrace.py" "$traces/ftrace" || rc=$?
		echo "=== PTO-END ftrace rc=$rc"
		echo "=== PTO-DONE"
	} >"$tracelog" 2>&1
	echo "check: $k: $(($(date +%s) - start)) s" >&2
	logs="$logs $k=$log $k=$confirmlog $k=$tracelog"
	# A distro kernel: the DKMS path against its headers, on the host.
	case "$k" in
	debian-*)
		"$here/dkms-check.sh" "$k" "$build" >"$build/vm/dkms-$k.log" 2>&1
		logs="$logs $k=$build/vm/dkms-$k.log"
		;;
	esac
	if grep -q "^K_KUNIT='y'" "$build/kernels/$k/kernel.env" 2>/dev/null; then
		kunit="$kunit --expect-kunit $k"
	fi
done

# make install and make modules_install as the README gives them.
case " $kernels " in
*" debian-6.12 "*)
	"$here/install-check.sh" "$build" debian-6.12 >"$build/vm/install.log" 2>&1
	logs="$logs $build/vm/install.log"
	;;
esac

expected=$(for t in "$build"/selftests/*; do [ -x "$t" ] && basename "$t"; done | tr '\n' ' ')
# Every kernel's run also has pto-bench's rows once (tools/vm/init.sh).
expected="$expected bench"
# shellcheck disable=SC2086 # the logs are NAME=PATH words without spaces
exec python3 "$here/parse-results.py" --expect-kselftests "$expected" $kunit $logs
