/* SPDX-License-Identifier: GPL-2.0-or-later */
/* snapshot.c - capture a host into a redacted, sysroot-shaped archive, and
 * import one into a private folder.
 *
 * Capture is a fixed list of what the probes, the back ends and a support
 * engineer read, walked through the sysroot (so links resolve inside it).
 * Everything is collected in memory first, so that the user can see what
 * will be written before anything is. */
#define _GNU_SOURCE
#include "snapshot.h"

#include "exec.h"
#include "facts.h"
#include "redact.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CMD_TIMEOUT_MS (20 * 1000)
#define SYSFS_MAX 65536
#define CONFIG_SPACE 4096

/* ---- what is captured --------------------------------------------------- */

/* Attributes of each PCI function (docs/formats.md section 14, plus what the
 * troubleshooting steps look at: D3cold, overrides, SR-IOV). */
static const char *const pci_attrs[] = {
	"vendor", "device", "class", "subsystem_vendor", "subsystem_device", "revision",
	"numa_node", "boot_vga", "reset_method", "current_link_speed", "current_link_width",
	"max_link_speed", "max_link_width", "modalias", "resource", "irq", "local_cpulist",
	"d3cold_allowed", "driver_override", "enable", "power_state", "sriov_totalvfs",
	"sriov_numvfs", "label", "acpi_index",
};

/* Single files, copied when present. */
static const struct {
	const char *path;
	enum vw_snap_area area;
	bool text;		/* redact */
} files[] = {
	{ "proc/cpuinfo", VW_AREA_PROC, false },
	{ "proc/cmdline", VW_AREA_PROC, true },
	{ "proc/meminfo", VW_AREA_PROC, false },
	{ "proc/version", VW_AREA_PROC, true },
	{ "proc/modules", VW_AREA_PROC, false },
	{ "proc/interrupts", VW_AREA_PROC, false },
	{ "proc/sys/kernel/osrelease", VW_AREA_PROC, false },
	{ "proc/sys/kernel/hostname", VW_AREA_PROC, true },
	{ "proc/1/cgroup", VW_AREA_PROC, false },
	{ "proc/mounts", VW_AREA_PROC, true },
	{ "proc/self/mounts", VW_AREA_PROC, true },
	{ "proc/swaps", VW_AREA_PROC, true },
	/* The host roles (facts.h): routes in hex, not redacted (the host's
	 * networks and gateways, no person's address); input device names
	 * and ids redacted like any text. */
	{ "proc/net/route", VW_AREA_PROC, false },
	{ "proc/net/ipv6_route", VW_AREA_PROC, false },
	{ "proc/bus/input/devices", VW_AREA_PROC, true },
	{ "proc/sys/kernel/random/boot_id", VW_AREA_PROC, true },
	{ "proc/driver/nvidia/version", VW_AREA_PROC, false },
	{ "sys/module/nvidia/version", VW_AREA_SYS, false },
	{ "proc/config.gz", VW_AREA_PROC, false },
	{ "sys/hypervisor/type", VW_AREA_SYS, false },
	{ "sys/class/dmi/id/sys_vendor", VW_AREA_SYS, false },
	{ "sys/class/dmi/id/product_name", VW_AREA_SYS, false },
	{ "sys/class/dmi/id/product_version", VW_AREA_SYS, true },
	{ "sys/class/dmi/id/board_vendor", VW_AREA_SYS, false },
	{ "sys/class/dmi/id/board_name", VW_AREA_SYS, false },
	{ "sys/class/dmi/id/bios_vendor", VW_AREA_SYS, false },
	{ "sys/class/dmi/id/bios_version", VW_AREA_SYS, false },
	{ "sys/class/dmi/id/bios_date", VW_AREA_SYS, false },
	{ "sys/firmware/efi/efivars/LoaderInfo-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f", VW_AREA_SYS, false },
	{ "run/systemd/container", VW_AREA_SYS, false },
	{ "etc/os-release", VW_AREA_CONFIG, true },
	{ "usr/lib/os-release", VW_AREA_CONFIG, true },
	{ "etc/hostname", VW_AREA_CONFIG, true },
	{ "etc/fstab", VW_AREA_CONFIG, true },
	{ "etc/default/grub", VW_AREA_CONFIG, true },
	{ "etc/modules", VW_AREA_CONFIG, true },
	{ "etc/initramfs-tools/modules", VW_AREA_CONFIG, true },
	{ "etc/initramfs-tools/initramfs.conf", VW_AREA_CONFIG, true },
	{ "etc/dracut.conf", VW_AREA_CONFIG, true },
	{ "etc/mkinitcpio.conf", VW_AREA_CONFIG, true },
	{ "etc/booster.yaml", VW_AREA_CONFIG, true },
	{ "etc/kernel/cmdline", VW_AREA_CONFIG, true },
	{ "etc/kernel/install.conf", VW_AREA_CONFIG, true },
	{ "usr/lib/kernel/cmdline", VW_AREA_CONFIG, true },
	{ "etc/pve/storage.cfg", VW_AREA_CONFIG, true },
	{ "etc/pve/corosync.conf", VW_AREA_CONFIG, true },
	{ "etc/kernelstub/configuration", VW_AREA_CONFIG, true },
	{ "boot/grub/grub.cfg", VW_AREA_CONFIG, true },
	{ "boot/grub2/grub.cfg", VW_AREA_CONFIG, true },
	{ "boot/efi/loader/loader.conf", VW_AREA_CONFIG, true },
	{ "efi/loader/loader.conf", VW_AREA_CONFIG, true },
	{ "boot/loader/loader.conf", VW_AREA_CONFIG, true },
	{ "var/lib/vfiowiz/state.conf", VW_AREA_STATE, true },
};

/* Directories whose files are all copied (not recursive); the directory
 * itself is kept even when empty, since its existence is evidence. */
static const struct {
	const char *dir;
	const char *suffix;	/* only names ending so, or NULL */
} dirs[] = {
	{ "etc/default/grub.d", NULL },
	{ "etc/modprobe.d", NULL },
	{ "usr/lib/modprobe.d", NULL },
	{ "lib/modprobe.d", NULL },
	{ "etc/modules-load.d", NULL },
	{ "etc/initramfs-tools/conf.d", NULL },
	{ "etc/dracut.conf.d", NULL },
	{ "etc/mkinitcpio.conf.d", NULL },
	{ "etc/driverctl.d", NULL },
	{ "etc/pve/qemu-server", ".conf" },
	{ "etc/libvirt/qemu", ".xml" },
	{ "boot/efi/loader/entries", NULL },
	{ "efi/loader/entries", NULL },
	{ "boot/loader/entries", NULL },
	{ "sys/module/vfio_pci/parameters", NULL },
	{ "sys/module/vfio_iommu_type1/parameters", NULL },
	{ "sys/module/vfio/parameters", NULL },
	{ "sys/module/kvm/parameters", NULL },
	{ "sys/module/kvm_intel/parameters", NULL },
	{ "sys/module/kvm_amd/parameters", NULL },
};

/* Present or not: stored as empty files (or empty directories). */
static const char *const tools[] = {
	"grubby", "booster", "mkinitcpio", "mkinitramfs", "update-initramfs", "dracut",
	"lsinitramfs", "lsinitrd", "lsinitcpio", "update-grub", "grub-mkconfig", "grub2-mkconfig",
	"proxmox-boot-tool", "kernelstub", "kernel-install", "bootctl", "efibootmgr", "pveversion",
	"qm", "virsh", "driverctl", "nvidia-smi", "modprobe", "libvirtd", "virtqemud", "nft",
	"sshd", "dropbear",
};
static const char *const tool_dirs[] = { "usr/sbin", "usr/bin", "sbin", "bin" };
static const char *const markers[] = {
	".dockerenv", "run/.containerenv",
};
static const char *const marker_dirs[] = {
	"usr/share/perl5/PVE", "etc/pve", "etc/initramfs-tools", "sys/firmware/efi",
	"sys/firmware/efi/efivars", "sys/class/dmi/id", "sys/class/iommu", "sys/kernel/iommu_groups",
	"sys/bus/pci/devices", "sys/bus/pci/drivers",
};

