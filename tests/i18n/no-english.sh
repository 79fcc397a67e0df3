#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# No English on the wizard's screens in a translated run: the wizard walked
# headless (--demo --script --dump, 80x24) in English and in every language
# of po/LINGUAS, through every step, the help of each, the dialogs, the
# troubleshooting catalogue and the too-small message: our long walk below
# plus the key scripts of the golden screens (tests/screens/*.keys).
#
#  - tests/i18n/english.txt lists English strings (step titles, key hints,
#    help, findings): the English walk must show each (this checks the walk
#    and the matching), no translated walk may show any.
#  - Every msgid of the sources: none may show in English in a translated
#    walk unless the catalog translates it as itself (english.awk).
#  - The files the wizard writes, up to the apply, are the English run's.
#
# Until the translators finish, untranslated strings fail here; the list
# printed is what is left to translate (or a string the code shows without
# gettext).
set -u
# shellcheck source=tests/i18n/lib.sh
. "$(dirname "$0")/lib.sh"
i18n_need xgettext msgmerge msgattrib msgunfmt
[ -x "$bin" ] || { echo "not built: $bin"; exit 99; }
demo="${VFIOWIZ_DEMO:-$top_builddir/tests/out/hosts/demo}"
[ -d "$demo/sys" ] || { echo "the demo host is not built: $demo"; exit 99; }
export VFIOWIZ_DEMO="$demo"
i18n_init
awkf="$top_srcdir/tests/i18n/english.awk"
list="$top_srcdir/tests/i18n/english.txt"

# The walks: one through everything, with the help of every step (F1, a
# page down, Esc) and the cursor over every item (their details), then the
# golden screens' scripts that are not the start of a longer one.
H=F1,pgdn,esc
D=down,down,down,down,down,down,down,down
U=up,up,up,up,up,up,up,up
{
	echo "$H,$D,enter,$H,down,space,$D,$U,down,enter,$H,$D,enter,$H,$D,$U,enter,$H,type:gpu-vm,$D,$D,$U,$U,enter,$H,space,down,type:secret1,$D,enter,$H,end,enter,$H,enter,enter,enter,$H,$D,r,$D,$H,q,esc,enter"
	for k in "$top_srcdir"/tests/screens/*.keys; do
		grep -q '^env:' "$k" && continue	# LC_ALL=C: English by design
		keys=$(sed -n 's/^keys: *//p' "$k")
		size=$(sed -n 's/^args:.*--size \([0-9x]*\).*/\1/p' "$k")
		echo "$keys${size:+ --size $size}"
	done
} | awk '{ line[NR] = $0 }
	END {	# drop a script that a longer one starts with
		for (i = 1; i <= NR; i++) {
			keep = 1
			for (j = 1; j <= NR && keep; j++)
				if (j != i && (index(line[j], line[i] ",") == 1 || (line[j] == line[i] && j < i)))
					keep = 0
			if (keep && line[i] != "")
				print line[i]
		}
	}' >"$tmp/walks"

# The walks of all languages at once (each copies the demo host for itself).
for l in en $langs; do
	i18n_walk "$l" "$tmp/$l" "$tmp/walks" &
done
wait
i18n_walk_failures "$tmp/en"
awk -f "$awkf" -v mode=phrases -v expect=1 "$list" "$tmp"/en/*/*.txt >"$tmp/missing"
while IFS="	" read -r _ phrase; do
	i18n_fail "en: the English walk never shows \"$phrase\" (tests/i18n/english.txt or the walk is out of date)"
done <"$tmp/missing"

# What the wizard writes (the files of the plan, its state file, the
# journal's copies and logs) is the same in every language: a walk up to
# the apply on a copy of the demo host, as --sysroot.
idmask='s/[0-9]\{8\}T[0-9]\{6\}Z\(-[0-9]\{3\}\)\{0,1\}/ID/g'
written() {	# written LANG: the walk, then "path checksum" of each file written
	root="$tmp/root-$1"
	# hard links: every write replaces a file by rename (golden-plans.sh)
	cp -al "$demo" "$root" 2>/dev/null || { rm -rf "$root"; cp -a "$demo" "$root"; } || exit 99
	in_lang "$1" timeout "$(scaled 60)" "$bin" --sysroot "$root" --dump "$tmp/root-$1.dump" --script \
		enter,down,space,enter,enter,enter,type:gpu-vm,enter,space,down,type:secret1,enter,enter,enter,enter,enter \
		>/dev/null 2>&1 || i18n_fail "$1: the walk on a copy of the demo host failed"
	# journal ids (a time) masked; the journal's key and the lock differ
	(cd "$root" && find . \( -path ./sys -o -path ./proc \) -prune -o -type f -newer "$tmp/walks" -print |
		grep -v '/journal/[^/]*/\(key\|manifest\)$\|/vfiowiz/lock$' | LC_ALL=C sort |
		while read -r f; do
			printf '%s %s\n' "$(echo "$f" | sed "$idmask")" "$(sed "$idmask" <"$f" | sha256sum | cut -c1-16)"
		done)
	chmod -R u+w "$root" && rm -rf "$root"
}
sleep 1	# the files written are the ones newer than $tmp/walks
written en >"$tmp/written.en"
[ -s "$tmp/written.en" ] || i18n_fail "en: the walk on a copy of the demo host wrote nothing"

i18n_pot "$tmp/cur.pot" || exit 99
for l in $langs; do
	written "$l" >"$tmp/written.$l"
	if ! cmp -s "$tmp/written.en" "$tmp/written.$l"; then
		i18n_fail "$l: the wizard wrote other files than in English (translated text on disk?):"
		diff -u "$tmp/written.en" "$tmp/written.$l" | sed 's/^/    /'
	fi
	[ "$(tr_ "$l" "Host checks")" != "Host checks" ] || i18n_fail "$l: the catalog does not load"
	i18n_walk_failures "$tmp/$l"
	i18n_catalog "$l" "$tmp/cur.pot" "$tmp/$l.po" || exit 99
	before=$fail
	awk -f "$awkf" -v mode=phrases "$list" "$tmp/$l"/*/*.txt >"$tmp/found"
	while IFS="	" read -r _ phrase file; do
		i18n_fail "$l: English on the screen: \"$phrase\" (${file#"$tmp/"})"
	done <"$tmp/found"
	awk -f "$awkf" -v mode=catalog "$tmp/$l.po" "$tmp/$l"/*/*.txt >"$tmp/found"
	while IFS="	" read -r _ msgid words file; do
		i18n_fail "$l: English on the screen: msgid \"$msgid\" (\"$words\" in ${file#"$tmp/"})"
	done <"$tmp/found"
	echo "$l: $((fail - before)) English strings on the screens"
done
echo "no-english: $fail failed (languages: $langs)"
[ "$fail" -eq 0 ]
