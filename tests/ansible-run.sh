#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Plans as Ansible playbooks, run by Ansible (ansible-core from Debian), by
# `make check-ansible` (not `make check`: about 20 minutes on a loaded
# machine; CI runs it; tests/ansible-syntax.sh, in `make check`, checks the
# syntax of every playbook):
#  - for the golden cases (tests/ansible/NAME.yml) and the edge cases, a run
#    against localhost (connection local, no become) with
#    -e vfiowiz_root=COPY writes under a copy of the host exactly the tree
#    `vfiowiz apply --yes` writes (the edge cases: tests/out/ansible/
#    edge.after), modes and directories included, and notifies the
#    post-commands as handlers (skipped under vfiowiz_root);
#  - a second run changes nothing;
#  - --check --diff on a fresh copy shows the diffs and writes nothing;
#  - (edge cases) a host whose file changed since the plan is refused before
#    anything is written, and -e vfiowiz_force=true writes it anyway.
# Nothing is written outside the test's temporary directory: every path of
# the playbooks is under vfiowiz_root, and no post-command runs there.
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

# play BOOK ROOT PASSWORD [ARGS...]: the playbook against localhost, under ROOT.
play() {
	_book=$1 _root=$2 _pw=$3
	shift 3
	# The password as JSON: key=value splitting would choke on its quotes.
	ansible-playbook -i localhost, -c local -e ansible_become=false -e "vfiowiz_root=$_root" \
		-e "$(python3 -c 'import json, sys; print(json.dumps({"vfiowiz_vnc_password": sys.argv[1]}))' "$_pw")" \
		"$@" "$_book" >"$tmp/play" 2>&1
}

recap() {	# the "changed=N" of the recap
	sed -n 's/.*changed=\([0-9]*\).*/\1/p' "$tmp/play" | tail -1
}

# check_book NAME BOOK BEFORE AFTER PASSWORD: the runs above, for one playbook.
check_book() {
	_name=$1 _book=$2 _before=$3 _after=$4 _pw=$5
	want=$(tree_sum "$_after")
	orig=$(tree_sum "$_before")

	rm -rf "$tmp/run" && cp -a "$_before" "$tmp/run"
	if ! play "$_book" "$tmp/run" "$_pw"; then
		failed "$_name: the run failed"
		tail -30 "$tmp/play"
		return
	fi
	if [ "$want" != "$(tree_sum "$tmp/run")" ]; then
		failed "$_name: the run's tree is not apply's"
		printf '%s\n' "$want" >"$tmp/want"
		tree_sum "$tmp/run" | diff -u "$tmp/want" - | head -20
	fi
	if grep -q "^  handlers:" "$_book" && ! grep -q "^RUNNING HANDLER" "$tmp/play"; then
		failed "$_name: no post-command notified"
	fi
	play "$_book" "$tmp/run" "$_pw" || { failed "$_name: the second run failed"; tail -30 "$tmp/play"; }
	[ "$(recap)" = 0 ] || failed "$_name: the second run changed $(recap) things"

	rm -rf "$tmp/run" && cp -a "$_before" "$tmp/run"
	if ! play "$_book" "$tmp/run" "$_pw" --check --diff; then
		failed "$_name: --check failed"
		tail -30 "$tmp/play"
	fi
	[ "$orig" = "$(tree_sum "$tmp/run")" ] || failed "$_name: --check wrote something"
	grep -q "^+++ after" "$tmp/play" || failed "$_name: --check --diff shows no diff"
	if [ -n "$_pw" ] && grep -qF -- "$_pw" "$tmp/play"; then
		failed "$_name: the VNC password is in Ansible's output"
	fi

	# The guard (once: the edge cases): the first file the plan edits or
	# creates, changed behind its back.
	f=$(sed -n 's/^      - path: "\(.*\)"$/\1/p' "$_book" | head -1)
	if [ "$_name" = edge ] && [ -n "$f" ]; then
		rm -rf "$tmp/run" && cp -a "$_before" "$tmp/run"
		mkdir -p "$(dirname "$tmp/run$f")"
		echo "changed by hand" >>"$tmp/run$f"
		mark=$(tree_sum "$tmp/run")
		if play "$_book" "$tmp/run" "$_pw"; then
			failed "$_name: a host whose $f changed was not refused"
		elif ! grep -q "is not what the plan was made from" "$tmp/play"; then
			failed "$_name: refused without saying why"
			tail -20 "$tmp/play"
		fi
		[ "$mark" = "$(tree_sum "$tmp/run")" ] || failed "$_name: the refused run wrote something"
		play "$_book" "$tmp/run" "$_pw" -e vfiowiz_force=true ||
			{ failed "$_name: vfiowiz_force=true did not write"; tail -20 "$tmp/play"; }
	fi
}

# ---- runs: the golden cases against apply --------------------------------
bad=0 fail0=0
for g in "$golden"/*.yml; do
	name=$(basename "$g" .yml)
	n=$((n + 1))
	mkcase "$name" "$tmp/before" || { failed "$name: no case"; bad=$((bad + 1)) fail0=$fail; continue; }
	mkdir -p "$tmp/book"
	vw "$name" "$tmp/before" plan --answers answers.conf --format ansible -o "$tmp/book/vfiowiz.yml"
	[ "$rc" = 0 ] || { failed "$name: plan: exit $rc"; bad=$((bad + 1)) fail0=$fail; continue; }
	rm -rf "$tmp/after" && cp -a "$tmp/before" "$tmp/after"
	vw "$name" "$tmp/after" apply --yes --answers answers.conf
	[ "$rc" = "$(apply_exit "$name")" ] ||
		{ failed "$name: apply: exit $rc"; cat "$tmp/err"; bad=$((bad + 1)) fail0=$fail; continue; }
	# apply's journal is not part of the comparison, nor the directories
	# made for it alone.
	rm -rf "$tmp/after/var/lib/vfiowiz"
	rmdir "$tmp/after/var/lib" "$tmp/after/var" 2>/dev/null
	check_book "$name" "$tmp/book/vfiowiz.yml" "$tmp/before" "$tmp/after" "$(password "$name")"
	[ "$fail" -eq "$fail0" ] || bad=$((bad + 1))
	fail0=$fail
	rm -rf "$tmp/book"
done

# ---- runs: the edge cases of tests/test-ansible --------------------------
if [ -f "$edge/edge.yml" ]; then
	n=$((n + 1))
	check_book edge "$edge/edge.yml" "$edge/edge.before" "$edge/edge.after" "$(cat "$edge/edge.password")"
	[ "$fail" -eq "$fail0" ] || bad=$((bad + 1))
else
	failed "no tests/out/ansible/edge.yml: tests/test-ansible did not run"
	n=$((n + 1)) bad=$((bad + 1))
fi

# The summary line .ci/run adds to its totals (as check-vm's).
echo "ansible runs: $n playbooks, $fail failures"
echo "$((n - bad)) passed, $bad failed"
[ "$fail" -eq 0 ]
