/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_gpu.c - step 2: which GPU goes to the VM, and what goes with it. */
#include "wizard.h"

#include <stdlib.h>
#include <string.h>

#include "mig.h"
#include "report.h"
#include "picks.h"
#include "pipeline.h"
#include "unit.h"

enum { DLG_DANGER = 1 };

/* Rows of the offer panel (tags). */
enum {
	OPT_WHOLE = 1,
	OPT_VFS,
	OPT_COUNT,
	OPT_NONE,
	OPT_TYPE = 100,		/* + index into offer.types */
	OPT_MIG = 10000,	/* + index into offer.profiles */
};

struct gpu {
	int pending;		/* the card the danger dialog is about */
	struct vw_listdetails ld;	/* tags: the devices' indexes */
	struct vw_nvlink nl;	/* NVLink sets: peers go along with a GPU */
	struct vw_mig mig;	/* MIG modes and free profiles (nvidia-smi) */
	/* The offer: how a card that can be shared goes to the VM. */
	bool offering;
	struct vw_offer offer;
	struct vw_listdetails off;	/* tags: OPT_* */
};

static void fill_list(struct gpu *p, struct vw_ctx *ctx);
static void give_whole(struct gpu *p, struct vw_ctx *ctx, struct vw_item *it);

/* How card dev is shared in the choices, in a few words: "7 VFs",
 * "vGPU GRID A100D-10C", "MIG 1g.10gb". */
static void share_short(struct vw_buf *b, const struct vw_ctx *ctx, int dev)
{
	const struct vw_facts *f = ctx->facts;
	const struct vw_choices *c = ctx->ch;
	const char *rest;
	char addr[16];
	int n;

	for (size_t i = 0; i < c->nmigs; i++)
		if (vw_mig_split(c->migs[i], addr, &rest) && vw_facts_find_dev(f, addr) == dev) {
			/* TRANSLATORS: how a GPU is shared, in a list row: "MIG 1g.10gb" */
			vw_buf_printf(b, _("MIG %s"), rest);
			return;
		}
	for (size_t i = 0; i < c->nsriov; i++)
		if (vw_sriov_split(c->sriov[i], addr, &n) && vw_facts_find_dev(f, addr) == dev) {
			/* TRANSLATORS: how a GPU is shared: it makes this many VFs, one goes to the VM */
			vw_buf_printf(b, ngettext("%d VF", "%d VFs", (unsigned long)n), n);
			return;
		}
	for (int pass = 0; pass < 2; pass++) {
		char *const *v = pass ? c->vgpus : c->mdevs;
		size_t nv = pass ? c->nvgpus : c->nmdevs;

		for (size_t i = 0; i < nv; i++) {
			int d;

			if (!vw_mdev_split(v[i], addr, &rest) || (d = vw_facts_find_dev(f, addr)) < 0 ||
			    vw_picks_card(f, d) != dev)
				continue;
			{
				struct vw_offer o;
				const char *name = rest;

				vw_offer_build(&o, f, NULL, dev);
				for (size_t k = 0; k < o.ntypes; k++)
					if (o.types[k].vgpu == (pass == 1) && !strcmp(o.types[k].id, rest))
						name = o.types[k].name;
				/* TRANSLATORS: how a GPU is shared: "vGPU GRID A100D-10C" */
				vw_buf_printf(b, _("vGPU %s"), name);
				vw_offer_done(&o);
			}
			return;
		}
	}
	for (size_t i = 0; i < c->ndevices; i++) {
		int d = vw_facts_find_dev(f, c->devices[i]);

		if (d >= 0 && f->devs[d].vf && f->devs[d].physfn == dev) {
			/* TRANSLATORS: an SR-IOV virtual function in a list row: "VF 3 of 00:02.0" */
			vw_buf_printf(b, _("VF %d of %s"), f->devs[d].vf_index + 1, f->devs[dev].addr + 5);
			return;
		}
	}
}

