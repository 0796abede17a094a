#!/bin/sh
# Runs inside the VM for `make demo` (tools/demo/run.sh) and at the end of
# `make check`: the device's topology, then every example with
# PTO_TRACE_DIR set, so each graph it runs leaves its swimlane and
# deps.json. The files and each example's exit status go to the host
# (export_file: a 9p directory, or /dev/ttyS1), where tools/demo/summary.py
# and confirm.py read them.
#
# From the environment (make demo sets them; make check runs it bare):
#   PTO_DEMO_REPS      run the examples this many times (default 1); each
#                      repetition writes /pto/out/repN/ and its files are
#                      exported as "repN--<file>" (1: /pto/out, plain names)
#   PTO_DEMO_ONLY      only these examples, separated by ':' (default all)
# The examples also write PyPTO/simpler profiles (PTO_TRACE_FORMAT=simpler:
# a directory per graph, written after the graph's run), exported as
# "<graph>/<file>" ("repN--<graph>/<file>"), for tools/demo/summary.py and
# tools/demo/test_simpler_tools.py.
#   PTO_DEMO_BENCH_ROWS, PTO_DEMO_BENCH_REPS
#                      then run those rows of pto-bench (rows separated by
#                      ':'), its PTO-BENCH lines on the console, so that the
#                      demo's gains and the bench's ratios come from one boot
out=/pto/out
reps=${PTO_DEMO_REPS:-1}
only=$(echo "${PTO_DEMO_ONLY:-}" | tr ':' ' ')
mkdir -p $out
fails=0
echo "== ptoctl info"
ptoctl info || fails=$((fails + 1))

wanted() {
	[ -z "$only" ] && return 0
	for w in $only; do
		[ "$w" = "$1" ] && return 0
	done
	return 1
}

# File $1 to the host as "$2<its base name>" ($2: "", "repN--", and/or
# "<graph>/"): into PTO_EXPORT_DIR (the host's directory over 9p,
# tools/vm/init.sh export_mount), else framed in base64 on /dev/ttyS1.
export_file() {
	if [ -n "${PTO_EXPORT_DIR:-}" ]; then
		to="$PTO_EXPORT_DIR/$2$(basename "$1")"
		mkdir -p "$(dirname "$to")" && cp "$1" "$to" && return 0
		echo "== export: $to failed; over the serial port"
	fi
	{
		echo "=== PTO-FILE $2$(basename "$1")"
		base64 "$1"
		echo "=== PTO-FILE-END"
	} >/dev/ttyS1
}

# The guide's Python (examples/python/runtime_overhead.py: its SPMD,
# predicate and early-resolve blocks) under the host's python3 over the
# 9p share (PTO_HOST_REPO, PTO_HOST_BUILD: tools/vm/init.sh), its graphs
# named py_<example>.<form>: once, all the repetitions in one interpreter
# (one import of torch, about 30 s here, not one a repetition), each
# repetition's traces in /host/tmp/pyout/repN (/host/tmp/pyout with one).
py_rc=""
py_run() {
	if [ -z "${PTO_HOST_REPO:-}" ] || [ ! -x /host/usr/bin/python3 ]; then
		echo "== py_runtime_overhead: no host python3 (the 9p share)"
		py_rc=1
		return
	fi
	echo "== py_runtime_overhead ($reps repetition(s))"
	read -r t0 _ </proc/uptime
	rm -rf /host/tmp/pyout && mkdir -p /host/tmp/pyout
	chroot /host /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp \
		PYTHONPATH="$PTO_HOST_REPO/python" \
		PTO_LIBPTO="$PTO_HOST_BUILD/lib/libpto.so" \
		PTO_TRACE_DIR=/tmp/pyout PTO_TRACE_FORMAT=simpler \
		/usr/bin/python3 "$PTO_HOST_REPO/examples/python/runtime_overhead.py" \
		--mode spmd,predicate,early_resolve --reps "$reps"
	py_rc=$?
	read -r t1 _ </proc/uptime
	echo "== py_runtime_overhead rc=$py_rc $(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }') s"
}

