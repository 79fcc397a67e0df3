/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_groups.c - step 3: the IOMMU groups of the chosen devices, their
 * verdicts, and for shared groups the way on: give the other devices to the
 * VM too, or an ACS override (with a preview of the groups it would make,
 * whether this kernel supports it, and the security warning). */
#include "wizard.h"

#include <stdlib.h>
#include <string.h>

#include "acs.h"
#include "picks.h"
#include "report.h"
#include "unit.h"

enum { DLG_GIVE = 1 };

/* Tags of the option items (device items use their facts index). */
enum { OPT_GIVE = 100000, OPT_IDS, OPT_DOWN };

struct groups {
	struct vw_listdetails ld;
	struct vw_unit gu;	/* the unit of the chosen cards only */
	bool shared;		/* some group forces other endpoints along */
	bool later;		/* no groups yet: the IOMMU goes on at the next
				   boot (check exit 0 or 1), groups come after */
	bool confirmed;		/* the user accepted to give the group away */
};

/* Which way the choices take now (0: none yet). */
static int current_option(const struct groups *p, const struct vw_ctx *ctx)
{
	const struct vw_facts *f = ctx->facts;
	bool all = p->gu.nforced > 0;

	for (size_t k = 0; k < p->gu.n; k++)
		if (p->gu.m[k].why == VW_UNIT_GROUP && !vw_choices_has_dev(ctx->ch, &f->devs[p->gu.m[k].dev]))
			all = false;
	if (all)
		return OPT_GIVE;
	if (ctx->ch->acs_ids)
		return OPT_IDS;
	if (ctx->ch->acs.downstream || ctx->ch->acs.multifunction)
		return OPT_DOWN;
	return 0;
}

/* The unit of the chosen cards, without what was added for their groups. */
static void build_unit(struct groups *p, const struct vw_ctx *ctx)
{
	struct vw_nvlink nl;

	vw_unit_done(&p->gu);
	/* NVLink peers come along as in the plan (core/pipeline.h). */
	vw_pipeline_nvlink(&nl, ctx->sr, ctx->facts, ctx->ch, NULL);
	vw_choices_gpu_unit(&p->gu, ctx->ch, ctx->facts, &nl);
	vw_nvlink_done(&nl);
	p->shared = p->gu.nforced > 0;
	p->later = p->gu.no_group && !ctx->facts->iommu.ngroups && vw_findings_exit_code(ctx->findings) <= 1;
}

bool vw_groups_need_choice(const struct vw_ctx *ctx)
{
	struct groups p;
	bool need;

	memset(&p, 0, sizeof(p));
	build_unit(&p, ctx);
	need = p.shared && !current_option(&p, ctx);
	vw_unit_done(&p.gu);
	return need;
}

