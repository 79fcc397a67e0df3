/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_apply.c - step 8: write the accepted files (atomically, journaled),
 * run the post-commands and show their output, check the new initramfs. */
#include "wizard.h"

#include <stdlib.h>
#include <string.h>

#include "exec.h"

enum { DLG_APPLY = 1 };

struct apply {
	struct vw_text text;
};

static size_t accepted(const struct vw_ctx *ctx)
{
	size_t on = 0;

	for (size_t i = 0; i < ctx->plan.n; i++)
		on += ctx->accept && ctx->accept[i];
	return on;
}

static void show_plan(struct apply *p, const struct vw_ctx *ctx)
{
	struct vw_text *t = &p->text;
	char **posts = vw_plan_posts(&ctx->plan, ctx->accept);
	size_t n = accepted(ctx);

	vw_text_clear(t);
	if (!n) {
		vw_text_add(t, VW_C_OK, 0, _("Nothing to write: the host already holds the plan."));
		vw_strv_free(posts);
		return;
	}
	vw_text_addf(t, VW_C_HEADING, 0, ngettext("Ready to write %zu file:", "Ready to write %zu files:", n), n);
	for (size_t i = 0; i < ctx->plan.n; i++)
		if (ctx->accept[i])
			vw_text_addf(t, VW_C_NORMAL, 6, "  %s /%s", vw_ui.g.arrow, ctx->plan.v[i].path);
	if (posts[0]) {
		vw_text_add(t, VW_C_NORMAL, 0, "");
		vw_text_add(t, VW_C_HEADING, 0, _("Then these commands run:"));
		for (size_t i = 0; posts[i]; i++)
			vw_text_addf(t, VW_C_INFO, 6, "  $ %s", posts[i]);
	}
	vw_text_add(t, VW_C_NORMAL, 0, "");
	vw_text_add(t, VW_C_NORMAL, 0,
		    _("Each file is written atomically, and its old contents go to a journal first: "
		      "\"vfiowiz undo\" puts every file back, byte for byte."));
	if (ctx->demo)
		vw_text_add(t, VW_C_INFO, 0,
			    _("This is the demo host: the files are written into its private copy, and the "
			      "commands are only listed."));
	else if (!ctx->live)
		vw_text_add(t, VW_C_INFO, 0,
			    _("This is not the live host: the files are written under its folder, and the "
			      "commands are only listed."));
	vw_text_add(t, VW_C_NORMAL, 0, "");
	vw_text_add(t, VW_C_HEADING, 0, _("Press Enter to write them."));
	vw_strv_free(posts);
}

static const char *item_state(enum vw_item_state s)
{
	switch (s) {
	/* TRANSLATORS: the outcome of one file in the apply step. */
	case VW_ITEM_SKIPPED: return _("skipped");
	case VW_ITEM_PENDING: return _("not written");
	case VW_ITEM_WRITTEN: return _("written");
	case VW_ITEM_FAILED: return _("FAILED");
	}
	return "";
}

/* After a rebuild ran: is what the plan needs inside the new image? */
static void run_checks(struct vw_text *t, const struct vw_ctx *ctx)
{
	const struct vw_apply_result *res = &ctx->applied_res;

	for (size_t i = 0; i < ctx->pinfo.hp.nchecks; i++) {
		const struct vw_check *c = &ctx->pinfo.hp.checks[i];
		bool ran = false, ok = true;
		struct vw_exec_result er;
		struct vw_err err = { 0 };
		char **argv = NULL;

		for (size_t k = 0; k < res->npost; k++)
			ran |= !strcmp(res->post[k].cmd, c->after) && res->post[k].state == VW_POST_RAN &&
			       res->post[k].status == 0;
		if (!ran)
			continue;
		if (vw_exec_split(c->cmd, &argv, &err) < 0 || vw_exec_run(ctx->sr, (const char *const *)argv, &er, &err) < 0) {
			vw_text_addf(t, VW_C_WARN, 2, _("Could not check: %s (%s)"), c->cmd, err.msg);
			vw_strv_free(argv);
			continue;
		}
		for (size_t k = 0; c->expect && c->expect[k]; k++)
			if (!strstr(er.output, c->expect[k])) {
				ok = false;
				vw_text_addf(t, VW_C_ERROR, 2, _("Missing from \"%s\": %s"), c->cmd, c->expect[k]);
			}
		if (ok)
			vw_text_addf(t, VW_C_OK, 2, _("Checked: %s (%s)"), c->cmd, c->why ? _(c->why) : "");
		vw_exec_result_done(&er);
		vw_strv_free(argv);
	}
}

