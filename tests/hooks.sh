#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The hooks of gpu_mode = dynamic (core/hooks.h), as `vfiowiz apply` writes
# them for a fixture host (turing-4fn: the RTX 2080 Ti with its HDMI audio,
# USB-C xHCI and UCSI functions, all on their host drivers):
#  1. shellcheck passes on both generated scripts (skipped without shellcheck);
#  2. run through libvirt's hook (the dispatcher) against a fake sysfs tree
#     (a temp dir with driver_override, unbind, bind and drivers_probe files)
#     and stub commands that log, they do what the kernel needs, in order:
#     prepare: display manager, sessions, fbcon, EFI framebuffer, override
#              then unbind of every function, NVIDIA modules out, vfio-pci
#              in, drivers_probe; a restore timer armed;
#     release: the reverse, in reverse order;
#     timeout: the timer restores the host when the VM never started, and
#              does nothing once it has;
#     the dispatcher runs nothing for other domains or odd names.
# A fake tree cannot react to writes as the kernel does (the driver links do
# not move by themselves): each scenario sets the links the kernel would
# have left.  The real kernel's side is in tests/vm (make check-vm).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
bin=$(cd "$top_builddir" && pwd)/vfiowiz
host="$top_builddir/tests/out/hosts/turing-4fn"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C.UTF-8 LANGUAGE='' TZ=UTC VFIOWIZ_TEMPLATES="$top_srcdir/templates"
fail=0

[ -x "$bin" ] || { echo "not built: $bin"; exit 99; }
[ -d "$host" ] || { echo "fixture hosts not built: $host"; exit 99; }

check() {	# check NAME: the status of the last command
	if [ "$2" -eq 0 ]; then
		echo "PASS: $1"
	else
		echo "FAIL: $1"
		fail=$((fail + 1))
	fi
}

# ---- the scripts, as apply writes them -----------------------------------
root="$tmp/root"
cp -a "$host" "$root" || exit 99
mkdir -p "$root/var/lib/libvirt/images"
cat >"$tmp/answers.conf" <<'EOF'
devices = {"0000:01:00.0"}
gpu_mode = dynamic
vm {
  target = libvirt
  name = "win11"
}
EOF
"$bin" --sysroot "$root" apply --yes --answers "$tmp/answers.conf" >"$tmp/apply.out" 2>&1
check "apply writes the hooks" $?
dispatcher="$root/etc/libvirt/hooks/qemu"
script="$root/etc/vfiowiz/hooks/win11"
[ -x "$dispatcher" ] && [ -x "$script" ]
check "the dispatcher and the handover script are executable" $?
[ ! -e "$root/etc/modprobe.d/vfiowiz.conf" ]
check "nothing binds the GPU at boot (no modprobe.d file)" $?

if command -v shellcheck >/dev/null 2>&1; then
	shellcheck -s sh "$dispatcher" "$script"
	check "shellcheck of the generated scripts" $?
else
	echo "SKIP: shellcheck is not installed"
fi

# ---- the fake host ---------------------------------------------------------
F="$tmp/fake"
S="$F/sys"
D=$S/bus/pci/drivers
mkdir -p "$F/etc/libvirt/hooks" "$F/etc/vfiowiz/hooks" "$F/var/log/vfiowiz" "$tmp/bin"
cp "$dispatcher" "$F/etc/libvirt/hooks/qemu"
cp "$script" "$F/etc/vfiowiz/hooks/win11"
for drv in nvidia snd_hda_intel xhci_hcd nvidia-gpu vfio-pci; do
	mkdir -p "$D/$drv"
	: >"$D/$drv/bind"
	: >"$D/$drv/unbind"
done
: >"$S/bus/pci/drivers_probe"
set -- 0000:01:00.0 nvidia 0000:01:00.1 snd_hda_intel 0000:01:00.2 xhci_hcd 0000:01:00.3 nvidia-gpu
devs="0000:01:00.0 0000:01:00.1 0000:01:00.2 0000:01:00.3"
while [ $# -gt 0 ]; do
	mkdir -p "$S/bus/pci/devices/$1"
	echo "(null)" >"$S/bus/pci/devices/$1/driver_override"
	shift 2
done
link_drivers() {	# the driver links the kernel would leave
	set -- 0000:01:00.0 "${1:-nvidia}" 0000:01:00.1 "${2:-snd_hda_intel}" \
		0000:01:00.2 "${3:-xhci_hcd}" 0000:01:00.3 "${4:-nvidia-gpu}"
	while [ $# -gt 0 ]; do
		rm -f "$S/bus/pci/devices/$1/driver"
		[ "$2" = none ] || ln -s "../../drivers/$2" "$S/bus/pci/devices/$1/driver"
		shift 2
	done
}
mkdir -p "$S/class/vtconsole/vtcon0" "$S/class/vtconsole/vtcon1"
echo 0 >"$S/class/vtconsole/vtcon0/bind"
echo "(S) dummy device" >"$S/class/vtconsole/vtcon0/name"
echo 1 >"$S/class/vtconsole/vtcon1/bind"
echo "(M) frame buffer device" >"$S/class/vtconsole/vtcon1/name"
mkdir -p "$S/bus/platform/drivers/efi-framebuffer/efi-framebuffer.0"
: >"$S/bus/platform/drivers/efi-framebuffer/bind"
: >"$S/bus/platform/drivers/efi-framebuffer/unbind"
mkdir -p "$S/module/nvidia_drm" "$S/module/nvidia_modeset" "$S/module/nvidia"

# Stub commands: each logs its arguments (one list of every command, in order).
for c in systemctl loginctl modprobe systemd-run virsh; do
	cat >"$tmp/bin/$c" <<EOF
#!/bin/sh
echo "$c \$*" >>"$tmp/cmds"
case "$c \$*" in
"systemctl is-active --quiet display-manager.service") exit 0 ;;
"loginctl list-sessions --no-legend") echo "3 1000 alice seat0 tty2" ;;
"loginctl show-session 3 -p Type --value") echo wayland ;;
"virsh domstate win11") cat "$tmp/domstate" ;;
esac
exit 0
EOF
	chmod +x "$tmp/bin/$c"
