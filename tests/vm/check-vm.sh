#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-vm.sh - entry point of the real-kernel test (make check-vm).
# Finds python3 (installs python3-minimal with apt-get when missing and
# allowed) and runs check-vm.py; exit 77 (skip) when it cannot run at all.
# Environment: top_srcdir, top_builddir (set by make), VFIOWIZ (binary),
# VW_VM_ACCEL (tcg, default, or kvm), VW_VM_ONLY (intel, amd, hooks: the
# single-GPU hooks alone, one boot, or sriov: the SR-IOV steps alone, two),
# VW_VM_NO_INSTALL (never run apt-get), VW_VM_WORKDIR (logs and images),
# VW_VM_BOOT_TIMEOUT (seconds per boot, 180), VW_VM_KERNEL (/boot/vmlinuz-V).
# For working on the test: VW_VM_EXTRA_ROOT=DIR lays DIR over the guest's
# root file system (a /vwtest/debug.sh there runs at every boot and its
# output lands in the report as section "debug").
here=$(cd "$(dirname "$0")" && pwd)
PATH=$PATH:/usr/sbin:/sbin
export PATH
top_srcdir=${top_srcdir:-$here/../..}
top_builddir=${top_builddir:-.}
export top_srcdir top_builddir

py=$(command -v python3 2>/dev/null)
if [ -z "$py" ] && [ -z "$VW_VM_NO_INSTALL" ] && [ "$(id -u)" = 0 ] &&
	command -v apt-get >/dev/null 2>&1; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		python3-minimal >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null 2>&1 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			python3-minimal >/dev/null 2>&1; }
	py=$(command -v python3 2>/dev/null)
fi
if [ -z "$py" ]; then
	echo "check-vm: SKIP: python3 is needed to drive the test (apt-get install python3-minimal)"
	exit 77
fi
exec "$py" "$here/check-vm.py" "$@"
