# Sourced by the host-side suites of make check (dkms-check.sh,
# install-check.sh): a TAP suite framed for parse-results.py.
#
# tap_suite KIND NAME COUNT   opens the suite and its plan
# tap RC DESCRIPTION          one result: ok when RC is 0
n=0
tap_suite() {
	echo "=== PTO-SUITE $1 $2"
	echo "TAP version 13"
	echo "1..$3"
}
tap() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fi
}
