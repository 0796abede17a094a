#!/bin/sh
# Build pto_npu.ko (and pto_npu_kunit.ko where the kernel has KUnit) against
# one of the kernels of tools/vm/kernel.sh, from a copy of the sources so
# that builds for several kernels do not share objects, then install it as
# a driver is installed: modules_install into a module tree of the guest's
# with the modules it depends on taken from the kernel's own packages, and
# depmod, so that "modprobe pto_npu" in the guest pulls its dependencies.
#
# usage: build-module.sh NAME BUILD_DIR
#   -> BUILD_DIR/kernels/NAME/{kernel.env, kbuild/, modroot/lib/modules/<release>}
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
name=$1
mkdir -p "$2"
out="$(cd "$2" && pwd)/kernels/$name"

env=$("$here/kernel.sh" "$name")
eval "$env"
mkdir -p "$out/kbuild/kmod/tests" "$out/kbuild/uapi/drm"
echo "$env" >"$out/kernel.env"

# cp -p keeps the sources' times: an unchanged tree is not rebuilt.
src="$out/kbuild"
cp -p "$top/Kbuild" "$src/"
for f in "$top"/kmod/Kbuild "$top"/kmod/*.c "$top"/kmod/*.h; do
	case "$f" in *.mod.c) continue ;; esac
	cmp -s "$f" "$src/kmod/${f##*/}" || cp -p "$f" "$src/kmod/"
done
for f in "$top"/kmod/tests/*.c; do
	cmp -s "$f" "$src/kmod/tests/${f##*/}" || cp -p "$f" "$src/kmod/tests/"
done
for f in "$top"/uapi/drm/*.h; do
	cmp -s "$f" "$src/uapi/drm/${f##*/}" || cp -p "$f" "$src/uapi/drm/"
done

log="$out/build.log"
# shellcheck disable=SC2086 # K_MAKE is a list of arguments
make -s $K_MAKE M="$src" W=1 modules >"$log" 2>&1 || {
	cat "$log" >&2
	echo "build-module: pto_npu does not build against $K_NAME ($K_RELEASE)" >&2
	exit 1
}
# Any compiler (W=1) or modpost warning is a failure, on every kernel.
if grep -E 'warning:|WARNING:' "$log" >&2; then
	echo "build-module: warnings building against $K_NAME ($K_RELEASE)" >&2
	exit 1
fi

# modules_install, as on a real host, into the guest's tree.
root="$out/modroot"
rm -rf "$root"
# shellcheck disable=SC2086
make -s $K_MAKE M="$src" INSTALL_MOD_PATH="$root" DEPMOD=true modules_install >>"$log" 2>&1 || {
	tail -20 "$log" >&2
	exit 1
}
mods="$root/lib/modules/$K_RELEASE"

# What pto_npu needs from the kernel's own modules (drm, drm_shmem_helper,
# and theirs), found through the modules' "depends" lists.
if [ -n "$K_MODDIR" ]; then
	index="$out/module-index"
	(cd "$K_MODDIR" && find kernel -name '*.ko*') |
		awk '{ n = $0; sub(/.*\//, "", n); sub(/\.ko.*/, "", n); gsub(/-/, "_", n); print n, $0 }' >"$index"
	todo=$(find "$mods" -name 'pto_npu*.ko*' | while IFS= read -r m; do modinfo -F depends "$m"; done | tr ',' ' ')
	# And the host root's share (tools/vm/vm.sh, init.sh host_root):
	# virtio-9p over PCI, where the kernel has them as modules rather
	# than built in.
	share="virtio_pci 9pnet_virtio 9p"
	for m in $share; do
		grep -q "^$m " "$index" && todo="$todo $m"
	done
	seen=" "
	while [ -n "$(echo "$todo" | tr -d ' ')" ]; do
		next=""
		for dep in $todo; do
			dep=$(echo "$dep" | tr - _)
			case "$seen" in *" $dep "*) continue ;; esac
			seen="$seen$dep "
			path=$(awk -v n="$dep" '$1 == n { print $2; exit }' "$index")
			[ -n "$path" ] || { echo "build-module: $K_NAME has no module $dep" >&2; exit 1; }
			mkdir -p "$mods/$(dirname "$path")"
			cp "$K_MODDIR/$path" "$mods/$path"
			next="$next $(modinfo -F depends "$K_MODDIR/$path" | tr ',' ' ')"
		done
		todo=$next
	done
fi
# depmod reads these; a kernel's packages may not ship them all.
for f in modules.order modules.builtin modules.builtin.modinfo; do
	if [ -n "$K_MODDIR" ] && [ -f "$K_MODDIR/$f" ]; then
		cp "$K_MODDIR/$f" "$mods/"
	else
		: >>"$mods/$f"
	fi
done
depmod -b "$root" "$K_RELEASE"
echo "$out"
