#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test-mkhost.sh - check the fixture trees with real tools.
#
# For every tests/hosts/NAME.host, the tree in tests/out/hosts/NAME is read
# with lspci (linux-sysfs back end, sysfs.path pointed at the tree) and what
# lspci sees is compared with what the description says: ids, classes,
# drivers, IOMMU groups, PCIe port types, ACS capability and control bits,
# boot_vga, the group and driver links.  Then checks that are specific to a
# host (the cases the fixtures exist for), the captured H200 guest, mkhost's
# handling of broken descriptions, and the 1019-function bench host.
#
# Run by `make check` (top_srcdir and top_builddir in the environment).
set -u

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=${top_builddir:-.}
hosts=$builddir/tests/out/hosts
mkhost=$builddir/tests/mkhost
scratch=$builddir/tests/out/mkhost-check
LC_ALL=C
MKHOST=$mkhost
export ASAN_OPTIONS=detect_leaks=0	# a one-shot generator; see mk/fixtures.am
export LC_ALL MKHOST

if ! command -v lspci >/dev/null 2>&1; then
	echo "SKIP: lspci not found (Debian: pciutils)"
	exit 77
fi
[ -x "$mkhost" ] || { echo "FAIL: $mkhost not built"; exit 1; }
[ -d "$hosts" ] || { echo "FAIL: $hosts missing (make tests/out/hosts.stamp)"; exit 1; }

failures=0
fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

lsp() {
	tree=$1
	shift
	lspci -A linux-sysfs -O "sysfs.path=$tree/sys/bus/pci" "$@" 2>/dev/null
}

# The description's dev lines, continuations joined, one line each:
# BDF class id sub driver group pcie acs bootvga
devs_of() {
	awk '
	/^[>\\]/ { next }
	/\\$/ { sub(/\\$/, ""); buf = buf $0 " "; next }
	{ line = buf $0; buf = "" }
	line ~ /^dev / {
		n = split(line, w, /[ \t]+/)
		split("", a)
		for (i = 3; i <= n; i++) {
			e = index(w[i], "=")
			if (e > 1)
				a[substr(w[i], 1, e - 1)] = substr(w[i], e + 1)
		}
		printf "%s %s %s %s %s %s %s %s %s\n", w[2], a["class"], a["id"],
		    ("sub" in a) ? a["sub"] : "0000:0000",
		    ("driver" in a) ? a["driver"] : "-",
		    ("group" in a) ? a["group"] : "-",
		    ("pcie" in a) ? a["pcie"] : "-",
		    ("acs" in a) ? a["acs"] : "-",
		    ("bootvga" in a) ? a["bootvga"] : "-"
	}' "$1"
}

# lspci -vvv in one run, one line per function:
# BDF group driver express acscap acsctl   ("-" when absent, bits in decimal)
lspci_summary() {
	lsp "$1" -D -vvv | awk '
	function acsbits(s,    n, f, i, v, bit) {
		n = split(s, f, /[ \t]+/)
		v = 0
		bit["SrcValid"] = 1; bit["TransBlk"] = 2; bit["ReqRedir"] = 4
		bit["CmpltRedir"] = 8; bit["UpstreamFwd"] = 16; bit["EgressCtrl"] = 32
		bit["DirectTrans"] = 64
		for (i = 1; i <= n; i++)
			if (f[i] ~ /\+$/)
				v += bit[substr(f[i], 1, length(f[i]) - 1)]
		return v
	}
	function flush() {
		if (bdf != "")
			print bdf, grp, drv, typ, cap, ctl
	}
	/^[0-9a-f]{4}:/ || /^[0-9a-f][0-9a-f][0-9a-f][0-9a-f]:/ {
		flush()
		bdf = $1; grp = "-"; drv = "-"; typ = "-"; cap = "-"; ctl = "-"
		next
	}
	/^\tIOMMU group: / { grp = $3 }
	/^\tKernel driver in use: / { drv = $5 }
	/Capabilities: \[[0-9a-f]+\] Express \(v[0-9]\) / {
		s = $0
		sub(/.*Express \(v[0-9]\) /, "", s)
		sub(/ \(Slot[+-]\)/, "", s)
		sub(/, MSI [0-9a-f]+$/, "", s)
		typ = s == "Endpoint" ? "endpoint" : s == "Legacy Endpoint" ? "legacy" : \
		      s == "Root Port" ? "rootport" : s == "Upstream Port" ? "upstream" : \
		      s == "Downstream Port" ? "downstream" : \
		      s == "PCI-Express to PCI/PCI-X Bridge" ? "pcibridge" : \
		      s == "Root Complex Integrated Endpoint" ? "rciep" : \
		      s == "Root Complex Event Collector" ? "rcec" : "?" s
	}
	/^\t\tACSCap:/ { cap = acsbits(substr($0, index($0, ":") + 1)) }
	/^\t\tACSCtl:/ { ctl = acsbits(substr($0, index($0, ":") + 1)) }
	END { flush() }'
}

