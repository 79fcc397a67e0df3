/* SPDX-License-Identifier: GPL-2.0-or-later */
/* facts.c - host-level probes: CPU, container, firmware, kernel, IOMMU,
 * distribution, bootloader and initramfs tool.  PCI lives in pci.c.
 *
 * Every probe tolerates missing and malformed files: it leaves "unknown"
 * values and, where the user should know, a note. */
#include "facts.h"
#include "cmdline.h"
#include "hostplan.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <strings.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define SMALL_FILE (1u << 20)
#define CMDLINE_MAX 65536u	/* x86 COMMAND_LINE_SIZE is 2048, others at most a few KiB */

static void add_note(struct vw_facts *f, char *note)
{
	f->notes = vw_xreallocarray(f->notes, f->nnotes + 1, sizeof(*f->notes));
	f->notes[f->nnotes++] = note;
}

static char *read_or_null(const struct vw_sysroot *sr, const char *rel)
{
	char *buf;

	if (vw_sysroot_read(sr, rel, &buf, NULL, SMALL_FILE, NULL) < 0)
		return NULL;
	return buf;
}

static char *line_or_empty(const struct vw_sysroot *sr, const char *rel)
{
	char *s = vw_sysroot_read_line(sr, rel);
	return s ? s : vw_xstrdup("");
}

/* Value of "key : value" in the first block of /proc/cpuinfo. */
static char *cpuinfo_field(const char *info, const char *key)
{
	size_t klen = strlen(key);
	const char *p = info;

	while (p && *p && *p != '\n') {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		if (len > klen && !strncmp(p, key, klen) && (p[klen] == ' ' || p[klen] == '\t' || p[klen] == ':')) {
			const char *c = memchr(p, ':', len);
			if (c) {
				char *v = vw_xstrndup(c + 1, len - (size_t)(c + 1 - p));
				char *t = vw_xstrdup(vw_strtrim(v));
				free(v);
				return t;
			}
		}
		p = eol ? eol + 1 : NULL;
	}
	return NULL;
}

static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p && (p = strstr(p, word)); p += n) {
		bool start = p == list || isspace((unsigned char)p[-1]);
		bool end = p[n] == '\0' || isspace((unsigned char)p[n]);
		if (start && end)
			return true;
	}
	return false;
}

/* DMI vendor strings of the common hypervisors. */
static const struct { const char *dmi; const char *name; } hypervisors[] = {
	{ "QEMU", "QEMU/KVM" },
	{ "VMware", "VMware" },
	{ "innotek GmbH", "VirtualBox" },
	{ "Xen", "Xen" },
	{ "Microsoft Corporation", "Hyper-V" },
	{ "Amazon EC2", "Amazon EC2" },
	{ "Google", "Google Compute Engine" },
	{ "Parallels", "Parallels" },
	{ "Red Hat", "KVM" },
	{ "OpenStack", "OpenStack" },
	{ "Firecracker", "Firecracker" },
};

