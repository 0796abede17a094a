#!/bin/sh
# Build the VM's initramfs: busybox-static, the modules, libpto, tools,
# examples, selftests, the benchmark (build/bench) and every shared library
# they need (found with ldd).
#
# usage: mkinitramfs.sh BUILD_DIR OUTPUT.cpio
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=$(cd "$1" && pwd)
out=$2
stage="$build/vm/initramfs"

rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/sbin" "$stage/dev" "$stage/proc" "$stage/sys" \
	"$stage/tmp" "$stage/etc" "$stage/pto/bin" "$stage/pto/lib" \
	"$stage/pto/modules" "$stage/pto/selftests" "$stage/pto/examples" \
	"$stage/pto/out" "$stage/pto/bench"

cp /bin/busybox "$stage/bin/busybox"
cp "$here/init.sh" "$stage/init"
cp "$here/demo.sh" "$stage/pto/demo.sh"
chmod +x "$stage/init"

for ko in "$top"/kmod/*.ko; do
	[ -f "$ko" ] && cp "$ko" "$stage/pto/modules/"
done
cp -P "$build"/lib/libpto.so* "$stage/pto/lib/"
for d in bin selftests examples; do
	for f in "$build/$d"/*; do
		[ -f "$f" ] && [ -x "$f" ] && cp "$f" "$stage/pto/$d/"
	done
done

# make bench: pto-bench and the module built against the bench kernel.
for f in "$build"/bench/pto-bench "$build"/bench/*.ko; do
	[ -f "$f" ] && cp "$f" "$stage/pto/bench/"
done

# PTO_VM_PERF=1 (make bench-perf): perf, to profile the bench in the VM.
if [ -n "${PTO_VM_PERF:-}" ] && command -v perf >/dev/null; then
	cp -L "$(command -v perf)" "$stage/pto/bin/perf"
fi

# Shared libraries of everything we ship (libpto resolves through RPATH).
for f in "$stage"/pto/bin/* "$stage"/pto/selftests/* "$stage"/pto/examples/* \
	"$stage"/pto/bench/pto-bench \
	"$stage"/pto/lib/libpto.so.1; do
	[ -f "$f" ] || continue
	LD_LIBRARY_PATH="$build/lib" ldd "$f" 2>/dev/null | awk '/=>/ { print $3 } /^\t\// { print $1 }'
done | sort -u | while IFS= read -r lib; do
	case "$lib" in
	"$build"/*|"") continue ;;
	esac
	mkdir -p "$stage$(dirname "$lib")"
	cp -L "$lib" "$stage$lib"
done
# The dynamic loader at the path binaries ask for.
mkdir -p "$stage/lib64"
cp -L /lib64/ld-linux-x86-64.so.2 "$stage/lib64/"

(cd "$stage" && find . | cpio -o -H newc --quiet) >"$out"