/* Commands: their recordings are what core/exec.h replays.  "@REL@" in a
 * word is the kernel release. */
static const char *const cmd_topo[] = { "nvidia-smi", "topo", "-m", NULL };
static const char *const cmd_busid[] = { "nvidia-smi", "--query-gpu=index,pci.bus_id",
					 "--format=csv,noheader", NULL };
static const char *const cmd_nvlink[] = { "nvidia-smi", "nvlink", "-s", NULL };
static const char *const cmd_p2p[] = { "nvidia-smi", "topo", "-p2p", "rw", NULL };
static const char *const cmd_query[] = { "nvidia-smi", "-q", NULL };
static const char *const cmd_mig_mode[] = { "nvidia-smi",
	"--query-gpu=index,pci.bus_id,mig.mode.current,mig.mode.pending", "--format=csv,noheader", NULL };
static const char *const cmd_mig_lgip[] = { "nvidia-smi", "mig", "-lgip", NULL };
static const char *const cmd_dmesg[] = { "dmesg", NULL };
static const char *const cmd_lsinitramfs[] = { "lsinitramfs", "@BOOT@initrd.img-@REL@", NULL };
static const char *const cmd_lsinitrd[] = { "lsinitrd", "@BOOT@initramfs-@REL@.img", NULL };
static const char *const cmd_lsinitcpio[] = { "lsinitcpio", "@BOOT@initramfs-linux.img", NULL };
static const char *const cmd_lsinitcpio_zen[] = { "lsinitcpio", "@BOOT@initramfs-linux-zen.img", NULL };
static const char *const cmd_lsinitcpio_lts[] = { "lsinitcpio", "@BOOT@initramfs-linux-lts.img", NULL };
static const char *const cmd_lsinitcpio_hard[] = { "lsinitcpio", "@BOOT@initramfs-linux-hardened.img",
						   NULL };
static const char *const cmd_lsinitcpio_rt[] = { "lsinitcpio", "@BOOT@initramfs-linux-rt.img", NULL };
static const char *const cmd_booster[] = { "booster", "ls", "@BOOT@booster-linux.img", NULL };
static const char *const cmd_bootctl[] = { "bootctl", "status", NULL };
static const char *const cmd_pbt[] = { "proxmox-boot-tool", "status", NULL };
static const char *const cmd_efibootmgr[] = { "efibootmgr", "-v", NULL };

static const struct vw_snap_cmd commands[] = {
	{ cmd_topo, N_("NVLink topology") },
	{ cmd_busid, N_("GPU indexes and PCI addresses") },
	{ cmd_nvlink, N_("NVLink link status") },
	{ cmd_p2p, N_("GPU peer-to-peer status") },
	{ cmd_query, N_("NVIDIA driver and GPU details") },
	{ cmd_mig_mode, N_("MIG mode of the NVIDIA GPUs") },
	{ cmd_mig_lgip, N_("MIG GPU instance profiles") },
	{ cmd_dmesg, N_("kernel messages about the IOMMU, VFIO and GPUs") },
	{ cmd_lsinitramfs, N_("initramfs contents (initramfs-tools)") },
	{ cmd_lsinitrd, N_("initramfs contents (dracut)") },
	{ cmd_lsinitcpio, N_("initramfs contents (mkinitcpio)") },
	{ cmd_lsinitcpio_zen, N_("initramfs contents (mkinitcpio)") },
	{ cmd_lsinitcpio_lts, N_("initramfs contents (mkinitcpio)") },
	{ cmd_lsinitcpio_hard, N_("initramfs contents (mkinitcpio)") },
	{ cmd_lsinitcpio_rt, N_("initramfs contents (mkinitcpio)") },
	{ cmd_booster, N_("initramfs contents (booster)") },
	{ cmd_bootctl, N_("systemd-boot status") },
	{ cmd_pbt, N_("proxmox-boot-tool status") },
	{ cmd_efibootmgr, N_("EFI boot entries") },
};

/* dmesg lines worth keeping: the rest says too much about the machine and
 * too little about passthrough. */
static const char *const dmesg_words[] = {
	"dmar", "iommu", "amd-vi", "ivrs", "vfio", "acs", "remapping", "vmx", "svm", "nvrm",
	"nvidia", "nouveau", "amdgpu", "radeon", "i915", "vgaarb", "efifb", "simpledrm",
	"d3cold", "aer", "pci-dma", "x2apic", "virtualization",
};

const struct vw_snap_cmd *vw_snapshot_commands(size_t *n)
{
	*n = VW_ARRAY_SIZE(commands);
	return commands;
}

/* ---- collection --------------------------------------------------------- */

struct ctx {
	const struct vw_sysroot *sr;
	struct vw_snapshot *snap;
	struct vw_redact *red;
	const struct vw_snapshot_opts *opts;
	char *release;
};

static void note(struct vw_snapshot *s, char *msg)
{
	s->notes = vw_xreallocarray(s->notes, s->nnotes + 1, sizeof(*s->notes));
	s->notes[s->nnotes++] = msg;
}

static struct vw_snap_entry *add(struct vw_snapshot *s, const char *path, enum vw_snap_type type,
				 enum vw_snap_area area)
{
	struct vw_snap_entry *e;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->v = vw_xreallocarray(s->v, s->cap, sizeof(*s->v));
	}
	e = &s->v[s->n];
	memset(e, 0, sizeof(*e));
	e->path = vw_xstrdup(path);
	e->type = type;
	e->area = area;
	e->mode = type == VW_SNAP_DIR ? 0755 : type == VW_SNAP_LINK ? 0777 : 0644;
	e->seq = s->n++;
	return e;
}

static void add_dir(struct ctx *c, const char *path, enum vw_snap_area area)
{
	struct vw_snap_entry *e = add(c->snap, path, VW_SNAP_DIR, area);

	e->data = vw_xstrdup("");
}

static void add_data(struct ctx *c, const char *path, enum vw_snap_area area, char *data, size_t len,
		     size_t reds)
{
	struct vw_snap_entry *e = add(c->snap, path, VW_SNAP_FILE, area);

	e->data = data;
	e->len = len;
	e->redactions = reds;
}

/* A text file made here (not read): s is taken over. */
static void add_text(struct ctx *c, const char *path, enum vw_snap_area area, char *s)
{
	add_data(c, path, area, s, strlen(s), 0);
}

static void add_link(struct ctx *c, const char *path, const char *target, enum vw_snap_area area)
{
	struct vw_snap_entry *e = add(c->snap, path, VW_SNAP_LINK, area);

	e->data = vw_xstrdup(target);
	e->len = strlen(target);
}

/* Target of the link at rel, read under the root; NULL when rel is not a
 * link.  Caller frees. */
static char *read_link(const struct vw_sysroot *sr, const char *rel)
{
	const char *slash = strrchr(rel, '/');
	char *dir = slash ? vw_xstrndup(rel, (size_t)(slash - rel)) : vw_xstrdup(".");
	char buf[PATH_MAX];
	ssize_t n;
	int fd = vw_sysroot_openat(sr, dir, O_PATH | O_DIRECTORY, 0);

	free(dir);
	if (fd < 0)
		return NULL;
	n = readlinkat(fd, slash ? slash + 1 : rel, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return vw_xstrdup(buf);
}

/* Where a (checked) relative link at path leads, as an archive name. */
static char *resolve_lex(const char *path, const char *target)
{
	char *dir = vw_xstrdup(path), *r;
	char *slash = strrchr(dir, '/');
	const char *p = target;

	if (slash)
		*slash = '\0';
	else
		dir[0] = '\0';
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 2 && !strncmp(p, "..", 2)) {
			slash = strrchr(dir, '/');
			if (slash)
				*slash = '\0';
			else
				dir[0] = '\0';
		} else if (n && !(n == 1 && *p == '.')) {
			char *next = *dir ? vw_xasprintf("%s/%.*s", dir, (int)n, p)
					  : vw_xasprintf("%.*s", (int)n, p);
			free(dir);
			dir = next;
		}
		p += n;
		while (*p == '/')
			p++;
	}
	r = vw_tar_clean_name(dir, NULL);
	free(dir);
	return r ? r : vw_xstrdup("");
}

