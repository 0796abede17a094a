#!/bin/sh
# Runs inside the VM for `make demo`: the device's topology, then every
# example (each checks its own result against a CPU reference).
fails=0
echo "== ptoctl info"
ptoctl info || fails=$((fails + 1))
for ex in /pto/examples/*; do
	[ -x "$ex" ] || continue
	echo "== $(basename "$ex")"
	(cd /pto/out && "$ex") || fails=$((fails + 1))
done
echo "demo: $fails failure(s)"
[ "$fails" = 0 ]
