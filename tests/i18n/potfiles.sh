#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# po/POTFILES.in and the sources agree: every file of core/ and tui/ with a
# string marked for translation (_("..."), N_("..."), ngettext("...")) is
# listed, and every file listed exists.  A file that only mentions _( in a
# comment or translates a variable, _(c->why), holds nothing to extract and
# need not be listed: with xgettext at hand, a candidate found by grep is
# confirmed by extracting it.
set -u
# shellcheck source=tests/i18n/lib.sh
. "$(dirname "$0")/lib.sh"
potfiles="$top_srcdir/po/POTFILES.in"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
xgo=
command -v xgettext >/dev/null 2>&1 &&
	xgo=$(sed -n 's/^XGETTEXT_OPTIONS *= *//p' "$top_srcdir/po/Makevars")

sed -e 's/#.*//' -e 's/[ \t]*$//' -e '/^$/d' "$potfiles" >"$tmp/listed"
n=0
while read -r f; do
	n=$((n + 1))
	[ -f "$top_srcdir/$f" ] || i18n_fail "po/POTFILES.in lists $f, which does not exist"
done <"$tmp/listed"

(cd "$top_srcdir" && grep -lE '(^|[^A-Za-z0-9_])(_|N_|ngettext)\(' core/*.c core/*.h tui/*.c tui/*.h) \
	>"$tmp/marked" 2>/dev/null
while read -r f; do
	grep -qxF "$f" "$tmp/listed" && continue
	if [ -n "$xgo" ]; then
		rm -f "$tmp/one.pot"
		# shellcheck disable=SC2086
		(cd "$top_srcdir" && xgettext $xgo -o "$tmp/one.pot" "$f" 2>/dev/null)
		[ -s "$tmp/one.pot" ] || continue	# nothing to extract
	fi
	i18n_fail "$f has strings marked for translation but is not in po/POTFILES.in"
done <"$tmp/marked"
echo "potfiles: $n files listed, $fail problems"
[ "$fail" -eq 0 ]
