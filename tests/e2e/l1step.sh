#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck disable=SC2086 # $VIRSH is the command and its options, split on purpose
# l1step.sh - the test step of one boot of L1 (the end-to-end test's host),
# installed as /vwtest/guest.sh and run by /sbin/vwtest-init
# (tests/vm/rootinit) after modules-load, coldplug and driverctl; its output
# goes to the second serial port, read by check-e2e.py.
#
# vwtest.do=ACTION[,ACTION...] on the kernel command line says what to do:
#   templates=A+B  for /vwtest/answers/tpl-A.conf, tpl-B.conf: vfiowiz plan,
#              the domain file it would write, defined and started paused
#              (virsh start --paused), its state, destroyed, undefined
#   apply      vfiowiz apply --answers /vwtest/answers/e2e.conf --yes
#   verify     the wizard's Verify step, headless (its screen dump)
#   run        virsh start of the domain vfiowiz defined; the L2 guest's
#              report from its serial log; virsh destroy
#   undo       vfiowiz undo --yes
# Every piece of output stands between "VWTEST begin NAME" and
# "VWTEST end NAME rc=N up=T"; the host (L0) judges.  Each command has its
# own time limit (timeout), so a hang ends its section, not the boot.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
LC_ALL=C
export PATH LC_ALL
VIRSH="virsh -c qemu:///system -q"
DOM=e2e-l2
L2LOG=/var/log/vwtest-l2.log

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

devices() {
	for d in /sys/bus/pci/devices/*; do
		drv=-
		[ -e "$d/driver" ] && drv=$(basename "$(readlink "$d/driver")")
		grp=-
		[ -e "$d/iommu_group" ] && grp=$(basename "$(readlink "$d/iommu_group")")
		echo "${d##*/} $(cat "$d/vendor") $(cat "$d/device") $(cat "$d/class") $drv $grp"
	done
}

files() {
	for f in /etc/modprobe.d/* /etc/default/grub.d/* /etc/vfiowiz/libvirt/* /boot/vwtest-cmdline; do
		[ -f "$f" ] && echo "=== $f" && cat "$f"
	done
	ls /var/lib/vfiowiz/journal 2>/dev/null
	return 0
}

# What systemd does at boot for /dev: the /dev/fd and /dev/std* links, and
# (kmod-static-nodes) the device nodes of modules that load on first open,
# /dev/vfio/vfio among them (libvirt refuses VFIO passthrough without it).
static_nodes() {
	[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
	for i in 0:stdin 1:stdout 2:stderr; do
		[ -e "/dev/${i#*:}" ] || ln -s "/proc/self/fd/${i%%:*}" "/dev/${i#*:}"
	done
	kmod static-nodes --format=tmpfiles | while read -r t path mode _ _ _ dev; do
		case $t in c*) type=c ;; b*) type=b ;; *) continue ;; esac
		[ -e "$path" ] && continue
		mkdir -p "$(dirname "$path")"
		mknod -m "$mode" "$path" $type "${dev%%:*}" "${dev##*:}"
	done
	ls -l /dev/vfio
}

# libvirtd as a daemon (no systemd in L1); ready when virsh answers.
libvirtd_start() {
	mkdir -p /run/libvirt /var/log/libvirt/qemu /var/lib/libvirt/qemu/nvram
	libvirtd --daemon || return 1
	i=0
	while [ $i -lt 60 ]; do
		$VIRSH version >/dev/null 2>&1 && { $VIRSH version; return 0; }
		sleep 0.5
		i=$((i + 1))
	done
	echo "libvirtd does not answer"
	return 1
}

# tcg FILE: the changes a domain vfiowiz writes (from the shipped
# templates) needs under L1, which has
# no KVM (L0 emulates it; so also none of the Hyper-V enlightenments that
# only KVM emulates: vpindex, runtime, synic, stimer, reset, frequencies,
# tlbflush, ipi) and no libvirt network "default" (no dnsmasq):
# each is printed, nothing else of the document is touched.  QEMU must take
# every other option as vfiowiz wrote it.
tcg() {
	cp "$1" "$1.orig"
	sed -i -e 's/<domain type="kvm"/<domain type="qemu"/' \
		-e 's/<cpu mode="host-passthrough"/<cpu mode="maximum"/' \
		-e '/<ioapic driver="kvm"\/>/d' \
		-e '/<\(vpindex\|runtime\|synic\|stimer\|reset\|frequencies\|tlbflush\|ipi\) state="on"\/>/d' \
		-e 's/<interface type="network">/<interface type="user">/' \
		-e '/<source network="default"\/>/d' "$1"
	echo "TCG adaptation of $1:"
	diff "$1.orig" "$1" | grep '^[<>]'
	return 0
}

# The domain file of a plan: the new file's lines of its diff.
plan_xml() {
	awk '/^\+\+\+ b\/etc\/vfiowiz\/libvirt\// { on = 1; next }
	     on && /^@@/ { next }
	     on && /^\+/ { print substr($0, 2); next }
	     on { exit }' "$1"
}

template() {
	conf=$1
	name=$(sed -n 's/^ *name *= *"\(.*\)".*/\1/p' "$conf" | head -1)
	timeout 60 vfiowiz plan --answers "$conf" > "/tmp/$name.plan" 2>&1
	rc=$?
	echo "plan exit $rc"
	[ $rc = 0 ] || { tail -20 "/tmp/$name.plan"; return 1; }
	plan_xml "/tmp/$name.plan" > "/tmp/$name.xml"
	[ -s "/tmp/$name.xml" ] || { echo "no domain file in the plan"; return 1; }
	tcg "/tmp/$name.xml"
	timeout 60 $VIRSH define "/tmp/$name.xml" || return 1
	timeout 120 $VIRSH start --paused "$name"
	rc=$?
	echo "state: $($VIRSH domstate "$name" 2>&1)"
	if [ $rc != 0 ]; then
		tail -20 "/var/log/libvirt/qemu/$name.log" 2>/dev/null
	else
		# The QEMU command line libvirt made of it.
		tr '\0' ' ' < "/proc/$(cat "/run/libvirt/qemu/$name.pid")/cmdline" | head -c 30000
		echo
	fi
	timeout 60 $VIRSH destroy "$name" >/dev/null 2>&1
	timeout 60 $VIRSH undefine --nvram "$name" >/dev/null 2>&1
	return $rc
}

