# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# load.sh - time limits that grow with the machine's load (sourced).
#
# The limits of the screen and terminal tests only stop a run that hangs;
# they must never cut a slow but healthy one (one screen hit 20 s at -j16 on
# a loaded machine).  scaled N prints N times the load factor: 1 on an idle
# machine, else the larger of 1 + load average / CPUs and make's -j / CPUs,
# at most 8.  VW_TIMEOUT_SCALE=F sets the factor.
vw_load_factor() {
	_ncpu=$(nproc 2>/dev/null || echo 1)
	_load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)
	_jobs=$(printf '%s\n' "${MAKEFLAGS:-}" | sed -n 's/.*-j *\([0-9][0-9]*\).*/\1/p')
	awk -v l="$_load" -v c="$_ncpu" -v j="${_jobs:-1}" 'BEGIN {
		f = 1 + int(l / c); g = int((j + c - 1) / c)
		if (g > f) f = g
		if (f > 8) f = 8
		print f }'
}
vw_scale=${VW_TIMEOUT_SCALE:-$(vw_load_factor)}
scaled() { echo $(($1 * vw_scale)); }
