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
echo "=== PTO-DONE" >>"$hostlog"

echo "check: KUnit and kselftests in the VM (~2-4 min)" >&2
"$here/vm.sh" --mode check --build "$build" --config "$config" --log "$build/vm/check.log"

expected=$(for t in "$build"/selftests/*; do [ -x "$t" ] && basename "$t"; done | tr '\n' ' ')
exec python3 "$here/parse-results.py" --expect-kselftests "$expected" \
	"$hostlog" "$build/vm/check.log"
