# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# shellcheck disable=SC2034  # the variables are for the scripts sourcing it
# Shared by tests/ansible.sh, ansible-syntax.sh and ansible-run.sh (sourced).
#
# Cases: every tests/plans/NAME whose plan succeeds; tests/ansible/NAME.yml
# holds the expected playbook of some of them (golden).  The host tree of a
# case is built as tests/golden-plans.sh builds it, but copied, not
# hard-linked: Ansible replaces files by rename too, but a copy is safer.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
bin="$top_builddir/vfiowiz"
hosts="$top_builddir/tests/out/hosts"
plans="$top_srcdir/tests/plans"
golden="$top_srcdir/tests/ansible"
edge="$top_builddir/tests/out/ansible"
export LC_ALL=C.UTF-8 LANGUAGE='' TZ=UTC
fail=0
tmp=$(mktemp -d) || exit 99
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
[ -x "$bin" ] || { echo "not built: $bin"; exit 99; }
[ -d "$hosts" ] || { echo "fixture hosts not built: $hosts"; exit 99; }

failed() {
	echo "FAIL: $1"
	fail=$((fail + 1))
}

# A python3 with PyYAML (Ansible's own, when installed, is found too).
PY=
for p in /usr/bin/python3 python3; do
	if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import yaml' 2>/dev/null; then
		PY=$p
		break
	fi
done

# mkcase NAME DIR: the host tree of plan case NAME in DIR.
mkcase() {
	_case="$plans/$1"
	rm -rf "$2"
	cp -a "$hosts/$(cat "$_case/host")" "$2" || return 1
	[ -d "$_case/root" ] && cp -R "$_case/root/." "$2/"
	if [ -f "$_case/remove" ]; then
		while read -r _f; do [ -n "$_f" ] && rm -rf "${2:?}/$_f"; done <"$_case/remove"
	fi
	return 0
}

# vw NAME ROOT ARGS...: vfiowiz in the case directory (the answers file is
# named answers.conf there, as in the golden plans); stdout in $tmp/out,
# stderr in $tmp/err, the exit status in $rc.
vw() {
	_name=$1 _root=$2
	shift 2
	(cd "$plans/$_name" && "$bin" --sysroot "$_root" "$@") >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# The case's VNC password, as golden-plans.sh reads it.
password() {
	sed -n "/^ *vnc_password *=/{s/^ *vnc_password *= *['\"]\(.*\)['\"].*/\1/; s/\\\\\(.\)/\1/g; p}" "$plans/$1/answers.conf"
}

# The version in the header comment changes with every release.
mask_version() {
	sed "1s/^# Written by vfiowiz [^ ]* /# Written by vfiowiz VERSION /"
}

# Files and directories outside the kernel's trees and vfiowiz's journal,
# with their modes and checksums.
tree_sum() {
	(cd "$1" && find . \( -path ./sys -o -path ./proc -o -path ./var/lib/vfiowiz \) -prune -o \
		-print | LC_ALL=C sort | while read -r f; do
		if [ -L "$f" ]; then
			printf '%s -> %s\n' "$f" "$(readlink "$f")"
		elif [ -d "$f" ]; then
			printf '%s/ %s\n' "$f" "$(stat -c %a "$f")"
		else
			printf '%s %s %s\n' "$f" "$(stat -c %a "$f")" "$(sha256sum <"$f" | cut -c1-16)"
		fi
	done)
}

# The exit status apply --yes has in case NAME: 0, or what its apply.expected
# says (an image check that fails after the files are written).
apply_exit() {
	if [ -f "$plans/$1/apply.expected" ]; then
		sed -n 's/^exit //p' "$plans/$1/apply.expected" | tail -1
	else
		echo 0
	fi
}

# The plan cases whose plan succeeds and changes something.
cases() {
	for _c in "$plans"/*/; do
		_n=$(basename "$_c")
		[ -f "$_c/answers.conf" ] || continue
		tail -1 "$_c/expected" | grep -qx "exit 0" || continue
		grep -q "^Nothing to change" "$_c/expected" && continue
		echo "$_n"
	done
}
