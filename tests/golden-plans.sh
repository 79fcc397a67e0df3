#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Golden plans: `vfiowiz plan` on fixture hosts, compared with expected
# output checked by hand; then, for every plan that succeeds, apply --yes,
# apply again (it must find nothing to change, and journal nothing: running
# the same plan twice changes nothing), undo, and compare the tree with the
# original byte for byte.
#
# A case is a directory tests/plans/NAME/ holding:
#   host          the fixture host: a name under tests/out/hosts/
#   answers.conf  the answers file (named in messages as answers.conf)
#   root/         optional: files laid over the host (messy real-world ones)
#   remove        optional: paths (one a line) deleted from the host first
#   expected      stdout+stderr of `plan`, then "exit N"
#   apply.expected  optional: the same for `apply --yes` (journal id as ID)
#
# The host tree is hard-linked, not copied: every write of ours replaces a
# file by rename, so the fixture itself is never modified.
#
# After a deliberate change: tests/golden-plans.sh --update, then read the
# diff of tests/plans/*/expected before committing.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
bin="$top_builddir/vfiowiz"
hosts="$top_builddir/tests/out/hosts"
plans="$top_srcdir/tests/plans"
update=false
[ "${1:-}" = "--update" ] && { update=true; shift; }
only=${1:-}
fail=0 n=0
tmp=$(mktemp -d) || exit 99
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
export LC_ALL=C.UTF-8 LANGUAGE= TZ=UTC

[ -x "$bin" ] || { echo "not built: $bin"; exit 99; }
[ -d "$hosts" ] || { echo "fixture hosts not built: $hosts"; exit 99; }

failed() {
	echo "FAIL: $1"
	fail=$((fail + 1))
}

# Files outside the kernel's trees and our journal, with their checksums.
tree_sum() {
	(cd "$1" && find . \( -path ./sys -o -path ./proc -o -path ./var/lib/vfiowiz \) -prune -o \
		\( -type f -o -type l \) -print | LC_ALL=C sort | while read -r f; do
		if [ -L "$f" ]; then
			printf '%s -> %s\n' "$f" "$(readlink "$f")"
		else
			printf '%s %s %s\n' "$f" "$(stat -c %a "$f")" "$(sha256sum <"$f" | cut -c1-16)"
		fi
	done)
}

# shows_password FILE: FILE holds $pw raw, XML-escaped, shell-quoted or
# URL-encoded (upper or lower case hex).
shows_password() {
	[ -n "$pw" ] || return 1
	xml=$(printf '%s' "$pw" | sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g; s/"/\&quot;/g')
	xmla=$(printf '%s' "$xml" | sed "s/'/\\&apos;/g")
	shq=$(printf '%s' "$pw" | sed "s/'/'\\\\''/g")
	url=$(printf '%s' "$pw" | od -An -v -tx1 | tr -s ' \n' '\n\n' | while read -r h; do
		[ -n "$h" ] || continue
		c=$(printf "\\$(printf %03o 0x"$h")")
		case "$c" in [A-Za-z0-9._~-]) printf '%s' "$c" ;; *) printf '%%%s' "$h" ;; esac
	done)
	urlu=$(printf '%s' "$url" | sed 's/%\(..\)/%\U\1/g')
	for enc in "$pw" "$xml" "$xmla" "$shq" "$url" "$urlu"; do
		grep -qF -- "$enc" "$1" && return 0
	done
	return 1
}

run() {	# run DIR ARGS...: vfiowiz in the case directory, output in $tmp/out
	dir=$1
	shift
	(cd "$dir" && "$bin" "$@") >"$tmp/out" 2>&1
	echo "exit $?" >>"$tmp/out"
	sed -i "s|$root|ROOT|g; s|[0-9]\{8\}T[0-9]\{6\}Z\(-[0-9]\{3\}\)\{0,1\}|ID|g" "$tmp/out"
}

