/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_checks.c - step 1: what the host can do, finding by finding. */
#include "wizard.h"

#include <stdlib.h>
#include <string.h>

enum { DLG_BLOCKED = 1 };

struct checks {
	struct vw_listdetails ld;	/* first: vw_ld_step_done(); tags: the findings' indexes */
	bool go_anyway;
};

static void fill_details(struct checks *p, const struct vw_ctx *ctx)
{
	struct vw_text *t = &p->ld.details;
	struct vw_item *it = vw_list_current(&p->ld.list);
	const struct vw_finding *fd;

	if (!it || it->tag < 0 || (size_t)it->tag >= ctx->findings->n || !vw_ld_follow(&p->ld, ctx, &it))
		return;
	fd = &ctx->findings->v[it->tag];
	vw_text_add(t, vw_sev_color(fd->sev), 0, fd->msg);
	if (fd->remedy && *fd->remedy) {
		vw_text_add(t, VW_C_NORMAL, 0, "");
		vw_text_add(t, VW_C_HEADING, 0, _("What to do"));
		vw_text_add(t, VW_C_NORMAL, 0, fd->remedy);
	}
}

static int enter(void *priv, struct vw_ctx *ctx, struct vw_err *err)
{
	struct checks *p = priv;
	const struct vw_findings *fs = ctx->findings;

	(void)err;
	vw_ld_init(&p->ld);
	/* The worst first: what stops the walk is what to read. */
	for (int sev = VW_SEV_BLOCKER; sev >= VW_SEV_OK; sev--)
		for (size_t i = 0; i < fs->n; i++) {
			struct vw_item *it;

			if ((int)fs->v[i].sev != sev)
				continue;
			it = vw_list_add(&p->ld.list, VW_ITEM_TEXT, (int)i, fs->v[i].msg);
			vw_item_mark(it, vw_sev_label(fs->v[i].sev), vw_sev_color(fs->v[i].sev));
		}
	if (!fs->n)
		vw_list_add(&p->ld.list, VW_ITEM_HEADING, -1, _("No findings."));
	fill_details(p, ctx);
	return 0;
}

static void draw(void *priv, const struct vw_ctx *ctx, WINDOW *w)
{
	struct checks *p = priv;
	const struct vw_facts *f = ctx->facts;
	struct vw_buf b = VW_BUF_INIT;
	int W = getmaxx(w), code = vw_findings_exit_code(ctx->findings);
	const char *verdict;
	enum vw_ui_color vc;

	switch (code) {
	case 0:
		verdict = _("This host is ready for GPU passthrough.");
		vc = VW_C_OK;
		break;
	case 1:
		verdict = _("This host can do GPU passthrough after changes the wizard makes for you.");
		vc = VW_C_FIX;
		break;
	default:
		verdict = _("GPU passthrough cannot be set up on this host as it is: see the lines marked stop.");
		vc = VW_C_ERROR;
		break;
	}
	/* the host in one line: system, kernel, bootloader, initramfs tool */
	vw_buf_printf(&b, "%s %s %s %s %s %s %s",
		      *f->distro.pretty_name ? f->distro.pretty_name : _("unknown system"), vw_ui.g.sep,
		      *f->kernel.release ? f->kernel.release : _("unknown kernel"), vw_ui.g.sep,
		      vw_bootloader_label(f->distro.bootloader), vw_ui.g.sep,
		      vw_initramfs_label(f->distro.initramfs));
	vw_ui_put(w, 0, 0, W, b.data, vw_ui_attr(VW_C_DIM));
	vw_buf_done(&b);
	vw_draw_para(w, 1, 0, W, 2, verdict, vw_ui_attr(vc) | A_BOLD);
	fill_details(p, ctx);
	{
		/* the list and details below the two header lines */
		WINDOW *sub = derwin(w, getmaxy(w) - 3, W, 3, 0);

		if (sub) {
			vw_ld_draw(&p->ld, sub, NULL, 0);
			delwin(sub);
		}
	}
}

static enum vw_key_result key(void *priv, struct vw_ctx *ctx, int k)
{
	struct checks *p = priv;

	(void)ctx;
	return vw_ld_key(&p->ld, vw_list_key(&p->ld.list, k), k);
}

static enum vw_leave_result leave(void *priv, struct vw_ctx *ctx, struct vw_err *err)
{
	struct checks *p = priv;
	const char *buttons[2];

	(void)err;
	if (vw_findings_exit_code(ctx->findings) < 2 || p->go_anyway)
		return VW_LEAVE_DONE;
	buttons[0] = _("Go on anyway");
	buttons[1] = _("Stay");
	vw_wizard_confirm(ctx, DLG_BLOCKED, _("Passthrough is not possible here"),
			  _("The lines marked stop must be fixed before a GPU can be passed through on this "
			    "host. You may still walk through the other steps to look around (as on a "
			    "support snapshot); the plan will not work here."), buttons, 2, 1);
	return VW_LEAVE_DIALOG;
}

static void answer(void *priv, struct vw_ctx *ctx, int id, int button)
{
	struct checks *p = priv;

	if (id == DLG_BLOCKED && button == 0) {
		p->go_anyway = true;
		vw_wizard_next(ctx);
	}
}

static const struct vw_keyhint keys[] = {
	{ N_("PgUp PgDn"), N_("details") },
	{ NULL, NULL },
};

const struct vw_step_ops vw_step_checks = {
	.id = "checks",
	.title = N_("Host checks"),
	.keys = keys,
	.help = N_("What this host can do for GPU passthrough: the CPU's virtualization support, the "
		   "IOMMU in the firmware and in the kernel, interrupt remapping, whether this is a VM or "
		   "a container, the system, its bootloader and initramfs tool.\n\n"
		   "Each line says what was found; the details below say what it means and what to do. "
		   "Lines marked \"fix\" are changes the wizard makes for you in the next steps; lines "
		   "marked \"stop\" must be fixed first (often in the firmware setup)."),
	.priv_size = sizeof(struct checks),
	.enter = enter,
	.draw = draw,
	.key = key,
	.leave = leave,
	.done = vw_ld_step_done,
	.answer = answer,
};
