#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# crash-apply.sh - kill an apply with SIGKILL at random moments.
#
# Each trial copies a pristine root, starts tests/apply-driver on a plan of
# edits, new files in new directories, removals and a secret, and kills it
# after a random delay spread over the time a whole apply takes (measured by
# each worker, trials run a few at once).  Then:
#  - every target must hold wholly its old bytes or wholly its new ones;
#  - when the journal's manifest was complete, undo must bring the tree back
#    to the pristine one (diff -r and modes: no file, directory or temporary
#    left, no mode changed);
#  - when it was not, nothing may have changed at all.
# VW_CRASH_TRIALS (default 300) and VW_CRASH_SECONDS (default 20) bound it.
set -u

builddir=${top_builddir:-.}
drv=$builddir/tests/apply-driver
[ -x "$drv" ] || { echo "crash-apply: $drv not built" >&2; exit 99; }
trials=${VW_CRASH_TRIALS:-300}
limit=${VW_CRASH_SECONDS:-20}

tmp=$(mktemp -d /tmp/vw-crash-XXXXXX) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
pristine=$tmp/pristine new=$tmp/new

fail() {
	echo "crash-apply: worker $w, trial $t: $*" >&2
	exit 1
}

# The pristine root and the plan.
mkdir -p "$pristine/etc/default" "$pristine/etc/modprobe.d" "$pristine/var/lib/vfiowiz" \
	"$new/etc/default" "$new/etc/modprobe.d" "$new/etc/dracut.conf.d/deep" "$new/boot"
i=0
while [ $i -lt 5 ]; do
	printf 'option%d = old value\n' $i > "$pristine/etc/conf$i"
	printf 'option%d = new value\nadded = yes\n' $i > "$new/etc/conf$i"
	i=$((i + 1))
done
mkdir -p "$pristine/boot"
head -c 100000 /dev/urandom | od -An -tx1 > "$pristine/boot/big"
head -c 70000 /dev/urandom | od -An -tx1 > "$new/boot/big"
printf 'GRUB_CMDLINE_LINUX_DEFAULT="quiet"\n' > "$pristine/etc/default/grub"
chmod 640 "$pristine/etc/default/grub"
printf 'GRUB_CMDLINE_LINUX_DEFAULT="quiet intel_iommu=on"\n' > "$new/etc/default/grub"
printf 'options vfio-pci ids=10de:2204\n' > "$new/etc/modprobe.d/vfiowiz.conf"
printf 'force_drivers+=" vfio_pci "\n' > "$new/etc/dracut.conf.d/deep/10-vfio.conf"
printf 'blacklist nouveau\n' > "$pristine/etc/modprobe.d/old.conf"
: > "$new/etc/modprobe.d/old.conf.vwremove"
printf 'secret-old\n' > "$pristine/etc/vnc"
printf 'secret-new\n' > "$new/etc/vnc.vwsecret"

now_ms() { date +%s%3N; }

# Modes of everything but our state directory: undo restores them too.
modes() { (cd "$1" && find . -path ./var/lib/vfiowiz -prune -o -printf '%m %p\n' | sort); }
modes "$pristine" > "$tmp/modes"

# Trials run in a few workers at once: most of a trial is spent waiting
# for fsync, not computing.
worker() {	# $1 = worker number; writes "trials before during after"
	w=$1 t=0 before=0 during=0 after=0 work=$tmp/work$1
	# Measured again here, with the other workers competing for the disk.
	cp -a "$pristine" "$work"
	t0=$(now_ms)
	"$drv" apply "$work" "$new" > /dev/null || fail "apply failed"
	dur=$(( $(now_ms) - t0 ))
	rm -rf "$work"
	while [ $t -lt $((trials / workers)) ] && [ $(( $(now_ms) - start )) -lt $((limit * 1000)) ]; do
		t=$((t + 1))
		cp -a "$pristine" "$work"
		delay=$(awk -v s=$((seed + w * 100000 + t)) -v d="$dur" \
			'BEGIN { srand(s); printf "%.4f", rand() * d * 1.2 / 1000 }')
		"$drv" apply "$work" "$new" > /dev/null 2>&1 &
		pid=$!
		sleep "$delay"
		kill -9 $pid 2> /dev/null
		wait $pid 2> /dev/null
		out=$("$drv" check "$work" "$pristine" "$new") || fail "torn target ($out)"
		manifest=$(ls "$work"/var/lib/vfiowiz/journal/*/manifest 2> /dev/null | head -n 1)
		if [ -n "$manifest" ] && [ "$(tail -n 1 "$manifest")" = end ]; then
			case $out in
			*" new=0") before=$((before + 1)) ;;
			"old=0 "*) after=$((after + 1)) ;;
			*) during=$((during + 1)) ;;
			esac
			"$drv" undo "$work" > /dev/null || fail "undo failed"
		else
			case $out in
			*" new=0") before=$((before + 1)) ;;
			*) fail "targets changed without a complete manifest ($out)" ;;
			esac
		fi
		diff -r -x vfiowiz "$pristine" "$work" > "$tmp/diff$w" 2>&1 ||
			fail "tree differs after undo: $(head -n 5 "$tmp/diff$w")"
		modes "$work" | cmp -s - "$tmp/modes" || fail "modes differ after undo"
		rm -rf "$work"
	done
	echo "$t $before $during $after" > "$tmp/stats$w"
}

workers=${VW_CRASH_WORKERS:-4}
seed=${VW_CRASH_SEED:-$$}
start=$(now_ms)
w=0 pids=
while [ $w -lt "$workers" ]; do
	worker $w &
	pids="$pids $!"
	w=$((w + 1))
done
status=0
for p in $pids; do
	wait "$p" || status=1
done
[ $status -eq 0 ] || exit 1

t=0 before=0 during=0 after=0
for f in "$tmp"/stats*; do
	read -r a b c d < "$f"
	t=$((t + a)) before=$((before + b)) during=$((during + c)) after=$((after + d))
done
echo "crash-apply: $t trials in $(( ($(now_ms) - start) / 1000 ))s ($workers at a time," \
	"kills spread over a whole apply): $before killed before any target changed, $during in the middle," \
	"$after after all writes; every target old or new, every undo exact"
[ "$during" -gt 0 ] || echo "crash-apply: warning: no kill landed during the writes" >&2
exit 0