/* A link as the kernel made it, if it stays inside; its target directory
 * is kept too (empty) when it exists, so that the link resolves as it did
 * (libpci reads a driver only through a link that resolves).  Returns the
 * resolved target or NULL. */
static char *keep_link(struct ctx *c, const char *rel, enum vw_snap_area area, bool target_dir)
{
	char *t = read_link(c->sr, rel), *res;

	if (!t)
		return NULL;
	if (!vw_tar_link_ok(rel, t)) {
		note(c->snap, vw_xasprintf(_("/%s: left out, its link leads outside the tree (%s)"), rel, t));
		free(t);
		return NULL;
	}
	add_link(c, rel, t, area);
	res = resolve_lex(rel, t);
	if (target_dir && *res && vw_sysroot_is_dir(c->sr, res))
		add_dir(c, res, area);
	free(t);
	return res;
}

/* Copy one file; text files are redacted.  Missing files are silently
 * skipped, other failures noted. */
static bool copy_file(struct ctx *c, const char *rel, const char *as, enum vw_snap_area area, bool text,
		      size_t max)
{
	char *buf;
	size_t len, reds = 0;
	struct vw_err err = { 0 };
	int r = vw_sysroot_read(c->sr, rel, &buf, &len, max, &err);

	if (r == -ENOENT || r == -ENOTDIR || r == -EISDIR || r == -ELOOP)
		return false;
	if (r < 0) {
		/* Unreadable for lack of rights (ACPI tables as non-root):
		 * keep an empty file, since its existence is evidence. */
		if (r == -EACCES || r == -EPERM) {
			add_data(c, as, area, vw_xstrdup(""), 0, 0);
			note(c->snap, vw_xasprintf(_("/%s: not readable (run as root for its contents)"), rel));
			return true;
		}
		note(c->snap, vw_xasprintf(_("/%s: left out: %s"), rel, err.msg));
		return false;
	}
	if (text) {
		char *red = vw_redact_text(c->red, buf, len, &len, &reds);
		free(buf);
		buf = red;
	}
	add_data(c, as, area, buf, len, reds);
	return true;
}

/* Zero the Device Serial Number capability (PCIe extended capability 3)
 * in a config space dump. */
static void zero_dsn(unsigned char *cfg, size_t len)
{
	size_t off = 0x100;

	for (int guard = 0; guard < 512 && off >= 0x100 && off + 4 <= len; guard++) {
		uint32_t h = (uint32_t)cfg[off] | (uint32_t)cfg[off + 1] << 8 |
			     (uint32_t)cfg[off + 2] << 16 | (uint32_t)cfg[off + 3] << 24;

		if (h == 0 || h == 0xffffffffu)
			break;
		if ((h & 0xffff) == 0x0003 && off + 12 <= len)
			memset(cfg + off + 4, 0, 8);
		off = (h >> 20) & 0xffc;
	}
}

static void collect_pci_dev(struct ctx *c, const char *name)
{
	char *rel = vw_xasprintf("sys/bus/pci/devices/%s", name), *devdir, *p;

	devdir = keep_link(c, rel, VW_AREA_PCI, false);
	if (!devdir) {
		char *t = read_link(c->sr, rel);
		bool plain = !t && vw_sysroot_is_dir(c->sr, rel);

		free(t);
		if (!plain) {
			free(rel);
			return;
		}
		devdir = vw_xstrdup(rel);
	}
	add_dir(c, devdir, VW_AREA_PCI);
	for (size_t i = 0; i < VW_ARRAY_SIZE(pci_attrs); i++) {
		p = vw_xasprintf("%s/%s", devdir, pci_attrs[i]);
		copy_file(c, p, p, VW_AREA_PCI, false, SYSFS_MAX);
		free(p);
	}
	p = vw_xasprintf("%s/config", devdir);
	if (copy_file(c, p, p, VW_AREA_PCI, false, CONFIG_SPACE)) {
		struct vw_snap_entry *e = &c->snap->v[c->snap->n - 1];
		zero_dsn((unsigned char *)e->data, e->len);
	}
	free(p);
	p = vw_xasprintf("%s/driver", devdir);
	free(keep_link(c, p, VW_AREA_PCI, true));
	free(p);
	p = vw_xasprintf("%s/iommu_group", devdir);
	free(keep_link(c, p, VW_AREA_PCI, true));
	free(p);
	free(devdir);
	free(rel);
}

static void collect_list(struct ctx *c, const char *dir, char ***names)
{
	if (vw_sysroot_list(c->sr, dir, names) < 0)
		*names = NULL;
}

static void collect_pci(struct ctx *c)
{
	char **names;

	collect_list(c, "sys/bus/pci/devices", &names);
	for (char **n = names; n && *n; n++)
		collect_pci_dev(c, *n);
	vw_strv_free(names);

	collect_list(c, "sys/bus/pci/slots", &names);
	for (char **n = names; n && *n; n++) {
		char *p = vw_xasprintf("sys/bus/pci/slots/%s/address", *n);
		copy_file(c, p, p, VW_AREA_PCI, false, SYSFS_MAX);
		free(p);
	}
	vw_strv_free(names);
}

static void collect_iommu(struct ctx *c)
{
	static const char *const unit_files[] = {
		"intel-iommu/cap", "intel-iommu/ecap", "intel-iommu/version",
		"amd-iommu/cap", "amd-iommu/features",
	};
	char **groups, **units;

	collect_list(c, "sys/kernel/iommu_groups", &groups);
	for (char **g = groups; g && *g; g++) {
		char *base = vw_xasprintf("sys/kernel/iommu_groups/%s", *g), *p, **devs;

		add_dir(c, base, VW_AREA_SYS);
		p = vw_xasprintf("%s/type", base);
		copy_file(c, p, p, VW_AREA_SYS, false, SYSFS_MAX);
		free(p);
		p = vw_xasprintf("%s/reserved_regions", base);
		copy_file(c, p, p, VW_AREA_SYS, false, SYSFS_MAX);
		free(p);
		p = vw_xasprintf("%s/devices", base);
		if (vw_sysroot_is_dir(c->sr, p))
			add_dir(c, p, VW_AREA_SYS);
		collect_list(c, p, &devs);
		free(p);
		for (char **d = devs; d && *d; d++) {
			p = vw_xasprintf("%s/devices/%s", base, *d);
			free(keep_link(c, p, VW_AREA_SYS, false));
			free(p);
		}
		vw_strv_free(devs);
		free(base);
	}
	vw_strv_free(groups);

	collect_list(c, "sys/class/iommu", &units);
	for (char **u = units; u && *u; u++) {
		char *rel = vw_xasprintf("sys/class/iommu/%s", *u);
		char *dir = keep_link(c, rel, VW_AREA_SYS, true);

		if (!dir && vw_sysroot_is_dir(c->sr, rel)) {
			dir = vw_xstrdup(rel);
			add_dir(c, dir, VW_AREA_SYS);
		}
		for (size_t i = 0; dir && i < VW_ARRAY_SIZE(unit_files); i++) {
			char *p = vw_xasprintf("%s/%s", dir, unit_files[i]);
			copy_file(c, p, p, VW_AREA_SYS, false, SYSFS_MAX);
			free(p);
		}
		free(dir);
		free(rel);
	}
	vw_strv_free(units);

	for (const char *const *t = (const char *const[]){ "DMAR", "IVRS", "MCFG", NULL }; *t; t++) {
		char *p = vw_xasprintf("sys/firmware/acpi/tables/%s", *t);

		if (vw_sysroot_exists(c->sr, p) && copy_file(c, p, p, VW_AREA_SYS, false, 1u << 20))
			c->snap->v[c->snap->n - 1].mode = 0400;
		free(p);
	}
}