# wait_for FILE PATTERN SECONDS: FILE gets a line matching PATTERN within
# SECONDS of L1's clock (a deadline: each check costs time under emulation).
wait_for() {
	read -r now _ < /proc/uptime
	end=$((${now%.*} + $3))
	while ! grep -q "$2" "$1" 2>/dev/null; do
		read -r now _ < /proc/uptime
		[ "${now%.*}" -lt "$end" ] || return 1
		sleep 1
	done
	return 0
}

# Run L2: virsh start of the domain vfiowiz defined (from the L2 templates
# of /vwtest/templates-l2, see check-e2e.py), its report read from the
# serial log, virsh destroy.
run_l2() {
	rm -f "$L2LOG"
	timeout 120 $VIRSH start "$DOM" || { tail -20 "/var/log/libvirt/qemu/$DOM.log"; return 1; }
	echo "started at $(cut -d' ' -f1 /proc/uptime)"
	d=/sys/bus/pci/devices/0000:01:00.0
	echo "L1 while L2 runs: ${d##*/} on $(basename "$(readlink "$d/driver")")"
	ok=0
	wait_for "$L2LOG" "^L2 done" "$(sed -n 's/.*vwtest.l2timeout=\([0-9]*\).*/\1/p' /proc/cmdline)" || ok=1
	echo "L2 log (at $(cut -d' ' -f1 /proc/uptime)):"
	tr -d '\r' < "$L2LOG" | grep -a '^L2 \|Kernel panic\|vfio\|e1000' | head -60
	[ $ok = 0 ] || { echo "timeout waiting for the L2 guest; its console:"; tail -c 3000 "$L2LOG"; tail -3 "/var/log/libvirt/qemu/$DOM.log"; }
	timeout 60 $VIRSH destroy "$DOM"
	echo "destroy exit $?"
	grep -a -i 'vfio.*\(error\|fail\)\|fault' "/var/log/libvirt/qemu/$DOM.log" | tail -10
	return $ok
}

# The wizard's state as its Apply step leaves it (the choices, applied in
# this boot, the journal): `vfiowiz apply --answers` does not write it, and
# with it `vfiowiz` opens on Verify after the reboot, as after a walk.
wizard_state() {
	j=$(ls /var/lib/vfiowiz/journal 2>/dev/null | tail -1)
	b=$(cat /proc/sys/kernel/random/boot_id)
	{
		cat /vwtest/answers/e2e.conf
		printf "progress {\n  step = 'verify'\n  boot_id = '%s'\n  applied = true\n" "$b"
		printf "  applied_boot_id = '%s'\n  journal = '%s'\n}\n" "$b" "${j%%.*}"
	} > /var/lib/vfiowiz/state.conf
	chmod 600 /var/lib/vfiowiz/state.conf
	cat /var/lib/vfiowiz/state.conf
}

# vfiowiz after the reboot, headless: one key, a text dump of each screen.
verify() {
	rm -rf /tmp/verify
	TERM=linux timeout 120 vfiowiz --script down --dump /tmp/verify --size 120x40
	echo "wizard exit $?"
	for f in /tmp/verify/*; do
		[ -f "$f" ] && { echo "=== $f"; cat "$f"; }
	done
	return 0
}

do=$(sed -n 's/.*vwtest\.do=\([^ ]*\).*/\1/p' /proc/cmdline)
sec cmdline cat /proc/cmdline
sec devices devices
sec static-nodes static_nodes
case ,$do, in
*,templates,* | *,apply,* | *,run,*) sec libvirtd libvirtd_start ;;
esac
for a in $(echo "$do" | tr ',' ' '); do
	case $a in
	templates=*)
		# templates=NAME+NAME: /vwtest/answers/tpl-NAME.conf each
		for n in $(echo "${a#templates=}" | tr '+' ' '); do
			sec "tpl-$n" template "/vwtest/answers/tpl-$n.conf"
		done
		;;
	apply)
		sec apply env VFIOWIZ_TEMPLATES=/vwtest/templates-l2 timeout 180 vfiowiz apply --answers /vwtest/answers/e2e.conf --yes
		sec journal ls -l /var/lib/vfiowiz/journal
		sec state wizard_state
		sec domains $VIRSH list --all --name
		sec files-after files
		;;
	verify)
		sec verify verify
		;;
	run)
		sec run run_l2
		sec devices-after-run devices
		;;
	undo)
		sec undo timeout 180 vfiowiz undo --yes
		sec domains-after-undo $VIRSH list --all --name
		sec files-after-undo files
		;;
	esac
done
$VIRSH list --all >/dev/null 2>&1
[ -r /var/run/libvirtd.pid ] && kill "$(cat /var/run/libvirtd.pid)" 2>/dev/null
sleep 1
