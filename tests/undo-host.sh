#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Apply then undo as on a live host, for every plan of tests/plans: vfiowiz
# runs in a chroot of the fixture host (a private mount namespace), where the
# commands it runs are stubs (tests/stubcmd) that log their arguments.  Then:
#  - the commands apply and undo ran, in order, equal tests/plans/NAME/commands
#    (checked by hand; --update rewrites them): undo takes each post-command
#    back by its kind (rebuilds again, virsh undefine --nvram of a domain it
#    defined, systemctl disable/stop of a unit it created, bootctl
#    set-oneshot cleared, never qemu-img create again);
#  - the tree is the original byte for byte, except the disk images the
#    apply created: they are kept (undo says so and how to remove them).
# The qm stub appends its lines to the VM config, as qm does: undo must
# take them for ours, not for a user's edit.
# Needs root (or user namespaces) for unshare -m and chroot: else skipped.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
bin="$top_builddir/vfiowiz"
stub="$top_builddir/tests/stubcmd"
hosts="$top_builddir/tests/out/hosts"
plans="$top_srcdir/tests/plans"
update=false
[ "${1:-}" = "--update" ] && { update=true; shift; }
only=${1:-}
fail=0 n=0
export LC_ALL=C.UTF-8 LANGUAGE= TZ=UTC

