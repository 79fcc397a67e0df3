/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wizard.c - the step runner: the walk, the keys every step shares, the
 * screen frame, help, quit, resume; headless, keys from a script
 * (tui/script.c) or a test's probe. */
#include "wizard.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "demo.h"
#include "picks.h"
#include "script.h"
#include "unit.h"

/* The walk, in order. */
static const struct vw_step_ops *const steps[] = {
	&vw_step_checks, &vw_step_gpu, &vw_step_groups, &vw_step_isolation, &vw_step_vm,
	&vw_step_access, &vw_step_review, &vw_step_apply, &vw_step_verify,
};

enum { DLG_QUIT = -1 };

struct vw_wizard {
	struct vw_ctx ctx;
	size_t cur;
	void *priv;
	bool entered;
	WINDOW *body;
	struct vw_dialog dlg;
	bool help_open;
	struct vw_text help;
	char msg[600];
	enum vw_ui_color msg_color;
	bool quit;
	bool pending_next;
	char *goto_id;
	struct vw_demo demo;	/* the demo host's private copy */
	bool demo_swapped;	/* ctx.sr is the copy */
	bool facts_borrowed;	/* ctx.facts is the caller's (opts.facts) */
	/* headless */
	bool headless;
	struct vw_script script;	/* --script, --dump */
	const struct vw_wizard_probe *probe;
};

/* How long the keys must pause before details panes follow the cursor. */
#define SETTLE_MS 120

/* ---- helpers for the steps ---- */

void vw_wizard_msg(struct vw_ctx *ctx, enum vw_ui_color c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->wz->msg, sizeof(ctx->wz->msg), fmt, ap);
	va_end(ap);
	ctx->wz->msg_color = c;
}

void vw_wizard_confirm(struct vw_ctx *ctx, int id, const char *title, const char *text,
		       const char *const *buttons, int nbuttons, int cancel)
{
	vw_dialog_open(&ctx->wz->dlg, id, title, text, buttons, nbuttons, cancel);
}

void vw_wizard_plan_reset(struct vw_ctx *ctx)
{
	vw_plan_done(&ctx->plan);
	vw_plan_init(&ctx->plan);
	ctx->plan_ok = false;
	free(ctx->plan_error);
	ctx->plan_error = NULL;
	vw_pipeline_info_done(&ctx->pinfo);
	free(ctx->accept);
	ctx->accept = NULL;
	if (ctx->applied) {	/* a new plan can be applied again */
		vw_apply_result_done(&ctx->applied_res);
		memset(&ctx->applied_res, 0, sizeof(ctx->applied_res));
		ctx->applied = false;
		free(ctx->apply_error);
		ctx->apply_error = NULL;
	}
}

void vw_wizard_changed(struct vw_ctx *ctx)
{
	ctx->dirty = true;
	vw_wizard_plan_reset(ctx);
}

int vw_wizard_writable(struct vw_ctx *ctx, struct vw_err *err)
{
	struct vw_wizard *wz = ctx->wz;
	struct vw_sysroot *copy;

	if (!ctx->demo || wz->demo_swapped)
		return 0;
	if (vw_demo_wait(&wz->demo, err) < 0 || vw_sysroot_open(&copy, wz->demo.dir, err) < 0)
		return -1;
	vw_sysroot_free(ctx->sr);
	ctx->sr = copy;
	wz->demo_swapped = true;
	return 0;
}

int vw_wizard_save(struct vw_ctx *ctx, struct vw_err *err)
{
	int r;

	if (vw_wizard_writable(ctx, err) < 0)
		return -1;
	free(ctx->state->step);
	ctx->state->step = vw_xstrdup(steps[ctx->wz->cur]->id);
	free(ctx->state->boot_id);
	ctx->state->boot_id = vw_xstrdup(ctx->boot_id);
	r = vw_state_save(ctx->state, ctx->sr, err);
	if (r == 0)
		ctx->dirty = false;
	return r;
}

void vw_wizard_next(struct vw_ctx *ctx)
{
	ctx->wz->pending_next = true;
}

