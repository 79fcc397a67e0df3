#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# mkroot.sh - the cached root file system of L1, the end-to-end test's host.
#
#   mkroot.sh CACHEDIR
#
# Prints the path of a directory CACHEDIR/root-KEY holding a Debian 12
# (bookworm) minbase tree made by debootstrap with libvirt and QEMU; KEY is a
# hash of the package list, suite, mirror and this script, so a changed list
# builds a new tree and an unchanged one is reused (by later runs and by CI).
# The .deb files stay in CACHEDIR/debs for the next build.  Only Debian's
# mirror is used (VW_E2E_MIRROR, default the host's apt mirror or
# deb.debian.org).  Root only: debootstrap needs it.
# Exit 77: debootstrap is missing or the mirror cannot be reached.
set -eu

cache=$1
suite=${VW_E2E_SUITE:-bookworm}
# What L1 needs: the libvirt daemon with its QEMU driver and virsh, QEMU
# itself and OVMF for the UEFI templates; kmod (modprobe), pciutils and
# iproute2 for a look at the devices; busybox-static for the boot scripts.
# A package that fails in the chroot leaves it out here; the minimal set
# that works is what stays listed.
pkgs=${VW_E2E_PACKAGES:-libvirt-daemon,libvirt-daemon-driver-qemu,libvirt-clients,qemu-system-x86,ovmf,swtpm,swtpm-tools,kmod,pciutils,iproute2,busybox-static}

mirror=${VW_E2E_MIRROR:-}
if [ -z "$mirror" ]; then
	mirror=$(sed -n 's/^URIs: *\(http[^ ]*debian\)\/*$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
	[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 ~ /debian\/?$/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
	[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
fi

key=$( { echo "$suite $mirror $pkgs"; cat "$0"; } | sha256sum | cut -c1-16)
root=$cache/root-$key
if [ -f "$root/.vw-complete" ]; then
	echo "$root"
	exit 0
fi
command -v debootstrap >/dev/null 2>&1 || { echo "mkroot: debootstrap missing" >&2; exit 77; }
mkdir -p "$cache/debs"
rm -rf "$root.tmp"
echo "mkroot: debootstrap $suite ($pkgs) from $mirror into $root" >&2
if ! nice -n 10 debootstrap --variant=minbase --include="$pkgs" --cache-dir="$cache/debs" \
	"$suite" "$root.tmp" "$mirror" >"$cache/debootstrap-$key.log" 2>&1; then
	tail -20 "$cache/debootstrap-$key.log" >&2
	rm -rf "$root.tmp"
	echo "mkroot: debootstrap failed (log $cache/debootstrap-$key.log)" >&2
	exit 77
fi
# Smaller image, faster mkfs: no documentation, manuals or translations.
rm -rf "$root.tmp/usr/share/doc" "$root.tmp/usr/share/man" "$root.tmp/usr/share/info" \
	"$root.tmp/usr/share/locale" "$root.tmp/var/cache/apt" "$root.tmp/var/lib/apt/lists"
mkdir -p "$root.tmp/var/cache/apt" "$root.tmp/var/lib/apt/lists"
touch "$root.tmp/.vw-complete"
# Older trees of this cache are of no use any more.
for old in "$cache"/root-*; do
	[ "$old" = "$root.tmp" ] || rm -rf "$old"
done
mv "$root.tmp" "$root"
echo "$root"
