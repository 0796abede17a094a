#!/bin/sh
# The DKMS path of the README, against one kernel's headers, on this host
# without touching its module tree: "make dkms-source" lays the sources out
# as /usr/src/pto-npu-<version>, then dkms add, build and install run as a
# user's would, install and its depmod inside a private mount namespace
# whose /lib/modules is a scratch copy of the kernel's module tree.
# Prints a TAP suite framed for parse-results.py.
#
# usage: dkms-check.sh KERNEL BUILD_DIR   (KERNEL: tools/vm/kernel.sh)
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
name=$1
build=$(cd "$2" && pwd)
t="$build/dkms/$name"
version=$(make -s -C "$top" --no-print-directory -f Makefile print-version)

. "$here/tap.sh"
tap_suite host dkms 4

eval "$("$here/kernel.sh" "$name")"
# The directory "make -C" builds modules against (the headers or the tree).
kdir=${K_MAKE#-C }
kdir=${kdir%% *}
rm -rf "$t"
mkdir -p "$t/dkms" "$t/modules/$K_RELEASE"
# The kernel's own modules that pto_npu needs, as build-module.sh staged them.
cp -a "$build/kernels/$name/modroot/lib/modules/$K_RELEASE/kernel" "$t/modules/$K_RELEASE/" 2>/dev/null
set -- --sourcetree "$t/src/usr/src" --dkmstree "$t/dkms"

make -s -C "$top" dkms-source DESTDIR="$t/src" >"$t/log" 2>&1 &&
	dkms add "pto-npu/$version" "$@" >>"$t/log" 2>&1
rc=$?
tap $rc "dkms add pto-npu/$version"

dkms build "pto-npu/$version" -k "$K_RELEASE" --kernelsourcedir "$kdir" "$@" >>"$t/log" 2>&1
rc=$?
[ $rc = 0 ] || cat "$t/log" "$t/dkms/pto-npu/$version/build/make.log" 2>/dev/null | tail -30
tap $rc "dkms build against $name ($K_RELEASE)"

# The mount point only; a container without /lib/modules gets an empty one.
[ -d /lib/modules ] || mkdir -p /lib/modules
unshare -m sh -c '
	mount --bind "$1" /lib/modules &&
	dkms install "pto-npu/$2" -k "$3" --kernelsourcedir "$4" --sourcetree "$5" --dkmstree "$6" &&
	modprobe -S "$3" --show-depends pto_npu
' sh "$t/modules" "$version" "$K_RELEASE" "$kdir" "$t/src/usr/src" "$t/dkms" >"$t/install.log" 2>&1
rc=$?
[ $rc = 0 ] || tail -30 "$t/install.log"
tap $rc "dkms install (with depmod) into /lib/modules/$K_RELEASE/updates/dkms"

ko=$(find "$t/modules/$K_RELEASE/updates/dkms" -name 'pto_npu.ko*' 2>/dev/null | head -n 1)
rc=1
if [ -n "$ko" ] && modinfo -F vermagic "$ko" | grep -q "^$K_RELEASE " &&
	grep -q 'drm_shmem_helper' "$t/install.log"; then
	rc=0
fi
[ $rc = 0 ] || { echo "# module: ${ko:-none}"; cat "$t/install.log"; }
tap $rc "the installed module carries $K_RELEASE's vermagic; modprobe resolves drm_shmem_helper"
echo "=== PTO-END dkms rc=0"
echo "=== PTO-DONE"
