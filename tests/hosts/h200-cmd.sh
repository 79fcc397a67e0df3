#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# h200-cmd.sh FACTS TREE
#
# Turn the "$ command" sections of a captured facts file into recorded
# command outputs under TREE/.vfiowiz/cmd/<key>, the way core/exec.c replays
# them: <key> is the argv joined with single spaces, every byte outside
# [A-Za-z0-9._-] replaced by '_' ("nvidia-smi topo -m" -> nvidia-smi_topo_-m).
# Bytes are kept as captured (ANSI escapes, tabs, trailing blanks).
#
# A section runs from its "$ " line to the next one; the blank line that
# separates sections is dropped.  Only what a program could have run as argv
# is recorded:
#   - a simple command (no quotes, globs, redirections, $, ;, &, ...);
#   - "CMD | head ..." and "CMD | grep ... | head ...": the first stage is
#     recorded under its own key, with the filtered or truncated output (the
#     capture holds nothing more);
#   - not a command the capture shell could not find ("/bin/sh: 1: X: not
#     found"): its absence is what a replay of that host should see.
set -eu

if [ $# -ne 2 ]; then
	echo "usage: $0 FACTS TREE" >&2
	exit 2
fi
facts=$1
tree=$2
[ -r "$facts" ] || { echo "$0: cannot read $facts" >&2; exit 1; }
[ -d "$tree" ] || { echo "$0: $tree is not a directory" >&2; exit 1; }
mkdir -p "$tree/.vfiowiz/cmd"

LC_ALL=C awk -v dir="$tree/.vfiowiz/cmd" '
function key_of(cmd,    k) {
	k = cmd
	gsub(/[^A-Za-z0-9._-]/, "_", k)
	return k
}
# The argv part of a "$ " line, or "" when it is not recordable.
function argv_of(cmd,    n, st, i, first) {
	n = split(cmd, st, / \| /)
	first = st[1]
	for (i = 2; i <= n; i++)
		if (st[i] !~ /^(head|grep)( |$)/)
			return ""
	if (first ~ /[][*?<>|&;$`"'\''(){}\\~#]/ || first ~ /^(for|if|while|case) /)
		return ""
	sub(/^ +/, "", first)
	sub(/ +$/, "", first)
	gsub(/ +/, " ", first)
	return first
}
function flush(    k, i, last) {
	if (argv == "")
		return
	last = nlines
	if (last > 0 && lines[last] == "")
		last--
	if (last == 1 && lines[1] ~ /^\/bin\/sh: [0-9]+: .*: not found$/)
		return
	k = dir "/" key_of(argv)
	printf "" > k
	for (i = 1; i <= last; i++)
		printf "%s\n", lines[i] > k
	close(k)
	recorded++
}
/^\$ / {
	flush()
	argv = argv_of(substr($0, 3))
	nlines = 0
	next
}
{ lines[++nlines] = $0 }
END {
	flush()
	if (!recorded) {
		print "h200-cmd.sh: no command recorded" > "/dev/stderr"
		exit 1
	}
}
' "$facts"