static void show_result(struct apply *p, const struct vw_ctx *ctx)
{
	struct vw_text *t = &p->text;
	const struct vw_apply_result *res = &ctx->applied_res;

	vw_text_clear(t);
	if (ctx->apply_error)
		vw_text_add(t, VW_C_ERROR, 0, ctx->apply_error);
	else
		vw_text_addf(t, VW_C_OK, 0, ngettext("%zu file written.", "%zu files written.", res->written),
			     res->written);
	if (res->journal_id)
		vw_text_addf(t, VW_C_NORMAL, 0, _("Journal %s: \"vfiowiz undo\" puts the files back."),
			     res->journal_id);
	vw_text_add(t, VW_C_NORMAL, 0, "");
	for (size_t i = 0; i < res->nitems; i++) {
		const struct vw_apply_item *it = &res->items[i];
		struct vw_buf b = VW_BUF_INIT;

		vw_ui_pad(&b, item_state(it->state), 12);
		vw_buf_printf(&b, "/%s", it->path);
		vw_text_add(t, it->state == VW_ITEM_FAILED ? VW_C_ERROR : it->state == VW_ITEM_WRITTEN ? VW_C_OK
			    : VW_C_DIM, 14, b.data);
		if (it->error)
			vw_text_addf(t, VW_C_ERROR, 14, "            %s", it->error);
		vw_buf_done(&b);
	}
	for (size_t i = 0; i < res->npost; i++) {
		const struct vw_post_run *pr = &res->post[i];

		vw_text_add(t, VW_C_NORMAL, 0, "");
		vw_text_addf(t, VW_C_INFO, 4, "$ %s", pr->cmd);
		switch (pr->state) {
		case VW_POST_RAN:
			vw_text_pre(t, VW_C_DIM, pr->output);
			vw_text_addf(t, VW_C_OK, 0, _("exit status %d"), pr->status);
			break;
		case VW_POST_FAILED:
			vw_text_pre(t, VW_C_DIM, pr->output);
			vw_text_addf(t, VW_C_ERROR, 0, _("failed (exit status %d)"), pr->status);
			break;
		case VW_POST_WOULD_RUN:
			vw_text_add(t, VW_C_DIM, 0, _("not run here: run it on the host itself"));
			break;
		case VW_POST_NOT_RUN:
			vw_text_add(t, VW_C_DIM, 0, _("not run, because a write failed"));
			break;
		}
	}
	run_checks(t, ctx);
	vw_text_add(t, VW_C_NORMAL, 0, "");
	if (!ctx->apply_error)
		vw_text_add(t, VW_C_HEADING, 0, _("Press Enter to go on: reboot, then verify."));
}

static int enter(void *priv, struct vw_ctx *ctx, struct vw_err *err)
{
	struct apply *p = priv;

	vw_text_init(&p->text);
	if (ctx->applied) {
		show_result(p, ctx);
		return 0;
	}
	if (!ctx->plan_ok)
		return vw_err_set(err, -1, _("Review the changes first."));
	show_plan(p, ctx);
	return 0;
}

static void draw(void *priv, const struct vw_ctx *ctx, WINDOW *w)
{
	struct apply *p = priv;

	(void)ctx;
	vw_text_draw(&p->text, w, 0, 0, getmaxy(w), getmaxx(w));
}