/* A card that can be shared says so, and how it is given now. */
static void share_details(struct gpu *p, const struct vw_ctx *ctx, int idx)
{
	const struct vw_facts *f = ctx->facts;
	struct vw_offer o;
	struct vw_buf l = VW_BUF_INIT;

	vw_offer_build(&o, f, &p->mig, idx);
	if (vw_offer_shareable(&o)) {
		vw_text_add(&p->ld.details, VW_C_NORMAL, 0, "");
		vw_text_add(&p->ld.details, VW_C_HEADING, 0, _("Sharing it"));
		if (vw_choices_shared(ctx->ch, f, idx)) {
			share_short(&l, ctx, idx);
			vw_text_addf(&p->ld.details, VW_C_NORMAL, 0, _("Given to the VM as: %s."), l.data);
			for (size_t i = 0; i < ctx->ch->ndevices; i++) {
				int d = vw_facts_find_dev(f, ctx->ch->devices[i]);

				if (d >= 0 && f->devs[d].vf && f->devs[d].physfn == idx)
					vw_text_addf(&p->ld.details, VW_C_NORMAL, 0, _("The VM gets %s (VF %d)."),
						     f->devs[d].addr, f->devs[d].vf_index + 1);
			}
		}
		vw_text_add(&p->ld.details, VW_C_NORMAL, 0,
			    _("This GPU can go whole or be shared with other VMs (virtual functions, "
			      "vGPU types or MIG): Space shows the ways and what is free."));
	}
	vw_buf_done(&l);
	vw_offer_done(&o);
}

static void fill_details(struct gpu *p, const struct vw_ctx *ctx)
{
	const struct vw_facts *f = ctx->facts;
	struct vw_item *it = vw_list_current(&p->ld.list);
	const struct vw_pci_dev *d;
	struct vw_unit u;
	struct vw_buf b = VW_BUF_INIT;
	int idx;

	if (!it || it->tag < 0 || !vw_ld_follow(&p->ld, ctx, &it))
		return;
	idx = it->tag;
	d = &f->devs[idx];
	vw_text_addf(&p->ld.details, VW_C_HEADING, 0, "%s %s", *d->vendor_name ? d->vendor_name : "",
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
	vw_text_add(&p->ld.details, VW_C_NORMAL, 0, b.data);
	vw_buf_done(&b);
	if (!*d->reset_method)
		vw_text_add(&p->ld.details, VW_C_WARN, 0,
			    _("The card has no reset method: it may not work again after the VM stops."));
	if (vw_choices_shared(ctx->ch, f, idx)) {	/* the card stays; what goes is its share */
		share_details(p, ctx, idx);
		return;
	}
	vw_unit_build_idx_nv(&u, f, &p->nl, &idx, 1);
	vw_text_add(&p->ld.details, VW_C_NORMAL, 0, "");
	vw_text_add(&p->ld.details, VW_C_HEADING, 0, _("Goes to the VM with it"));
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
		vw_text_add(&p->ld.details, m->host_role ? VW_C_ERROR : u.m[k].why == VW_UNIT_GROUP ? VW_C_WARN
											: VW_C_NORMAL, 4, l.data);
		vw_buf_done(&l);
		if (m->host_role) {
			vw_role_loss(&l, m);
			vw_text_add(&p->ld.details, VW_C_ERROR, 6, l.data);
			vw_buf_done(&l);
		}
	}
	if (u.issues.n)
		vw_text_add(&p->ld.details, VW_C_NORMAL, 0, "");
	for (size_t i = 0; i < u.issues.n; i++) {
		const struct vw_finding *fd = &u.issues.v[i];
		struct vw_buf l = VW_BUF_INIT;

		vw_ui_pad(&l, vw_sev_label(fd->sev), 6);
		vw_buf_adds(&l, fd->msg);
		vw_text_add(&p->ld.details, vw_sev_color(fd->sev), 6, l.data);
		if (vw_startswith(fd->code, "host-"))	/* the core's remedy names an answers key */
			vw_text_addf(&p->ld.details, VW_C_NORMAL, 6, "      %s",
				     _("The step \"IOMMU groups\" asks before it goes: say yes there only if "
				       "the host can do without it."));
		else if (fd->remedy && *fd->remedy)
			vw_text_addf(&p->ld.details, VW_C_NORMAL, 6, "      %s", fd->remedy);
		vw_buf_done(&l);
	}
	vw_unit_done(&u);
	share_details(p, ctx, idx);
}

