/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_isolation.c - step 4: how vfio-pci takes the devices before the host
 * drivers do: binding, early loading, kernel parameters, blacklists, and
 * the lockout protection for the host's own display. */
#include "wizard.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "hostplan.h"
#include "pipeline.h"
#include "unit.h"
#include "verify.h"

enum {
	T_BIND_AUTO = 1, T_BIND_IDS, T_BIND_ADDR, T_BIND_CMDLINE,
	T_PT, T_BOOTLOADER, T_INITRAMFS, T_TESTBOOT, T_ALLOW, T_DYNAMIC,
	T_BLACKLIST = 1000,	/* + index into drivers */
	T_AT_SRIOV = 2000, T_AT_MIG, T_AT_MDEV,	/* a shared card: what the boot does */
};

struct isolation {
	struct vw_listdetails ld;
	struct vw_unit u;
	int *devs;		/* chosen functions */
	size_t ndevs;
	char *ids;		/* the ids= list, NULL when ambiguous */
	char *clash;		/* why ids are ambiguous */
	char **drivers;		/* host drivers of the unit */
	char *no_dynamic;	/* why gpu_mode = dynamic is refused, or NULL */
	bool shared;		/* no device goes to vfio-pci: vGPUs, MIG, VFs
				   the next boot makes (the cards are shared) */
};

static const char *const bootloader_words[] = {
	"auto", "grub", "systemd-boot", "kernel-install", "proxmox-boot-tool", "kernelstub", "grubby",
};
static const char *const initramfs_words[] = {
	"auto", "initramfs-tools", "dracut", "mkinitcpio", "booster",
};

static bool lockout_relevant(const struct isolation *p, const struct vw_choices *c)
{
	return (p->u.boot_display || p->u.only_display) && c->gpu_mode != VW_GPU_DYNAMIC;
}

static bool in_blacklist(const struct vw_choices *c, const char *mod)
{
	for (size_t i = 0; i < c->nblacklist; i++)
		if (!strcmp(c->blacklist[i], mod))
			return true;
	return false;
}

static void set_blacklist(struct vw_choices *c, const char *mod, bool on)
{
	size_t k = 0;

	for (size_t i = 0; i < c->nblacklist; i++) {
		if (!strcmp(c->blacklist[i], mod))
			free(c->blacklist[i]);
		else
			c->blacklist[k++] = c->blacklist[i];
	}
	c->nblacklist = k;
	c->blacklist[k] = NULL;
	if (on) {
		c->blacklist = vw_xreallocarray(c->blacklist, c->nblacklist + 2, sizeof(char *));
		c->blacklist[c->nblacklist++] = vw_xstrdup(mod);
		c->blacklist[c->nblacklist] = NULL;
	}
}

static const struct vw_boot_ops *boot_ops(const struct vw_ctx *ctx)
{
	if (ctx->ch->bootloader != VW_BL_UNKNOWN)
		return vw_boot_find(ctx->ch->bootloader);
	return vw_boot_detect(ctx->facts, ctx->sr);
}

/* The name of mdev or vGPU type id on function dev, the id when none. */
static const char *type_name(const struct vw_pci_dev *d, const char *id)
{
	size_t len = strlen(id);

	for (size_t k = 0; k < d->nmdev_types; k++)
		if (!strcmp(d->mdev_types[k].id, id) && *d->mdev_types[k].name)
			return d->mdev_types[k].name;
	for (size_t k = 0; d->vgpu_types && d->vgpu_types[k]; k++)
		if (!strncmp(d->vgpu_types[k], id, len) && d->vgpu_types[k][len] == ' ')
			return d->vgpu_types[k] + len + 1;
	return id;
}

/* A shared card: nothing for vfio-pci to claim at boot; instead, one line
 * per thing the boot makes, by the unit that makes it (the groups step
 * says "The GPU is shared" the same way). */
