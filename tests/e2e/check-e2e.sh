#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-e2e.sh - entry point of the end-to-end test (make check-e2e): runs
# check-e2e.py with python3; exit 77 (skip) when it cannot run at all.
# Environment: top_srcdir, top_builddir (set by make), VFIOWIZ (binary),
# VW_E2E_ONLY (intel or amd), VW_E2E_BOOT_TIMEOUT and VW_E2E_L2_TIMEOUT
# (seconds: one boot of L1, 300; the L2 guest, 600),
# VW_E2E_CACHE (the cached L1 root, default /var/cache/vfiowiz-e2e as root,
# else $XDG_CACHE_HOME/vfiowiz-e2e), VW_E2E_WORKDIR (logs and images),
# VW_E2E_NO_INSTALL (never run apt-get), VW_E2E_TEMPLATES=0 (no template
# check: for working on the rest).
here=$(cd "$(dirname "$0")" && pwd)
PATH=$PATH:/usr/sbin:/sbin
export PATH
top_srcdir=${top_srcdir:-$here/../..}
top_builddir=${top_builddir:-.}
export top_srcdir top_builddir
py=$(command -v python3 2>/dev/null)
if [ -z "$py" ]; then
	echo "check-e2e: SKIP: python3 is needed to drive the test (apt-get install python3-minimal)"
	exit 77
fi
exec "$py" "$here/check-e2e.py" "$@"