void vw_probe_cpu(struct vw_facts *f, const struct vw_sysroot *sr)
{
	struct vw_cpu *c = &f->cpu;
	char *info = read_or_null(sr, "proc/cpuinfo");
	char *flags = NULL, *vmxflags = NULL;

	c->vendor_id = info ? cpuinfo_field(info, "vendor_id") : NULL;
	c->model = info ? cpuinfo_field(info, "model name") : NULL;
	if (info) {
		flags = cpuinfo_field(info, "flags");
		vmxflags = cpuinfo_field(info, "vmx flags");
	} else {
		add_note(f, vw_xstrdup(_("cannot read /proc/cpuinfo: CPU features unknown")));
	}
	if (!c->vendor_id)
		c->vendor_id = vw_xstrdup("");
	if (!c->model)
		c->model = vw_xstrdup("");
	if (!strcmp(c->vendor_id, "GenuineIntel"))
		c->vendor = VW_CPU_INTEL;
	else if (!strcmp(c->vendor_id, "AuthenticAMD") || !strcmp(c->vendor_id, "HygonGenuine"))
		c->vendor = VW_CPU_AMD;
	else if (*c->vendor_id)
		c->vendor = VW_CPU_OTHER;
	c->vmx = has_word(flags, "vmx");
	c->svm = has_word(flags, "svm");
	c->hypervisor = has_word(flags, "hypervisor");
	/* Since 5.8 the kernel lists "vmx flags" from the VMX MSRs; when they
	 * are there but "vmx" is not, the firmware locked VMX off. */
	c->virt_disabled_by_bios = c->vendor == VW_CPU_INTEL && !c->vmx && vmxflags && *vmxflags;

	c->dmi_present = vw_sysroot_is_dir(sr, "sys/class/dmi/id");
	c->dmi_vendor = line_or_empty(sr, "sys/class/dmi/id/sys_vendor");
	c->dmi_product = line_or_empty(sr, "sys/class/dmi/id/product_name");
	c->hypervisor_name = vw_xstrdup("");
	for (size_t i = 0; i < VW_ARRAY_SIZE(hypervisors); i++) {
		if (vw_startswith(c->dmi_vendor, hypervisors[i].dmi) ||
		    vw_startswith(c->dmi_product, hypervisors[i].dmi)) {
			free(c->hypervisor_name);
			c->hypervisor_name = vw_xstrdup(hypervisors[i].name);
			c->hypervisor = true;	/* DMI is evidence too */
			break;
		}
	}
	if (!*c->hypervisor_name) {
		char *xen = vw_sysroot_read_line(sr, "sys/hypervisor/type");
		if (xen && *xen) {
			free(c->hypervisor_name);
			c->hypervisor_name = vw_xasprintf("%s", xen);
			c->hypervisor = true;
		}
		free(xen);
	}
	free(flags);
	free(vmxflags);
	free(info);
}

static void set_container(struct vw_container *c, const char *kind, const char *evidence)
{
	c->inside = true;
	free(c->kind);
	c->kind = vw_xstrdup(kind);
	free(c->evidence);
	c->evidence = vw_xstrdup(evidence);
}

/* File system type of the mount on "/" (proc/self/mounts), NULL unknown. */
static char *root_fstype(const struct vw_sysroot *sr)
{
	char *m = read_or_null(sr, "proc/self/mounts"), *type = NULL;

	if (!m)
		m = read_or_null(sr, "proc/mounts");
	for (char *line = m, *eol; line && *line; line = eol ? eol + 1 : NULL) {
		char dev[256], dir[256], fs[64];

		eol = strchr(line, '\n');
		if (eol)
			*eol = '\0';
		if (sscanf(line, "%255s %255s %63s", dev, dir, fs) == 3 && !strcmp(dir, "/")) {
			free(type);
			type = vw_xstrdup(fs);	/* the last mount on "/" wins */
		}
	}
	free(m);
	return type;
}

void vw_probe_container(struct vw_facts *f, const struct vw_sysroot *sr)
{
	static const char *const hints[] = { "docker", "lxc", "kubepods", "libpod", "containerd" };
	struct vw_container *c = &f->container;
	char *s, *cg, *fstype;

	c->kind = vw_xstrdup("");
	c->evidence = vw_xstrdup("");
	if (vw_sysroot_exists(sr, "run/.containerenv")) {
		set_container(c, "podman", "/run/.containerenv");
		return;
	}
	s = vw_sysroot_read_line(sr, "run/systemd/container");
	if (s && *s) {		/* systemd writes the container manager's name here */
		set_container(c, s, "/run/systemd/container");
		free(s);
		return;
	}
	free(s);
	cg = read_or_null(sr, "proc/1/cgroup");
	for (size_t i = 0; cg && i < VW_ARRAY_SIZE(hints); i++) {
		if (strstr(cg, hints[i])) {
			set_container(c, hints[i], "/proc/1/cgroup");
			break;
		}
	}
	free(cg);
	if (c->inside || !vw_sysroot_exists(sr, ".dockerenv"))
		return;
	/* /.dockerenv also sits in VM images built from container images
	 * (seen on a Firecracker guest with an ext4 root): it counts only
	 * when "/" is an overlay, as Docker mounts it, or cannot be told. */
	fstype = root_fstype(sr);
	if (!fstype || !strcmp(fstype, "overlay") || !strcmp(fstype, "aufs") ||
	    !strcmp(fstype, "fuse-overlayfs"))
		set_container(c, "docker", "/.dockerenv");
	free(fstype);
}