static void at_boot(struct isolation *p, const struct vw_ctx *ctx)
{
	const struct vw_choices *c = ctx->ch;
	const struct vw_facts *f = ctx->facts;
	struct vw_buf b = VW_BUF_INIT;
	const char *rest;
	char addr[16];
	int n, d;

	vw_list_add(&p->ld.list, VW_ITEM_HEADING, 0,
		    _("The GPU is shared: nothing goes to vfio-pci at boot"));
	vw_list_add(&p->ld.list, VW_ITEM_HEADING, 0, _("Made at every boot instead"));
	for (size_t i = 0; i < c->nsriov; i++) {
		if (!vw_sriov_split(c->sriov[i], addr, &n))
			continue;
		/* TRANSLATORS: what a unit of vfiowiz makes at every boot: "7 virtual functions of 0000:00:02.0" */
		vw_buf_printf(&b, ngettext("%d virtual function of %s", "%d virtual functions of %s", (unsigned long)n),
			      n, addr);
		vw_item_note(vw_list_add(&p->ld.list, VW_ITEM_TEXT, T_AT_SRIOV, b.data), "vfiowiz-sriov.service");
		vw_buf_done(&b);
	}
	for (size_t i = 0; i < c->nvgpus; i++) {
		if (!vw_mdev_split(c->vgpus[i], addr, &rest) || (d = vw_facts_find_dev(f, addr)) < 0)
			continue;
		/* TRANSLATORS: what a unit of vfiowiz makes at every boot: "the vGPU NVIDIA L40-4C on 0000:41:00.4" */
		vw_buf_printf(&b, _("the vGPU %s on %s"), type_name(&f->devs[d], rest), addr);
		vw_item_note(vw_list_add(&p->ld.list, VW_ITEM_TEXT, T_AT_SRIOV, b.data), "vfiowiz-sriov.service");
		vw_buf_done(&b);
	}
	for (size_t i = 0; i < c->nmigs; i++) {
		if (!vw_mig_split(c->migs[i], addr, &rest))
			continue;
		/* TRANSLATORS: what a unit of vfiowiz makes at every boot: "the MIG instance 1g.10gb on 0000:41:00.0" */
		vw_buf_printf(&b, _("the MIG instance %s on %s"), rest, addr);
		vw_item_note(vw_list_add(&p->ld.list, VW_ITEM_TEXT, T_AT_MIG, b.data), "vfiowiz-mig.service");
		vw_buf_done(&b);
	}
	for (size_t i = 0; i < c->nmdevs; i++) {
		if (!vw_mdev_split(c->mdevs[i], addr, &rest) || (d = vw_facts_find_dev(f, addr)) < 0)
			continue;
		/* TRANSLATORS: what mdevctl makes at every boot: "the vGPU GRID A100D-10C on 0000:41:00.4" */
		vw_buf_printf(&b, _("the vGPU %s on %s"), type_name(&f->devs[d], rest), addr);
		vw_item_note(vw_list_add(&p->ld.list, VW_ITEM_TEXT, T_AT_MDEV, b.data), "mdevctl");
		vw_buf_done(&b);
	}
}