static void build_list(struct groups *p, const struct vw_ctx *ctx)
{
	const struct vw_facts *f = ctx->facts;
	int keep = vw_list_current(&p->ld.list) ? vw_list_current(&p->ld.list)->tag : -1;
	bool kernel_no = f->kernel.acs_override_support == VW_NO;
	int opt = current_option(p, ctx);

	vw_list_clear(&p->ld.list);
	for (size_t g = 0; g < p->gu.ngroups; g++) {
		const struct vw_group *grp = vw_facts_group(f, p->gu.groups[g]);
		struct vw_buf b = VW_BUF_INIT;

		if (!grp)
			continue;
		vw_buf_printf(&b, _("Group %d: %s"), grp->id, vw_verdict_text(grp->verdict));
		vw_list_add(&p->ld.list, VW_ITEM_HEADING, -1, b.data);
		vw_buf_done(&b);
		for (size_t k = 0; k < grp->ndevs; k++) {
			int d = grp->devs[k];
			const struct vw_unit_member *m = vw_unit_find(&p->gu, d);
			struct vw_item *it;
			const char *mark;
			enum vw_ui_color c;

			vw_dev_label(&b, &f->devs[d]);
			it = vw_list_add(&p->ld.list, VW_ITEM_TEXT, d, b.data);
			vw_buf_done(&b);
			/* TRANSLATORS: marks of group members, at most 5 columns:
			   goes to the VM / stays with the host / must go along. */
			if (!m) {
				mark = _("host");
				c = VW_C_DIM;
			} else if (m->why == VW_UNIT_GROUP && f->devs[d].host_role) {
				/* TRANSLATORS: mark of a group member the host needs, at most 5 columns. */
				mark = _("HOST!");
				c = VW_C_ERROR;
			} else if (m->why == VW_UNIT_GROUP) {
				mark = _("along");
				c = VW_C_WARN;
			} else {
				mark = _("VM");
				c = VW_C_OK;
			}
			vw_item_mark(it, mark, c);
			if (f->devs[d].host_role) {	/* the danger in the row itself */
				vw_role_short(&b, f->devs[d].host_role);
				vw_item_note(it, b.data);
				vw_buf_done(&b);
				it->color = VW_C_ERROR;
			} else {
				vw_item_note(it, *f->devs[d].driver ? f->devs[d].driver : NULL);
			}
		}
	}
	if (!p->gu.ngroups && p->later) {
		vw_list_add(&p->ld.list, VW_ITEM_HEADING, -1, _("Known after the reboot: the IOMMU is off now"));
		for (size_t k = 0; k < p->gu.n; k++) {
			struct vw_buf b = VW_BUF_INIT;
			int d = p->gu.m[k].dev;
			struct vw_item *it;

			vw_dev_label(&b, &f->devs[d]);
			it = vw_list_add(&p->ld.list, VW_ITEM_TEXT, d, b.data);
			vw_buf_done(&b);
			vw_item_mark(it, _("VM"), VW_C_OK);
			vw_item_note(it, *f->devs[d].driver ? f->devs[d].driver : NULL);
		}
	} else if (!p->gu.n) {	/* a shared GPU: vGPUs, or VFs the next boot makes */
		vw_list_add(&p->ld.list, VW_ITEM_HEADING, -1,
			    _("The GPU is shared: no device of this host goes to vfio-pci now."));
	} else if (!p->gu.ngroups) {
		vw_list_add(&p->ld.list, VW_ITEM_HEADING, -1, _("The chosen devices are in no IOMMU group."));
	}
	if (p->shared) {
		struct vw_item *it;

		vw_list_add(&p->ld.list, VW_ITEM_HEADING, -1, _("How to go on"));
		it = vw_list_add(&p->ld.list, VW_ITEM_RADIO, OPT_GIVE,
				 _("Give the other devices of the group to the VM too"));
		it->on = opt == OPT_GIVE;
		it = vw_list_add(&p->ld.list, VW_ITEM_RADIO, OPT_IDS,
				 _("ACS override for these devices only (by their ids)"));
		it->on = opt == OPT_IDS;
		it->disabled = kernel_no;
		it = vw_list_add(&p->ld.list, VW_ITEM_RADIO, OPT_DOWN,
				 _("ACS override for all ports (downstream,multifunction)"));
		it->on = opt == OPT_DOWN;
		it->disabled = kernel_no;
	}
	if (keep >= 0)
		vw_list_select(&p->ld.list, keep);
	else if (p->shared) {	/* what there is to decide, all choices in view */
		vw_list_select(&p->ld.list, opt ? opt : OPT_GIVE);
		p->ld.list.top = p->ld.list.n;	/* the draw shows the end of the list */
	}
	vw_ld_stale(&p->ld);
}

/* The devices of the kernel groups the unit touches, and how ov would
 * group them. */
static void preview(struct groups *p, const struct vw_ctx *ctx, const struct vw_acs_override *ov)
{
	const struct vw_facts *f = ctx->facts;
	struct vw_acs_preview pv;
	struct vw_text *t = &p->ld.details;
	int *seen = vw_xcalloc(f->ndevs + 1, sizeof(int));

	vw_acs_simulate(f, ov, &pv);
	vw_text_add(t, VW_C_HEADING, 0,
		    ov ? _("The groups the kernel would make with this override") : _("The groups of today"));
	if (!pv.known)
		vw_text_add(t, VW_C_WARN, 0,
			    _("The ACS registers could not be read (run as root): this is a guess."));
	else if (!pv.model_matches)
		vw_text_add(t, VW_C_WARN, 0,
			    _("The model does not reproduce today's groups exactly: take this as an estimate."));
	for (size_t g = 0; g < p->gu.ngroups; g++) {
		const struct vw_group *grp = vw_facts_group(f, p->gu.groups[g]);

		for (size_t k = 0; grp && k < grp->ndevs; k++) {
			int d = grp->devs[k], pg = pv.group ? pv.group[d] : -1;
			struct vw_buf b = VW_BUF_INIT;
			bool vm_only = true, any = false;

			if (vw_dev_is_bridge(&f->devs[d]) || seen[d])
				continue;
			/* one line per predicted group, listing its endpoints */
			for (size_t i = 0; i < f->ndevs; i++) {
				const struct vw_unit_member *m;

				if (!pv.group || pv.group[i] != pg || vw_dev_is_bridge(&f->devs[i]))
					continue;
				seen[i] = 1;
				m = vw_unit_find(&p->gu, (int)i);
				vm_only &= m && m->why != VW_UNIT_GROUP;
				vw_buf_printf(&b, "%s%s", any ? ", " : "", f->devs[i].addr);
				any = true;
			}
			if (!any)
				continue;
			vw_text_addf(t, vm_only ? VW_C_OK : VW_C_NORMAL, 4, "  %s %s%s", vw_ui.g.arrow, b.data,
				     vm_only ? _("  (the VM's devices alone)") : "");
			vw_buf_done(&b);
		}
	}
	vw_acs_preview_done(&pv);
	free(seen);
}

