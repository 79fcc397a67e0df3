#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The README's screenshots: real runs of `vfiowiz --demo` in an 80x24 tmux
# pane (TERM=tmux-256color, English), captured with colours
# (capture-pane -e) and drawn to PNG by tools/ansi2png.py.
#
#   tools/screenshots.sh [BUILDDIR] [OUTDIR]
#
# BUILDDIR holds the built vfiowiz and its demo host (default: the source
# tree, or $top_builddir); OUTDIR defaults to docs/screenshots/.  Needs tmux,
# python3 with Pillow and DejaVu Sans Mono (Debian: tmux python3-pil
# fonts-dejavu-core).  The wizard writes only into its private copy of the
# demo host.  The .ansi captures are kept next to the PNGs (text with
# colours: `cat` them in a terminal).
#
# Every screen is waited for by its text (no fixed sleeps): a missing text
# stops the script with the screen it saw.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-${top_builddir:-$src}}" && pwd)
out=${2:-$src/docs/screenshots}
bin="$build/vfiowiz"
demo="${VFIOWIZ_DEMO:-$build/tests/out/hosts/demo}"
py=/usr/bin/python3
[ -x "$py" ] || py=python3

[ -x "$bin" ] || { echo "screenshots: not built: $bin" >&2; exit 1; }
[ -d "$demo/sys" ] || { echo "screenshots: no demo host: $demo (make first)" >&2; exit 1; }
command -v tmux >/dev/null || { echo "screenshots: needs tmux" >&2; exit 1; }
"$py" -c 'import PIL' 2>/dev/null || { echo "screenshots: needs python3-pil" >&2; exit 1; }
mkdir -p "$out"
tmp=$(mktemp -d)
nsock=0
sock="$tmp/tmux.0"
T() { tmux -S "$sock" "$@"; }
kill_all() {
	for s in "$tmp"/tmux.*; do
		[ -S "$s" ] && tmux -S "$s" kill-server >/dev/null 2>&1 || true
	done
}
trap 'kill_all; rm -rf "$tmp"' EXIT

now_ms() { date +%s%3N; }

# wait_for TEXT: poll the pane until TEXT shows (10 s at most).
wait_for() {
	deadline=$(($(now_ms) + 10000))
	while :; do
		T capture-pane -p -t w >"$tmp/screen" 2>/dev/null || true
		grep -qF -- "$1" "$tmp/screen" && return 0
		if [ "$(now_ms)" -ge "$deadline" ]; then
			echo "screenshots: no \"$1\" on the screen:" >&2
			sed 's/^/    |/' "$tmp/screen" >&2
			exit 1
		fi
		sleep 0.05
	done
}

# start: the wizard on the demo host, in a fresh 80x24 pane (a fresh
# server each time: a new socket never meets one still going away).
start() {
	T kill-server >/dev/null 2>&1 || true
	nsock=$((nsock + 1))
	sock="$tmp/tmux.$nsock"
	T -f /dev/null new-session -d -s w -x 80 -y 24 \
		"env LANGUAGE=en LC_ALL=C.UTF-8 TERM=tmux-256color NO_COLOR= VFIOWIZ_DEMO=$demo $bin --demo; sleep 600"
	T set-option -t w -g window-size manual >/dev/null 2>&1 || true
	T set-option -t w -g status off >/dev/null 2>&1 || true
}

keys() { T send-keys -t w "$@"; }

# shot NAME: capture the pane (colours and all) and draw it.
shot() {
	# The screen settles: two identical captures in a row.
	prev=
	while :; do
		T capture-pane -p -e -t w >"$tmp/cap"
		cur=$(cksum <"$tmp/cap")
		[ "$cur" = "$prev" ] && break
		prev=$cur
		sleep 0.1
	done
	cp "$tmp/cap" "$out/$1.ansi"
	"$py" "$src/tools/ansi2png.py" "$out/$1.ansi" "$out/$1.png"
	echo "screenshots: $out/$1.png"
}

# 1. Host checks: what the wizard opens on.
start
wait_for "1/9  Host checks"
shot 01-host-checks

# 2. GPU selection, the RTX 3090 ticked (its HDMI audio goes with it).
keys Enter
wait_for "2/9  GPU selection"
keys Down Space
wait_for "[x] 0000:09:00.0"
shot 02-gpu-selection

# 4. Review: the first diffs (same run: groups, isolation, a VM named
#    gpu-vm, VNC with a password, then the review).
keys Enter
wait_for "3/9  IOMMU groups"
keys Enter
wait_for "4/9  Host driver isolation"
keys Enter
wait_for "5/9  VM configuration"
keys g p u - v m
wait_for "gpu-vm"
keys Enter
wait_for "6/9  Guest access"
keys Space Down s e c r e t 1
wait_for "*******"
keys Enter
wait_for "7/9  Review changes"
wait_for "+++ b/etc/modprobe.d/vfiowiz.conf"
keys n		# to the first hunk: a new file, then an edited one below it
wait_for "+vfio_pci"
shot 04-review-diff

# 3. IOMMU groups: the boot display (RX 6400) shares its group with the
#    chipset's USB and SATA; the cursor on the ACS override shows the groups
#    it would make, whether the kernel can, and the security warning.
start
wait_for "1/9  Host checks"
keys Enter
wait_for "2/9  GPU selection"
keys Space
wait_for "[x] 0000:05:00.0"
keys Enter
wait_for "3/9  IOMMU groups"
keys End
wait_for "The groups the kernel would make with this override"
shot 03-iommu-groups-acs
