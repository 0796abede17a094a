#!/bin/sh
# Runs inside the VM for `make demo` (and at the end of `make check`): the
# device's topology, then every example with PTO_TRACE_DIR set, so each
# graph it runs leaves its swimlane and deps.json in /pto/out. The files and
# each example's exit status go to the host over /dev/ttyS1, where
# tools/demo/confirm.py checks the guide's "How to confirm" statements.
out=/pto/out
mkdir -p $out
fails=0
echo "== ptoctl info"
ptoctl info || fails=$((fails + 1))
: >$out/examples.txt
for ex in /pto/examples/*; do
	[ -x "$ex" ] || continue
	name=$(basename "$ex")
	echo "== $name"
	(cd $out && PTO_TRACE_DIR=$out "$ex")
	rc=$?
	echo "$name $rc" >>$out/examples.txt
	[ $rc = 0 ] || fails=$((fails + 1))
done
echo "== ptoctl stat"
ptoctl stat || fails=$((fails + 1))

export_file() {
	{
		echo "=== PTO-FILE $(basename "$1")"
		base64 "$1"
		echo "=== PTO-FILE-END"
	} >/dev/ttyS1
}
for f in $out/*.json $out/examples.txt; do
	[ -f "$f" ] && export_file "$f"
done
echo "demo: $fails failure(s)"
[ "$fails" = 0 ]