void vw_probe_firmware(struct vw_facts *f, const struct vw_sysroot *sr)
{
	f->fw.efi = vw_sysroot_is_dir(sr, "sys/firmware/efi");
	f->fw.dmar = vw_sysroot_exists(sr, "sys/firmware/acpi/tables/DMAR");
	f->fw.ivrs = vw_sysroot_exists(sr, "sys/firmware/acpi/tables/IVRS");
}

size_t vw_cmdline_parse(const char *s, struct vw_param **out)
{
	struct vw_cmdline l;
	struct vw_param *v;
	size_t n;

	/* The same reading as the editor's (core/cmdline.h), the kernel's. */
	vw_cmdline_split(&l, s);
	n = l.n;
	v = n ? vw_xcalloc(n, sizeof(*v)) : NULL;
	for (size_t i = 0; i < n; i++)
		vw_ktok_parse(l.t[i].text, &v[i].key, &v[i].value);
	*out = v;
	vw_cmdline_done(&l);
	return n;
}

void vw_params_free(struct vw_param *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(p[i].key);
		free(p[i].value);
	}
	free(p);
}

const char *vw_cmdline_get(const struct vw_param *p, size_t n, const char *key, bool *present)
{
	const char *val = NULL;
	bool found = false;

	for (size_t i = 0; i < n; i++) {
		if (vw_kparam_eq(p[i].key, key)) {
			found = true;
			val = p[i].value;
		}
	}
	if (present)
		*present = found;
	return val;
}

static char *read_config(const struct vw_sysroot *sr, const char *release, char **source)
{
	char *rel = vw_xasprintf("boot/config-%s", release), *buf;
	struct vw_buf b = VW_BUF_INIT;
	char chunk[16384];
	gzFile gz;
	int fd, n;

	if (*release && vw_sysroot_read(sr, rel, &buf, NULL, 16u << 20, NULL) == 0) {
		*source = rel;
		return buf;
	}
	free(rel);
	fd = vw_sysroot_openat(sr, "proc/config.gz", O_RDONLY, 0);
	if (fd < 0)
		return NULL;
	gz = gzdopen(fd, "rb");
	if (!gz) {
		close(fd);
		return NULL;
	}
	while ((n = gzread(gz, chunk, sizeof(chunk))) > 0 && b.len < (16u << 20))
		vw_buf_add(&b, chunk, (size_t)n);
	gzclose(gz);
	if (n < 0 || !b.len) {
		vw_buf_done(&b);
		return NULL;
	}
	*source = vw_xstrdup("proc/config.gz");
	return vw_buf_steal(&b);
}

static enum vw_tristate config_bool(const char *cfg, const char *name)
{
	char *set = vw_xasprintf("\n%s=y", name);
	char *unset = vw_xasprintf("\n# %s is not set", name);
	enum vw_tristate r = VW_UNKNOWN;

	if (strstr(cfg, set) || vw_startswith(cfg, set + 1))
		r = VW_YES;
	else if (strstr(cfg, unset) || vw_startswith(cfg, unset + 1))
		r = VW_NO;
	free(set);
	free(unset);
	return r;
}

/* Kernels known to carry the pcie_acs_override patch, by release suffix. */
static const char *const acs_kernels[] = { "-pve", "-zen", "-lqx", "-xanmod", "-liquorix" };
/* Stock kernels known not to carry it. */
static const char *const stock_kernels[] = { "-amd64", "-arm64", "-generic", ".fc", ".el", "-arch", "-cloud-amd64", "-lowlatency" };

static void probe_acs_support(struct vw_kernel *k, const struct vw_sysroot *sr)
{
	char *dmesg = read_or_null(sr, ".vfiowiz/cmd/dmesg");

	k->acs_override_support = VW_UNKNOWN;
	k->acs_override_evidence = vw_xstrdup("");
	if (dmesg && strstr(dmesg, "PCIe ACS overrides enabled")) {
		k->acs_override_support = VW_YES;
		free(k->acs_override_evidence);
		k->acs_override_evidence = vw_xstrdup("dmesg: PCIe ACS overrides enabled");
	}
	for (size_t i = 0; k->acs_override_support == VW_UNKNOWN && i < VW_ARRAY_SIZE(acs_kernels); i++)
		if (strstr(k->release, acs_kernels[i])) {
			k->acs_override_support = VW_YES;
			free(k->acs_override_evidence);
			k->acs_override_evidence = vw_xasprintf("kernel %s", k->release);
		}
	for (size_t i = 0; k->acs_override_support == VW_UNKNOWN && i < VW_ARRAY_SIZE(stock_kernels); i++)
		if (strstr(k->release, stock_kernels[i])) {
			k->acs_override_support = VW_NO;
			free(k->acs_override_evidence);
			k->acs_override_evidence = vw_xasprintf("kernel %s", k->release);
		}
	free(dmesg);
}

