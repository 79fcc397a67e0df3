# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# lib.sh - shared by the i18n tests (sourced, POSIX sh).
#
# After i18n_init:
#   $tmp         a scratch folder, removed at exit
#   $langs       the languages of po/LINGUAS
#   $localedir   a locale tree LANG/LC_MESSAGES/vfiowiz.mo, copied from the
#                build tree's po/LANG.gmo (made by `make`, see mk/i18n.am)
#   $bin         the vfiowiz binary of the build tree
# Run the program in language L with:  in_lang L "$bin" ARGS...
# (LC_ALL=C.UTF-8 and LANGUAGE=L: glibc ignores LANGUAGE only in the plain
# C locale, so no installed locale is needed.)

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
bin="$top_builddir/vfiowiz"
# shellcheck source=tests/load.sh
. "$top_srcdir/tests/load.sh"
fail=0

i18n_fail() {
	echo "FAIL: $*"
	fail=$((fail + 1))
}

i18n_need() {	# i18n_need TOOL...: skip (77) when a gettext tool is missing
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || { echo "SKIP: no $t (install gettext)"; exit 77; }
	done
}

i18n_init() {
	tmp=$(mktemp -d) || exit 99
	trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
	langs=$(sed 's/#.*//' "$top_srcdir/po/LINGUAS" | tr '\n' ' ')
	localedir="$tmp/locale"
	for l in $langs; do
		gmo="$top_builddir/po/$l.gmo"
		[ -f "$gmo" ] || { echo "no catalog $gmo: run make first"; exit 99; }
		[ -z "$(find "$top_srcdir/po/$l.po" -newer "$gmo")" ] ||
			echo "note: po/$l.po changed after $gmo was made: testing the catalog made"
		mkdir -p "$localedir/$l/LC_MESSAGES" &&
			cp "$gmo" "$localedir/$l/LC_MESSAGES/vfiowiz.mo" || exit 99
	done
	export VFIOWIZ_LOCALEDIR="$localedir" TEXTDOMAINDIR="$localedir"
}

in_lang() {	# in_lang LANG CMD...: run CMD in LANG ("en": untranslated)
	l=$1
	shift
	[ "$l" = en ] && l=
	LC_ALL=C.UTF-8 LANGUAGE=$l TERM=xterm-256color NO_COLOR='' "$@"
}

# The translation of a msgid in language L (the msgid itself when it has
# none), as the program would show it.
tr_() {
	in_lang "$1" gettext -d vfiowiz -- "$2"
}

# A .pot of the sources as they are now, with the options of po/Makevars:
# i18n_pot FILE
i18n_pot() {
	# shellcheck disable=SC2046
	xgettext $(sed -n 's/^XGETTEXT_OPTIONS *= *//p' "$top_srcdir/po/Makevars") \
		--directory="$top_srcdir" --files-from="$top_srcdir/po/POTFILES.in" \
		--package-name=vfiowiz -o "$1"
}

# Every msgid of the sources with its translation in language L as the built
# catalog holds it (fuzzy entries are not in a .gmo: they come out empty):
# i18n_catalog L POT OUT.po
i18n_catalog() {
	msgunfmt -o "$tmp/$1.mo.po" "$top_builddir/po/$1.gmo" &&
		msgmerge -q -N --no-wrap -o "$tmp/$1.merged.po" "$tmp/$1.mo.po" "$2" &&
		msgattrib --no-obsolete --no-wrap -o "$3" "$tmp/$1.merged.po"
}

# Walk the wizard headless in language L on the demo host, every key script
# in turn, dumping every screen into DIR/N/: i18n_walk L DIR SCRIPTFILE
# (SCRIPTFILE: one "keys [--size COLSxLINES]" a line).  Walks that fail are
# listed in DIR/failed (so that walks may run in the background).
i18n_walk() {
	n=0
	mkdir -p "$2"
	: >"$2/failed"
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		n=$((n + 1))
		keys=${line%% --size *}
		size=80x24
		[ "$keys" != "$line" ] && size=${line##* --size }
		if ! in_lang "$1" timeout "$(scaled 60)" "$bin" --demo --script "$keys" --size "$size" \
			--dump "$2/$n" >"$2/walk.out" 2>&1; then
			echo "$1: the walk '$keys' failed: $(tr '\n' ' ' <"$2/walk.out")" >>"$2/failed"
		fi
	done <"$3"
	rm -f "$2/walk.out"
}

i18n_walk_failures() {	# i18n_walk_failures DIR: count the failed walks
	while IFS= read -r msg; do
		i18n_fail "$msg"
	done <"$1/failed"
}
