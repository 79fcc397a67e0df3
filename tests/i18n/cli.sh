#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The commands in every language of po/LINGUAS, on the fixture hosts
# (tests/out/hosts/NAME) and the golden plan cases (tests/plans/NAME):
#
#  - check and groups (and guest-check on the capture from inside a VM): no
#    English message left in the text output (every msgid, as in
#    no-english.sh), the verdict sentence and the labels are the catalog's,
#    the exit status is the English one; --json differs from the English
#    only in the prose ("message", "remedy", "note"): keys, codes,
#    severities and verdicts are never translated.
#  - plan: no English message left outside the diffs, and the diffs are the
#    English ones byte for byte: what goes to disk is never translated.
#  - apply --yes: the tree written is the one written in English.
#  Plan and apply run in English and in one language a case, the languages
#  taking turns (a string the code forgets to translate, or translates on
#  its way to disk, shows in any language; catalogs.sh checks that every
#  catalog is complete).
set -u
# shellcheck source=tests/i18n/lib.sh
. "$(dirname "$0")/lib.sh"
i18n_need xgettext msgmerge msgattrib msgunfmt gettext
hosts="$top_builddir/tests/out/hosts"
plans="$top_srcdir/tests/plans"
[ -x "$bin" ] || { echo "not built: $bin"; exit 99; }
[ -d "$hosts" ] || { echo "fixture hosts not built: $hosts"; exit 99; }
i18n_init
export TZ=UTC
awkf="$top_srcdir/tests/i18n/english.awk"
i18n_pot "$tmp/cur.pot" || exit 99
for l in $langs; do
	i18n_catalog "$l" "$tmp/cur.pot" "$tmp/$l.po" || exit 99
done

