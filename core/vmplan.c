/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vmplan.c - the VM step: the unit slot by slot, back-end choice. */
#include "vmplan.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bars.h"
#include "storage.h"
#include "text.h"

/* ---- slots --------------------------------------------------------------- */

/* A VF is a device of its own in the guest, never a function of its PF's
 * or a sibling VF's slot. */
static bool same_slot(const struct vw_pci_dev *d, const struct vw_vm_slot *s)
{
	return !d->vf && !s->vf && d->domain == s->domain && d->bus == s->bus && d->dev == s->dev;
}

size_t vw_vm_slots(const struct vw_facts *f, const struct vw_unit *u, struct vw_vm_slot **slots)
{
	struct vw_vm_slot *v = NULL;
	size_t n = 0;

	for (size_t i = 0; u && i < u->n; i++) {
		const struct vw_pci_dev *d;
		struct vw_vm_slot *s = NULL;

		if (u->m[i].dev < 0 || (size_t)u->m[i].dev >= f->ndevs)
			continue;
		d = &f->devs[u->m[i].dev];
		for (size_t k = 0; k < n && !s; k++)
			if (same_slot(d, &v[k]))
				s = &v[k];
		if (!s) {
			v = vw_xreallocarray(v, n + 1, sizeof(*v));
			s = &v[n++];
			memset(s, 0, sizeof(*s));
			s->domain = d->domain;
			s->bus = d->bus;
			s->dev = d->dev;
			s->vf = d->vf;
			s->func = d->func;
		}
		s->devs = vw_xreallocarray(s->devs, s->ndevs + 1, sizeof(int));
		s->devs[s->ndevs++] = u->m[i].dev;
		if (vw_dev_is_display(d)) {
			s->gpu = true;
			/* A VF is never the guest's VGA: no legacy VGA ranges. */
			if ((d->class_code >> 8) == 0x0300 && !d->vf)
				s->vga = true;
			if (d->vendor == 0x10de)
				s->nvidia = true;
		}
	}
	for (size_t k = 0; k < n; k++) {
		size_t host = 0;

		/* Members come in address order, but keep functions sorted anyway. */
		for (size_t a = 1; a < v[k].ndevs; a++)
			for (size_t b = a; b > 0 && f->devs[v[k].devs[b - 1]].func >
						      f->devs[v[k].devs[b]].func; b--) {
				int t = v[k].devs[b];

				v[k].devs[b] = v[k].devs[b - 1];
				v[k].devs[b - 1] = t;
			}
		for (size_t i = 0; i < f->ndevs; i++)
			if (same_slot(&f->devs[i], &v[k]))
				host++;
		v[k].all_functions = !v[k].vf && host == v[k].ndevs;
	}
	*slots = v;
	return n;
}

void vw_vm_slots_free(struct vw_vm_slot *slots, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(slots[i].devs);
	free(slots);
}

bool vw_vm_code43(const struct vw_choices *c, const struct vw_facts *f, const struct vw_unit *u)
{
	if (!c->vm.hide_kvm || c->vm.guest_os != VW_GUEST_WINDOWS)
		return false;
	for (size_t i = 0; u && i < u->n; i++) {
		const struct vw_pci_dev *d = &f->devs[u->m[i].dev];

		if (vw_dev_is_display(d) && d->vendor == 0x10de)
			return true;
	}
	return false;
}

/* ---- info ---------------------------------------------------------------- */

void vw_vm_info_init(struct vw_vm_info *i)
{
	memset(i, 0, sizeof(*i));
	i->name = vw_xstrdup("");
	i->config_path = vw_xstrdup("");
	i->commands = vw_xstrdup("");
	i->notes = vw_xcalloc(1, sizeof(char *));
}

void vw_vm_info_done(struct vw_vm_info *i)
{
	free(i->name);
	free(i->config_path);
	free(i->commands);
	vw_strv_free(i->notes);
	memset(i, 0, sizeof(*i));
}

void vw_vm_info_note(struct vw_vm_info *i, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vw_strv_vaddf(&i->notes, &i->nnotes, fmt, ap);
	va_end(ap);
}

