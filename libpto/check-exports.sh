#!/bin/sh
# SPDX-License-Identifier: MIT
# Checks that libpto.so exports exactly its public API: the PTO_API
# functions declared in libpto/include/pto/*.h, the names of libpto.map's
# version nodes, and the library's defined dynamic symbols are one set.
#
#   libpto/check-exports.sh LIBPTO_SO MAP HEADER...
set -eu
so=$1 map=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A declaration may span lines: PTO_API <type> <name>(.
cat "$@" | tr '\n' ' ' | grep -oE 'PTO_API[^;(]*\(' | grep -oE '[A-Za-z_0-9]+\($' |
	tr -d '(' | grep -v '^__' | sort >"$tmp/api"
grep -oE '^[[:space:]]+pto_[A-Za-z_0-9]+;' "$map" | tr -d ' \t;' | sort >"$tmp/map"
# Defined symbols, without their version (name@@PTO_1.0) and the nodes'
# own absolute symbols.
nm -D --defined-only "$so" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' |
	sort >"$tmp/so"

ok=0
if ! cmp -s "$tmp/api" "$tmp/map"; then
	echo "$map: not the PTO_API functions of the headers (< headers, > map):" >&2
	diff "$tmp/api" "$tmp/map" >&2 || true
	ok=1
fi
if ! cmp -s "$tmp/api" "$tmp/so"; then
	echo "$so: exports other than the PTO_API functions (< headers, > library):" >&2
	diff "$tmp/api" "$tmp/so" >&2 || true
	ok=1
fi
exit $ok
