#!/bin/sh
# Written by vfiowiz (GPU passthrough); 'vfiowiz undo' takes it back.
# Single-GPU handover for the libvirt domain @NAME@ (gpu_mode = dynamic): the
# host uses the GPU until the VM starts and gets it back when it stops.
# libvirt's hook (/etc/libvirt/hooks/qemu) runs it as SCRIPT OPERATION SUB:
#   prepare begin  before the VM starts: stop the display manager and the
#                  graphical sessions, unbind the consoles, the firmware
#                  framebuffer and the GPU's driver, bind vfio-pci
#   started begin  the VM runs: cancel the restore timer
#   release end    the VM stopped: everything back, in reverse order
#   timeout        the timer, @TIMEOUT@ s after prepare: when the VM did not
#                  start, the host takes the GPU back
# It logs to /var/log/vfiowiz/@NAME@.log and keeps what it changed in
# /run/vfiowiz/@NAME@/.  VFIOWIZ_HOOK_ROOT prefixes every path (for tests).
set -u
NAME='@NAME@'
DEVICES='@ADDRESSES@'
UNLOAD='@UNLOAD@'
TIMEOUT=@TIMEOUT@
UNIT='@UNIT@'
R=${VFIOWIZ_HOOK_ROOT:-}
SYS=$R/sys
RUN=$R/run/vfiowiz/$NAME
LOG=$R/var/log/vfiowiz/$NAME.log
PATH=${PATH:+$PATH:}/usr/sbin:/usr/bin:/sbin:/bin
export PATH
case $0 in
/*) SELF=$0 ;;
*) SELF=$PWD/$0 ;;
esac

mkdir -p "${LOG%/*}" 2>/dev/null
log() {
	printf '%s %s\n' "$(date '+%Y-%m-%d %H:%M:%S' 2>/dev/null)" "$*" >>"$LOG" 2>/dev/null
}

have() {
	command -v "$1" >/dev/null 2>&1
}

run() {	# a command, logged with its status
	"$@" >>"$LOG" 2>&1
	rc=$?
	log "run $* (exit $rc)"
	return $rc
}

w() {	# w VALUE FILE: one sysfs write, logged
	if { printf '%s\n' "$1" >"$2"; } 2>/dev/null; then
		log "write '$1' > ${2#"$R"}"
		return 0
	fi
	log "write '$1' > ${2#"$R"} FAILED"
	return 1
}

driver_of() {	# the driver bound to a PCI function, or nothing
	l=$(readlink "$SYS/bus/pci/devices/$1/driver" 2>/dev/null) || return 0
	printf '%s\n' "${l##*/}"
}

vtcon_with() {	# vtcon_with NAME BIND: a text console of that driver in that state
	for v in "$SYS"/class/vtconsole/vtcon*; do
		case $(cat "$v/name" 2>/dev/null) in
		*"$1"*) [ "$(cat "$v/bind" 2>/dev/null)" = "$2" ] && return 0 ;;
		esac
	done
	return 1
}

reverse() {
	out=
	for x in "$@"; do
		out="$x${out:+ $out}"
	done
	printf '%s\n' "$out"
}

disarm() {
	have systemctl || return 0
	systemctl stop "$UNIT.timer" >/dev/null 2>&1
	systemctl reset-failed "$UNIT.timer" "$UNIT.service" >/dev/null 2>&1
	return 0
}

arm() {	# restore the host if the VM has not started after TIMEOUT seconds
	disarm
	if have systemd-run; then
		run systemd-run --quiet --collect --unit="$UNIT" --on-active="$TIMEOUT" "$SELF" timeout
	else
		# libvirt waits until the hook's output is closed: detach fully.
		# shellcheck disable=SC2016 # expanded by the inner shell
		setsid sh -c 'sleep "$1"; exec "$2" timeout' sh "$TIMEOUT" "$SELF" \
			</dev/null >/dev/null 2>&1 &
		log "timer: restore in $TIMEOUT s (process $!)"
	fi
}

