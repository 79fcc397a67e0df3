#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# guest.sh - the test step of one boot, run by /sbin/vwtest-init (rootinit) on
# the real root; its output goes to the second serial port (check-vm.py).
#
# The kernel command line says what to do: vwtest.do=ACTION[,ACTION...]
#   check          vfiowiz check, text and --json
#   groups         vfiowiz groups --json --all
#   apply:NAME     vfiowiz plan, then apply --yes, with /vwtest/answers/NAME.conf,
#                  then apply --yes again (it must find nothing to change)
#   undo           vfiowiz undo --yes
#   sriov:PF       SR-IOV on the PF at address PF (answers sriov-count,
#                  sriov-vf, sriov-pf): apply, run the unit's script by hand
#                  (no systemd here) as the boot would, the VFs and their
#                  groups after each; the PF refused; undo both applies
#   hooks:NAME     vfiowiz apply --yes with /vwtest/answers/NAME.conf (gpu_mode
#                  = dynamic; libvirt's commands stood in for), then the
#                  hooks as libvirt runs them: prepare/begin, release/end,
#                  prepare/begin again and the restore timer; the devices
#                  after each
# The state of the machine (devices, drivers, the kernel's IOMMU groups,
# /dev/vfio, configuration files) is always dumped first.  Each piece of
# output stands between "VWTEST begin NAME" and "VWTEST end NAME rc=N up=T"
# (T: seconds since the kernel started).
# The guest judges nothing: the host compares and decides.
PATH=/usr/sbin:/usr/bin:/sbin:/bin
LC_ALL=C
export PATH LC_ALL

sec() {
	name=$1
	shift
	echo "VWTEST begin $name"
	"$@" 2>&1
	rc=$?
	echo
	read -r up _ < /proc/uptime
	echo "VWTEST end $name rc=$rc up=$up"
}

# addr vendor device class driver group driver_override
devices() {
	for d in /sys/bus/pci/devices/*; do
		a=${d##*/}
		drv=-
		[ -e "$d/driver" ] && drv=$(basename "$(readlink "$d/driver")")
		grp=-
		[ -e "$d/iommu_group" ] && grp=$(basename "$(readlink "$d/iommu_group")")
		ovr=$(cat "$d/driver_override" 2>/dev/null)
		echo "$a $(cat "$d/vendor") $(cat "$d/device") $(cat "$d/class") $drv $grp ${ovr:-(null)}"
	done
}

# group device, one line each: the kernel's own view
kgroups() {
	[ -d /sys/kernel/iommu_groups ] || return 0
	for g in /sys/kernel/iommu_groups/*; do
		[ -d "$g/devices" ] || continue
		for d in "$g"/devices/*; do
			[ -e "$d" ] && echo "${g##*/} ${d##*/}"
		done
	done
}

# The configuration files of the guest (what vfiowiz may have written), and
# what the next boot's initramfs holds.
conffiles() {
	for f in $(find /etc /usr/local /boot /var/lib/vfiowiz -type f 2>/dev/null | sort); do
		case $f in
		/etc/os-release | /etc/passwd | /etc/group | /etc/hostname | /boot/config-*) continue ;;
		/var/lib/vfiowiz/*) echo "=== $f"; ls -l "$f"; continue ;;
		/boot/initrd.img-*) initrd "$f"; continue ;;
		esac
		echo "=== $f"
		head -c 4096 "$f"
		echo
	done
}

initrd() {
	echo "=== $1 (initramfs overlay: files)"
	cpio -t < "$1" 2>/dev/null
	d=$(mktemp -d)
	(cd "$d" && cpio -id < "$1" 2>/dev/null)
	for f in $(cd "$d" && find . -type f | sort); do
		echo "=== $1:${f#.}"
		head -c 4096 "$d/$f"
		echo
	done
	rm -rf "$d"
}

journals() {
	ls /var/lib/vfiowiz/journal 2>/dev/null
	return 0
}

# group type, one line each
ktypes() {
	for g in /sys/kernel/iommu_groups/*; do
		[ -r "$g/type" ] && echo "${g##*/} $(cat "$g/type")"
	done
	return 0
}

# vtconN bind name, one line each: the text consoles and their drivers
vtcons() {
	for v in /sys/class/vtconsole/vtcon*; do
		[ -e "$v/bind" ] && echo "${v##*/} $(cat "$v/bind") $(cat "$v/name")"
	done
	return 0
}

vfionodes() {
	[ -d /dev/vfio ] && ls /dev/vfio
	return 0
}

# PF state: total enabled autoprobe, then one line per VF: index address
sriovstate() {
	echo "$(cat "$1/sriov_totalvfs") $(cat "$1/sriov_numvfs") $(cat "$1/sriov_drivers_autoprobe")"
	for v in "$1"/virtfn*; do
		[ -e "$v" ] && echo "${v##*/virtfn} $(basename "$(readlink "$v")")"
	done
	return 0
}