# English msgids in the files of language L: english L FILE...
english() {
	l=$1
	shift
	for f in "$@"; do	# drop a pattern that matched nothing
		shift
		[ -f "$f" ] && set -- "$@" "$f"
	done
	[ $# -gt 0 ] || return 0
	awk -f "$awkf" -v mode=catalog "$tmp/$l.po" "$@" >"$tmp/found" || i18n_fail "english.awk failed"
	while IFS="	" read -r _ msgid words file; do
		i18n_fail "$l: English in $(basename "$file"): msgid \"$msgid\" (\"$words\")"
	done <"$tmp/found"
}

# The prose of --json masked: what must not change with the language.
json_mask() {
	sed 's/^\( *"\(message\|remedy\|note\|next_step\|host_role_why\)": \)".*"\(,\{0,1\}\)$/\1"..."\3/' "$1"
}

# The unified diffs of a plan's output, and the rest: split_plan FILE
split_plan() {
	awk -v diffs="$1.diffs" -v rest="$1.rest" '
		/^--- / { pending = $0; next }
		pending != "" && /^\+\+\+ / { indiff = 1; print pending >diffs; print >diffs; pending = ""; next }
		pending != "" { print pending >rest; pending = "" }
		indiff && /^([-+ @\\]|$)/ { print >diffs; next }
		{ indiff = 0; print >rest }' "$1"
	touch "$1.diffs" "$1.rest"
}

# ---- check, groups (and guest-check) on every fixture host -----------------
for h in "$hosts"/*/; do
	h=${h%/}
	name=$(basename "$h")
	[ -d "$h/sys" ] || continue
	cmds="check groups"
	[ -d "$h/.vfiowiz/cmd" ] && cmds="$cmds guest-check"	# a capture from inside a VM
	for cmd in $cmds; do
		o="$tmp/out/$name.$cmd"
		mkdir -p "$tmp/out"
		in_lang en "$bin" --sysroot "$h" "$cmd" >"$o.en" 2>&1
		rc_en=$?
		in_lang en "$bin" --sysroot "$h" "$cmd" --json >"$o.en.json" 2>&1
		for l in $langs; do
			in_lang "$l" "$bin" --sysroot "$h" "$cmd" >"$o.$l" 2>&1
			rc=$?
			[ "$rc" = "$rc_en" ] || i18n_fail "$l: $name $cmd exits $rc, $rc_en in English"
			in_lang "$l" "$bin" --sysroot "$h" "$cmd" --json >"$o.$l.json" 2>&1
			json_mask "$o.en.json" >"$tmp/a"
			json_mask "$o.$l.json" >"$tmp/b"
			if ! cmp -s "$tmp/a" "$tmp/b"; then
				i18n_fail "$l: $name $cmd --json differs from the English beyond the prose:"
				diff -u "$tmp/a" "$tmp/b" | head -20 | sed 's/^/    /'
			fi
			[ "$cmd" = check ] || continue
			# the verdict, the last line, and a label, in the catalog's words
			verdict=$(tail -n 1 "$o.en")
			for s in "$verdict" "Kernel:"; do
				t=$(tr_ "$l" "$s")
				[ "$t" != "$s" ] || continue	# untranslated: reported below
				grep -qF -- "$t" "$o.$l" || i18n_fail "$l: $name check does not say \"$t\" ($s)"
			done
		done
	done
done
for l in $langs; do
	english "$l" "$tmp"/out/*.check."$l" "$tmp"/out/*.groups."$l" "$tmp"/out/*.guest-check."$l"
done

# ---- plan and apply on the golden plan cases --------------------------------
sum_tree() {	# the files apply writes (outside the kernel trees and the journal)
	(cd "$1" && find . \( -path ./sys -o -path ./proc -o -path ./var/lib/vfiowiz \) -prune -o \
		\( -type f -o -type l \) -print | LC_ALL=C sort | while read -r f; do
		if [ -L "$f" ]; then
			printf '%s -> %s\n' "$f" "$(readlink "$f")"
		else
			printf '%s %s %s\n' "$f" "$(stat -c %a "$f")" "$(sha256sum <"$f" | cut -c1-16)"
		fi
	done)
}

host_copy() {	# host_copy CASE DEST: the case's host, as golden-plans.sh makes it
	case=$1 root=$2
	host=$(cat "$case/host")
	[ -d "$hosts/$host" ] || return 1
	cp -al "$hosts/$host" "$root" 2>/dev/null || { rm -rf "$root"; cp -a "$hosts/$host" "$root"; } || return 1
	if [ -d "$case/root" ]; then
		(cd "$case/root" && find . -type f) | while read -r f; do rm -f "$root/$f"; done
		cp -R "$case/root/." "$root/"
	fi
	if [ -f "$case/remove" ]; then
		while read -r f; do [ -n "$f" ] && rm -rf "${root:?}/$f"; done <"$case/remove"
	fi
	return 0
}

nplans=0
# shellcheck disable=SC2086
set -- $langs
nlangs=$#
for case in "$plans"/*/; do
	case=${case%/}
	name=$(basename "$case")
	if [ ! -f "$case/answers.conf" ] || [ ! -f "$case/host" ]; then
		continue
	fi
	nplans=$((nplans + 1))
	# shellcheck disable=SC2086
	set -- $langs
	shift $((nplans % nlangs))
	lang=$1
	root="$hosts/$(cat "$case/host")"
	if [ -d "$case/root" ] || [ -f "$case/remove" ]; then	# plan writes nothing: no copy else
		root="$tmp/plan-root"
		rm -rf "$root"
		host_copy "$case" "$root" || { i18n_fail "$name: no fixture host"; continue; }
	fi
	o="$tmp/out/$name.plan"
	(cd "$case" && in_lang en "$bin" --sysroot "$root" plan --answers answers.conf) >"$o.en" 2>&1
	rc_en=$?
	split_plan "$o.en"
	for l in $lang; do
		(cd "$case" && in_lang "$l" "$bin" --sysroot "$root" plan --answers answers.conf) >"$o.$l" 2>&1
		rc=$?
		[ "$rc" = "$rc_en" ] || i18n_fail "$l: $name: plan exits $rc, $rc_en in English"
		split_plan "$o.$l"
		if ! cmp -s "$o.en.diffs" "$o.$l.diffs"; then
			i18n_fail "$l: $name: the plan's diffs differ from the English ones (translated text on disk?):"
			diff -u "$o.en.diffs" "$o.$l.diffs" | head -20 | sed 's/^/    /'
		fi
	done
	# What apply writes does not depend on the language.
	if [ "$rc_en" != 0 ] || grep -q '^Nothing to change' "$o.en"; then
		continue
	fi
	for l in en $lang; do
		rm -rf "$tmp/apply-$l"
		host_copy "$case" "$tmp/apply-$l" || continue
		(cd "$case" && in_lang "$l" "$bin" --sysroot "$tmp/apply-$l" apply --yes --answers answers.conf) \
			>"$tmp/out/$name.apply.$l" 2>&1
		echo "exit $?" >>"$tmp/out/$name.apply.$l"
		split_plan "$tmp/out/$name.apply.$l"
		sum_tree "$tmp/apply-$l" >"$tmp/sum.$l"
		if [ "$l" != en ]; then
			tail -n 1 "$tmp/out/$name.apply.en" >"$tmp/a"
			tail -n 1 "$tmp/out/$name.apply.$l" >"$tmp/b"
			cmp -s "$tmp/a" "$tmp/b" || i18n_fail "$l: $name: apply $(cat "$tmp/b"), $(cat "$tmp/a") in English"
			if ! cmp -s "$tmp/sum.en" "$tmp/sum.$l"; then
				i18n_fail "$l: $name: apply wrote other files than in English:"
				diff -u "$tmp/sum.en" "$tmp/sum.$l" | head -20 | sed 's/^/    /'
			fi
			rm -rf "$tmp/apply-$l"
		fi
	done
	rm -rf "$tmp/apply-en"
done
for l in $langs; do
	english "$l" "$tmp"/out/*.plan."$l".rest "$tmp"/out/*.apply."$l".rest
done
echo "cli: $nplans plan cases, $fail failed (languages: $langs)"
[ "$fail" -eq 0 ]
