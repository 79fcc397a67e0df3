#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Resume after quitting and after the reboot, headless, on a copy of the
# demo host given with --sysroot (so the state file outlives each run):
#  1. walk to step 4 and quit: the next run opens on step 4, choices kept;
#  2. walk on and apply: the next run (same boot) opens on Verify and says
#     to reboot;
#  3. a new boot id (the reboot) without vfio-pci taking the card: the run
#     opens on Verify, checks, and diagnoses "host driver still owns the GPU".
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
bin="$top_builddir/vfiowiz"
demo="${VFIOWIZ_DEMO:-$top_builddir/tests/out/hosts/demo}"
[ -d "$demo/sys" ] || { echo "the demo host is not built: $demo"; exit 99; }
# shellcheck source=tests/load.sh
. "$top_srcdir/tests/load.sh"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
cp -a "$demo/." "$tmp/root" 2>/dev/null || { mkdir -p "$tmp/root" && cp -a "$demo/." "$tmp/root"; }
fail=0
n=0

# run KEYS: a headless run on the copy; $last is its last screen.
run() {
	n=$((n + 1))
	LC_ALL=C.UTF-8 LANGUAGE= TERM=xterm-256color timeout "$(scaled 20)" "$bin" --sysroot "$tmp/root" \
		--script "$1" --dump "$tmp/d$n" >"$tmp/out" 2>&1 || { echo "FAIL: run $n exited $?"; cat "$tmp/out"; fail=$((fail + 1)); }
	last=$(ls "$tmp/d$n"/*.txt | tail -n 1)
	first=$(ls "$tmp/d$n"/*.txt | head -n 1)
}
expect() {	# FILE TEXT
	grep -qF -- "$2" "$1" || { echo "FAIL: run $n: no \"$2\" in"; sed 's/^/    |/' "$1"; fail=$((fail + 1)); }
}

run "enter,down,space,enter,enter,q"
expect "$last" "4/9  Host driver isolation"
state="$tmp/root/var/lib/vfiowiz/state.conf"
[ "$(stat -c %a "$state")" = 600 ] || { echo "FAIL: state.conf is not 0600"; fail=$((fail + 1)); }
expect "$state" "step = 'isolation'"
expect "$state" "'0000:09:00'"

run ""
expect "$first" "4/9  Host driver isolation"
run "esc,esc"
expect "$last" "> [x] 0000:09:00.0"

run "enter,enter,type:gpu-vm,enter,space,down,type:secret1,enter,enter,enter,enter,enter"
expect "$last" "9/9  Reboot and verify"
expect "$state" "applied = true"
grep -q secret1 "$state" && [ "$(stat -c %a "$state")" != 600 ] && { echo "FAIL: password in a readable file"; fail=$((fail + 1)); }

run ""
expect "$first" "9/9  Reboot and verify"
expect "$first" "Reboot the host now"

echo "0b6d1f2e-1111-4c2a-9f00-5e5e5e5e5e5e" >"$tmp/root/proc/sys/kernel/random/boot_id"
run ""
expect "$first" "9/9  Reboot and verify"
expect "$first" "Welcome back"
expect "$first" "FAIL  A host driver still owns a device of the VM."
expect "$first" "The host driver still owns the GPU"

# 5. Applied by the wizard, then taken back with `vfiowiz undo`: the next
#    run must not say "the changes are written, reboot now" (nothing of them
#    is left): it forgets the apply and opens on the review.
rm -rf "$tmp/root"
cp -a "$demo/." "$tmp/root"
run "enter,down,space,enter,enter,enter,enter,type:gpu-vm,enter,space,down,type:secret1,enter,enter,enter,enter,enter"
expect "$state" "applied = true"
LC_ALL=C.UTF-8 LANGUAGE= "$bin" --sysroot "$tmp/root" undo --yes >"$tmp/out" 2>&1 ||
	{ echo "FAIL: undo"; cat "$tmp/out"; fail=$((fail + 1)); }
run ""
expect "$first" "7/9  Review changes"
expect "$first" "was undone"
expect "$state" "applied = false"

# 4. A state from before the hardware changed: the card it names is gone
#    from its slot and 0000:0b:00 holds the chipset's USB, audio and crypto
#    functions now.  The walk must not go on to review with them: the card
#    is dropped, said, and the run opens on the GPU step.
rm -rf "$tmp/root"
cp -a "$demo/." "$tmp/root"
run "enter,down,space,enter,enter,q"
sed -i "s/'0000:09:00'/'0000:0b:00'/; s/step = 'isolation'/step = 'review'/" "$state"
run ""
expect "$first" "2/9  GPU selection"
expect "$first" "0000:0b:00"
grep -q "0000:0b:00" "$state" && { echo "FAIL: the gone card stayed in the state"; fail=$((fail + 1)); }

echo "resume: $n runs, $fail failed"
[ "$fail" -eq 0 ]
