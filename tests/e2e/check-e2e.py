#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""End-to-end test: a nested VM really gets the device, through real libvirt.

Run by `make check-e2e` (tests/e2e/check-e2e.sh).  Exit status: 0 passed,
1 failed, 77 skipped as a whole (nothing to boot and nothing installable).

L0 (this machine) boots L1: Debian's kernel under QEMU with an emulated
IOMMU (intel-iommu, or amd-iommu; both side by side by default), root file
system from debootstrap with libvirt and QEMU (tests/e2e/mkroot.sh, cached
outside the tree), the same initramfs and boot stand-ins as `make check-vm`
(tests/vm), and vfiowiz.  L1's devices:

  00:01.0  VGA (1234:1111)          the host's display
  00:02.0  PCIe root port
    01:00.0  e1000 (8086:100e)      the device for the VM, on L0's user network
  00:06.0  virtio-blk               L1's root file system (ext4, kept across boots)

Boots of each L1 (each a new QEMU process; "reboot" = the next boot, with
the kernel command line and initramfs L1 wrote, as in check-vm):
  1. templates: every domain the plans make from tests/e2e/answers/tpl-*.conf
     (Windows/Linux, VNC or not, UEFI) is defined and started paused by L1's
     libvirt; then vfiowiz apply --answers e2e.conf --yes (the e1000 slot, a
     new libvirt domain e2e-l2)
  2. the e1000 is on vfio-pci; the wizard's Verify step says so; virsh start
     e2e-l2: L2 (TCG in TCG) reports the device's ids, its driver, the link
     and a DHCP lease; virsh destroy; vfiowiz undo --yes
  3. the e1000 is back on e1000, no vfiowiz file and no domain is left
Each stage has its own time limit and prints "STAGE name: N s"; a failure
names the machine, the boot and the stage.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import threading
import time

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
NIC = "0000:01:00.0"
PACKAGES = ["qemu-system-x86", "busybox-static", "linux-image-amd64", "kmod",
            "e2fsprogs", "cpio", "debootstrap"]
# L2 runs TCG inside TCG: every initcall counts.  The slow ones measured
# (tests/e2e/README, "Measured") are left out; no mitigations (page-table
# isolation flushes the emulated TLB at every kernel entry), no watchdogs.
L2_CMDLINE = ("console=ttyS0,115200 panic=-1 loglevel=3 no_timer_check mitigations=off "
              "nowatchdog nosoftlockup "
              "initcall_blacklist=crypto_kdf108_init,init_kprobe_trace cryptomgr.notests "
              "rdinit=/init")


def log(msg):
    print(msg, flush=True)


class Result:
    def __init__(self):
        self.passed = self.failed = 0
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


def have(cmd):
    return shutil.which(cmd) is not None


def vkey(s):
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", s)]


def find_kernel():
    cands = sorted((os.path.join("/boot", f) for f in os.listdir("/boot")
                    if f.startswith("vmlinuz-")), key=vkey, reverse=True) \
        if os.path.isdir("/boot") else []
    for k in cands:
        ver = os.path.basename(k)[len("vmlinuz-"):]
        if os.path.isdir(f"/lib/modules/{ver}/kernel/drivers/vfio/pci") and os.access(k, os.R_OK):
            return k, ver
    return None, None


def missing_tools():
    miss = [pkg for cmd, pkg in (("qemu-system-x86_64", "qemu-system-x86"), ("kmod", "kmod"),
                                 ("mke2fs", "e2fsprogs"), ("debugfs", "e2fsprogs"),
                                 ("cpio", "cpio"), ("debootstrap", "debootstrap"))
            if not have(cmd)]
    # L2's initramfs has no libraries: busybox must be static (ldd fails).
    if not os.access("/bin/busybox", os.X_OK) or \
            subprocess.run(["ldd", "/bin/busybox"], capture_output=True).returncode == 0:
        miss.append("busybox-static")
    if find_kernel()[0] is None:
        miss.append("linux-image-amd64")
    return sorted(set(miss))


