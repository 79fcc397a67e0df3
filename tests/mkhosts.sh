#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# mkhosts.sh OUTDIR
#
# Build every fixture host into OUTDIR/NAME: each tests/hosts/NAME.host
# through mkhost, each captured tests/hosts/NAME.tar.gz by extraction (plus
# its NAME.facts.txt turned into recorded command outputs).  Old trees are
# replaced.  MKHOST names the generator (default: tests/mkhost, relative to
# the build directory this runs in).
set -eu

if [ $# -ne 1 ]; then
	echo "usage: $0 OUTDIR" >&2
	exit 2
fi
out=$1
srcdir=$(cd "$(dirname "$0")" && pwd)
mkhost=${MKHOST:-./tests/mkhost}
[ -x "$mkhost" ] || { echo "$0: $mkhost not built (make tests/mkhost)" >&2; exit 1; }

mkdir -p "$out"
for desc in "$srcdir"/hosts/*.host; do
	name=$(basename "$desc" .host)
	rm -rf "$out/$name"
	"$mkhost" "$desc" "$out/$name"
done
for tarball in "$srcdir"/hosts/*.tar.gz; do
	[ -e "$tarball" ] || continue
	name=$(basename "$tarball" .tar.gz)
	rm -rf "$out/$name"
	mkdir -p "$out/$name"
	tar -xzf "$tarball" --no-same-owner -C "$out/$name"
	# A capture may come without write permission on its directories.
	chmod -R u+w "$out/$name"
	facts=$srcdir/hosts/$name.facts.txt
	if [ -f "$facts" ]; then
		sh "$srcdir/hosts/h200-cmd.sh" "$facts" "$out/$name"
	fi
done
