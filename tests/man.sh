#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The manual, vfiowiz(8): every command and every option that `vfiowiz
# --help` lists is described in it, and every key of
# docs/answers.example.conf; it formats without a warning (groff -man -ww,
# and man --warnings where man-db is installed); the version is the
# program's.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
bin="$top_builddir/vfiowiz"
man="$top_builddir/doc/vfiowiz.8"
fail=0
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C.UTF-8 LANGUAGE=

[ -x "$bin" ] || { echo "not built: $bin"; exit 99; }
[ -f "$man" ] || { echo "not built: $man"; exit 99; }

failed() {
	echo "FAIL: $1"
	fail=$((fail + 1))
}

# The manual as plain text (roff escapes of '-' and fonts gone), to search.
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\(lq\|\\(rq\|\\(dq/"/g' "$man" >"$tmp/src"

"$bin" --help >"$tmp/help" || { echo "vfiowiz --help failed"; exit 99; }
# Commands: the lines between "Commands:" and the empty line after it.
sed -n '/^Commands:/,/^$/p' "$tmp/help" | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p' >"$tmp/commands"
[ -s "$tmp/commands" ] || failed "no commands in --help"
while read -r c; do
	# A command is described under COMMANDS as a .TP tag: ".B name".
	grep -qx "\\.B $c" "$tmp/src" || failed "command $c is not described (no '.TP/.B $c')"
	grep -q "^\\.SY vfiowiz" "$tmp/src" || failed "no SYNOPSIS"
done <"$tmp/commands"
# ... and no command that does not exist.
sed -n '/^\.SH COMMANDS/,/^\.SH OPTIONS/p' "$tmp/src" | sed -n '/^\.TP/{n;s/^\.B \([a-z-]*\)$/\1/p}' |
	while read -r c; do
		grep -qx "$c" "$tmp/commands" || echo "$c"
	done >"$tmp/extra"
[ -s "$tmp/extra" ] && failed "the manual describes commands --help does not list: $(cat "$tmp/extra")"

# Options: every --long and -s of --help.
grep -oE '(^|[ ,])--?[a-zA-Z][a-zA-Z-]*' "$tmp/help" | sed 's/^[ ,]//' | sort -u >"$tmp/options"
[ "$(wc -l <"$tmp/options")" -ge 10 ] || failed "too few options in --help"
while read -r o; do
	grep -qE -- "(^|[^a-zA-Z-])$o([^a-zA-Z-]|$)" "$tmp/src" || failed "option $o is not in the manual"
done <"$tmp/options"

# Every key of the answers file, as a ".B key = ..." tag (or "key {").
sed -n 's/^[ ]*\([a-z_][a-z_0-9]*\) *[={].*/\1/p' "$top_srcdir/docs/answers.example.conf" | sort -u >"$tmp/keys"
[ "$(wc -l <"$tmp/keys")" -ge 20 ] || failed "too few keys in docs/answers.example.conf"
while read -r k; do
	grep -qE "^\\.B $k( =| \\{)|[{;] $k = " "$tmp/src" || failed "answers key $k is not in the manual"
done <"$tmp/keys"

# Exit statuses 0-3, the sections a manual has.
for s in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS FILES ENVIRONMENT "EXIT STATUS" EXAMPLES "SEE ALSO"; do
	grep -qx "\\.SH $s" "$tmp/src" || grep -qx "\\.SH \"$s\"" "$tmp/src" || failed "no section $s"
done
for s in 0 1 2 3; do
	sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$tmp/src" | grep -qx "\\.B $s" || failed "exit status $s"
done
# Support engineers' examples: a snapshot and its replay.
grep -q "snapshot -o" "$tmp/src" || failed "no snapshot example"
grep -q -- "--sysroot [a-z0-9-]*\.tar\.gz" "$tmp/src" || failed "no replay example"

# The version.
v=$("$bin" --version | sed 's/^vfiowiz //')
grep -q "^\\.TH VFIOWIZ 8 .*\"vfiowiz $v\"" "$man" || failed ".TH does not carry version $v"

# Formatting: no warnings.
if command -v groff >/dev/null 2>&1; then
	groff -man -ww -z "$man" >"$tmp/groff" 2>&1 || failed "groff -man exits non-zero"
	[ -s "$tmp/groff" ] && { failed "groff -man -ww warns:"; head -20 "$tmp/groff"; }
else
	echo "note: no groff, formatting not checked"
fi
if man --version >/dev/null 2>&1; then
	MANWIDTH=80 man --warnings -l "$man" 2>"$tmp/manerr" >"$tmp/man.txt"
	[ -s "$tmp/manerr" ] && { failed "man --warnings warns:"; head -20 "$tmp/manerr"; }
	[ "$(wc -l <"$tmp/man.txt")" -gt 300 ] || failed "man -l printed $(wc -l <"$tmp/man.txt") lines"
else
	echo "note: no man, man --warnings not run"
fi

echo "manual: $(wc -l <"$tmp/commands") commands, $(wc -l <"$tmp/options") options, $(wc -l <"$tmp/keys") answers keys; $fail failures"
[ "$fail" -eq 0 ]