for case in "$plans"/*/; do
	name=$(basename "$case")
	[ -f "$case/answers.conf" ] || continue
	[ -n "$only" ] && [ "$only" != "$name" ] && continue
	n=$((n + 1))
	host=$(cat "$case/host")
	root="$tmp/$name"
	[ -d "$hosts/$host" ] || { failed "$name: no fixture host $host"; continue; }
	# Hard links where the file system allows them, else a copy.
	cp -al "$hosts/$host" "$root" 2>/dev/null ||
		{ rm -rf "$root"; cp -a "$hosts/$host" "$root"; } || { failed "$name: copy"; continue; }
	if [ -d "$case/root" ]; then
		# Break the hard links of what the overlay replaces.
		(cd "$case/root" && find . -type f) | while read -r f; do rm -f "$root/$f"; done
		cp -R "$case/root/." "$root/"
	fi
	if [ -f "$case/remove" ]; then
		while read -r f; do [ -n "$f" ] && rm -rf "${root:?}/$f"; done <"$case/remove"
	fi
	before=$(tree_sum "$root")

	run "$case" --sysroot "$root" plan --answers answers.conf
	# The VNC password never reaches the output, in any encoding written.
	pw=$(sed -n "/^ *vnc_password *=/{s/^ *vnc_password *= *['\"]\(.*\)['\"].*/\1/; s/\\\\\(.\)/\1/g; p}" "$case/answers.conf")
	if shows_password "$tmp/out"; then
		failed "$name: the VNC password is shown in plan"
		continue
	fi
	if $update; then
		cp "$tmp/out" "$case/expected"
	elif ! diff -u "$case/expected" "$tmp/out" >"$tmp/diff" 2>&1; then
		failed "$name: plan"
		head -60 "$tmp/diff"
		continue
	fi
	# Plans refused or empty end here.
	tail -1 "$tmp/out" | grep -qx "exit 0" || continue
	grep -q "^Nothing to change" "$tmp/out" && continue

	run "$case" --sysroot "$root" apply --yes --answers answers.conf
	if shows_password "$tmp/out"; then
		failed "$name: the VNC password is shown by apply"
		continue
	fi
	if [ -f "$case/apply.expected" ]; then
		if $update; then
			cp "$tmp/out" "$case/apply.expected"
		elif ! diff -u "$case/apply.expected" "$tmp/out" >"$tmp/diff" 2>&1; then
			failed "$name: apply"
			head -60 "$tmp/diff"
			continue
		fi
		tail -1 "$tmp/out" | grep -qx "exit 0" || continue
	elif ! tail -1 "$tmp/out" | grep -qx "exit 0"; then
		failed "$name: apply --yes"
		tail -20 "$tmp/out"
		continue
	fi

	# Applying the same answers again changes nothing, and journals nothing.
	run "$case" --sysroot "$root" apply --yes --answers answers.conf
	if ! grep -q "^Nothing to change" "$tmp/out" || ! tail -1 "$tmp/out" | grep -qx "exit 0"; then
		failed "$name: the second apply is not empty"
		grep -v '^[ +-@]' "$tmp/out" | head -30
		continue
	fi
	run "$case" --sysroot "$root" undo --list
	if [ "$(grep -c '^ID ' "$tmp/out")" != 1 ]; then
		failed "$name: not exactly one journal after two applies"
		cat "$tmp/out"
		continue
	fi

	run "$case" --sysroot "$root" undo --yes
	if ! tail -1 "$tmp/out" | grep -qx "exit 0"; then
		failed "$name: undo"
		cat "$tmp/out"
		continue
	fi
	after=$(tree_sum "$root")
	if [ "$before" != "$after" ]; then
		failed "$name: undo did not restore the tree"
		printf '%s\n' "$before" >"$tmp/before"
		printf '%s\n' "$after" >"$tmp/after"
		diff -u "$tmp/before" "$tmp/after" | head -20
	fi
done
echo "golden plans: $n cases, $fail failures"
[ "$n" -gt 0 ] || exit 99
[ "$fail" -eq 0 ]