/* Disks, for the VM storage step: sys/block/NAME (a link into the device
 * tree, as the kernel has it), the attributes the storage probe reads, the
 * partitions, the dm/md stacking, and /dev/disk/by-id links (their names
 * hold serial numbers: redacted).  Device contents (partition tables, file
 * systems) cannot be captured: a replay shows the disks without them. */
static void collect_storage(struct ctx *c)
{
	static const char *const disk_attrs[] = { "size", "removable", "ro", "queue/rotational",
						  "dm/name" };
	char **names, **ids;

	collect_list(c, "sys/block", &names);
	for (char **n = names; n && *n; n++) {
		char *rel = vw_xasprintf("sys/block/%s", *n), *dir, *p, *dev, **sub;

		dir = keep_link(c, rel, VW_AREA_SYS, true);
		if (!dir) {
			free(rel);
			continue;
		}
		for (size_t i = 0; i < VW_ARRAY_SIZE(disk_attrs); i++) {
			p = vw_xasprintf("%s/%s", dir, disk_attrs[i]);
			copy_file(c, p, p, VW_AREA_SYS, false, SYSFS_MAX);
			free(p);
		}
		p = vw_xasprintf("%s/device", dir);
		dev = keep_link(c, p, VW_AREA_SYS, true);
		free(p);
		if (dev) {
			p = vw_xasprintf("%s/model", dev);
			copy_file(c, p, p, VW_AREA_SYS, false, SYSFS_MAX);
			free(p);
			p = vw_xasprintf("%s/serial", dev);
			copy_file(c, p, p, VW_AREA_SYS, true, SYSFS_MAX);
			free(p);
			free(dev);
		}
		collect_list(c, dir, &sub);
		for (char **e = sub; e && *e; e++) {
			char *base = vw_xasprintf("%s/%s", dir, *e);

			if (!strcmp(*e, "slaves") || !strcmp(*e, "holders")) {
				char **links;

				add_dir(c, base, VW_AREA_SYS);
				collect_list(c, base, &links);
				for (char **l = links; l && *l; l++) {
					p = vw_xasprintf("%s/%s", base, *l);
					free(keep_link(c, p, VW_AREA_SYS, false));
					free(p);
				}
				vw_strv_free(links);
			} else if (vw_startswith(*e, *n)) {
				/* A partition: sda1, nvme0n1p1. */
				static const char *const part_attrs[] = { "partition", "start", "size" };

				for (size_t i = 0; i < VW_ARRAY_SIZE(part_attrs); i++) {
					p = vw_xasprintf("%s/%s", base, part_attrs[i]);
					copy_file(c, p, p, VW_AREA_SYS, false, SYSFS_MAX);
					free(p);
				}
			}
			free(base);
		}
		vw_strv_free(sub);
		free(dir);
		free(rel);
	}
	vw_strv_free(names);

	collect_list(c, "dev/disk/by-id", &ids);
	for (char **n = ids; n && *n; n++) {
		char *rel = vw_xasprintf("dev/disk/by-id/%s", *n), *t = read_link(c->sr, rel);
		char *red, *as;
		size_t len;

		red = vw_redact_text(c->red, *n, strlen(*n), &len, NULL);
		as = vw_xasprintf("dev/disk/by-id/%s", red);
		if (t && !strchr(red, '/') && vw_tar_link_ok(as, t))
			add_link(c, as, t, VW_AREA_SYS);
		free(as);
		free(red);
		free(t);
		free(rel);
	}
	vw_strv_free(ids);
}

/* Network interfaces: their PCI function (IF/device) and what they sit on
 * (lower_IF: bridges, bonds, VLANs), as links; nothing else of them.  The
 * SSH session is not recorded (it names the client's address): a tree that
 * already holds one (a replayed snapshot, a fixture) keeps it. */
static void collect_net(struct ctx *c)
{
	char **names;

	collect_list(c, "sys/class/net", &names);
	for (char **n = names; n && *n; n++) {
		char *rel = vw_xasprintf("sys/class/net/%s", *n), *dir, *p, **sub;

		dir = keep_link(c, rel, VW_AREA_SYS, true);
		free(rel);
		if (!dir)
			continue;
		p = vw_xasprintf("%s/device", dir);
		free(keep_link(c, p, VW_AREA_SYS, false));
		free(p);
		collect_list(c, dir, &sub);
		for (char **e = sub; e && *e; e++)
			if (vw_startswith(*e, "lower_")) {
				p = vw_xasprintf("%s/%s", dir, *e);
				free(keep_link(c, p, VW_AREA_SYS, false));
				free(p);
			}
		vw_strv_free(sub);
		free(dir);
	}
	vw_strv_free(names);
	if (!vw_sysroot_is_host(c->sr))
		copy_file(c, VW_SSH_FILE, VW_SSH_FILE, VW_AREA_STATE, false, SYSFS_MAX);
}

static void collect_files(struct ctx *c)
{
	char *p;

	for (size_t i = 0; i < VW_ARRAY_SIZE(files); i++)
		copy_file(c, files[i].path, files[i].path, files[i].area, files[i].text,
			  VW_SNAPSHOT_MAX_FILE);
	if (*c->release) {
		p = vw_xasprintf("boot/config-%s", c->release);
		copy_file(c, p, p, VW_AREA_CONFIG, false, VW_SNAPSHOT_MAX_FILE);
		free(p);
	}
	/* One ESP id a line ("ABCD-1234"): every first word is an id. */
	{
		static const char pbt[] = "etc/kernel/proxmox-boot-uuids";
		char *buf;
		size_t len;

		if (vw_sysroot_read(c->sr, pbt, &buf, &len, SYSFS_MAX, NULL) == 0) {
			size_t before = vw_redact_count(c->red, VW_RED_UUID);
			char *red = vw_redact_id_lines(c->red, buf, len, &len);

			add_data(c, pbt, VW_AREA_CONFIG, red, len,
				 vw_redact_count(c->red, VW_RED_UUID) - before);
			free(buf);
		}
	}
	for (size_t i = 0; i < VW_ARRAY_SIZE(dirs); i++) {
		char **names;
		bool sys = vw_startswith(dirs[i].dir, "sys/");

		if (!vw_sysroot_is_dir(c->sr, dirs[i].dir))
			continue;
		add_dir(c, dirs[i].dir, sys ? VW_AREA_SYS : VW_AREA_CONFIG);
		collect_list(c, dirs[i].dir, &names);
		for (char **n = names; n && *n; n++) {
			size_t nl = strlen(*n), sl = dirs[i].suffix ? strlen(dirs[i].suffix) : 0;

			if (sl && (nl <= sl || strcmp(*n + nl - sl, dirs[i].suffix)))
				continue;
			p = vw_xasprintf("%s/%s", dirs[i].dir, *n);
			copy_file(c, p, p, sys ? VW_AREA_SYS : VW_AREA_CONFIG, !sys, VW_SNAPSHOT_MAX_FILE);
			free(p);
		}
		vw_strv_free(names);
	}
}