prepare() {
	log "prepare: $NAME starts; the host lets go of $DEVICES"
	rm -rf "$RUN"
	mkdir -p "$RUN" || {
		log "cannot create $RUN"
		return 1
	}
	: >"$RUN/prepared"
	arm

	# 1. The display manager and graphical sessions hold the GPU open.
	if have systemctl && systemctl is-active --quiet display-manager.service; then
		echo display-manager.service >"$RUN/dm"
		run systemctl stop display-manager.service
	fi
	if have loginctl; then
		loginctl list-sessions --no-legend 2>/dev/null | while read -r s _; do
			case $(loginctl show-session "$s" -p Type --value 2>/dev/null) in
			x11 | wayland | mir) run loginctl terminate-session "$s" ;;
			esac
		done
	fi

	# 2. The text consoles drawn on the framebuffer.
	for vt in "$SYS"/class/vtconsole/vtcon*; do
		[ -e "$vt/bind" ] || continue
		[ "$(cat "$vt/bind" 2>/dev/null)" = 1 ] || continue
		case $(cat "$vt/name" 2>/dev/null) in
		*"frame buffer"*) w 0 "$vt/bind" && echo "${vt##*/}" >>"$RUN/vtcon" ;;
		esac
	done

	# 3. The firmware's framebuffer (efifb, simplefb/simpledrm, vesafb).
	for fb in efi-framebuffer simple-framebuffer vesa-framebuffer; do
		for d in "$SYS/bus/platform/drivers/$fb/$fb".*; do
			[ -e "$d" ] || continue
			w "${d##*/}" "$SYS/bus/platform/drivers/$fb/unbind" &&
				echo "$fb ${d##*/}" >>"$RUN/fb"
		done
	done

	# 4. The GPU's functions leave their host drivers ...
	for dev in $DEVICES; do
		p=$SYS/bus/pci/devices/$dev
		[ -e "$p" ] || {
			log "$dev: no such device"
			continue
		}
		drv=$(driver_of "$dev")
		echo "$dev ${drv:--}" >>"$RUN/drivers"
		w vfio-pci "$p/driver_override"
		if [ -n "$drv" ] && [ "$drv" != vfio-pci ]; then
			w "$dev" "$p/driver/unbind"
		fi
	done
	# ... whose modules go when they drive nothing else (NVIDIA's hold the GPU).
	for m in $UNLOAD; do
		[ -d "$SYS/module/$m" ] || continue
		run modprobe -r "$m" && echo "$m" >>"$RUN/unloaded"
	done

	# 5. vfio-pci takes them (libvirt's managed hostdevs find them there).
	run modprobe vfio-pci
	for dev in $DEVICES; do
		[ -e "$SYS/bus/pci/devices/$dev" ] || continue
		[ "$(driver_of "$dev")" = vfio-pci ] || w "$dev" "$SYS/bus/pci/drivers_probe"
		drv=$(driver_of "$dev")
		log "$dev: on ${drv:-no driver}"
	done
	log "prepare: done"
}

restore() {
	log "restore: the host takes back $DEVICES"
	disarm
	# 5. vfio-pci lets go (libvirt may have given them back already).
	# shellcheck disable=SC2086 # a list of addresses
	for dev in $(reverse $DEVICES); do
		p=$SYS/bus/pci/devices/$dev
		[ -e "$p" ] || continue
		[ "$(driver_of "$dev")" = vfio-pci ] && w "$dev" "$p/driver/unbind"
		w "" "$p/driver_override"
	done
	# 4. The unloaded modules come back, the functions to their drivers.
	if [ -f "$RUN/unloaded" ]; then
		# shellcheck disable=SC2046 # one module name a line
		for m in $(reverse $(cat "$RUN/unloaded")); do
			run modprobe "$m"
		done
	fi
	# shellcheck disable=SC2086 # a list of addresses
	for dev in $(reverse $DEVICES); do
		[ -e "$SYS/bus/pci/devices/$dev" ] || continue
		[ -n "$(driver_of "$dev")" ] || w "$dev" "$SYS/bus/pci/drivers_probe"
		drv=$(driver_of "$dev")
		log "$dev: on ${drv:-no driver}"
	done
	# 3. The firmware framebuffer, 2. the consoles, 1. the display manager.
	if [ -f "$RUN/fb" ]; then
		# shellcheck disable=SC2046 # "driver device" a line
		for fb in $(reverse $(tr ' ' '/' <"$RUN/fb")); do
			w "${fb#*/}" "$SYS/bus/platform/drivers/${fb%/*}/bind"
		done
	fi
	if [ -f "$RUN/vtcon" ]; then
		# shellcheck disable=SC2046 # one vtconN a line
		for vt in $(reverse $(cat "$RUN/vtcon")); do
			w 1 "$SYS/class/vtconsole/$vt/bind"
		done
		# Where the kernel's default console is VGA text (BIOS boots),
		# that bind finds nothing to take over: unbinding the dummy
		# console hands its consoles to the next driver, fbcon.
		if vtcon_with "frame buffer" 0; then
			for vt in "$SYS"/class/vtconsole/vtcon*; do
				case $(cat "$vt/name" 2>/dev/null) in
				*"dummy device"*) [ "$(cat "$vt/bind" 2>/dev/null)" = 1 ] && w 0 "$vt/bind" ;;
				esac
			done
		fi
	fi
	if [ -f "$RUN/dm" ]; then
		while read -r u; do
			run systemctl start "$u"
		done <"$RUN/dm"
	fi
	rm -rf "$RUN"
	log "restore: done"
}

case ${1:-}/${2:-} in
prepare/begin) prepare ;;
started/begin)
	[ -d "$RUN" ] && : >"$RUN/started"
	disarm
	log "started: $NAME runs; restore timer cancelled"
	;;
release/end) restore ;;
timeout/*)
	if ! [ -e "$RUN/prepared" ] || [ -e "$RUN/started" ]; then
		log "timeout: nothing to do"
		exit 0
	fi
	st=
	have virsh && st=$(virsh domstate "$NAME" 2>/dev/null)
	case $st in
	running* | paused* | "in shutdown"*)
		: >"$RUN/started"
		log "timeout: $NAME is $st; nothing to do"
		exit 0
		;;
	esac
	log "timeout: $NAME did not start within $TIMEOUT s"
	restore
	;;
esac
exit 0