static void do_apply(struct apply *p, struct vw_ctx *ctx)
{
	struct vw_apply_opts opts = { 0 };
	struct vw_err err = { 0 };
	int r;

	if (vw_wizard_writable(ctx, &err) < 0) {
		vw_wizard_msg(ctx, VW_C_ERROR, "%s", err.msg);
		return;
	}
	opts.accept = ctx->accept;
	r = vw_apply_plan(ctx->sr, &ctx->plan, &opts, &ctx->applied_res, &err);
	ctx->applied = true;
	free(ctx->apply_error);
	ctx->apply_error = r < 0 ? vw_xstrdup(err.msg) : NULL;
	if (ctx->applied_res.written || r == 0) {
		/* Progress for the reboot: the wizard opens on Verify next time. */
		ctx->state->applied = true;
		free(ctx->state->applied_boot_id);
		ctx->state->applied_boot_id = vw_xstrdup(ctx->boot_id);
		free(ctx->state->journal);
		ctx->state->journal = vw_xstrdup(ctx->applied_res.journal_id ? ctx->applied_res.journal_id : "");
		ctx->dirty = true;
		if (vw_wizard_save(ctx, &err) < 0)
			vw_wizard_msg(ctx, VW_C_WARN, _("Your choices are not saved: %s"), err.msg);
	}
	show_result(p, ctx);
	p->text.top = 0;
}

static enum vw_key_result key(void *priv, struct vw_ctx *ctx, int k)
{
	struct apply *p = priv;
	const char *buttons[2];
	char *text;
	size_t n = accepted(ctx);

	if (!ctx->applied && n && (k == VW_KEY_RET || k == 'a')) {
		buttons[0] = _("Write them");
		buttons[1] = _("Cancel");
		text = vw_xasprintf(ngettext("Write %zu file to the host now, and run the commands after it?",
					     "Write %zu files to the host now, and run the commands after them?", n),
				    n);
		vw_wizard_confirm(ctx, DLG_APPLY, _("Apply"), text, buttons, 2, 1);
		free(text);
		return VW_KEY_HANDLED;
	}
	if (vw_text_key(&p->text, k) != VW_W_IGNORED)
		return VW_KEY_HANDLED;
	return VW_KEY_IGNORED;
}

static void answer(void *priv, struct vw_ctx *ctx, int id, int button)
{
	if (id == DLG_APPLY && button == 0)
		do_apply(priv, ctx);
}

static enum vw_leave_result leave(void *priv, struct vw_ctx *ctx, struct vw_err *err)
{
	(void)priv;
	if (!ctx->applied && accepted(ctx))
		return vw_leave_error(err, _("Nothing is written yet: press Enter to write the files, or Esc to go back."));
	if (ctx->apply_error && !ctx->applied_res.written)
		return vw_leave_error(err, _("Nothing was written: go back (Esc) and review the plan."));
	return VW_LEAVE_DONE;
}

static void done(void *priv)
{
	struct apply *p = priv;

	vw_text_done(&p->text);
}

static const char *enter_label(void *priv, const struct vw_ctx *ctx)
{
	(void)priv;
	/* TRANSLATORS: what Enter does in the apply step before anything is written. */
	return !ctx->applied && accepted(ctx) ? N_("write the files") : NULL;
}

const struct vw_step_ops vw_step_apply = {
	.id = "apply",
	.title = N_("Apply"),
	.help = N_("Writes the files you marked in the review: each one atomically (a temporary file, then "
		   "a rename), after its old contents went to a journal under /var/lib/vfiowiz/journal. A "
		   "file that changed since the review is refused. Then the commands run (initramfs "
		   "rebuild, bootloader update, virsh define), with their output shown, and the new "
		   "initramfs is checked for the vfio modules.\n\n"
		   "\"vfiowiz undo\" restores every file of the last apply."),
	.priv_size = sizeof(struct apply),
	.enter = enter,
	.draw = draw,
	.key = key,
	.leave = leave,
	.done = done,
	.answer = answer,
	.enter_label = enter_label,
};
