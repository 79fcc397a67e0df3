/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hostplan.c - the host part of the plan, from facts and choices.
 *
 * Order matters for the post-commands (they run in the order their
 * changes were first added): binding (modprobe.d), then early loading and
 * the initramfs rebuild, then the bootloader, whose refresh may copy the
 * new image (proxmox-boot-tool). */
#include "hostplan.h"
#include "augedit.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "hooks.h"
#include "findings.h"

#define BOOT_(e, sym, name, label) &vw_boot_##sym,
#define IRFS_(e, sym, name, label) &vw_irfs_##sym,
const struct vw_boot_ops *const vw_boot_backends[] = { VW_BOOTLOADERS(BOOT_) NULL };
const struct vw_irfs_ops *const vw_irfs_backends[] = { VW_INITRAMFS_TOOLS(IRFS_) NULL };
#undef BOOT_
#undef IRFS_

const struct vw_boot_ops *vw_boot_find(enum vw_bootloader id)
{
	for (size_t i = 0; vw_boot_backends[i]; i++)
		if (vw_boot_backends[i]->id == id)
			return vw_boot_backends[i];
	return NULL;
}

const struct vw_irfs_ops *vw_irfs_find(enum vw_initramfs id)
{
	for (size_t i = 0; vw_irfs_backends[i]; i++)
		if (vw_irfs_backends[i]->id == id)
			return vw_irfs_backends[i];
	return NULL;
}

const struct vw_boot_ops *vw_boot_detect(const struct vw_facts *f, const struct vw_sysroot *sr)
{
	(void)sr;
	return vw_boot_find(f->distro.bootloader);
}

const struct vw_irfs_ops *vw_irfs_detect(const struct vw_facts *f, const struct vw_sysroot *sr)
{
	(void)sr;
	return vw_irfs_find(f->distro.initramfs);
}

/* ---- helpers for back ends ------------------------------------------------ */

void vw_host_note(struct vw_host *h, const char *fmt, ...)
{
	struct vw_buf b = VW_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	vw_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < h->hp->nnotes; i++)
		if (!strcmp(h->hp->notes[i], b.data)) {
			vw_buf_done(&b);
			return;
		}
	h->hp->notes = vw_xreallocarray(h->hp->notes, h->hp->nnotes + 1, sizeof(char *));
	h->hp->notes[h->hp->nnotes++] = vw_buf_steal(&b);
}

int vw_host_put(struct vw_host *h, const char *path, const char *data, mode_t mode,
		const char *why, const char *const *post, struct vw_err *err)
{
	struct vw_file_spec s = {
		.path = path, .data = data, .len = strlen(data), .mode = mode, .why = why, .post = post,
	};

	return vw_plan_add(h->plan, h->sr, &s, err);
}

int vw_host_read(struct vw_host *h, const char *path, char **data, struct vw_err *err)
{
	size_t len;
	int r = vw_plan_read(h->plan, h->sr, path, data, &len, err);

	if (r == -ENOENT) {
		vw_err_clear(err);
		*data = NULL;
		return 0;
	}
	if (r == 0 && memchr(*data, '\0', len)) {
		free(*data);
		*data = NULL;
		return vw_err_set(err, -EINVAL, _("/%s is not a text file (it holds a NUL byte): repair it, then plan again"),
				  vw_startswith(path, "/") ? path + 1 : path);
	}
	return r;
}

void vw_host_check(struct vw_host *h, const char *after, const char *cmd,
		   const char *const *expect, const char *why)
{
	struct vw_check *c;
	size_t n = 0;

	while (expect && expect[n])
		n++;
	h->hp->checks = vw_xreallocarray(h->hp->checks, h->hp->nchecks + 1, sizeof(*h->hp->checks));
	c = &h->hp->checks[h->hp->nchecks++];
	c->after = vw_xstrdup(after);
	c->cmd = vw_xstrdup(cmd);
	c->expect = vw_xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		c->expect[i] = vw_xstrdup(expect[i]);
	c->why = why;
}

void vw_hostplan_done(struct vw_hostplan *hp)
{
	for (size_t i = 0; i < hp->nnotes; i++)
		free(hp->notes[i]);
	free(hp->notes);
	for (size_t i = 0; i < hp->nchecks; i++) {
		free(hp->checks[i].after);
		free(hp->checks[i].cmd);
		vw_strv_free(hp->checks[i].expect);
	}
	free(hp->checks);
	free(hp->devs);
	free(hp->vfs);
	memset(hp, 0, sizeof(*hp));
}