static void build_list(struct isolation *p, const struct vw_ctx *ctx)
{
	const struct vw_choices *c = ctx->ch;
	const struct vw_facts *f = ctx->facts;
	int keep = vw_list_current(&p->ld.list) ? vw_list_current(&p->ld.list)->tag : T_DYNAMIC;
	const char *bvals[VW_ARRAY_SIZE(bootloader_words)], *ivals[VW_ARRAY_SIZE(initramfs_words)];
	const struct vw_boot_ops *bo = boot_ops(ctx);
	bool dyn = c->gpu_mode == VW_GPU_DYNAMIC;
	struct vw_buf b = VW_BUF_INIT;
	struct vw_item *it;

	vw_list_clear(&p->ld.list);
	if (p->shared) {
		at_boot(p, ctx);
		if (dyn) {	/* nothing to hand over while the VM runs: a way back */
			it = vw_list_add(&p->ld.list, VW_ITEM_CHECK, T_DYNAMIC,
					 _("Only while the VM runs (single GPU, libvirt hooks)"));
			it->on = true;
		}
		goto pt;
	}
	vw_list_add(&p->ld.list, VW_ITEM_HEADING, 0, _("How vfio-pci takes the devices"));
	it = vw_list_add(&p->ld.list, VW_ITEM_CHECK, T_DYNAMIC, _("Only while the VM runs (single GPU, libvirt hooks)"));
	it->on = dyn;
	if (p->no_dynamic && !dyn) {
		it->disabled = true;
		vw_item_note(it, _("the GPU's IOMMU group holds a device the host needs"));
	}
	it = vw_list_add(&p->ld.list, VW_ITEM_RADIO, T_BIND_AUTO, _("Automatic: by ids, or by address for identical cards"));
	it->on = c->binding == VW_BIND_AUTO;
	it->disabled = dyn;
	it = vw_list_add(&p->ld.list, VW_ITEM_RADIO, T_BIND_IDS, _("By ids (options vfio-pci ids=)"));
	it->on = c->binding == VW_BIND_IDS;
	it->disabled = !p->ids || dyn;
	it = vw_list_add(&p->ld.list, VW_ITEM_RADIO, T_BIND_ADDR, _("By address (driver_override, early at boot)"));
	it->on = c->binding == VW_BIND_ADDRESS;
	it->disabled = dyn;
	it = vw_list_add(&p->ld.list, VW_ITEM_RADIO, T_BIND_CMDLINE, _("On the kernel command line (vfio-pci.ids=)"));
	it->on = c->binding == VW_BIND_CMDLINE;
	it->disabled = !p->ids || dyn;
pt:
	it = vw_list_add(&p->ld.list, VW_ITEM_CHECK, T_PT, _("iommu=pt: host devices skip IOMMU translation"));
	it->on = c->iommu_pt;

	if (p->drivers[0])
		vw_list_add(&p->ld.list, VW_ITEM_HEADING, 0, _("Host drivers (softdeps make vfio-pci load first)"));
	for (size_t i = 0; p->drivers[i]; i++) {
		int user = vw_unit_blacklist_conflict(f, &p->u, p->drivers[i]);

		vw_buf_printf(&b, _("Blacklist %s"), p->drivers[i]);
		it = vw_list_add(&p->ld.list, VW_ITEM_CHECK, T_BLACKLIST + (int)i, b.data);
		vw_buf_done(&b);
		it->on = in_blacklist(c, p->drivers[i]);
		it->disabled = dyn;
		if (user >= 0) {
			it->disabled = true;
			vw_buf_printf(&b, _("the host uses it for %s"), f->devs[user].addr);
			vw_item_note(it, b.data);
			vw_buf_done(&b);
		}
	}

	vw_list_add(&p->ld.list, VW_ITEM_HEADING, 0, _("Boot"));
	for (size_t i = 0; i < VW_ARRAY_SIZE(bootloader_words); i++)
		bvals[i] = i ? bootloader_words[i] : _("automatic");
	for (size_t i = 0; i < VW_ARRAY_SIZE(initramfs_words); i++)
		ivals[i] = i ? initramfs_words[i] : _("automatic");
	it = vw_list_add(&p->ld.list, VW_ITEM_CYCLE, T_BOOTLOADER, _("Bootloader"));
	vw_item_values(it, bvals, VW_ARRAY_SIZE(bvals), (size_t)c->bootloader);
	vw_buf_printf(&b, _("found: %s"), vw_bootloader_label(f->distro.bootloader));
	vw_item_note(it, b.data);
	vw_buf_done(&b);
	if (!p->shared) {	/* nothing loads early for a shared card */
		it = vw_list_add(&p->ld.list, VW_ITEM_CYCLE, T_INITRAMFS, _("Initramfs tool"));
		vw_item_values(it, ivals, VW_ARRAY_SIZE(ivals), (size_t)c->initramfs);
		vw_buf_printf(&b, _("found: %s"), vw_initramfs_label(f->distro.initramfs));
		vw_item_note(it, b.data);
		vw_buf_done(&b);
	}
	it = vw_list_add(&p->ld.list, VW_ITEM_CHECK, T_TESTBOOT, _("Boot the new settings once first (test boot)"));
	it->on = c->test_boot;
	it->disabled = !bo || !bo->plan_test;
	if (lockout_relevant(p, c)) {
		vw_list_add(&p->ld.list, VW_ITEM_HEADING, 0, _("The host's display"));
		it = vw_list_add(&p->ld.list, VW_ITEM_CHECK, T_ALLOW,
				 _("Take the host's display: I reach this host over SSH"));
		it->on = c->allow_host_display;
		it->color = VW_C_WARN;
	}
	vw_list_align(&p->ld.list);
	if (!vw_list_find(&p->ld.list, keep))	/* shared: on what the boot makes */
		keep = p->ld.list.n > 2 ? p->ld.list.v[2].tag : T_PT;
	vw_list_select(&p->ld.list, keep);
	vw_ld_stale(&p->ld);
}

