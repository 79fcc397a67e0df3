/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_gpu.c - step 2: which GPU goes to the VM, and what goes with it. */
#include "wizard.h"

#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "picks.h"
#include "pipeline.h"
#include "unit.h"

enum { DLG_DANGER = 1 };

struct gpu {
	int pending;		/* the card the danger dialog is about */
	struct vw_list list;
	struct vw_text details;
	struct vw_nvlink nl;	/* NVLink sets: peers go along with a GPU */
	int shown;		/* device the details are for, -1 none */
	bool shown_on;
};

static void fill_details(struct gpu *p, const struct vw_ctx *ctx)
{
	const struct vw_facts *f = ctx->facts;
	struct vw_item *it = vw_list_current(&p->list);
	const struct vw_pci_dev *d;
	struct vw_unit u;
	struct vw_buf b = VW_BUF_INIT;
	int idx;

	if (!it || it->tag < 0)
		return;
	if (p->shown == it->tag && p->shown_on == it->on && p->details.np)
		return;
	if (!ctx->settled && p->details.np)
		return;	/* moving: the details follow when the cursor rests */
	p->shown = it->tag;
	p->shown_on = it->on;
	idx = it->tag;
	d = &f->devs[idx];
	vw_text_clear(&p->details);
	p->details.top = 0;
	vw_text_addf(&p->details, VW_C_HEADING, 0, "%s %s", *d->vendor_name ? d->vendor_name : "",
		     *d->device_name ? d->device_name : "");
	/* TRANSLATORS: one sentence listing a device's details, in parts; each
	 * part after the first starts with a comma, the last ends it. */
	vw_buf_printf(&b, _("Address %s, ids %04x:%04x"), d->addr, d->vendor, d->device);
	if (d->has_subsys)
		vw_buf_printf(&b, _(", subsystem %04x:%04x"), d->subvendor, d->subdevice);
	/* "none" alone would have one gender for both the driver and the reset. */
	if (*d->driver)
		vw_buf_printf(&b, _(", driver %s"), d->driver);
	else
		vw_buf_adds(&b, _(", driver none"));
	if (d->numa_node >= 0)
		vw_buf_printf(&b, _(", NUMA node %d"), d->numa_node);
	if (d->group >= 0)
		vw_buf_printf(&b, _(", IOMMU group %d"), d->group);
	if (*d->reset_method)
		vw_buf_printf(&b, _(", reset: %s."), d->reset_method);
	else
		vw_buf_adds(&b, _(", reset: none."));
	vw_text_add(&p->details, VW_C_NORMAL, 0, b.data);
	vw_buf_done(&b);
	if (!*d->reset_method)
		vw_text_add(&p->details, VW_C_WARN, 0,
			    _("The card has no reset method: it may not work again after the VM stops."));
	vw_unit_build_idx_nv(&u, f, &p->nl, &idx, 1);
	vw_text_add(&p->details, VW_C_NORMAL, 0, "");
	vw_text_add(&p->details, VW_C_HEADING, 0, _("Goes to the VM with it"));
	for (size_t k = 0; k < u.n; k++) {
		const struct vw_pci_dev *m = &f->devs[u.m[k].dev];
		struct vw_buf l = VW_BUF_INIT;

		vw_dev_label(&l, m);
		vw_buf_adds(&l, "  (");
		if (u.m[k].why == VW_UNIT_CHOSEN && !it->on)
			vw_buf_adds(&l, _("this card"));	/* not chosen (yet) */
		else
			vw_unit_why_text(&l, f, &u.m[k]);
		vw_buf_adds(&l, ")");
		vw_text_add(&p->details, m->host_role ? VW_C_ERROR : u.m[k].why == VW_UNIT_GROUP ? VW_C_WARN
											: VW_C_NORMAL, 4, l.data);
		vw_buf_done(&l);
		if (m->host_role) {
			vw_role_loss(&l, m);
			vw_text_add(&p->details, VW_C_ERROR, 6, l.data);
			vw_buf_done(&l);
		}
	}
	if (u.issues.n)
		vw_text_add(&p->details, VW_C_NORMAL, 0, "");
	for (size_t i = 0; i < u.issues.n; i++) {
		const struct vw_finding *fd = &u.issues.v[i];
		struct vw_buf l = VW_BUF_INIT;

		vw_ui_pad(&l, vw_sev_label(fd->sev), 6);
		vw_buf_adds(&l, fd->msg);
		vw_text_add(&p->details, vw_sev_color(fd->sev), 6, l.data);
		if (vw_startswith(fd->code, "host-"))	/* the core's remedy names an answers key */
			vw_text_addf(&p->details, VW_C_NORMAL, 6, "      %s",
				     _("The step \"IOMMU groups\" asks before it goes: say yes there only if "
				       "the host can do without it."));
		else if (fd->remedy && *fd->remedy)
			vw_text_addf(&p->details, VW_C_NORMAL, 6, "      %s", fd->remedy);
		vw_buf_done(&l);
	}
	vw_unit_done(&u);
}

