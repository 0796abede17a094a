#!/bin/sh
# The README's install commands, run on this host into scratch roots:
# make install with a multiarch LIBDIR, a program built against the
# installed tree with pkg-config, the man pages, ptoctl --help, and
# make modules_install + depmod against a distro kernel's headers.
# Prints a TAP suite framed for parse-results.py.
#
# usage: install-check.sh BUILD_DIR KERNEL   (KERNEL: tools/vm/kernel.sh)
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=$(cd "$1" && pwd)
kernel=$2
t="$build/install-check"
multiarch=/usr/lib/x86_64-linux-gnu
rm -rf "$t"
mkdir -p "$t"

. "$here/tap.sh"
tap_suite host install 6

root="$t/root"
make -s -C "$top" install DESTDIR="$root" PREFIX=/usr LIBDIR=$multiarch >"$t/install.log" 2>&1
rc=$?
for f in $multiarch/libpto.so.1 $multiarch/libpto.so $multiarch/libpto.a \
	$multiarch/pkgconfig/libpto.pc /usr/include/pto/pto.h /usr/include/drm/pto_npu_accel.h \
	/usr/bin/ptoctl /usr/share/man/man1/ptoctl.1 /usr/share/man/man3/libpto.3 \
	/etc/udev/rules.d/70-pto-npu.rules /usr/share/doc/pto-npu/COPYING \
	/usr/share/doc/pto-npu/GPL-2.0 /usr/share/doc/pto-npu/MIT \
	/usr/lib/python3/dist-packages/pto_npu/device.py \
	/usr/lib/python3/dist-packages/pto_npu/language/_jit.py; do
	[ -e "$root$f" ] || { echo "# missing: $f"; rc=1; }
done
grep -qx "libdir=$multiarch" "$root$multiarch/pkgconfig/libpto.pc" ||
	{ echo "# libpto.pc: $(grep libdir= "$root$multiarch/pkgconfig/libpto.pc")"; rc=1; }
# Debian's python3 imports the installed package and it loads the
# installed libpto.
PYTHONPATH="$root/usr/lib/python3/dist-packages" LD_LIBRARY_PATH="$root$multiarch" \
	/usr/bin/python3 -c 'import pto_npu.language as pl, pto_npu.runtime; from pto_npu import _libpto; _libpto.lib().pto_strerror(-22)' \
	>>"$t/install.log" 2>&1 || { echo "# the installed pto_npu package does not load"; rc=1; }
[ $rc = 0 ] || cat "$t/install.log"
tap $rc "make install PREFIX=/usr LIBDIR=$multiarch"

# A program of the user's, built with pkg-config against libpto installed
# under a prefix of its own.
prefix="$t/prefix"
make -s -C "$top" install PREFIX="$prefix" LIBDIR="$prefix/lib/x86_64-linux-gnu" \
	UDEVRULESDIR="$prefix/etc/udev/rules.d" >"$t/cc.log" 2>&1
flags=$(PKG_CONFIG_PATH="$prefix/lib/x86_64-linux-gnu/pkgconfig" pkg-config --cflags --libs libpto 2>>"$t/cc.log")
# shellcheck disable=SC2086
cc -std=c11 -Wall -Wextra -Werror -o "$t/example" "$top/examples/barrier.c" $flags -lm \
	>>"$t/cc.log" 2>&1
rc=$?
[ $rc = 0 ] || { echo "# pkg-config: $flags"; cat "$t/cc.log"; }
tap $rc "a program builds and links against the installed libpto (pkg-config)"

rc=0
for m in "$root"/usr/share/man/man1/ptoctl.1 "$root"/usr/share/man/man3/libpto.3; do
	out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$m" 2>&1 >/dev/null)
	[ -z "$out" ] || { echo "# $m: $out"; rc=1; }
done
tap $rc "the man pages render without warnings"

rc=0
help=$(LD_LIBRARY_PATH="$root$multiarch" "$root/usr/bin/ptoctl" --help 2>&1) || rc=1
for c in info stat trace deps; do
	echo "$help" | grep -q "^  $c " || { echo "# ptoctl --help lacks $c"; rc=1; }
done
tap $rc "ptoctl --help lists every command"

# make modules_install against a distro kernel's headers, into a scratch
# root, then modprobe's view of it.
eval "$("$here/kernel.sh" "$kernel")"
kdir=${K_MAKE#-C }
kdir=${kdir%% *}
mods="$t/modules"
# The kernel's own modules pto_npu needs, so that depmod resolves them.
mkdir -p "$mods/lib/modules/$K_RELEASE"
cp -a "$build/kernels/$kernel/modroot/lib/modules/$K_RELEASE/kernel" "$mods/lib/modules/$K_RELEASE/" 2>/dev/null
make -s -C "$top" modules_install KDIR="$kdir" INSTALL_MOD_PATH="$mods" >"$t/modinst.log" 2>&1
rc=$?
ko=$(find "$mods/lib/modules/$K_RELEASE/updates" -name 'pto_npu.ko*' 2>/dev/null | head -n 1)
[ -n "$ko" ] || rc=1
[ $rc = 0 ] || tail -30 "$t/modinst.log"
tap $rc "make modules_install KDIR=<$kernel headers> installs pto_npu into updates/"

modprobe -d "$mods" -S "$K_RELEASE" --show-depends pto_npu >"$t/deps.log" 2>&1 &&
	grep -q drm_shmem_helper "$t/deps.log" && grep -q 'updates/.*pto_npu' "$t/deps.log"
rc=$?
[ $rc = 0 ] || cat "$t/deps.log"
tap $rc "depmod ran: modprobe resolves pto_npu and drm_shmem_helper"
# The in-tree objects were built for $kernel: leave the checkout clean.
make -s -C "$top" clean-module >/dev/null 2>&1
echo "=== PTO-END install rc=0"
echo "=== PTO-DONE"