static void fill_details(struct isolation *p, const struct vw_ctx *ctx)
{
	const struct vw_facts *f = ctx->facts;
	struct vw_item *it;
	struct vw_text *t = &p->ld.details;
	int tag;

	if (!vw_ld_follow(&p->ld, ctx, &it))
		return;
	tag = it ? it->tag : -1;
	switch (tag) {
	case T_AT_SRIOV:
		vw_text_add(t, VW_C_NORMAL, 0,
			    _("A unit of vfiowiz, vfiowiz-sriov.service, runs at every boot: it waits for the GPU's "
			      "own driver, makes the virtual functions and gives each its vGPU type or vfio-pci; "
			      "the GPU itself stays with its host driver."));
		break;
	case T_AT_MIG:
		vw_text_add(t, VW_C_NORMAL, 0,
			    _("A unit of vfiowiz, vfiowiz-mig.service, runs at every boot: it switches MIG mode on "
			      "and makes the GPU instances that are missing, with nvidia-smi; the GPU stays with "
			      "its host driver."));
		break;
	case T_AT_MDEV:
		vw_text_add(t, VW_C_NORMAL, 0,
			    _("mdevctl makes the mediated device at every boot, from its definition in "
			      "/etc/mdevctl.d; the VM gets it, and the GPU stays with its host driver."));
		break;
	case T_BIND_AUTO:
	case T_BIND_IDS:
	case T_BIND_CMDLINE:
		vw_text_add(t, VW_C_NORMAL, 0,
			    tag == T_BIND_CMDLINE
				? _("vfio-pci claims every device with these ids, from the kernel command line: "
				    "the earliest way, and nothing in the initramfs can undo it.")
				: _("vfio-pci claims every device with these ids. Simple and robust, as long as no "
				    "device the host keeps has the same ids."));
		if (p->ids)
			vw_text_addf(t, VW_C_OK, 4, "  %s %s", tag == T_BIND_CMDLINE ? "vfio-pci.ids=" :
				     "options vfio-pci ids=", p->ids);
		else
			vw_text_addf(t, VW_C_WARN, 0, _("Not possible here: %s. The devices are bound by address."),
				     p->clash ? p->clash : "");
		if (tag == T_BIND_AUTO)
			vw_text_add(t, VW_C_NORMAL, 0,
				    _("Automatic picks ids when they are unambiguous, else the address."));
		break;
	case T_BIND_ADDR:
		vw_text_add(t, VW_C_NORMAL, 0,
			    _("vfio-pci claims exactly these addresses, early at boot (driverctl's override files "
			      "where driverctl is installed, else a small script modprobe runs before loading "
			      "vfio-pci). The way to split two identical cards."));
		for (size_t i = 0; i < p->ndevs; i++)
			vw_text_addf(t, VW_C_OK, 4, "  %s", f->devs[p->devs[i]].addr);
		break;
	case T_DYNAMIC:
		vw_text_add(t, VW_C_NORMAL, 0,
			    _("Single-GPU passthrough: nothing binds the GPU at boot and the host keeps using it. "
			      "When the VM starts, libvirt hooks stop the display manager and graphical sessions, "
			      "release the console and framebuffer, and hand the GPU and the rest of its unit to "
			      "vfio-pci; when the VM stops (or fails to start) the host gets them back. Needs a "
			      "libvirt VM (next step)."));
		if (p->u.boot_display || p->u.only_display)
			vw_text_add(t, VW_C_WARN, 0,
				    _("This GPU drives the host's screen: while the VM runs, a local console shows "
				      "nothing. The host stays reachable over SSH."));
		if (p->no_dynamic)
			vw_text_add(t, VW_C_WARN, 0, p->no_dynamic);
		break;
	case T_PT:
		vw_text_add(t, VW_C_NORMAL, 0,
			    _("With iommu=pt (iommu.passthrough=1 off x86) the host's own devices bypass IOMMU "
			      "translation, which costs a little speed otherwise; the VM's devices stay "
			      "isolated either way. Recommended."));
		break;
	case T_BOOTLOADER:
		vw_text_addf(t, VW_C_NORMAL, 0, _("Kernel parameters go through the bootloader. Found: %s (%s)."),
			     vw_bootloader_label(f->distro.bootloader),
			     *f->distro.bootloader_evidence ? f->distro.bootloader_evidence : _("no evidence"));
		vw_text_add(t, VW_C_NORMAL, 0, _("Change it only when the detection is wrong (Space, Left, Right)."));
		break;
	case T_INITRAMFS: {
		const char *rb = vw_verify_rebuild_cmd(f);

		vw_text_addf(t, VW_C_NORMAL, 0,
			     _("The vfio modules must load from the initramfs, before the GPU drivers. Found: %s (%s)."),
			     vw_initramfs_label(f->distro.initramfs),
			     *f->distro.initramfs_evidence ? f->distro.initramfs_evidence : _("no evidence"));
		if (rb)
			vw_text_addf(t, VW_C_NORMAL, 0, _("It is rebuilt with: %s"), rb);
		break;
	}
	case T_TESTBOOT:
		vw_text_add(t, VW_C_NORMAL, 0,
			    _("The new kernel parameters go into a separate boot entry that boots once; if the host "
			      "does not come back, a plain reboot returns to the old settings. Make them the "
			      "default afterwards by running the wizard again."));
		if (it && it->disabled)
			vw_text_add(t, VW_C_WARN, 0, _("This bootloader has no one-shot boot the wizard can use."));
		break;
	case T_ALLOW:
		vw_text_add(t, VW_C_WARN, 0,
			    p->u.boot_display
				? _("The chosen devices include the display the firmware boots on. After the reboot "
				    "the host shows nothing after the bootloader: you reach it only over SSH or a "
				    "serial console. Tick this only if that is what you want.")
				: _("The chosen devices are the host's only display devices. After the reboot the "
				    "host has no screen: you reach it only over SSH. Tick this only if that is what "
				    "you want."));
		break;
	default:
		if (tag >= T_BLACKLIST) {
			const char *mod = p->drivers[tag - T_BLACKLIST];

			vw_text_addf(t, VW_C_NORMAL, 0,
				     _("blacklist %s: the host never loads %s by itself. Rarely needed, since the "
				       "softdeps already load vfio-pci first; a blacklist also keeps the module from "
				       "every other device it would drive."), mod, mod);
			if (it && it->disabled)
				vw_text_addf(t, VW_C_WARN, 0, _("Refused: %s."), it->note ? it->note : "");
		}
		break;
	}
}

