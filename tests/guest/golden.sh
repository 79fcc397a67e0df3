#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Golden tests of `vfiowiz guest-check` (text and --json): on the captured
# two-H200 guest (the fixture tree tests/out/hosts/h200x2-nvlink-guest), on
# the live capture of a real H200 VM (tests/guest/live-h200/), and on one
# guest per hypervisor and failure described in tests/guest/*.host (built
# with tests/mkhost).  After a deliberate change: `tests/guest/golden.sh
# --update`, then read the diff.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
bin="$top_builddir/vfiowiz"
mkhost="$top_builddir/tests/mkhost"
root="$top_builddir/tests/out/hosts/h200x2-nvlink-guest"
golden="$top_srcdir/tests/guest"
update=false
[ "${1:-}" = "--update" ] && update=true
[ -d "$root/.vfiowiz/cmd" ] || { echo "guest capture not built: $root"; exit 99; }
[ -x "$mkhost" ] || { echo "not built: $mkhost"; exit 99; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0

check() {	# check TREE NAME: guest-check on TREE against NAME.txt and NAME.json
	for kind in txt json; do
		args=guest-check
		[ $kind = json ] && args="guest-check --json"
		# shellcheck disable=SC2086
		LC_ALL=C.UTF-8 LANGUAGE= "$bin" --sysroot "$1" $args >"$tmp/out" 2>"$tmp/err"
		echo "exit $?" >>"$tmp/out"
		n=$((n + 1))
		if $update; then
			cp "$tmp/out" "$golden/$2.$kind"
		elif ! diff -u "$golden/$2.$kind" "$tmp/out"; then
			echo "FAIL: guest-check ($kind) differs from $golden/$2.$kind"
			fail=$((fail + 1))
		fi
		if [ -s "$tmp/err" ]; then
			echo "FAIL: guest-check ($kind) on $2 wrote to stderr:"; cat "$tmp/err"
			fail=$((fail + 1))
		fi
	done
}

check "$root" h200
if [ -d "$golden/live-h200/sys" ]; then
	check "$golden/live-h200" live-h200
fi
for desc in "$golden"/*.host; do
	[ -e "$desc" ] || continue
	name=$(basename "$desc" .host)
	# a one-shot generator that leaks by design (mk/fixtures.am)
	ASAN_OPTIONS=detect_leaks=0 "$mkhost" "$desc" "$tmp/$name" || { echo "FAIL: mkhost $desc"; fail=$((fail + 1)); continue; }
	check "$tmp/$name" "$name"
done
echo "guest-check golden: $n outputs, $fail failures"
[ "$fail" -eq 0 ]
