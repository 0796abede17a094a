#!/bin/sh
# Install every build and test dependency of pto-npu (Debian 12).
# Idempotent: packages already present are not touched, and apt is only
# called when something is missing.
set -eu

PKGS="build-essential bc bison flex cpio xz-utils kmod
libelf-dev libssl-dev libdrm-dev pkg-config
linux-source-6.12 qemu-system-x86 busybox-static
sparse coccinelle python3 perl python3-matplotlib dwarves dkms
python3-numpy python3-pytest python3-torch"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done

# Node.js and npm for tools/demo/test_tef.js, unless a node and npm are
# already there (from Debian or elsewhere).
command -v npm >/dev/null || missing="$missing nodejs npm"

# Debian's udev, unpacked into the cache (never installed on this machine):
# the test VM runs its udevd to test the udev rule (tools/udev).
cache=${PTO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pto-npu}
fetch_udev() {
	[ ! -f "$cache/udev/.pto-done" ] || return 0
	echo "install-deps: unpacking Debian's udev into $cache/udev"
	rm -rf "$cache/udev" "$cache/udev.debs"
	mkdir -p "$cache/udev.debs"
	# As root, apt's download sandbox user could not write here.
	sandbox=""
	[ "$(id -u)" -ne 0 ] || sandbox="-o APT::Sandbox::User=root"
	# shellcheck disable=SC2086
	(cd "$cache/udev.debs" && apt-get -qq $sandbox download udev libsystemd-shared)
	for deb in "$cache"/udev.debs/*.deb; do
		dpkg-deb -x "$deb" "$cache/udev"
	done
	rm -rf "$cache/udev.debs"
	touch "$cache/udev/.pto-done"
}

# The Trace Event Format parsers of tools/demo/test_tef.js (npm), into the
# cache: never installed on this machine. Optional: where npm or the
# registry is unreachable the test reports SKIP.
fetch_npm() {
	npmdir="$cache/npm"
	[ ! -f "$npmdir/.pto-done-1" ] || return 0
	command -v npm >/dev/null || { echo "install-deps: no npm: trace parser tests will be skipped" >&2; return 0; }
	echo "install-deps: npm packages into $npmdir"
	mkdir -p "$npmdir"
	[ -f "$npmdir/package.json" ] || echo '{"name":"pto-npu-trace-parsers","private":true}' >"$npmdir/package.json"
	if (cd "$npmdir" && timeout 300 npm install --no-audit --no-fund --loglevel=error \
		@paulirish/trace_engine@0.0.65 @tracerbench/trace-model@8.0.0 >/dev/null); then
		touch "$npmdir/.pto-done-1"
	else
		echo "install-deps: npm install failed: trace parser tests will be skipped" >&2
	fi
}

if [ -z "$missing" ]; then
	fetch_udev
	fetch_npm
	exit 0
fi

echo "install-deps: installing:$missing (first time only, ~2 min)"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fetch_udev
fetch_npm
echo "install-deps: done"