/* ---- the pieces ------------------------------------------------------------- */

static int release_cmp(const char *rel, unsigned major, unsigned minor)
{
	unsigned a, b;

	if (sscanf(rel, "%u.%u", &a, &b) != 2)
		return 0;
	if (a != major)
		return a < major ? -1 : 1;
	return b < minor ? -1 : b > minor;
}

/* vfio_virqfd is a module up to 6.1 only (folded into vfio in 6.2): list it
 * only when the running kernel is older and no installed one is newer,
 * since the rebuild covers every installed kernel. */
static bool want_virqfd(const struct vw_facts *f, const struct vw_sysroot *sr)
{
	static const char *const dirs[] = { "usr/lib/modules", "lib/modules" };

	if (!f->kernel.major || release_cmp(f->kernel.release, 6, 2) >= 0)
		return false;
	for (size_t d = 0; d < VW_ARRAY_SIZE(dirs); d++) {
		char **names = NULL;
		int n = vw_sysroot_list(sr, dirs[d], &names);
		bool newer = false;

		for (int i = 0; i < n; i++)
			newer = newer || release_cmp(names[i], 6, 2) >= 0;
		vw_strv_free(names);
		if (newer)
			return false;
	}
	return true;
}

static void set_modules(struct vw_host *h)
{
	bool virqfd = want_virqfd(h->f, h->sr);
	size_t n = 0;

	h->modules = vw_xcalloc(5, sizeof(char *));
	h->modules[n++] = vw_xstrdup("vfio_pci");
	h->modules[n++] = vw_xstrdup("vfio");
	h->modules[n++] = vw_xstrdup("vfio_iommu_type1");
	if (virqfd)
		h->modules[n++] = vw_xstrdup("vfio_virqfd");
}

static bool is_x86(const struct vw_facts *f)
{
	return f->cpu.vendor == VW_CPU_INTEL || f->cpu.vendor == VW_CPU_AMD;
}

/* Like vw_needs_intel_iommu_on(), but from the kernel's defaults only: once
 * our parameter is on the running command line it must stay planned, or the
 * next plan would take it away again. */
static bool needs_intel_on(const struct vw_host *h)
{
	const struct vw_facts *f = h->f;
	const struct vw_kernel *k = &f->kernel;
	bool igpu = false;

	if (f->cpu.vendor != VW_CPU_INTEL || k->intel_default_on == VW_YES)
		return false;
	for (size_t i = 0; i < h->hp->ndevs; i++)
		igpu = igpu || vw_dev_is_igpu(&f->devs[h->hp->devs[i]]);
	return !(k->intel_default_intgpu_off == VW_YES && !igpu);
}

static void add_acs_id(struct vw_acs_override *ov, const struct vw_pci_dev *d, bool *overflow)
{
	for (size_t i = 0; i < ov->nids; i++)
		if (ov->ids[i][0] == d->vendor && ov->ids[i][1] == d->device)
			return;
	if (ov->nids == VW_ACS_MAX_IDS) {
		*overflow = true;
		return;
	}
	ov->ids[ov->nids][0] = d->vendor;
	ov->ids[ov->nids][1] = d->device;
	ov->nids++;
}

static int plan_acs(struct vw_host *h, struct vw_err *err)
{
	const struct vw_facts *f = h->f;
	const struct vw_choices *c = h->c;
	struct vw_acs_override ov = c->acs;
	struct vw_buf val = VW_BUF_INIT;
	bool overflow = false;
	char where[300];

	if (vw_acs_is_none(&ov) && !c->acs_ids)
		return 0;
	vw_choices_where(c, c->acs_line, where, sizeof(where));
	if (f->kernel.acs_override_support != VW_YES)
		return vw_err_set(err, -EPERM,
				  f->kernel.acs_override_support == VW_NO ?
				  _("%sacs_override refused: this kernel (%s) does not carry the ACS override patch, so the parameter would do nothing. Use a kernel that has it (Proxmox, linux-zen)") :
				  _("%sacs_override refused: cannot tell whether this kernel (%s) carries the ACS override patch. Use a kernel known to have it (Proxmox, linux-zen)"),
				  where, f->kernel.release);
	if (c->acs_ids) {
		/* The chosen functions, and the ports above them that lack ACS. */
		for (size_t k = 0; k < h->hp->ndevs; k++) {
			const struct vw_pci_dev *d = &f->devs[h->hp->devs[k]];

			add_acs_id(&ov, d, &overflow);
			for (int p = d->parent; p >= 0; p = f->devs[p].parent) {
				const struct vw_pci_dev *b = &f->devs[p];

				if (!b->has_acs && (b->pcie_type == VW_PCIE_ROOT_PORT ||
						    b->pcie_type == VW_PCIE_DOWNSTREAM))
					add_acs_id(&ov, b, &overflow);
			}
		}
		if (overflow)
			return vw_err_set(err, -EINVAL,
					  _("%sacs_override = ids needs more than %d ids; use downstream,multifunction instead"),
					  where, VW_ACS_MAX_IDS);
	}
	vw_acs_format(&ov, &val);
	vw_kedits_add(&h->kedits, VW_KOP_SET, "pcie_acs_override", val.data,
		      N_("ACS override: split IOMMU groups (devices may then reach each other's memory)"));
	vw_host_note(h, _("ACS override pcie_acs_override=%s: the kernel will pretend these devices are isolated. A device given to the VM may then read or write memory of the devices it really shares a group with. Never use it on a host shared with people you do not trust."),
		     val.data);
	vw_buf_done(&val);
	return 0;
}

