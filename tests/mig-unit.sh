#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The MIG script of the mig key (core/mig_plan.c), as `vfiowiz apply` writes
# it for a100-mig (two 3g.40gb and one 1g.10gb GPU instance on 41:00.0):
#  1. shellcheck passes on it (skipped without shellcheck);
#  2. run against a stub nvidia-smi that logs its arguments and answers as
#     the driver does (MIG mode from a file, -lgi in the table format of
#     nvidia-smi, "No GPU instances found" with status 6 when none exist):
#     it makes only the missing instances, a second run makes none, it
#     switches MIG mode on when it is off and stops loudly when the switch
#     needs a GPU reset, when nvidia-smi fails, and it never destroys an
#     instance (no -dgi, no -dci);
#  3. the plan's mdevctl-defined vGPU on a MIG-backed type is started after
#     the instances are made, unless it runs (udev's autostart came first
#     and failed while no instance existed), through a stub mdevctl.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
bin=$(cd "$top_builddir" && pwd)/vfiowiz
host="$top_builddir/tests/out/hosts/a100-mig"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C.UTF-8 LANGUAGE='' TZ=UTC VFIOWIZ_TEMPLATES="$top_srcdir/templates"
fail=0

[ -x "$bin" ] || { echo "not built: $bin"; exit 99; }
[ -d "$host" ] || { echo "fixture hosts not built: $host"; exit 99; }

check() {	# check NAME STATUS
	if [ "$2" -eq 0 ]; then
		echo "PASS: $1"
	else
		echo "FAIL: $1"
		fail=$((fail + 1))
	fi
}

root="$tmp/root"
cp -a "$host" "$root" || exit 99
cat >"$tmp/answers.conf" <<'END'
mig = {"0000:41:00.0=3g.40gb", "0000:41:00.0=3g.40gb", "0000:41:00.0=1g.10gb"}
mdev = {"0000:41:00.4=nvidia-700"}
vm {
  name = "ai"
}
END
"$bin" --sysroot "$root" apply --yes --answers "$tmp/answers.conf" >"$tmp/apply.out" 2>&1
check "apply writes the MIG script" $?
script="$root/usr/local/sbin/vfiowiz-mig"
[ -x "$script" ] && [ -f "$root/etc/systemd/system/vfiowiz-mig.service" ]
check "the script is executable, the unit is there" $?
if command -v shellcheck >/dev/null 2>&1; then
	shellcheck -s sh "$script"
	check "shellcheck of the MIG script" $?
else
	echo "SKIP: shellcheck is not installed"
fi

# ---- the stub nvidia-smi ---------------------------------------------------
mkdir -p "$tmp/bin"
cat >"$tmp/bin/nvidia-smi" <<END
#!/bin/sh
echo "nvidia-smi \$*" >>"$tmp/cmds"
case "\$*" in
"-i 0000:41:00.0 --query-gpu=mig.mode.current --format=csv,noheader") cat "$tmp/mode" ;;
"-i 0000:41:00.0 -mig 1") cp "$tmp/mode.after" "$tmp/mode" ;;
"mig -i 0000:41:00.0 -lgi")
	[ -s "$tmp/lgi" ] || { echo "No GPU instances found: Not Found"; exit 6; }
	[ "\$(cat "$tmp/lgi")" = broken ] && { echo "Failed to list GPU instances: Unknown Error"; exit 255; }
	cat "$tmp/lgi" ;;
"mig -i 0000:41:00.0 -cgi "*" -C") exit "\$(cat "$tmp/cgi.rc")" ;;
*) echo "unexpected: \$*"; exit 2 ;;
esac
END
chmod +x "$tmp/bin/nvidia-smi"
cat >"$tmp/bin/mdevctl" <<END
#!/bin/sh
echo "mdevctl \$*" >>"$tmp/cmds"
case "\$1" in
list) cat "$tmp/mdev.running" 2>/dev/null ;;
start) exit 0 ;;
*) exit 2 ;;
esac
END
chmod +x "$tmp/bin/mdevctl"

lgi() {	# lgi PROFILE...: the -lgi table with one instance of each
	[ $# -gt 0 ] || { : >"$tmp/lgi"; return; }
	{
		echo "+-------------------------------------------------------+"
		echo "| GPU instances:                                        |"
		echo "| GPU   Name             Profile  Instance   Placement  |"
		echo "|                          ID       ID       Start:Size |"
		echo "|=======================================================|"
		id=1
		for p in "$@"; do
			case $p in
			3g.40gb) printf '|   0  MIG 3g.40gb          9        %d          4:4     |\n' "$id" ;;
			1g.10gb) printf '|   0  MIG 1g.10gb         19        %d          0:1     |\n' "$id" ;;
			esac
			echo "+-------------------------------------------------------+"
			id=$((id + 1))
		done
	} >"$tmp/lgi"
}