/* ---- helpers ------------------------------------------------------------- */

bool vw_vm_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > 64 || name[0] == '.' || name[0] == '-')
		return false;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._+-", *p))
			return false;
	return true;
}

int vw_vm_vnc_password_check(const char *password, struct vw_err *err)
{
	size_t n = strlen(password);

	if (n == 0)
		return vw_err_set(err, -EINVAL,
				  _("VNC on the host needs a password (libvirt takes an empty one as \"no access\"): set access.vnc_password"));
	if (n > VW_VNC_PASSWORD_MAX)
		return vw_err_set(err, -EINVAL,
				  _("the VNC password has %zu characters: VNC uses at most %d and libvirt refuses a longer one when the domain is defined"),
				  n, VW_VNC_PASSWORD_MAX);
	if (!vw_text_ok(password))	/* it goes into XML */
		return vw_err_set(err, -EINVAL, _("the VNC password holds a control character or bytes that are not UTF-8"));
	if (!password[strspn(password, " ")])
		return vw_err_set(err, -EINVAL, _("the VNC password is only blanks: anyone could guess it"));
	return 0;
}

long vw_vm_memory_max(const struct vw_facts *f)
{
	long keep;

	if (!f || f->ram_mib <= 0)
		return 0;
	/* An eighth, at least 2 GiB; a small host (a test VM) a quarter. */
	keep = f->ram_mib / 4 < 2048 ? f->ram_mib / 4 : 2048;
	keep = f->ram_mib / 8 > keep ? f->ram_mib / 8 : keep;
	keep = keep > 8192 ? 8192 : keep;
	return f->ram_mib > keep ? f->ram_mib - keep : 0;
}

int vw_vm_memory_check(const struct vw_facts *f, long mib, struct vw_err *err)
{
	long max = vw_vm_memory_max(f);

	if (!f || f->ram_mib <= 0 || mib <= max)
		return 0;
	return vw_err_set(err, -EINVAL,
			  _("the VM would have %ld MiB of this host's %ld MiB: a VM with a passed-through device keeps all its memory pinned, and the host needs the rest to live; give the VM at most %ld MiB"),
			  mib, f->ram_mib, max);
}

int vw_vm_check_whole_disk(const struct vw_sysroot *sr, const char *path, struct vw_err *err)
{
	struct vw_storage st;
	const struct vw_blk_disk *disk = NULL;
	int rc = vw_storage_list(sr, &st, err);

	if (rc == 0)
		rc = vw_storage_check_disk(&st, path, &disk, err);
	vw_storage_done(&st);
	return rc;
}

/* Highest NNN of NNN.conf in dir, or 0. */
static long max_conf_id(const struct vw_sysroot *sr, const char *dir)
{
	char **names = NULL;
	long max = 0;

	if (vw_sysroot_list(sr, dir, &names) < 0)
		return 0;
	for (size_t i = 0; names[i]; i++) {
		char *end;
		long id = strtol(names[i], &end, 10);

		if (end != names[i] && isdigit((unsigned char)names[i][0]) &&
		    strcmp(end, ".conf") == 0 && id > max && id < 1000000000)
			max = id;
	}
	vw_strv_free(names);
	return max;
}

long vw_pve_next_vmid(const struct vw_sysroot *sr)
{
	long max = max_conf_id(sr, "etc/pve/qemu-server");
	char **nodes = NULL;

	if (vw_sysroot_list(sr, "etc/pve/nodes", &nodes) >= 0) {
		for (size_t i = 0; nodes[i]; i++) {
			static const char *const sub[] = { "qemu-server", "lxc" };

			for (size_t k = 0; k < VW_ARRAY_SIZE(sub); k++) {
				char *d = vw_xasprintf("etc/pve/nodes/%s/%s", nodes[i], sub[k]);
				long m = max_conf_id(sr, d);

				if (m > max)
					max = m;
				free(d);
			}
		}
		vw_strv_free(nodes);
	}
	return max < 100 ? 100 : max + 1;
}

static bool hex_run(const char *s, size_t n, size_t min, size_t max)
{
	if (n < min || n > max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]) && !(s[i] >= 'a' && s[i] <= 'f'))
			return false;
	return true;
}

