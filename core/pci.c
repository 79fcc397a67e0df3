/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pci.c - PCI functions and IOMMU groups, through libpci pointed at the
 * sysroot's /sys/bus/pci.
 *
 * libpci reports fatal problems through a->error, which must not return; we
 * longjmp out of it, so one broken device gets a note and the rest is still
 * listed (and the program never exits underneath the terminal). */
#define _GNU_SOURCE
#include "facts.h"
#include "bars.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pci/pci.h>

static sigjmp_buf pci_jmp;
static bool pci_jmp_armed;
static char pci_msg[512];

static const char *pci_root;	/* sysroot prefix, cut from libpci's messages */

static void __attribute__((noreturn)) pci_fatal(char *msg, ...)
{
	size_t n = pci_root ? strlen(pci_root) : 0;
	char *hit;
	va_list ap;

	va_start(ap, msg);
	vsnprintf(pci_msg, sizeof(pci_msg), msg, ap);
	va_end(ap);
	/* Paths are shown as the host sees them: "/sys/...", not "/tmp/x/sys/...". */
	while (n && (hit = strstr(pci_msg, pci_root)))
		memmove(hit, hit + n, strlen(hit + n) + 1);
	if (pci_jmp_armed)
		siglongjmp(pci_jmp, 1);
	/* Not reached: every libpci call below runs with the jump armed. */
	abort();
}

static void pci_quiet(char *msg, ...)
{
	(void)msg;
}

static bool parse_addr(const char *name, struct vw_pci_dev *d)
{
	unsigned dom, bus, dev, fn;
	char tail;

	if (sscanf(name, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) != 4)
		return false;
	if (dom > 0xffff || bus > 0xff || dev > 0x1f || fn > 7)
		return false;
	d->domain = dom, d->bus = bus, d->dev = dev, d->func = fn;
	snprintf(d->addr, sizeof(d->addr), "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return true;
}

static int cmp_dev(const void *a, const void *b)
{
	const struct vw_pci_dev *x = a, *y = b;

	if (x->domain != y->domain)
		return x->domain < y->domain ? -1 : 1;
	if (x->bus != y->bus)
		return x->bus < y->bus ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return (int)x->func - (int)y->func;
}

static char *dup_name(struct pci_access *a, int flags, unsigned v, unsigned d)
{
	char buf[256];
	const char *n = pci_lookup_name(a, buf, sizeof(buf), flags | PCI_LOOKUP_NO_NUMBERS, v, d);
	return vw_xstrdup(n ? n : "");
}

/* The last component of a link's target ("nvidia" for a driver link), as
 * lspci -k reads it: one readlinkat in the device's directory instead of
 * libpci's realpath() of the whole path (a readlink per component).  The
 * kernel's links are relative; an absolute one (a damaged tree) would name
 * a file of the machine we run on, not of the root: unknown. */
static char *link_base(int dfd, const char *name)
{
	char target[PATH_MAX], *slash;
	ssize_t n = readlinkat(dfd, name, target, sizeof(target) - 1);

	if (n <= 0 || target[0] == '/')
		return NULL;
	target[n] = '\0';
	while (n > 1 && target[n - 1] == '/')
		target[--n] = '\0';
	slash = strrchr(target, '/');
	return vw_xstrdup(slash ? slash + 1 : target);
}

/* Parent address from where the device's directory really is
 * ("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0", resolved inside the
 * root when dfd was opened): the component before the last, when it is a
 * PCI address. */
static void parent_addr(const struct vw_sysroot *sr, int dfd, char *out, size_t n)
{
	const char *root = vw_sysroot_root(sr);
	size_t rn = strlen(root);
	char proc[64], real[PATH_MAX], *last, *prev;
	struct vw_pci_dev tmp;
	ssize_t len;

	out[0] = '\0';
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dfd);
	len = readlink(proc, real, sizeof(real) - 1);
	if (len <= 0)
		return;
	real[len] = '\0';
	if (strncmp(real, root, rn) != 0 || (real[rn] != '/' && real[rn] != '\0'))
		return;
	last = strrchr(real, '/');
	if (last) {
		*last = '\0';
		prev = strrchr(real, '/');
		prev = prev ? prev + 1 : real;
		if (parse_addr(prev, &tmp))
			snprintf(out, n, "%s", tmp.addr);
	}
}