static void collect_markers(struct ctx *c)
{
	for (size_t i = 0; i < VW_ARRAY_SIZE(tools); i++)
		for (size_t j = 0; j < VW_ARRAY_SIZE(tool_dirs); j++) {
			char *p = vw_xasprintf("%s/%s", tool_dirs[j], tools[i]);

			if (vw_sysroot_exists(c->sr, p))
				add_data(c, p, VW_AREA_MARKER, vw_xstrdup(""), 0, 0);
			free(p);
		}
	for (size_t i = 0; i < VW_ARRAY_SIZE(markers); i++)
		if (vw_sysroot_exists(c->sr, markers[i]))
			add_data(c, markers[i], VW_AREA_MARKER, vw_xstrdup(""), 0, 0);
	for (size_t i = 0; i < VW_ARRAY_SIZE(marker_dirs); i++)
		if (vw_sysroot_is_dir(c->sr, marker_dirs[i]))
			add_dir(c, marker_dirs[i], VW_AREA_MARKER);
}

static void collect_state(struct ctx *c)
{
	static const char *const journal_files[] = { "manifest", "status", "undone", "post.log" };
	char **ids;

	collect_list(c, "var/lib/vfiowiz/journal", &ids);
	for (char **id = ids; id && *id; id++)
		for (size_t i = 0; i < VW_ARRAY_SIZE(journal_files); i++) {
			char *p = vw_xasprintf("var/lib/vfiowiz/journal/%s/%s", *id, journal_files[i]);

			copy_file(c, p, p, VW_AREA_STATE, true, VW_SNAPSHOT_MAX_FILE);
			free(p);
		}
	vw_strv_free(ids);
	for (size_t i = 0; i < c->snap->n; i++)
		if (c->snap->v[i].area == VW_AREA_STATE)
			c->snap->v[i].mode = 0600;
}

static bool keep_dmesg_line(const char *s, size_t n)
{
	for (size_t i = 0; i < VW_ARRAY_SIZE(dmesg_words); i++) {
		size_t w = strlen(dmesg_words[i]);

		for (size_t j = 0; j + w <= n; j++)
			if (!strncasecmp(s + j, dmesg_words[i], w))
				return true;
	}
	return false;
}

static char *filter_dmesg(const char *in, size_t len, size_t *out_len)
{
	struct vw_buf b = VW_BUF_INIT;
	size_t i = 0;

	vw_buf_adds(&b, "");
	while (i < len) {
		const char *nl = memchr(in + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - in) + 1 : len;

		if (keep_dmesg_line(in + i, end - i))
			vw_buf_add(&b, in + i, end - i);
		i = end;
	}
	*out_len = b.len;
	return vw_buf_steal(&b);
}

/* argv of a command with @REL@ and @BOOT@ filled in; caller frees. */
static char **expand_argv(const char *const *argv, const char *release)
{
	size_t n = 0;
	char **v;

	while (argv[n])
		n++;
	v = vw_xcalloc(n + 1, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		struct vw_buf b = VW_BUF_INIT;

		vw_buf_adds(&b, "");
		for (const char *p = argv[i]; *p;) {
			if (vw_startswith(p, "@REL@")) {
				vw_buf_adds(&b, release);
				p += 5;
			} else if (vw_startswith(p, "@BOOT@")) {
				/* The host's path: the recording key is the
				 * command as run on the customer's machine. */
				vw_buf_addc(&b, '/');
				vw_buf_adds(&b, "boot/");
				p += 6;
			} else {
				vw_buf_addc(&b, *p++);
			}
		}
		v[i] = vw_buf_steal(&b);
	}
	return v;
}

static void collect_commands(struct ctx *c)
{
	struct vw_exec_opts o = {
		.timeout_ms = c->opts->cmd_timeout_ms ? c->opts->cmd_timeout_ms : CMD_TIMEOUT_MS,
	};

	for (size_t i = 0; i < VW_ARRAY_SIZE(commands); i++) {
		char **argv = expand_argv(commands[i].argv, c->release);
		struct vw_exec_result res;
		struct vw_err err = { 0 };
		char *key, *p, *out;
		size_t len, reds = 0;
		bool missing = false;
		int r;

		/* An initramfs listing needs its image. */
		for (size_t k = 1; argv[k]; k++)
			missing = missing || (argv[k][0] == '/' && !vw_sysroot_exists(c->sr, argv[k]));
		if (missing && vw_sysroot_is_host(c->sr)) {
			vw_strv_free(argv);
			continue;
		}
		r = vw_exec_run_opts(c->sr, (const char *const *)argv, &o, &res, &err);
		if (r == -ENOENT || res.source == VW_EXEC_NONE) {
			if (r != -ENOENT)
				note(c->snap, vw_xasprintf(_("%s: not recorded: %s"), argv[0], err.msg));
			vw_exec_result_done(&res);
			vw_strv_free(argv);
			continue;
		}
		if (res.truncated || res.timed_out)
			note(c->snap, vw_xasprintf(res.timed_out ? _("%s: timed out, output kept so far")
							   : _("%s: output truncated"), argv[0]));
		key = vw_exec_key((const char *const *)argv);
		/* A failing dmesg ("Operation not permitted") keeps its message. */
		if (!strcmp(argv[0], "dmesg") && res.source == VW_EXEC_RAN && res.status == 0) {
			char *kept = filter_dmesg(res.output, res.len, &len);

			out = vw_redact_text(c->red, kept, len, &len, &reds);
			free(kept);
		} else {
			out = vw_redact_text(c->red, res.output, res.len, &len, &reds);
		}
		p = vw_xasprintf(".vfiowiz/cmd/%s", key);
		add_data(c, p, VW_AREA_COMMAND, out, len, reds);
		free(p);
		p = vw_xasprintf(".vfiowiz/cmd/%s.rc", key);
		add_text(c, p, VW_AREA_COMMAND, vw_xasprintf("%d\n", res.status < 0 ? 127 : res.status));
		free(p);
		free(key);
		vw_exec_result_done(&res);
		vw_strv_free(argv);
	}
}

/* The value of "key = value", "key: value" or key='value' on one line of
 * text (the first such line), without quotes; NULL when absent.  Caller
 * frees.  Enough for state.conf and corosync.conf. */
static char *line_value(const char *line, const char *key)
{
	size_t k = strlen(key), n;

	while (*line == ' ' || *line == '\t')
		line++;
	if (strncmp(line, key, k))
		return NULL;
	line += k;
	line += strspn(line, " \t");
	if (*line != '=' && *line != ':')
		return NULL;
	line++;
	line += strspn(line, " \t\"'");
	n = strcspn(line, "\"' \t\r\n");
	return n ? vw_xstrndup(line, n) : NULL;
}

/* Names given in a file's "key = value" lines, each added as kind. */
static void names_from(struct ctx *c, const char *path, const char *const *keys, enum vw_redact_kind kind)
{
	char *s, *v;

	if (vw_sysroot_read(c->sr, path, &s, NULL, SYSFS_MAX, NULL) < 0)
		return;
	for (char *line = s, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		for (size_t i = 0; keys[i]; i++) {
			if (!(v = line_value(line, keys[i])))
				continue;
			/* user@host, or a host: each part on its own. */
			char *at = strchr(v, '@');

			if (at) {
				*at = '\0';
				vw_redact_add_name(c->red, VW_RED_HOST, at + 1);
			}
			vw_redact_add_name(c->red, kind, v);
			free(v);
		}
	}
	free(s);
}

/* The serial or WWN that a /dev/disk/by-id name carries, added as a serial
 * number: "ata-MODEL_SERIAL", "nvme-MODEL_SERIAL[-partN]", "usb-V_M_SERIAL-0:0",
 * "wwn-0xHEX", "nvme-eui.HEX", "virtio-SERIAL", "scsi-3HEX". */