def install(pkgs, workdir):
    if os.environ.get("VW_E2E_NO_INSTALL") or os.geteuid() != 0 or not have("apt-get"):
        return False
    logf = os.path.join(workdir, "apt.log")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    cmd = ["apt-get", "install", "-y", "-q", "--no-install-recommends"] + pkgs
    log(f"check-e2e: installing {' '.join(pkgs)} (log: {logf})")
    with open(logf, "a") as lf:
        if subprocess.run(cmd, stdout=lf, stderr=subprocess.STDOUT, env=env).returncode == 0:
            return True
        subprocess.run(["apt-get", "update", "-q"], stdout=lf, stderr=subprocess.STDOUT, env=env)
        return subprocess.run(cmd, stdout=lf, stderr=subprocess.STDOUT, env=env).returncode == 0


class Stage:
    """A named, timed piece of the run: "STAGE name: N s" in the log."""
    times = []
    lock = threading.Lock()

    def __init__(self, name):
        self.name = name
        self.cpu = None

    def __enter__(self):
        log(f"STAGE begin {self.name}")
        self.t0 = time.monotonic()
        return self

    def __exit__(self, *exc):
        dt = time.monotonic() - self.t0
        cpu = f" ({self.cpu:.1f} s of CPU)" if self.cpu is not None else ""
        with Stage.lock:
            Stage.times.append((self.name, f"{dt:.1f} s{cpu}"))
        log(f"STAGE {self.name}: {dt:.1f} s{cpu}")
        return False


# ---------------------------------------------------------------- images

def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def make_l2_initrd(kver, out):
    """L2's initramfs: static busybox, e1000.ko, /init (l2init)."""
    d = out + ".d"
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "bin"))
    shutil.copy("/bin/busybox", os.path.join(d, "bin/busybox"))
    os.symlink("busybox", os.path.join(d, "bin/sh"))
    r = subprocess.run(["modprobe", "-S", kver, "--show-depends", "e1000"], capture_output=True,
                       text=True)
    kos = [l.split()[1] for l in r.stdout.splitlines() if l.startswith("insmod ")]
    if len(kos) != 1:
        raise RuntimeError(f"e1000 module: {r.stdout} {r.stderr}")
    ko = kos[0]
    dest = os.path.join(d, "e1000.ko")
    if ko.endswith(".xz"):
        with open(dest, "wb") as f:
            sh(["xz", "-dc", ko], stdout=f)
    elif ko.endswith(".zst"):
        with open(dest, "wb") as f:
            sh(["zstd", "-dc", ko], stdout=f)
    else:
        shutil.copy(ko, dest)
    for f, mode in (("l2init", "init"), ("lease.sh", "lease.sh")):
        shutil.copy(os.path.join(HERE, f), os.path.join(d, mode))
        os.chmod(os.path.join(d, mode), 0o755)
    with open(out, "wb") as f:
        sh(["sh", "-c", "find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0"], cwd=d, stdout=f)
    shutil.rmtree(d)


def l2_kernel(kernel, out):
    """L2's kernel: the vmlinux (ELF, with its PVH entry note) inside the
    xz-compressed bzImage, so that L2 does not decompress its own kernel
    under nested emulation; the bzImage itself when it is not xz."""
    import lzma
    with open(kernel, "rb") as f:
        data = f.read()
    i = data.find(b"\xfd7zXZ\x00")
    if i >= 0:
        try:
            elf = lzma.LZMADecompressor().decompress(data[i:])
            if elf[:4] == b"\x7fELF":
                with open(out, "wb") as f:
                    f.write(elf)
                return "vmlinux (PVH)"
        except lzma.LZMAError:
            pass
    shutil.copy(kernel, out)
    return "bzImage"


def copy_missing_libs(state, binary):
    """The shared libraries of binary that L1's root lacks."""
    out = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = re.search(r"=> (/\S+)", line) or re.match(r"\s*(/\S+)", line)
        if not m:
            continue
        lib = m.group(1)
        name = os.path.basename(lib)
        found = any(os.path.exists(os.path.join(state, d, name)) for d in
                    ("usr/lib/x86_64-linux-gnu", "lib/x86_64-linux-gnu", "usr/lib64", "lib64"))
        if not found:
            dst = os.path.join(state, "usr/lib/x86_64-linux-gnu", name)
            shutil.copy(lib, dst)


