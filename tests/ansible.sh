#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Plans as Ansible playbooks (`vfiowiz plan --format ansible`), without
# Ansible itself:
#  - golden: for each tests/ansible/NAME.yml, the playbook of plan case
#    tests/plans/NAME equals it (the version in its first line masked);
#  - contents: for every plan case that changes something, every file its
#    playbook writes, read back with a YAML loader (Ansible's own when it is
#    installed, else PyYAML), holds exactly the bytes `vfiowiz apply --yes`
#    writes, and every file it removes is gone; the same for the edge cases
#    of tests/test-ansible (tests/out/ansible/edge.*);
#  - a refused plan gives no playbook, exit 3; --format goes with plan only;
#    an unknown format is refused.
# The runs with ansible-playbook are tests/ansible-run.sh.
#
# After a deliberate change: tests/ansible.sh --update, then read the diff of
# tests/ansible/*.yml before committing.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$top_srcdir/tests/ansible-lib.sh"
update=false
[ "${1:-}" = "--update" ] && update=true
n=0

# ---- golden playbooks ---------------------------------------------------
for g in "$golden"/*.yml; do
	name=$(basename "$g" .yml)
	n=$((n + 1))
	mkcase "$name" "$tmp/root" || { failed "$name: no case"; continue; }
	vw "$name" "$tmp/root" plan --answers answers.conf --format ansible
	if [ "$rc" != 0 ]; then
		failed "$name: exit $rc"
		cat "$tmp/err"
		continue
	fi
	mask_version <"$tmp/out" >"$tmp/got"
	if $update; then
		cp "$tmp/got" "$g"
	elif ! diff -u "$g" "$tmp/got" >"$tmp/diff"; then
		failed "$name: the playbook differs from tests/ansible/$name.yml"
		head -60 "$tmp/diff"
	fi
done

# ---- contents, against apply --------------------------------------------
if [ -z "$PY" ]; then
	echo "note: no python3 with PyYAML: contents not read back"
else
	for name in $(cases); do
		n=$((n + 1))
		mkcase "$name" "$tmp/root" || { failed "$name: no case"; continue; }
		mkdir -p "$tmp/book"
		vw "$name" "$tmp/root" plan --answers answers.conf --format ansible -o "$tmp/book/vfiowiz.yml"
		[ "$rc" = 0 ] || { failed "$name: plan --format ansible: exit $rc"; cat "$tmp/err"; continue; }
		pw=$(password "$name")
		# The password never reaches the playbook.
		if [ -n "$pw" ] && grep -qF -- "$pw" "$tmp/book/vfiowiz.yml"; then
			failed "$name: the VNC password is in the playbook"
		fi
		vw "$name" "$tmp/root" apply --yes --answers answers.conf
		[ "$rc" = "$(apply_exit "$name")" ] || { failed "$name: apply: exit $rc"; cat "$tmp/err"; continue; }
		"$PY" "$top_srcdir/tests/ansible-contents.py" "$tmp/book/vfiowiz.yml" "$tmp/root" $pw \
			>"$tmp/py" 2>&1 || { failed "$name: contents"; cat "$tmp/py"; }
		rm -rf "$tmp/book"
	done
	if [ -f "$edge/edge.yml" ]; then
		n=$((n + 1))
		"$PY" "$top_srcdir/tests/ansible-contents.py" "$edge/edge.yml" "$edge/edge.after" \
			"$(cat "$edge/edge.password")" >"$tmp/py" 2>&1 || { failed "edge: contents"; cat "$tmp/py"; }
	else
		failed "no tests/out/ansible/edge.yml: tests/test-ansible did not run"
	fi
fi

# ---- refusals -----------------------------------------------------------
n=$((n + 1))
mkcase err-boot-display "$tmp/root"
vw err-boot-display "$tmp/root" plan --answers answers.conf --format ansible
{ [ "$rc" = 3 ] && [ ! -s "$tmp/out" ] && [ -s "$tmp/err" ]; } ||
	failed "a refused plan: exit $rc, $(wc -c <"$tmp/out") bytes of playbook"
"$bin" --demo check --format ansible >"$tmp/out" 2>&1
[ $? = 3 ] && grep -qx -- "vfiowiz check: --format is not an option of check" "$tmp/out" || failed "--format with check"
"$bin" --demo plan --format yaml >"$tmp/out" 2>&1
[ $? = 3 ] && grep -q "unknown format" "$tmp/out" || failed "--format yaml"

echo "ansible playbooks: $n checks, $fail failures"
[ "$fail" -eq 0 ]