static void by_id_serial(struct ctx *c, const char *name)
{
	const char *dash = strchr(name, '-'), *id;
	char *s, *e;

	if (!dash)
		return;
	id = dash + 1;
	s = vw_xstrdup(id);
	/* Partitions and USB LUNs are suffixes of the same id. */
	if ((e = strstr(s, "-part")) && e[5] && strspn(e + 5, "0123456789") == strlen(e + 5))
		*e = '\0';
	if ((e = strrchr(s, '-')) && strchr(e, ':'))
		*e = '\0';
	if (vw_startswith(name, "wwn-") || vw_startswith(name, "virtio-") || strchr(s, '.')) {
		const char *hex = strchr(s, '.') ? strchr(s, '.') + 1 : s;

		vw_redact_add_name(c->red, VW_RED_SERIAL, hex);
	} else if ((e = strrchr(s, '_'))) {
		vw_redact_add_name(c->red, VW_RED_SERIAL, e + 1);
	} else {
		vw_redact_add_name(c->red, VW_RED_SERIAL, s);	/* scsi-3HEX */
	}
	free(s);
}

/* Names to hide and words to protect, before any text is read. */
static void prepare_redaction(struct ctx *c)
{
	static const char *const host_files[] = { "etc/hostname", "proc/sys/kernel/hostname" };
	char **names, *s;

	if (vw_sysroot_read(c->sr, "proc/modules", &s, NULL, VW_SNAPSHOT_MAX_FILE, NULL) == 0) {
		for (char *line = s, *next; line && *line; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			line[strcspn(line, " ")] = '\0';
			vw_redact_protect(c->red, line);
		}
		free(s);
	}
	collect_list(c, "sys/bus/pci/drivers", &names);
	for (char **n = names; n && *n; n++)
		vw_redact_protect(c->red, *n);
	vw_strv_free(names);
	if (vw_sysroot_read(c->sr, "etc/os-release", &s, NULL, SYSFS_MAX, NULL) == 0 ||
	    vw_sysroot_read(c->sr, "usr/lib/os-release", &s, NULL, SYSFS_MAX, NULL) == 0) {
		for (char *line = s, *next; line && *line; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			if (vw_startswith(line, "ID=") || vw_startswith(line, "ID_LIKE=") ||
			    vw_startswith(line, "VERSION_CODENAME=")) {
				char *v = strchr(line, '=') + 1, *save = NULL;

				for (char *w = strtok_r(v, "\"' ", &save); w; w = strtok_r(NULL, "\"' ", &save))
					vw_redact_protect(c->red, w);
			}
		}
		free(s);
	}
	for (size_t i = 0; i < VW_ARRAY_SIZE(host_files); i++) {
		char *h = vw_sysroot_read_line(c->sr, host_files[i]);

		if (h && *h) {
			char *dot = strchr(h, '.');

			if (dot) {
				char *shortname = vw_xstrndup(h, (size_t)(dot - h));
				vw_redact_add_name(c->red, VW_RED_HOST, shortname);
				free(shortname);
			}
			vw_redact_add_name(c->red, VW_RED_HOST, h);
		}
		free(h);
	}
	collect_list(c, "home", &names);
	for (char **n = names; n && *n; n++)
		vw_redact_add_name(c->red, VW_RED_USER, *n);
	vw_strv_free(names);
	/* The wizard's own answers (ssh_user, ssh_host) and Proxmox cluster
	 * members: node and cluster names. */
	names_from(c, "var/lib/vfiowiz/state.conf", (const char *const[]){ "ssh_user", NULL }, VW_RED_USER);
	names_from(c, "var/lib/vfiowiz/state.conf", (const char *const[]){ "ssh_host", NULL }, VW_RED_HOST);
	names_from(c, "etc/pve/corosync.conf", (const char *const[]){ "name", "cluster_name", NULL },
		   VW_RED_HOST);
	/* Disk serial numbers and WWNs named in /dev/disk/by-id. */
	collect_list(c, "dev/disk/by-id", &names);
	for (char **n = names; n && *n; n++)
		by_id_serial(c, *n);
	vw_strv_free(names);
	/* Disk serial numbers: in sysfs, and inside /dev/disk/by-id names. */
	collect_list(c, "sys/block", &names);
	for (char **n = names; n && *n; n++) {
		char *p = vw_xasprintf("sys/block/%s/device/serial", *n), *v = vw_sysroot_read_line(c->sr, p);

		if (v && *v)
			vw_redact_add_name(c->red, VW_RED_SERIAL, v);
		free(v);
		free(p);
	}
	vw_strv_free(names);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct vw_snap_entry *x = a, *y = b;
	int r = strcmp(x->path, y->path);

	if (r)
		return r;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static void free_entry(struct vw_snap_entry *e)
{
	free(e->path);
	free(e->data);
}

static bool in_sorted(const struct vw_snapshot *s, const char *path, size_t n, const struct vw_snap_entry **hit)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int r = strncmp(s->v[mid].path, path, n);

		if (!r && s->v[mid].path[n])
			r = 1;
		if (!r) {
			*hit = &s->v[mid];
			return true;
		}
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Sort, drop duplicates (the first collected wins), add missing parent
 * directories, and drop what would sit under a file or a link. */
static void finish(struct ctx *c)
{
	struct vw_snapshot *s = c->snap;
	size_t n0 = s->n, k = 0;
	bool *drop;

	for (size_t i = 0; i < n0; i++) {
		char *p = vw_xstrdup(s->v[i].path);

		for (char *slash = strrchr(p, '/'); slash; slash = strrchr(p, '/')) {
			*slash = '\0';
			add_dir(c, p, s->v[i].area);
		}
		free(p);
	}
	if (s->n > 1)	/* qsort(NULL, 0, ...) is undefined */
		qsort(s->v, s->n, sizeof(*s->v), cmp_entry);
	for (size_t i = 0; i < s->n; i++) {
		if (k && !strcmp(s->v[k - 1].path, s->v[i].path)) {
			free_entry(&s->v[i]);
			continue;
		}
		s->v[k++] = s->v[i];
	}
	s->n = k;
	drop = vw_xcalloc(s->n, sizeof(*drop));
	for (size_t i = 0; i < s->n; i++) {
		const char *path = s->v[i].path;

		for (const char *sl = strchr(path, '/'); sl && !drop[i]; sl = strchr(sl + 1, '/')) {
			const struct vw_snap_entry *hit;

			if (in_sorted(s, path, (size_t)(sl - path), &hit) && hit->type != VW_SNAP_DIR)
				drop[i] = true;
		}
	}
	k = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (drop[i]) {
			note(s, vw_xasprintf(_("/%s: left out, a parent is not a directory"), s->v[i].path));
			free_entry(&s->v[i]);
			continue;
		}
		s->v[k++] = s->v[i];
	}
	s->n = k;
	free(drop);
}

int vw_snapshot_collect(const struct vw_sysroot *sr, const struct vw_snapshot_opts *opts,
			struct vw_snapshot *snap, struct vw_err *err)
{
	static const struct vw_snapshot_opts def = { 0 };
	struct ctx c = { .sr = sr, .snap = snap, .opts = opts ? opts : &def };
	struct vw_buf meta = VW_BUF_INIT, sum = VW_BUF_INIT;
	char stamp[32];
	struct tm tm;

	memset(snap, 0, sizeof(*snap));
	if (!vw_sysroot_is_dir(sr, "."))
		return vw_err_set(err, -ENOENT, _("cannot read the system root %s"), vw_sysroot_root(sr));
	snap->created = c.opts->now ? c.opts->now : time(NULL);
	c.red = vw_redact_new();
	c.release = vw_sysroot_read_line(sr, "proc/sys/kernel/osrelease");
	if (!c.release || !*c.release) {
		char *v = vw_sysroot_read_line(sr, "proc/version");

		free(c.release);
		c.release = vw_xstrdup("");
		if (v && vw_startswith(v, "Linux version ")) {
			free(c.release);
			c.release = vw_xstrndup(v + 14, strcspn(v + 14, " "));
		}
		free(v);
	}
	/* The release names files: it must be a plain name. */
	if (strchr(c.release, '/') || !strcmp(c.release, "..") || strlen(c.release) > 128) {
		free(c.release);
		c.release = vw_xstrdup("");
	}