static int enter(void *priv, struct vw_ctx *ctx, struct vw_err *err)
{
	struct isolation *p = priv;
	struct vw_nvlink nl;
	int r;

	vw_ld_init(&p->ld);
	r = vw_answers_devices(ctx->ch, ctx->facts, &p->devs, &p->ndevs, err);
	if (r < 0)
		return r;
	/* The unit as the plan builds it, NVLink peers included (core/pipeline.h). */
	vw_pipeline_nvlink(&nl, ctx->sr, ctx->facts, ctx->ch, NULL);
	vw_unit_build_choices(&p->u, ctx->facts, &nl, ctx->ch, NULL);
	vw_nvlink_done(&nl);
	p->shared = !p->ndevs;
	p->ids = vw_bind_ids(ctx->facts, p->devs, p->ndevs, &p->clash);
	p->drivers = vw_unit_drivers(ctx->facts, &p->u);
	{
		struct vw_choices dyn = *ctx->ch;
		struct vw_err e = { 0 };

		dyn.gpu_mode = VW_GPU_DYNAMIC;
		dyn.source = (char *)"";
		if (vw_pipeline_dynamic_check(ctx->facts, &p->u, &dyn, &e) < 0)
			p->no_dynamic = vw_xstrdup(e.msg);
	}
	build_list(p, ctx);
	return 0;
}

static void draw(void *priv, const struct vw_ctx *ctx, WINDOW *w)
{
	struct isolation *p = priv;

	fill_details(p, ctx);
	vw_ld_draw(&p->ld, w, NULL, 12);
}

static enum vw_key_result key(void *priv, struct vw_ctx *ctx, int k)
{
	struct isolation *p = priv;
	enum vw_wkey r = vw_list_key(&p->ld.list, k);
	struct vw_item *it = vw_list_current(&p->ld.list);
	struct vw_choices *c = ctx->ch;

