#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The bash completion (completion/vfiowiz.bash): it completes the commands
# `vfiowiz --help` lists, each command's options (every option of --help is
# offered somewhere), the wizard's steps, the formats, and journal ids for
# undo under --sysroot.  Run with plain bash (no bash-completion needed).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
bin="$top_builddir/vfiowiz"
fail=0
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C.UTF-8 LANGUAGE=
[ -x "$bin" ] || { echo "not built: $bin"; exit 99; }
command -v bash >/dev/null || { echo "SKIP: no bash"; exit 77; }

# shellcheck source=../completion/vfiowiz.bash
. "$top_srcdir/completion/vfiowiz.bash"
complete -p vfiowiz >/dev/null || { echo "FAIL: nothing registered for vfiowiz"; exit 1; }

failed() {
	echo "FAIL: $1"
	fail=$((fail + 1))
}

# comp WORDS...: complete the last word of "vfiowiz WORDS...".
comp() {
	COMP_WORDS=(vfiowiz "$@")
	COMP_CWORD=$#
	COMP_LINE="vfiowiz $*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_vfiowiz vfiowiz "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}" | sort
}

"$bin" --help >"$tmp/help"
commands=$(sed -n '/^Commands:/,/^$/p' "$tmp/help" | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p' | sort)
[ "$(comp "")" = "$commands" ] || failed "commands: got $(comp "" | tr '\n' ' '), --help has $(echo $commands)"
[ "$(comp g)" = "$(printf 'groups\nguest-check')" ] || failed "g: $(comp g | tr '\n' ' ')"
[ "$(comp --demo ch)" = "check" ] || failed "--demo ch"

# Every option of --help is offered after some command.
all=$( { for c in "" $commands; do comp $c -; done; } | sort -u)
for o in $(grep -oE '(^|[ ,])--[a-z][a-z-]*' "$tmp/help" | sed 's/^[ ,]//' | sort -u); do
	printf '%s\n' "$all" | grep -qx -- "$o" || failed "option $o is never offered"
done
comp plan --f | grep -qx -- --format || failed "plan --f"
comp check --format 2>/dev/null | grep -q . && failed "check offers --format"
[ "$(comp plan --format "")" = "$(printf 'ansible\ntext')" ] || failed "--format values"
comp --start-at "" | grep -qx review || failed "--start-at steps"
[ "$(comp --start-at "" | wc -l)" = 9 ] || failed "--start-at: not 9 steps"

# Files: --answers offers .conf files and directories; --sysroot archives.
mkdir -p "$tmp/d/sub" "$tmp/root/var/lib/vfiowiz/journal/20240101T000000Z"
touch "$tmp/d/a.conf" "$tmp/d/b.txt" "$tmp/d/s.tar.gz"
(cd "$tmp/d" && comp plan --answers "") | grep -qx a.conf || failed "--answers: no a.conf"
(cd "$tmp/d" && comp plan --answers "") | grep -qx b.txt && failed "--answers offers b.txt"
(cd "$tmp/d" && comp --sysroot "") | grep -qx sub || failed "--sysroot: no directory"
# Journal ids under the root given.
comp --sysroot "$tmp/root" undo "" | grep -qx 20240101T000000Z || failed "undo: no journal id"

echo "completion: $fail failures"
[ "$fail" -eq 0 ]