static int plan_params(struct vw_host *h, struct vw_err *err)
{
	const struct vw_facts *f = h->f;

	/* intel_iommu=off, amd_iommu=off, iommu=off turn the IOMMU off:
	 * remove them wherever the bootloader keeps them. */
	vw_kedits_add(&h->kedits, VW_KOP_REMOVE, "intel_iommu", "off",
		      N_("intel_iommu=off turns the IOMMU off"));
	vw_kedits_add(&h->kedits, VW_KOP_REMOVE, "amd_iommu", "off", N_("amd_iommu=off turns the IOMMU off"));
	vw_kedits_add(&h->kedits, VW_KOP_REMOVE, "iommu", "off", N_("iommu=off turns the IOMMU off"));
	if (needs_intel_on(h))
		vw_kedits_add(&h->kedits, VW_KOP_MERGE, "intel_iommu", "on",
			      N_("this kernel leaves the Intel IOMMU off unless told"));
	if (h->c->iommu_pt) {
		if (is_x86(f))
			vw_kedits_add(&h->kedits, VW_KOP_SET, "iommu", "pt",
				      N_("IOMMU passthrough for host devices (faster DMA for the host)"));
		else
			vw_kedits_add(&h->kedits, VW_KOP_SET, "iommu.passthrough", "1",
				      N_("IOMMU passthrough for host devices (faster DMA for the host)"));
	}
	return plan_acs(h, err);
}

static int pick_backends(struct vw_host *h, struct vw_err *err)
{
	const struct vw_choices *c = h->c;
	const struct vw_facts *f = h->f;
	char where[300];

	if (c->bootloader != VW_BL_UNKNOWN) {
		h->hp->boot = vw_boot_find(c->bootloader);
		vw_choices_where(c, c->bootloader_line, where, sizeof(where));
		if (!h->hp->boot || !h->hp->boot->detect(f, h->sr))
			return vw_err_set(err, -EINVAL,
					  _("%sbootloader = %s, but this host shows no sign of it (detected: %s)"),
					  where, vw_bootloader_name(c->bootloader),
					  vw_bootloader_name(f->distro.bootloader));
	} else {
		h->hp->boot = vw_boot_detect(f, h->sr);
		if (!h->hp->boot)
			vw_host_note(h, _("The bootloader could not be detected: the kernel parameters are not planned. Set 'bootloader' in the answers file, or add them by hand."));
	}
	if (c->initramfs != VW_IRFS_UNKNOWN) {
		h->hp->irfs = vw_irfs_find(c->initramfs);
		vw_choices_where(c, c->initramfs_line, where, sizeof(where));
		if (!h->hp->irfs || !h->hp->irfs->detect(f, h->sr))
			return vw_err_set(err, -EINVAL,
					  _("%sinitramfs = %s, but this host shows no sign of it (detected: %s)"),
					  where, vw_initramfs_name(c->initramfs), vw_initramfs_name(f->distro.initramfs));
	} else {
		h->hp->irfs = vw_irfs_detect(f, h->sr);
		if (!h->hp->irfs)
			vw_host_note(h, _("The initramfs tool could not be detected: vfio is not loaded early, and a host driver may take the devices first. Set 'initramfs' in the answers file."));
	}
	return 0;
}