run() {	# run: the script with the stub first on PATH; status in $rc
	: >"$tmp/cmds"
	PATH="$tmp/bin:$PATH" sh "$script" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

made() {	# made: the -cgi lines the last run sent, one a line
	grep -- '-cgi' "$tmp/cmds" | sed 's/^nvidia-smi mig -i 0000:41:00.0 //'
}

# 1. MIG on, the fixture's 3g.40gb exists: one more 3g.40gb and a 1g.10gb.
echo Enabled >"$tmp/mode"
echo 0 >"$tmp/cgi.rc"
lgi 3g.40gb
run
[ "$rc" -eq 0 ] && [ "$(made)" = "$(printf -- '-cgi 9 -C\n-cgi 19 -C')" ]
check "makes only the missing instances" $?
uuid=$(ls "$root/etc/mdevctl.d/0000:41:00.4")
[ "$(grep -n . "$tmp/cmds" | grep -E -- '-cgi|mdevctl' | sed 's/^[0-9]*://')" = "$(printf -- \
	'nvidia-smi mig -i 0000:41:00.0 -cgi 9 -C\nnvidia-smi mig -i 0000:41:00.0 -cgi 19 -C\nmdevctl list --uuid %s\nmdevctl start --uuid %s' "$uuid" "$uuid")" ]
check "the vGPU's mdev is started after its GPU instances" $?
grep -q -- '-mig' "$tmp/cmds"
[ $? -ne 0 ]
check "MIG mode on: not switched again" $?

# 2. Everything there: nothing made (a second boot).
lgi 3g.40gb 3g.40gb 1g.10gb
run
echo "$uuid 0000:41:00.4 nvidia-700 manual" >"$tmp/mdev.running"
run
[ "$rc" -eq 0 ] && [ -z "$(made)" ] && grep -q 'nothing to make' "$tmp/out" &&
	! grep -q 'mdevctl start' "$tmp/cmds"
check "a second run makes nothing, starts nothing" $?

# 3. More than asked, made by someone else: left alone.
lgi 3g.40gb 3g.40gb 1g.10gb 1g.10gb 1g.10gb
run
[ "$rc" -eq 0 ] && [ -z "$(made)" ]
check "instances beyond the asked ones are left alone" $?

# 4. MIG off, the switch takes effect at once, nothing made yet.
echo Disabled >"$tmp/mode"
echo Enabled >"$tmp/mode.after"
lgi
run
[ "$rc" -eq 0 ] && grep -qx 'nvidia-smi -i 0000:41:00.0 -mig 1' "$tmp/cmds" &&
	[ "$(made)" = "$(printf -- '-cgi 9,9 -C\n-cgi 19 -C')" ]
check "MIG off: switched on, then every instance made" $?

# 5. MIG off and the switch waits for a GPU reset: loud, nothing made.
echo Disabled >"$tmp/mode"
echo Disabled >"$tmp/mode.after"
run
[ "$rc" -ne 0 ] && [ -z "$(made)" ] && grep -q 'needs a GPU reset' "$tmp/err"
check "a pending MIG mode stops the script with the reason" $?

# 6. -cgi fails (no room, the GPU busy): loud.
echo Enabled >"$tmp/mode"
echo 1 >"$tmp/cgi.rc"
lgi 3g.40gb
run
[ "$rc" -ne 0 ] && grep -q 'could not make the GPU instances of 3g.40gb' "$tmp/err" &&
	[ "$(made)" = '-cgi 9 -C' ]
check "a failed -cgi stops the script with the reason" $?

# 7. -lgi fails for another reason: loud, nothing made.
echo 0 >"$tmp/cgi.rc"
echo broken >"$tmp/lgi"
run
[ "$rc" -ne 0 ] && [ -z "$(made)" ] && grep -q 'cannot list its GPU instances' "$tmp/err"
check "a failed -lgi stops the script, nothing made blind" $?

# 8. Never a destroy, in any run above (the log of the last one, and the script).
grep -qE -- '-dgi|-dci' "$script"
[ $? -ne 0 ]
check "the script never destroys an instance" $?

exit $((fail > 0))