params() {
	for p in /sys/module/vfio_pci/parameters/* /sys/module/vfio_iommu_type1/parameters/*; do
		[ -r "$p" ] && echo "$p=$(cat "$p")"
	done
	return 0
}

sec uname uname -r
sec cmdline cat /proc/cmdline
sec devices devices
sec kgroups kgroups
sec ktypes ktypes
sec iommu ls /sys/class/iommu
sec vfio vfionodes
sec modules cat /proc/modules
sec params params
sec files conffiles

# For working on the test: a script put on the disk runs here.
[ -x /vwtest/debug.sh ] && sec debug /vwtest/debug.sh

read -r cmdline < /proc/cmdline
for arg in $cmdline; do
	case $arg in
	vwtest.do=*) todo=${arg#vwtest.do=} ;;
	esac
done

for act in $(echo "${todo:-check}" | tr , ' '); do
	case $act in
	check)
		sec check vfiowiz check
		sec check-json vfiowiz check --json
		;;
	groups)
		sec groups-json vfiowiz groups --json --all
		sec groups-text vfiowiz groups --all
		;;
	apply:*)
		n=${act#apply:}
		ans=/vwtest/answers/$n.conf
		sec "plan-$n" vfiowiz plan --answers "$ans"
		sec "apply-$n" vfiowiz apply --answers "$ans" --yes
		sec files-after conffiles
		sec journals-after-apply journals
		# The same answers again: nothing to change, no new journal.
		sec "reapply-$n" vfiowiz apply --answers "$ans" --yes
		sec journals-after-reapply journals
		;;
	hooks:*)
		n=${act#hooks:}
		ans=/vwtest/answers/$n.conf
		vm=$(sed -n "s/^ *name *= *[\"']\(.*\)[\"'].*/\1/p" "$ans")
		# No libvirt here: its commands (virsh define, qemu-img, the
		# daemon's restart) succeed for the apply only.
		stubs=/tmp/vwtest-stubs
		mkdir -p "$stubs" /var/lib/libvirt/images
		for c in virsh qemu-img systemctl; do
			printf '#!/bin/sh\nexit 0\n' >"$stubs/$c"
			chmod 755 "$stubs/$c"
		done
		sec "hooks-apply-$n" env PATH="$stubs:$PATH" vfiowiz apply --answers "$ans" --yes
		sec hooks-files ls -l /etc/libvirt/hooks/qemu "/etc/vfiowiz/hooks/$vm"
		sec hooks-vtcon-before vtcons
		sec hooks-prepare /etc/libvirt/hooks/qemu "$vm" prepare begin
		sec hooks-vtcon-prepared vtcons
		sec hooks-devices-prepared devices
		sec hooks-vfio vfionodes
		sec hooks-release /etc/libvirt/hooks/qemu "$vm" release end
		sec hooks-devices-released devices
		sec hooks-vfio-released vfionodes
		sec hooks-vtcon-released vtcons
		sec hooks-prepare2 /etc/libvirt/hooks/qemu "$vm" prepare begin
		sec hooks-devices-prepared2 devices
		sec hooks-vfio2 vfionodes
		# What the timer runs when the VM never started.
		sec hooks-timeout "/etc/vfiowiz/hooks/$vm" timeout
		sec hooks-devices-timeout devices
		sec hooks-vfio-timeout vfionodes
		sec hooks-vtcon-timeout vtcons
		sec hooks-log cat "/var/log/vfiowiz/$vm.log"
		;;
	sriov:*)
		pf=/sys/bus/pci/devices/${act#sriov:}
		sa=/vwtest/answers
		script=/usr/local/sbin/vfiowiz-sriov
		# No systemd: systemctl (daemon-reload, enable) succeeds, and
		# the unit's script is run by hand where the boot would run it.
		stubs=/tmp/vwtest-stubs
		mkdir -p "$stubs"
		printf '#!/bin/sh\nexit 0\n' >"$stubs/systemctl"
		chmod 755 "$stubs/systemctl"
		sec sriov-before sriovstate "$pf"
		sec sriov-count-apply env PATH="$stubs:$PATH" vfiowiz apply --answers $sa/sriov-count.conf --yes
		sec sriov-count-run "$script"
		sec sriov-count-state sriovstate "$pf"
		sec sriov-count-devices devices
		sec sriov-count-kgroups kgroups
		sec sriov-count-groups vfiowiz groups --json --all
		sec sriov-count-check vfiowiz check --json
		sec sriov-vf-plan vfiowiz plan --answers $sa/sriov-vf.conf
		sec sriov-vf-apply env PATH="$stubs:$PATH" vfiowiz apply --answers $sa/sriov-vf.conf --yes
		sec sriov-vf-script cat "$script"
		# What the next boot starts from: no VF (the count is not kept).
		echo 0 > "$pf/sriov_numvfs"
		sec sriov-vf-zero sriovstate "$pf"
		dmesg -c > /dev/null
		sec sriov-vf-run "$script"
		sec sriov-vf-dmesg dmesg
		sec sriov-vf-state sriovstate "$pf"
		sec sriov-vf-devices devices
		sec sriov-vf-kgroups kgroups
		sec sriov-vf-vfio vfionodes
		sec sriov-vf-groups vfiowiz groups --json --all
		# Twice: nothing changes the second time.
		sec sriov-vf-run2 "$script"
		sec sriov-vf-devices2 devices
		sec sriov-pf-plan vfiowiz plan --answers $sa/sriov-pf.conf
		sec sriov-undo-vf env PATH="$stubs:$PATH" vfiowiz undo --yes
		sec sriov-undo-count env PATH="$stubs:$PATH" vfiowiz undo --yes
		sec sriov-files-undone conffiles
		;;
	undo)
		sec undo vfiowiz undo --yes
		sec files-after conffiles
		;;
	*)
		echo "VWTEST fail unknown-action $act"
		;;
	esac
done
sync