/* [DOMAIN:]BB:DD[.F], lowercase hex (docs/formats.md section 7). */
static bool pci_id_ok(const char *s, size_t n)
{
	const char *colon = memchr(s, ':', n);
	size_t ncolons = 0;

	for (size_t i = 0; i < n; i++)
		ncolons += s[i] == ':';
	if (!colon || ncolons > 2)
		return false;
	if (ncolons == 2) {
		if (!hex_run(s, (size_t)(colon - s), 4, 8))
			return false;
		n -= (size_t)(colon - s) + 1;
		s = colon + 1;
	}
	if (n < 5 || !hex_run(s, 2, 2, 2) || s[2] != ':' || !hex_run(s + 3, 2, 2, 2))
		return false;
	if (n == 5)
		return true;
	return n == 7 && s[5] == '.' && s[6] >= '0' && s[6] <= '7';
}

static bool bool_ok(const char *v)
{
	static const char *const ok[] = { "0", "1", "on", "off", "yes", "no", "true", "false" };

	for (size_t i = 0; i < VW_ARRAY_SIZE(ok); i++)
		if (strcmp(v, ok[i]) == 0)
			return true;
	return false;
}

bool vw_pve_hostpci_valid(const char *value, struct vw_err *err)
{
	static const char *const bools[] = { "pcie", "x-vga", "rombar", "legacy-igd" };
	static const char *const hexes[] = { "device-id", "vendor-id", "sub-device-id",
					     "sub-vendor-id" };
	char *copy = vw_xstrdup(value), *save = NULL, *tok;
	bool host = false, mapping = false, ok = true, first = true;
	char seen[16][16];
	size_t nseen = 0;

	for (tok = strtok_r(copy, ",", &save); tok && ok; tok = strtok_r(NULL, ",", &save), first = false) {
		char *eq = strchr(tok, '=');
		const char *key = eq ? tok : "host", *v = eq ? eq + 1 : tok;
		bool known = false;

		if (eq)
			*eq = '\0';
		else if (!first) {
			ok = false;
			vw_err_set(err, -EINVAL, _("hostpci: '%s' has no key"), tok);
			break;
		}
		for (size_t i = 0; i < nseen; i++)
			if (strcmp(seen[i], key) == 0) {
				ok = false;
				vw_err_set(err, -EINVAL, _("hostpci: key '%s' given twice"), key);
			}
		if (!ok)
			break;
		if (nseen < VW_ARRAY_SIZE(seen) && strlen(key) < sizeof(seen[0]))
			strcpy(seen[nseen++], key);
		if (strcmp(key, "host") == 0) {
			const char *p = v;

			known = host = true;
			do {
				size_t n = strcspn(p, ";");

				if (!pci_id_ok(p, n)) {
					ok = false;
					vw_err_set(err, -EINVAL, _("hostpci: bad PCI address '%s'"), v);
				}
				p += n;
			} while (ok && *p++ == ';');
		} else if (strcmp(key, "mapping") == 0) {
			known = mapping = true;
			ok = isalpha((unsigned char)v[0]);
			for (const char *p = v; *p && ok; p++)
				ok = isalnum((unsigned char)*p) || *p == '-' || *p == '_';
			if (!ok)
				vw_err_set(err, -EINVAL, _("hostpci: bad mapping id '%s'"), v);
		} else if (strcmp(key, "romfile") == 0 || strcmp(key, "mdev") == 0) {
			known = true;
			ok = *v && !strchr(v, '/') && !strchr(v, ';');
			if (!ok)
				vw_err_set(err, -EINVAL, _("hostpci: bad %s '%s'"), key, v);
		} else if (strcmp(key, "driver") == 0) {
			known = true;
			ok = strcmp(v, "vfio") == 0 || strcmp(v, "keep") == 0;
			if (!ok)
				vw_err_set(err, -EINVAL, _("hostpci: bad %s '%s'"), key, v);
		}
		for (size_t i = 0; i < VW_ARRAY_SIZE(bools) && !known; i++)
			if (strcmp(key, bools[i]) == 0) {
				known = true;
				ok = bool_ok(v);
				if (!ok)
					vw_err_set(err, -EINVAL, _("hostpci: bad %s '%s'"), key, v);
			}
		for (size_t i = 0; i < VW_ARRAY_SIZE(hexes) && !known; i++)
			if (strcmp(key, hexes[i]) == 0) {
				const char *h = strncmp(v, "0x", 2) == 0 ? v + 2 : v;

				known = true;
				ok = hex_run(h, strlen(h), 1, 4);
				if (!ok)
					vw_err_set(err, -EINVAL, _("hostpci: bad %s '%s'"), key, v);
			}
		if (ok && !known) {
			ok = false;
			vw_err_set(err, -EINVAL, _("hostpci: unknown key '%s'"), key);
		}
	}
	if (ok && host == mapping) {
		ok = false;
		vw_err_set(err, -EINVAL, host ? _("hostpci: host and mapping exclude each other")
					      : _("hostpci: neither host nor mapping"));
	}
	free(copy);
	return ok;
}

