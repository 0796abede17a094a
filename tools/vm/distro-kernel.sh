#!/bin/sh
# Fetch (once) one of Debian's own kernels, as a user of that distribution
# installs it, and prepare what building and booting against it needs:
#
#   debian-6.12   Debian 12's 6.12 kernel from bookworm-security
#                 (linux-image-*-amd64-unsigned, linux-headers-*, -common,
#                 linux-kbuild-*): no KUnit, FORTIFY on, DRM as modules
#   debian-sid    the newest kernel Debian has (unstable): linux-binary-* +
#                 linux-modules-* + linux-headers-*; its linux-kbuild needs a
#                 newer C library than Debian 12's, so the build tree is
#                 prepared from linux-source-N with the headers' .config
#
# The packages come through apt with a private sources list and state
# directory (the machine's apt configuration is left alone) and are
# unpacked with dpkg-deb, never installed: nothing lands in /boot or
# /lib/modules of this machine. The newest version the archive has is taken
# the first time; later runs reuse it (PTO_DISTRO_REFRESH=1 looks again).
#
# usage: distro-kernel.sh NAME   -> prints a directory holding
#   release   the kernel's release (uname -r)
#   vmlinuz   the kernel image
#   kdir      a file naming the build tree to build modules against
#   root/     the unpacked packages; the modules under root/.../modules/<release>
set -eu

name=${1:?usage: distro-kernel.sh debian-6.12|debian-sid}
cache=${PTO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pto-npu}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

case "$name" in
debian-6.12)
	uri=http://deb.debian.org/debian-security
	suite=bookworm-security
	;;
debian-sid)
	uri=http://deb.debian.org/debian
	suite=sid
	;;
*)
	echo "distro-kernel: unknown kernel '$name' (debian-6.12, debian-sid)" >&2
	exit 2
	;;
esac

current="$cache/distro-$name.current"
if [ -z "${PTO_DISTRO_REFRESH:-}" ] && [ -f "$current" ]; then
	out=$(cat "$current")
	if [ -f "$out/.pto-done" ]; then
		echo "$out"
		exit 0
	fi
fi

mkdir -p "$cache"
exec 9>"$cache/.distro-$name.lock"
flock 9

# A private apt: its own sources, lists and download cache.
apt_dir="$cache/apt-$name"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$apt_dir/debs"
cat >"$apt_dir/sources.list" <<EOF
deb [signed-by=$keyring] $uri $suite main
EOF
set -- -o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o Dir::Etc::sourceparts=- \
	-o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir" \
	-o "Dir::Cache::archives=$apt_dir/archives" -o APT::Architecture=amd64 \
	-o Debug::NoLocking=1
# As root, apt's download sandbox user could not write to the cache.
[ "$(id -u)" -ne 0 ] || set -- "$@" -o APT::Sandbox::User=root
echo "distro-kernel: looking up $suite in $uri" >&2
apt-get "$@" -qq update >&2

newest() {
	apt-cache "$@" pkgnames 2>/dev/null | grep -E "$pattern" | sort -V | tail -n 1
}

case "$name" in
debian-6.12)
	pattern='^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$'
	pkg=$(newest "$@")
	[ -n "$pkg" ] || { echo "distro-kernel: no 6.12 kernel in $suite" >&2; exit 1; }
	release=${pkg#linux-image-}
	release=${release%-unsigned}
	base=${release%-amd64}
	pkgs="$pkg linux-headers-$release linux-headers-$base-common linux-kbuild-$base"
	;;
debian-sid)
	pattern='^linux-binary-[0-9]+\.[0-9]+\.[0-9]+\+deb[0-9]+-amd64$'
	pkg=$(newest "$@")
	[ -n "$pkg" ] || { echo "distro-kernel: no kernel in $suite" >&2; exit 1; }
	release=${pkg#linux-binary-}
	base=${release%-amd64}
	majmin=$(echo "$release" | cut -d. -f1-2)
	pkgs="$pkg linux-modules-$release linux-headers-$release linux-source-$majmin"
	;;
esac

out="$cache/distro-$name-$release"
echo "distro-kernel: $name is Linux $release (the newest in $suite)" >&2
if [ -f "$out/.pto-done" ]; then
	echo "$out" >"$current"
	echo "$out"
	exit 0
fi

rm -rf "$out"
mkdir -p "$out/root"
# shellcheck disable=SC2086
(cd "$apt_dir/debs" && rm -f ./*.deb && apt-get "$@" -qq download $pkgs >&2)
for deb in "$apt_dir"/debs/*.deb; do
	dpkg-deb -x "$deb" "$out/root"
done
echo "$release" >"$out/release"

case "$name" in
debian-6.12)
	cp "$out/root/boot/vmlinuz-$release" "$out/vmlinuz"
	kdir="$out/root/usr/src/linux-headers-$release"
	# The headers' Makefile includes the common headers by absolute path.
	sed -i "s|/usr/src/|$out/root/usr/src/|g" "$kdir/Makefile"
	;;
debian-sid)
	cp "$out/root/usr/lib/modules/$release/vmlinuz" "$out/vmlinuz"
	hdr="$out/root/usr/src/linux-headers-$release"
	kdir="$out/src"
	echo "distro-kernel: preparing a build tree from linux-source-$majmin (~2 min)" >&2
	mkdir -p "$kdir"
	tar -xJf "$out/root/usr/src/linux-source-$majmin.tar.xz" -C "$kdir" --strip-components=1
	rm -f "$out/root/usr/src/linux-source-$majmin.tar.xz"
	cp "$hdr/.config" "$kdir/.config"
	# Debian's signing keys are not in the source; modules are not signed
	# at install (see README: Secure Boot).
	"$kdir/scripts/config" --file "$kdir/.config" \
		--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
		--disable MODULE_SIG_ALL
	{
		make -C "$kdir" olddefconfig
		cp "$hdr/Module.symvers" "$kdir/Module.symvers"
		make -C "$kdir" -j"$(($(nproc) + 1))" KERNELRELEASE="$release" modules_prepare
	} >"$out/prepare.log" 2>&1 || { tail -30 "$out/prepare.log" >&2; exit 1; }
	;;
esac
echo "$kdir" >"$out/kdir"

# The distro's module index, for the guest's module tree (stage-modules.sh).
moddir=$(find "$out/root" -maxdepth 4 -type d -path "*/modules/$release" | head -n 1)
[ -n "$moddir" ] || { echo "distro-kernel: no modules/$release in the packages" >&2; exit 1; }
echo "$moddir" >"$out/moddir"
touch "$out/.pto-done"
echo "$out" >"$current"
echo "$out"
