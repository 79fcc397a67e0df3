#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Regenerate the build system.  With --deps, first install the Debian
# packages the build and the tests need (and say which).
set -e
cd "$(dirname "$0")"

if [ "$1" = "--deps" ]; then
	pkgs="build-essential autoconf automake autopoint gettext pkg-config
	      libncurses-dev libpci-dev libblkid-dev libconfuse-dev libaugeas-dev
	      augeas-lenses libxml2-dev libcmocka-dev zlib1g-dev pci.ids pciutils tmux
	      libvirt-clients shellcheck diffutils nftables dosfstools fdisk
	      e2fsprogs clang libclang-rt-14-dev debhelper ansible-core libfuse3-dev"
	missing=""
	for p in $pkgs; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		echo "autogen.sh: installing:$missing"
		[ "$(id -u)" = 0 ] && SUDO= || SUDO=sudo
		$SUDO apt-get update -qq
		DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
	else
		echo "autogen.sh: all build dependencies are installed"
	fi
fi

autopoint --force
autoreconf --install --force