static void kernel_support(struct vw_text *t, const struct vw_facts *f)
{
	switch (f->kernel.acs_override_support) {
	case VW_YES:
		vw_text_addf(t, VW_C_OK, 0, _("This kernel carries the ACS override patch (%s)."),
			     *f->kernel.acs_override_evidence ? f->kernel.acs_override_evidence : "?");
		break;
	case VW_NO:
		vw_text_add(t, VW_C_ERROR, 0,
			    _("This kernel does not carry the ACS override patch: the parameter would do "
			      "nothing. The Proxmox and linux-zen kernels carry it; most distributions' own "
			      "kernels do not."));
		break;
	default:
		vw_text_add(t, VW_C_WARN, 0,
			    _("Whether this kernel carries the ACS override patch is not known."));
		break;
	}
}

static void security_warning(struct vw_text *t)
{
	vw_text_add(t, VW_C_WARN, 0,
		    _("Security: without ACS, a switch or a multifunction card can route DMA from device to "
		      "device without the IOMMU seeing it. The override makes the kernel pretend the "
		      "isolation exists: a device given to the VM may then read or write the memory of "
		      "another device of the real group (the host's, or another VM's). Use it only on a "
		      "machine you alone use, and prefer the id: form."));
}

static void fill_details(struct groups *p, const struct vw_ctx *ctx)
{
	const struct vw_facts *f = ctx->facts;
	struct vw_item *it;
	struct vw_text *t = &p->ld.details;
	struct vw_acs_override ov;
	int tag;

	if (!vw_ld_follow(&p->ld, ctx, &it))
		return;
	tag = it ? it->tag : -1;
	memset(&ov, 0, sizeof(ov));
	if (tag == OPT_GIVE) {
		vw_text_add(t, VW_C_NORMAL, 0,
			    _("Every endpoint of the group goes to the VM; the host loses them. No kernel "
			      "parameter, no security trade-off. Fine for a spare USB controller, not for the "
			      "disk or the network the host runs on."));
		for (size_t k = 0; k < p->gu.n; k++) {
			struct vw_buf b = VW_BUF_INIT;
			const struct vw_pci_dev *d = &f->devs[p->gu.m[k].dev];

			if (p->gu.m[k].why != VW_UNIT_GROUP)
				continue;
			vw_dev_label(&b, d);
			if (*d->driver)
				vw_buf_printf(&b, " (%s)", d->driver);
			vw_text_addf(t, d->host_role ? VW_C_ERROR : VW_C_WARN, 4, "  %s", b.data);
			vw_buf_done(&b);
			if (d->host_role) {
				vw_role_loss(&b, d);
				vw_text_add(t, VW_C_ERROR, 6, b.data);
				vw_buf_done(&b);
			}
		}
		return;
	}
	if (tag == OPT_IDS || tag == OPT_DOWN) {
		struct vw_buf spec = VW_BUF_INIT;

		if (tag == OPT_IDS)
			vw_picks_acs_ids(f, &p->gu, &ov);
		else
			ov.downstream = ov.multifunction = true;
		vw_acs_format(&ov, &spec);
		vw_text_addf(t, VW_C_NORMAL, 0, _("Kernel parameter: pcie_acs_override=%s"), spec.data ? spec.data : "");
		vw_buf_done(&spec);
		kernel_support(t, f);
		vw_text_add(t, VW_C_NORMAL, 0, "");
		preview(p, ctx, &ov);
		vw_text_add(t, VW_C_NORMAL, 0, "");
		security_warning(t);
		return;
	}
	if (tag >= 0 && (size_t)tag < f->ndevs) {
		const struct vw_pci_dev *d = &f->devs[tag];
		const struct vw_unit_member *m = vw_unit_find(&p->gu, tag);
		struct vw_buf b = VW_BUF_INIT;

		vw_text_addf(t, VW_C_HEADING, 0, "%s %s", d->vendor_name, d->device_name);
		vw_role_text(&b, f, d);
		if (b.len)
			vw_text_add(t, VW_C_NORMAL, 0, b.data);
		vw_buf_done(&b);
		if (vw_dev_is_bridge(d))
			vw_text_add(t, VW_C_NORMAL, 0,
				    _("A bridge: it stays with the host, which is fine for the group."));
		else if (!m)
			vw_text_add(t, VW_C_NORMAL, 0, _("Stays with the host."));
		else if (m->why == VW_UNIT_GROUP)
			vw_text_add(t, VW_C_WARN, 0,
				    _("Not chosen, but in the same group: it must go to the VM too, unless an ACS "
				      "override splits the group."));
		else
			vw_text_add(t, VW_C_OK, 0, _("Goes to the VM."));
		vw_text_add(t, VW_C_NORMAL, 0, "");
	}
	if (p->later) {
		vw_text_add(t, VW_C_WARN, 0,
			    _("This host has no IOMMU groups yet: the IOMMU is off. The changes turn it on at the "
			      "next boot; only then does the kernel make the groups. Until then only the card's own "
			      "functions are known to go to the VM, and only they are given to vfio-pci."));
		vw_text_add(t, VW_C_NORMAL, 0,
			    _("After the reboot, run vfiowiz again: it resumes from its saved state, shows the "
			      "groups, and asks before anything else goes to the VM."));
	} else if (p->shared) {
		preview(p, ctx, NULL);
		vw_text_add(t, VW_C_NORMAL, 0, "");
		kernel_support(t, f);
	} else if (p->gu.no_group) {
		vw_text_add(t, VW_C_ERROR, 0,
			    _("A chosen device is in no IOMMU group: it cannot be passed through. See the host "
			      "checks."));
	} else {
		vw_text_add(t, VW_C_OK, 0,
			    _("Nothing else has to go along: every group of your choice is isolated or shares "
			      "only with bridges. No ACS override is needed."));
	}
}