static int enter(void *priv, struct vw_ctx *ctx, struct vw_err *err)
{
	struct gpu *p = priv;
	const struct vw_facts *f = ctx->facts;

	(void)err;
	vw_list_init(&p->list);
	vw_text_init(&p->details);
	p->shown = -1;
	/* Read now, while the NVIDIA driver still owns the GPUs (bound to
	 * vfio-pci, nvidia-smi sees nothing), and kept in the state. */
	if (vw_pipeline_nvlink(&p->nl, ctx->sr, f, ctx->ch, NULL) < 0)
		vw_nvlink_done(&p->nl);
	if (vw_choices_keep_nvlink(ctx->ch, &p->nl))
		ctx->dirty = true;
	/* A hand-written file may name a card by a function address. */
	if (vw_choices_adopt_gpus(ctx->ch, f, &p->nl))
		ctx->dirty = true;
	for (size_t i = 0; i < f->ndevs; i++) {
		const struct vw_pci_dev *d = &f->devs[i];
		struct vw_buf b = VW_BUF_INIT;
		struct vw_item *it;

		if (!vw_dev_is_display(d))
			continue;
		vw_dev_label(&b, d);
		it = vw_list_add(&p->list, VW_ITEM_CHECK, (int)i, b.data);
		it->on = vw_choices_has_gpu(ctx->ch, d);
		vw_buf_done(&b);
		/* The dangers first: the row's note may be cut at 80 columns. */
		if (d->boot_vga == 1) {
			vw_buf_adds(&b, _("boot display"));
			vw_buf_adds(&b, ", ");
			it->color = VW_C_WARN;
		}
		{	/* what the host would lose with it, in the row itself */
			struct vw_unit u;
			int idx = (int)i;

			vw_unit_build_idx_nv(&u, f, &p->nl, &idx, 1);
			if (u.host_roles) {
				vw_role_short(&b, u.host_roles);
				vw_buf_adds(&b, ", ");
				it->color = VW_C_ERROR;
			} else if (u.nforced) {
				/* what kinds come along: "group takes NIC, disks, USB" */
				const char *kinds[3] = { NULL, NULL, NULL };
				size_t nk = 0;

				for (size_t k = 0; k < u.n; k++) {
					const char *kd = u.m[k].why == VW_UNIT_GROUP
						? vw_group_kind_short(&f->devs[u.m[k].dev]) : NULL;
					bool seen = false;

					for (size_t j = 0; j < nk; j++)
						seen |= kd && !strcmp(kinds[j], kd);
					if (kd && !seen && nk < 3)
						kinds[nk++] = kd;
				}
				if (nk) {
					struct vw_buf kl = VW_BUF_INIT;

					for (size_t j = 0; j < nk; j++)
						vw_buf_printf(&kl, "%s%s", j ? ", " : "", kinds[j]);
					/* TRANSLATORS: %s is "NIC, USB, disks": what a GPU's
					   IOMMU group takes from the host; a short list row note. */
					vw_buf_printf(&b, _("group takes %s"), kl.data);
					vw_buf_done(&kl);
				} else {
					vw_buf_printf(&b, _("+%zu in its group"), u.nforced);
				}
				vw_buf_adds(&b, ", ");
				it->color = VW_C_WARN;
			}
			vw_unit_done(&u);
		}
		/* Which of several identical rows is which: a VF names its PF. */
		if (d->vf) {
			/* TRANSLATORS: an SR-IOV virtual function in a list row: "VF 3 of 00:02.0" */
			vw_buf_printf(&b, _("VF %d of %s"), d->vf_index + 1, f->devs[d->physfn].addr + 5);
			vw_buf_adds(&b, ", ");
		} else if (d->sriov_num > 0) {
			/* TRANSLATORS: a GPU whose SR-IOV virtual functions are enabled: "7 VFs" */
			vw_buf_printf(&b, ngettext("%d VF", "%d VFs", (unsigned long)d->sriov_num), d->sriov_num);
			vw_buf_adds(&b, ", ");
		}
		vw_buf_adds(&b, *d->driver ? d->driver : _("no driver"));
		vw_item_note(it, b.data);
		vw_buf_done(&b);
	}
	if (!p->list.n)
		vw_list_add(&p->list, VW_ITEM_HEADING, -1,
			    _("No GPU found: no device of class 0300, 0302 or 0380."));
	for (size_t i = 0; i < p->list.n; i++)	/* back here: on the chosen card */
		if (p->list.v[i].on) {
			p->list.cur = i;
			break;
		}
	return 0;
}