/* The cards, from the choices: after enter() and after every change. */
static void fill_list(struct gpu *p, struct vw_ctx *ctx)
{
	const struct vw_facts *f = ctx->facts;
	struct vw_item *cur = vw_list_current(&p->ld.list);
	int at = cur ? cur->tag : -1;

	vw_list_clear(&p->ld.list);
	for (size_t i = 0; i < f->ndevs; i++) {
		const struct vw_pci_dev *d = &f->devs[i];
		struct vw_buf b = VW_BUF_INIT;
		struct vw_item *it;
		bool shared;

		/* A VF goes to a VM through its PF's offer, not as a card. */
		if (!vw_dev_is_display(d) || d->vf)
			continue;
		vw_dev_label(&b, d);
		it = vw_list_add(&p->ld.list, VW_ITEM_CHECK, (int)i, b.data);
		shared = vw_choices_shared(ctx->ch, f, (int)i);
		it->on = shared || vw_choices_has_gpu(ctx->ch, d);
		vw_buf_done(&b);
		if (shared)	/* how it is shared, alone */
			share_short(&b, ctx, (int)i);
		/* The dangers first: the row's note may be cut at 80 columns. */
		if (!shared && d->boot_vga == 1) {	/* shared: the card stays the host's */
			vw_buf_adds(&b, _("boot display"));
			vw_buf_adds(&b, ", ");
			it->color = VW_C_WARN;
		}
		if (!shared) {	/* what the host would lose with it, in the row itself */
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
		if (!shared && d->sriov_num > 0) {
			/* TRANSLATORS: a GPU whose SR-IOV virtual functions are enabled: "7 VFs" */
			vw_buf_printf(&b, ngettext("%d VF", "%d VFs", (unsigned long)d->sriov_num), d->sriov_num);
			vw_buf_adds(&b, ", ");
		}
		if (!shared)	/* shared: how says enough, and the row is short */
			vw_buf_adds(&b, *d->driver ? d->driver : _("no driver"));
		vw_item_note(it, b.data);
		vw_buf_done(&b);
	}
	if (!p->ld.list.n)
		vw_list_add(&p->ld.list, VW_ITEM_HEADING, -1,
			    _("No GPU found: no device of class 0300, 0302 or 0380."));
	if (at >= 0)
		vw_list_select(&p->ld.list, at);
	vw_ld_stale(&p->ld);
}

static int enter(void *priv, struct vw_ctx *ctx, struct vw_err *err)
{
	struct gpu *p = priv;
	const struct vw_facts *f = ctx->facts;

	(void)err;
	vw_ld_init(&p->ld);
	vw_ld_init(&p->off);
	ctx->panel = NULL;
	/* Read now, while the NVIDIA driver still owns the GPUs (bound to
	 * vfio-pci, nvidia-smi sees nothing), and kept in the state. */
	if (vw_pipeline_nvlink(&p->nl, ctx->sr, f, ctx->ch, NULL) < 0)
		vw_nvlink_done(&p->nl);
	if (vw_choices_keep_nvlink(ctx->ch, &p->nl))
		ctx->dirty = true;
	/* A hand-written file may name a card by a function address. */
	if (vw_choices_adopt_gpus(ctx->ch, f, &p->nl))
		ctx->dirty = true;
	vw_mig_probe(&p->mig, ctx->sr, f);
	fill_list(p, ctx);
	for (size_t i = 0; i < p->ld.list.n; i++)	/* back here: on the chosen card */
		if (p->ld.list.v[i].on) {
			p->ld.list.cur = i;
			break;
		}
	return 0;
}


/* ---- the offer: how a card that can be shared goes to the VM ---- */

/* The count of VFs the choices ask of the card, 0 none. */
static int chosen_count(const struct vw_ctx *ctx, int dev)
{
	char addr[16];
	int n;

	for (size_t i = 0; i < ctx->ch->nsriov; i++)
		if (vw_sriov_split(ctx->ch->sriov[i], addr, &n) && vw_facts_find_dev(ctx->facts, addr) == dev)
			return n;
	return 0;
}

/* Whether the choices hold one instance of type t for the card (mdev or vgpu). */
static bool chosen_type(const struct vw_ctx *ctx, const struct vw_offer *o, const struct vw_offer_type *t)
{
	char *const *v = t->vgpu ? ctx->ch->vgpus : ctx->ch->mdevs;
	size_t n = t->vgpu ? ctx->ch->nvgpus : ctx->ch->nmdevs;
	const char *type;
	char addr[16];

	for (size_t i = 0; i < n; i++)
		if (vw_mdev_split(v[i], addr, &type) && !strcmp(type, t->id) &&
		    vw_picks_card(ctx->facts, vw_facts_find_dev(ctx->facts, addr)) == o->dev)
			return true;
	return false;
}

static bool chosen_mig(const struct vw_ctx *ctx, int dev, const char *profile)
{
	const char *name;
	char addr[16];

	for (size_t i = 0; i < ctx->ch->nmigs; i++)
		if (vw_mig_split(ctx->ch->migs[i], addr, &name) && !strcmp(name, profile) &&
		    vw_facts_find_dev(ctx->facts, addr) == dev)
			return true;
	return false;
}

/* Why the whole card cannot go, "" when it can. */
static void whole_refusal(struct vw_buf *b, const struct vw_offer *o)
{
	if (o->vfs_used)
		vw_buf_printf(b, ngettext("%d of its virtual functions is in use on this host: giving the GPU itself to a VM takes it away. Set its sriov_numvfs to 0 first, or share it.",
					  "%d of its virtual functions are in use on this host: giving the GPU itself to a VM takes them away. Set its sriov_numvfs to 0 first, or share it.",
					  (unsigned long)o->vfs_used),
			      o->vfs_used);
	else if (o->mdevs_now)
		vw_buf_printf(b, ngettext("%d mediated device exists on it: remove it first (mdevctl stop, mdevctl undefine), or share it.",
					  "%d mediated devices exist on it: remove them first (mdevctl stop, mdevctl undefine), or share it.",
					  (unsigned long)o->mdevs_now),
			      o->mdevs_now);
}

static void offer_list(struct gpu *p, struct vw_ctx *ctx)
{
	const struct vw_facts *f = ctx->facts;
	const struct vw_offer *o = &p->offer;
	const struct vw_pci_dev *d = &f->devs[o->dev];
	bool whole = vw_choices_has_gpu(ctx->ch, d), any = whole, mig_chosen = false;
	struct vw_buf b = VW_BUF_INIT;
	struct vw_item *it;

	for (size_t k = 0; k < o->nprofiles; k++)
		mig_chosen |= chosen_mig(ctx, o->dev, p->mig.profiles[o->profiles[k]].name);
	vw_list_clear(&p->off.list);
	it = vw_list_add(&p->off.list, VW_ITEM_RADIO, OPT_WHOLE, _("The whole GPU"));
	it->on = whole;
	if (!vw_offer_whole_ok(o)) {
		it->disabled = true;
		vw_item_note(it, o->vfs_used ? _("its VFs are in use") : _("mediated devices exist"));
	}
	if (o->sriov_total > 0 && !o->vf_model) {
		int count = chosen_count(ctx, o->dev);
		char **values = vw_xcalloc((size_t)o->sriov_total, sizeof(char *));

		it = vw_list_add(&p->off.list, VW_ITEM_RADIO, OPT_VFS, _("Virtual functions (SR-IOV)"));
		it->on = count > 0;
		any |= it->on;
		if (o->sriov_num)
			/* TRANSLATORS: virtual functions of a GPU that exist now */
			vw_buf_printf(&b, ngettext("%d exists now", "%d exist now", (unsigned long)o->sriov_num),
				      o->sriov_num);
		else
			vw_buf_adds(&b, _("none made yet"));
		vw_item_note(it, b.data);
		vw_buf_done(&b);
		for (int i = 0; i < o->sriov_total; i++)
			values[i] = vw_xasprintf("%d", i + 1);
		if (!count)
			count = o->sriov_num ? o->sriov_num : o->sriov_total;
		it = vw_list_add(&p->off.list, VW_ITEM_CYCLE, OPT_COUNT, _("  how many it makes"));
		vw_item_values(it, (const char *const *)values, (size_t)o->sriov_total, (size_t)count - 1);
		for (int i = 0; i < o->sriov_total; i++)
			free(values[i]);
		free(values);
	}
	if (o->ntypes)
		vw_list_add(&p->off.list, VW_ITEM_HEADING, -1, _("vGPU types"));
	for (size_t k = 0; k < o->ntypes; k++) {
		const struct vw_offer_type *t = &o->types[k];

		it = vw_list_add(&p->off.list, VW_ITEM_RADIO, OPT_TYPE + (int)k, t->name);
		/* a MIG-backed type goes with its profile: the MIG row is the choice */
		it->on = !mig_chosen && chosen_type(ctx, o, t);
		any |= it->on;
		if (t->free > 0)
			/* TRANSLATORS: vGPU instances that can still be made: "3 of 4 free" */
			vw_buf_printf(&b, _("%d of %d free"), t->free, t->total);
		else
			vw_buf_adds(&b, _("none free"));
		it->disabled = t->free <= 0;
		vw_item_note(it, b.data);
		vw_buf_done(&b);
	}
	if (o->mig) {
		vw_list_add(&p->off.list, VW_ITEM_HEADING, -1,
			    o->mig->current == 1 ? _("MIG profiles")
						 : _("MIG profiles: MIG mode is on after a GPU reset"));
		for (size_t k = 0; k < o->nprofiles; k++) {
			const struct vw_mig_profile *mp = &p->mig.profiles[o->profiles[k]];

			it = vw_list_add(&p->off.list, VW_ITEM_RADIO, OPT_MIG + (int)k, mp->name);
			it->on = chosen_mig(ctx, o->dev, mp->name);
			any |= it->on;
			/* TRANSLATORS: a MIG profile's memory and free instances: "9.5 GiB, 4 of 7 free" */
			vw_buf_printf(&b, _("%.1f GiB, %d of %d free"), mp->mem_gib, mp->free, mp->total);
			it->disabled = mp->free <= 0 || o->mig->current != 1;
			vw_item_note(it, b.data);
			vw_buf_done(&b);
		}
	}
	if (any || vw_choices_shared(ctx->ch, f, o->dev))
		vw_list_add(&p->off.list, VW_ITEM_RADIO, OPT_NONE, _("Not for this VM"));
	vw_list_align(&p->off.list);
	/* the cursor on what is chosen now, else on the first way open */
	p->off.list.cur = p->off.list.n;
	for (size_t i = 0; i < p->off.list.n; i++)
		if (p->off.list.v[i].kind == VW_ITEM_RADIO && p->off.list.v[i].on) {
			p->off.list.cur = i;
			break;
		}
	for (size_t i = 0; i < p->off.list.n && p->off.list.cur == p->off.list.n; i++)
		if (p->off.list.v[i].kind == VW_ITEM_RADIO && !p->off.list.v[i].disabled)
			p->off.list.cur = i;
	if (p->off.list.cur == p->off.list.n)
		p->off.list.cur = 0;
	vw_ld_stale(&p->off);
}

/* The radio marks follow the cursor: the mark is what Enter gives, and
 * on a way that is not possible (Enter says why) no mark. */
static void offer_follow(struct gpu *p)
{
	struct vw_item *it = vw_list_current(&p->off.list);

	if (it && it->tag == OPT_COUNT)
		it = vw_list_find(&p->off.list, OPT_VFS);
	if (!it || it->kind != VW_ITEM_RADIO)
		return;
	if (!it->disabled) {
		vw_list_radio(&p->off.list, it);
		return;
	}
	for (size_t i = 0; i < p->off.list.n; i++)
		if (p->off.list.v[i].kind == VW_ITEM_RADIO)
			p->off.list.v[i].on = false;
}

static void offer_open(struct gpu *p, struct vw_ctx *ctx, int dev)
{
	vw_offer_done(&p->offer);
	vw_offer_build(&p->offer, ctx->facts, &p->mig, dev);
	p->offering = true;
	ctx->panel = "offer";
	vw_text_clear(&p->off.details);	/* not another card's while keys come */
	offer_list(p, ctx);
	offer_follow(p);
}

static void offer_close(struct gpu *p, struct vw_ctx *ctx)
{
	p->offering = false;
	ctx->panel = NULL;
	vw_offer_done(&p->offer);
	vw_list_clear(&p->off.list);
}

static void offer_details(struct gpu *p, const struct vw_ctx *ctx)
{
	const struct vw_facts *f = ctx->facts;
	const struct vw_offer *o = &p->offer;
	const struct vw_pci_dev *d = &f->devs[o->dev];
	struct vw_item *it;
	struct vw_text *t = &p->off.details;
	struct vw_buf b = VW_BUF_INIT;
	int tag;
	bool nvidia = false;

	if (!vw_ld_follow(&p->off, ctx, &it))
		return;
	tag = it ? it->tag : -1;
	if (tag == OPT_COUNT)
		tag = OPT_VFS;
	if (tag == OPT_WHOLE) {
		whole_refusal(&b, o);
		if (b.len)
			vw_text_add(t, VW_C_WARN, 0, b.data);
		else
			vw_text_add(t, VW_C_NORMAL, 0,
				    _("The VM gets the whole card, with every function of its slot; nothing of it "
				      "stays for the host or for other VMs."));
	} else if (tag == OPT_VFS) {
		struct vw_item *c = vw_list_find(&p->off.list, OPT_COUNT);
		int count = c ? (int)c->value + 1 : 1;

		vw_buf_printf(&b, ngettext("The GPU makes %d virtual function at every boot (vfiowiz-sriov.service) and the VM gets one; the GPU itself stays with the host. Left and Right change the count (at most %d).",
					   "The GPU makes %d virtual functions at every boot (vfiowiz-sriov.service) and the VM gets one; the GPU itself stays with the host. Left and Right change the count (at most %d).",
					   (unsigned long)count),
			      count, o->sriov_total);
		vw_text_add(t, VW_C_NORMAL, 0, b.data);
		vw_buf_done(&b);
		if (count < o->sriov_num)	/* core/sriov_plan.c: never fewer than enabled */
			vw_text_addf(t, VW_C_WARN, 0,
				     _("%d exist now and stay: the plan never makes fewer, a VM may use them."),
				     o->sriov_num);
		for (size_t k = 0; k < d->nvfs && !b.len; k++)
			if (f->devs[d->vfs[k]].vf_index < count)
				vw_buf_printf(&b, _("The VM gets %s (VF %d)."), f->devs[d->vfs[k]].addr,
					      f->devs[d->vfs[k]].vf_index + 1);
		if (!b.len)
			vw_buf_adds(&b, _("None of them exists yet: they are made after the next boot; then run "
					  "vfiowiz again to give one to the VM. Until then, leave the VM's name empty "
					  "in the VM step: the host is prepared alone."));
		vw_text_add(t, VW_C_NORMAL, 0, b.data);
	} else if (tag >= OPT_TYPE && tag < OPT_MIG) {
		const struct vw_offer_type *ty = &o->types[tag - OPT_TYPE];

		vw_text_add(t, VW_C_HEADING, 0, ty->name);
		if (*ty->description)
			vw_text_add(t, VW_C_NORMAL, 0, ty->description);
		if (ty->free <= 0)
			vw_text_add(t, VW_C_WARN, 0,
				    _("Not possible now: no instance of this type is free (every function that "
				      "offers it holds a vGPU already)."));
		else
			vw_text_add(t, VW_C_NORMAL, 0,
				    ty->vgpu ? _("A free virtual function of the GPU gets this vGPU type at every boot "
						 "and goes to the VM; the GPU stays with the host.")
					     : _("A mediated device of this type is defined for mdevctl, made at every "
						 "boot and given to the VM; the GPU stays with the host."));
	} else if (tag >= OPT_MIG) {
		const struct vw_mig_profile *mp = &p->mig.profiles[o->profiles[tag - OPT_MIG]];
		int ty = vw_offer_mig_type(o, mp->name);

		if (o->mig->current != 1)
			vw_text_add(t, VW_C_WARN, 0,
				    _("MIG mode is switched on, but only after a reset of the GPU or a reboot: "
				      "its profiles can be chosen then."));
		else if (mp->free <= 0)
			vw_text_add(t, VW_C_WARN, 0, _("Not possible now: no instance of this profile is free."));
		vw_buf_printf(&b, _("A GPU instance %s (%.1f GiB) is made at every boot with nvidia-smi; %d of %d free."),
			      mp->name, mp->mem_gib, mp->free, mp->total);
		vw_text_add(t, VW_C_NORMAL, 0, b.data);
		if (ty >= 0)
			vw_text_addf(t, VW_C_NORMAL, 0, _("It backs the vGPU type %s, which the VM gets."),
				     o->types[ty].name);
		else
			vw_text_add(t, VW_C_NORMAL, 0,
				    _("The host lists no vGPU type backed by this profile yet: NVIDIA's vGPU host "
				      "driver lists them once the GPU's virtual functions are on (sriov-manage -e); "
				      "choose the type then."));
	} else if (tag == OPT_NONE) {
		vw_text_add(t, VW_C_NORMAL, 0, _("Nothing of this GPU goes to the VM."));
	}
	vw_buf_done(&b);
	/* Drivers and licences: once, where they apply. */
	if (tag == OPT_WHOLE || tag == OPT_NONE)
		return;	/* whole or not at all: no vGPU, no VF driver */
	nvidia = o->ntypes || o->mig;
	if (nvidia || (o->sriov_total > 0 && !o->vf_model)) {
		vw_text_add(t, VW_C_NORMAL, 0, "");
		vw_text_add(t, VW_C_HEADING, 0, _("Drivers and licences"));
	}
	if (nvidia)
		vw_text_add(t, VW_C_NORMAL, 0, _("NVIDIA vGPU needs NVIDIA's vGPU host driver on this host (the one that lists these types) and, in the guest, the matching guest driver with a licence from an NVIDIA License System server: without one the vGPU runs with reduced performance."));
	else if (o->sriov_total > 0 && !o->vf_model && d->vendor == 0x1002)	/* AMD MxGPU */
		vw_text_add(t, VW_C_NORMAL, 0,
			    _("Virtual functions of an AMD GPU come from AMD's GIM host driver (MxGPU), which "
			      "must drive the GPU on this host instead of amdgpu; the guest uses amdgpu."));
	else if (o->sriov_total > 0 && !o->vf_model)
		vw_text_add(t, VW_C_NORMAL, 0,
			    _("Virtual functions of an Intel GPU need a host driver with SR-IOV support (i915 "
			      "with SR-IOV, or xe) and Intel's graphics driver in the guest."));
}

/* Enter in the offer: give the card the way under the cursor. */
static void offer_commit(struct gpu *p, struct vw_ctx *ctx)
{
	const struct vw_facts *f = ctx->facts;
	struct vw_item *it = vw_list_current(&p->off.list);
	int dev = p->offer.dev, tag, r = 0;
	struct vw_buf b = VW_BUF_INIT;

	if (!it)
		return;
	tag = it->tag == OPT_COUNT ? OPT_VFS : it->tag;
	if (it->disabled) {	/* say why, and stay */
		if (tag == OPT_WHOLE)
			whole_refusal(&b, &p->offer);
		else
			vw_buf_adds(&b, _("Not possible now: nothing of it is free."));
		vw_wizard_msg(ctx, VW_C_WARN, "%s", b.data);
		vw_buf_done(&b);
		return;
	}
	if (tag == OPT_WHOLE) {
		struct vw_item *row;

		offer_close(p, ctx);
		if (vw_choices_has_gpu(ctx->ch, &f->devs[dev]) || !(row = vw_list_find(&p->ld.list, dev)))
			return;
		row->on = true;
		give_whole(p, ctx, row);
		return;
	}
	if (tag == OPT_VFS) {
		struct vw_item *c = vw_list_find(&p->off.list, OPT_COUNT);

		r = vw_choices_share_vfs(ctx->ch, f, &p->nl, &p->offer, c ? (int)c->value + 1 : 1);
	} else if (tag >= OPT_TYPE && tag < OPT_MIG) {
		r = vw_choices_share_type(ctx->ch, f, &p->nl, &p->offer, (size_t)(tag - OPT_TYPE));
	} else if (tag >= OPT_MIG) {
		r = vw_choices_share_mig(ctx->ch, f, &p->nl, &p->offer, &p->mig, (size_t)(tag - OPT_MIG));
	} else if (tag == OPT_NONE) {
		vw_choices_set_gpu(ctx->ch, f, &p->nl, &f->devs[dev], false);
	}
	if (r < 0) {
		vw_wizard_msg(ctx, VW_C_WARN, "%s", _("Not possible now: nothing of it is free."));
		return;
	}
	offer_close(p, ctx);
	fill_list(p, ctx);
	vw_wizard_changed(ctx);
}

static enum vw_key_result offer_key(struct gpu *p, struct vw_ctx *ctx, int k)
{
	enum vw_wkey r;

	if (k == VW_KEY_ESC) {
		offer_close(p, ctx);
		return VW_KEY_HANDLED;
	}
	if (k == VW_KEY_RET) {
		offer_commit(p, ctx);
		return VW_KEY_HANDLED;
	}
	if (k == VW_KEY_PGDN || k == VW_KEY_PGUP)
		return vw_ld_key(&p->off, VW_W_IGNORED, k);
	if ((k == VW_KEY_LEFT || k == VW_KEY_RIGHT) && vw_list_current(&p->off.list) &&
	    vw_list_current(&p->off.list)->tag == OPT_VFS && vw_list_find(&p->off.list, OPT_COUNT)) {
		/* the count, from the VFs' own row too */
		struct vw_item *c = vw_list_find(&p->off.list, OPT_COUNT);

		c->value = (c->value + (k == VW_KEY_LEFT ? c->nvalues - 1 : 1)) % c->nvalues;
		vw_ld_stale(&p->off);
		return VW_KEY_HANDLED;
	}
	r = vw_list_key(&p->off.list, k);
	if (r == VW_W_MOVED || r == VW_W_CHANGED)
		offer_follow(p);
	if (r == VW_W_CHANGED)
		vw_ld_stale(&p->off);
	/* q, F1 and ? stay the runner's; Tab would leave the step. */
	return r != VW_W_IGNORED || k == VW_KEY_TAB ? VW_KEY_HANDLED : VW_KEY_IGNORED;
}

static void draw(void *priv, const struct vw_ctx *ctx, WINDOW *w)
{
	struct gpu *p = priv;

	if (p->offering) {
		struct vw_buf b = VW_BUF_INIT;
		const struct vw_pci_dev *d = &ctx->facts->devs[p->offer.dev];

		offer_details(p, ctx);
		vw_buf_printf(&b, _("How does %s %s go to the VM? Enter gives it the way under the cursor; Esc "
				    "goes back without a change."),
			      d->addr + 5, *d->device_name ? d->device_name : "");
		vw_ld_draw(&p->off, w, b.data, 9);
		vw_buf_done(&b);
		return;
	}
	fill_details(p, ctx);
	vw_ld_draw(&p->ld, w, _("Tick the GPU (or GPUs) to give to the VM. Every function of the card "
				"goes with it: its audio, USB and other companions."), 6);
}

/* Tick a card whole: when it takes what the host needs, a dialog says
 * what first, and the tick counts once it says yes (answer()). */
static void give_whole(struct gpu *p, struct vw_ctx *ctx, struct vw_item *it)
{
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
	} else {
		vw_choices_set_gpu(ctx->ch, f, &p->nl, &f->devs[it->tag], true);
		fill_list(p, ctx);
		vw_wizard_changed(ctx);
	}
	vw_buf_done(&b);
	vw_unit_done(&u);
}

