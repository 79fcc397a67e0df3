#!/bin/sh
# Golden test of `vfiowiz guest-check` (text and --json) on the captured
# two-H200 guest (the fixture tree tests/out/hosts/h200x2-nvlink-guest).  After a
# deliberate change: `tests/guest/golden.sh --update`, then read the diff.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
bin="$top_builddir/vfiowiz"
root="$top_builddir/tests/out/hosts/h200x2-nvlink-guest"
golden="$top_srcdir/tests/guest"
update=false
[ "${1:-}" = "--update" ] && update=true
[ -d "$root/.vfiowiz/cmd" ] || { echo "guest capture not built: $root"; exit 99; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
for kind in txt json; do
	args=guest-check
	[ $kind = json ] && args="guest-check --json"
	# shellcheck disable=SC2086
	LC_ALL=C.UTF-8 LANGUAGE= "$bin" --sysroot "$root" $args >"$tmp/out" 2>"$tmp/err"
	echo "exit $?" >>"$tmp/out"
	if $update; then
		cp "$tmp/out" "$golden/h200.$kind"
	elif ! diff -u "$golden/h200.$kind" "$tmp/out"; then
		echo "FAIL: guest-check ($kind) differs from $golden/h200.$kind"
		fail=1
	fi
	if [ -s "$tmp/err" ]; then
		echo "FAIL: guest-check ($kind) wrote to stderr:"; cat "$tmp/err"
		fail=1
	fi
done
exit $fail