static void set_note(struct vw_pci_dev *d, const char *fmt, ...) VW_PRINTF(2, 3);
static void set_note(struct vw_pci_dev *d, const char *fmt, ...)
{
	struct vw_buf b = VW_BUF_INIT;
	va_list ap;

	if (d->note && *d->note) {
		vw_buf_adds(&b, d->note);
		vw_buf_adds(&b, "; ");
	}
	va_start(ap, fmt);
	vw_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	free(d->note);
	d->note = vw_buf_steal(&b);
}

/* Capabilities: PCIe port type, ACS, multifunction.  Needs config space
 * beyond 64 bytes, which only root can read on a live host.  cached: the
 * bytes cache_config() read, -1 when it read none. */
static void read_caps(struct pci_dev *p, struct vw_pci_dev *d, int cached)
{
	struct pci_cap *cap;
	u8 probe[4];

	if (cached >= 0)
		d->config_full = cached >= 0x40 + (int)sizeof(probe);
	else
		d->config_full = pci_read_block(p, 0x40, probe, sizeof(probe)) != 0;
	d->multifunction = (pci_read_byte(p, PCI_HEADER_TYPE) & 0x80) != 0;
	d->pcie_type = VW_PCIE_NONE;
	if (!d->config_full)
		return;
	cap = pci_find_cap(p, PCI_CAP_ID_EXP, PCI_CAP_NORMAL);
	if (cap)
		d->pcie_type = (enum vw_pcie_type)((pci_read_word(p, cap->addr + PCI_EXP_FLAGS) &
						    PCI_EXP_FLAGS_TYPE) >> 4);
	d->sriov_cap = pci_find_cap(p, PCI_EXT_CAP_ID_SRIOV, PCI_CAP_EXTENDED) != NULL;
	cap = pci_find_cap(p, PCI_EXT_CAP_ID_ACS, PCI_CAP_EXTENDED);
	if (cap) {
		d->has_acs = true;
		d->acs_cap = pci_read_word(p, cap->addr + PCI_ACS_CAP);
		d->acs_ctrl = pci_read_word(p, cap->addr + PCI_ACS_CTRL);
	}
}

/* The group and the driver are read from their links (link_base()). */
static const unsigned fill_flags = PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_CLASS_EXT |
	PCI_FILL_SUBSYS | PCI_FILL_NUMA_NODE | PCI_FILL_CAPS | PCI_FILL_EXT_CAPS;

/* Read config space once (one pread of up to 4096 bytes from the device's
 * directory dfd) and let libpci answer every later read, the capability
 * walks included, from it; lspci caches it the same way.  *len is what the
 * file gave: 4096 or 256 as root, 64 for anyone else on a live host.
 * Returns the buffer (caller frees after pci_free_dev()), or NULL when it
 * cannot be read: libpci then reads (and reports) it itself. */
