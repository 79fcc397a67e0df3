#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Real-terminal tests of the wizard in tmux: the whole walk on the demo host
# in en, fr, it and es; a resize in the middle of a step; the too-small
# message; TERM=xterm-256color, screen, tmux, linux and vt100; NO_COLOR; and
# the terminal given back after q and after Ctrl-C.
#
# Screens are read with capture-pane and compared by their text.  Nothing
# waits a fixed time: wait_for polls the pane until the text shows, up to a
# deadline, and fails with the screen it saw.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
bin="$top_builddir/vfiowiz"
demo="${VFIOWIZ_DEMO:-$top_builddir/tests/out/hosts/demo}"

command -v tmux >/dev/null 2>&1 || { echo "SKIP: no tmux"; exit 77; }
[ -d "$demo/sys" ] || { echo "the demo host is not built: $demo"; exit 99; }
# shellcheck source=tests/load.sh
. "$top_srcdir/tests/load.sh"
tmp=$(mktemp -d) || exit 99
nsock=0
sock="$tmp/tmux.0"
T() { tmux -S "$sock" "$@"; }
# One server per run: a fresh socket never meets a server still going away.
kill_all() { for s in "$tmp"/tmux.*; do [ -S "$s" ] && tmux -S "$s" kill-server >/dev/null 2>&1; done; }
trap 'kill_all; rm -rf "$tmp"' EXIT
fail=0

# Catalogs from the po files, so the test needs no installed locale.
langs="en"
if command -v msgfmt >/dev/null 2>&1 && command -v gettext >/dev/null 2>&1; then
	for l in fr it es; do
		mkdir -p "$tmp/locale/$l/LC_MESSAGES"
		msgfmt -o "$tmp/locale/$l/LC_MESSAGES/vfiowiz.mo" "$top_srcdir/po/$l.po" && langs="$langs $l"
	done
else
	echo "note: no msgfmt/gettext, English only"
fi

# The translation of msgid in language $LANG_ (what the wizard shows).
tr_() {
	if [ "$LANG_" = en ]; then
		printf '%s' "$1"
	else
		LANGUAGE=$LANG_ LC_ALL=C.UTF-8 TEXTDOMAINDIR="$tmp/locale" gettext -d vfiowiz -- "$1"
	fi
}

now_ms() { date +%s%3N; }

# wait_for TEXT [MS]: poll the pane until TEXT shows (default deadline 10 s,
# scaled with the load: tests/load.sh).
wait_for() {
	deadline=$(($(now_ms) + $(scaled "${2:-10000}")))
	while :; do
		T capture-pane -p -t w >"$tmp/screen" 2>/dev/null
		grep -qF -- "$1" "$tmp/screen" && return 0
		if [ "$(now_ms)" -ge "$deadline" ]; then
			echo "FAIL [$what]: no \"$1\" on the screen:"
			sed 's/^/    |/' "$tmp/screen"
			fail=$((fail + 1))
			return 1
		fi
		sleep 0.02	# the poll interval, not a synchronisation
	done
}

# wait_gone TEXT: poll until TEXT is no longer on the screen.
wait_gone() {
	deadline=$(($(now_ms) + $(scaled 10000)))
	while :; do
		T capture-pane -p -t w >"$tmp/screen" 2>/dev/null
		grep -qF -- "$1" "$tmp/screen" || return 0
		if [ "$(now_ms)" -ge "$deadline" ]; then
			echo "FAIL [$what]: \"$1\" stays on the screen"
			fail=$((fail + 1))
			return 1
		fi
		sleep 0.02
	done
}

# wait_for_width COLS: the title line reaches the last column but one (the
# host's name is drawn right-aligned), so the wizard redrew at this width.
wait_for_width() {
	deadline=$(($(now_ms) + $(scaled 10000)))
	while :; do
		T capture-pane -p -t w >"$tmp/screen" 2>/dev/null
		w=$(head -n 1 "$tmp/screen" | sed 's/ *$//' | wc -m)
		[ "$w" -eq "$1" ] && return 0	# wc -m counts the newline
		if [ "$(now_ms)" -ge "$deadline" ]; then
			echo "FAIL [$what]: the title line is $w columns, not $(($1 - 1))"
			sed 's/^/    |/' "$tmp/screen"
			fail=$((fail + 1))
			return 1
		fi
		sleep 0.02
	done
}

keys() { T send-keys -t w "$@"; }

# start LANG TERM [ENV...]: the wizard on a fresh copy of the demo host in an
# 80x24 pane; when it ends the pane stays, showing EXITED-<status>.
start() {
	LANG_=$1 term=$2
	shift 2
	T kill-server >/dev/null 2>&1
	nsock=$((nsock + 1))
	sock="$tmp/tmux.$nsock"
	T -f /dev/null new-session -d -s w -x 80 -y 24 \
		"trap '' INT; env LANGUAGE=$LANG_ LC_ALL=C.UTF-8 TERM=$term VFIOWIZ_LOCALEDIR=$tmp/locale \
		VFIOWIZ_DEMO=$demo $* timeout --foreground $(scaled 300) $bin --demo; echo EXITED-\$?; exec cat" || {
		echo "FAIL: tmux cannot start"; exit 99; }
	T set-option -t w -g window-size manual >/dev/null 2>&1
}

