#!/bin/sh
# Install every build and test dependency of pto-npu (Debian 12).
# Idempotent: packages already present are not touched, and apt is only
# called when something is missing.
set -eu

PKGS="build-essential bc bison flex cpio xz-utils kmod
libelf-dev libssl-dev libdrm-dev pkg-config
linux-source-6.12 qemu-system-x86 busybox-static
sparse python3 perl python3-matplotlib dwarves"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
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
echo "install-deps: done"