void vw_probe_kernel(struct vw_facts *f, const struct vw_sysroot *sr)
{
	struct vw_kernel *k = &f->kernel;
	char *cfg, *src = NULL;
	bool present;

	k->version_line = line_or_empty(sr, "proc/version");
	k->release = line_or_empty(sr, "proc/sys/kernel/osrelease");
	if (!*k->release && vw_startswith(k->version_line, "Linux version ")) {
		const char *p = k->version_line + strlen("Linux version ");
		free(k->release);
		k->release = vw_xstrndup(p, strcspn(p, " "));
	}
	if (sscanf(k->release, "%u.%u", &k->major, &k->minor) != 2)
		k->major = k->minor = 0;

	{
		/* The kernel's own limit is a few KiB: anything past CMDLINE_MAX
		 * is not a command line, and must not pass for an empty one. */
		char *buf = NULL;
		struct vw_err err = { 0 };
		int r = vw_sysroot_read(sr, "proc/cmdline", &buf, NULL, CMDLINE_MAX, &err);

		if (r < 0 && r != -ENOENT) {
			k->cmdline_unreadable = true;
			add_note(f, r == -EFBIG
				 ? vw_xasprintf(_("The kernel command line (/proc/cmdline) is larger than %u bytes: it was not read, so the kernel parameters are unknown."),
						CMDLINE_MAX)
				 : vw_xasprintf(_("The kernel command line (/proc/cmdline) could not be read (%s): the kernel parameters are unknown."),
						strerror(-r)));
		}
		if (buf)
			buf[strcspn(buf, "\n")] = '\0';
		k->cmdline = vw_xstrdup(buf ? vw_strtrim(buf) : "");
		free(buf);
	}
	k->nparams = vw_cmdline_parse(k->cmdline, &k->params);

	cfg = read_config(sr, k->release, &src);
	k->config_found = cfg != NULL;
	k->config_source = src ? src : vw_xstrdup("");
	k->intel_default_on = cfg ? config_bool(cfg, "CONFIG_INTEL_IOMMU_DEFAULT_ON") : VW_UNKNOWN;
	k->intel_default_intgpu_off = cfg ? config_bool(cfg, "CONFIG_INTEL_IOMMU_DEFAULT_ON_INTGPU_OFF") : VW_UNKNOWN;
	k->vfio_builtin = cfg && config_bool(cfg, "CONFIG_VFIO_PCI") == VW_YES;
	free(cfg);

	probe_acs_support(k, sr);
	vw_cmdline_get(k->params, k->nparams, "pcie_acs_override", &present);
	k->acs_override_active = present && k->acs_override_support != VW_NO;
}

