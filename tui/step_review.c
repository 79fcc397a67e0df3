/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_review.c - step 7: the plan, file by file, as unified diffs; each
 * file is accepted or skipped.  The only step that builds the plan. */
#include "wizard.h"

#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "diff.h"
#include "unit.h"

struct review {
	struct vw_wdiff diff;
	struct vw_text error;	/* when the plan cannot be built */
	int width;		/* the notes are wrapped for this width */
};

/* The whole plan into ctx->plan, by the sequence `vfiowiz plan` uses
 * (core/pipeline.h). */
static void build_plan(struct vw_ctx *ctx)
{
	struct vw_err err = { 0 };

	vw_wizard_plan_reset(ctx);
	if (vw_pipeline_build(&ctx->plan, ctx->sr, ctx->facts, ctx->ch, &ctx->pinfo, &err) < 0) {
		struct vw_unit u;
		int *devs = NULL;
		size_t n = 0;

		/* The core's words name answers keys; a wizard user is told
		   what to choose on screen instead. */
		if (vw_answers_devices(ctx->ch, ctx->facts, &devs, &n, NULL) == 0 &&
		    vw_bind_check_lockout(ctx->facts, ctx->ch, devs, n, NULL) < 0) {
			ctx->plan_error = vw_xstrdup(_("The chosen devices include the host's display: tick \"Take the "
						       "host's display\" in the step \"Host driver isolation\" if you "
						       "mean it, or go back and choose another GPU."));
		} else if (vw_unit_build_choices(&u, ctx->facts, NULL, ctx->ch, NULL) == 0) {
			for (size_t i = 0; i < u.issues.n && !ctx->plan_error; i++)
				if (u.issues.v[i].sev == VW_SEV_BLOCKER && vw_startswith(u.issues.v[i].code, "host-"))
					ctx->plan_error = vw_xasprintf("%s %s", u.issues.v[i].msg,
						_("Keep it with the host: go back and choose another GPU, or give its "
						  "group in the step \"IOMMU groups\" only if the host can do without it."));
			vw_unit_done(&u);
		}
		free(devs);
		if (!ctx->plan_error)
			ctx->plan_error = vw_xstrdup(err.msg[0] ? err.msg : _("The plan cannot be made."));
		return;
	}
	ctx->accept = vw_xcalloc(ctx->plan.n + 1, sizeof(bool));
	for (size_t i = 0; i < ctx->plan.n; i++)
		ctx->accept[i] = true;
	ctx->plan_ok = true;
}

static void fill(struct review *p, const struct vw_ctx *ctx, int width)
{
	struct vw_buf b = VW_BUF_INIT;
	size_t cur = p->diff.cur, top = p->diff.top;

	vw_wdiff_done(&p->diff);
	vw_wdiff_init(&p->diff);
	p->width = width;
	if (ctx->pinfo.nnotes) {
		for (size_t i = 0; i < ctx->pinfo.nnotes; i++) {
			char **lines;
			size_t n = vw_ui_wrap(ctx->pinfo.notes[i], width > 8 ? width - 5 : 4, 2, &lines);

			for (size_t k = 0; k < n; k++)
				vw_buf_printf(&b, "  %s %s\n", k ? " " : "-", lines[k]);
			vw_strv_free(lines);
		}
		vw_wdiff_add(&p->diff, _("Notes"), NULL, b.data, NULL);
		vw_buf_done(&b);
	}
	for (size_t i = 0; i < ctx->plan.n; i++) {
		const struct vw_change *c = &ctx->plan.v[i];
		char *path = vw_xasprintf("/%s", c->path);
		/* TRANSLATORS: what happens to a file of the plan. */
		const char *what = c->remove ? _("removed") : c->old_exists ? _("changed") : _("new file");
		/* TRANSLATORS: a file's state (new file, changed, removed), then why it changes. */
		char *note = vw_xasprintf(_("%s: %s"), what, c->why ? _(c->why) : "");

		const char *secret = c->secret ? ctx->ch->access.vnc_password : NULL;
		size_t ol, nl;
		char *od = vw_change_mask(c->old_data, c->old_exists ? c->old_len : 0, secret, &ol);
		char *nd = vw_change_mask(c->new_data, c->remove ? 0 : c->new_len, secret, &nl);
		char *la = vw_xasprintf("a/%s", c->path), *lb = vw_xasprintf("b/%s", c->path);

		if (vw_diff_unified(&b, od, ol, nd, nl, c->old_exists ? la : NULL, c->remove ? NULL : lb,
				    VW_DIFF_CONTEXT) < 0)
			vw_buf_printf(&b, "  %s\n", _("(no diff)"));
		free(la);
		free(lb);
		free(od);
		free(nd);
		vw_wdiff_add(&p->diff, path, note, b.data ? b.data : "", &ctx->accept[i]);
		vw_buf_done(&b);
		free(note);
		free(path);
	}
	if (ctx->plan.npost) {
		for (size_t i = 0; i < ctx->plan.npost; i++)
			vw_buf_printf(&b, "  $ %s\n", ctx->plan.post_cmds[i]);
		vw_wdiff_add(&p->diff, _("Commands that run after the writes"), NULL, b.data, NULL);
		vw_buf_done(&b);
	}
	p->diff.cur = cur < p->diff.nl ? cur : 0;
	p->diff.top = top < p->diff.nl ? top : 0;
}