enum vw_leave_result vw_leave_error(struct vw_err *err, const char *fmt, ...)
{
	char msg[sizeof(err->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	vw_err_set(err, -EINVAL, "%s", msg);
	return VW_LEAVE_ERROR;
}

void vw_wizard_goto(struct vw_ctx *ctx, const char *id)
{
	free(ctx->wz->goto_id);
	ctx->wz->goto_id = vw_xstrdup(id);
}

int vw_wizard_reprobe(struct vw_ctx *ctx, struct vw_err *err)
{
	struct vw_facts nf;
	int r = vw_facts_probe(&nf, ctx->sr, err);

	if (r < 0)
		return r;
	vw_findings_done(ctx->findings);
	if (!ctx->wz->facts_borrowed)
		vw_facts_done(ctx->facts);
	ctx->wz->facts_borrowed = false;	/* ours from now on */
	*ctx->facts = nf;
	vw_findings_eval(ctx->facts, ctx->findings);
	free(ctx->boot_id);
	ctx->boot_id = vw_boot_id(ctx->sr);
	return 0;
}

/* ---- the walk ---- */

static const struct vw_step_ops *step(const struct vw_wizard *wz)
{
	return steps[wz->cur];
}

static bool skipped(const struct vw_wizard *wz, size_t i)
{
	return steps[i]->skip && steps[i]->skip(&wz->ctx);
}

static void leave_step(struct vw_wizard *wz)
{
	if (!wz->entered)
		return;
	if (step(wz)->done)
		step(wz)->done(wz->priv);
	free(wz->priv);
	wz->priv = NULL;
	wz->entered = false;
}

static int enter_step(struct vw_wizard *wz, size_t i, struct vw_err *err)
{
	const struct vw_step_ops *s = steps[i];
	int r = 0;

	leave_step(wz);
	wz->cur = i;
	wz->priv = vw_xcalloc(1, s->priv_size ? s->priv_size : 1);
	if (s->enter)
		r = s->enter(wz->priv, &wz->ctx, err);
	if (r < 0) {
		if (s->done)	/* what enter() made before it failed */
			s->done(wz->priv);
		free(wz->priv);
		wz->priv = NULL;
		return r;
	}
	wz->entered = true;
	return 0;
}

/* Enter step i; on failure say why and go back to where we were. */
static void go_to(struct vw_wizard *wz, size_t i)
{
	struct vw_err err = { 0 };
	size_t from = wz->cur;

	if (enter_step(wz, i, &err) == 0)
		return;
	vw_wizard_msg(&wz->ctx, VW_C_ERROR, "%s", err.msg[0] ? err.msg : _("This step cannot open."));
	if (from != i && enter_step(wz, from, &err) == 0)
		return;
	for (size_t k = 0; k < VW_ARRAY_SIZE(steps); k++)	/* last resort */
		if (!skipped(wz, k) && enter_step(wz, k, &err) == 0)
			return;
	wz->quit = true;
}

static void go_next(struct vw_wizard *wz)
{
	struct vw_err err = { 0 };
	size_t i = wz->cur;

	switch (step(wz)->leave ? step(wz)->leave(wz->priv, &wz->ctx, &err) : VW_LEAVE_DONE) {
	case VW_LEAVE_DONE:
		break;
	case VW_LEAVE_ERROR:
		vw_wizard_msg(&wz->ctx, VW_C_ERROR, "%s", err.msg);
		return;
	case VW_LEAVE_STAY:
	case VW_LEAVE_DIALOG:	/* the dialog's answer goes on, or not */
		return;
	}
	do
		i++;
	while (i < VW_ARRAY_SIZE(steps) && skipped(wz, i));
	if (i >= VW_ARRAY_SIZE(steps)) {	/* the end of the walk */
		if (wz->ctx.dirty && vw_wizard_save(&wz->ctx, &err) < 0) {
			vw_wizard_msg(&wz->ctx, VW_C_ERROR, "%s", err.msg);
			return;
		}
		wz->quit = true;
		return;
	}
	go_to(wz, i);
	if (wz->cur == i) {
		/* Progress is saved at every step, so a reboot or a lost SSH
		   link resumes here.  Not being able to is said, not fatal. */
		if (vw_wizard_save(&wz->ctx, &err) < 0 && !wz->msg[0])
			vw_wizard_msg(&wz->ctx, VW_C_WARN, _("Your choices are not saved: %s"), err.msg);
	}
}

static void go_back(struct vw_wizard *wz)
{
	size_t i = wz->cur;

	while (i > 0) {
		i--;
		if (!skipped(wz, i)) {
			go_to(wz, i);
			return;
		}
	}
	vw_wizard_msg(&wz->ctx, VW_C_INFO, _("This is the first step."));
}

static void request_quit(struct vw_wizard *wz)
{
	const char *buttons[3];

	if (!wz->ctx.dirty) {
		wz->quit = true;
		return;
	}
	buttons[0] = _("Save and quit");
	buttons[1] = _("Quit without saving");
	buttons[2] = _("Stay");
	vw_dialog_open(&wz->dlg, DLG_QUIT, _("Quit"),
		       _("Your choices have changed since they were last saved. Save them, so that the "
			 "wizard starts from here next time?"), buttons, 3, 2);
}

static void quit_answer(struct vw_wizard *wz, int button)
{
	struct vw_err err = { 0 };

	if (button == 0) {
		if (vw_wizard_save(&wz->ctx, &err) < 0) {
			vw_wizard_msg(&wz->ctx, VW_C_ERROR, _("Cannot save: %s"), err.msg);
			return;
		}
		wz->quit = true;
	} else if (button == 1) {
		wz->quit = true;
	}
}

/* ---- help ---- */

/* "  key            what", aligned by display width; kw is the key
 * column's width, blanks included. */
static void help_line(struct vw_text *t, const char *key, const char *what, int kw)
{
	struct vw_buf b = VW_BUF_INIT;

	vw_buf_adds(&b, "  ");
	vw_ui_pad(&b, key, kw);
	vw_buf_adds(&b, what);
	vw_text_add(t, VW_C_NORMAL, 2 + kw, b.data);
	vw_buf_done(&b);
}

/* The key column: 16, or wider for a longer (translated) key name, so that
 * two blanks always part the key from what it does. */
static int help_key_width(const struct vw_keyhint *k, size_t n, int kw)
{
	for (size_t i = 0; i < n && k[i].key; i++) {
		int w = vw_ui_width(_(k[i].key)) + 2;

		if (w > kw)
			kw = w;
	}
	return kw;
}

static void open_help(struct vw_wizard *wz)
{
	const struct vw_step_ops *s = step(wz);
	struct vw_text *t = &wz->help;
	static const struct vw_keyhint global[] = {
		/* TRANSLATORS: the keys every step shares, in the help; the key
		   names as printed on keyboards. */
		{ N_("Up Down  j k"), N_("move") },
		{ N_("Space"), N_("tick, or choose") },
		{ N_("Enter  Tab"), N_("go on to the next step") },
		{ N_("Esc"), N_("go back to the previous step") },
		{ N_("Up Down in a field"), N_("leave a text field (q and ? are typed in it)") },
		{ "F1  ?", N_("this help") },
		{ "q", N_("quit (asks when something is not saved)") },
		{ "Ctrl-L", N_("draw the screen again") },
	};

	int kw = help_key_width(global, VW_ARRAY_SIZE(global), 16);

	if (s->keys)
		kw = help_key_width(s->keys, SIZE_MAX, kw);
	vw_text_clear(t);
	t->top = 0;
	if (s->help)
		vw_text_add(t, VW_C_NORMAL, 0, _(s->help));
	vw_text_add(t, VW_C_NORMAL, 0, "");
	if (s->keys && s->keys[0].key) {
		vw_text_add(t, VW_C_HEADING, 0, _("Keys of this step"));
		for (const struct vw_keyhint *k = s->keys; k->key; k++)
			help_line(t, _(k->key), _(k->what), kw);
		vw_text_add(t, VW_C_NORMAL, 0, "");
	}
	vw_text_add(t, VW_C_HEADING, 0, _("Keys of every step"));
	for (size_t i = 0; i < VW_ARRAY_SIZE(global); i++)
		help_line(t, _(global[i].key), _(global[i].what), kw);
	vw_text_add(t, VW_C_NORMAL, 0, "");
	vw_text_add(t, VW_C_DIM, 0,
		    _("Nothing is written to the host before the review step shows it as a diff and you "
		      "accept it. Every write is journaled: \"vfiowiz undo\" restores the files."));
	wz->help_open = true;
}

/* ---- drawing ---- */

static bool too_small(void)
{
	return COLS < VW_UI_MIN_COLS || LINES < VW_UI_MIN_LINES;
}

static const char *host_label(const struct vw_wizard *wz)
{
	if (wz->ctx.demo)
		return _("demo host");
	if (!vw_sysroot_is_host(wz->ctx.sr))
		return vw_sysroot_root(wz->ctx.sr);
	return _("this host");
}

static void draw_title(struct vw_wizard *wz)
{
	attr_t a = vw_ui_attr(VW_C_TITLE);
	size_t shown = 0, pos = 0;
	int used, hw;
	const char *host = host_label(wz);
	struct vw_buf b = VW_BUF_INIT;

	for (size_t i = 0; i < VW_ARRAY_SIZE(steps); i++) {
		if (skipped(wz, i))
			continue;
		shown++;
		if (i <= wz->cur)
			pos = shown;
	}
	vw_ui_fill(stdscr, 0, 0, COLS, a);
	used = vw_ui_put(stdscr, 0, 1, COLS - 2, "vfiowiz", a | A_BOLD);
	/* TRANSLATORS: the step counter in the title line: "3/9". */
	vw_buf_printf(&b, _("  %zu/%zu  %s"), pos, shown, _(step(wz)->title));
	used += vw_ui_put(stdscr, 0, 1 + used, COLS - 2 - used, b.data, a);
	hw = vw_ui_width(host);
	if (hw > COLS / 3)
		hw = COLS / 3;
	if (1 + used + 2 + hw < COLS - 1)
		vw_ui_put(stdscr, 0, COLS - 1 - hw, hw, host, a);
	vw_buf_done(&b);
}

struct hint {
	const char *key, *what;
};

static int hint_width(const struct hint *h)
{
	return vw_ui_width(h->key) + 1 + vw_ui_width(h->what) + 2;
}

static void draw_status(struct vw_wizard *wz)
{
	struct hint hs[16];
	size_t n = 0, nstep = 0, first = 1;	/* hs[first..] are the step's keys */
	int total = 0, x = 0;
	const struct vw_step_ops *s = step(wz);
	bool last = true;
	attr_t a = vw_ui_attr(VW_C_STATUS), ka = vw_ui_attr(VW_C_STATUSKEY);

	for (size_t i = wz->cur + 1; i < VW_ARRAY_SIZE(steps); i++)
		last &= skipped(wz, i);
	if (wz->help_open) {
		hs[n++] = (struct hint){ vw_ui.g.updown, _("scroll") };
		/* TRANSLATORS: key names in the key line, as printed on keyboards. */
		hs[n++] = (struct hint){ _("Esc"), _("close the help") };
	} else if (wz->dlg.open) {
		hs[n++] = (struct hint){ _("Left Right"), _("choose") };
		hs[n++] = (struct hint){ _("Enter"), _("confirm") };
		hs[n++] = (struct hint){ _("Esc"), _("cancel") };
	} else if (s->editing && s->editing(wz->priv)) {
		/* In a text field q and ? are typed: say how to get out. */
		const char *el = s->enter_label ? s->enter_label(wz->priv, &wz->ctx) : NULL;

		hs[n++] = (struct hint){ vw_ui.g.updown, _("leave the field") };
		hs[n++] = (struct hint){ _("Enter"), el ? _(el) : last ? _("finish") : _("next") };
		hs[n++] = (struct hint){ _("Esc"), _("back") };
		hs[n++] = (struct hint){ "F1", _("help") };
	} else {
		hs[n++] = (struct hint){ vw_ui.g.updown, _("move") };
		for (const struct vw_keyhint *k = s->keys; k && k->key && n < 10; k++, nstep++)
			hs[n++] = (struct hint){ _(k->key), _(k->what) };
		/* TRANSLATORS: what Enter does on the last step. */
		const char *el = s->enter_label ? s->enter_label(wz->priv, &wz->ctx) : NULL;

		hs[n++] = (struct hint){ _("Enter"), el ? _(el) : last ? _("finish") : _("next") };
		hs[n++] = (struct hint){ _("Esc"), _("back") };
		hs[n++] = (struct hint){ "F1", _("help") };
		hs[n++] = (struct hint){ "q", _("quit") };
	}
	for (size_t i = 0; i < n; i++)
		total += hint_width(&hs[i]);
	/* Too wide (translations run longer): first the arrows' "move", which
	   every list says by itself, then "q quit" (F1 lists it), and only
	   then the step's own keys, last ones first. */
	if (total > COLS - 1 && !wz->help_open && !wz->dlg.open && n > 0 && hs[0].key == vw_ui.g.updown &&
	    !(s->editing && s->editing(wz->priv))) {
		total -= hint_width(&hs[0]);
		memmove(&hs[0], &hs[1], (n - 1) * sizeof(hs[0]));
		n--;
		first = 0;
	}
	if (total > COLS - 1 && n > 0 && !strcmp(hs[n - 1].key, "q")) {
		total -= hint_width(&hs[n - 1]);
		n--;
	}
	while (total > COLS - 1 && nstep > 0) {
		size_t drop = first + nstep - 1;	/* the step's last key */

		total -= hint_width(&hs[drop]);
		memmove(&hs[drop], &hs[drop + 1], (n - drop - 1) * sizeof(hs[0]));
		n--;
		nstep--;
	}
	vw_ui_fill(stdscr, LINES - 1, 0, COLS, a);
	x = 1;
	for (size_t i = 0; i < n && x < COLS - 1; i++) {
		x += vw_ui_put(stdscr, LINES - 1, x, COLS - 1 - x, hs[i].key, ka);
		x += vw_ui_put(stdscr, LINES - 1, x, COLS - 1 - x, " ", a);
		x += vw_ui_put(stdscr, LINES - 1, x, COLS - 1 - x, hs[i].what, a);
		x += vw_ui_put(stdscr, LINES - 1, x, COLS - 1 - x, "  ", a);
	}
}

static void draw_too_small(void)
{
	char *text = vw_xasprintf(_("The terminal is %dx%d. vfiowiz needs at least %dx%d: make the "
				    "window larger, or press q to quit."),
				  COLS, LINES, VW_UI_MIN_COLS, VW_UI_MIN_LINES);
	char **lines;
	int width = COLS > 4 ? COLS - 2 : COLS;
	size_t n = vw_ui_wrap(text, width, 0, &lines);
	int y = LINES > (int)n ? (LINES - (int)n) / 2 : 0;

	for (size_t i = 0; i < n && y + (int)i < LINES; i++) {
		int w = vw_ui_width(lines[i]);

		vw_ui_put(stdscr, y + (int)i, w < COLS ? (COLS - w) / 2 : 0, COLS, lines[i],
			  vw_ui_attr(VW_C_WARN));
	}
	vw_strv_free(lines);
	free(text);
}

static void make_body(struct vw_wizard *wz)
{
	if (wz->body)
		delwin(wz->body);
	wz->body = NULL;
	if (!too_small())
		wz->body = derwin(stdscr, LINES - 3, COLS - 2, 1, 1);
}

static void draw(struct vw_wizard *wz)
{
	werase(stdscr);
	if (too_small() || !wz->body) {
		draw_too_small();
	} else {
		draw_title(wz);
		werase(wz->body);
		if (wz->entered && step(wz)->draw)
			step(wz)->draw(wz->priv, &wz->ctx, wz->body);
		if (wz->msg[0]) {	/* up to five lines, over the bottom of the step */
			char **lines;
			size_t n = vw_ui_wrap(wz->msg, COLS - 2, 0, &lines);

			if (n > 5)
				n = 5;
			for (size_t i = 0; i < n; i++) {
				int y = LINES - 1 - (int)n + (int)i;

				vw_ui_fill(stdscr, y, 0, COLS, A_NORMAL);
				vw_ui_put(stdscr, y, 1, COLS - 2, lines[i], vw_ui_attr(wz->msg_color));
			}
			vw_strv_free(lines);
		}
		draw_status(wz);
		if (wz->help_open) {
			char *title = vw_xasprintf(_("Help: %s"), _(step(wz)->title));

			vw_overlay_draw(&wz->help, stdscr, title, NULL);
			free(title);
		}
		vw_dialog_draw(&wz->dlg, stdscr);
	}
	wnoutrefresh(stdscr);
	doupdate();
}

static void dump(struct vw_wizard *wz)
{
	vw_script_dump(&wz->script, too_small() ? "too-small" : step(wz)->id);
}

/* ---- keys ---- */

static void dispatch(struct vw_wizard *wz, int key)
{
	const struct vw_step_ops *s = step(wz);
	bool editing;
	enum vw_key_result r;

	wz->msg[0] = '\0';
	if (key == VW_KEY_CTRL('l')) {
		clearok(curscr, TRUE);
		return;
	}
	if (too_small() || !wz->body) {
		if (key == 'q' || key == 'Q') {
			struct vw_err err = { 0 };

			/* No room for the dialog: keep the choices, they cost nothing. */
			if (wz->ctx.dirty)
				vw_wizard_save(&wz->ctx, &err);
			wz->quit = true;
		}
		return;
	}
	if (wz->help_open) {
		if (key == VW_KEY_ESC || key == 'q' || key == VW_KEY_F1 || key == '?' || key == VW_KEY_RET ||
		    key == VW_KEY_BACKSPACE)
			wz->help_open = false;
		else
			vw_text_key(&wz->help, key);
		return;
	}
	if (wz->dlg.open) {
		if (vw_dialog_key(&wz->dlg, key) == VW_W_CHOSEN) {
			int id = wz->dlg.id, b = wz->dlg.sel;

			if (wz->probe && wz->probe->answered && id != DLG_QUIT)
				wz->probe->answered(wz->probe->arg, &wz->ctx, s->id, wz->dlg.title,
						    wz->dlg.text, b);
			vw_dialog_close(&wz->dlg);
			if (id == DLG_QUIT)
				quit_answer(wz, b);
			else if (s->answer)
				s->answer(wz->priv, &wz->ctx, id, b);
		}
		return;
	}
	editing = s->editing && s->editing(wz->priv);
	if (key == VW_KEY_F1 || (key == '?' && !editing)) {
		open_help(wz);
		return;
	}
	r = s->key ? s->key(wz->priv, &wz->ctx, key) : VW_KEY_IGNORED;
	switch (r) {
	case VW_KEY_NEXT:
		go_next(wz);
		return;
	case VW_KEY_BACK:
		go_back(wz);
		return;
	case VW_KEY_HANDLED:
		return;
	case VW_KEY_IGNORED:
		break;
	}
	if (key == VW_KEY_RET || key == VW_KEY_TAB)
		go_next(wz);
	else if (key == VW_KEY_ESC)
		go_back(wz);
	else if (key == VW_KEY_BACKSPACE)	/* a slip on a checkbox must not leave the step */
		vw_wizard_msg(&wz->ctx, VW_C_INFO, "%s", _("Esc goes back to the previous step."));
	else if ((key == 'q' || key == 'Q') && !editing)
		request_quit(wz);
}

/* ---- set up and run ---- */

static size_t start_step(struct vw_wizard *wz, const char *start_at)
{
	struct vw_ctx *ctx = &wz->ctx;
	const char *want = start_at;

	if (!want && ctx->state->applied && ctx->rebooted && vw_groups_need_choice(ctx))
		want = "groups";	/* the IOMMU came on with the reboot: the groups first */
	if (!want && ctx->state->applied)
		want = "verify";	/* after apply: reboot, then verify */
	if (!want && *ctx->state->step)
		want = ctx->state->step;
	if (want && !strcmp(want, "apply") && !ctx->plan_ok)
		want = "review";	/* the plan is made again first */
	for (size_t i = 0; want && i < VW_ARRAY_SIZE(steps); i++)
		if (!strcmp(steps[i]->id, want))
			return i;
	for (size_t i = 0; i < VW_ARRAY_SIZE(steps); i++)
		if (!skipped(wz, i))
			return i;
	return 0;
}

static int check_start_at(const char *id)
{
	for (size_t i = 0; i < VW_ARRAY_SIZE(steps); i++)
		if (!strcmp(steps[i]->id, id))
			return 0;
	fprintf(stderr, _("%s: no step '%s'; the steps are:"), PACKAGE, id);
	for (size_t i = 0; i < VW_ARRAY_SIZE(steps); i++)
		fprintf(stderr, " %s", steps[i]->id);
	fputc('\n', stderr);
	return -1;
}

int vw_wizard_run(const struct vw_wizard_opts *o)
{
	struct vw_wizard wz;
	struct vw_sysroot *sr = NULL;
	struct vw_facts facts;
	struct vw_findings findings;
	struct vw_state state;
	struct vw_err err = { 0 };
	struct vw_ui_opts uo = { 0 };
	char *demo_src = NULL, **gone = NULL, *undone = NULL;
	const char *root = o->sysroot;
	int r, rc = 0;
	bool dropped;

	memset(&wz, 0, sizeof(wz));
	if (o->start_at && check_start_at(o->start_at) < 0)
		return VW_EXIT_ERROR;
	if (o->script && vw_script_parse(&wz.script, o->script, &err) < 0) {
		fprintf(stderr, "%s: %s\n", PACKAGE, err.msg);
		return VW_EXIT_ERROR;
	}
	if (o->dump && mkdir(o->dump, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, _("%s: cannot make %s: %s\n"), PACKAGE, o->dump, strerror(errno));
		vw_script_done(&wz.script);
		return VW_EXIT_ERROR;
	}
	if (o->demo) {
		demo_src = vw_cli_demo_dir();
		if (!demo_src) {
			fprintf(stderr, _("%s: the demo host is not installed (set VFIOWIZ_DEMO)\n"), PACKAGE);
			vw_script_done(&wz.script);
			return VW_EXIT_ERROR;
		}
		/* Copied in the background once the first screen is up: until
		   then the wizard reads the tree itself; the first write waits
		   for the copy. */
		root = demo_src;
	}
	if (o->facts) {
		facts = *o->facts;	/* a shallow copy: wz.facts_borrowed */
		wz.facts_borrowed = true;
	}
	if (vw_sysroot_open(&sr, root, &err) < 0 || (!o->facts && vw_facts_probe(&facts, sr, &err) < 0)) {
		fprintf(stderr, "%s: %s\n", PACKAGE, err.msg);
		rc = VW_EXIT_ERROR;
		goto out_root;
	}
	vw_findings_eval(&facts, &findings);
	vw_state_init(&state);
	r = vw_state_load(&state, sr, &err);
	if (r < 0 && r != -ENOENT)	/* said on screen below; start afresh */
		vw_state_init(&state);

	wz.ctx.sr = sr;
	wz.ctx.facts = &facts;
	wz.ctx.findings = &findings;
	wz.ctx.state = &state;
	wz.ctx.ch = &state.choices;
	wz.ctx.boot_id = vw_boot_id(sr);
	wz.ctx.demo = o->demo;
	wz.ctx.live = vw_sysroot_is_host(sr);
	/* `vfiowiz undo` took the wizard's apply back: say so, review again. */
	undone = r == 0 ? vw_xstrdup(state.journal) : NULL;
	if (undone && vw_state_forget_undone(&state, sr)) {
		free(state.step);
		state.step = vw_xstrdup("review");
	} else {
		free(undone);
		undone = NULL;
	}
	wz.ctx.rebooted = vw_state_rebooted(&state, wz.ctx.boot_id);
	wz.ctx.wz = &wz;
	wz.ctx.settled = true;	/* headless runs are always settled */
	vw_plan_init(&wz.ctx.plan);
	vw_text_init(&wz.help);
	wz.headless = o->script != NULL || o->probe != NULL;
	wz.probe = o->probe;
	wz.script.dump = o->dump;

	uo.headless = wz.headless;
	uo.cols = o->cols > 0 ? o->cols : 80;
	uo.lines = o->lines > 0 ? o->lines : 24;
	uo.mono = o->mono;
	if (vw_ui_open(&uo, &err) < 0) {
		fprintf(stderr, "%s: %s\n", PACKAGE, err.msg);
		rc = VW_EXIT_ERROR;
		goto out;
	}
	make_body(&wz);
	/* Saved before the hardware changed: a ticked card no longer there
	   (core/picks.h).  Dropped, said, and the walk opens on the GPU step. */
	dropped = !state.applied && vw_choices_drop_gone(&state.choices, &facts, NULL, &gone);
	if (dropped) {
		struct vw_buf b = VW_BUF_INIT;

		for (size_t i = 0; gone[i]; i++)
			vw_buf_printf(&b, "%s%s", i ? ", " : "", gone[i]);
		wz.ctx.dirty = true;
		if (!o->demo)
			vw_wizard_save(&wz.ctx, &err);
		go_to(&wz, start_step(&wz, o->start_at ? o->start_at : "gpu"));
		vw_wizard_msg(&wz.ctx, VW_C_WARN, _("Your saved choices named %s, which holds no GPU on this host now (was a card moved?): dropped. Choose the GPU again."),
			      b.data);
		vw_buf_done(&b);
		vw_strv_free(gone);
	} else
		go_to(&wz, start_step(&wz, o->start_at));
	if (dropped)
		;	/* that message first */
	else if (undone) {
		wz.ctx.dirty = true;
		if (!o->demo)
			vw_wizard_save(&wz.ctx, &err);
		vw_wizard_msg(&wz.ctx, VW_C_INFO, _("The apply %s was undone (vfiowiz undo): none of its changes are on the host now. Review them to apply again, or go back to change them."),
			      undone);
	}
	else if (r < 0 && r != -ENOENT)
		vw_wizard_msg(&wz.ctx, VW_C_WARN, _("The saved state was not read (%s): starting afresh."), err.msg);
	else if (wz.ctx.rebooted && !o->start_at && !strcmp(step(&wz)->id, "groups"))
		vw_wizard_msg(&wz.ctx, VW_C_INFO, _("Welcome back: the IOMMU is on and the groups are known. A group "
						    "of your choice holds other devices: choose how to go on."));
	else if (wz.ctx.rebooted && !o->start_at)
		vw_wizard_msg(&wz.ctx, VW_C_INFO, _("Welcome back: the host has rebooted since the changes were applied."));
	draw(&wz);
	dump(&wz);
	if (o->demo && vw_demo_start(&wz.demo, demo_src, &err) < 0) {
		vw_ui_close();
		fprintf(stderr, "%s: %s\n", PACKAGE, err.msg);
		rc = VW_EXIT_ERROR;
		wz.quit = true;
	}
	while (!wz.quit) {
		int key;

		if (wz.probe) {
			key = wz.probe->next_key(wz.probe->arg, &wz.ctx, step(&wz)->id, wz.dlg.open);
			if (key == VW_KEY_NONE)
				break;
		} else if (wz.headless) {
			key = vw_script_next(&wz.script);
			if (key == VW_KEY_NONE)
				break;
		} else {
			key = vw_ui_getkey(wz.ctx.settled ? -1 : SETTLE_MS);
			if (key == VW_KEY_NONE) {	/* the cursor rests: details now */
				wz.ctx.settled = true;
				draw(&wz);
				continue;
			}
			wz.ctx.settled = false;
		}
		if (key == VW_KEY_INTR) {
			/* Ctrl-C, a kill or a lost terminal: quit, keeping the choices. */
			if (wz.ctx.dirty)
				vw_wizard_save(&wz.ctx, &err);
			rc = vw_ui_interrupted ? 128 + vw_ui_interrupted : rc;
			break;
		}
		if (key == VW_KEY_RESIZE)
			make_body(&wz);
		else
			dispatch(&wz, key);
		if (wz.pending_next && !wz.quit) {
			wz.pending_next = false;
			go_next(&wz);
		}
		if (wz.goto_id) {
			for (size_t i = 0; i < VW_ARRAY_SIZE(steps); i++)
				if (!strcmp(steps[i]->id, wz.goto_id))
					go_to(&wz, i);
			free(wz.goto_id);
			wz.goto_id = NULL;
		}
		if (!wz.quit) {
			draw(&wz);
			dump(&wz);
		}
		if (wz.probe && wz.probe->seen && !wz.quit)
			wz.probe->seen(wz.probe->arg, &wz.ctx, step(&wz)->id, key);
	}
	leave_step(&wz);
	if (wz.body)
		delwin(wz.body);
	vw_ui_close();
out:
	vw_dialog_close(&wz.dlg);
	vw_text_done(&wz.help);
	vw_wizard_plan_reset(&wz.ctx);
	vw_plan_done(&wz.ctx.plan);
	if (wz.ctx.applied)
		vw_apply_result_done(&wz.ctx.applied_res);
	free(wz.ctx.apply_error);
	free(wz.ctx.boot_id);
	vw_state_done(&state);
	vw_findings_done(&findings);
	if (!wz.facts_borrowed)
		vw_facts_done(&facts);
out_root:
	vw_sysroot_free(wz.ctx.sr ? wz.ctx.sr : sr);
	if (o->demo)
		vw_demo_end(&wz.demo);
	free(demo_src);
	free(undone);
	vw_script_done(&wz.script);
	return rc;
}

int vw_cmd_wizard(const struct vw_cli *cli)
{
	struct vw_wizard_opts o = { 0 };

	if (cli->argc > 1) {
		fprintf(stderr, _("%s: unexpected argument '%s'\n"), PACKAGE, cli->argv[1]);
		return VW_EXIT_ERROR;
	}
	if (cli->size && (sscanf(cli->size, "%dx%d", &o.cols, &o.lines) != 2 || o.cols < 10 || o.lines < 5 ||
			  o.cols > 1000 || o.lines > 1000)) {
		fprintf(stderr, _("%s: --size wants COLSxLINES, like 80x24\n"), PACKAGE);
		return VW_EXIT_ERROR;
	}
	if ((cli->dump || cli->size) && !cli->script) {
		fprintf(stderr, _("%s: --dump and --size go with --script\n"), PACKAGE);
		return VW_EXIT_ERROR;
	}
	o.sysroot = cli->sysroot;
	o.demo = cli->demo;
	o.script = cli->script;
	o.dump = cli->dump;
	o.start_at = cli->start_at;
	o.mono = cli->mono;
	return vw_wizard_run(&o);
}