void vw_probe_iommu(struct vw_facts *f, const struct vw_sysroot *sr)
{
	struct vw_iommu *io = &f->iommu;
	const struct vw_kernel *k = &f->kernel;
	const char *v;
	char **groups, *irq;
	int n;

	n = vw_sysroot_list(sr, "sys/class/iommu", &io->units);
	io->nunits = n > 0 ? (size_t)n : 0;
	n = vw_sysroot_list(sr, "sys/kernel/iommu_groups", &groups);
	io->ngroups = n > 0 ? (size_t)n : 0;
	vw_strv_free(groups);

	v = vw_cmdline_get(k->params, k->nparams, "intel_iommu", NULL);
	if (v && strstr(v, "off"))
		io->cmdline_off = true;
	if (v && (strstr(v, "on") && !strstr(v, "off")))
		io->cmdline_on = true;
	v = vw_cmdline_get(k->params, k->nparams, "amd_iommu", NULL);
	if (v && !strcmp(v, "off"))
		io->cmdline_off = true;
	v = vw_cmdline_get(k->params, k->nparams, "iommu", NULL);
	if (v && !strcmp(v, "off"))
		io->cmdline_off = true;
	if (v && !strcmp(v, "pt"))
		io->passthrough = true;
	v = vw_cmdline_get(k->params, k->nparams, "iommu.passthrough", NULL);
	if (v && (!strcmp(v, "1") || !strcmp(v, "on") || !strcmp(v, "y")))
		io->passthrough = true;

	/* Interrupt remapping shows as "IR-" interrupt chips in
	 * /proc/interrupts; the kernel log says so too. */
	io->irq_remap = VW_UNKNOWN;
	io->irq_remap_evidence = vw_xstrdup("");
	irq = read_or_null(sr, "proc/interrupts");
	if (irq && *irq) {
		io->irq_remap = (strstr(irq, "IR-PCI-MSI") || strstr(irq, "IR-IO-APIC")) ? VW_YES : VW_NO;
		free(io->irq_remap_evidence);
		io->irq_remap_evidence = vw_xstrdup("/proc/interrupts");
	}
	free(irq);
	irq = read_or_null(sr, ".vfiowiz/cmd/dmesg");
	if (irq && (strstr(irq, "Enabled IRQ remapping") || strstr(irq, "Interrupt remapping enabled"))) {
		io->irq_remap = VW_YES;
		free(io->irq_remap_evidence);
		io->irq_remap_evidence = vw_xstrdup("dmesg");
	}
	free(irq);
}

/* Value of KEY= in an os-release style file, unquoted. */
static char *osrel_field(const char *buf, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = buf; p && *p; ) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		if (len > klen && !strncmp(p, key, klen) && p[klen] == '=') {
			const char *v = p + klen + 1;
			size_t vl = len - klen - 1;
			if (vl >= 2 && (v[0] == '"' || v[0] == '\'') && v[vl - 1] == v[0]) {
				v++;
				vl -= 2;
			}
			return vw_xstrndup(v, vl);
		}
		p = eol ? eol + 1 : NULL;
	}
	return vw_xstrdup("");
}

static bool any_exists(const struct vw_sysroot *sr, const char *const *paths, const char **which)
{
	for (; *paths; paths++)
		if (vw_sysroot_exists(sr, *paths)) {
			if (which)
				*which = *paths;
			return true;
		}
	return false;
}

/* The first back end, in the order of core/backends.h, whose detect()
 * answers: the same chain the plan uses (vw_boot_detect()). */
static void detect_bootloader(struct vw_distro *d, const struct vw_facts *f, const struct vw_sysroot *sr)
{
	const char *which = NULL;

	for (size_t i = 0; vw_boot_backends[i] && !which; i++)
		if ((which = vw_boot_backends[i]->detect(f, sr)))
			d->bootloader = vw_boot_backends[i]->id;
	d->bootloader_evidence = which ? vw_xasprintf("/%s", which) : vw_xstrdup("");
}

static void detect_initramfs(struct vw_distro *d, const struct vw_facts *f, const struct vw_sysroot *sr)
{
	const char *which = NULL;

	for (size_t i = 0; vw_irfs_backends[i] && !which; i++)
		if ((which = vw_irfs_backends[i]->detect(f, sr)))
			d->initramfs = vw_irfs_backends[i]->id;
	d->initramfs_evidence = which ? vw_xasprintf("/%s", which) : vw_xstrdup("");
}