static u8 *cache_config(struct pci_dev *p, int dfd, int *len)
{
	u8 *cfg;
	ssize_t n;
	int fd;

	*len = 0;
	if (dfd < 0)
		return NULL;
	fd = openat(dfd, "config", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	cfg = vw_xmalloc(4096);
	n = pread(fd, cfg, 4096, 0);
	close(fd);
	if (n < 64) {
		free(cfg);
		return NULL;
	}
	*len = (int)n;
	pci_setup_cache(p, cfg, *len);
	return cfg;
}

/* Everything libpci knows about one function, and its group and driver
 * from the links in its directory dfd (-1: unreadable); false when libpci
 * gave up. */
static bool fill_dev(struct pci_access *a, struct vw_pci_dev *d, int dfd)
{
	struct pci_dev *volatile p = NULL;
	u8 *volatile cfg = NULL;
	int cfg_len;
	char *s;

	if (sigsetjmp(pci_jmp, 0)) {
		set_note(d, _("cannot read this device: %s"), pci_msg);
		if (p)
			pci_free_dev(p);
		free(cfg);
		return false;
	}
	p = pci_get_dev(a, (int)d->domain, (int)d->bus, (int)d->dev, (int)d->func);
	cfg = cache_config(p, dfd, &cfg_len);
	pci_fill_info(p, fill_flags);
	d->vendor = p->vendor_id;
	d->device = p->device_id;
	d->class_code = ((unsigned)p->device_class << 8) | p->prog_if;
	d->revision = p->rev_id;
	d->has_subsys = (p->known_fields & PCI_FILL_SUBSYS) != 0;
	if (d->has_subsys) {
		d->subvendor = p->subsys_vendor_id;
		d->subdevice = p->subsys_id;
	}
	d->numa_node = (p->known_fields & PCI_FILL_NUMA_NODE) ? p->numa_node : -1;
	s = dfd >= 0 ? link_base(dfd, "iommu_group") : NULL;
	if (s) {
		char *end;
		long g = strtol(s, &end, 10);
		d->group = (*end || g < 0 || g > 1000000) ? -1 : (int)g;
		free(s);
	}
	s = dfd >= 0 ? link_base(dfd, "driver") : NULL;
	d->driver = s ? s : vw_xstrdup("");
	read_caps(p, d, cfg ? cfg_len : -1);
	if (d->vendor == 0 || d->vendor == 0xffff)
		set_note(d, _("the vendor id is unreadable or garbage"));
	d->vendor_name = dup_name(a, PCI_LOOKUP_VENDOR, d->vendor, 0);
	d->device_name = dup_name(a, PCI_LOOKUP_DEVICE, d->vendor, d->device);
	if (!*d->device_name && vw_pci_extra_name(d->vendor, d->device)) {
		free(d->device_name);
		d->device_name = vw_xstrdup(vw_pci_extra_name(d->vendor, d->device));
	}
	pci_free_dev(p);
	free(cfg);
	return true;
}

/* A one-line attribute of the device's directory dfd, NULL when absent.
 * A single name, not followed if a link: nothing outside the directory. */
static char *attr_line(int dfd, const char *name)
{
	char buf[256];
	ssize_t n;
	int fd;

	if (dfd < 0)
		return NULL;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return vw_xstrdup(vw_strtrim(buf));
}

static void read_sysfs_extras(const struct vw_sysroot *sr, struct vw_pci_dev *d, int dfd)
{
	char *s, *end;
	long v;

	d->boot_vga = -1;
	if ((s = attr_line(dfd, "boot_vga"))) {
		v = strtol(s, &end, 0);
		if (*s && !*end)
			d->boot_vga = v != 0;
		free(s);
	}
	d->reset_method = attr_line(dfd, "reset_method");
	if (!d->reset_method)
		d->reset_method = vw_xstrdup("");
	vw_bars_read(sr, d);
}

static void assign_roles(struct vw_facts *f)
{
	for (size_t i = 0; i < f->ndevs; i++) {
		struct vw_pci_dev *d = &f->devs[i];

		d->gpu = -1;
		if (vw_dev_is_display(d))
			d->role = VW_ROLE_GPU;
		else if (vw_dev_is_nvswitch(d))
			d->role = VW_ROLE_NVSWITCH;
		else if (vw_dev_is_bridge(d))
			d->role = VW_ROLE_BRIDGE;
	}
	/* Companions: the other functions of a GPU's slot (HDMI audio,
	 * USB-C xHCI, UCSI); the list is sorted, so a slot is contiguous. */
	for (size_t i = 0; i < f->ndevs; i++) {
		struct vw_pci_dev *d = &f->devs[i];

		if (d->role != VW_ROLE_OTHER)
			continue;
		for (size_t j = i; j-- > 0 && vw_dev_same_slot(&f->devs[j], d);)
			if (f->devs[j].role == VW_ROLE_GPU)
				d->gpu = (int)j;
		for (size_t j = i + 1; d->gpu < 0 && j < f->ndevs && vw_dev_same_slot(&f->devs[j], d); j++)
			if (f->devs[j].role == VW_ROLE_GPU)
				d->gpu = (int)j;
		if (d->gpu >= 0)
			d->role = VW_ROLE_COMPANION;
	}
}

static void link_parents(struct vw_facts *f, char (*parents)[16])
{
	for (size_t i = 0; i < f->ndevs; i++)
		f->devs[i].parent = parents[i][0] ? vw_facts_find_dev(f, parents[i]) : -1;
}

static struct vw_group *group_get(struct vw_facts *f, int id)
{
	struct vw_group *g;

	for (size_t i = f->ngroups; i-- > 0;)
		if (f->groups[i].id == id)
			return &f->groups[i];
	f->groups = vw_xreallocarray(f->groups, f->ngroups + 1, sizeof(*f->groups));
	g = &f->groups[f->ngroups++];
	memset(g, 0, sizeof(*g));
	g->id = id;
	return g;
}

static int cmp_group(const void *a, const void *b)
{
	const struct vw_group *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

static enum vw_group_verdict judge(const struct vw_facts *f, const struct vw_group *g)
{
	const struct vw_pci_dev *first = NULL;
	bool bridges = false;

	if (!g->ndevs)
		return VW_GROUP_EMPTY;
	for (size_t i = 0; i < g->ndevs; i++) {
		const struct vw_pci_dev *d = &f->devs[g->devs[i]];

		if (d->role == VW_ROLE_BRIDGE) {
			bridges = true;
			continue;
		}
		if (!first)
			first = d;
		else if (!vw_dev_same_slot(first, d))
			return VW_GROUP_SHARED;
	}
	return bridges && first ? VW_GROUP_BRIDGES_ONLY : VW_GROUP_ISOLATED;
}

static void build_groups(struct vw_facts *f, const struct vw_sysroot *sr)
{
	size_t listed;
	char **names = NULL;
	int n = vw_sysroot_list(sr, "sys/kernel/iommu_groups", &names);

	/* Groups the kernel lists, even those no device points to.  A device
	 * whose link names a group not listed there has none (its link
	 * dangles: libpci's realpath() of it used to fail). */
	for (int i = 0; i < n; i++) {
		char *end, rel[96];
		long id = strtol(names[i], &end, 10);
		struct vw_group *g;

		if (*end || id < 0 || id > 1000000)
			continue;
		g = group_get(f, (int)id);
		snprintf(rel, sizeof(rel), "sys/kernel/iommu_groups/%ld/type", id);
		g->type = vw_sysroot_read_line(sr, rel);
	}
	vw_strv_free(names);
	listed = f->ngroups;
	for (size_t i = 0; i < f->ndevs; i++) {
		struct vw_group *g = NULL;

		if (f->devs[i].group < 0)
			continue;
		for (size_t j = 0; j < listed && !g; j++)
			if (f->groups[j].id == f->devs[i].group)
				g = &f->groups[j];
		if (!g) {
			f->devs[i].group = -1;
			continue;
		}
		g->devs = vw_xreallocarray(g->devs, g->ndevs + 1, sizeof(*g->devs));
		g->devs[g->ndevs++] = (int)i;
	}
	if (f->ngroups)	/* qsort(NULL, 0, ...) is undefined */
		qsort(f->groups, f->ngroups, sizeof(*f->groups), cmp_group);
	for (size_t i = 0; i < f->ngroups; i++) {
		struct vw_group *g = &f->groups[i];

		if (!g->type)
			g->type = vw_xstrdup("");
		g->verdict = judge(f, g);
		g->note = vw_xstrdup(g->verdict == VW_GROUP_EMPTY ?
				     _("the kernel lists this group but no device in it") : "");
	}
}

int vw_probe_pci(struct vw_facts *f, const struct vw_sysroot *sr, struct vw_err *err)
{
	struct pci_access *volatile a = NULL;
	char **names = NULL, (*parents)[16] = NULL, *path;
	int n;

	n = vw_sysroot_list(sr, "sys/bus/pci/devices", &names);
	if (n < 0) {
		/* No PCI bus at all (a container, an odd VM): nothing to list. */
		f->notes = vw_xreallocarray(f->notes, f->nnotes + 1, sizeof(*f->notes));
		f->notes[f->nnotes++] = vw_xasprintf(_("cannot list /sys/bus/pci/devices: %s"), strerror(-n));
		build_groups(f, sr);
		return 0;
	}
	f->devs = vw_xcalloc((size_t)n + 1, sizeof(*f->devs));
	for (int i = 0; i < n; i++) {
		struct vw_pci_dev *d = &f->devs[f->ndevs];

		if (!parse_addr(names[i], d)) {
			f->notes = vw_xreallocarray(f->notes, f->nnotes + 1, sizeof(*f->notes));
			f->notes[f->nnotes++] = vw_xasprintf(_("ignored /sys/bus/pci/devices/%s: not a PCI address"),
							     names[i]);
			memset(d, 0, sizeof(*d));
			continue;
		}
		f->ndevs++;
	}
	vw_strv_free(names);
	if (f->ndevs > 1)
		qsort(f->devs, f->ndevs, sizeof(*f->devs), cmp_dev);

	path = vw_sysroot_path(sr, "sys/bus/pci");
	pci_root = vw_sysroot_root(sr);
	pci_jmp_armed = true;
	if (sigsetjmp(pci_jmp, 0)) {
		pci_jmp_armed = false;
		free(path);
		free(parents);
		if (a)
			pci_cleanup(a);
		return vw_err_set(err, -EIO, _("libpci failed: %s"), pci_msg);
	}
	a = pci_alloc();
	a->error = pci_fatal;
	a->warning = pci_quiet;
	a->debug = pci_quiet;
	a->method = PCI_ACCESS_SYS_BUS_PCI;
	pci_set_param(a, "sysfs.path", path);
	pci_set_param(a, "hwdb.disable", "1");
	pci_init(a);

	parents = vw_xcalloc(f->ndevs + 1, sizeof(*parents));
	for (size_t i = 0; i < f->ndevs; i++) {
		struct vw_pci_dev *d = &f->devs[i];

		char rel[64];
		int dfd;

		d->group = -1;
		d->numa_node = -1;
		/* The device's directory, resolved inside the root once: its
		 * links and attributes are read relative to it. */
		snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s", d->addr);
		dfd = vw_sysroot_openat(sr, rel, O_PATH | O_DIRECTORY, 0);
		if (!fill_dev(a, d, dfd)) {
			d->driver = d->driver ? d->driver : vw_xstrdup("");
			d->vendor_name = vw_xstrdup("");
			d->device_name = vw_xstrdup("");
			d->pcie_type = VW_PCIE_NONE;
		}
		read_sysfs_extras(sr, d, dfd);
		if (dfd >= 0) {
			parent_addr(sr, dfd, parents[i], sizeof(parents[i]));
			close(dfd);
		}
		if (!d->note)
			d->note = vw_xstrdup("");
	}
	/* Re-arm for cleanup: pci_cleanup may report errors too. */
	if (sigsetjmp(pci_jmp, 0) == 0)
		pci_cleanup(a);
	pci_jmp_armed = false;
	free(path);

	link_parents(f, parents);
	free(parents);
	vw_probe_sriov(f, sr);
	assign_roles(f);
	build_groups(f, sr);
	vw_bars_kernel_log(f, sr);
	return 0;
}
