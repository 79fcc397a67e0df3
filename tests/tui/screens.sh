#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Golden screens of the wizard: a headless, scripted run on the demo host for
# each tests/screens/NAME.keys, whose last screen (80x24 unless the keys file
# says otherwise) must equal tests/screens/NAME.txt.  The expected screens
# were checked by eye; after a deliberate change run
#	tests/tui/screens.sh --update
# and read the diff before committing.
#
# NAME.keys holds "keys: down,space,enter" and optionally "args: --size
# 100x30", "env: LANGUAGE=fr" (catalogs from po/, built here) and "host:
# iommu-off-cmdline" (a copy of that fixture host instead of the demo)
# lines.  Journal ids (a timestamp) are masked.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
bin="$top_builddir/vfiowiz"
demo="${VFIOWIZ_DEMO:-$top_builddir/tests/out/hosts/demo}"
screens="$top_srcdir/tests/screens"
update=false
[ "${1:-}" = "--update" ] && update=true
fail=0 n=0
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

[ -d "$demo/sys" ] || { echo "the demo host is not built: $demo"; exit 99; }
# shellcheck source=tests/load.sh
. "$top_srcdir/tests/load.sh"
# Catalogs from the po files, so that "env: LANGUAGE=fr" needs no installed locale.
for l in fr it es; do
	mkdir -p "$tmp/locale/$l/LC_MESSAGES"
	msgfmt -o "$tmp/locale/$l/LC_MESSAGES/vfiowiz.mo" "$top_srcdir/po/$l.po" || exit 99
done
for keysfile in "$screens"/*.keys; do
	name=$(basename "$keysfile" .keys)
	keys=$(sed -n 's/^keys: *//p' "$keysfile")
	args=$(sed -n 's/^args: *//p' "$keysfile")
	envs=$(sed -n 's/^env: *//p' "$keysfile")
	host=$(sed -n 's/^host: *//p' "$keysfile")
	out="$tmp/$name"
	where=--demo
	if [ -n "$host" ]; then
		rm -rf "$tmp/root"
		cp -a "$top_builddir/tests/out/hosts/$host" "$tmp/root" || exit 99
		where="--sysroot $tmp/root"
	fi
	n=$((n + 1))
	# shellcheck disable=SC2086
	env LC_ALL=C.UTF-8 LANGUAGE= TERM=xterm-256color NO_COLOR= VFIOWIZ_DEMO="$demo" \
		VFIOWIZ_LOCALEDIR="$tmp/locale" $envs \
		timeout "$(scaled 20)" "$bin" $where $args --script "$keys" --dump "$out" >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	last=$(ls "$out"/*.txt 2>/dev/null | tail -n 1)
	if [ "$rc" -ne 0 ] || [ -z "$last" ]; then
		echo "FAIL: $name: exit $rc"; cat "$tmp/stderr"
		fail=$((fail + 1))
		continue
	fi
	sed -e 's/[0-9]\{8\}T[0-9]\{6\}Z\(-[0-9]\{3\}\)\{0,1\}/YYYYMMDDTHHMMSSZ/g' \
		-e "s|$tmp/root|/SYSROOT|g" "$last" >"$tmp/got"
	if $update; then
		cp "$tmp/got" "$screens/$name.txt"
	elif ! diff -u "$screens/$name.txt" "$tmp/got" >"$tmp/diff" 2>&1; then
		echo "FAIL: $name (keys: $keys)"
		cat "$tmp/diff"
		fail=$((fail + 1))
	fi
done
echo "$n screens, $fail failed"
[ "$fail" -eq 0 ]
