#!/bin/sh
# make bench: boot the bench VM once per pass and print the report.
#   pass 1: the rows measured on one vCPU ($BENCH_SMP, default 1): per-task
#           costs, steadiest when no vCPU can be descheduled holding a lock
#   pass 2: the rows that need cores running in parallel ($BENCH_SMP_PAR,
#           default 2): row 4, where a mixed kernel's cube and vector
#           halves overlap
# A pass none of whose rows were asked for (BENCH_ARGS=-R,...) is skipped.
#
# usage: run.sh BUILD_DIR KERNEL [BENCH_ARGS]   (KERNEL: tools/vm/kernel.sh)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
build=$1 kernel=$2 args=${3:-}
smp1=${BENCH_SMP:-1} smp2=${BENCH_SMP_PAR:-2}
py=${BENCH_PY:-python3}

rows=$(echo ",$args," | sed -n 's/.*,-R,\([^,]*\),.*/\1/p' | tr '+' ' ')
want1=0 want2=0
if [ -z "$rows" ]; then
	want1=1 want2=1
else
	for r in $rows; do
		case $r in
		4) want2=1 ;;
		*) want1=1 ;;
		esac
	done
fi

logs=""
run_pass() {
	pass=$1 smp=$2 log=$3
	rm -f "$log"
	"$here/../vm/vm.sh" --mode "bench:${args:+$args,}-P,$pass" --build "$build" \
		--kernel "$kernel" --smp "$smp" --timeout 1200 --log "$log"
	logs="$logs $log"
}
[ $want1 = 0 ] || run_pass 1 "$smp1" "$build/vm/bench.log"
[ $want2 = 0 ] || run_pass 2 "$smp2" "$build/vm/bench-par.log"
# shellcheck disable=SC2086 # the logs are paths without spaces
exec "$py" "$here/report.py" --out "$build/bench" $logs