/* ---- back-end choice ------------------------------------------------------ */

#define OPS_(e, sym, name, value) &vw_vm_##sym##_ops,
const struct vw_vm_ops *const vw_vm_backends[] = { VW_VM_TARGETS(OPS_) NULL };
#undef OPS_
#define BY_TARGET_(e, sym, name, value) [VW_VM_##e] = &vw_vm_##sym##_ops,
static const struct vw_vm_ops *const by_target[VW_VM_TARGET_COUNT] = { VW_VM_TARGETS(BY_TARGET_) };
#undef BY_TARGET_

const struct vw_vm_ops *vw_vm_ops_get(enum vw_vm_target t)
{
	/* Not a target (a corrupt state): the answers' default, 0. */
	return by_target[(unsigned)t < VW_VM_TARGET_COUNT ? t : 0];
}

const struct vw_vm_ops *vw_vm_detect(const struct vw_sysroot *sr, const struct vw_facts *f)
{
	for (size_t i = 0; vw_vm_backends[i]; i++)
		if (vw_vm_backends[i]->detect(sr, f))
			return vw_vm_backends[i];
	return NULL;
}

int vw_vm_check_iso(const struct vw_sysroot *sr, const char *path, const char *what,
		    struct vw_err *err)
{
	if (path[0] != '/')
		return vw_err_set(err, -EINVAL, _("%s: %s is not an absolute path"), what, path);
	if (!vw_sysroot_exists(sr, path + 1) || vw_sysroot_is_dir(sr, path + 1))
		return vw_err_set(err, -ENOENT, _("%s: %s does not exist on this host"), what, path);
	return 0;
}

void vw_vm_bars_get(const struct vw_facts *f, const struct vw_unit *u, struct vw_vm_bars *b)
{
	memset(b, 0, sizeof(*b));
	for (size_t i = 0; u && i < u->n; i++) {
		b->sum64 += vw_bars_sum64(f, &u->m[i].dev, 1);
		if (vw_bars_max(f, &u->m[i].dev, 1) > b->max)
			b->max = vw_bars_max(f, &u->m[i].dev, 1);
	}
	b->mmio_mb = vw_bars_mmio_mb(b->sum64);
	b->large = b->max >= VW_BAR_LARGE;
}

char *vw_vm_mmio_fwcfg(const struct vw_vm_bars *b)
{
	return vw_xasprintf("name=opt/ovmf/X-PciMmio64Mb,string=%llu", (unsigned long long)b->mmio_mb);
}