static int enter(void *priv, struct vw_ctx *ctx, struct vw_err *err)
{
	struct groups *p = priv;

	(void)err;
	vw_ld_init(&p->ld);
	build_unit(p, ctx);
	build_list(p, ctx);
	return 0;
}

static void draw(void *priv, const struct vw_ctx *ctx, WINDOW *w)
{
	struct groups *p = priv;
	const char *intro = p->later
		? _("The IOMMU is off: the groups are known only after the reboot that turns it on. Go on: "
		    "the wizard plans the kernel parameters now and shows the groups after the reboot.")
		: p->shared
		? _("A group of your choice holds other devices. VFIO hands out whole groups: choose how to go on.")
		: _("The IOMMU groups of your choice. VFIO hands out whole groups; bridges stay with the host.");

	fill_details(p, ctx);
	vw_ld_draw(&p->ld, w, intro, 9);
}

static void apply_option(struct groups *p, struct vw_ctx *ctx, int opt)
{
	const struct vw_facts *f = ctx->facts;

	vw_choices_give_group(ctx->ch, f, &p->gu, opt == OPT_GIVE);
	ctx->ch->acs_ids = opt == OPT_IDS;
	ctx->ch->acs.downstream = ctx->ch->acs.multifunction = opt == OPT_DOWN;
	if (opt != OPT_GIVE)	/* the opt-ins came with giving the group */
		ctx->ch->allow_host_storage = ctx->ch->allow_host_network = ctx->ch->allow_host_input = false;
	p->confirmed = false;
	vw_wizard_changed(ctx);
	build_list(p, ctx);
}

static enum vw_key_result key(void *priv, struct vw_ctx *ctx, int k)
{
	struct groups *p = priv;
	enum vw_wkey r = vw_list_key(&p->ld.list, k);
	struct vw_item *it = vw_list_current(&p->ld.list);

	if (r == VW_W_CHANGED && it && it->kind == VW_ITEM_RADIO)
		apply_option(p, ctx, it->tag);
	if (r == VW_W_MOVED && k == ' ' && it && it->disabled)
		vw_wizard_msg(ctx, VW_C_WARN, "%s", _("This kernel cannot do the ACS override."));
	return vw_ld_key(&p->ld, r, k);
}