void vw_probe_distro(struct vw_facts *f, const struct vw_sysroot *sr)
{
	static const char *const pve[] = { "usr/bin/pveversion", "etc/pve", "usr/share/perl5/PVE", NULL };
	static const char *const driverctl[] = { "usr/sbin/driverctl", "sbin/driverctl", "usr/bin/driverctl", NULL };
	static const char *const sshd[] = { "usr/sbin/sshd", "sbin/sshd", "usr/bin/sshd", "usr/sbin/dropbear",
					    "usr/bin/dropbear", NULL };
	struct vw_distro *d = &f->distro;
	char *osr = read_or_null(sr, "etc/os-release");

	if (!osr)
		osr = read_or_null(sr, "usr/lib/os-release");
	if (!osr)
		add_note(f, vw_xstrdup(_("no /etc/os-release: distribution unknown")));
	d->id = osrel_field(osr ? osr : "", "ID");
	d->id_like = osrel_field(osr ? osr : "", "ID_LIKE");
	d->version_id = osrel_field(osr ? osr : "", "VERSION_ID");
	d->pretty_name = osrel_field(osr ? osr : "", "PRETTY_NAME");
	free(osr);
	d->proxmox = any_exists(sr, pve, NULL);
	d->grub_d = !strcmp(d->id, "debian") || !strcmp(d->id, "ubuntu") || has_word(d->id_like, "debian") ||
		    has_word(d->id_like, "ubuntu");
	d->driverctl = any_exists(sr, driverctl, NULL);
	d->ssh_server = any_exists(sr, sshd, NULL);
	detect_bootloader(d, f, sr);
	detect_initramfs(d, f, sr);
}

int vw_facts_probe(struct vw_facts *f, const struct vw_sysroot *sr, struct vw_err *err)
{
	return vw_facts_probe_opts(f, sr, NULL, err);
}

/* The host's memory from the first line of /proc/meminfo
 * ("MemTotal:  65799872 kB"), 0 when it cannot be read. */
static long probe_ram_mib(const struct vw_sysroot *sr)
{
	char *line = vw_sysroot_read_line(sr, "proc/meminfo");
	long kb = 0;

	if (line && (sscanf(line, "MemTotal: %ld kB", &kb) != 1 || kb < 0))
		kb = 0;
	free(line);
	return kb / 1024;
}

int vw_facts_probe_opts(struct vw_facts *f, const struct vw_sysroot *sr,
			const struct vw_facts_opts *o, struct vw_err *err)
{
	int r;

	memset(f, 0, sizeof(*f));
	f->root = vw_xstrdup(vw_sysroot_root(sr));
	vw_probe_cpu(f, sr);
	vw_probe_container(f, sr);
	vw_probe_firmware(f, sr);
	vw_probe_kernel(f, sr);
	vw_probe_iommu(f, sr);
	vw_probe_distro(f, sr);
	f->ram_mib = probe_ram_mib(sr);
	r = vw_probe_pci(f, sr, err);
	if (r < 0)
		return r;
	vw_probe_host_roles(f, sr, o);
	return 0;
}

static void free_dev(struct vw_pci_dev *d)
{
	free(d->vendor_name);
	free(d->device_name);
	free(d->driver);
	free(d->reset_method);
	free(d->note);
	vw_sriov_dev_done(d);
	free(d->host_role_why);
}

void vw_facts_done(struct vw_facts *f)
{
	struct vw_cpu *c = &f->cpu;

	free(f->root);
	free(f->ssh_connection);
	free(c->vendor_id), free(c->model), free(c->hypervisor_name);
	free(c->dmi_vendor), free(c->dmi_product);
	free(f->container.kind), free(f->container.evidence);
	free(f->kernel.release), free(f->kernel.version_line), free(f->kernel.cmdline);
	free(f->kernel.config_source), free(f->kernel.acs_override_evidence);
	vw_params_free(f->kernel.params, f->kernel.nparams);
	vw_strv_free(f->iommu.units);
	free(f->iommu.irq_remap_evidence);
	free(f->distro.id), free(f->distro.id_like), free(f->distro.version_id);
	free(f->distro.pretty_name), free(f->distro.bootloader_evidence);
	free(f->distro.initramfs_evidence);
	for (size_t i = 0; i < f->ndevs; i++)
		free_dev(&f->devs[i]);
	free(f->devs);
	vw_sriov_facts_done(f);
	for (size_t i = 0; i < f->ngroups; i++) {
		free(f->groups[i].type);
		free(f->groups[i].devs);
		free(f->groups[i].note);
	}
	free(f->groups);
	for (size_t i = 0; i < f->nnotes; i++)
		free(f->notes[i]);
	free(f->notes);
	memset(f, 0, sizeof(*f));
}

int vw_facts_find_dev(const struct vw_facts *f, const char *addr)
{
	for (size_t i = 0; i < f->ndevs; i++)
		if (!strcasecmp(f->devs[i].addr, addr))
			return (int)i;
	return -1;
}

