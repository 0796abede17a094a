#!/bin/sh
# The kernels pto_npu is built for and tested on, by name; builds or fetches
# the kernel the first time (into the cache outside the checkout).
#
#   debug        Linux 6.12 from Debian's linux-source-6.12 with KASAN,
#                lockdep, kmemleak, UBSAN, KUnit (tools/vm/test.config)
#   bench        the same without the debug options (tools/vm/bench.config)
#   debian-6.12  Debian 12's own 6.12 kernel (tools/vm/distro-kernel.sh)
#   debian-sid   the newest kernel Debian has
#
# usage: kernel.sh NAME   -> prints shell assignments:
#   K_NAME K_RELEASE K_IMAGE   the kernel and its image
#   K_MAKE      make arguments that build modules against it (before M=)
#   K_MODDIR    its own module tree (distro kernels), or empty
#   K_KUNIT     y when the kernel has KUnit
set -eu

here=$(cd "$(dirname "$0")" && pwd)
name=${1:?usage: kernel.sh debug|bench|debian-6.12|debian-sid}
cache=${PTO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pto-npu}

case "$name" in
debug|bench)
	frag="$here/test.config"
	[ "$name" = debug ] || frag="$here/$name.config"
	kd=$("$here/build-kernel.sh" "$frag")
	make_args="-C $cache/linux-source-6.12 O=$kd"
	release=$(cat "$kd/include/config/kernel.release")
	image="$kd/arch/x86/boot/bzImage"
	config="$kd/.config"
	moddir=""
	;;
debian-6.12|debian-sid)
	d=$("$here/distro-kernel.sh" "$name")
	kdir=$(cat "$d/kdir")
	release=$(cat "$d/release")
	make_args="-C $kdir"
	[ "$name" = debian-6.12 ] || make_args="$make_args KERNELRELEASE=$release"
	image="$d/vmlinuz"
	config="$kdir/.config"
	moddir=$(cat "$d/moddir")
	;;
*)
	echo "kernel.sh: unknown kernel '$name' (debug, bench, debian-6.12, debian-sid)" >&2
	exit 2
	;;
esac

kunit=n
grep -Eq '^CONFIG_KUNIT=(y|m)' "$config" && kunit=y
cat <<EOT
K_NAME='$name'
K_RELEASE='$release'
K_IMAGE='$image'
K_MAKE='$make_args'
K_MODDIR='$moddir'
K_KUNIT='$kunit'
EOT