static void draw(void *priv, const struct vw_ctx *ctx, WINDOW *w)
{
	struct gpu *p = priv;

	fill_details(p, ctx);
	vw_draw_list_details(w, _("Tick the GPU (or GPUs) to give to the VM. Every function of the card "
				  "goes with it: its audio, USB and other companions."),
			     &p->list, 6, _("Details"), &p->details);
}

static enum vw_key_result key(void *priv, struct vw_ctx *ctx, int k)
{
	struct gpu *p = priv;
	enum vw_wkey r = vw_list_key(&p->list, k);
	struct vw_item *it = vw_list_current(&p->list);

	if (r == VW_W_CHANGED && it && it->tag >= 0 && it->on) {
		/* Ticking a card that takes what the host needs: say what,
		   before it counts. */
		const struct vw_facts *f = ctx->facts;
		struct vw_unit u;
		struct vw_buf b = VW_BUF_INIT;
		int idx = it->tag;

		vw_unit_build_idx_nv(&u, f, &p->nl, &idx, 1);
		for (size_t j = 0; j < u.n; j++) {
			const struct vw_pci_dev *m = &f->devs[u.m[j].dev];

			if (m->host_role || (m->boot_vga == 1 && u.m[j].why != VW_UNIT_GROUP))
				vw_role_loss(&b, m);
		}
		vw_group_losses(&b, f, &u);
		if (b.len) {
			const char *buttons[2];
			char *text = vw_xasprintf("%s\n\n%s", b.data,
						  u.host_roles || u.nforced
							? _("The next step shows the group; nothing of it goes to the VM "
							    "unless you say so there.")
							: _("The next steps ask before the host's display is taken."));

			it->on = false;	/* ticked once the dialog says so */
			p->pending = it->tag;
			buttons[0] = _("Tick it");
			buttons[1] = _("Leave it");
			vw_wizard_confirm(ctx, DLG_DANGER, _("The host needs some of this"), text, buttons, 2, 1);
			free(text);
			vw_buf_done(&b);
			vw_unit_done(&u);
			return VW_KEY_HANDLED;
		}
		vw_unit_done(&u);
	}
	if (r == VW_W_CHANGED && it && it->tag >= 0) {
		/* What was chosen for this card's group goes with it. */
		vw_choices_set_gpu(ctx->ch, ctx->facts, &p->nl, &ctx->facts->devs[it->tag], it->on);
		vw_wizard_changed(ctx);
	}
	if (r != VW_W_IGNORED)
		return VW_KEY_HANDLED;
	if (k == VW_KEY_PGDN || k == VW_KEY_PGUP)
		return vw_text_key(&p->details, k) ? VW_KEY_HANDLED : VW_KEY_IGNORED;
	return VW_KEY_IGNORED;
}

static enum vw_leave_result leave(void *priv, struct vw_ctx *ctx, struct vw_err *err)
{
	struct gpu *p = priv;
	int *idx = NULL;
	size_t n = 0;
	int r;

	(void)p;
	r = vw_answers_devices(ctx->ch, ctx->facts, &idx, &n, err);
	free(idx);
	if (r < 0)
		return VW_LEAVE_ERROR;
	if (!n)
		return vw_leave_error(err, _("Tick at least one GPU with Space."));
	return VW_LEAVE_DONE;
}

static void answer(void *priv, struct vw_ctx *ctx, int id, int button)
{
	struct gpu *p = priv;
	struct vw_item *it;

	if (id != DLG_DANGER || button != 0 || !(it = vw_list_find(&p->list, p->pending)))
		return;
	it->on = true;
	vw_choices_set_gpu(ctx->ch, ctx->facts, &p->nl, &ctx->facts->devs[it->tag], true);
	vw_wizard_changed(ctx);
}

static void done(void *priv)
{
	struct gpu *p = priv;

	vw_list_done(&p->list);
	vw_text_done(&p->details);
	vw_nvlink_done(&p->nl);
}

static const struct vw_keyhint keys[] = {
	{ N_("Space"), N_("choose") },
	{ N_("PgUp PgDn"), N_("details") },
	{ NULL, NULL },
};

const struct vw_step_ops vw_step_gpu = {
	.id = "gpu",
	.title = N_("GPU selection"),
	.help = N_("Every display device of the host: VGA, 3D and display controllers, with their driver, "
		   "whether the firmware booted on it, and their IOMMU group. Two identical cards are told "
		   "apart by their address.\n\n"
		   "The VM gets the whole card: every function in its slot (HDMI audio, USB-C, UCSI), and "
		   "every device its IOMMU group forces along. The details show that list before you "
		   "choose."),
	.keys = keys,
	.priv_size = sizeof(struct gpu),
	.enter = enter,
	.draw = draw,
	.key = key,
	.leave = leave,
	.done = done,
	.answer = answer,
};
