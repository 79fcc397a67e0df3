#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Real-kernel test: boot Debian's kernel in QEMU with an emulated IOMMU, run
vfiowiz inside, apply, reboot, and see what the kernel does with our files.

Run by `make check-vm` (tests/vm/check-vm.sh).  Exit status: 0 passed (parts
that cannot run yet are reported as SKIP), 1 failed, 77 skipped as a whole
(no kernel, no QEMU and nothing could be installed).

Each machine is a q35 PC under software emulation (TCG) with one IOMMU:

  00:01.0  VGA (1234:1111, class 0300)      boot display, bochs-drm
  00:02.0  PCIe root port
    01:00.0  qxl (1b36:0100, class 0380)    a "GPU" with its audio function:
    01:00.1  ich9-intel-hda (8086:293e)       multifunction slot, one group
  00:03.0  PCIe root port
    02:00.0  bochs-display (1234:1111, 0380)  identical twins, and the same
  00:04.0  PCIe root port                     ids as the boot display: only
    03:00.0  bochs-display (1234:1111, 0380)  per-address binding can split them
  00:05.0  PCIe root port
    04:00.0  PCIe-to-PCI bridge
      05:01.0  e1000                        conventional PCI behind the bridge:
      05:02.0  e1000                          one group with the bridge
  00:06.0  virtio-blk: the root file system (ext2, kept across boots)
  00:07.0  PCIe root port                   (Intel machine only)
    06:00.0  NVMe (1b36:0010) with SR-IOV    up to 3 VFs, 06:00.1-06:00.3 (QEMU
                                              7.2 has no igb; the VFs'
                                              controllers stay offline)

The guest boots like Debian: an initramfs (tests/vm/init) that loads what
update-initramfs packed from /etc (modprobe.d, modules, hook output), then
the real root (tests/vm/rootinit: modules-load.d, coldplug, driverctl), then
the test step (tests/vm/guest.sh).  update-grub's stand-in computes the
kernel command line the next boot gets.  Every boot is a new QEMU process.