hex2dec() {
	printf '%d' "$1"
}

# ---- every described host, generically --------------------------------

check_host() {
	name=$1
	desc=$2
	tree=$hosts/$name
	[ -d "$tree/sys/bus/pci/devices" ] || { fail "$name: no tree at $tree"; return; }

	devs_of "$desc" > "$scratch/$name.devs"
	want_n=$(wc -l < "$scratch/$name.devs")
	have_n=$(ls "$tree/sys/bus/pci/devices" | wc -l)
	[ "$want_n" -eq "$have_n" ] || fail "$name: $have_n entries in sys/bus/pci/devices, described $want_n"

	# Ids and classes, as lspci -n prints them.
	awk '{ split($3, id, ":"); print $1, substr($2, 1, 4), id[1] ":" id[2] }' \
		"$scratch/$name.devs" | sort > "$scratch/$name.want-ids"
	if ! lsp "$tree" -D -n > "$scratch/$name.lspci-n"; then
		fail "$name: lspci -n failed"
		return
	fi
	awk '{ c = $2; sub(/:$/, "", c); print $1, c, $3 }' "$scratch/$name.lspci-n" | sort \
		> "$scratch/$name.have-ids"
	cmp -s "$scratch/$name.want-ids" "$scratch/$name.have-ids" ||
		fail "$name: lspci -n differs from the description:
$(diff "$scratch/$name.want-ids" "$scratch/$name.have-ids")"

	# Names resolve and the [vendor:device] shows in lspci -nn.
	lsp "$tree" -D -nn > "$scratch/$name.lspci-nn" || fail "$name: lspci -nn failed"
	while read -r bdf cls id sub drv grp pcie acs bootvga; do
		grep -q "^$bdf .*\[$id\]" "$scratch/$name.lspci-nn" ||
			fail "$name: lspci -nn does not show $bdf [$id]"
	done < "$scratch/$name.devs"

	# Topology: every bridge's children hang under it in lspci -t.
	lsp "$tree" -t > /dev/null || fail "$name: lspci -t failed"

	lspci_summary "$tree" > "$scratch/$name.vvv"
	while read -r bdf cls id sub drv grp pcie acs bootvga; do
		set -- $(grep "^$bdf " "$scratch/$name.vvv")
		if [ $# -ne 6 ]; then
			fail "$name: $bdf missing from lspci -vvv"
			continue
		fi
		[ "$2" = "$grp" ] || fail "$name: $bdf IOMMU group $2 in lspci, described $grp"
		[ "$3" = "$drv" ] || fail "$name: $bdf driver $3 in lspci, described $drv"
		[ "$4" = "$pcie" ] || fail "$name: $bdf PCIe type $4 in lspci, described $pcie"
		if [ "$acs" = - ]; then
			[ "$5" = - ] || fail "$name: $bdf shows an ACS capability it should not have"
		else
			wcap=$(hex2dec "${acs%%:*}")
			wctl=$(hex2dec "${acs#*:}")
			# lspci decodes the seven defined bits only.
			[ "$5" = $((wcap & 127)) ] && [ "$6" = $((wctl & 127)) ] ||
				fail "$name: $bdf ACS cap/ctl $5/$6 in lspci, described $acs"
		fi

		dir=$tree/sys/bus/pci/devices/$bdf
		real=$(readlink -f "$dir")
		case $real in
		"$(readlink -f "$tree")"/sys/devices/pci*/"$bdf") ;;
		*) fail "$name: $bdf resolves to $real" ;;
		esac
		if [ "$grp" != - ]; then
			[ "$(readlink -f "$tree/sys/kernel/iommu_groups/$grp/devices/$bdf")" = "$real" ] ||
				fail "$name: group $grp's link to $bdf does not resolve to the device"
			[ "$(readlink -f "$dir/iommu_group")" = "$(readlink -f "$tree/sys/kernel/iommu_groups/$grp")" ] ||
				fail "$name: $bdf/iommu_group does not resolve to group $grp"
		else
			[ ! -e "$dir/iommu_group" ] || fail "$name: $bdf has an iommu_group link, described none"
		fi
		if [ "$drv" != - ]; then
			[ "$(readlink -f "$tree/sys/bus/pci/drivers/$drv/$bdf")" = "$real" ] ||
				fail "$name: drivers/$drv/$bdf does not resolve to the device"
		fi
		case $cls in
		0300??)
			want=$bootvga
			[ "$want" != - ] || want=0
			[ "$(cat "$dir/boot_vga" 2>/dev/null)" = "$want" ] ||
				fail "$name: $bdf boot_vga is '$(cat "$dir/boot_vga" 2>/dev/null)', want $want" ;;
		*)
			[ ! -e "$dir/boot_vga" ] || fail "$name: $bdf (class $cls) has a boot_vga file" ;;
		esac
		[ "$(cat "$dir/subsystem_vendor"):$(cat "$dir/subsystem_device")" = \
		  "0x${sub%%:*}:0x${sub#*:}" ] || fail "$name: $bdf subsystem ids differ from $sub"
	done < "$scratch/$name.devs"

	# Host level.
	want=$(sed -n 's/^cmdline[ \t]*//p' "$desc")
	[ -z "$want" ] || [ "$(cat "$tree/proc/cmdline")" = "$want" ] ||
		fail "$name: proc/cmdline differs from the description"
	iommu=$(awk '$1 == "iommu" { print $2 }' "$desc")
	case $iommu in
	intel) ls "$tree/sys/class/iommu" | grep -q '^dmar0$' || fail "$name: no dmar0" ;;
	amd) ls "$tree/sys/class/iommu" | grep -q '^ivhd0$' || fail "$name: no ivhd0" ;;
	*) [ -z "$(ls "$tree/sys/class/iommu")" ] || fail "$name: IOMMU entries with iommu $iommu" ;;
	esac
	for c in $(awk '$1 == "acpi" { $1 = ""; print }' "$desc"); do
		[ -f "$tree/sys/firmware/acpi/tables/$c" ] || fail "$name: no ACPI table $c"
	done
	[ -f "$tree/etc/os-release" ] || fail "$name: no etc/os-release"
	# Recorded commands: cmd lines map to .vfiowiz/cmd/<key>.
	sed -n 's/^cmd \(rc=[0-9]* \)\{0,1\}//p' "$desc" > "$scratch/$name.cmds"
	while read -r argv; do
		key=$(printf '%s' "$argv" | tr -c 'A-Za-z0-9._-' '_')
		[ -f "$tree/.vfiowiz/cmd/$key" ] || fail "$name: no recorded output for '$argv' ($key)"
	done < "$scratch/$name.cmds"
}