static int enter(void *priv, struct vw_ctx *ctx, struct vw_err *err)
{
	struct review *p = priv;

	(void)err;
	vw_wdiff_init(&p->diff);
	vw_text_init(&p->error);
	if (!ctx->plan_ok)
		build_plan(ctx);
	if (ctx->plan_error) {
		vw_text_add(&p->error, VW_C_ERROR, 0, _("The plan cannot be made:"));
		vw_text_add(&p->error, VW_C_ERROR, 2, ctx->plan_error);
		vw_text_add(&p->error, VW_C_NORMAL, 0, "");
		vw_text_add(&p->error, VW_C_NORMAL, 0, _("Go back (Esc) and change the choices it names."));
		return 0;
	}
	fill(p, ctx, getmaxx(stdscr) - 2);
	return 0;
}

static void draw(void *priv, const struct vw_ctx *ctx, WINDOW *w)
{
	struct review *p = priv;
	int W = getmaxx(w), H = getmaxy(w);
	size_t on = 0;

	char *line;

	if (ctx->plan_error) {
		vw_text_draw(&p->error, w, 0, 0, H, W);
		return;
	}
	if (!ctx->plan.n) {
		vw_draw_para(w, 0, 0, W, 4,
			     _("Nothing to change: the host already holds every file of the plan. Go on to "
			       "verify."), vw_ui_attr(VW_C_OK));
		return;
	}
	for (size_t i = 0; i < ctx->plan.n; i++)
		on += ctx->accept[i];
	{
		/* Two counts, so two plurals: a message for each clause. */
		/* TRANSLATORS: the plural follows the second number, the files of the plan. */
		char *files = vw_xasprintf(ngettext("%zu of %zu file will be written",
						    "%zu of %zu files will be written", ctx->plan.n),
					   on, ctx->plan.n);
		char *cmds = vw_xasprintf(ngettext("%zu command runs after them", "%zu commands run after them",
						   ctx->plan.npost), ctx->plan.npost);

		/* TRANSLATORS: the review step's summary; the first %s is "N of M
		 * files will be written", the second "N commands run after them". */
		line = vw_xasprintf(_("%s; %s. Nothing is written before the next step."), files, cmds);
		free(files);
		free(cmds);
	}
	vw_draw_para(w, 0, 0, W, 2, line, A_NORMAL);
	free(line);
	if (W != p->width)	/* a resize: wrap the notes again */
		fill(p, ctx, W);
	vw_wdiff_draw(&p->diff, w, 2, 0, H - 2, W);
}

static enum vw_key_result key(void *priv, struct vw_ctx *ctx, int k)
{
	struct review *p = priv;

	if (ctx->plan_error)
		return vw_text_key(&p->error, k) ? VW_KEY_HANDLED : VW_KEY_IGNORED;
	switch (vw_wdiff_key(&p->diff, k)) {
	case VW_W_IGNORED:
		return VW_KEY_IGNORED;
	case VW_W_CHANGED:
		/* Skipping files changes what apply does, not the choices. */
		return VW_KEY_HANDLED;
	default:
		return VW_KEY_HANDLED;
	}
}

static enum vw_leave_result leave(void *priv, struct vw_ctx *ctx, struct vw_err *err)
{
	size_t on = 0;

	(void)priv;
	if (ctx->plan_error)
		return vw_leave_error(err, _("The plan cannot be made: go back and change the choices."));
	for (size_t i = 0; i < ctx->plan.n; i++)
		on += ctx->accept[i];
	if (ctx->plan.n && !on)
		return vw_leave_error(err, _("Every file is skipped: mark some with Space, or quit."));
	return VW_LEAVE_DONE;
}

static void done(void *priv)
{
	struct review *p = priv;

	vw_wdiff_done(&p->diff);
	vw_text_done(&p->error);
}

/* TRANSLATORS: key hints of the review step, in the status line: Space
 * marks a file to be written or skipped; n p go to the next or previous
 * hunk (a block of changed lines in a diff); ] [ to the next or previous
 * file; a marks every file. */
static const struct vw_keyhint keys[] = {
	{ N_("Space"), N_("write/skip") },
	{ "n p", N_("hunk") },
	{ "] [", N_("file") },
	{ "a", N_("all") },
	{ NULL, NULL },
};

const struct vw_step_ops vw_step_review = {
	.id = "review",
	.title = N_("Review changes"),
	.help = N_("Every file the wizard would write, as a unified diff against what is on the host now "
		   "(green: added, red: removed), and the commands that run after the writes "
		   "(update-initramfs, update-grub, virsh define...).\n\n"
		   "Space marks the file under the cursor to be written or skipped; a marks or clears them "
		   "all. n and p jump between hunks, ] and [ between files. Nothing is written here: the "
		   "next step writes the marked files, after asking."),
	.keys = keys,
	.priv_size = sizeof(struct review),
	.enter = enter,
	.draw = draw,
	.key = key,
	.leave = leave,
	.done = done,
};