Intel machine (intel-iommu, no driverctl):
  1. check and groups agree with the kernel; apply answers "gpu-ids"
     (qxl + audio, bound by ids)
  2. qxl and audio are on vfio-pci, /dev/vfio/GROUP exists; undo
  3. both are back on qxl and snd_hda_intel; apply answers "twin-addr"
     (02:00.0 alone, bound by address: vfiowiz's modprobe install script)
  4. 02:00.0 is on vfio-pci, its twin 03:00.0 and the boot display are not; undo;
     SR-IOV on the NVMe PF (guest.sh sriov:PF): sriov_numvfs applied and the
     generated script run by hand makes 2 VFs, groups agree with the kernel;
     one VF chosen, from no VF the script puts it on vfio-pci (nvme never
     probes it), the other VF and the PF keep to the host; the PF refused;
     both applies undone
  5. everything is back on its own driver, no VF, none of our files is left; apply
     "dynamic-twin" (gpu_mode = dynamic for 02:00.0) and run the libvirt
     hooks as libvirt would: prepare puts 02:00.0 on vfio-pci (its twin and
     the boot display stay on bochs-drm), release gives it back to
     bochs-drm, and the restore timer does the same after a second prepare
AMD machine (amd-iommu, driverctl installed), side by side with the first:
  1. check and groups agree; apply "twin-addr" (now through driverctl files)
  2. 02:00.0 is on vfio-pci, its twin and the boot display are not; undo
  3. everything is back on its own driver, none of our files is left
Every boot also checks that check and groups agree with the kernel.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time

SKIP = 77

# The devices of the guest, by address; the test relies on this topology.
BOOT_VGA = "0000:00:01.0"
GPU = "0000:01:00.0"
GPU_AUDIO = "0000:01:00.1"
TWIN_A = "0000:02:00.0"
TWIN_B = "0000:03:00.0"
PCI_BRIDGE = "0000:04:00.0"
NIC_A = "0000:05:01.0"
NIC_B = "0000:05:02.0"
DISK = "0000:00:06.0"
NVME_PF = "0000:06:00.0"
NVME_VF1 = "0000:06:00.1"
NVME_VF2 = "0000:06:00.2"

BASELINE = {
    BOOT_VGA: "bochs-drm",
    GPU: "qxl",
    GPU_AUDIO: "snd_hda_intel",
    TWIN_A: "bochs-drm",
    TWIN_B: "bochs-drm",
    NIC_A: "e1000",
    NIC_B: "e1000",
    DISK: "virtio-pci",
}

QEMU_DEVICES = [
    "-device", "VGA,addr=01.0",
    "-device", "pcie-root-port,id=rp1,chassis=1,addr=02.0",
    "-device", "qxl,bus=rp1,addr=00.0,multifunction=on",
    "-device", "ich9-intel-hda,bus=rp1,addr=00.1,id=hda1",
    "-device", "hda-output,bus=hda1.0,audiodev=snd0",
    "-device", "pcie-root-port,id=rp2,chassis=2,addr=03.0",
    "-device", "bochs-display,bus=rp2,addr=00.0",
    "-device", "pcie-root-port,id=rp3,chassis=3,addr=04.0",
    "-device", "bochs-display,bus=rp3,addr=00.0",
    "-device", "pcie-root-port,id=rp4,chassis=4,addr=05.0",
    "-device", "pcie-pci-bridge,id=pb1,bus=rp4,addr=00.0",
    "-device", "e1000,bus=pb1,addr=01.0,netdev=n1",
    "-device", "e1000,bus=pb1,addr=02.0,netdev=n2",
    "-netdev", "user,id=n1,restrict=on",
    "-netdev", "user,id=n2,restrict=on",
    "-audiodev", "none,id=snd0",
]

# The Intel machines only: under QEMU 7.2's amd-iommu the NVMe controller's
# first admin command times out (nvme: "Identify Controller failed (-4)"
# after a minute), so the AMD machine has no PF to make VFs with.
NVME_DEVICES = [
    "-device", "pcie-root-port,id=rp5,chassis=5,addr=07.0",
    "-device", "nvme-subsys,id=nvs0",
    "-device", "nvme,bus=rp5,addr=00.0,serial=vwsriov,subsys=nvs0,"
    "sriov_max_vfs=3,sriov_vq_flexible=6,sriov_vi_flexible=3",
]

PACKAGES = ["qemu-system-x86", "busybox-static", "linux-image-amd64", "kmod",
            "e2fsprogs", "cpio"]


def log(msg):
    print(msg, flush=True)


class Result:
    """Counts and prints checks: PASS/FAIL/SKIP lines, automake style."""

    def __init__(self):
        self.passed = self.failed = self.skipped = 0
        self.lock = threading.Lock()
        self.failures = []

    def ok(self, name, cond, detail=""):
        with self.lock:
            if cond:
                self.passed += 1
                log(f"PASS: {name}")
            else:
                self.failed += 1
                self.failures.append(name)
                log(f"FAIL: {name}" + (f": {detail}" if detail else ""))
        return cond

    def skip(self, name, why):
        with self.lock:
            self.skipped += 1
            log(f"SKIP: {name}: {why}")


# ---------------------------------------------------------------- host setup

def have(cmd):
    return shutil.which(cmd) is not None


def vkey(s):
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", s)]


def find_kernel():
    """(vmlinuz, version) of the newest kernel with vfio-pci modules."""
    want = os.environ.get("VW_VM_KERNEL")
    cands = []
    if want:
        cands = [want]
    elif os.path.isdir("/boot"):
        cands = sorted((os.path.join("/boot", f) for f in os.listdir("/boot")
                        if f.startswith("vmlinuz-")), key=vkey, reverse=True)
    for k in cands:
        ver = os.path.basename(k)[len("vmlinuz-"):]
        vdir = f"/lib/modules/{ver}/kernel/drivers/vfio/pci"
        if not os.path.isdir(vdir):
            continue
        if not any(f.startswith("vfio-pci.ko") for f in os.listdir(vdir)):
            continue
        if not os.access(k, os.R_OK):
            continue
        return k, ver
    return None, None


def missing_tools():
    miss = []
    for cmd, pkg in (("qemu-system-x86_64", "qemu-system-x86"), ("kmod", "kmod"),
                     ("mke2fs", "e2fsprogs"), ("debugfs", "e2fsprogs"),
                     ("cpio", "cpio")):
        if not have(cmd):
            miss.append(pkg)
    # busybox-static, or busybox: mkimage.sh copies its libraries if any.
    bb = shutil.which("busybox") or "/bin/busybox"
    if not os.access(bb, os.X_OK):
        miss.append("busybox-static")
    if find_kernel()[0] is None:
        miss.append("linux-image-amd64")
    return sorted(set(miss))


def install(pkgs, workdir):
    """apt-get install pkgs; True when it worked."""
    if os.environ.get("VW_VM_NO_INSTALL"):
        return False
    if os.geteuid() != 0 or not have("apt-get"):
        return False
    logf = os.path.join(workdir, "apt.log")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    cmd = ["apt-get", "install", "-y", "-q", "--no-install-recommends"] + pkgs
    log(f"check-vm: installing {' '.join(pkgs)} (log: {logf})")
    with open(logf, "a") as lf:
        if subprocess.run(cmd, stdout=lf, stderr=subprocess.STDOUT, env=env).returncode == 0:
            return True
        subprocess.run(["apt-get", "update", "-q"], stdout=lf, stderr=subprocess.STDOUT, env=env)
        return subprocess.run(cmd, stdout=lf, stderr=subprocess.STDOUT, env=env).returncode == 0


def qemu_has(dev):
    out = subprocess.run(["qemu-system-x86_64", "-device", "help"],
                         capture_output=True, text=True).stdout
    return re.search(r'name "%s"' % re.escape(dev), out) is not None


def vfiowiz_commands(vfiowiz):
    out = subprocess.run([vfiowiz, "--help"], capture_output=True, text=True).stdout
    return set(re.findall(r"^  ([a-z][a-z-]*)\s", out, re.M))


# ---------------------------------------------------------------- the guest

def make_disk(path, rootfs, state, grub_linux, kver, driverctl):
    """The guest's root file system on an ext2 disk: the tree mkimage.sh made
    (programs, modules, vfiowiz) with /etc, /var and /boot of a freshly
    installed Debian 12 with GRUB and initramfs-tools."""
    if os.path.exists(state):
        shutil.rmtree(state)
    shutil.copytree(rootfs, state, symlinks=True)
    extra = os.environ.get("VW_VM_EXTRA_ROOT")
    if extra:
        # For working on the test: files laid over the root file system.
        shutil.copytree(extra, state, symlinks=True, dirs_exist_ok=True)
    for d in ("etc/modprobe.d", "etc/default/grub.d", "etc/initramfs-tools/scripts",
              "etc/initramfs-tools/conf.d", "etc/initramfs-tools/hooks", "etc/modules-load.d",
              "var/lib", "var/tmp", "boot/grub", "usr/local/sbin", "usr/local/bin"):
        os.makedirs(os.path.join(state, d), exist_ok=True)

    def write(rel, text, mode=0o644):
        p = os.path.join(state, rel)
        with open(p, "w") as f:
            f.write(text)
        os.chmod(p, mode)

    if driverctl:
        shutil.copy2(os.path.join(state, "usr/lib/vwtest/driverctl"),
                     os.path.join(state, "usr/sbin/driverctl"))
        os.makedirs(os.path.join(state, "etc/driverctl.d"), exist_ok=True)
    write("etc/os-release", 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\n'
          'VERSION_ID="12"\nVERSION="12 (bookworm)"\nVERSION_CODENAME=bookworm\nID=debian\n'
          'HOME_URL="https://www.debian.org/"\n')
    write("etc/hostname", "vwtest\n")
    write("etc/passwd", "root:x:0:0:root:/root:/bin/sh\n")
    write("etc/group", "root:x:0:\n")
    write("etc/default/grub",
          "# If you change this file, run 'update-grub' afterwards to update\n"
          "# /boot/grub/grub.cfg.\n\n"
          "GRUB_DEFAULT=0\nGRUB_TIMEOUT=5\n"
          "GRUB_DISTRIBUTOR=`lsb_release -i -s 2> /dev/null || echo Debian`\n"
          'GRUB_CMDLINE_LINUX_DEFAULT="quiet"\n'
          f'GRUB_CMDLINE_LINUX="{grub_linux}"\n')
    write("boot/grub/grub.cfg", "# (vwtest: the host boots the kernel itself)\n")
    write("boot/vwtest-cmdline", f"{grub_linux} quiet".strip() + "\n")
    modules = ("# List of modules that you want to include in your initramfs.\n"
               "# They will be loaded at boot time in the order below.\n#\n"
               "# Syntax:  module_name [args ...]\n#\n")
    write("etc/initramfs-tools/modules", modules)
    write("etc/initramfs-tools/initramfs.conf", "MODULES=most\nBUSYBOX=auto\nCOMPRESS=zstd\n")
    write("etc/modules", "# /etc/modules: kernel modules to load at boot time.\n")
    cfg = f"/boot/config-{kver}"
    if os.path.exists(cfg):
        shutil.copy(cfg, os.path.join(state, "boot", os.path.basename(cfg)))
    if os.path.exists(path):
        os.unlink(path)
    used = sum(os.lstat(os.path.join(d, f)).st_size for d, _, fs in os.walk(state) for f in fs)
    size_mb = used // (1 << 20) + 48
    subprocess.run(["mke2fs", "-q", "-F", "-t", "ext2", "-L", "vwroot", "-d", state, path,
                    f"{size_mb}M"], check=True, stdout=subprocess.DEVNULL)


def debugfs_cat(disk, path):
    r = subprocess.run(["debugfs", "-R", f"cat {path}", disk], capture_output=True)
    return r.stdout.decode(errors="replace") if r.returncode == 0 else ""


def debugfs_get(disk, path, dest):
    """Copy a file out of the disk image; False when it is not there."""
    if os.path.exists(dest):
        os.unlink(dest)
    subprocess.run(["debugfs", "-R", f"dump {path} {dest}", disk],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return os.path.exists(dest) and os.path.getsize(dest) > 0


def parse_data(text):
    """Sections of the guest's report: name -> (body, rc)."""
    secs = {}
    cur = None
    body = []
    for line in text.splitlines():
        m = re.match(r"^VWTEST begin (\S+)$", line)
        if m:
            cur, body = m.group(1), []
            continue
        m = re.match(r"^VWTEST end (\S+) rc=(\d+)(?: up=\S+)?$", line)
        if m and cur == m.group(1):
            secs[cur] = ("\n".join(body), int(m.group(2)))
            cur = None
            continue
        if cur is not None:
            body.append(line)
    secs["_done"] = ("", 0 if re.search(r"^VWTEST done$", text, re.M) else 1)
    secs["_fails"] = ("\n".join(re.findall(r"^VWTEST fail .*$", text, re.M)), 0)
    return secs


class Machine:
    def __init__(self, name, iommu, args, res, initrd, rootfs, kernel, kver, driverctl=False):
        self.name = name
        self.iommu = iommu
        self.args = args
        self.res = res
        self.initrd = initrd
        self.kernel = kernel
        self.kver = kver
        self.dir = os.path.join(args.workdir, name)
        os.makedirs(self.dir, exist_ok=True)
        self.disk = os.path.join(self.dir, "disk.img")
        make_disk(self.disk, rootfs, os.path.join(self.dir, "state"),
                  "intel_iommu=on" if iommu == "intel" else "", kver, driverctl)
        self.nboot = 0
        self.times = []

    def boot(self, todo, label):
        """One boot; returns the parsed report (None when it did not finish)."""
        self.nboot += 1
        n = self.nboot
        tag = f"{self.name} boot {n} ({label})"
        base = os.path.join(self.dir, f"boot{n}")
        grub = debugfs_cat(self.disk, "/boot/vwtest-cmdline").strip()
        # The initramfs: the base archive, then what the guest's
        # update-initramfs packed last time (none before the first run).
        initrd = self.initrd
        overlay = f"{base}.overlay.cpio"
        if debugfs_get(self.disk, f"/boot/initrd.img-{self.kver}", overlay):
            initrd = f"{base}.initrd.cpio"
            with open(initrd, "wb") as out:
                for part in (self.initrd, overlay):
                    with open(part, "rb") as inp:
                        shutil.copyfileobj(inp, out)
        # no_timer_check: under a loaded host the emulated timer can miss the
        # kernel's early check, which then panics ("timer doesn't work
        # through Interrupt-remapped IO-APIC").
        cmdline = (f"{grub} console=ttyS0,115200 panic=-1 loglevel=4 no_timer_check "
                   f"vwtest.do={','.join(todo) or 'none'}").strip()
        machine = "q35"
        accel = ["-accel", "tcg"]
        if self.args.accel == "kvm":
            machine = "q35,kernel-irqchip=split"
            accel = ["-accel", "kvm", "-cpu", "host"]
        iommu = (["-device", "intel-iommu,intremap=on"] if self.iommu == "intel"
                 else [])
        tail = (["-device", "amd-iommu,intremap=on"] if self.iommu == "amd" else [])
        # The AMD IOMMU takes a PCI slot of its own (the first free one):
        # it comes last so that the others keep their addresses.
        cmd = (["timeout", "-k", "5", str(self.args.boot_timeout), "qemu-system-x86_64",
                "-machine", machine] + accel +
               ["-m", "512M", "-smp", "1", "-nodefaults", "-no-reboot", "-display", "none",
                "-monitor", "none", "-kernel", self.kernel, "-initrd", initrd,
                "-append", cmdline,
                "-serial", f"file:{base}.console.log", "-serial", f"file:{base}.data.log"] +
               iommu + QEMU_DEVICES + (NVME_DEVICES if self.iommu == "intel" else []) +
               ["-drive", f"file={self.disk},format=raw,if=none,id=d0",
                "-device", "virtio-blk-pci,drive=d0,addr=06.0"] + tail)
        with open(f"{base}.cmd", "w") as f:
            f.write(" ".join(cmd) + "\n")
        for attempt in (1, 2):
            t0 = time.monotonic()
            with open(f"{base}.qemu.log", "w") as qf:
                p = subprocess.Popen(cmd, stdout=qf, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
                # wait4: the CPU time of this boot alone (the other machine's
                # QEMU runs in another thread), a measure that does not
                # depend on how busy the host is.
                _, status, ru = os.wait4(p.pid, 0)
                p.returncode = rc = os.waitstatus_to_exitcode(status)
            dt = time.monotonic() - t0
            cpu = ru.ru_utime + ru.ru_stime
            self.times.append((tag, dt, cpu))
            log(f"check-vm: {tag}: {dt:.1f} s ({cpu:.1f} s of CPU), qemu exit {rc}")
            try:
                with open(f"{base}.data.log", errors="replace") as f:
                    data = f.read()
            except OSError:
                data = ""
            # A guest that died before its step began changed nothing on the
            # disk: one more try, so that a stray emulation hiccup does not
            # fail the run.  Its logs are kept aside.
            if data.strip() or attempt == 2:
                break
            for ext in ("console.log", "data.log", "qemu.log"):
                if os.path.exists(f"{base}.{ext}"):
                    os.replace(f"{base}.{ext}", f"{base}.try1.{ext}")
            log(f"check-vm: {tag}: the guest died before its step (see {base}.try1.console.log), "
                "booting it again")
        secs = parse_data(data)
        finished = secs["_done"][1] == 0
        if not self.res.ok(f"{tag}: guest ran its step and powered off", rc == 0 and finished,
                           f"qemu exit {rc}{' (timeout)' if rc in (124, 137) else ''}, "
                           f"report {'complete' if finished else 'cut short'}; see {base}.*.log"):
            self.show_tail(f"{base}.console.log")
            if not finished:
                return None
        if secs["_fails"][0]:
            self.res.ok(f"{tag}: guest errors", False, secs["_fails"][0])
        secs["_tag"] = (tag, 0)
        secs["_console"] = (f"{base}.console.log", 0)
        secs["_answers"] = (self.args.answers, 0)
        return secs

    @staticmethod
    def show_tail(path, n=25):
        try:
            with open(path, errors="replace") as f:
                lines = f.read().splitlines()[-n:]
        except OSError:
            return
        for line in lines:
            log(f"  | {line}")


# ---------------------------------------------------------------- checks

def devices_table(secs, name="devices"):
    """addr -> dict(vendor, device, class, driver, group, override)."""
    out = {}
    for line in secs.get(name, ("", 1))[0].splitlines():
        p = line.split()
        if len(p) != 7:
            continue
        out[p[0]] = dict(vendor=int(p[1], 16), device=int(p[2], 16), cls=int(p[3], 16),
                         driver="" if p[4] == "-" else p[4],
                         group=None if p[5] == "-" else int(p[5]),
                         override="" if p[6] == "(null)" else p[6])
    return out


def kernel_groups(secs):
    groups = {}
    for line in secs.get("kgroups", ("", 1))[0].splitlines():
        p = line.split()
        if len(p) == 2:
            groups.setdefault(int(p[0]), set()).add(p[1])
    return groups


def load_json(res, tag, secs, name):
    body, rc = secs.get(name, (None, None))
    if body is None:
        res.ok(f"{tag}: {name} in the report", False, "section missing")
        return None, None
    try:
        return json.loads(body), rc
    except ValueError as e:
        res.ok(f"{tag}: {name} is JSON", False, str(e))
        return None, rc


def check_agree(res, secs, iommu):
    """vfiowiz check and groups against the kernel's own view."""
    tag = secs["_tag"][0]
    devs = devices_table(secs)
    kg = kernel_groups(secs)
    res.ok(f"{tag}: the kernel made IOMMU groups", len(kg) > 0 and len(devs) > 0,
           f"{len(kg)} groups, {len(devs)} devices")

    g, rc = load_json(res, tag, secs, "groups-json")
    if g is not None:
        res.ok(f"{tag}: groups --json exits 0", rc == 0, f"rc={rc}")
        mine = {grp["id"]: {d["address"] for d in grp["devices"]} for grp in g.get("groups", [])}
        diff = []
        for gid in sorted(set(mine) | set(kg)):
            if mine.get(gid) != kg.get(gid):
                diff.append(f"group {gid}: vfiowiz {sorted(mine.get(gid, []))} "
                            f"kernel {sorted(kg.get(gid, []))}")
        res.ok(f"{tag}: groups --json lists the kernel's groups and members", not diff,
               "; ".join(diff))
        ktypes = dict(l.split(None, 1) for l in secs.get("ktypes", ("", 1))[0].splitlines()
                      if len(l.split()) == 2)
        mtypes = {str(grp["id"]): grp.get("type") for grp in g.get("groups", [])}
        res.ok(f"{tag}: groups --json gives each group the kernel's type",
               ktypes == mtypes, f"vfiowiz {mtypes} kernel {ktypes}")
        ungrouped = {d["address"] for d in g.get("ungrouped", [])}
        kung = {a for a, d in devs.items() if d["group"] is None}
        res.ok(f"{tag}: groups --all lists the devices in no group", ungrouped == kung,
               f"vfiowiz {sorted(ungrouped)} kernel {sorted(kung)}")
        bad = []
        for grp in g.get("groups", []):
            for d in grp["devices"]:
                k = devs.get(d["address"])
                if k is None:
                    bad.append(f"{d['address']} unknown to sysfs")
                    continue
                if (int(d["vendor_id"], 16), int(d["device_id"], 16), int(d["class"], 16)) != \
                        (k["vendor"], k["device"], k["cls"]):
                    bad.append(f"{d['address']} ids/class {d['vendor_id']}:{d['device_id']} "
                               f"{d['class']}")
                if d["driver"] != k["driver"]:
                    bad.append(f"{d['address']} driver '{d['driver']}' vs '{k['driver']}'")
        res.ok(f"{tag}: groups --json ids, class and driver match sysfs", not bad, "; ".join(bad))
        bridges = [grp for grp in g.get("groups", [])
                   if {NIC_A, NIC_B} <= {d["address"] for d in grp["devices"]}]
        res.ok(f"{tag}: the devices behind the PCI bridge share a group, verdict 'shared'",
               len(bridges) == 1 and bridges[0]["verdict"] == "shared"
               and PCI_BRIDGE in {d["address"] for d in bridges[0]["devices"]},
               json.dumps(bridges)[:300])

    c, rc = load_json(res, tag, secs, "check-json")
    if c is not None:
        res.ok(f"{tag}: check --json 'exit' is its exit status", c.get("exit") == rc,
               f"json {c.get('exit')} rc {rc}")
        text_rc = secs.get("check", ("", None))[1]
        res.ok(f"{tag}: check and check --json agree", text_rc == rc, f"{text_rc} vs {rc}")
        io = c.get("host", {}).get("iommu", {})
        units = sorted(secs.get("iommu", ("", 1))[0].split())
        res.ok(f"{tag}: check counts the kernel's groups", io.get("groups") == len(kg),
               f"{io.get('groups')} vs {len(kg)}")
        res.ok(f"{tag}: check lists the kernel's IOMMU units", sorted(io.get("units", [])) == units,
               f"{io.get('units')} vs {units}")
        fw = c.get("host", {}).get("firmware", {})
        want = {"dmar": iommu == "intel", "ivrs": iommu == "amd"}
        res.ok(f"{tag}: check sees the firmware table of the {iommu} IOMMU",
               fw.get("dmar") == want["dmar"] and fw.get("ivrs") == want["ivrs"], json.dumps(fw))
        gpus = {x["address"]: x for x in c.get("gpus", [])}
        kgpus = {a for a, d in devs.items() if d["cls"] >> 8 in (0x0300, 0x0302, 0x0380)}
        res.ok(f"{tag}: check lists every display device as a GPU", set(gpus) == kgpus,
               f"{sorted(gpus)} vs {sorted(kgpus)}")
        bad = [a for a, x in gpus.items() if a in devs and
               (x.get("driver") != devs[a]["driver"] or x.get("iommu_group") != devs[a]["group"])]
        res.ok(f"{tag}: check's GPU drivers and groups match sysfs", not bad, ", ".join(bad))
        res.ok(f"{tag}: check marks the boot display", gpus.get(BOOT_VGA, {}).get("boot_vga") is True
               and all(x.get("boot_vga") is not True for a, x in gpus.items() if a != BOOT_VGA),
               json.dumps({a: x.get("boot_vga") for a, x in gpus.items()}))
        res.ok(f"{tag}: check finds the audio function in the GPU's slot",
               gpus.get(GPU, {}).get("companions") == [GPU_AUDIO],
               json.dumps(gpus.get(GPU, {}).get("companions")))
    return devs, kg


def check_drivers(res, secs, devs, want, what, vfio="vfio"):
    """want: addr -> driver.  Devices on vfio-pci need their /dev/vfio node
    (listed in the section vfio)."""
    tag = secs["_tag"][0]
    bad = [f"{a} on '{devs.get(a, {}).get('driver', '?')}', wanted '{d}'"
           for a, d in sorted(want.items()) if devs.get(a, {}).get("driver") != d]
    if not res.ok(f"{tag}: {what}", not bad, "; ".join(bad)):
        explain(secs)
    nodes = set(secs.get(vfio, ("", 1))[0].split())
    vgroups = {devs[a]["group"] for a, d in want.items() if d == "vfio-pci" and a in devs}
    others = {a for a, d in devs.items() if d["driver"] == "vfio-pci" and want.get(a) != "vfio-pci"}
    if vgroups:
        miss = [g for g in sorted(vgroups, key=str) if str(g) not in nodes]
        res.ok(f"{tag}: /dev/vfio/{','.join(map(str, sorted(vgroups, key=str)))} exists", not miss,
               f"missing {miss}, /dev/vfio has {sorted(nodes)}")
    res.ok(f"{tag}: no other device is on vfio-pci", not others, ", ".join(sorted(others)))


def explain(secs):
    """After a wrong driver: how the boot loaded modules, and the files."""
    try:
        with open(secs["_console"][0], errors="replace") as f:
            for line in f:
                if "vwinit:" in line:
                    log(f"  | {line.rstrip()}")
    except (KeyError, OSError):
        pass
    show_files(secs, "files")


def check_cmd(res, secs, name, what):
    tag = secs["_tag"][0]
    body, rc = secs.get(name, (None, None))
    ok = res.ok(f"{tag}: {what}", rc == 0,
                "section missing" if body is None else f"rc={rc}")
    if not ok and body:
        for line in body.splitlines()[-30:]:
            log(f"  | {line}")
    return ok


def file_map(secs, name):
    """The conffiles dump of section name: path -> contents."""
    files = {}
    cur = None
    for line in secs.get(name, ("", 0))[0].splitlines():
        if line.startswith("=== "):
            cur = line[4:]
            files[cur] = []
        elif cur is not None:
            files[cur].append(line)
    return {k: "\n".join(v) for k, v in files.items()}


def check_apply(res, s, name, by_ids):
    """plan and apply of answers name; by_ids: the binding expected."""
    tag = s["_tag"][0]
    check_cmd(res, s, f"plan-{name}", f"vfiowiz plan ({name}) exits 0")
    if not check_cmd(res, s, f"apply-{name}", f"vfiowiz apply --yes ({name}) exits 0"):
        return False
    files = file_map(s, "files-after")
    conf = files.get("/etc/modprobe.d/vfiowiz.conf", "")
    ids = re.findall(r"^options vfio[-_]pci .*ids=(\S+)", conf, re.M)
    if by_ids:
        res.ok(f"{tag}: {name} binds by ids: options vfio-pci ids=1b36:0100,8086:293e",
               ids and set(ids[0].split(",")) == {"1b36:0100", "8086:293e"}, conf)
    else:
        res.ok(f"{tag}: {name} binds by address: no ids= (they would take the twin and the "
               "boot display)", not ids, conf)
    body, rc = s.get(f"reapply-{name}", ("", None))
    before = s.get("journals-after-apply", ("", 0))[0].split()
    after = s.get("journals-after-reapply", ("", 0))[0].split()
    res.ok(f"{tag}: the same apply again changes nothing and journals nothing",
           rc == 0 and "Nothing to change" in body and before == after and len(before) > 0,
           f"rc={rc}, journals {before} -> {after}: {body.strip()[:300]}")
    if s.get("_answers", (False, 0))[0]:
        show_files(s)
    return True


def show_files(secs, name="files-after"):
    body = secs.get(name, ("", 0))[0]
    for line in body.splitlines():
        log(f"  | {line}")


# ---------------------------------------------------------------- scenarios

def run_intel(m, res, can_apply):
    todo = ["check", "groups"]
    if not can_apply:
        s = m.boot(todo, "check, groups")
        if s:
            devs, _ = check_agree(res, s, "intel")
            check_drivers(res, s, devs, BASELINE, "every device on its own driver")
        res.skip("intel apply/reboot/undo boots",
                 "this vfiowiz has no 'apply'/'undo' commands yet (see vfiowiz --help)")
        return

    # 1: baseline, apply by ids (the GPU and its audio function)
    s = m.boot(todo + ["apply:gpu-ids"], "check, groups, apply gpu-ids")
    if not s:
        return
    devs, _ = check_agree(res, s, "intel")
    check_drivers(res, s, devs, BASELINE, "every device on its own driver")
    if not check_apply(res, s, "gpu-ids", True):
        return

    # 2: the GPU and its audio function on vfio-pci; undo
    s = m.boot(todo + ["undo"], "verify by ids, undo")
    if not s:
        return
    devs, _ = check_agree(res, s, "intel")
    want = dict(BASELINE, **{GPU: "vfio-pci", GPU_AUDIO: "vfio-pci"})
    check_drivers(res, s, devs, want, "GPU and audio on vfio-pci after the reboot, the rest untouched")
    res.ok(f"{s['_tag'][0]}: GPU and audio share the group of /dev/vfio",
           devs.get(GPU, {}).get("group") == devs.get(GPU_AUDIO, {}).get("group"))
    if not check_cmd(res, s, "undo", "vfiowiz undo exits 0"):
        return

    # 3: back to normal; apply by address (one of the identical twins)
    s = m.boot(todo + ["apply:twin-addr"], "verify undo, apply twin-addr")
    if not s:
        return
    devs, _ = check_agree(res, s, "intel")
    check_drivers(res, s, devs, BASELINE, "after undo every device is back on its own driver")
    if not check_apply(res, s, "twin-addr", False):
        return

    # 4: one twin on vfio-pci, the other and the boot display untouched; undo;
    # SR-IOV on the NVMe PF (its applies undone on the same boot)
    s = m.boot(todo + ["undo", f"sriov:{NVME_PF}"], "verify by address, undo, SR-IOV")
    if not s:
        return
    devs, _ = check_agree(res, s, "intel")
    want = dict(BASELINE, **{TWIN_A: "vfio-pci"})
    check_drivers(res, s, devs, want,
                  "02:00.0 on vfio-pci, its identical twin 03:00.0 and the boot display not")
    if not check_cmd(res, s, "undo", "vfiowiz undo exits 0"):
        return
    check_sriov(res, s)

    # 5: back to normal (no VF either); single-GPU mode's hooks on the same boot
    s = m.boot(todo + ["hooks:dynamic-twin"], "verify undo, single-GPU hooks")
    if not s:
        return
    devs, _ = check_agree(res, s, "intel")
    check_drivers(res, s, devs, BASELINE, "after undo every device is back on its own driver")
    check_clean(res, s)
    check_sriov_gone(res, s)
    check_hooks(res, s)


def check_hooks(res, s):
    """gpu_mode = dynamic: the hooks hand 02:00.0 to vfio-pci and back."""
    tag = s["_tag"][0]
    if not check_cmd(res, s, "hooks-apply-dynamic-twin", "apply with gpu_mode = dynamic exits 0"):
        return
    res.ok(f"{tag}: the hook dispatcher and the handover script are installed",
           s.get("hooks-files", ("", 1))[1] == 0, s.get("hooks-files", ("", 1))[0])
    steps = [("hooks-prepare", "hooks-devices-prepared", "hooks-vfio", True, "prepare/begin"),
             ("hooks-release", "hooks-devices-released", "hooks-vfio-released", False, "release/end"),
             ("hooks-prepare2", "hooks-devices-prepared2", "hooks-vfio2", True, "prepare/begin again"),
             ("hooks-timeout", "hooks-devices-timeout", "hooks-vfio-timeout", False, "the restore timer")]
    for run, table, vfio, taken, what in steps:
        check_cmd(res, s, run, f"the hook's {what} exits 0")
        devs = devices_table(s, table)
        if taken:
            want = dict(BASELINE, **{TWIN_A: "vfio-pci"})
            check_drivers(res, s, devs, want, f"after {what}: 02:00.0 on vfio-pci, "
                          "its twin and the boot display still on bochs-drm", vfio)
            res.ok(f"{tag}: after {what}: driver_override of 02:00.0 is vfio-pci",
                   devs.get(TWIN_A, {}).get("override") == "vfio-pci",
                   str(devs.get(TWIN_A)))
        else:
            check_drivers(res, s, devs, BASELINE,
                          f"after {what}: 02:00.0 is back on bochs-drm, the rest untouched", vfio)
            res.ok(f"{tag}: after {what}: driver_override of 02:00.0 is cleared",
                   devs.get(TWIN_A, {}).get("override") == "", str(devs.get(TWIN_A)))
    before = s.get("hooks-vtcon-before", ("", 1))[0].strip()
    res.ok(f"{tag}: prepare/begin unbinds fbcon from its text console",
           re.search(r"^vtcon\d+ 0 .*frame buffer", s.get("hooks-vtcon-prepared", ("", 1))[0], re.M)
           is not None, s.get("hooks-vtcon-prepared", ("", 1))[0])
    for sec, what in (("hooks-vtcon-released", "release/end"), ("hooks-vtcon-timeout", "the timer")):
        after = s.get(sec, ("", 1))[0].strip()
        res.ok(f"{tag}: after {what} the text consoles are bound as before", before and after == before,
               f"before {before!r}, after {after!r}")
    log_ = s.get("hooks-log", ("", 1))[0]
    res.ok(f"{tag}: the hook log says the timer restored the host",
           "did not start within" in log_ and "restore: done" in log_, log_[-600:])


def run_hooks(m, res):
    """VW_VM_ONLY=hooks: the single-GPU hooks alone, on one boot."""
    s = m.boot(["hooks:dynamic-twin"], "single-GPU hooks")
    if s:
        check_hooks(res, s)


def run_sriov(m, res):
    """VW_VM_ONLY=sriov: the SR-IOV step, then a boot that checks its undo."""
    s = m.boot(["check", "groups", f"sriov:{NVME_PF}"], "check, groups, SR-IOV on the NVMe PF")
    if s:
        check_agree(res, s, "intel")
        check_sriov(res, s)
    s = m.boot(["check", "groups"], "after SR-IOV's undo")
    if s:
        check_agree(res, s, "intel")
        check_clean(res, s)
        check_sriov_gone(res, s)


def groups_of(secs, name):
    """groups --json of section name: (group id -> set of addresses, address ->
    device object); empty when it is not JSON."""
    try:
        g = json.loads(secs.get(name, ("", 1))[0])
    except ValueError:
        return {}, {}
    groups = {grp["id"]: {d["address"] for d in grp["devices"]} for grp in g.get("groups", [])}
    devs = {d["address"]: d for grp in g.get("groups", []) for d in grp["devices"]}
    return groups, devs


def sriov_state(secs, name):
    """sriovstate of section name: (total, enabled, autoprobe, [VF addresses])."""
    lines = secs.get(name, ("", 1))[0].split("\n")
    head = lines[0].split() if lines else []
    if len(head) != 3:
        return None
    vfs = [l.split()[1] for l in sorted(lines[1:], key=lambda l: int(l.split()[0]) if l.strip() else 0)
           if len(l.split()) == 2]
    return (int(head[0]), int(head[1]), int(head[2]), vfs)


def check_sriov(res, s):
    """SR-IOV on the NVMe PF: the VFs, their groups, the binding of the chosen
    one by the unit's script, the PF refused, undo (guest.sh's sriov:PF)."""
    tag = s["_tag"][0]
    _, jdevs = groups_of(s, "groups-json")
    sr = (jdevs.get(NVME_PF) or {}).get("sriov") or {}
    res.ok(f"{tag}: groups --json gives the NVMe PF its SR-IOV capacity: 3 VFs, none enabled",
           sr.get("total_vfs") == 3 and sr.get("enabled_vfs") == 0 and sr.get("vfs") == [],
           json.dumps(sr))
    res.ok(f"{tag}: before: the PF has 3 possible VFs, none enabled, drivers autoprobe on",
           sriov_state(s, "sriov-before") == (3, 0, 1, []), s.get("sriov-before", ("", 0))[0])

    # 1. sriov_numvfs alone: the script makes the VFs.
    check_cmd(res, s, "sriov-count-apply", "apply sriov_numvfs = {PF=2} exits 0")
    check_cmd(res, s, "sriov-count-run", "the generated vfiowiz-sriov (count only) exits 0")
    st = sriov_state(s, "sriov-count-state")
    res.ok(f"{tag}: the script made 2 VFs, {NVME_VF1} and {NVME_VF2}",
           st == (3, 2, 1, [NVME_VF1, NVME_VF2]), str(st))
    devs = devices_table(s, "sriov-count-devices")
    kg = kernel_groups({"kgroups": s.get("sriov-count-kgroups", ("", 1))})
    mine, jdevs = groups_of(s, "sriov-count-groups")
    res.ok(f"{tag}: with the VFs, groups --json lists the kernel's groups and members",
           mine == kg and len(kg) > 0, f"vfiowiz {mine} kernel {kg}")
    # What the real kernel does: the VFs of a PF behind an ACS root port.
    gid = {a: d["group"] for a, d in devs.items()}
    own = len({gid.get(NVME_PF), gid.get(NVME_VF1), gid.get(NVME_VF2)}) == 3 and \
        all(kg.get(gid.get(a)) == {a} for a in (NVME_VF1, NVME_VF2))
    log(f"check-vm: {tag}: kernel groups of the PF and its VFs: " +
        ", ".join(f"{a} {gid.get(a)}" for a in (NVME_PF, NVME_VF1, NVME_VF2)))
    res.ok(f"{tag}: each VF is alone in an IOMMU group of its own, apart from its PF", own,
           str({a: kg.get(gid.get(a)) for a in (NVME_PF, NVME_VF1, NVME_VF2)}))
    try:
        cgroups = json.loads(s.get("sriov-count-check", ("", 1))[0])["host"]["iommu"]["groups"]
    except (ValueError, KeyError, TypeError):
        cgroups = None
    res.ok(f"{tag}: with the VFs, check --json counts the kernel's groups ({len(kg)})",
           cgroups == len(kg), f"{cgroups} vs {len(kg)}")
    pf = jdevs.get(NVME_PF, {})
    res.ok(f"{tag}: groups --json lists the PF's 2 enabled VFs and each VF's physfn",
           (pf.get("sriov") or {}).get("enabled_vfs") == 2
           and (pf.get("sriov") or {}).get("vfs") == [NVME_VF1, NVME_VF2]
           and all(jdevs.get(v, {}).get("physfn") == NVME_PF for v in (NVME_VF1, NVME_VF2)),
           json.dumps({a: (jdevs.get(a, {}).get("sriov"), jdevs.get(a, {}).get("physfn"))
                       for a in (NVME_PF, NVME_VF1, NVME_VF2)}))
    res.ok(f"{tag}: after the count alone no VF is on vfio-pci, the PF is on nvme",
           devs.get(NVME_PF, {}).get("driver") == "nvme"
           and all(devs.get(v, {}).get("driver") != "vfio-pci" for v in (NVME_VF1, NVME_VF2)),
           str({a: devs.get(a) for a in (NVME_PF, NVME_VF1, NVME_VF2)}))

    # 2. A VF for vfio-pci: the next boot (no VF yet) runs the script.
    check_cmd(res, s, "sriov-vf-plan", f"plan with sriov_numvfs and {NVME_VF2} exits 0")
    check_cmd(res, s, "sriov-vf-apply", f"apply with sriov_numvfs and {NVME_VF2} exits 0")
    script = s.get("sriov-vf-script", ("", 1))[0]
    res.ok(f"{tag}: the script hands {NVME_VF2} over by address, not its PF nor {NVME_VF1}",
           re.search(rf"^for dev in {NVME_VF2}; do$", script, re.M) is not None, script[-600:])
    res.ok(f"{tag}: from no VF (as at boot)", sriov_state(s, "sriov-vf-zero") == (3, 0, 1, []),
           s.get("sriov-vf-zero", ("", 0))[0])
    body, rc = s.get("sriov-vf-run", ("", None))
    res.ok(f"{tag}: the script exits 0 and says nothing", rc == 0 and not body.strip(),
           f"rc={rc}: {body.strip()[:400]}")
    st = sriov_state(s, "sriov-vf-state")
    res.ok(f"{tag}: the script made the 2 VFs again, autoprobe as it was (on)",
           st == (3, 2, 1, [NVME_VF1, NVME_VF2]), str(st))
    devs = devices_table(s, "sriov-vf-devices")
    vf2 = devs.get(NVME_VF2, {})
    res.ok(f"{tag}: {NVME_VF2} is on vfio-pci (driver_override vfio-pci)",
           vf2.get("driver") == "vfio-pci" and vf2.get("override") == "vfio-pci", str(vf2))
    res.ok(f"{tag}: the PF keeps nvme, {NVME_VF1} is left to the host (no override, not vfio-pci)",
           devs.get(NVME_PF, {}).get("driver") == "nvme"
           and devs.get(NVME_VF1, {}).get("driver") != "vfio-pci"
           and devs.get(NVME_VF1, {}).get("override") == "",
           str({a: devs.get(a) for a in (NVME_PF, NVME_VF1)}))
    # What the kernel said while the script ran: nvme starts a controller
    # on each VF it probes ("nvme nvmeN: pci function ADDR").
    kmsg = s.get("sriov-vf-dmesg", ("", 1))[0]
    probed = set(re.findall(r"nvme nvme\d+: pci function (\S+)", kmsg))
    res.ok(f"{tag}: nvme never probed the chosen VF, and probed the other (autoprobe honoured)",
           NVME_VF2 not in probed and NVME_VF1 in probed, kmsg[-800:])
    before = devices_table(s)
    others = sorted(a for a, d in devs.items() if d["driver"] == "vfio-pci" and a != NVME_VF2
                    and before.get(a, {}).get("driver") != "vfio-pci")
    res.ok(f"{tag}: no other device went to vfio-pci", not others, ", ".join(others))
    nodes = set(s.get("sriov-vf-vfio", ("", 1))[0].split())
    res.ok(f"{tag}: /dev/vfio/{vf2.get('group')} exists", str(vf2.get("group")) in nodes,
           f"/dev/vfio has {sorted(nodes)}")
    kg = kernel_groups({"kgroups": s.get("sriov-vf-kgroups", ("", 1))})
    mine, _ = groups_of(s, "sriov-vf-groups")
    res.ok(f"{tag}: each VF's IOMMU group is the one groups --json reports",
           all(a in mine.get(devs.get(a, {}).get("group"), set()) for a in (NVME_VF1, NVME_VF2))
           and mine == kg, f"vfiowiz {mine} kernel {kg}")
    body, rc = s.get("sriov-vf-run2", ("", None))
    res.ok(f"{tag}: the script again changes nothing",
           rc == 0 and not body.strip() and devices_table(s, "sriov-vf-devices2") == devs,
           f"rc={rc}: {body.strip()[:300]}")

    # 3. The PF while a VF is on vfio-pci: refused.
    body, rc = s.get("sriov-pf-plan", ("", None))
    res.ok(f"{tag}: a plan giving the PF away while its VF is on vfio-pci is refused",
           rc not in (0, None) and "virtual function" in body, f"rc={rc}: {body.strip()[:300]}")

    # 4. undo, both applies.
    check_cmd(res, s, "sriov-undo-vf", "undo (the VF's apply) exits 0")
    check_cmd(res, s, "sriov-undo-count", "undo (the count's apply) exits 0")
    left = [l for l in s.get("sriov-files-undone", ("", 0))[0].splitlines()
            if l.startswith("=== ") and "sriov" in l and not l.startswith("=== /var/lib/vfiowiz/")]
    res.ok(f"{tag}: after undo the script and the unit are gone", not left, "; ".join(left))


def check_sriov_gone(res, s):
    """The boot after SR-IOV's undo: no VF, no file of ours."""
    tag = s["_tag"][0]
    _, jdevs = groups_of(s, "groups-json")
    sr = (jdevs.get(NVME_PF) or {}).get("sriov") or {}
    res.ok(f"{tag}: after undo and a reboot the PF has no VF enabled",
           sr.get("enabled_vfs") == 0 and NVME_VF1 not in jdevs and NVME_VF2 not in jdevs,
           json.dumps(sr))


def check_clean(res, s):
    """After undo: none of our files is left (the journal stays)."""
    body = s.get("files", ("", 0))[0]
    left = [l for l in body.splitlines()
            if l.startswith("=== ") and ("vfio" in l or "driverctl.d" in l)
            and not l.startswith("=== /var/lib/vfiowiz/")]
    res.ok(f"{s['_tag'][0]}: no vfiowiz file is left in /etc, /usr/local or the initramfs",
           not left, "; ".join(left))


def run_amd(m, res, can_apply):
    todo = ["check", "groups"]
    if not can_apply:
        s = m.boot(todo, "check, groups")
        if s:
            devs, _ = check_agree(res, s, "amd")
            check_drivers(res, s, devs, BASELINE, "every device on its own driver")
        res.skip("amd apply/reboot/undo boots",
                 "this vfiowiz has no 'apply'/'undo' commands yet (see vfiowiz --help)")
        return

    # This machine has driverctl: binding by address goes through its files.
    # 1: baseline, apply by address
    s = m.boot(todo + ["apply:twin-addr"], "check, groups, apply twin-addr with driverctl")
    if not s:
        return
    devs, _ = check_agree(res, s, "amd")
    check_drivers(res, s, devs, BASELINE, "every device on its own driver")
    if not check_apply(res, s, "twin-addr", False):
        return
    files = file_map(s, "files-after")
    res.ok(f"{s['_tag'][0]}: with driverctl installed, apply writes /etc/driverctl.d/pci-{TWIN_A}",
           files.get(f"/etc/driverctl.d/pci-{TWIN_A}", "").strip() == "vfio-pci",
           ", ".join(sorted(files)))

    # 2: one twin on vfio-pci; undo
    s = m.boot(todo + ["undo"], "verify by address (driverctl), undo")
    if not s:
        return
    devs, _ = check_agree(res, s, "amd")
    want = dict(BASELINE, **{TWIN_A: "vfio-pci"})
    check_drivers(res, s, devs, want,
                  "02:00.0 on vfio-pci, its identical twin 03:00.0 and the boot display not")
    if not check_cmd(res, s, "undo", "vfiowiz undo exits 0"):
        return

    # 3: back to normal
    s = m.boot(todo, "verify undo")
    if not s:
        return
    devs, _ = check_agree(res, s, "amd")
    check_drivers(res, s, devs, BASELINE, "after undo every device is back on its own driver")
    check_clean(res, s)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    top_b = os.environ.get("top_builddir", ".")
    top_s = os.environ.get("top_srcdir", os.path.join(os.path.dirname(__file__), "..", ".."))
    ap.add_argument("--vfiowiz", default=os.environ.get("VFIOWIZ", os.path.join(top_b, "vfiowiz")))
    ap.add_argument("--srcdir", default=top_s)
    ap.add_argument("--workdir", default=os.environ.get("VW_VM_WORKDIR",
                                                         os.path.join(top_b, "tests", "vm", "out")))
    ap.add_argument("--accel", choices=["tcg", "kvm"], default=os.environ.get("VW_VM_ACCEL", "tcg"))
    ap.add_argument("--boot-timeout", type=int, default=int(os.environ.get("VW_VM_BOOT_TIMEOUT", "180")))
    ap.add_argument("--only", choices=["intel", "amd", "hooks", "sriov"], default=os.environ.get("VW_VM_ONLY"))
    ap.add_argument("--show-files", dest="answers", action="store_true",
                    help="print the files each apply wrote")
    args = ap.parse_args()
    args.vfiowiz = os.path.abspath(args.vfiowiz)
    args.srcdir = os.path.abspath(args.srcdir)
    args.workdir = os.path.abspath(args.workdir)

    t_start = time.monotonic()
    if os.path.isdir(args.workdir):
        shutil.rmtree(args.workdir)
    os.makedirs(args.workdir)

    if not os.access(args.vfiowiz, os.X_OK):
        log(f"check-vm: SKIP: no vfiowiz binary at {args.vfiowiz} (build it first)")
        return SKIP
    miss = missing_tools()
    if miss:
        if not install(miss, args.workdir):
            log(f"check-vm: SKIP: missing {' '.join(miss)} and could not install them "
                "(as root: apt-get install " + " ".join(PACKAGES) + ")")
            return SKIP
        miss = missing_tools()
        if miss:
            log(f"check-vm: SKIP: still missing after apt-get: {' '.join(miss)}")
            return SKIP
    if args.accel == "kvm" and not os.access("/dev/kvm", os.R_OK | os.W_OK):
        log("check-vm: SKIP: --accel kvm but /dev/kvm is not usable")
        return SKIP
    kernel, kver = find_kernel()
    cmds = vfiowiz_commands(args.vfiowiz)
    can_apply = {"plan", "apply", "undo"} <= cmds
    log(f"check-vm: kernel {kernel}, qemu {qemu_version()}, accel {args.accel}, "
        f"vfiowiz commands: {' '.join(sorted(cmds))}")

    initrd = os.path.join(args.workdir, "initrd.cpio")
    rootfs = os.path.join(args.workdir, "root")
    t0 = time.monotonic()
    r = subprocess.run(["sh", os.path.join(args.srcdir, "tests/vm/mkimage.sh"), kver,
                        args.vfiowiz, args.srcdir, args.workdir])
    if r.returncode != 0:
        log("FAIL: building the guest (tests/vm/mkimage.sh)")
        print("0 passed, 1 failed")
        return 1
    log(f"check-vm: guest built in {time.monotonic() - t0:.1f} s")

    res = Result()
    machines = []
    threads = []
    if args.only in (None, "intel"):
        mi = Machine("intel", "intel", args, res, initrd, rootfs, kernel, kver)
        machines.append(mi)
        threads.append(threading.Thread(target=run_intel, args=(mi, res, can_apply)))
    if args.only == "hooks":
        # For working on the hooks: one boot of the intel machine.
        mh = Machine("hooks", "intel", args, res, initrd, rootfs, kernel, kver)
        machines.append(mh)
        threads.append(threading.Thread(target=run_hooks, args=(mh, res)))
    if args.only == "sriov":
        # For working on SR-IOV: its boots alone, on an intel machine.
        ms = Machine("sriov", "intel", args, res, initrd, rootfs, kernel, kver)
        machines.append(ms)
        threads.append(threading.Thread(target=run_sriov, args=(ms, res)))
    if args.only in (None, "amd"):
        if qemu_has("amd-iommu"):
            ma = Machine("amd", "amd", args, res, initrd, rootfs, kernel, kver, driverctl=True)
            machines.append(ma)
            threads.append(threading.Thread(target=run_amd, args=(ma, res, can_apply)))
        else:
            res.skip("amd", "this QEMU has no amd-iommu device")
    # The two machines are independent: on two cores they boot side by side.
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    # What the guest left on its disk, for a look after a failure.
    for m in machines:
        dump = os.path.join(m.dir, "disk-final")
        os.makedirs(dump, exist_ok=True)
        for d in ("/etc", "/var", "/boot"):
            subprocess.run(["debugfs", "-R", f"rdump {d} {dump}", m.disk],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    log("check-vm: timings")
    for m in machines:
        for tag, dt, cpu in m.times:
            log(f"  {tag}: {dt:.1f} s ({cpu:.1f} s of CPU)")
    log(f"  total: {time.monotonic() - t_start:.1f} s (logs in {args.workdir})")
    if res.failures:
        log("check-vm: failed: " + "; ".join(res.failures))
    print(f"{res.passed} passed, {res.failed} failed, {res.skipped} skipped", flush=True)
    return 1 if res.failed else 0


def qemu_version():
    out = subprocess.run(["qemu-system-x86_64", "--version"], capture_output=True, text=True).stdout
    m = re.search(r"version (\S+)", out)
    return m.group(1) if m else "?"


if __name__ == "__main__":
    sys.exit(main())
