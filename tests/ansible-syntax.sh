#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Plans as Ansible playbooks: every playbook of a plan case that changes
# something, and the edge-case playbook of tests/test-ansible, passes
# ansible-playbook --syntax-check (one run for them all).  The playbooks run
# for real in tests/ansible-run.sh (`make check-ansible`).
# Without ansible-playbook: exit 77 (skipped), saying why.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$top_srcdir/tests/ansible-lib.sh"

if ! command -v ansible-playbook >/dev/null 2>&1; then
	echo "SKIP: ansible-playbook is not installed (Debian: apt-get install ansible-core;"
	echo "      ./autogen.sh --deps installs it)"
	exit 77
fi
# Ansible's own files in the test's directory; a quiet, plain output.
export HOME="$tmp/home" ANSIBLE_HOME="$tmp/home/.ansible" ANSIBLE_LOCAL_TEMP="$tmp/home/local" \
	ANSIBLE_REMOTE_TEMP="$tmp/home/remote" ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 \
	ANSIBLE_PYTHON_INTERPRETER=auto_silent ANSIBLE_LOCALHOST_WARNING=false \
	ANSIBLE_INVENTORY_UNPARSED_WARNING=false ANSIBLE_RETRY_FILES_ENABLED=false \
	ANSIBLE_DEPRECATION_WARNINGS=false ANSIBLE_STDOUT_CALLBACK=default ANSIBLE_PIPELINING=true
mkdir -p "$HOME"
n=0

# ---- syntax of every playbook (one ansible-playbook for them all) -------
books=
for name in $(cases); do
	n=$((n + 1))
	mkcase "$name" "$tmp/root" || { failed "$name: no case"; continue; }
	mkdir -p "$tmp/books/$name"
	vw "$name" "$tmp/root" plan --answers answers.conf --format ansible -o "$tmp/books/$name/vfiowiz.yml"
	[ "$rc" = 0 ] || { failed "$name: plan --format ansible: exit $rc"; cat "$tmp/err"; continue; }
	books="$books $tmp/books/$name/vfiowiz.yml"
done
if [ -f "$edge/edge.yml" ]; then
	n=$((n + 1))
	books="$books $edge/edge.yml"
else
	failed "no tests/out/ansible/edge.yml: tests/test-ansible did not run"
fi
# shellcheck disable=SC2086
ansible-playbook --syntax-check -i localhost, $books >"$tmp/play" 2>&1 ||
	{ failed "--syntax-check"; tail -20 "$tmp/play"; }

echo "ansible syntax: $n playbooks, $fail failures"
[ "$fail" -eq 0 ]