	prepare_redaction(&c);
	collect_pci(&c);
	collect_iommu(&c);
	collect_storage(&c);
	collect_net(&c);
	collect_files(&c);
	collect_markers(&c);
	collect_state(&c);
	if (!c.opts->no_commands)
		collect_commands(&c);

	gmtime_r(&snap->created, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	vw_buf_printf(&meta, "format=%d\ntool=%s %s\ncreated=%s\nredacted=", VW_SNAPSHOT_FORMAT,
		      PACKAGE, VERSION, stamp);
	vw_redact_counts(c.red, &meta);
	vw_buf_adds(&meta, "\n");
	add_text(&c, ".vfiowiz/snapshot", VW_AREA_STATE, vw_buf_steal(&meta));

	finish(&c);
	vw_redact_summary(c.red, &sum);
	vw_buf_adds(&sum, "");
	snap->redaction_summary = vw_buf_steal(&sum);
	vw_redact_free(c.red);
	free(c.release);
	return 0;
}

void vw_snapshot_done(struct vw_snapshot *snap)
{
	for (size_t i = 0; i < snap->n; i++)
		free_entry(&snap->v[i]);
	free(snap->v);
	free(snap->redaction_summary);
	for (size_t i = 0; i < snap->nnotes; i++)
		free(snap->notes[i]);
	free(snap->notes);
	memset(snap, 0, sizeof(*snap));
}

/* ---- listing ------------------------------------------------------------ */

size_t vw_snapshot_bytes(const struct vw_snapshot *snap)
{
	size_t t = 0;

	for (size_t i = 0; i < snap->n; i++)
		if (snap->v[i].type == VW_SNAP_FILE)
			t += snap->v[i].len;
	return t;
}

static void human(struct vw_buf *out, size_t n)
{
	if (n < 1024)
		vw_buf_printf(out, "%zu B", n);
	else if (n < 1024 * 1024)
		vw_buf_printf(out, "%.1f KiB", (double)n / 1024);
	else
		vw_buf_printf(out, "%.1f MiB", (double)n / (1024 * 1024));
}

void vw_snapshot_listing(const struct vw_snapshot *snap, bool full, struct vw_buf *out)
{
	size_t nfiles[VW_AREA_NAREAS] = { 0 }, bytes[VW_AREA_NAREAS] = { 0 }, ndev = 0, nfile = 0;

	for (size_t i = 0; i < snap->n; i++) {
		const struct vw_snap_entry *e = &snap->v[i];

		if (e->type == VW_SNAP_FILE) {
			nfiles[e->area]++;
			bytes[e->area] += e->len;
			nfile++;
		}
		if (e->type == VW_SNAP_LINK && vw_startswith(e->path, "sys/bus/pci/devices/"))
			ndev++;
	}
	if (full) {
		for (size_t i = 0; i < snap->n; i++) {
			const struct vw_snap_entry *e = &snap->v[i];

			if (e->type == VW_SNAP_DIR)
				continue;
			vw_buf_adds(out, "  ");
			if (e->type == VW_SNAP_LINK) {
				vw_buf_printf(out, "%10s  /%s -> %s\n", "link", e->path, e->data);
				continue;
			}
			{
				struct vw_buf h = VW_BUF_INIT;
				human(&h, e->len);
				vw_buf_printf(out, "%10s  /%s", h.data, e->path);
				vw_buf_done(&h);
			}
			if (e->redactions)
				vw_buf_printf(out, ngettext("  (%zu redaction)", "  (%zu redactions)",
							    e->redactions), e->redactions);
			vw_buf_addc(out, '\n');
		}
	} else {
		vw_buf_printf(out, ngettext("  PCI: %zu function (sysfs attributes, config space, links)\n",
					    "  PCI: %zu functions (sysfs attributes, config space, links)\n",
					    ndev), ndev);
		vw_buf_printf(out, ngettext("  other sysfs: %zu file (IOMMU groups and units, ACPI tables, "
					    "EFI, DMI, module parameters)\n",
					    "  other sysfs: %zu files (IOMMU groups and units, ACPI tables, "
					    "EFI, DMI, module parameters)\n", nfiles[VW_AREA_SYS]),
			      nfiles[VW_AREA_SYS]);
		vw_buf_adds(out, _("  /proc:"));
		for (size_t i = 0; i < snap->n; i++)
			if (snap->v[i].area == VW_AREA_PROC && snap->v[i].type == VW_SNAP_FILE)
				vw_buf_printf(out, " %s", snap->v[i].path + 5);
		vw_buf_adds(out, "\n");
		vw_buf_adds(out, _("  configuration files:\n"));
		for (size_t i = 0; i < snap->n; i++)
			if (snap->v[i].area == VW_AREA_CONFIG && snap->v[i].type == VW_SNAP_FILE)
				vw_buf_printf(out, "    /%s\n", snap->v[i].path);
		vw_buf_adds(out, _("  present, recorded as empty marker files:"));
		for (size_t i = 0; i < snap->n; i++)
			if (snap->v[i].area == VW_AREA_MARKER && snap->v[i].type == VW_SNAP_FILE)
				vw_buf_printf(out, " /%s", snap->v[i].path);
		vw_buf_adds(out, "\n");
		vw_buf_adds(out, _("  command outputs:\n"));
		for (size_t i = 0; i < snap->n; i++) {
			const struct vw_snap_entry *e = &snap->v[i];
			size_t l = strlen(e->path);

			if (e->area == VW_AREA_COMMAND && e->type == VW_SNAP_FILE &&
			    !(l > 3 && !strcmp(e->path + l - 3, ".rc")))
				vw_buf_printf(out, "    /%s\n", e->path);
		}
		vw_buf_adds(out, _("  vfiowiz state and journal:\n"));
		for (size_t i = 0; i < snap->n; i++)
			if (snap->v[i].area == VW_AREA_STATE && snap->v[i].type == VW_SNAP_FILE)
				vw_buf_printf(out, "    /%s\n", snap->v[i].path);
	}
	vw_buf_adds(out, _("Redacted: "));
	vw_buf_adds(out, snap->redaction_summary && *snap->redaction_summary ? snap->redaction_summary
									   : _("nothing found to redact"));
	vw_buf_adds(out, "\n");
	{
		struct vw_buf h = VW_BUF_INIT;
		human(&h, vw_snapshot_bytes(snap));
		vw_buf_printf(out, ngettext("Total: %zu file, %s before compression\n",
					    "Total: %zu files, %s before compression\n", nfile),
			      nfile, h.data);
		vw_buf_done(&h);
	}
	for (size_t i = 0; i < snap->nnotes; i++)
		vw_buf_printf(out, _("Note: %s\n"), snap->notes[i]);
}

/* ---- writing ------------------------------------------------------------ */

int vw_snapshot_write_fd(const struct vw_snapshot *snap, int fd, struct vw_err *err)
{
	struct vw_tar_writer *w = vw_tar_writer_new(fd, snap->created);
	int r = 0;

	for (size_t i = 0; i < snap->n && r == 0; i++) {
		const struct vw_snap_entry *e = &snap->v[i];

		if (e->type == VW_SNAP_DIR)
			r = vw_tar_add_dir(w, e->path, e->mode, err);
		else if (e->type == VW_SNAP_FILE)
			r = vw_tar_add_file(w, e->path, e->mode, e->data, e->len, err);
		else
			r = vw_tar_add_symlink(w, e->path, e->data, err);
	}
	if (r < 0) {
		vw_tar_writer_free(w);
		return r;
	}
	return vw_tar_writer_finish(w, err);
}

int vw_snapshot_write(const struct vw_snapshot *snap, const char *path, struct vw_err *err)
{
	char *copy = vw_xstrdup(path), *dir = dirname(copy), *tmp;
	char *bcopy = vw_xstrdup(path), *base = basename(bcopy);
	struct stat st;
	int fd, dfd, r = 0;

	if (lstat(path, &st) == 0 && (S_ISLNK(st.st_mode) || !S_ISREG(st.st_mode))) {
		r = vw_err_set(err, -EEXIST, S_ISLNK(st.st_mode)
				? _("%s is a symbolic link: refusing to write the snapshot through it")
				: _("%s exists and is not a regular file"), path);
		goto out;
	}
	tmp = vw_xasprintf("%s/.%s.XXXXXX", dir, base);
	fd = mkstemp(tmp);
	if (fd < 0) {
		r = vw_err_set(err, -errno, _("cannot create a file in %s: %s"), dir, strerror(errno));
		free(tmp);
		goto out;
	}
	if (fchmod(fd, 0600) < 0)
		r = vw_err_set(err, -errno, _("cannot set the mode of %s: %s"), tmp, strerror(errno));
	if (r == 0)
		r = vw_snapshot_write_fd(snap, fd, err);
	if (r == 0 && fsync(fd) < 0)
		r = vw_err_set(err, -errno, _("cannot write %s: %s"), path, strerror(errno));
	if (close(fd) < 0 && r == 0)
		r = vw_err_set(err, -errno, _("cannot write %s: %s"), path, strerror(errno));
	if (r == 0 && rename(tmp, path) < 0)
		r = vw_err_set(err, -errno, _("cannot rename %s to %s: %s"), tmp, path, strerror(errno));
	if (r < 0)
		unlink(tmp);
	else if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(tmp);
out:
	free(copy);
	free(bcopy);
	return r;
}

/* ---- importing ---------------------------------------------------------- */

bool vw_snapshot_is_archive(const char *path)
{
	static const char *const ext[] = { ".tar.gz", ".tgz", ".tar" };
	struct stat st;
	size_t n = path ? strlen(path) : 0;

	if (!n || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	for (size_t i = 0; i < VW_ARRAY_SIZE(ext); i++) {
		size_t e = strlen(ext[i]);
		if (n > e && !strcmp(path + n - e, ext[i]))
			return true;
	}
	return false;
}

/* Empty the directory dfd (closed here) by dirfds, never by paths: a tree
 * deeper than PATH_MAX goes all the same.  Directories were made 0700 by
 * us; one we cannot read gets its rights back first.  Depth is bounded by
 * VW_TAR_DEPTH_MAX for trees we extracted; one fd a level. */
static int rm_at(int dfd)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	int r = 0;

	if (!d) {
		r = -errno;
		close(dfd);
		return r;
	}
	while ((de = readdir(d))) {
		int fd;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		/* An empty directory goes in one call, as a file or a link
		 * does (a hostile archive is mostly one or the other). */
		if (de->d_type == DT_DIR) {
			if (unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR) == 0 || errno == ENOENT)
				continue;
		} else {
			if (unlinkat(dirfd(d), de->d_name, 0) == 0 || errno == ENOENT)
				continue;
			if (errno != EISDIR && errno != EPERM) {
				r = r ? r : -errno;
				continue;
			}
		}
		fchmodat(dirfd(d), de->d_name, 0700, 0);	/* a directory: not a link */
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			r = r ? r : -errno;
			continue;
		}
		if (rm_at(fd) < 0 && !r)
			r = -EIO;
		if (unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR) < 0 && errno != ENOENT && !r)
			r = -errno;
	}
	closedir(d);
	return r;
}