[ -x "$bin" ] && [ -x "$stub" ] || { echo "not built: $bin, $stub"; exit 99; }
[ -d "$hosts" ] || { echo "fixture hosts not built: $hosts"; exit 99; }
# -r maps us to root in a user namespace when we are not root already.
ns="unshare -m"
[ "$(id -u)" = 0 ] || ns="unshare -mr"
$ns true 2>/dev/null || { echo "SKIP: cannot make a mount namespace ($ns)"; exit 77; }
chroot=$(command -v chroot) || { echo "SKIP: no chroot"; exit 77; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

failed() {
	echo "FAIL: $1"
	fail=$((fail + 1))
}

# The run-time: vfiowiz, its libraries and loader, augeas' lenses, the
# templates and the stubs; bind-mounted at /.vwtest in each chroot.
rt="$tmp/rt"
mkdir -p "$rt/lib" "$rt/bin" "$rt/lenses"
cp "$bin" "$rt/vfiowiz" || exit 99
for l in $(ldd "$bin" | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p'); do
	cp -L "$l" "$rt/lib/" || exit 99
done
loader=$(ldd "$bin" | sed -n 's/^[[:space:]]*\(\/[^ ]*ld-linux[^ ]*\) (.*/\1/p')
[ -n "$loader" ] || { echo "no dynamic loader found"; exit 99; }
cp -L "$loader" "$rt/ld.so"
lenses=$(pkg-config --variable=lensdir augeas 2>/dev/null)
[ -d "${lenses:-}" ] || lenses=/usr/share/augeas/lenses/dist
cp -R "$lenses/." "$rt/lenses/"
cp -R "$top_srcdir/templates" "$rt/templates"
for c in update-initramfs update-grub grub-mkconfig grub2-mkconfig dracut mkinitcpio \
	kernelstub proxmox-boot-tool systemctl systemd-tmpfiles virsh qm qemu-img bootctl grubby lsinitramfs \
	lsinitrd lsinitcpio booster regenerate_images nvidia-smi; do
	cp "$stub" "$rt/bin/$c"
done

# Files outside the kernel's trees, our journal and the test's mount
# points, with mode and checksum.
tree_sum() {
	(cd "$1" && find . \( -path ./sys -o -path ./proc -o -path ./var/lib/vfiowiz -o \
		-path ./.vwtest -o -path ./.vwproc -o -path ./dev \) -prune -o \( -type f -o -type l \) -print |
		LC_ALL=C sort | while read -r f; do
		if [ -L "$f" ]; then
			printf '%s -> %s\n' "$f" "$(readlink "$f")"
		else
			printf '%s %s %s\n' "$f" "$(stat -c %a "$f")" "$(sha256sum <"$f" | cut -c1-16)"
		fi
	done)
}

# vfiowiz ARGS... as root of $root, with the stubs first on PATH.
in_root() {
	$ns sh -c '
		root=$1 rt=$2 chroot=$3
		shift 3
		mount --bind "$rt" "$root/.vwtest" &&
		mount --bind /dev/null "$root/dev/null" &&
		mount --rbind /proc "$root/.vwproc" &&
		# LeakSanitizer (--enable-sanitizers) reads /proc/PID/task: the
		# chroot'"'"'s /proc is the fixture'"'"'s.
		exec env -i PATH=/.vwtest/bin LC_ALL=C.UTF-8 TZ=UTC ASAN_OPTIONS=detect_leaks=0 \
			AUGEAS_LENS_LIB=/.vwtest/lenses VFIOWIZ_TEMPLATES=/.vwtest/templates \
			"$chroot" "$root" /.vwtest/ld.so --library-path /.vwtest/lib /.vwtest/vfiowiz "$@"
	' sh "$root" "$rt" "$chroot" "$@"
}

# The fixture of case $1 into $root, with the mount points; sets $before.
prepare() {
	case=$plans/$1
	root="$tmp/$1"
	host=$(cat "$case/host")
	rm -rf "$root"
	cp -a "$hosts/$host" "$root" || return 1
	[ -d "$case/root" ] && cp -R "$case/root/." "$root/"
	if [ -f "$case/remove" ]; then
		while read -r f; do [ -n "$f" ] && rm -rf "${root:?}/$f"; done <"$case/remove"
	fi
	before=$(tree_sum "$root")
	# The fixture's /proc holds its own cmdline, cpuinfo...; vfiowiz also
	# needs /proc/self/fd of a live host: that one comes from the real /proc.
	mkdir -p "$root/.vwtest" "$root/.vwproc" "$root/dev" "$root/usr/lib/booster" "$root/proc"
	touch "$root/dev/null"
	ln -s /.vwproc/self "$root/proc/self"
	[ -e "$root/usr/lib/booster/regenerate_images" ] ||
		cp "$stub" "$root/usr/lib/booster/regenerate_images"
	cp "$case/answers.conf" "$rt/answers.conf"
	: >"$rt/log"
}

# Compare the tree with $before once the test's own files are gone.
same_tree() {
	[ -e "$hosts/$host/usr/lib/booster/regenerate_images" ] ||
		rm -f "$root/usr/lib/booster/regenerate_images"
	rmdir "$root/usr/lib/booster" "$root/usr/lib" "$root/usr" 2>/dev/null
	after=$(tree_sum "$root")
	[ "$before" = "$after" ] && return 0
	printf '%s\n' "$before" >"$tmp/b"
	printf '%s\n' "$after" >"$tmp/a"
	diff -u "$tmp/b" "$tmp/a" | head -20
	return 1
}

for case in "$plans"/*/; do
	name=$(basename "$case")
	[ -f "$case/answers.conf" ] || continue
	[ -n "$only" ] && [ "$only" != "$name" ] && continue
	# Only plans that succeed are applied.
	tail -n 1 "$case/expected" | grep -qx 'exit 0' || continue
	grep -q '^Nothing to change' "$case/expected" && continue
	n=$((n + 1))
	prepare "$name" || { failed "$name: copy"; continue; }
	in_root apply --answers /.vwtest/answers.conf --yes >"$tmp/apply.out" 2>&1 ||
		{ failed "$name: apply (see below)"; cat "$tmp/apply.out"; continue; }
	echo "-- undo" >>"$rt/log"
	in_root undo --yes >"$tmp/undo.out" 2>&1 ||
		{ failed "$name: undo (see below)"; cat "$tmp/undo.out"; continue; }
	# What undo says it kept: the disk images.
	for img in $(sed -n 's/^Kept the disk image \([^ ]*\) .*/\1/p' "$tmp/undo.out"); do
		[ -f "$root$img" ] || failed "$name: undo removed the disk image $img"
		rm -f "$root$img"
	done
	same_tree || failed "$name: undo did not restore the tree"
	if $update; then
		cp "$rt/log" "$case/commands"
	elif ! diff -u "$case/commands" "$rt/log"; then
		failed "$name: commands run differ from $case/commands"
	fi
	rm -rf "$root"
done

# A person edits the new Proxmox VM's config after the apply: undo refuses,
# showing what would be lost; --dry-run writes nothing; --skip-file leaves
# that file and undoes the rest; --force-file restores it all the same.
edited() {	# edited MODE: apply, edit, then undo with MODE
	prepare proxmox-zfs || return 1
	conf=etc/pve/qemu-server/100.conf
	in_root apply --answers /.vwtest/answers.conf --yes >"$tmp/apply.out" 2>&1 || return 1
	echo "description: my own note" >>"$root/$conf"
	cp "$root/$conf" "$tmp/edited.conf"
	if in_root undo --yes >"$tmp/undo.out" 2>&1; then
		echo "undo did not refuse a user's edit"
		return 1
	fi
	grep -q "qemu-server/100.conf changed since the apply" "$tmp/undo.out" &&
		grep -q '^-description: my own note$' "$tmp/undo.out" &&
		grep -q -- '--force-file PATH' "$tmp/undo.out" || {
		echo "no diff or no way out shown:"
		cat "$tmp/undo.out"
		return 1
	}
	sum=$(tree_sum "$root")
	in_root undo --dry-run --yes "--$1-file" "/$conf" >"$tmp/dry.out" 2>&1 ||
		{ cat "$tmp/dry.out"; return 1; }
	[ "$sum" = "$(tree_sum "$root")" ] || { echo "undo --dry-run wrote"; return 1; }
	[ -z "$(find "$root/var/lib/vfiowiz/journal" -name undone)" ] ||
		{ echo "undo --dry-run marked the journal undone"; return 1; }
	in_root undo --yes "--$1-file" "/$conf" >"$tmp/undo.out" 2>&1 ||
		{ cat "$tmp/undo.out"; return 1; }
	if [ "$1" = skip ]; then
		cmp -s "$root/$conf" "$tmp/edited.conf" || { echo "--skip-file changed the file"; return 1; }
		rm "$root/$conf"
	fi
	same_tree || { echo "the rest was not undone"; return 1; }
	rm -rf "$root"
}
if [ -z "$only" ] || [ "$only" = proxmox-zfs ]; then
	edited skip || failed "proxmox-zfs edited: --skip-file"
	edited force || failed "proxmox-zfs edited: --force-file"
fi
# Two applies stacked on one host: A (ids), then B (the same card by
# address: the modprobe file again, a bind script, an initramfs hook).
# Undoing A first would put A's originals under B: refused, naming B,
# nothing touched.  Then undo B, undo A: the original tree, and each undo
# takes back only its own post-commands.
stacked() {
	prepare amd-desktop || return 1
	printf 'devices = {"0000:09:00"}\nbinding = address\n' >"$rt/b.conf"
	in_root apply --answers /.vwtest/answers.conf --yes >"$tmp/apply.out" 2>&1 || { cat "$tmp/apply.out"; return 1; }
	in_root apply --answers /.vwtest/b.conf --yes >"$tmp/apply.out" 2>&1 || { cat "$tmp/apply.out"; return 1; }
	ids=$(ls "$root/var/lib/vfiowiz/journal")
	a=$(echo "$ids" | head -n 1) b=$(echo "$ids" | tail -n 1)
	[ "$a" != "$b" ] || { echo "one journal for two applies: $ids"; return 1; }
	sum=$(tree_sum "$root")
	echo "-- undo A" >>"$rt/log"
	if in_root undo --yes "$a" >"$tmp/undo.out" 2>&1; then
		echo "undo of A under B was not refused"
		return 1
	fi
	grep -q "apply $b, made after $a and not undone" "$tmp/undo.out" ||
		{ cat "$tmp/undo.out"; return 1; }
	[ "$sum" = "$(tree_sum "$root")" ] || { echo "the refused undo wrote"; return 1; }
	echo "-- undo B" >>"$rt/log"
	in_root undo --yes >"$tmp/undo.out" 2>&1 || { cat "$tmp/undo.out"; return 1; }
	grep -q "^Undid $b" "$tmp/undo.out" || { cat "$tmp/undo.out"; return 1; }
	grep -q "^Still in effect: 1 other apply ($a); vfiowiz undo again takes it back too.$" "$tmp/undo.out" ||
		{ echo "undo of B did not say that A still stands:"; cat "$tmp/undo.out"; return 1; }
	echo "-- undo A" >>"$rt/log"
	in_root undo --yes >"$tmp/undo.out" 2>&1 || { cat "$tmp/undo.out"; return 1; }
	grep -q "^Undid $a" "$tmp/undo.out" || { cat "$tmp/undo.out"; return 1; }
	! grep -q "^Still in effect" "$tmp/undo.out" || { cat "$tmp/undo.out"; return 1; }
	same_tree || { echo "not the original tree"; return 1; }
	cat >"$tmp/want" <<-'EOF'
	update-initramfs -u -k all
	update-grub
	lsinitramfs /boot/initrd.img-6.1.0-18-amd64
	update-initramfs -u -k all
	lsinitramfs /boot/initrd.img-6.1.0-18-amd64
	-- undo A
	-- undo B
	update-initramfs -u -k all
	-- undo A
	update-initramfs -u -k all
	update-grub
	EOF
	diff -u "$tmp/want" "$rt/log" || return 1
	rm -rf "$root"
}
if [ -z "$only" ] || [ "$only" = amd-desktop ]; then
	stacked || failed "amd-desktop: stacked applies undone out of order, then in order"
fi
echo "undo-host: $n plans, $fail failures"
[ "$n" -gt 0 ] || exit 99
[ "$fail" = 0 ]
