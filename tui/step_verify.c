/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_verify.c - step 9: reboot, and after it, did it work?  vfio-pci owns
 * the devices, the groups are viable, the host kept its display; when not,
 * the diagnosis and its fix from the troubleshooting catalogue. */
#include "wizard.h"

#include <stdlib.h>
#include <string.h>

#include "demo.h"
#include "verify.h"

enum { T_CHECK = 0, T_TROUBLE = 1000 };

struct verify {
	struct vw_listdetails ld;
	struct vw_verify v;
	bool ran;		/* the checks ran (after the reboot) */
};

static const char *state_mark(enum vw_verify_state s)
{
	switch (s) {
	/* TRANSLATORS: marks of the checks after the reboot, at most 5 columns. */
	case VW_CHECK_OK: return _("ok");
	case VW_CHECK_FAIL: return _("FAIL");
	case VW_CHECK_UNKNOWN: return "?";
	}
	return "";
}

static bool diagnosed(const struct verify *p, const char *code)
{
	for (size_t i = 0; i < p->v.n; i++)
		if (p->v.v[i].diag && !strcmp(p->v.v[i].diag, code))
			return true;
	return false;
}

static void build(struct verify *p, struct vw_ctx *ctx)
{
	size_t n;
	const struct vw_trouble *tr = vw_trouble_list(&n);
	int keep = vw_list_current(&p->ld.list) ? vw_list_current(&p->ld.list)->tag : -1;

	vw_list_clear(&p->ld.list);
	if (p->ran) {
		vw_list_add(&p->ld.list, VW_ITEM_HEADING, -1, _("After the reboot"));
		for (size_t i = 0; i < p->v.n; i++) {
			const struct vw_verify_check *c = &p->v.v[i];
			struct vw_item *it = vw_list_add(&p->ld.list, VW_ITEM_TEXT, T_CHECK + (int)i, c->msg);

			vw_item_mark(it, state_mark(c->state), c->state == VW_CHECK_OK ? VW_C_OK :
				     c->state == VW_CHECK_FAIL ? VW_C_ERROR : VW_C_WARN);
		}
	}
	vw_list_add(&p->ld.list, VW_ITEM_HEADING, -1, _("Troubleshooting"));
	for (size_t i = 0; i < n; i++) {
		struct vw_item *it = vw_list_add(&p->ld.list, VW_ITEM_TEXT, T_TROUBLE + (int)i, _(tr[i].title));

		if (diagnosed(p, tr[i].code))
			vw_item_mark(it, "!!", VW_C_ERROR);
		else
			/* TRANSLATORS: where a troubleshooting entry's problem
			 * shows: in the guest (the VM) or on the host. */
			vw_item_mark(it, tr[i].guest ? _("guest") : _("host"), VW_C_DIM);
	}
	if (keep >= 0)
		vw_list_select(&p->ld.list, keep);
	vw_ld_stale(&p->ld);
	(void)ctx;
}

static void trouble_text(struct vw_text *t, const struct vw_trouble *tr)
{
	vw_text_add(t, VW_C_HEADING, 0, _(tr->title));
	vw_text_addf(t, VW_C_NORMAL, 2, "%s %s", _("What you see:"), _(tr->symptom));
	vw_text_addf(t, VW_C_NORMAL, 2, "%s %s", _("Why:"), _(tr->cause));
	vw_text_addf(t, VW_C_OK, 2, "%s %s", _("Fix:"), _(tr->fix));
}

static void fill_details(struct verify *p, const struct vw_ctx *ctx)
{
	struct vw_item *it;
	struct vw_text *t = &p->ld.details;
	int tag;
	size_t n;
	const struct vw_trouble *tr = vw_trouble_list(&n);

	if (!vw_ld_follow(&p->ld, ctx, &it))
		return;
	tag = it ? it->tag : -1;
	if (tag >= T_TROUBLE && (size_t)(tag - T_TROUBLE) < n) {
		trouble_text(t, &tr[tag - T_TROUBLE]);
		return;
	}
	if (tag >= T_CHECK && (size_t)(tag - T_CHECK) < p->v.n) {
		const struct vw_verify_check *c = &p->v.v[tag - T_CHECK];
		const struct vw_trouble *d = vw_trouble_get(c->diag);

		vw_text_add(t, c->state == VW_CHECK_OK ? VW_C_OK : c->state == VW_CHECK_FAIL ? VW_C_ERROR
			    : VW_C_WARN, 0, c->msg);
		if (*c->detail)
			vw_text_pre(t, VW_C_NORMAL, c->detail);
		if (d) {
			vw_text_add(t, VW_C_NORMAL, 0, "");
			trouble_text(t, d);
		}
		return;
	}
	(void)ctx;
}

