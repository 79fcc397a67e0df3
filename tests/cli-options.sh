#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Options per command: every command x option pair.  An option a command
# does not take is refused by name (exit 3, "vfiowiz CMD: --OPT is not an
# option of CMD") before anything runs; one it takes is accepted (checked
# with --help, which then prints the usage and runs nothing).  Then what the
# issue found: undo --dry-run --yes writes nothing, undo --yes with nothing
# to undo exits 0, check --dry-run --script x is refused.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
bin="$top_builddir/vfiowiz"
export LC_ALL=C.UTF-8 LANGUAGE=
fail=0 n=0
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
[ -x "$bin" ] || { echo "not built: $bin"; exit 99; }

failed() {
	echo "FAIL: $*"
	fail=$((fail + 1))
}

# The options each command takes (the manual's list).
takes() {
	case $1 in
	wizard) echo "sysroot demo start-at mono script dump size" ;;
	check) echo "sysroot demo json" ;;
	groups) echo "sysroot demo json all" ;;
	snapshot) echo "sysroot demo output list yes" ;;
	guest-check) echo "sysroot demo json" ;;
	plan) echo "sysroot demo answers format output" ;;
	apply) echo "sysroot answers yes dry-run" ;;
	undo) echo "sysroot list yes dry-run force-file skip-file" ;;
	esac
}
options="sysroot json all demo output list answers dry-run yes script dump size start-at mono format force-file skip-file"
with_arg=" sysroot output answers script dump size start-at format force-file skip-file "

for cmd in wizard check groups snapshot guest-check plan apply undo; do
	for opt in $options; do
		n=$((n + 1))
		case $with_arg in *" $opt "*) set -- "--$opt" x ;; *) set -- "--$opt" ;; esac
		"$bin" "$cmd" "$@" --help >"$tmp/out" 2>"$tmp/err"
		rc=$?
		case " $(takes "$cmd") " in
		*" $opt "*)
			[ $rc = 0 ] && grep -q '^Usage:' "$tmp/out" && [ ! -s "$tmp/err" ] ||
				failed "$cmd --$opt: refused (exit $rc): $(cat "$tmp/err")"
			;;
		*)
			[ $rc = 3 ] && [ ! -s "$tmp/out" ] &&
				[ "$(cat "$tmp/err")" = "vfiowiz $cmd: --$opt is not an option of $cmd" ] ||
				failed "$cmd --$opt: not refused as it should be (exit $rc): $(cat "$tmp/err")"
			;;
		esac
	done
done
# Short forms and options before the command count the same.
"$bin" -y check 2>"$tmp/err" >/dev/null
[ $? = 3 ] && grep -qx 'vfiowiz check: --yes is not an option of check' "$tmp/err" || failed "-y check"
"$bin" --dry-run undo --script x 2>"$tmp/err" >/dev/null
[ $? = 3 ] && grep -qx 'vfiowiz undo: --script is not an option of undo' "$tmp/err" || failed "--script undo"

# What the issue reproduced.
"$bin" check --dry-run --script x >/dev/null 2>"$tmp/err"
[ $? = 3 ] || failed "check --dry-run --script x was not refused"
mkdir -p "$tmp/empty"
"$bin" --sysroot "$tmp/empty" undo --yes >"$tmp/out" 2>&1
[ $? = 0 ] && grep -qx 'Nothing to undo.' "$tmp/out" || failed "undo --yes with nothing to undo: $(cat "$tmp/out")"
[ -z "$(ls -A "$tmp/empty")" ] || failed "undo with nothing to undo wrote something"
"$bin" --sysroot "$tmp/empty" undo --yes 20240101T000000Z >/dev/null 2>&1
[ $? = 3 ] || failed "undo of a journal that does not exist did not fail"

# undo --dry-run --yes after a real apply: nothing written, not even the lock.
root="$tmp/root"
cp -a "$top_builddir/tests/out/hosts/amd-desktop" "$root" || exit 99
"$bin" --sysroot "$root" apply --answers "$top_srcdir/tests/plans/amd-desktop/answers.conf" --yes \
	>"$tmp/out" 2>&1 || { cat "$tmp/out"; failed "apply"; }
sum() { (cd "$root" && find . -path ./sys -prune -o -print0 | LC_ALL=C sort -z |
	xargs -0 stat -c '%n %s %Y %a' && find . -path ./sys -prune -o -type f -print0 |
	LC_ALL=C sort -z | xargs -0 cat | sha256sum); }
before=$(sum)
"$bin" --sysroot "$root" undo --dry-run --yes >"$tmp/out" 2>&1 ||
	{ cat "$tmp/out"; failed "undo --dry-run --yes failed"; }
grep -q '^Dry run: undoing .* would restore 1 files and remove 2' "$tmp/out" ||
	failed "undo --dry-run: $(cat "$tmp/out")"
grep -qx 'Would run: update-grub' "$tmp/out" || failed "undo --dry-run does not list its commands"
[ "$before" = "$(sum)" ] || failed "undo --dry-run --yes wrote to the host"
"$bin" --sysroot "$root" undo --yes >"$tmp/out" 2>&1 || failed "undo after the dry run"
grep -q '^Undid .*: 1 restored, 2 removed' "$tmp/out" || failed "undo: $(cat "$tmp/out")"

echo "cli-options: $n command x option pairs, $fail failures"
[ $fail = 0 ]
