#!/bin/sh
# Build the VM's initramfs: busybox-static, kmod (modprobe and friends), the
# kernel's module tree with pto_npu installed in it (build-module.sh),
# libpto, tools, examples, selftests, the benchmark (build/bench) and every
# shared library they need (found with ldd).
#
# usage: mkinitramfs.sh BUILD_DIR MODROOT OUTPUT.cpio
set -eu

here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)
modroot=$2
out=$3
stage="$build/vm/initramfs"

rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/sbin" "$stage/dev" "$stage/proc" "$stage/sys" \
	"$stage/tmp" "$stage/etc" "$stage/pto/bin" "$stage/pto/lib" \
	"$stage/usr/bin" "$stage/pto/selftests" "$stage/pto/examples" \
	"$stage/pto/out" "$stage/pto/bench"

cp /bin/busybox "$stage/bin/busybox"
cp "$here/init.sh" "$stage/init"
cp "$here/demo.sh" "$stage/pto/demo.sh"
chmod +x "$stage/init"

# The module tree (/lib/modules/<release>) and kmod's tools: the guest
# loads pto_npu with modprobe, as a host with the driver installed does.
cp -a "$modroot/lib" "$stage/"
cp /usr/bin/kmod "$stage/usr/bin/kmod"

# Debian's udevd with the project's rule (tools/install-deps.sh unpacks
# udev into the cache): the vm/udev suite checks the rule's owner and mode.
cache=${PTO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pto-npu}
udev="$cache/udev"
udev_libs=""
if [ -x "$udev/bin/udevadm" ]; then
	udev_libs="$udev/usr/lib/x86_64-linux-gnu/systemd"
	mkdir -p "$stage/usr/lib/systemd" "$stage/etc/udev/rules.d" "$stage/lib/x86_64-linux-gnu" \
		"$stage/usr/lib/x86_64-linux-gnu/systemd"
	cp "$udev/bin/udevadm" "$stage/usr/bin/udevadm"
	ln -s /usr/bin/udevadm "$stage/usr/lib/systemd/systemd-udevd"
	cp "$udev_libs"/libsystemd-shared-*.so "$stage/usr/lib/x86_64-linux-gnu/systemd/"
	cp "$here/../udev/70-pto-npu.rules" "$stage/etc/udev/rules.d/"
fi
cp -P "$build"/lib/libpto.so* "$stage/pto/lib/"
for d in bin selftests examples; do
	for f in "$build/$d"/*; do
		[ -f "$f" ] && [ -x "$f" ] && cp "$f" "$stage/pto/$d/"
	done
done

# make bench: pto-bench.
[ ! -f "$build/bench/pto-bench" ] || cp "$build/bench/pto-bench" "$stage/pto/bench/"

# PTO_VM_PERF=1 (make bench-perf): perf, to profile the bench in the VM.
if [ -n "${PTO_VM_PERF:-}" ] && command -v perf >/dev/null; then
	cp -L "$(command -v perf)" "$stage/pto/bin/perf"
fi

# PTO_VM_PEER=1 (make bench-peer): its staged tree (tools/bench/peer/run.sh:
# the drivers, simpler's simulator libraries, the guest script) as /pto/peer.
peer_files=""
if [ -n "${PTO_VM_PEER:-}" ] && [ -d "$build/bench/peer/vm" ]; then
	cp -a "$build/bench/peer/vm" "$stage/pto/peer"
	peer_files=$(find "$stage/pto/peer" -type f \( -name '*.so' -o -perm -u+x \))
fi

# Shared libraries of everything we ship (libpto resolves through RPATH).
# shellcheck disable=SC2086 # peer_files: paths without spaces
for f in "$stage"/pto/bin/* "$stage"/pto/selftests/* "$stage"/pto/examples/* \
	"$stage"/usr/bin/kmod "$stage"/usr/bin/udevadm \
	"$stage"/pto/bench/pto-bench $peer_files \
	"$stage"/pto/lib/libpto.so.1; do
	[ -f "$f" ] || continue
	LD_LIBRARY_PATH="$build/lib${udev_libs:+:$udev_libs}" ldd "$f" 2>/dev/null | awk '/=>/ { print $3 } /^\t\// { print $1 }'
done | sort -u | while IFS= read -r lib; do
	case "$lib" in
	"$build"/*|"$udev"/*|"") continue ;;
	esac
	mkdir -p "$stage$(dirname "$lib")"
	cp -L "$lib" "$stage$lib"
done
# The dynamic loader at the path binaries ask for.
mkdir -p "$stage/lib64"
cp -L /lib64/ld-linux-x86-64.so.2 "$stage/lib64/"

(cd "$stage" && find . | cpio -o -H newc --quiet) >"$out"