# The templates of the VM that really runs (L2): the shipped ones with what
# L1 cannot give changed, each change made exactly once (a template that no
# longer matches fails the run, so this list follows the templates):
#   - no KVM in L1 (L0 emulates it): domain type qemu, CPU "maximum" instead
#     of host-passthrough, no KVM ioapic;
#   - no libvirt network "default" in L1 (no dnsmasq): user-mode networking;
#   - L2 boots its kernel directly (OVMF would take minutes under nested
#     emulation) and its console goes to a file L1 reads.
# Every other option QEMU must take as written: the template check starts
# the domains made from the unchanged templates (paused).
def l2_template(text, l2log):
    subs = [
        ("<domain type='kvm'>", "<domain type='qemu'>"),
        ("<cpu mode='host-passthrough' check='none'>", "<cpu mode='maximum' check='none'>"),
        ("    <ioapic driver='kvm'/>\n", ""),
        ("<interface type='network'>\n      <source network='default'/>\n",
         "<interface type='user'>\n"),
        ("<os firmware='efi'>", "<os>"),
        ("  </os>", "    <kernel>/var/lib/libvirt/images/l2-vmlinuz</kernel>\n"
         "    <initrd>/var/lib/libvirt/images/l2-initrd.cpio</initrd>\n"
         f"    <cmdline>{L2_CMDLINE}</cmdline>\n  </os>"),
        ("  </devices>", f"    <serial type='file'>\n      <source path='{l2log}'/>\n"
         "      <target port='0'/>\n    </serial>\n  </devices>"),
    ]
    for old, new in subs:
        if text.count(old) != 1:
            raise RuntimeError(f"template: {old!r} found {text.count(old)} times, not once")
        text = text.replace(old, new)
    return text


def template_answers(srcdir):
    """Answers files for the template checks, from the plans' libvirt answers
    (tests/plans/libvirt-vnc): Windows and Linux, with and without VNC, on
    L1's e1000 slot and an existing small disk image."""
    with open(os.path.join(srcdir, "tests/plans/libvirt-vnc/answers.conf")) as f:
        base = f.read()
    base = re.sub(r'^devices *=.*$', 'devices = {"0000:01:00"}', base, flags=re.M)
    out = {}
    for os_ in ("windows", "linux"):
        for vnc in (True, False):
            name = f"tpl-{os_}{'-vnc' if vnc else ''}"
            t = re.sub(r'name *= *"[^"]*"', f'name = "{name}"', base)
            t = re.sub(r'guest_os *= *\w+', f'guest_os = {os_}', t)
            t = re.sub(r'vnc *= *\w+', f'vnc = {"true" if vnc else "false"}', t)
            t = t.replace("  guest_os", "  memory_mib = 512\n  vcpus = 2\n  storage {\n"
                          "    type = image\n    path = \"/var/lib/libvirt/images/l2.img\"\n  }\n"
                          "  guest_os", 1)
            out[name] = f"# Made by check-e2e.py from tests/plans/libvirt-vnc/answers.conf\n{t}"
    return out