# ---- the whole walk, in every language ----------------------------------
for LANG_ in $langs; do
	what="walk $LANG_"
	start "$LANG_" tmux-256color
	t_checks=$(tr_ "Host checks")
	wait_for "1/9  $t_checks" || continue
	if [ "$LANG_" != en ] && [ "$t_checks" = "Host checks" ]; then
		echo "FAIL [$what]: no translation of the step titles"
		fail=$((fail + 1))
	fi
	keys Enter
	wait_for "2/9  $(tr_ "GPU selection")" || continue
	wait_for "RTX 3090"
	keys Down Space
	wait_for "[x] 0000:09:00.0" || continue

	# a resize in the middle of the step, then too small, then back
	T resize-window -t w -x 100 -y 30
	wait_for_width 100
	T resize-window -t w -x 70 -y 20
	wait_for "70x20"
	wait_for "80x24"
	T resize-window -t w -x 80 -y 24
	wait_for "[x] 0000:09:00.0"

	keys Enter
	wait_for "3/9  $(tr_ "IOMMU groups")" || continue
	keys Enter
	wait_for "4/9  $(tr_ "Host driver isolation")" || continue
	keys Enter
	wait_for "5/9  $(tr_ "VM configuration")" || continue
	keys g p u - v m
	wait_for "gpu-vm"
	keys Enter
	wait_for "6/9  $(tr_ "Guest access")" || continue
	keys Space Down s e c r e t 1
	wait_for "*******"
	keys Enter
	wait_for "7/9  $(tr_ "Review changes")" || continue
	wait_for "+++ b/etc/modprobe.d/vfiowiz.conf"
	keys Enter
	wait_for "8/9  $(tr_ "Apply")" || continue
	keys Enter
	wait_for "[ $(tr_ "Write them") ]" || continue
	keys Enter
	wait_for "/etc/modprobe.d/vfiowiz.conf" || continue
	wait_for "$(tr_ "written")" || continue
	keys Enter
	wait_for "9/9  $(tr_ "Reboot and verify")" || continue
	keys r
	wait_for "$(tr_ "After the reboot")" || continue
	wait_for "$(tr_ "The initramfs holds the vfio modules.")"
	# Esc goes back a step, Enter comes back; then finish
	keys Escape
	wait_for "8/9  $(tr_ "Apply")"
	keys Enter
	wait_for "9/9"
	keys Enter
	wait_for "EXITED-0" || continue
done

# ---- the terminals ------------------------------------------------------
for term in xterm-256color screen tmux linux vt100; do
	what="TERM=$term"
	start en "$term"
	wait_for "1/9  Host checks" || continue
	keys Enter
	wait_for "2/9  GPU selection" || continue
	keys Down
	wait_for "> [ ] 0000:09:00.0"
	keys q
	wait_for "EXITED-0" || continue
	state=$(T display -p -t w '#{alternate_on} #{cursor_flag}')
	[ "$state" = "0 1" ] || { echo "FAIL [$what]: terminal not restored ($state)"; fail=$((fail + 1)); }
done

# ---- no colours with NO_COLOR ------------------------------------------
what="NO_COLOR"
start en xterm-256color NO_COLOR=1
if wait_for "1/9  Host checks"; then
	T capture-pane -p -e -t w >"$tmp/escapes"
	if grep -q "$(printf '\033')\[\(3[0-7]\|4[0-7]\|38;\|48;\)" "$tmp/escapes"; then
		echo "FAIL [$what]: colours on the screen"
		fail=$((fail + 1))
	fi
	keys q
	wait_for "EXITED-0"
fi

# ---- unsaved choices: q asks; Ctrl-C quits and restores the terminal ---
what="quit"
start en xterm-256color
wait_for "1/9  Host checks" && keys Enter
# Space on the boot display first names what the host loses: Tick it.
wait_for "2/9" && keys Space
wait_for "[ Tick it ]" && keys Enter
wait_gone "[ Tick it ]" && keys q
wait_for "[ Save and quit ]" && keys Right Right Enter
wait_gone "[ Save and quit ]"
wait_for "2/9  GPU selection" && keys C-c
wait_for "EXITED-130"
state=$(T display -p -t w '#{alternate_on} #{cursor_flag}')
[ "$state" = "0 1" ] || { echo "FAIL [$what]: terminal not restored after Ctrl-C ($state)"; fail=$((fail + 1)); }

echo "tmux tests: $fail failed (languages: $langs)"
[ "$fail" -eq 0 ]