static enum vw_key_result key(void *priv, struct vw_ctx *ctx, int k)
{
	struct gpu *p = priv;
	struct vw_item *it = vw_list_current(&p->ld.list);
	enum vw_wkey r;

	if (p->offering)
		return offer_key(p, ctx, k);
	if (k == ' ' && it && it->tag >= 0) {
		/* A card that can be shared: Space shows the ways. */
		struct vw_offer o;
		bool share;

		vw_offer_build(&o, ctx->facts, &p->mig, it->tag);
		share = vw_offer_shareable(&o);
		vw_offer_done(&o);
		if (share) {
			offer_open(p, ctx, it->tag);
			return VW_KEY_HANDLED;
		}
	}
	r = vw_list_key(&p->ld.list, k);
	it = vw_list_current(&p->ld.list);
	if (r == VW_W_CHANGED && it && it->tag >= 0 && it->on) {
		give_whole(p, ctx, it);
		return VW_KEY_HANDLED;
	}
	if (r == VW_W_CHANGED && it && it->tag >= 0) {
		/* What was chosen for this card's group goes with it. */
		vw_choices_set_gpu(ctx->ch, ctx->facts, &p->nl, &ctx->facts->devs[it->tag], it->on);
		fill_list(p, ctx);
		vw_wizard_changed(ctx);
	}
	return vw_ld_key(&p->ld, r, k);
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
	/* A shared card may name no device: vGPUs, VFs made at the next boot. */
	if (!n && !ctx->ch->nsriov && !ctx->ch->nmdevs && !ctx->ch->nvgpus && !ctx->ch->nmigs)
		return vw_leave_error(err, _("Tick at least one GPU with Space."));
	return vw_answers_check(ctx->ch, ctx->facts, err) < 0 ? VW_LEAVE_ERROR : VW_LEAVE_DONE;
}