def make_disk(path, tree, vmroot, state, iommu, kver, args, l2):
    """L1's root file system: the cached debootstrap tree, then what the
    test adds (modules, vfiowiz, boot stand-ins, configuration)."""
    if os.path.exists(state):
        shutil.rmtree(state)
    sh(["cp", "-a", "--reflink=auto", tree, state])
    os.unlink(os.path.join(state, ".vw-complete"))

    def write(rel, text, mode=0o644, append=False):
        p = os.path.join(state, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "a" if append else "w") as f:
            f.write(text)
        os.chmod(p, mode)

    def put(src, rel, mode=None):
        p = os.path.join(state, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        if os.path.isdir(src):
            shutil.copytree(src, p, symlinks=True, dirs_exist_ok=True)
        else:
            shutil.copy(src, p)
            if mode:
                os.chmod(p, mode)

    # From check-vm's guest (tests/vm/mkimage.sh): the modules, the real-root
    # init, and the stand-ins for update-initramfs, lsinitramfs and update-grub.
    put(os.path.join(vmroot, "lib/modules"), "lib/modules")
    put(os.path.join(vmroot, "sbin/vwtest-init"), "sbin/vwtest-init", 0o755)
    for t in ("update-initramfs", "lsinitramfs", "update-grub"):
        put(os.path.join(vmroot, "usr/sbin", t), f"usr/sbin/{t}", 0o755)
    put(os.path.join(vmroot, "usr/share/initramfs-tools/hook-functions"),
        "usr/share/initramfs-tools/hook-functions")
    put(os.path.join(vmroot, "usr/lib/vwtest/base.list"), "usr/lib/vwtest/base.list")
    os.makedirs(os.path.join(state, "usr/local/bin"), exist_ok=True)
    os.symlink("/bin/busybox", os.path.join(state, "usr/local/bin/cpio"))
    put(args.vfiowiz, "usr/sbin/vfiowiz", 0o755)
    copy_missing_libs(state, args.vfiowiz)
    put(os.path.join(args.srcdir, "templates"), "usr/share/vfiowiz/templates")
    # vfiowiz's augeas lenses (L1 has only libvirt's own, without augeas-lenses).
    if os.path.isdir("/usr/share/augeas/lenses"):
        put("/usr/share/augeas/lenses", "usr/share/augeas/lenses")
    put(os.path.join(HERE, "l1step.sh"), "vwtest/guest.sh", 0o755)
    put(os.path.join(HERE, "answers/e2e.conf"), "vwtest/answers/e2e.conf")
    for name, text in template_answers(args.srcdir).items():
        write(f"vwtest/answers/{name}.conf", text)
    for t in ("libvirt-linux.xml", "libvirt-windows.xml"):
        with open(os.path.join(args.srcdir, "templates", t)) as f:
            write(f"vwtest/templates-l2/{t}", l2_template(f.read(), "/var/log/vwtest-l2.log"))
    # L2: its kernel and initramfs (booted directly), and a small disk image.
    put(args.l2_kernel, "var/lib/libvirt/images/l2-vmlinuz")
    put(l2, "var/lib/libvirt/images/l2-initrd.cpio")
    with open(os.path.join(state, "var/lib/libvirt/images/l2.img"), "wb") as f:
        f.truncate(1 << 20)

    # Users libvirt looks up before it reads qemu.conf (no
    # libvirt-daemon-system here), and a qemu.conf for a host without
    # systemd, cgroups or a security driver.
    write("etc/passwd", "libvirt-qemu:x:64055:108::/var/lib/libvirt:/usr/sbin/nologin\n",
          append=True)
    write("etc/group", "kvm:x:107:\nlibvirt-qemu:x:108:\nlibvirt:x:109:\n", append=True)
    write("etc/libvirt/qemu.conf", 'user = "root"\ngroup = "root"\nsecurity_driver = "none"\n'
          'namespaces = []\ncgroup_controllers = []\nstdio_handler = "file"\nremember_owner = 0\n')
    write("etc/hostname", "vwe2e\n")
    grub_linux = "intel_iommu=on" if iommu == "intel" else ""
    for d in ("etc/modprobe.d", "etc/default/grub.d", "etc/initramfs-tools/scripts",
              "etc/initramfs-tools/conf.d", "etc/initramfs-tools/hooks", "etc/modules-load.d",
              "boot/grub", "var/lib/vfiowiz"):
        os.makedirs(os.path.join(state, d), exist_ok=True)
    write("etc/default/grub", "GRUB_DEFAULT=0\nGRUB_TIMEOUT=5\n"
          "GRUB_DISTRIBUTOR=`lsb_release -i -s 2> /dev/null || echo Debian`\n"
          'GRUB_CMDLINE_LINUX_DEFAULT="quiet"\n'
          f'GRUB_CMDLINE_LINUX="{grub_linux}"\n')
    write("boot/grub/grub.cfg", "# (vwtest: the host boots the kernel itself)\n")
    write("boot/vwtest-cmdline", f"{grub_linux} quiet".strip() + "\n")
    write("etc/initramfs-tools/modules", "# List of modules that you want to include in your "
          "initramfs.\n")
    write("etc/initramfs-tools/initramfs.conf", "MODULES=most\nBUSYBOX=auto\nCOMPRESS=zstd\n")
    write("etc/modules", "# /etc/modules: kernel modules to load at boot time.\n")
    cfg = f"/boot/config-{kver}"
    if os.path.exists(cfg):
        shutil.copy(cfg, os.path.join(state, "boot"))
    if os.path.exists(path):
        os.unlink(path)
    used = int(subprocess.run(["du", "-sm", state], capture_output=True, text=True)
               .stdout.split()[0])
    sh(["mke2fs", "-q", "-F", "-t", "ext4", "-L", "vwe2e", "-d", state, path,
        f"{used + 400}M"], stdout=subprocess.DEVNULL)
    shutil.rmtree(state)


def debugfs_cat(disk, path):
    r = subprocess.run(["debugfs", "-R", f"cat {path}", disk], capture_output=True)
    return r.stdout.decode(errors="replace") if r.returncode == 0 else ""


def debugfs_get(disk, path, dest):
    if os.path.exists(dest):
        os.unlink(dest)
    subprocess.run(["debugfs", "-R", f"dump {path} {dest}", disk],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return os.path.exists(dest) and os.path.getsize(dest) > 0


def parse_data(text):
    secs = {}
    cur = None
    body = []
    for line in text.splitlines():
        m = re.match(r"^VWTEST begin (\S+)$", line)
        if m:
            cur, body = m.group(1), []
            continue
        m = re.match(r"^VWTEST end (\S+) rc=(\d+)(?: up=(\S+))?$", line)
        if m and cur == m.group(1):
            secs[cur] = ("\n".join(body), int(m.group(2)))
            cur = None
            continue
        if cur is not None:
            body.append(line)
    secs["_done"] = ("", 0 if re.search(r"^VWTEST done$", text, re.M) else 1)
    return secs


# ---------------------------------------------------------------- L1

class L1:
    def __init__(self, iommu, args, res, initrd, disk):
        self.iommu = iommu
        self.args = args
        self.res = res
        self.initrd = initrd
        self.disk = disk
        self.dir = os.path.dirname(disk)
        self.nboot = 0

    def boot(self, todo, label, timeout, extra=""):
        """One boot of L1; the parsed report, or None when it did not finish."""
        self.nboot += 1
        tag = f"{self.iommu} boot {self.nboot} ({label})"
        base = os.path.join(self.dir, f"boot{self.nboot}")
        grub = debugfs_cat(self.disk, "/boot/vwtest-cmdline").strip()
        initrd = self.initrd
        overlay = f"{base}.overlay.cpio"
        if debugfs_get(self.disk, f"/boot/initrd.img-{self.args.kver}", overlay):
            initrd = f"{base}.initrd.cpio"
            with open(initrd, "wb") as out:
                for part in (self.initrd, overlay):
                    with open(part, "rb") as inp:
                        shutil.copyfileobj(inp, out)
        cmdline = (f"{grub} console=ttyS0,115200 panic=-1 loglevel=4 no_timer_check "
                   f"vwtest.do={','.join(todo)} {extra}").strip()
        # TCG: L1 has no KVM to give L2 anyway, and the default CPU model
        # has the vendor of the IOMMU's machine under TCG.
        machine, accel = "q35", ["-accel", "tcg"]
        cmd = (["timeout", "-k", "5", str(timeout), "qemu-system-x86_64", "-machine", machine] +
               accel + ["-m", "2048M", "-smp", "1", "-nodefaults", "-no-reboot",
                        "-display", "none", "-monitor", "none",
                        "-kernel", self.args.kernel, "-initrd", initrd, "-append", cmdline,
                        "-serial", f"file:{base}.console.log", "-serial", f"file:{base}.data.log"] +
               (["-device", "intel-iommu,intremap=on"] if self.iommu == "intel" else []) +
               ["-device", "VGA,addr=01.0",
                "-device", "pcie-root-port,id=rp1,chassis=1,addr=02.0",
                "-device", "e1000,bus=rp1,addr=00.0,netdev=n1",
                "-netdev", "user,id=n1,restrict=on",
                "-drive", f"file={self.disk},format=raw,if=none,id=d0,cache=unsafe",
                "-device", "virtio-blk-pci,drive=d0,addr=06.0"] +
               (["-device", "amd-iommu,intremap=on"] if self.iommu == "amd" else []))
        with open(f"{base}.cmd", "w") as f:
            f.write(" ".join(cmd) + "\n")
        with Stage(tag) as st:
            with open(f"{base}.qemu.log", "w") as qf:
                p = subprocess.Popen(["nice", "-n", "10"] + cmd, stdout=qf, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
                # wait4: the CPU time of this L1 (and L2 in it) alone, a
                # measure that does not depend on how busy the host is.
                _, status, ru = os.wait4(p.pid, 0)
                p.returncode = rc = os.waitstatus_to_exitcode(status)
                st.cpu = ru.ru_utime + ru.ru_stime
        try:
            with open(f"{base}.data.log", errors="replace") as f:
                data = f.read()
        except OSError:
            data = ""
        secs = parse_data(data)
        finished = secs["_done"][1] == 0
        if not self.res.ok(f"{tag}: L1 ran its step and powered off", rc == 0 and finished,
                           f"qemu exit {rc}{' (timeout)' if rc in (124, 137) else ''}, "
                           f"see {base}.*.log"):
            show_tail(f"{base}.console.log")
            show_tail(f"{base}.data.log")
            if not finished:
                return None
        secs["_tag"] = (tag, 0)
        return secs


def show_tail(path, n=25):
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()[-n:]
    except OSError:
        return
    for line in lines:
        log(f"  | {line}")


def nic_driver(secs, name):
    for line in secs.get(name, ("", 1))[0].splitlines():
        p = line.split()
        if len(p) >= 5 and p[0] == NIC:
            return p[4]
    return "?"


def section(res, s, name, what, want_rc=0, show=True):
    tag = s["_tag"][0]
    body, rc = s.get(name, (None, None))
    ok = res.ok(f"{tag}: {what}", rc == want_rc, "section missing" if body is None else f"rc={rc}")
    if not ok and body and show:
        for line in body.splitlines()[-40:]:
            log(f"  | {line}")
    return ok, body or ""


def scenario(m, res, templates):
    args = m.args
    todo = (["templates=" + "+".join(templates)] if templates else []) + ["apply"]
    s = m.boot(todo, "templates, apply" if templates else "apply", args.boot_timeout)
    if not s:
        return
    tag = s["_tag"][0]
    section(res, s, "libvirtd", "libvirtd started")
    res.ok(f"{tag}: the e1000 {NIC} starts on e1000", nic_driver(s, "devices") == "e1000",
           nic_driver(s, "devices"))
    if templates:
        for name in sorted(k for k in s if k.startswith("tpl-")):
            ok, body = section(res, s, name, f"template {name}: defined and started paused by "
                               "libvirt (QEMU takes its options)")
            if ok:
                st = re.search(r"^state: (.*)$", body, re.M)
                res.ok(f"{tag}: template {name}: domain state paused", st and st.group(1) == "paused",
                       st.group(1) if st else "no state")
                res.ok(f"{tag}: template {name}: QEMU runs with the UEFI firmware (OVMF) libvirt chose",
                       re.search(r"-blockdev \S*OVMF_CODE\S*\.fd", body) is not None)
                vnc = re.search(r"-vnc (\S+)", body)
                # A new Windows VM keeps a loopback VNC display for its
                # installation even without VNC access (issue 15).
                want_vnc = name.endswith("-vnc") or name.startswith("tpl-windows")
                res.ok(f"{tag}: template {name}: " + ("VNC on 127.0.0.1" if want_vnc else "no VNC"),
                       (vnc is not None and vnc.group(1).startswith("127.0.0.1:"))
                       if want_vnc else vnc is None, vnc.group(0) if vnc else "no -vnc")
                res.ok(f"{tag}: template {name}: the e1000 is given to QEMU with vfio-pci",
                       re.search(r'"driver":"vfio-pci","host":"0000:01:00.0"', body) is not None)
            if args.verbose and ok:
                for line in body.splitlines():
                    log(f"  | {line}")
        got = sorted(k[4:] for k in s if k.startswith("tpl-"))
        res.ok(f"{tag}: templates {', '.join(templates)} checked", got == sorted(templates), str(got))
    ok, body = section(res, s, "apply", "vfiowiz apply --answers e2e.conf --yes exits 0")
    if not ok:
        return
    res.ok(f"{tag}: apply defined the libvirt domain e2e-l2",
           "e2e-l2" in s.get("domains", ("", 1))[0].split(), s.get("domains", ("", 1))[0])

    s = m.boot(["verify", "run", "undo"], "verify, virsh start, undo", args.boot_timeout +
               args.l2_timeout + 60, f"vwtest.l2timeout={args.l2_timeout}")
    if not s:
        return
    tag = s["_tag"][0]
    res.ok(f"{tag}: after the reboot the e1000 is on vfio-pci", nic_driver(s, "devices") == "vfio-pci",
           nic_driver(s, "devices"))
    _, body = section(res, s, "verify", "the wizard's Verify step ran")
    vok = re.search(r"It worked: the VM's devices belong to vfio-pci", body) and \
        re.search(r"^ . ok +vfio-pci owns the 1 device of the VM\.", body, re.M)
    if not res.ok(f"{tag}: vfiowiz's Verify says it worked: vfio-pci owns the device", vok):
        for line in body.splitlines()[-40:]:
            log(f"  | {line}")
    ok, body = section(res, s, "run", "virsh start of e2e-l2, the L2 guest reported, virsh destroy")
    if ok:
        log("\n".join(f"  | {l}" for l in body.splitlines()
                      if l.startswith(("L2 ", "L1 ", "started", "destroy"))))
    pci = re.findall(r"^L2 pci (\S+) (\S+) (\S+)$", body, re.M)
    nic = [p for p in pci if p[1] == "0x8086:0x100e"]
    res.ok(f"{tag}: L2 sees the passed-through device 8086:100e", len(nic) == 1, str(pci))
    res.ok(f"{tag}: L2's e1000 driver binds it", nic and nic[0][2] == "e1000", str(nic))
    link = re.search(r"^L2 link (\S+) (\S+) (\S+)$", body, re.M)
    res.ok(f"{tag}: L2's e1000 has a link", link and link.group(2) == "1" and link.group(3) == "up",
           link.group(0) if link else "no link line")
    lease = re.search(r"^L2 lease (\S+)$", body, re.M)
    if lease is None and m.iommu == "amd":
        # Seen on every AMD run: the device is there, bound, link up, and
        # 20 DHCP discovers get no offer, while the same L1 and L2 on the
        # emulated Intel IOMMU get a lease at the first one: QEMU 7.2's
        # amd-iommu emulation does not deliver what the NIC assigned in L1
        # receives.  Reported, not counted (tests/e2e/README).
        log(f"KNOWN: {tag}: no DHCP lease through the NIC behind the emulated AMD IOMMU")
    else:
        res.ok(f"{tag}: L2 gets a DHCP lease through it", lease is not None,
               "no lease line")
    res.ok(f"{tag}: while L2 runs L1's e1000 is on vfio-pci",
           re.search(rf"^L1 while L2 runs: {NIC} on vfio-pci$", body, re.M) is not None)
    if lease:
        log(f"check-e2e: {m.iommu}: L2 lease {lease.group(1)}")
    section(res, s, "undo", "vfiowiz undo --yes exits 0")
    doms = s.get("domains-after-undo", ("?", 1))[0].split()
    res.ok(f"{tag}: after undo libvirt no longer holds the domain e2e-l2", "e2e-l2" not in doms,
           f"virsh list --all: {' '.join(doms)}")

    s = m.boot(["none"], "after undo", args.boot_timeout)
    if not s:
        return
    tag = s["_tag"][0]
    res.ok(f"{tag}: after undo and a reboot the e1000 is back on e1000",
           nic_driver(s, "devices") == "e1000", nic_driver(s, "devices"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    top_b = os.environ.get("top_builddir", ".")
    top_s = os.environ.get("top_srcdir", os.path.join(HERE, "..", ".."))
    cache = os.environ.get("VW_E2E_CACHE") or (
        "/var/cache/vfiowiz-e2e" if os.geteuid() == 0 else
        os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                     "vfiowiz-e2e"))
    ap.add_argument("--vfiowiz", default=os.environ.get("VFIOWIZ", os.path.join(top_b, "vfiowiz")))
    ap.add_argument("--srcdir", default=top_s)
    ap.add_argument("--cache", default=cache)
    ap.add_argument("--workdir", default=os.environ.get("VW_E2E_WORKDIR",
                                                         os.path.join(top_b, "tests", "e2e", "out")))
    ap.add_argument("--only", choices=["intel", "amd"], default=os.environ.get("VW_E2E_ONLY") or None)
    ap.add_argument("--boot-timeout", type=int, default=int(os.environ.get("VW_E2E_BOOT_TIMEOUT",
                                                                           "300")))
    ap.add_argument("--l2-timeout", type=int, default=int(os.environ.get("VW_E2E_L2_TIMEOUT", "600")))
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    args.vfiowiz = os.path.abspath(args.vfiowiz)
    args.srcdir = os.path.abspath(args.srcdir)
    args.workdir = os.path.abspath(args.workdir)
    t_start = time.monotonic()
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)

    if not os.access(args.vfiowiz, os.X_OK):
        log(f"check-e2e: SKIP: no vfiowiz binary at {args.vfiowiz} (build it first)")
        return SKIP
    if os.geteuid() != 0:
        log("check-e2e: SKIP: needs root (debootstrap, and libvirt in L1 runs as root)")
        return SKIP
    with Stage("host packages"):
        miss = missing_tools()
        if miss and not install(miss, args.workdir):
            log(f"check-e2e: SKIP: missing {' '.join(miss)} and could not install them "
                "(as root: apt-get install " + " ".join(PACKAGES) + ")")
            return SKIP
        miss = missing_tools()
        if miss:
            log(f"check-e2e: SKIP: still missing after apt-get: {' '.join(miss)}")
            return SKIP
    args.kernel, args.kver = find_kernel()
    log(f"check-e2e: kernel {args.kernel}, cache {args.cache}")

    res = Result()
    with Stage("L1 root (debootstrap, cached)"):
        r = subprocess.run(["sh", os.path.join(HERE, "mkroot.sh"), args.cache],
                           capture_output=True, text=True)
        sys.stderr.write(r.stderr)
        if r.returncode == SKIP:
            log("check-e2e: SKIP: no L1 root file system (debootstrap failed, see above)")
            return SKIP
        if not res.ok("L1 root file system (tests/e2e/mkroot.sh)", r.returncode == 0, r.stderr[-500:]):
            print(f"{res.passed} passed, {res.failed} failed", flush=True)
            return 1
        tree = r.stdout.strip().splitlines()[-1]
    with Stage("L1 and L2 images"):
        vmdir = os.path.join(args.workdir, "vm")
        r = subprocess.run(["sh", os.path.join(args.srcdir, "tests/vm/mkimage.sh"), args.kver,
                            args.vfiowiz, args.srcdir, vmdir])
        if not res.ok("initramfs and stand-ins (tests/vm/mkimage.sh)", r.returncode == 0):
            print(f"{res.passed} passed, {res.failed} failed", flush=True)
            return 1
        l2 = os.path.join(args.workdir, "l2-initrd.cpio")
        make_l2_initrd(args.kver, l2)
        args.l2_kernel = os.path.join(args.workdir, "l2-vmlinuz")
        log(f"check-e2e: L2 kernel: {l2_kernel(args.kernel, args.l2_kernel)}")
        machines = []
        for iommu in ("intel", "amd"):
            if args.only not in (None, iommu):
                continue
            d = os.path.join(args.workdir, iommu)
            os.makedirs(d)
            disk = os.path.join(d, "disk.img")
            make_disk(disk, tree, os.path.join(vmdir, "root"), os.path.join(d, "state"), iommu,
                      args.kver, args, l2)
            machines.append(L1(iommu, args, res, os.path.join(vmdir, "initrd.cpio"), disk))
    # Two L1s side by side (one QEMU process each, one core each); the
    # template documents do not depend on the IOMMU: each L1 starts half.
    names = sorted(template_answers(args.srcdir)) if os.environ.get("VW_E2E_TEMPLATES", "1") != "0" \
        else []
    names = [n[4:] for n in names]
    parts = [names[i::len(machines)] for i in range(len(machines))]
    threads = [threading.Thread(target=scenario, args=(m, res, parts[i]))
               for i, m in enumerate(machines)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    log("check-e2e: timings")
    for name, dt in Stage.times:
        log(f"  {name}: {dt}")
    log(f"  total: {time.monotonic() - t_start:.1f} s (logs in {args.workdir})")
    if res.failures:
        log("check-e2e: failed: " + "; ".join(res.failures))
    print(f"{res.passed} passed, {res.failed} failed", flush=True)
    return 1 if res.failed else 0


if __name__ == "__main__":
    sys.exit(main())