static const char *module_file(const char *mod)
{
	if (!strcmp(mod, "vfio_pci"))
		return "/vfio-pci.ko";
	if (!strcmp(mod, "vfio"))
		return "/vfio.ko";
	if (!strcmp(mod, "vfio_iommu_type1"))
		return "/vfio_iommu_type1.ko";
	if (!strcmp(mod, "vfio_virqfd"))
		return "/vfio_virqfd.ko";
	return NULL;
}

static void plan_checks(struct vw_host *h)
{
	const struct vw_irfs_ops *t = h->hp->irfs;
	const char *expect[10];
	size_t n = 0;
	char *cmd;

	if (!t || !t->list_cmd || !h->rebuild || !h->plan->npost)
		return;
	/* Only when this plan rebuilds the image. */
	{
		bool found = false;

		for (size_t i = 0; i < h->plan->npost; i++)
			found = found || !strcmp(h->plan->post_cmds[i], h->rebuild);
		if (!found)
			return;
	}
	cmd = t->list_cmd(h);
	if (!cmd)
		return;
	for (size_t i = 0; !h->vfio_builtin && h->modules[i] && n < 5; i++)
		if (module_file(h->modules[i]))
			expect[n++] = module_file(h->modules[i]);
	if (t->lists_modprobe)
		expect[n++] = VW_MODPROBE_CONF;
	if (t->lists_modprobe && h->ids_conf)
		expect[n++] = h->ids_conf;
	if (h->bind_script)
		expect[n++] = VW_BIND_SCRIPT;
	expect[n] = NULL;
	vw_host_check(h, h->rebuild, cmd, expect,
		      N_("the new initramfs holds the vfio modules and our configuration"));
	free(cmd);
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* The chosen functions and every function of their slots, sorted. */
static int resolve_devs(struct vw_hostplan *hp, const struct vw_facts *f, const struct vw_choices *c,
			const int *devs, size_t ndevs, struct vw_err *err)
{
	int *idx = NULL;
	size_t n = 0, k = 0;
	int r;

	if (devs) {
		idx = vw_xcalloc(ndevs ? ndevs : 1, sizeof(int));
		for (size_t i = 0; i < ndevs; i++)
			if (devs[i] >= 0 && (size_t)devs[i] < f->ndevs)
				idx[n++] = devs[i];
	} else {
		r = vw_answers_devices(c, f, &idx, &n, err);
		if (r < 0)
			return r;
	}
	hp->devs = vw_xcalloc(f->ndevs + 1, sizeof(int));
	for (size_t d = 0; d < f->ndevs; d++) {
		bool take = false;

		for (size_t i = 0; i < n && !take; i++)
			take = (size_t)idx[i] == d ||
			       (!devs && vw_dev_same_slot(&f->devs[idx[i]], &f->devs[d]) &&
				!vw_dev_is_bridge(&f->devs[d]));
		if (take)
			hp->devs[k++] = (int)d;
	}
	hp->ndevs = k;
	if (k > 1)
		qsort(hp->devs, k, sizeof(int), cmp_int);
	free(idx);
	/* Virtual functions apart: no early binding can reach them. */
	hp->vfs = vw_xcalloc(k + 1, sizeof(int));
	k = 0;
	for (size_t i = 0; i < hp->ndevs; i++) {
		if (f->devs[hp->devs[i]].vf)
			hp->vfs[hp->nvfs++] = hp->devs[i];
		else
			hp->devs[k++] = hp->devs[i];
	}
	hp->ndevs = k;
	return 0;
}

int vw_hostplan_build(struct vw_plan *plan, struct vw_hostplan *hp, const struct vw_facts *f,
		      const struct vw_sysroot *sr, const struct vw_choices *c, const int *devs,
		      size_t ndevs, struct vw_err *err)
{
	struct vw_host h = { .f = f, .sr = sr, .c = c, .plan = plan, .hp = hp };
	int r;

	memset(hp, 0, sizeof(*hp));
	r = resolve_devs(hp, f, c, devs, ndevs, err);
	if (r < 0)
		return r;
	if (!hp->ndevs && !hp->nvfs && !c->nmdevs && !c->nsriov && !c->nvgpus && !c->nmigs) {
		char where[300];

		return vw_err_set(err, -EINVAL, _("%sno devices chosen: list them in 'devices'"),
				  vw_choices_where(c, 0, where, sizeof(where)));
	}
	r = vw_bind_check_lockout(f, c, hp->devs, hp->ndevs, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < hp->ndevs; i++) {
		const struct vw_pci_dev *d = &f->devs[hp->devs[i]];

		if (d->boot_vga == 1 && c->gpu_mode == VW_GPU_DYNAMIC) {
			vw_host_note(&h, _("%s is the boot display: while the VM runs, a local console has no screen (the display manager stops); the host stays reachable over SSH. The screen comes back when the VM stops."),
				     d->addr);
			/* "Reachable over SSH" needs a server to reach. */
			if (!f->over_ssh && !f->distro.ssh_server)
				vw_host_note(&h, _("This session is not over SSH and this host has no SSH server (no sshd): while the VM runs, nothing but the VM can reach the host, and a VM that hangs leaves only the reset button. Install one first (Debian, Ubuntu: apt install openssh-server)."));
		} else if (d->boot_vga == 1)
			vw_host_note(&h, _("%s is the boot display and goes to vfio-pci (allow_host_display = true): after the reboot this host has no local console; reach it over SSH."),
				     d->addr);
	}
	r = pick_backends(&h, err);
	if (r < 0)
		return r;
	r = vw_aug_new(&h.aug, sr, err);
	if (r < 0)
		return r;
	h.vfio_builtin = f->kernel.vfio_builtin;
	set_modules(&h);
	h.rebuild = hp->irfs ? hp->irfs->rebuild : NULL;
	r = plan_params(&h, err);
	/* Dynamic: no binding and no early loading at boot; the hooks bind
	 * while the VM runs (libvirt loads vfio-pci for managed hostdevs). */
	hp->dynamic = c->gpu_mode == VW_GPU_DYNAMIC;
	if (r == 0 && hp->dynamic)
		r = vw_hooks_plan(&h, err);
	else if (r == 0 && hp->ndevs)
		r = vw_bind_plan(&h, err);
	if (r == 0)
		r = hp->nvfs || c->nsriov || c->nvgpus ? vw_sriov_plan(&h, err) : vw_sriov_check_pfs(&h, err);
	if (r == 0)
		r = vw_mig_plan(&h, err);
	if (r == 0 && hp->irfs && hp->ndevs && !hp->dynamic) {
		if (h.vfio_builtin)
			vw_host_note(&h, _("vfio-pci is built into this kernel: it needs no early loading."));
		r = hp->irfs->plan(&h, err);
	}
	if (r == 0 && hp->boot) {
		if (c->test_boot && !hp->boot->plan_test)
			r = vw_err_set(err, -ENOTSUP,
				       _("test_boot = true, but vfiowiz cannot make a one-shot test boot with %s; set test_boot = false"),
				       hp->boot->name);
		else if (c->test_boot)
			r = hp->boot->plan_test(&h, err);
		else
			r = hp->boot->plan(&h, err);
	}
	if (r == 0 && f->iommu.cmdline_off && h.removed_off)
		vw_host_note(&h, _("The running kernel's command line turns the IOMMU off; the plan removes that parameter from the bootloader's configuration."));
	else if (r == 0 && f->iommu.cmdline_off)
		vw_host_note(&h, _("The running kernel's command line turns the IOMMU off (%s), but no file the plan edits sets it: look in the firmware's boot entry or the boot menu."),
			     f->kernel.cmdline);
	if (r == 0 && c->gpu_mode != VW_GPU_DYNAMIC)
		plan_checks(&h);
	hp->turns_iommu_on = r == 0 && hp->boot && !f->iommu.ngroups && (f->fw.dmar || f->fw.ivrs) &&
			     ((f->iommu.cmdline_off && h.removed_off) ||
			      (!f->iommu.cmdline_off && needs_intel_on(&h)));
	if (r == 0 && !f->fw.dmar && !f->fw.ivrs && !f->iommu.ngroups)
		vw_host_note(&h, f->cpu.hypervisor ?
			     _("This is a virtual machine without a virtual IOMMU: the plan alone cannot make passthrough work here.") :
			     _("The firmware publishes no IOMMU (no DMAR or IVRS table): enable VT-d or AMD-Vi in the firmware setup too, or the plan alone will not make passthrough work."));
	if (r == 0 && f->iommu.irq_remap == VW_NO)
		vw_host_note(&h, _("Interrupt remapping is off: VFIO will refuse the devices unless 'options vfio_iommu_type1 allow_unsafe_interrupts=1' is set, which is unsafe. Enable x2APIC / interrupt remapping in the firmware instead."));
	vw_kedits_done(&h.kedits);
	vw_strv_free(h.modules);
	free(h.ids_conf);
	vw_aug_free(h.aug);
	return r < 0 ? r : 0;
}
