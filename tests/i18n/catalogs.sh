#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every catalog of po/LINGUAS is valid (msgfmt --check), complete (no fuzzy
# and no untranslated message) and up to date with the sources: a .pot made
# now with po/Makevars' XGETTEXT_OPTIONS, each of whose msgids must be in
# the catalog (msgcmp; `make -C po update-po` merges new ones in).
set -u
# shellcheck source=tests/i18n/lib.sh
. "$(dirname "$0")/lib.sh"
i18n_need msgfmt msgcmp xgettext msgattrib
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
langs=$(sed 's/#.*//' "$top_srcdir/po/LINGUAS" | tr '\n' ' ')
i18n_pot "$tmp/vfiowiz.pot" || exit 99

for l in $langs; do
	po="$top_srcdir/po/$l.po"
	[ -f "$po" ] || { i18n_fail "po/LINGUAS names $l, but po/$l.po does not exist"; continue; }
	if ! LC_ALL=C msgfmt --check --statistics -o /dev/null "$po" >"$tmp/stats" 2>&1; then
		i18n_fail "po/$l.po: msgfmt --check:"
		sed 's/^/    /' "$tmp/stats"
		continue
	fi
	stats=$(grep 'translated message' "$tmp/stats")
	echo "po/$l.po: $stats"
	case "$stats" in
	*fuzzy* | *untranslated*)
		i18n_fail "po/$l.po is incomplete: $stats"
		msgattrib --only-fuzzy --no-obsolete --no-wrap "$po" 2>/dev/null | grep '^msgid "' | sed '1d; s/^/    fuzzy: /' | head -20
		msgattrib --untranslated --no-obsolete --no-wrap "$po" 2>/dev/null | grep '^msgid "' | sed '1d; s/^/    untranslated: /' | head -20
		;;
	esac
	# msgids of the sources the catalog lacks (entries only fuzzy or
	# untranslated are there: that is the count above).
	if ! LC_ALL=C msgcmp -N --use-fuzzy --use-untranslated "$po" "$tmp/vfiowiz.pot" >"$tmp/cmp" 2>&1; then
		i18n_fail "po/$l.po is not up to date with the sources (run make -C po update-po):"
		# "FILE.pot:LINE: this message is used but not defined": the msgid
		# of the entry at that line
		sed -n 's/^.*\.pot:\([0-9]*\): this message is used but not defined.*/\1/p' "$tmp/cmp" |
			awk 'NR == FNR { want[$1] = 1; next }
			     /^msgid / { id = substr($0, 7); inid = 1; next }
			     /^"/ && inid { id = id $0; next }
			     { inid = 0 }
			     FNR in want { gsub(/""/, "", id); print "    missing: " id }' - "$tmp/vfiowiz.pot" |
			head -40
	fi
done
echo "catalogs: $fail problems (languages: $langs)"
[ "$fail" -eq 0 ]
