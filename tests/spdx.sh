#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every source file carries its licence: an SPDX-License-Identifier line
# (GPL-2.0-or-later, as libpci that vfiowiz links) in its first three lines.
# Sources are the tracked C files, shell and Python scripts, automake and
# autoconf files; data (templates, goldens, catalogs) is not: a template's
# bytes end up in the files written on a user's host (and tests/vm-golden
# holds what they produce).
set -u
top=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 99
if ! [ -e .git ] || ! command -v git >/dev/null 2>&1; then
	echo "spdx: not a git checkout: skipped"
	exit 77
fi
tag='SPDX-License-Identifier: GPL-2.0-or-later'
bad=0 n=0
for f in $(git ls-files '*.c' '*.h' '*.sh' '*.py' '*.am' '*.ac' .ci/run bench/scan); do
	case $f in templates/* | tests/vm-golden/*) continue ;; esac
	[ -f "$f" ] || continue
	n=$((n + 1))
	if ! head -n 3 "$f" | grep -qF "$tag"; then
		echo "spdx: $f has no '$tag' line"
		bad=$((bad + 1))
	fi
done
echo "spdx: $n files, $bad without the licence line"
[ "$bad" -eq 0 ]