int vw_snapshot_remove(const char *dir)
{
	int fd, r;

	if (!dir || !*dir)
		return -EINVAL;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	r = rm_at(fd);
	if (rmdir(dir) < 0 && errno != ENOENT && !r)
		r = -errno;
	return r;
}

/* SIGINT, SIGTERM or SIGHUP during an import: noted, the extraction stops,
 * the folder goes, then the signal is delivered again as before. */
static const int import_signals[] = { SIGINT, SIGTERM, SIGHUP };
static volatile sig_atomic_t import_sig;

static void on_import_signal(int sig)
{
	import_sig = sig;
}

static void import_catch(struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_import_signal;
	sigemptyset(&sa.sa_mask);
	import_sig = 0;
	for (size_t i = 0; i < VW_ARRAY_SIZE(import_signals); i++) {
		sigaction(import_signals[i], NULL, &old[i]);
		if (old[i].sa_handler != SIG_IGN)	/* nohup stays nohup */
			sigaction(import_signals[i], &sa, NULL);
	}
}

static void import_release(const struct sigaction *old)
{
	int sig = import_sig;

	for (size_t i = 0; i < VW_ARRAY_SIZE(import_signals); i++)
		sigaction(import_signals[i], &old[i], NULL);
	import_sig = 0;
	if (sig)
		raise(sig);
}

static int import(const char *archive, const struct vw_tar_limits *lim, char **dir,
		  struct vw_tar_stats *st, struct vw_err *err);

int vw_snapshot_import(const char *archive, const struct vw_tar_limits *lim, char **dir,
		       struct vw_tar_stats *st, struct vw_err *err)
{
	static const struct vw_tar_limits def = VW_TAR_LIMITS_DEFAULT;
	struct vw_tar_limits l = lim ? *lim : def;
	struct sigaction old[VW_ARRAY_SIZE(import_signals)];
	int r;

	l.stop = &import_sig;
	import_catch(old);
	r = import(archive, &l, dir, st, err);
	if (import_sig && r == 0) {	/* came after the last entry */
		vw_snapshot_remove(*dir);
		free(*dir);
		*dir = NULL;
		r = vw_err_set(err, -EINTR, _("%s: interrupted: the import stops"), archive);
	}
	import_release(old);
	return r;
}

static int import(const char *archive, const struct vw_tar_limits *lim, char **dir,
		  struct vw_tar_stats *st, struct vw_err *err)
{
	static const char *const tops[] = { "sys", "proc", "etc", ".vfiowiz" };
	const char *tmp = getenv("TMPDIR");
	struct stat sb;
	char *d;
	int fd, dfd, r;
	bool any = false;

	*dir = NULL;
	fd = open(archive, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return vw_err_set(err, -errno, _("cannot open %s: %s"), archive, strerror(errno));
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return vw_err_set(err, -EINVAL, _("%s is not a regular file"), archive);
	}
	d = vw_xasprintf("%s/vfiowiz-snapshot.XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
	if (!mkdtemp(d)) {
		r = vw_err_set(err, -errno, _("cannot create a private folder for %s: %s"), archive,
			       strerror(errno));
		free(d);
		close(fd);
		return r;
	}
	dfd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		r = vw_err_set(err, -errno, _("cannot open %s: %s"), d, strerror(errno));
		goto fail;
	}
	r = vw_tar_extract_fd(fd, dfd, lim, st, err);
	for (size_t i = 0; r == 0 && i < VW_ARRAY_SIZE(tops); i++) {
		struct stat ts;
		any = any || (fstatat(dfd, tops[i], &ts, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(ts.st_mode));
	}
	close(dfd);
	if (r < 0) {
		vw_err_prefix(err, _("%s refused"), archive);
		goto fail;
	}
	if (!any) {
		r = vw_err_set(err, -EINVAL, _("%s holds no sys/, proc/ or etc/ folder: not a snapshot"),
			       archive);
		goto fail;
	}
	close(fd);
	*dir = d;
	return 0;
fail:
	close(fd);
	vw_snapshot_remove(d);
	free(d);
	return r;
}
