#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Golden tests of `check --json` and `groups --json --all` on every fixture
# host.  The expected files in tests/golden/ were checked by hand; after a
# deliberate change, regenerate with `tests/golden.sh --update` and read the
# diff before committing.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
bin="$top_builddir/vfiowiz"
hosts="$top_builddir/tests/out/hosts"
golden="$top_srcdir/tests/golden"
update=false
[ "${1:-}" = "--update" ] && update=true
fail=0 n=0
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

[ -d "$hosts" ] || { echo "fixture hosts not built: $hosts"; exit 99; }
for dir in "$hosts"/*/; do
	name=$(basename "$dir")
	for what in check groups; do
		args="$what --json"
		[ "$what" = groups ] && args="$args --all"
		# shellcheck disable=SC2086
		LC_ALL=C.UTF-8 LANGUAGE= "$bin" --sysroot "$dir" $args >"$tmp/out" 2>"$tmp/err"
		rc=$?
		echo "exit $rc" >>"$tmp/out"
		exp="$golden/$name.$what.json"
		n=$((n + 1))
		if $update; then
			mkdir -p "$golden" && cp "$tmp/out" "$exp"
		elif ! diff -u "$exp" "$tmp/out" >"$tmp/diff" 2>&1; then
			echo "FAIL: $name $what"
			head -40 "$tmp/diff"
			fail=$((fail + 1))
		fi
		if [ -s "$tmp/err" ] || [ "$rc" -gt 2 ]; then
			echo "FAIL: $name $what: exit $rc, stderr:"; cat "$tmp/err"
			fail=$((fail + 1))
		fi
	done
done
echo "golden: $n outputs, $fail failures"
[ "$fail" -eq 0 ]