static void run_checks(struct verify *p, struct vw_ctx *ctx)
{
	vw_verify_done(&p->v);
	vw_verify_run(&p->v, ctx->sr, ctx->facts, ctx->ch);
	p->ran = true;
	build(p, ctx);
	/* Open on the first failure: that is what to read. */
	vw_list_select(&p->ld.list, T_CHECK);
	for (size_t i = 0; i < p->v.n; i++)
		if (p->v.v[i].state == VW_CHECK_FAIL) {
			vw_list_select(&p->ld.list, T_CHECK + (int)i);
			break;
		}
}

static int enter(void *priv, struct vw_ctx *ctx, struct vw_err *err)
{
	struct verify *p = priv;

	(void)err;
	vw_ld_init(&p->ld);
	if (ctx->rebooted)
		run_checks(p, ctx);
	else
		build(p, ctx);
	return 0;
}

static void draw(void *priv, const struct vw_ctx *ctx, WINDOW *w)
{
	struct verify *p = priv;
	struct vw_buf b = VW_BUF_INIT;
	const char *intro;

	if (p->ran) {
		intro = vw_verify_ok(&p->v) ? _("It worked: the VM's devices belong to vfio-pci. Start the VM. "
						"If something is wrong in the guest, the troubleshooting below "
						"says what to do.")
					    : _("Something did not work after the reboot: the diagnosis is below, "
						"with the fix.");
	} else if (ctx->state->applied) {
		vw_buf_adds(&b, _("The changes are written. Reboot the host now (systemctl reboot) and run vfiowiz "
				  "again: it opens here and checks that vfio-pci owns the devices."));
		if (ctx->ch->test_boot)
			vw_buf_printf(&b, " %s", _("The test boot entry boots once; a plain reboot after it returns "
						   "to the old settings."));
		if (ctx->demo)
			vw_buf_printf(&b, " %s", _("On the demo host, press r to pretend it rebooted."));
		intro = b.data;
	} else {
		intro = _("Nothing was applied yet: go back to review and apply the plan. The troubleshooting "
			  "below is there any time.");
	}
	fill_details(p, ctx);
	vw_ld_draw(&p->ld, w, intro, 0);
	vw_buf_done(&b);
}

static enum vw_key_result key(void *priv, struct vw_ctx *ctx, int k)
{
	struct verify *p = priv;
	struct vw_err err = { 0 };

	if (k == 'r') {
		if (ctx->demo && ctx->state->applied && !ctx->rebooted) {
			if (vw_wizard_writable(ctx, &err) < 0 || vw_demo_reboot(ctx->sr, ctx->facts, ctx->ch, &err) < 0 ||
			    vw_wizard_reprobe(ctx, &err) < 0) {
				vw_wizard_msg(ctx, VW_C_ERROR, "%s", err.msg);
				return VW_KEY_HANDLED;
			}
			ctx->rebooted = true;
			vw_wizard_msg(ctx, VW_C_INFO, "%s", _("The demo host \"rebooted\": checking it now."));
			run_checks(p, ctx);
			return VW_KEY_HANDLED;
		}
		if (ctx->rebooted) {
			if (vw_wizard_reprobe(ctx, &err) < 0)
				vw_wizard_msg(ctx, VW_C_ERROR, "%s", err.msg);
			else
				run_checks(p, ctx);
			return VW_KEY_HANDLED;
		}
		vw_wizard_msg(ctx, VW_C_INFO, "%s", _("The checks run after the reboot."));
		return VW_KEY_HANDLED;
	}
	return vw_ld_key(&p->ld, vw_list_key(&p->ld.list, k), k);
}

static void done(void *priv)
{
	struct verify *p = priv;

	vw_ld_done(&p->ld);
	vw_verify_done(&p->v);
}

static const struct vw_keyhint keys[] = {
	{ "r", N_("check again") },
	{ N_("PgUp PgDn"), N_("details") },
	{ NULL, NULL },
};

const struct vw_step_ops vw_step_verify = {
	.id = "verify",
	.title = N_("Reboot and verify"),
	.help = N_("The new settings take effect at the next boot. Your choices and progress are saved in "
		   "/var/lib/vfiowiz/state.conf, so after the reboot \"vfiowiz\" opens here by itself and "
		   "checks: the IOMMU is on, vfio-pci owns every device of the VM, their IOMMU groups are "
		   "viable, the host kept a display, and the initramfs holds the vfio modules.\n\n"
		   "When a check fails, its details give the diagnosis and the fix. The troubleshooting "
		   "list covers what only shows in the guest too: a GPU missing in the guest, Code 43, a "
		   "black screen."),
	.keys = keys,
	.priv_size = sizeof(struct verify),
	.enter = enter,
	.draw = draw,
	.key = key,
	.done = done,
};