done

hook() {	# libvirt's call: qemu NAME OP SUB
	: >"$tmp/cmds"
	: >"$F/var/log/vfiowiz/win11.log"
	echo "<domain/>" | VFIOWIZ_HOOK_ROOT="$F" PATH="$tmp/bin:$PATH" "$F/etc/libvirt/hooks/qemu" "$@"
}
# Commands and sysfs writes, in the order they happened (from the script's
# log: "write 'V' > /sys/..." and "run CMD (exit N)").
events() {
	sed -n "s/^[0-9-]* [0-9:]* //; s/^write \(.*\)/w \1/p; s/^run \(.*\) (exit [0-9]*)$/r \1/p" \
		"$F/var/log/vfiowiz/win11.log"
}
before() {	# before A B: the first event matching A comes before the first matching B
	a=$(events | grep -n -x -F -- "$1" | head -1 | cut -d: -f1)
	b=$(events | grep -n -x -F -- "$2" | head -1 | cut -d: -f1)
	if [ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ]; then
		return 0
	fi
	echo "  expected '$1' (line ${a:-none}) before '$2' (line ${b:-none})"
	return 1
}
in_order() {	# in_order E1 E2 ...: each before the next
	while [ $# -gt 1 ]; do
		before "$1" "$2" || return 1
		shift
	done
}

# ---- prepare ----------------------------------------------------------------
link_drivers
hook win11 prepare begin
check "prepare exits 0" $?
in_order "r systemctl stop display-manager.service" \
	"r loginctl terminate-session 3" \
	"w '0' > /sys/class/vtconsole/vtcon1/bind" \
	"w 'efi-framebuffer.0' > /sys/bus/platform/drivers/efi-framebuffer/unbind" \
	"w 'vfio-pci' > /sys/bus/pci/devices/0000:01:00.0/driver_override" \
	"w '0000:01:00.0' > /sys/bus/pci/devices/0000:01:00.0/driver/unbind" \
	"w 'vfio-pci' > /sys/bus/pci/devices/0000:01:00.3/driver_override" \
	"w '0000:01:00.3' > /sys/bus/pci/devices/0000:01:00.3/driver/unbind" \
	"r modprobe -r nvidia_drm" "r modprobe -r nvidia_modeset" "r modprobe -r nvidia" \
	"r modprobe vfio-pci" \
	"w '0000:01:00.0' > /sys/bus/pci/drivers_probe" \
	"w '0000:01:00.3' > /sys/bus/pci/drivers_probe"
check "prepare: display manager, sessions, fbcon, EFI framebuffer, drivers, modules, vfio-pci, in that order" $?
rc=0
for d in $devs; do
	before "w 'vfio-pci' > /sys/bus/pci/devices/$d/driver_override" \
		"w '$d' > /sys/bus/pci/devices/$d/driver/unbind" || rc=1
	[ "$(cat "$S/bus/pci/devices/$d/driver_override")" = vfio-pci ] || rc=1
done
check "prepare: every function gets driver_override = vfio-pci before its unbind" $rc
[ "$(cat "$D/nvidia/unbind")" = 0000:01:00.0 ] && [ "$(cat "$D/snd_hda_intel/unbind")" = 0000:01:00.1 ] &&
	[ "$(cat "$D/xhci_hcd/unbind")" = 0000:01:00.2 ] && [ "$(cat "$D/nvidia-gpu/unbind")" = 0000:01:00.3 ] &&
	[ "$(cat "$S/class/vtconsole/vtcon1/bind")" = 0 ] && [ "$(cat "$S/class/vtconsole/vtcon0/bind")" = 0 ] &&
	[ "$(cat "$S/bus/platform/drivers/efi-framebuffer/unbind")" = efi-framebuffer.0 ]
check "prepare: each function left its own driver; fbcon (not the dummy console) and efifb unbound" $?
! grep -q "nvidia_uvm" "$tmp/cmds"
check "prepare: a module that is not loaded is not unloaded" $?
grep -q "^systemd-run .*--unit=vfiowiz-restore-win11 --on-active=120 $F/etc/vfiowiz/hooks/win11 timeout$" "$tmp/cmds"
check "prepare: the restore timer is armed for 120 s" $?
timer=$(sed -n "s/^systemd-run .*--on-active=120 //p" "$tmp/cmds")

# ---- release (the VM ran; the functions are on vfio-pci) --------------------
link_drivers vfio-pci vfio-pci vfio-pci vfio-pci
hook win11 release end
check "release exits 0" $?
in_order "w '0000:01:00.3' > /sys/bus/pci/devices/0000:01:00.3/driver/unbind" \
		"w '' > /sys/bus/pci/devices/0000:01:00.3/driver_override" \
		"w '0000:01:00.0' > /sys/bus/pci/devices/0000:01:00.0/driver/unbind" \
		"w '' > /sys/bus/pci/devices/0000:01:00.0/driver_override" \
		"r modprobe nvidia" "r modprobe nvidia_modeset" "r modprobe nvidia_drm" \
		"w 'efi-framebuffer.0' > /sys/bus/platform/drivers/efi-framebuffer/bind" \
		"w '1' > /sys/class/vtconsole/vtcon1/bind" \
		"r systemctl start display-manager.service"
check "release: vfio-pci lets go, modules back, efifb, fbcon, display manager: the reverse order" $?
grep -q "^systemctl stop vfiowiz-restore-win11.timer$" "$tmp/cmds"
check "release: the restore timer is cancelled" $?
[ "$(cat "$D/vfio-pci/unbind")" = 0000:01:00.0 ] && [ "$(cat "$S/class/vtconsole/vtcon1/bind")" = 1 ] &&
	for d in $devs; do [ -z "$(cat "$S/bus/pci/devices/$d/driver_override")" ] || exit 1; done &&
	[ ! -d "$F/run/vfiowiz/win11" ]
check "release: overrides cleared, fbcon bound, state gone" $?

# ---- release with the functions driverless (libvirt gave them back, their
# module was unloaded): each is probed again, in reverse order ---------------
link_drivers
hook win11 prepare begin
link_drivers none none none none
hook win11 release end
in_order "r modprobe nvidia" \
	"w '0000:01:00.3' > /sys/bus/pci/drivers_probe" \
	"w '0000:01:00.2' > /sys/bus/pci/drivers_probe" \
	"w '0000:01:00.1' > /sys/bus/pci/drivers_probe" \
	"w '0000:01:00.0' > /sys/bus/pci/drivers_probe" \
	"r systemctl start display-manager.service"
check "release: driverless functions are probed again after the modules are back" $?

# ---- the timer: the VM never started ----------------------------------------
link_drivers
hook win11 prepare begin
echo "shut off" >"$tmp/domstate"
: >"$tmp/cmds"
VFIOWIZ_HOOK_ROOT="$F" PATH="$tmp/bin:$PATH" $timer
check "timeout exits 0" $?
grep -q "did not start within 120 s" "$F/var/log/vfiowiz/win11.log" &&
	in_order "r modprobe nvidia" "w '1' > /sys/class/vtconsole/vtcon1/bind" \
		"r systemctl start display-manager.service" &&
	[ ! -d "$F/run/vfiowiz/win11" ]
check "timeout: a VM that never started gets the host restored" $?

# ---- the timer: the VM started ----------------------------------------------
link_drivers
hook win11 prepare begin
hook win11 started begin
grep -q "^systemctl stop vfiowiz-restore-win11.timer$" "$tmp/cmds"
check "started: the restore timer is cancelled" $?
: >"$F/var/log/vfiowiz/win11.log"
VFIOWIZ_HOOK_ROOT="$F" PATH="$tmp/bin:$PATH" $timer
grep -q "timeout: nothing to do" "$F/var/log/vfiowiz/win11.log" &&
	! grep -q "^write\|restore" "$F/var/log/vfiowiz/win11.log" &&
	[ -e "$F/run/vfiowiz/win11/prepared" ]
check "timeout: nothing happens once the VM has started" $?
# A timer that fires while libvirt still reports the domain running.
rm -f "$F/run/vfiowiz/win11/started"
echo running >"$tmp/domstate"
: >"$F/var/log/vfiowiz/win11.log"
VFIOWIZ_HOOK_ROOT="$F" PATH="$tmp/bin:$PATH" $timer
grep -q "win11 is running; nothing to do" "$F/var/log/vfiowiz/win11.log" &&
	! grep -q "restore" "$F/var/log/vfiowiz/win11.log"
check "timeout: nothing happens while libvirt says the domain runs" $?
hook win11 release end

# ---- the dispatcher -----------------------------------------------------------
rc=0
for name in other ../win11 '' 'win 11'; do
	rm -f "$F/var/log/vfiowiz/win11.log"
	hook "$name" prepare begin || rc=1
	[ ! -s "$F/var/log/vfiowiz/win11.log" ] && [ ! -s "$tmp/cmds" ] || rc=1
done
check "dispatcher: other domains and odd names run nothing" $rc

echo "hooks: $fail failures"
[ "$fail" -eq 0 ]