static void answer(void *priv, struct vw_ctx *ctx, int id, int button)
{
	struct gpu *p = priv;
	struct vw_item *it;

	if (id != DLG_DANGER || button != 0 || !(it = vw_list_find(&p->ld.list, p->pending)))
		return;
	it->on = true;
	vw_choices_set_gpu(ctx->ch, ctx->facts, &p->nl, &ctx->facts->devs[it->tag], true);
	fill_list(p, ctx);
	vw_wizard_changed(ctx);
}

static void done(void *priv)
{
	struct gpu *p = priv;

	vw_ld_done(&p->ld);
	vw_nvlink_done(&p->nl);
	vw_offer_done(&p->offer);
	vw_ld_done(&p->off);
	vw_mig_done(&p->mig);
}

static const char *enter_label(void *priv, const struct vw_ctx *ctx)
{
	struct gpu *p = priv;

	(void)ctx;
	return p->offering ? N_("give it so") : NULL;
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
		   "choose.\n\n"
		   "A GPU that can be shared (SR-IOV virtual functions, vGPU types, MIG) shows its offer "
		   "with Space: the whole GPU, N virtual functions, one vGPU type or a MIG profile, with "
		   "what is free now. Enter gives it that way; Esc leaves it as it was."),
	.keys = keys,
	.priv_size = sizeof(struct gpu),
	.enter = enter,
	.draw = draw,
	.key = key,
	.leave = leave,
	.done = done,
	.answer = answer,
	.enter_label = enter_label,
};
