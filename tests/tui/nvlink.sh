#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# NVLink in the wizard, headless, on a copy of the nvswitch-8gpu fixture
# (its recorded nvidia-smi topo -m: eight H100s and four NVSwitches in one
# NVLink set):
#  1. the GPU step reads the NVLink sets while the NVIDIA driver owns the
#     GPUs, shows the peers that come along, and keeps the sets in the state
#     file (nvlink = {...});
#  2. the review step builds the plan as `vfiowiz plan` does (core/pipeline.h):
#     vfio-pci takes the whole set, NVSwitches included.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
bin="$top_builddir/vfiowiz"
host="$top_builddir/tests/out/hosts/nvswitch-8gpu"
[ -d "$host/sys" ] || { echo "the fixture host is not built: $host"; exit 99; }
# shellcheck source=tests/load.sh
. "$top_srcdir/tests/load.sh"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
cp -a "$host/." "$tmp/root" 2>/dev/null || { mkdir -p "$tmp/root" && cp -a "$host/." "$tmp/root"; }
mkdir -p "$tmp/root/var/lib/libvirt/images" "$tmp/root/etc/libvirt/qemu"
state="$tmp/root/var/lib/vfiowiz/state.conf"
fail=0

# Checks, GPU 0000:18:00.0, groups, isolation, a VM, VNC, then the review
# and its first hunk.
LC_ALL=C.UTF-8 LANGUAGE= TERM=xterm-256color timeout "$(scaled 20)" "$bin" --sysroot "$tmp/root" \
	--script "enter,down,space,enter,enter,enter,type:gpu-vm,enter,space,down,type:secret1,enter,n" \
	--dump "$tmp/d" >"$tmp/out" 2>&1 || { echo "FAIL: the run exited $?"; cat "$tmp/out"; exit 1; }

expect() {	# FILE TEXT
	grep -qF -- "$2" "$1" || { echo "FAIL: no \"$2\" in"; sed 's/^/    |/' "$1"; fail=$((fail + 1)); }
}
gpu=$(ls "$tmp/d"/*-gpu.txt | tail -n 1)
expect "$gpu" "> [x] 0000:18:00.0"
expect "$gpu" "0000:06:00.0 NVIDIA GH100 [H100 NVSwitch]  (NVSwitch of the NVLink set of"
expect "$state" "nvlink = {'0000:06:00.0,0000:07:00.0,0000:08:00.0,0000:09:00.0,0000:18:00.0,0000:2a:00.0,0000:3a:00.0,0000:5d:00.0,0000:9a:00.0,0000:ab:00.0,0000:ba:00.0,0000:db:00.0/NV18'}"
review=$(ls "$tmp/d"/*-review.txt | tail -n 1)
expect "$review" "+options vfio-pci ids=10de:22a3,10de:2330"
expect "$review" "+softdep nvidia_nvswitch pre: vfio-pci"

echo "nvlink: $fail failed"
[ "$fail" -eq 0 ]
