#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The documents the sources cite are in the tree: every docs/NAME cited in a
# source, script, fragment or document exists, and nothing cites a design
# document outside the repository (../shared, a bare formats.md/DESIGN.md).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
cd "$top_srcdir" || exit 99
fail=0
files=$(find core tui tests mk bench fuzz doc docs tools completion Makefile.am configure.ac README.md \
	-type f \( -name '*.[ch]' -o -name '*.sh' -o -name '*.am' -o -name '*.md' -o -name '*.in' \
	-o -name '*.ac' -o -name '*.py' \) ! -path 'tests/out/*' ! -name docs.sh 2>/dev/null)
# shellcheck disable=SC2086
for ref in $(grep -ohE 'docs/[A-Za-z0-9_.-]+\.(md|conf)' $files | sort -u); do
	[ -f "$ref" ] || { echo "FAIL: $ref is cited but not in the tree:"; grep -lF "$ref" $files | sed 's/^/    /'; fail=1; }
done
# shellcheck disable=SC2086
if grep -nE '\.\./shared|shared/(DESIGN|docs|hosts)|(^|[^/a-z])(formats|DESIGN|design|style)\.md' $files |
	grep -vE 'docs/(formats|design|style)\.md|\]\((formats|design|style)\.md\)'; then
	echo "FAIL: the lines above cite a document outside the repository (cite docs/NAME.md)"
	fail=1
fi
[ "$fail" -eq 0 ] && echo "every cited document is in docs/"
exit "$fail"
