#!/bin/sh
# Build (once) the test kernel from Debian's linux-source-6.12 tarball with
# tinyconfig + a config fragment, into a cache outside the checkout keyed by
# the hash of the fragment, the source tarball and this script.
#
# usage: build-kernel.sh FRAGMENT   -> prints the kernel build directory
set -eu

here=$(cd "$(dirname "$0")" && pwd)
frag=${1:-$here/test.config}
src_tar=/usr/src/linux-source-6.12.tar.xz
cache=${PTO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pto-npu}

[ -f "$src_tar" ] || "$here/../install-deps.sh" >&2

# Bump when the build steps below change in a way that needs a rebuild.
build_rev=1
key=$( (cat "$frag"; echo "rev $build_rev"; ls -l --time-style=+%s "$src_tar") | sha256sum | cut -c1-16)
name=$(basename "$frag" .config)
out="$cache/kernel-$name-$key"

if [ -f "$out/.pto-done" ]; then
	echo "$out"
	exit 0
fi

# One build per cache at a time; a second caller waits, then reuses it.
mkdir -p "$cache"
exec 9>"$cache/.build.lock"
flock 9
if [ -f "$out/.pto-done" ]; then
	echo "$out"
	exit 0
fi

src="$cache/linux-source-6.12"
if [ ! -f "$src/.pto-extracted" ]; then
	echo "vm: extracting linux-source-6.12 (first time only, ~1 min)" >&2
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xJf "$src_tar" -C "$src.tmp" --strip-components=1
	mv "$src.tmp" "$src"
	touch "$src/.pto-extracted"
fi

jobs=$(( $(nproc) + 1 ))
echo "vm: building the $name kernel in $out (first time per config, ~5-10 min)" >&2
rm -rf "$out"
mkdir -p "$out"
log="$out/build.log"
{
	make -C "$src" O="$out" ARCH=x86_64 tinyconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag"
	make -C "$src" O="$out" ARCH=x86_64 olddefconfig
} >"$log" 2>&1 || { tail -40 "$log" >&2; exit 1; }

# Every option the fragment asks for must have survived olddefconfig.
bad=0
grep -E '^CONFIG_[A-Z0-9_]+=' "$frag" | while IFS= read -r line; do
	grep -qx "$line" "$out/.config" || { echo "vm: config option not applied: $line" >&2; exit 1; }
done || bad=1
[ "$bad" -eq 0 ] || exit 1

make -C "$src" O="$out" ARCH=x86_64 -j"$jobs" bzImage modules_prepare >>"$log" 2>&1 ||
	{ tail -40 "$log" >&2; exit 1; }
make -C "$src" O="$out" ARCH=x86_64 -j"$jobs" modules >>"$log" 2>&1 ||
	{ tail -40 "$log" >&2; exit 1; }
touch "$out/.pto-done"
echo "$out"