	if (r == VW_W_MOVED && k == ' ' && it && it->disabled && it->note)
		vw_wizard_msg(ctx, VW_C_WARN, "%s", it->note);
	if (r != VW_W_CHANGED || !it)
		return vw_ld_key(&p->ld, r, k);
	switch (it->tag) {
	case T_BIND_AUTO: c->binding = VW_BIND_AUTO; break;
	case T_BIND_IDS: c->binding = VW_BIND_IDS; break;
	case T_BIND_ADDR: c->binding = VW_BIND_ADDRESS; break;
	case T_BIND_CMDLINE: c->binding = VW_BIND_CMDLINE; break;
	case T_PT: c->iommu_pt = it->on; break;
	case T_BOOTLOADER: c->bootloader = (enum vw_bootloader)it->value; break;
	case T_INITRAMFS: c->initramfs = (enum vw_initramfs)it->value; break;
	case T_TESTBOOT: c->test_boot = it->on; break;
	case T_ALLOW: c->allow_host_display = it->on; break;
	case T_DYNAMIC: c->gpu_mode = it->on ? VW_GPU_DYNAMIC : VW_GPU_STATIC; break;
	default:
		if (it->tag >= T_BLACKLIST)
			set_blacklist(c, p->drivers[it->tag - T_BLACKLIST], it->on);
		break;
	}
	vw_wizard_changed(ctx);
	if (it->tag == T_BOOTLOADER || it->tag == T_DYNAMIC)
		build_list(p, ctx);	/* the test boot, the binding items depend on them */
	vw_ld_stale(&p->ld);
	return VW_KEY_HANDLED;
}

static enum vw_leave_result leave(void *priv, struct vw_ctx *ctx, struct vw_err *err)
{
	struct isolation *p = priv;

	if (vw_bind_check_lockout(ctx->facts, ctx->ch, p->devs, p->ndevs, NULL) < 0) {
		/* the core's message speaks of the answers file: say it the wizard's way */
		vw_list_select(&p->ld.list, T_ALLOW);
		return vw_leave_error(err, _("The chosen devices include the host's display: tick \"Take the "
				      "host's display\" if you mean it, or go back and choose another GPU."));
	}
	if (p->shared)	/* nothing to bind: no way of binding to refuse */
		return VW_LEAVE_DONE;
	if (ctx->ch->gpu_mode == VW_GPU_DYNAMIC && p->no_dynamic) {
		vw_list_select(&p->ld.list, T_DYNAMIC);
		return vw_leave_error(err, "%s", p->no_dynamic);
	}
	if (ctx->ch->gpu_mode != VW_GPU_DYNAMIC &&
	    (ctx->ch->binding == VW_BIND_IDS || ctx->ch->binding == VW_BIND_CMDLINE) && !p->ids)
		return vw_leave_error(err, _("Binding by ids would take other devices too: %s"),
				      p->clash ? p->clash : "");
	return VW_LEAVE_DONE;
}

static void done(void *priv)
{
	struct isolation *p = priv;

	vw_ld_done(&p->ld);
	vw_unit_done(&p->u);
	free(p->devs);
	free(p->ids);
	free(p->clash);
	free(p->no_dynamic);
	vw_strv_free(p->drivers);
}

static const struct vw_keyhint keys[] = {
	{ N_("Space"), N_("tick or change") },
	{ N_("PgUp PgDn"), N_("details") },
	{ NULL, NULL },
};

const struct vw_step_ops vw_step_isolation = {
	.id = "isolation",
	.title = N_("Host driver isolation"),
	.help = N_("Before the host's GPU driver can take the card at boot, vfio-pci must claim it: by ids "
		   "when no other device has the same ids, or by address for identical cards. The vfio "
		   "modules load early from the initramfs, softdeps make vfio-pci load before the GPU "
		   "drivers, and the IOMMU kernel parameters go through the bootloader.\n\n"
		   "Lockout protection: the display the host boots on, or its only display, is taken only "
		   "after you say so explicitly. A blacklist that would also stop a driver the host still "
		   "needs is refused."),
	.keys = keys,
	.priv_size = sizeof(struct isolation),
	.enter = enter,
	.draw = draw,
	.key = key,
	.leave = leave,
	.done = done,
};
