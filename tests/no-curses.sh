#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The core never calls curses (core/vw.h, docs/style.md): no source of core/
# includes a curses header, and libvwcore.a needs no symbol that the curses
# libraries the program links (ncursesw, tinfo, panel...) define.  The
# compiler cannot catch it: curses.h is on the default include path.
#
#   no-curses.sh                 check this build (core/, libvwcore.a)
#   no-curses.sh DIR LIB BIN     check DIR's sources and LIB, with the curses
#                                libraries BIN links
# With no argument it also checks itself: a copy of the core with a file that
# includes <curses.h>, and a library with an object that calls initscr()
# without including anything, must each fail.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
self=$0

# check DIR LIB BIN: prints what it finds; exit 1 when it finds something.
check() {
	dir=$1 lib=$2 bin=$3 found=0
	if grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](ncursesw?/)?(n?cursesw?|term|panel|menu|form)\.h[>"]' \
		"$dir"/*.c "$dir"/*.h; then
		echo "FAIL: a curses header included in $dir (above)"
		found=1
	fi
	libs=$(ldd "$bin" 2>/dev/null | awk '$1 ~ /^lib(n?cursesw?|tinfow?|panelw?|menuw?|formw?)\.so/ { print $3 }')
	[ -n "$libs" ] || { echo "ERROR: $bin links no curses library (ldd)"; return 2; }
	# shellcheck disable=SC2086
	nm -D --defined-only $libs | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' | sort -u >"$tmp/curses.syms"
	nm -u "$lib" | awk '{ print $NF }' | sed 's/@.*//' | sort -u >"$tmp/core.syms"
	comm -12 "$tmp/curses.syms" "$tmp/core.syms" >"$tmp/both"
	if [ -s "$tmp/both" ]; then
		echo "FAIL: $lib uses curses symbols:"
		for s in $(cat "$tmp/both"); do
			echo "    $s in $(nm -A -u "$lib" | awk -v s="$s" '$NF == s { sub(/:$/, "", $1); sub(/^.*\//, "", $1); print $1 }' | head -3 | tr '\n' ' ')"
		done
		found=1
	fi
	return $found
}

tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
if [ $# -eq 3 ]; then
	check "$1" "$2" "$3"
	exit
fi

bin="$top_builddir/vfiowiz"
lib="$top_builddir/libvwcore.a"
[ -x "$bin" ] && [ -f "$lib" ] || { echo "not built: $bin, $lib"; exit 99; }
fail=0
check "$top_srcdir/core" "$lib" "$bin" || fail=1

# The checker checked: each planted defect must be found.
cc=${CC:-cc}
mkdir "$tmp/core1" "$tmp/core2"
cp "$top_srcdir"/core/*.c "$top_srcdir"/core/*.h "$tmp/core1/"
printf '/* planted */\n#include <curses.h>\nint planted(void) { return 0; }\n' >"$tmp/core1/planted.c"
if "$self" "$tmp/core1" "$lib" "$bin" >"$tmp/out1" 2>&1; then
	echo "FAIL: the checker missed a planted #include <curses.h>"
	fail=1
else
	grep -q "planted.c" "$tmp/out1" || { echo "FAIL: the planted include not named:"; cat "$tmp/out1"; fail=1; }
fi
printf 'extern void *initscr(void);\nvoid *planted(void) { return initscr(); }\n' >"$tmp/planted.c"
cp "$lib" "$tmp/lib.a"
if ! "$cc" -c -o "$tmp/planted.o" "$tmp/planted.c" || ! ar r "$tmp/lib.a" "$tmp/planted.o" 2>/dev/null; then
	echo "cannot build the planted object with $cc"
	exit 99
fi
cp "$top_srcdir"/core/*.c "$top_srcdir"/core/*.h "$tmp/core2/"
if "$self" "$tmp/core2" "$tmp/lib.a" "$bin" >"$tmp/out2" 2>&1; then
	echo "FAIL: the checker missed a planted call to initscr()"
	fail=1
else
	grep -q "initscr in .*planted.o" "$tmp/out2" || { echo "FAIL: the planted symbol not named:"; cat "$tmp/out2"; fail=1; }
fi
[ "$fail" -eq 0 ] && echo "no curses in the core (and the checker finds planted ones)"
exit "$fail"
