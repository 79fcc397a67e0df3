#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# mkimage.sh - build the guest of the real-kernel test.
#
#   mkimage.sh KVER VFIOWIZ SRCDIR OUTDIR
#
# OUTDIR/initrd.cpio   the base initramfs: busybox with its applets,
#                      kmod as modprobe (it honours modprobe.d, softdeps and
#                      install commands like the real thing), the kernel
#                      modules the test needs with their dependency closure,
#                      and /init (tests/vm/init).  What update-initramfs packs
#                      in the guest (modprobe.d, modules list, scripts, hook
#                      output) comes as a second archive appended to this one.
# OUTDIR/root/         the guest's root file system, without /etc, /var and
#                      /boot (check-vm.py adds those per machine): the same
#                      busybox, kmod and modules, vfiowiz with its shared
#                      libraries, pci.ids, augeas lenses and templates when
#                      used, the real-root init, the test step and stand-ins
#                      for update-initramfs, lsinitramfs, update-grub and
#                      driverctl.
# OUTDIR/root.list     the files of the base initramfs (for lsinitramfs).
set -eu

kver=$1
vfiowiz=$2
srcdir=$3
outdir=$4
vm=$srcdir/tests/vm

moddir=/lib/modules/$kver
base=$outdir/initrd-base
root=$outdir/root

die() { echo "mkimage: $*" >&2; exit 1; }

[ -d "$moddir" ] || die "no $moddir"
rm -rf "$base" "$root"
mkdir -p "$base" "$root"

# put DEST FILE: copy FILE to the same absolute path under DEST.
put() {
	mkdir -p "$1$(dirname "$2")"
	cp -L "$2" "$1$2"
}

# put_bin DEST SRC PATH: copy the program SRC to PATH under DEST, with the
# shared libraries and the loader ldd lists (none for a static program).
put_bin() {
	mkdir -p "$1$(dirname "$3")"
	cp -L "$2" "$1$3"
	ldd "$2" 2>/dev/null | awk '
		/=> \// { print $3; next }
		/^[ \t]*\// { print $1 }' | while read -r lib; do
		[ -e "$1$lib" ] || put "$1" "$lib"
	done
}

bb=$(command -v busybox 2>/dev/null || echo /bin/busybox)
[ -x "$bb" ] || die "busybox missing (package busybox-static)"
kmod=$(command -v kmod 2>/dev/null || echo /bin/kmod)
[ -x "$kmod" ] || die "kmod missing (package kmod)"

# What both trees share: directories, busybox and its applets, kmod.
userland() {
	for d in bin sbin usr/bin usr/sbin lib lib64 proc sys dev run tmp root; do
		mkdir -p "$1/$d"
	done
	put_bin "$1" "$bb" /bin/busybox
	for app in $("$bb" --list-full); do
		[ -e "$1/$app" ] || [ -L "$1/$app" ] || ln -s /bin/busybox "$1/$app"
	done
	put_bin "$1" "$kmod" /bin/kmod
	for t in modprobe insmod rmmod lsmod modinfo depmod; do
		rm -f "$1/sbin/$t" "$1/bin/$t" "$1/usr/sbin/$t" "$1/usr/bin/$t"
		ln -s /bin/kmod "$1/sbin/$t"
	done
}
userland "$base"
userland "$root"

# Kernel modules: the closure of what the test loads.
mods="virtio_pci virtio_blk ext4 crc32c_generic
	vfio vfio_iommu_type1 vfio_pci vfio_pci_core irqbypass
	bochs qxl snd_hda_intel snd_hda_codec_generic e1000 nvme"
for m in $mods; do
	modprobe -S "$kver" --show-depends "$m" 2>/dev/null |
		awk '$1 == "insmod" { print $2 }'
done | sort -u | while read -r ko; do
	put "$base" "$ko"
done
for f in modules.builtin modules.builtin.modinfo modules.order; do
	[ -r "$moddir/$f" ] && put "$base" "$moddir/$f"
done
depmod -b "$base" "$kver" || die "depmod failed"
mkdir -p "$root/lib/modules"
cp -a "$base$moddir" "$root/lib/modules/"
nmods=$(find "$base$moddir" -name '*.ko*' | wc -l)

# The initramfs: its /init; its /etc/modprobe.d stays empty (the overlay
# archive made by update-initramfs in the guest fills it).
cp "$vm/init" "$base/init"
chmod 755 "$base/init"
mkdir -p "$base/etc/modprobe.d" "$base/conf" "$base/scripts"
(cd "$base" && find . | LC_ALL=C sort) > "$outdir/root.list"
(cd "$base" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --quiet -R 0:0) > "$outdir/initrd.cpio"

# The root file system.
put_bin "$root" "$vfiowiz" /usr/sbin/vfiowiz
for f in /usr/share/misc/pci.ids /usr/share/hwdata/pci.ids; do
	[ -r "$f" ] && { put "$root" "$f"; break; }
done
if ldd "$vfiowiz" 2>/dev/null | grep -q libaugeas && [ -d /usr/share/augeas/lenses ]; then
	mkdir -p "$root/usr/share/augeas"
	cp -a /usr/share/augeas/lenses "$root/usr/share/augeas/"
fi
if [ -d "$srcdir/templates" ] && [ -n "$(ls -A "$srcdir/templates" 2>/dev/null)" ]; then
	mkdir -p "$root/usr/share/vfiowiz"
	cp -a "$srcdir/templates" "$root/usr/share/vfiowiz/"
fi
install -m 755 "$vm/rootinit" "$root/sbin/vwtest-init"
mkdir -p "$root/vwtest/answers" "$root/usr/share/initramfs-tools" "$root/usr/lib/vwtest"
install -m 755 "$vm/guest.sh" "$root/vwtest/guest.sh"
for a in "$vm"/answers/*.conf; do
	[ -r "$a" ] && cp "$a" "$root/vwtest/answers/"
done
for t in update-initramfs lsinitramfs update-grub; do
	install -m 755 "$vm/$t" "$root/usr/sbin/$t"
done
install -m 644 "$vm/hook-functions" "$root/usr/share/initramfs-tools/hook-functions"
# Only one machine gets driverctl (check-vm.py copies it to /usr/sbin).
install -m 755 "$vm/driverctl" "$root/usr/lib/vwtest/driverctl"
cp "$outdir/root.list" "$root/usr/lib/vwtest/base.list"

echo "mkimage: initramfs $(du -k "$outdir/initrd.cpio" | cut -f1) KiB, root $(du -sk "$root" | cut -f1) KiB, $nmods modules, kernel $kver"
