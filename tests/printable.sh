#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# printable.sh - strings read from a host never reach the terminal raw
# (issue 14 item 6).  A copy of amd-desktop gets a CPU model name, an
# os-release PRETTY_NAME, a DMI product name and a driver name carrying an
# OSC 52 clipboard write, ESC[2J, C1 controls (CSI U+009B, NEL U+0085) and
# bytes that are not UTF-8.  check, groups, plan and apply --dry-run (text
# and JSON), live and replayed from a snapshot, must print none of them raw,
# and must still show the escaped form.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
bin="$top_builddir/vfiowiz"
src="$top_builddir/tests/out/hosts/amd-desktop"
[ -x "$bin" ] || { echo "not built: $bin"; exit 99; }
[ -d "$src" ] || { echo "fixture hosts not built"; exit 99; }
command -v python3 >/dev/null || { echo "SKIP: python3"; exit 77; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C.UTF-8 LANGUAGE= TZ=UTC
fail=0
h="$tmp/host"
cp -a "$src" "$h" || exit 99

evil='\033]52;c;ZWNobyBwd25lZA==\007\033[2J\302\233\061m\302\205\377\376'
sed -i "s/^model name.*/model name	: AMD $(printf "$evil" | sed 's/[&/\]/\\&/g') Ryzen/" "$h/proc/cpuinfo"
sed -i "s/^PRETTY_NAME=.*/PRETTY_NAME=\"Debian $(printf "$evil" | sed 's/[&/\]/\\&/g')\"/" "$h/etc/os-release"
printf "Box $evil\n" >"$h/sys/class/dmi/id/product_name"
drv=$(printf "nv$evil")
mkdir -p "$h/sys/bus/pci/drivers/$drv"
ln -sfn "../../../../bus/pci/drivers/$drv" "$h/sys/devices/pci0000:00/0000:00:03.1/0000:09:00.0/driver"
grep -q "$(printf '\033')" "$h/proc/cpuinfo" || { echo "fixture not made"; exit 99; }
printf 'devices = {"0000:09:00"}\n' >"$tmp/answers.conf"

# clean FILE WHAT: no ESC, BEL, C1 or invalid UTF-8 in FILE.
clean() {
	python3 - "$1" <<'PY' || { echo "FAIL: $2 prints a host string raw"; fail=$((fail + 1)); }
import sys, re
b = open(sys.argv[1], 'rb').read()
try:
    t = b.decode('utf-8')
except UnicodeDecodeError as e:
    print('  not UTF-8 at byte %d' % e.start); sys.exit(1)
bad = [c for c in t if (ord(c) < 0x20 and c not in '\n\t') or 0x7f <= ord(c) <= 0x9f]
if bad:
    print('  raw controls: %r' % sorted(set(bad))); sys.exit(1)
PY
}

run() {	# run WHAT ARGS...
	what=$1
	shift
	"$bin" "$@" >"$tmp/out" 2>&1
	clean "$tmp/out" "$what"
}

run "check" --sysroot "$h" check
for s in 'AMD \x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2J\u009b1m\u0085\xff\xfe Ryzen' 'Debian \x1b]52'; do
	grep -qF -- "$s" "$tmp/out" || { echo "FAIL: check does not show '$s'"; fail=$((fail + 1)); }
done
run "check --json" --sysroot "$h" check --json
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out" ||
	{ echo "FAIL: check --json is not JSON"; fail=$((fail + 1)); }
run "groups" --sysroot "$h" groups
grep -qF 'nv\x1b]52' "$tmp/out" || { echo "FAIL: groups does not show the driver"; fail=$((fail + 1)); }
run "groups --json" --sysroot "$h" groups --json
run "plan" --sysroot "$h" plan --answers "$tmp/answers.conf"
run "apply --dry-run" --sysroot "$h" apply --dry-run --yes --answers "$tmp/answers.conf"

# The same host as a support snapshot, replayed.
if "$bin" --sysroot "$h" snapshot --yes -o "$tmp/snap.tar.gz" >"$tmp/out" 2>&1; then
	clean "$tmp/out" "snapshot"
	run "check of a snapshot" --sysroot "$tmp/snap.tar.gz" check
	grep -qF 'AMD \x1b]52' "$tmp/out" || { echo "FAIL: the snapshot's check does not show the model"; fail=$((fail + 1)); }
else
	echo "FAIL: snapshot"; cat "$tmp/out"; fail=$((fail + 1))
fi
echo "printable: $fail failures"
[ "$fail" = 0 ]
