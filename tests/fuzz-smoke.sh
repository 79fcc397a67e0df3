#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz-smoke.sh - build the libFuzzer harnesses with clang and run each one
# briefly over its seed corpus (fuzz/corpus/<target>/), so that a parser
# that crashes on a known input, or right away, fails `make check`.
#
# Skipped (exit 77) when clang or its libFuzzer runtime is missing (Debian:
# apt-get install clang libclang-rt-14-dev).  FUZZ_SECONDS (default 10) is
# shared among the targets; FUZZ_CC picks the compiler; FUZZ_SKIP lists
# targets not to run (while a known bug waits for its fix).  A longer run
# is described in docs/fuzzing.md.
set -u
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=${top_builddir:-.}
cc=${FUZZ_CC:-clang}
total=${FUZZ_SECONDS:-10}

command -v "$cc" >/dev/null 2>&1 || { echo "SKIP: $cc not found"; exit 77; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/vw-fuzz.XXXXXX") || exit 99
trap 'rm -rf "$scratch"' EXIT
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' \
	>"$scratch/probe.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$scratch/probe.c" -o "$scratch/probe" 2>"$scratch/probe.log"; then
	echo "SKIP: $cc cannot link libFuzzer:"; head -3 "$scratch/probe.log"
	exit 77
fi

# The harnesses are built by the Makefile (mk/fuzz.am); the jobserver
# of an outer make does not reach us, so build on our own.
unset MAKEFLAGS MFLAGS MAKELEVEL
if ! make -s -C "$builddir" fuzz FUZZ_CC="$cc" >"$scratch/build.log" 2>&1; then
	cat "$scratch/build.log"
	echo "FAIL: the fuzz harnesses do not build"
	exit 1
fi

targets=
for b in "$builddir"/fuzz-build/fuzz-*; do
	t=${b##*/fuzz-}
	case " ${FUZZ_SKIP:-} " in *" $t "*) echo "$t: skipped (FUZZ_SKIP)"; continue ;; esac
	[ -x "$b" ] && targets="$targets $t"
done
[ -n "$targets" ] || { echo "FAIL: no harness built"; exit 1; }
n=$(echo "$targets" | wc -w)
per=$(( total / n )); [ "$per" -ge 1 ] || per=1
rc=0
for t in $targets; do
	mkdir -p "$scratch/$t" "$scratch/crash-$t"
	# Corpus directories: the scratch one first, the seeds if any.
	set -- "$scratch/$t"
	[ -d "$srcdir/fuzz/corpus/$t" ] && set -- "$@" "$srcdir/fuzz/corpus/$t"
	# New inputs go to the scratch corpus (first directory), never into
	# the source tree.
	# The harnesses' scratch folders go under ours (a crash skips their
	# own cleanup).
	TMPDIR="$scratch" ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	"$builddir/fuzz-build/fuzz-$t" -max_total_time="$per" -timeout=20 -rss_limit_mb=2048 \
		-max_len=65536 -print_final_stats=1 -artifact_prefix="$scratch/crash-$t/" \
		"$@" >"$scratch/$t.log" 2>&1
	st=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$scratch/$t.log")
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$scratch/$t.log")
	cov=$(grep -o 'cov: [0-9]*' "$scratch/$t.log" | tail -1)
	printf '%-10s %s runs, %s exec/s, %s\n' "$t" "${execs:-?}" "${speed:-?}" "${cov:-cov: ?}"
	if [ "$st" -ne 0 ]; then
		rc=1
		echo "FAIL: fuzz-$t exited $st:"
		grep -E 'ERROR|SUMMARY|runtime error|==[0-9]+==' "$scratch/$t.log" | head -20
		for f in "$scratch/crash-$t"/*; do
			[ -f "$f" ] && echo "  crashing input (base64): $(base64 -w0 "$f" | head -c 400)"
		done
	fi
done
exit $rc