# Repetition $2's Python traces into $1, its status into $1/examples.txt.
py_example() {
	src=/host/tmp/pyout
	[ "$reps" -gt 1 ] && src=/host/tmp/pyout/rep$2
	echo "py_runtime_overhead $py_rc" >>"$1/examples.txt"
	[ "$py_rc" = 0 ] || fails=$((fails + 1))
	[ -d "$src" ] && cp -r "$src/." "$1/"
}

# PTO_DEMO_NO_PY: not on this kernel (tools/vm/check.sh: the debug one).
if wanted py_runtime_overhead && [ -z "${PTO_DEMO_NO_PY:-}" ]; then
	py_run
fi

r=1
while [ "$r" -le "$reps" ]; do
	dir=$out prefix=""
	if [ "$reps" -gt 1 ]; then
		dir=$out/rep$r prefix="rep$r--"
		echo "== repetition $r of $reps"
	fi
	mkdir -p "$dir"
	: >"$dir/examples.txt"
	for ex in /pto/examples/*; do
		[ -x "$ex" ] || continue
		name=$(basename "$ex")
		wanted "$name" || continue
		echo "== $name"
		read -r t0 _ </proc/uptime
		(cd "$dir" && PTO_TRACE_DIR=$dir PTO_TRACE_FORMAT=simpler "$ex")
		rc=$?
		read -r t1 _ </proc/uptime
		echo "== $name rc=$rc $(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }') s"
		echo "$name $rc" >>"$dir/examples.txt"
		[ $rc = 0 ] || fails=$((fails + 1))
	done
	[ -n "$py_rc" ] && py_example "$dir" "$r"
	read -r t0 _ </proc/uptime
	for f in "$dir"/*.json "$dir/examples.txt"; do
		[ -f "$f" ] && export_file "$f" "$prefix"
	done
	for f in "$dir"/*/*.json; do
		[ -f "$f" ] && export_file "$f" "$prefix$(basename "$(dirname "$f")")/"
	done
	read -r t1 _ </proc/uptime
	echo "== export rc=0 $(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }') s"
	# Each repetition's files leave the VM's memory once exported.
	[ "$reps" -gt 1 ] && rm -rf "$dir"
	r=$((r + 1))
done
# make check: one example under `ptoctl trace --ftrace`, its tracepoints
# beside its swimlanes (tools/demo/check_ftrace.py compares them), exported
# as "ftrace/<file>".
if [ "$reps" = 1 ] && [ -z "$only" ] && [ -x /pto/examples/early_resolve ] &&
	[ -d /sys/kernel/tracing/events/pto_npu ]; then
	echo "== ptoctl trace --ftrace -- early_resolve"
	read -r t0 _ </proc/uptime
	if ptoctl trace -o $out/ftrace --ftrace -- /pto/examples/early_resolve >/dev/null; then
		rc=0
		for f in $out/ftrace/*.json $out/ftrace/ftrace.txt; do
			[ -f "$f" ] && export_file "$f" "ftrace/"
		done
	else
		rc=1
		fails=$((fails + 1))
	fi
	read -r t1 _ </proc/uptime
	echo "== ftrace rc=$rc $(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }') s"
fi
echo "== ptoctl stat"
ptoctl stat || fails=$((fails + 1))

if [ -n "${PTO_DEMO_BENCH_ROWS:-}" ] && [ -x /pto/bench/pto-bench ]; then
	echo "== pto-bench, rows ${PTO_DEMO_BENCH_ROWS}"
	echo "=== PTO-BENCH-BEGIN"
	(cd /tmp && /pto/bench/pto-bench -r "${PTO_DEMO_BENCH_REPS:-9}" \
		-R "$(echo "$PTO_DEMO_BENCH_ROWS" | tr ':' ',')")
	echo "=== PTO-BENCH-RC rc=$?"
fi
echo "demo: $fails failure(s)"
[ "$fails" = 0 ]