/* Notes shared by the back ends: the window, and memory for big guests. */
static void bars_notes(struct vw_vm_info *info, const struct vw_vm_bars *b, long memory_mib)
{
	char sum[32], max[32], win[32];

	if (b->mmio_mb)
		vw_vm_info_note(info, _("The GPU's 64-bit BARs add up to %s (the largest is %s): the VM gets a %s MMIO window above 4 GiB (OVMF's X-PciMmio64Mb) and the host CPU's physical address width, or its firmware could not map them."),
				vw_size_text(sum, sizeof(sum), b->sum64), vw_size_text(max, sizeof(max), b->max),
				vw_size_text(win, sizeof(win), b->mmio_mb << 20));
	if (memory_mib >= 100 * 1024)
		vw_vm_info_note(info, _("A %ld GiB guest: reserve 1 GiB huge pages for it on the host (kernel parameters default_hugepagesz=1G hugepagesz=1G hugepages=%ld) and back the VM with them (libvirt <memoryBacking><hugepages/></memoryBacking>, Proxmox hugepages: 1024). VFIO pins all of the guest's memory at start: without huge pages that takes minutes and the host must have it free."),
				memory_mib / 1024, (memory_mib + 1023) / 1024);
}

long vw_lg_size_mib(long width, long height)
{
	unsigned long long bytes = (unsigned long long)width * (unsigned long long)height * 4 * 2;
	unsigned long long need = (bytes + (1ull << 20) - 1) / (1ull << 20) + 10, n = 1;

	while (n < need)
		n <<= 1;
	return (long)n;
}

int vw_vmplan_build(struct vw_plan *p, const struct vw_sysroot *sr, const struct vw_facts *f,
		    const struct vw_choices *c, const struct vw_unit *u, struct vw_vm_info *info,
		    struct vw_err *err)
{
	const struct vw_vm_choices *vm = &c->vm;
	const struct vw_vm_ops *ops = vw_vm_ops_get(vm->target);
	struct vw_vm_ctx ctx = { sr, f, c, u };

	vw_vm_info_init(info);
	if (!vm->name[0] && !(ops->uses_vmid && vm->vmid > 0))
		return 0;
	info->planned = true;
	info->target = vm->target;
	info->guest_os = vm->guest_os;
	if ((!u || u->n == 0) && !c->nmdevs && !c->nvgpus)
		return vw_err_set(err, -EINVAL, _("the VM needs at least one device: choose a GPU first"));
	if (vw_vm_memory_check(f, vm->memory_mib, err) < 0)
		return -EINVAL;
	if (c->nvgpus && !ops->vendor_vgpu)
		return vw_err_set(err, -ENOTSUP,
				  _("vfiowiz writes NVIDIA's vendor-specific vGPU types (the vgpu key) for libvirt only: on %s, choose the vGPU type in its own device dialog"),
				  _(ops->label));
	if (c->nmdevs || c->nvgpus) {
		int r = vw_answers_check(c, f, err);

		if (r == 0 && c->nmdevs && !ops->creates_mdevs)
			r = vw_mdev_plan(p, sr, f, c, info, err);
		if (r < 0)
			return r;
	}
	if (vm->mapping && vm->mapping[0] && !ops->pci_mapping) {
		char where[300];

		return vw_err_set(err, -EINVAL,
				  _("%s'vm|mapping' names a Proxmox VE cluster resource mapping: libvirt has none; remove it, or set target = proxmox"),
				  vw_choices_where(c, c->mapping_line, where, sizeof(where)));
	}
	if (vm->looking_glass != VW_LG_NONE) {
		char where[300];

		vw_choices_where(c, c->looking_glass_line, where, sizeof(where));
		if (!ops->looking_glass)
			return vw_err_set(err, -EINVAL,
					  _("%slooking_glass is planned for libvirt VMs only; on Proxmox VE add the ivshmem device by hand (args: -device ivshmem-plain,...)"),
					  where);
		if (u->only_display)
			return vw_err_set(err, -EPERM,
					  _("%slooking_glass needs a display the host keeps, to show the guest's frames on: this VM takes every GPU of the host. Use it on a host with a second GPU, or set looking_glass = none"),
					  where);
	}
	if (!ops->detect(sr, f))
		/* TRANSLATORS: %s is "libvirt" or "Proxmox VE". */
		vw_vm_info_note(info, _("This host does not look like a %s host: the VM's post-commands will fail until it is installed."),
				ops->product);
	{
		struct vw_vm_bars b;
		int rc = ops->plan(p, &ctx, info, err);

		if (rc == 0) {
			vw_vm_bars_get(f, u, &b);
			bars_notes(info, &b, vm->memory_mib);
		}
		return rc;
	}
}