# ---- what each host is for ---------------------------------------------

group_of() {
	basename "$(readlink "$hosts/$1/sys/bus/pci/devices/$2/iommu_group")"
}

members() {
	ls "$hosts/$1/sys/kernel/iommu_groups/$2/devices" | tr '\n' ' ' | sed 's/ $//'
}

attr() {
	cat "$hosts/$1/sys/bus/pci/devices/$2/$3"
}

no_groups() {
	[ -z "$(ls "$hosts/$1/sys/kernel/iommu_groups" 2>/dev/null)" ] || fail "$1: has IOMMU groups"
	[ -z "$(ls "$hosts/$1/sys/class/iommu" 2>/dev/null)" ] || fail "$1: has /sys/class/iommu entries"
	for d in "$hosts/$1"/sys/bus/pci/devices/*; do
		[ ! -e "$d/iommu_group" ] || fail "$1: $(basename "$d") has an iommu_group link"
	done
}

specific() {
	h=amd-desktop
	g=$(group_of $h 0000:09:00.0)
	[ "$(members $h "$g")" = "0000:09:00.0 0000:09:00.1" ] ||
		fail "$h: the RTX 3090 group is '$(members $h "$g")'"
	g=$(group_of $h 0000:05:00.0)
	for d in 0000:04:00.0 0000:05:00.1 0000:06:00.1 0000:07:00.0 0000:00:01.2; do
		members $h "$g" | grep -q "$d" || fail "$h: $d not in the chipset GPU's group $g"
	done
	[ "$(attr $h 0000:05:00.0 boot_vga)" = 1 ] || fail "$h: GT 710 is not boot VGA"
	[ -d "$hosts/$h/sys/firmware/efi" ] || fail "$h: not EFI"
	[ -f "$hosts/$h/sys/firmware/acpi/tables/IVRS" ] || fail "$h: no IVRS"

	h=intel-desktop-rootport
	g=$(group_of $h 0000:01:00.0)
	[ "$(members $h "$g")" = "0000:00:01.0 0000:01:00.0 0000:01:00.1" ] ||
		fail "$h: GPU group is '$(members $h "$g")'"
	[ "$(attr $h 0000:00:02.0 boot_vga)" = 1 ] || fail "$h: iGPU is not boot VGA"
	grep -q intel_iommu "$hosts/$h/proc/cmdline" && fail "$h: intel_iommu on the cmdline"
	grep -qx 'CONFIG_INTEL_IOMMU_DEFAULT_ON=y' "$hosts/$h/boot/config-5.15.0-91-generic" ||
		fail "$h: kernel config lacks DEFAULT_ON=y"
	grep -q '^GRUB_CMDLINE_LINUX_DEFAULT="console=tty1 console=ttyS0"$' \
		"$hosts/$h/etc/default/grub.d/50-cloudimg-settings.cfg" || fail "$h: no cloud-image grub drop-in"

	h=identical-gpus-separate
	for f in vendor device subsystem_vendor subsystem_device class; do
		[ "$(attr $h 0000:21:00.0 $f)" = "$(attr $h 0000:41:00.0 $f)" ] ||
			fail "$h: the two GPUs differ in $f"
	done
	[ "$(group_of $h 0000:21:00.0)" != "$(group_of $h 0000:41:00.0)" ] || fail "$h: GPUs share a group"
	[ "$(cat "$hosts/$h/sys/bus/pci/slots/1/address")" = 0000:21:00 ] || fail "$h: slot 1 is not 21:00"
	[ -f "$hosts/$h/usr/sbin/grubby" ] && [ -d "$hosts/$h/etc/dracut.conf.d" ] || fail "$h: not grubby + dracut"

	h=identical-gpus-shared
	[ "$(group_of $h 0000:03:00.0)" = "$(group_of $h 0000:04:00.0)" ] || fail "$h: GPUs in different groups"
	for f in vendor device subsystem_vendor subsystem_device; do
		[ "$(attr $h 0000:03:00.0 $f)" = "$(attr $h 0000:04:00.0 $f)" ] || fail "$h: GPUs differ in $f"
	done
	gzip -dc "$hosts/$h/proc/config.gz" 2>/dev/null | grep -qx 'CONFIG_IKCONFIG_PROC=y' ||
		fail "$h: proc/config.gz unreadable"
	[ -f "$hosts/$h/boot/loader/entries/arch.conf" ] && [ -f "$hosts/$h/etc/mkinitcpio.conf" ] ||
		fail "$h: not systemd-boot + mkinitcpio"
	[ -e "$hosts/$h/sys/firmware/efi/efivars/LoaderInfo-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f" ] ||
		fail "$h: no systemd-boot LoaderInfo variable"

	h=laptop-optimus
	[ "$(attr $h 0000:01:00.0 class)" = 0x030200 ] || fail "$h: dGPU is not a 3D controller"
	[ ! -e "$hosts/$h/sys/bus/pci/devices/0000:01:00.0/boot_vga" ] || fail "$h: 0302 has boot_vga"
	[ "$(attr $h 0000:00:02.0 boot_vga)" = 1 ] || fail "$h: iGPU is not boot VGA"

	h=turing-4fn
	[ "$(members $h "$(group_of $h 0000:01:00.0)")" = \
	  "0000:01:00.0 0000:01:00.1 0000:01:00.2 0000:01:00.3" ] || fail "$h: the four functions are not one group"
	[ "$(for f in 0 1 2 3; do attr $h 0000:01:00.$f class; done | tr '\n' ' ')" = \
	  "0x030000 0x040300 0x0c0330 0x0c8000 " ] || fail "$h: function classes"
	[ "$(od -An -tx1 -j14 -N1 "$hosts/$h/sys/bus/pci/devices/0000:01:00.3/config" | tr -d ' ')" = 80 ] ||
		fail "$h: multifunction bit not set"

	h=acs-override-active
	grep -q 'pcie_acs_override=downstream,multifunction' "$hosts/$h/proc/cmdline" ||
		fail "$h: no override on the cmdline"
	[ "$(group_of $h 0000:01:00.0)" != "$(group_of $h 0000:01:00.1)" ] || fail "$h: GPU functions share a group"
	grep -q -- '-pve ' "$hosts/$h/proc/version" || fail "$h: not a pve kernel"
	[ -f "$hosts/$h/boot/config-6.5.13-1-pve" ] || fail "$h: no pve kernel config"

	h=nvswitch-8gpu
	[ "$(grep -c ' 0302: 10de:2330' "$scratch/$h.lspci-n")" = 8 ] || fail "$h: not 8 H100 GPUs"
	[ "$(grep -c ' 0680: 10de:22a3' "$scratch/$h.lspci-n")" = 4 ] || fail "$h: not 4 NVSwitches"
	topo=$hosts/$h/.vfiowiz/cmd/nvidia-smi_topo_-m
	[ "$(grep -c NV18 "$topo")" = 8 ] || fail "$h: topo -m lacks NV18 rows"
	grep -q "$(printf '\033')\[4mGPU0" "$topo" || fail "$h: topo -m lost its ANSI escape"

	no_groups iommu-off-firmware
	[ ! -e "$hosts/iommu-off-firmware/sys/firmware/acpi/tables/DMAR" ] || fail "iommu-off-firmware: has DMAR"
	[ ! -e "$hosts/iommu-off-firmware/sys/firmware/efi" ] || fail "iommu-off-firmware: EFI"

	h=iommu-off-cmdline
	no_groups $h
	[ -f "$hosts/$h/sys/firmware/acpi/tables/DMAR" ] || fail "$h: no DMAR"
	grep -q 'intel_iommu=off' "$hosts/$h/proc/cmdline" || fail "$h: no intel_iommu=off"

	h=debian-intgpu-off
	no_groups $h
	cfg=$hosts/$h/boot/config-6.1.0-18-amd64
	grep -qx '# CONFIG_INTEL_IOMMU_DEFAULT_ON is not set' "$cfg" &&
	grep -qx 'CONFIG_INTEL_IOMMU_DEFAULT_ON_INTGPU_OFF=y' "$cfg" || fail "$h: kernel config lines"
	[ "$(attr $h 0000:00:02.0 vendor) $(attr $h 0000:00:02.0 class)" = "0x8086 0x030000" ] ||
		fail "$h: 00:02.0 is not an Intel VGA"
	grep -q iommu "$hosts/$h/proc/cmdline" && fail "$h: IOMMU on the cmdline"

	h=proxmox-systemd-boot
	[ "$(cat "$hosts/$h/etc/kernel/cmdline")" = "root=ZFS=rpool/ROOT/pve-1 boot=zfs" ] || fail "$h: /etc/kernel/cmdline"
	[ "$(wc -l < "$hosts/$h/etc/kernel/proxmox-boot-uuids")" = 2 ] || fail "$h: proxmox-boot-uuids"
	[ "$(ls "$hosts/$h/sys/class/iommu" | tr '\n' ' ')" = "ivhd0 ivhd1 ivhd2 ivhd3 " ] || fail "$h: AMD-Vi units"
	[ "$(group_of $h 0000:82:00.0)" = "$(group_of $h 0000:83:00.0)" ] || fail "$h: AST VGA not with its bridge"
}

# ---- the broken host: the tree must hold exactly the damage ------------

bad_input() {
	h=bad-input
	t=$hosts/$h
	d=$t/sys/bus/pci/devices
	[ "$(cat "$d/0000:03:00.0/vendor")" = zzz ] || fail "$h: vendor garbage missing"
	[ ! -e "$d/0000:04:00.0/irq" ] && [ ! -e "$d/0000:04:00.0/config" ] || fail "$h: omit=irq,config"
	[ "$(wc -c < "$d/0000:05:00.0/config")" = 20 ] || fail "$h: config not truncated to 20 bytes"
	[ ! -e "$d/0000:06:00.0/vendor" ] || fail "$h: vendor not omitted"
	[ "$(readlink "$d/0000:08:00.0/iommu_group")" = iommu_group ] || fail "$h: no group link loop"
	cat "$d/0000:0f:00.0/vendor" >/dev/null 2>&1 && fail "$h: 0f:00.0 is not a loop"
	[ -d "$t/sys/kernel/iommu_groups/77/devices" ] && [ -z "$(ls "$t/sys/kernel/iommu_groups/77/devices")" ] ||
		fail "$h: group 77 is not empty"
	[ -d "$t/sys/kernel/iommu_groups/78" ] && [ ! -e "$t/sys/kernel/iommu_groups/78/devices" ] ||
		fail "$h: group 78 has a devices directory"
	for g in 0000:0b:00.0 0000:0b:00.1 0000:0c:00.0 0000:0c:00.1; do
		[ -f "$d/$g/config" ] && [ "$(readlink -f "$d/$g/iommu_group")" != "" ] ||
			fail "$h: good GPU $g is incomplete"
	done
	# lspci's libpci dies on the first unparsable entry: an error, not a crash.
	lsp "$t" -n > /dev/null
	rc=$?
	[ $rc -ne 0 ] && [ $rc -lt 128 ] || fail "$h: lspci exit status $rc on the broken tree"
}

# ---- the real capture --------------------------------------------------

capture() {
	h=h200x2-nvlink-guest
	t=$hosts/$h
	facts=$srcdir/tests/hosts/$h.facts.txt
	[ "$(lsp "$t" -n | grep -c ' 0302: 10de:2335')" = 2 ] || fail "$h: not two H200s"
	no_groups $h
	[ ! -e "$t/sys/class/dmi" ] || fail "$h: has DMI"
	grep -q ' hypervisor ' "$t/proc/cpuinfo" || fail "$h: no hypervisor flag"
	# Byte for byte: the section as sed cuts it from the facts file.
	sed -n '/^\$ nvidia-smi topo -m$/,/^\$ /p' "$facts" | sed '1d;$d' | sed '$d' > "$scratch/topo.want"
	cmp -s "$scratch/topo.want" "$t/.vfiowiz/cmd/nvidia-smi_topo_-m" || fail "$h: topo -m differs from the capture"
	grep -q "$(printf '\033')\[4mGPU0" "$t/.vfiowiz/cmd/nvidia-smi_topo_-m" || fail "$h: ANSI escape lost"
	grep -q 'Pass-Through' "$t/.vfiowiz/cmd/nvidia-smi_-q" || fail "$h: nvidia-smi -q not recorded"
	[ ! -e "$t/.vfiowiz/cmd/lspci_-nnk" ] || fail "$h: recorded a command that was not found"
}

# ---- mkhost on broken descriptions -------------------------------------

bad_desc() {
	expect=$1
	shift
	printf '%s\n' "$@" > "$scratch/bad.host"
	rm -rf "$scratch/bad"
	"$mkhost" "$scratch/bad.host" "$scratch/bad" 2> "$scratch/bad.err"
	rc=$?
	[ $rc = 1 ] || fail "mkhost exit status $rc (want 1) for: $*"
	grep -q "^$scratch/bad.host:$expect: " "$scratch/bad.err" ||
		fail "mkhost did not point at line $expect: $(cat "$scratch/bad.err")"
}

descriptions() {
	bad_desc 2 'name x' 'frobnicate yes'
	bad_desc 1 'dev 0000:01:00 class=030000 id=10de:2204'
	bad_desc 1 'dev 0000:01:00.0 parent=0000:00:01.0 class=030000 id=10de:2204'
	bad_desc 2 'dev 0000:00:01.0 class=060400 id=1022:1483' 'dev 0000:01:00.0 class=030000 id=zzzz:2204'
	bad_desc 1 '> orphan content'
	bad_desc 1 'dev 0000:01:00.0 class=010802 id=144d:a808 bootvga=1'
	bad_desc 1 'dev 0000:01:00.0 class=030000 id=10de:2204 acs=0x1f:0x1d'
	bad_desc 1 'file ../../etc/passwd'
	bad_desc 3 'dev 0000:00:01.0 class=060400 id=1022:1483 pcie=rootport' \
		'dev 0000:01:00.0 parent=0000:00:01.0 class=030000 id=10de:2204' \
		'dev 0000:02:00.0 parent=0000:00:01.0 class=030000 id=10de:2204'
	bad_desc 1 'dev 0000:01:00.0 class=030000 id=10de:2204 omit=irqq'
	# Non-empty OUTDIR is refused.
	mkdir -p "$scratch/full" && : > "$scratch/full/x"
	printf 'name ok\n' > "$scratch/ok.host"
	"$mkhost" "$scratch/ok.host" "$scratch/full" 2>/dev/null && fail "mkhost wrote into a non-empty directory"
}

# ---- the 1019-function bench host ---------------------------------------

bench_host() {
	out=$(sh "$srcdir/bench/scan" --tree-only "$scratch/bench" 2>&1) ||
		{ fail "bench/scan --tree-only: $out"; return; }
	n=$(lsp "$scratch/bench" -n | wc -l)
	[ "$n" = 1019 ] || fail "bench host: lspci lists $n functions, want 1019"
	[ "$(ls "$scratch/bench/sys/kernel/iommu_groups" | wc -l)" = 300 ] || fail "bench host: not 300 groups"
	lsp "$scratch/bench" -vvv | grep -c 'Access Control Services' | grep -qx 100 ||
		fail "bench host: ACS capabilities missing"
	echo "bench host: $out"
}

rm -rf "$scratch"
mkdir -p "$scratch"
for desc in "$srcdir"/tests/hosts/*.host; do
	name=$(basename "$desc" .host)
	[ "$name" = bad-input ] && continue
	check_host "$name" "$desc"
done
specific
bad_input
capture
descriptions
bench_host

if [ $failures -ne 0 ]; then
	echo "$failures failure(s)"
	exit 1
fi
echo "all fixture hosts check out"
rm -rf "$scratch"
exit 0
