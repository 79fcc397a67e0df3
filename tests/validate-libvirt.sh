#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every libvirt domain the VM step generated in test-vmplan (left in
# tests/out/vm-domains/) must pass libvirt's schema (virt-xml-validate) and
# a define on libvirt's test driver (virsh -c test:///default define
# --validate), as docs/formats.md section 6 asks.  The templates are checked too.
# Skipped (77) when libvirt-clients is not installed.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
dir="$top_builddir/tests/out/vm-domains"

for tool in virt-xml-validate virsh; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "SKIP: $tool not installed (Debian package libvirt-clients)"
		exit 77
	fi
done
set -- "$dir"/*.xml
if [ ! -e "$1" ]; then
	echo "FAIL: no domains in $dir (run tests/test-vmplan first)"
	exit 1
fi
set -- "$@" "$top_srcdir"/templates/libvirt-*.xml

n=0 fail=0
for f in "$@"; do
	n=$((n + 1))
	if ! out=$(virt-xml-validate "$f" domain 2>&1); then
		echo "FAIL: virt-xml-validate $f"
		echo "$out"
		fail=$((fail + 1))
		continue
	fi
	if ! out=$(virsh -q -c test:///default define --validate "$f" 2>&1); then
		echo "FAIL: virsh define --validate $f"
		echo "$out"
		fail=$((fail + 1))
		continue
	fi
	echo "ok: $(basename "$f")"
done
echo "validate-libvirt: $n domains, $fail failures"
[ "$fail" -eq 0 ]
