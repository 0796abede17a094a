#!/bin/sh
# make check: host unit tests, then KUnit + kselftests + VM checks inside
# the test VM; one summary over everything; non-zero exit on any failure.
#
# usage: check.sh BUILD_DIR CONFIG_FRAGMENT
set -eu

here=$(cd "$(dirname "$0")" && pwd)
build=$1
config=$2
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
echo "=== PTO-DONE" >>"$hostlog"

echo "check: KUnit and kselftests in the VM (~2-4 min)" >&2
"$here/vm.sh" --mode check --build "$build" --config "$config" --log "$build/vm/check.log"

# The guide's "How to confirm" statements, on the traces the examples wrote.
confirmlog="$build/vm/confirm.log"
rm -rf "$build/demo"
"$here/extract-files.py" "$build/vm/check.data" "$build/demo" >/dev/null
{
	echo "=== PTO-SUITE demo confirm"
	python3 "$here/../demo/confirm.py" --tap "$build/demo"
	echo "=== PTO-END confirm rc=0"
	echo "=== PTO-DONE"
} >"$confirmlog" 2>&1

expected=$(for t in "$build"/selftests/*; do [ -x "$t" ] && basename "$t"; done | tr '\n' ' ')
exec python3 "$here/parse-results.py" --expect-kselftests "$expected" \
	"$hostlog" "$build/vm/check.log" "$confirmlog"