const struct vw_group *vw_facts_group(const struct vw_facts *f, int id)
{
	for (size_t i = 0; i < f->ngroups; i++)
		if (f->groups[i].id == id)
			return &f->groups[i];
	return NULL;
}

bool vw_dev_is_display(const struct vw_pci_dev *d)
{
	unsigned cls = d->class_code >> 8;
	return cls == 0x0300 || cls == 0x0302 || cls == 0x0380;
}

bool vw_dev_is_nvswitch(const struct vw_pci_dev *d)
{
	return d->vendor == 0x10de && (d->class_code >> 8) == 0x0680;
}

bool vw_dev_is_bridge(const struct vw_pci_dev *d)
{
	return (d->class_code >> 16) == 0x06 && !vw_dev_is_nvswitch(d);
}

bool vw_dev_is_emulated(const struct vw_pci_dev *d)
{
	static const unsigned vendors[] = {
		0x1234,	/* QEMU standard VGA (bochs) */
		0x1b36,	/* Red Hat: QXL */
		0x1af4,	/* virtio-gpu */
		0x15ad,	/* VMware SVGA */
		0x80ee,	/* VirtualBox */
		0x1414,	/* Hyper-V */
		0x1013,	/* Cirrus (QEMU's old default) */
	};

	for (size_t i = 0; i < VW_ARRAY_SIZE(vendors); i++)
		if (d->vendor == vendors[i])
			return vw_dev_is_display(d);
	return false;
}

bool vw_dev_same_slot(const struct vw_pci_dev *a, const struct vw_pci_dev *b)
{
	/* A VF goes to a VM alone: its PF and sibling VFs are no companions. */
	if (a->vf || b->vf)
		return a == b || !strcmp(a->addr, b->addr);
	return a->domain == b->domain && a->bus == b->bus && a->dev == b->dev;
}

#define NAME_(e, sym, name, label) [VW_BL_##e] = name,
#define LABEL_(e, sym, name, label) [VW_BL_##e] = label,
static const char *const bl_names[] = { [VW_BL_UNKNOWN] = "unknown", VW_BOOTLOADERS(NAME_) };
static const char *const bl_labels[] = { VW_BOOTLOADERS(LABEL_) };
#undef NAME_
#undef LABEL_
#define NAME_(e, sym, name, label) [VW_IRFS_##e] = name,
#define LABEL_(e, sym, name, label) [VW_IRFS_##e] = label,
static const char *const irfs_names[] = { [VW_IRFS_UNKNOWN] = "unknown", VW_INITRAMFS_TOOLS(NAME_) };
static const char *const irfs_labels[] = { VW_INITRAMFS_TOOLS(LABEL_) };
#undef NAME_
#undef LABEL_

const char *vw_bootloader_name(enum vw_bootloader b)
{
	return b > 0 && b < VW_BL_COUNT ? bl_names[b] : "unknown";
}

const char *vw_initramfs_name(enum vw_initramfs i)
{
	return i > 0 && i < VW_IRFS_COUNT ? irfs_names[i] : "unknown";
}

const char *vw_bootloader_label(enum vw_bootloader b)
{
	return b > 0 && b < VW_BL_COUNT ? bl_labels[b] : _("unknown");
}

const char *vw_initramfs_label(enum vw_initramfs i)
{
	return i > 0 && i < VW_IRFS_COUNT ? irfs_labels[i] : _("unknown");
}

const char *vw_role_name(enum vw_dev_role r)
{
	static const char *const names[] = {
		[VW_ROLE_OTHER] = "other", [VW_ROLE_GPU] = "gpu", [VW_ROLE_COMPANION] = "companion",
		[VW_ROLE_NVSWITCH] = "nvswitch", [VW_ROLE_BRIDGE] = "bridge",
	};
	return (unsigned)r < VW_ARRAY_SIZE(names) ? names[r] : "other";
}

const char *vw_verdict_name(enum vw_group_verdict v)
{
	static const char *const names[] = {
		[VW_GROUP_ISOLATED] = "isolated", [VW_GROUP_BRIDGES_ONLY] = "bridges-only",
		[VW_GROUP_SHARED] = "shared", [VW_GROUP_EMPTY] = "empty",
	};
	return (unsigned)v < VW_ARRAY_SIZE(names) ? names[v] : "isolated";
}