static enum vw_leave_result leave(void *priv, struct vw_ctx *ctx, struct vw_err *err)
{
	struct groups *p = priv;
	int opt = current_option(p, ctx);
	const char *buttons[2];
	struct vw_buf b = VW_BUF_INIT;

	/* A shared GPU may bring no device: vGPUs, VFs the next boot makes. */
	if (!p->gu.n && !ctx->ch->nmdevs && !ctx->ch->nvgpus && !ctx->ch->nsriov && !ctx->ch->nmigs)
		return vw_leave_error(err, _("No device is chosen: go back and tick a GPU."));
	if (!p->gu.n)
		return VW_LEAVE_DONE;
	if (p->later)
		return VW_LEAVE_DONE;	/* the groups are reviewed after the reboot */
	if (p->gu.no_group)
		return vw_leave_error(err, _("A chosen device is in no IOMMU group: turn the IOMMU on first "
				      "(see the host checks)."));
	if (!p->shared)
		return VW_LEAVE_DONE;
	if (!opt)
		return vw_leave_error(err, _("A group is shared: choose how to go on, with Space."));
	if (opt != OPT_GIVE || p->confirmed)
		return VW_LEAVE_DONE;
	vw_buf_adds(&b, _("The VM also gets these devices, and the host loses them:"));
	for (size_t k = 0; k < p->gu.n; k++) {
		const struct vw_pci_dev *d = &ctx->facts->devs[p->gu.m[k].dev];

		if (p->gu.m[k].why != VW_UNIT_GROUP)
			continue;
		vw_buf_printf(&b, " %s%s%s%s", d->addr, *d->driver ? " (" : "", d->driver, *d->driver ? ")" : "");
	}
	{	/* each device the host needs or may use, by name, with what
		   losing it means: the yes below is the explicit opt-in
		   (allow_host_...) */
		struct vw_buf l = VW_BUF_INIT;

		for (size_t k = 0; k < p->gu.n; k++) {
			const struct vw_pci_dev *d = &ctx->facts->devs[p->gu.m[k].dev];

			if (p->gu.m[k].why == VW_UNIT_GROUP && d->host_role)
				vw_role_loss(&l, d);
		}
		vw_group_losses(&l, ctx->facts, &p->gu);
		if (l.len)
			vw_buf_printf(&b, "\n\n%s", l.data);
		vw_buf_done(&l);
	}
	if (p->gu.host_roles) {
		buttons[0] = _("Give them: the host loses them");
	} else {
		buttons[0] = _("Give them");
	}
	buttons[1] = _("Stay");
	vw_wizard_confirm(ctx, DLG_GIVE, p->gu.host_roles ? _("The host needs some of these") : _("Give the whole group"),
			  b.data, buttons, 2, 1);
	vw_buf_done(&b);
	return VW_LEAVE_DIALOG;
}

static void answer(void *priv, struct vw_ctx *ctx, int id, int button)
{
	struct groups *p = priv;

	if (id == DLG_GIVE && button == 0) {
		/* said yes on a screen that named each device the host needs */
		if (p->gu.host_roles & VW_HOST_STORAGE)
			ctx->ch->allow_host_storage = true;
		if (p->gu.host_roles & VW_HOST_NETWORK)
			ctx->ch->allow_host_network = true;
		if (p->gu.host_roles & VW_HOST_INPUT)
			ctx->ch->allow_host_input = true;
		if (p->gu.host_roles)
			vw_wizard_changed(ctx);
		p->confirmed = true;
		vw_wizard_next(ctx);
	}
}

static void done(void *priv)
{
	struct groups *p = priv;

	vw_ld_done(&p->ld);
	vw_unit_done(&p->gu);
}

static const struct vw_keyhint keys[] = {
	{ N_("Space"), N_("choose") },
	{ N_("PgUp PgDn"), N_("details") },
	{ NULL, NULL },
};

const struct vw_step_ops vw_step_groups = {
	.id = "groups",
	.title = N_("IOMMU groups"),
	.help = N_("The IOMMU group is the smallest set of devices the IOMMU can tell apart; VFIO gives a "
		   "VM whole groups. A group holding only your card (or your card and bridges) is fine.\n\n"
		   "When the group holds other devices, they must go to the VM too (the host loses them), "
		   "or an ACS override makes the kernel split the group. The preview shows the groups the "
		   "override would make, whether this kernel supports it, and what it costs in security."),
	.keys = keys,
	.priv_size = sizeof(struct groups),
	.enter = enter,
	.draw = draw,
	.key = key,
	.leave = leave,
	.done = done,
	.answer = answer,
};
