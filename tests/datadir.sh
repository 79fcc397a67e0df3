#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Where the program finds its data (core/datadir.h), as README's first
# command uses it: `./vfiowiz --demo` in the build tree, LANG=fr_FR.UTF-8.
#
#  - No path of the build or source tree is in the program (stripped of its
#    debug information, which dpkg-buildflags maps anyway): the build is the
#    same in any directory, and an installed copy never reads the build tree.
#  - From the build tree, with no VFIOWIZ_* variable: the demo host, the
#    templates (a VM plan) and the French catalog are the build tree's,
#    whether fr_FR.UTF-8 is generated on this machine (here with localedef
#    into a LOCPATH of our own) or not (C.UTF-8 and LANGUAGE=fr_FR).
#  - A copy of the program elsewhere finds nothing of the build tree; given a
#    marker and the files next to it, it takes those.
# `make installcheck` runs the installed program the same way (--installed).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
bin="$top_builddir/vfiowiz"
installed=
if [ "${1:-}" = --installed ]; then
	installed=1
	bin=$2
fi
[ -x "$bin" ] || { echo "not built: $bin"; exit 99; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
unset VFIOWIZ_DEMO VFIOWIZ_TEMPLATES VFIOWIZ_LOCALEDIR LANGUAGE LC_ALL LC_MESSAGES TEXTDOMAINDIR
srcabs=$(cd "$top_srcdir" && pwd -P)
bldabs=$(cd "$top_builddir" && pwd -P)

# French on the wizard's first screen and in check: fr_ok LABEL ENV...
fr_ok() {
	label=$1
	shift
	rm -rf "$tmp/dump"
	if ! env "$@" "$bin" --demo --script q --dump "$tmp/dump" >"$tmp/out" 2>&1; then
		bad "$label: the wizard failed"; sed 's/^/    /' "$tmp/out"; return
	fi
	grep -q "Vérifications de l'hôte" "$tmp/dump"/000-*.txt ||
		{ bad "$label: the wizard is not in French"; sed 's/^/    /' "$tmp/dump"/000-*.txt; }
	env "$@" "$bin" --demo check >"$tmp/check" 2>&1
	grep -q "^Noyau :" "$tmp/check" || { bad "$label: check is not in French"; sed 's/^/    /' "$tmp/check"; }
	echo "ok: $label"
}

if [ -n "$installed" ]; then
	fr_ok "installed, LANG=fr_FR.UTF-8" LANG=fr_FR.UTF-8
	grep -q "^H.*$bldabs" "$tmp/check" && bad "installed: the build tree's demo host"
	echo "datadir (installed): $fail failures"
	[ "$fail" -eq 0 ]
	exit
fi

# 1. No build-tree path compiled in.
strip -o "$tmp/stripped" "$bin" 2>/dev/null || cp "$bin" "$tmp/stripped"
for d in "$bldabs" "$srcabs"; do
	if grep -aqF "$d" "$tmp/stripped"; then
		bad "the program holds the path $d:"
		strings -a "$tmp/stripped" | grep -F "$d" | sed 's/^/    /' | head -5
	fi
done

# 2. The build tree's data, French with and without the locale installed.
fr_ok "build tree, LANG=fr_FR.UTF-8 (locale absent: C.UTF-8 + LANGUAGE)" \
	LANG=fr_FR.UTF-8 LOCPATH="$tmp/nolocales"
grep -q "$bldabs/tests/out/hosts/demo" "$tmp/check" || bad "build tree: not the build tree's demo host"
if command -v localedef >/dev/null 2>&1 &&
	mkdir -p "$tmp/locales" && localedef -i fr_FR -f UTF-8 "$tmp/locales/fr_FR.UTF-8" >/dev/null 2>&1; then
	fr_ok "build tree, LANG=fr_FR.UTF-8 (locale generated)" LANG=fr_FR.UTF-8 LOCPATH="$tmp/locales"
else
	echo "note: localedef cannot make fr_FR.UTF-8 here; the generated-locale run is left out"
fi
env LANG=C.UTF-8 "$bin" --demo --script q --dump "$tmp/dump" >/dev/null 2>&1
grep -q "Host checks" "$tmp/dump"/000-*.txt || bad "LANG=C.UTF-8 is not English"
# The templates: a VM plan needs them.
cat >"$tmp/answers.conf" <<'A'
devices = {"0000:09:00"}
vm {
  name = 'gpu-vm'
}
A
env LANG=C.UTF-8 "$bin" --demo plan --answers "$tmp/answers.conf" >"$tmp/plan" 2>&1 ||
	{ bad "build tree: plan failed"; sed 's/^/    /' "$tmp/plan" | head; }
grep -q "<domain" "$tmp/plan" || bad "build tree: the plan has no libvirt domain (templates not found?)"

# 3. A copy elsewhere: nothing of the build tree; with a marker, its files.
mkdir -p "$tmp/copy"
cp "$bin" "$tmp/copy/vfiowiz"
env LANG=C.UTF-8 "$tmp/copy/vfiowiz" --demo check >"$tmp/copy.out" 2>&1
grep -qF "$bldabs" "$tmp/copy.out" && bad "a copy outside the build tree used it: $(head -1 "$tmp/copy.out")"
echo "srcdir=$srcabs" >"$tmp/copy/vfiowiz.buildtree"
mkdir -p "$tmp/copy/tests/out/hosts" "$tmp/copy/po"
cp -R "$bldabs/tests/out/hosts/demo" "$tmp/copy/tests/out/hosts/demo"
cp -R "$bldabs/po/locale" "$tmp/copy/po/locale"
bin="$tmp/copy/vfiowiz"
fr_ok "a copy with its marker" LANG=fr_FR.UTF-8 LOCPATH="$tmp/nolocales"
grep -qF "$tmp/copy/tests/out/hosts/demo" "$tmp/check" || bad "a copy with its marker: not its demo host"

echo "datadir: $fail failures"
[ "$fail" -eq 0 ]
