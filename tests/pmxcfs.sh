#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Proxmox's /etc/pve is pmxcfs: apply, the journal and undo on a FUSE file
# system with its semantics (tests/pmxfs: no chmod, chown or symlinks,
# EPERM; qemu-server a link to nodes/NODE/qemu-server; read-only without
# quorum) mounted at the fixture's etc/pve, for the new Proxmox VM of
# tests/plans/proxmox-zfs:
#  - apply writes what it writes on a plain directory, byte for byte, and
#    never tries chmod or chown there; undo restores the original tree;
#  - killed at exact points (before the rename of the VM config, while
#    writing its temporary file), then undone: the original tree, byte for
#    byte, and no temporary file left in /etc/pve;
#  - without quorum: apply and undo refuse with a clear message before
#    writing anything.
# Skipped (77) without the helper (libfuse3-dev), /dev/fuse or root.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
bin="$top_builddir/vfiowiz"
helper="$top_builddir/tests/pmxfs"
case_dir="$top_srcdir/tests/plans/proxmox-zfs"
export LC_ALL=C.UTF-8 LANGUAGE= TZ=UTC
fail=0

[ -x "$bin" ] || { echo "not built: $bin"; exit 99; }
[ -x "$helper" ] || { echo "SKIP: tests/pmxfs is not built (no libfuse3-dev at configure time)"; exit 77; }
[ -c /dev/fuse ] && [ -w /dev/fuse ] || { echo "SKIP: /dev/fuse is not available"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: mounting the test FUSE file system needs root"; exit 77; }
host="$top_builddir/tests/out/hosts/$(cat "$case_dir/host")"
[ -d "$host" ] || { echo "fixture host not built: $host"; exit 99; }
tmp=$(mktemp -d) || exit 99
mounted=""
cleanup() {
	for m in $mounted; do umount "$m" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

failed() {
	echo "FAIL: $*"
	fail=$((fail + 1))
}

tree_sum() {
	(cd "$1" && find . \( -path ./sys -o -path ./proc -o -path ./var/lib/vfiowiz \) -prune -o \
		\( -type f -o -type l \) -print | LC_ALL=C sort | while read -r f; do
		if [ -L "$f" ]; then
			printf '%s -> %s\n' "$f" "$(readlink "$f")"
		else
			printf '%s %s\n' "$f" "$(sha256sum <"$f" | cut -c1-16)"
		fi
	done)
}

# A fresh copy of the host in $root with its etc/pve on pmxfs (helper
# options in "$@"); $before: the tree as it was.
setup() {
	root="$tmp/root" back="$tmp/back"
	umount "$root/etc/pve" 2>/dev/null
	rm -rf "$root" "$back" "$tmp/log"
	cp -a "$host" "$root" && mv "$root/etc/pve" "$back" && mkdir "$root/etc/pve" || exit 99
	"$helper" -l "$tmp/log" "$@" "$back" "$root/etc/pve" ||
		{ echo "SKIP: cannot mount the test FUSE file system"; exit 77; }
	mounted="$mounted $root/etc/pve"
	grep -q " $root/etc/pve fuse" /proc/mounts || { echo "pmxfs is not mounted"; exit 99; }
	before=$(tree_sum "$root")
}

remount() {	# the same backing directory, other helper options
	umount "$root/etc/pve" || exit 99
	"$helper" -l "$tmp/log" "$@" "$back" "$root/etc/pve" || exit 99
}

vw() {
	"$bin" --sysroot "$root" "$@" >"$tmp/out" 2>&1
}

conf=etc/pve/qemu-server/100.conf

# The reference: the same apply on a plain directory.
ref="$tmp/ref"
cp -a "$host" "$ref" || exit 99
"$bin" --sysroot "$ref" apply --answers "$case_dir/answers.conf" --yes >"$tmp/out" 2>&1 ||
	{ cat "$tmp/out"; echo "apply on a plain directory failed"; exit 99; }
[ -f "$ref/$conf" ] || { echo "the plan no longer writes /$conf"; exit 99; }
want=$(tree_sum "$ref")

# 1. apply and undo.
setup
vw apply --answers "$case_dir/answers.conf" --yes || { cat "$tmp/out"; failed "apply on pmxcfs"; }
[ "$(tree_sum "$root")" = "$want" ] || failed "apply on pmxcfs wrote other bytes than on a plain directory"
! grep -qE '^(chmod|chown|symlink|link|mknod) ' "$tmp/log" 2>/dev/null ||
	failed "apply tried on pmxcfs: $(cat "$tmp/log")"
vw undo --yes || { cat "$tmp/out"; failed "undo on pmxcfs"; }
[ "$(tree_sum "$root")" = "$before" ] || failed "undo on pmxcfs did not restore the tree"
[ -z "$(find "$back" -name '.vfiowiz-*')" ] || failed "temporary files left in /etc/pve"

# 2. killed at exact points, then undone.
for at in rename:100.conf 'write:*.tmp' 'create:*.tmp'; do
	setup -k "$at"
	vw apply --answers "$case_dir/answers.conf" --yes
	rc=$?
	[ $rc = 137 ] || { cat "$tmp/out"; failed "$at: apply was not killed (exit $rc)"; continue; }
	grep -q '^killed ' "$tmp/log" || failed "$at: the kill point was not reached"
	remount
	vw undo --yes || { cat "$tmp/out"; failed "$at: undo after the crash"; continue; }
	[ "$(tree_sum "$root")" = "$before" ] || failed "$at: undo after the crash did not restore the tree"
	[ -z "$(find "$back" -name '.vfiowiz-*')" ] || failed "$at: temporary files left in /etc/pve"
done

# 3. No quorum: refused before anything is written, with the cause.
setup -q "$tmp/noquorum"
touch "$tmp/noquorum"
vw apply --answers "$case_dir/answers.conf" --yes && failed "apply without quorum succeeded"
grep -q "no quorum" "$tmp/out" || failed "apply without quorum: $(cat "$tmp/out")"
[ "$(tree_sum "$root")" = "$before" ] || failed "apply without quorum changed the host"
rm "$tmp/noquorum"
vw apply --answers "$case_dir/answers.conf" --yes || { cat "$tmp/out"; failed "apply with quorum"; }
applied=$(tree_sum "$root")
touch "$tmp/noquorum"
vw undo --yes && failed "undo without quorum succeeded"
grep -q "no quorum" "$tmp/out" || failed "undo without quorum: $(cat "$tmp/out")"
[ "$(tree_sum "$root")" = "$applied" ] || failed "undo without quorum restored part of the host"
rm "$tmp/noquorum"
vw undo --yes || { cat "$tmp/out"; failed "undo with quorum again"; }
[ "$(tree_sum "$root")" = "$before" ] || failed "undo with quorum again did not restore the tree"

echo "pmxcfs: $fail failures"
[ $fail = 0 ]
