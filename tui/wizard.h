/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wizard.h - the step runner: a const table of steps, each one file with
 * its ops (docs/style.md), the context they share, and the few calls a step
 * makes back into the runner.
 *
 * Steps read facts and write choices (ctx->ch) as the user changes them, so
 * Back never loses anything; their private state (priv) lives from enter()
 * to done().  Only the review step builds the plan and only the apply step
 * applies it.  The runner owns the screen: title line, the step's window,
 * a message line and the key line; it redraws everything from state after
 * every key, so a resize at any moment needs nothing from the steps.
 */
#ifndef VW_WIZARD_H
#define VW_WIZARD_H

#include <limits.h>
#include <stdbool.h>
#include <curses.h>

#include "access.h"
#include "answers.h"
#include "apply.h"
#include "plan.h"
#include "facts.h"
#include "findings.h"
#include "hostplan.h"
#include "pipeline.h"
#include "state.h"
#include "sysroot.h"
#include "ui.h"
#include "vmplan.h"
#include "widgets.h"

struct vw_wizard;

/* What the steps share.  The plan part is filled by the review step. */
struct vw_ctx {
	struct vw_sysroot *sr;
	struct vw_facts *facts;
	struct vw_findings *findings;
	struct vw_state *state;
	struct vw_choices *ch;		/* == &state->choices */
	char *boot_id;			/* this boot, "" unknown */
	bool demo;			/* the built-in demo host (a private copy) */
	bool rebooted;			/* opened after the reboot that followed apply */
	bool dirty;			/* choices changed since the state was saved */
	bool settled;			/* no key for a moment: details panes may
					   follow the cursor (while keys come, only
					   the list moves: little to send over SSH) */
	bool live;			/* the live host: commands really run */
	const char *panel;		/* a step's own panel open over its list
					   ("offer": how a GPU is shared), NULL
					   none: for the tests' eyes */

	/* the plan: built by review, applied by apply */
	struct vw_plan plan;
	bool plan_ok;			/* built without error for the current choices */
	char *plan_error;		/* why it could not be built, or NULL */
	struct vw_plan_info pinfo;	/* unit, host, VM, access and their
					   notes (core/pipeline.h); zeroed when none */
	bool *accept;			/* plan.n marks: write this change */
	bool applied;			/* apply ran in this session */
	struct vw_apply_result applied_res;
	char *apply_error;

	struct vw_wizard *wz;		/* the runner (private) */
};

enum vw_key_result {
	VW_KEY_IGNORED,		/* the runner applies its own keys */
	VW_KEY_HANDLED,		/* used; redraw */
	VW_KEY_NEXT,		/* go on (as Enter) */
	VW_KEY_BACK,		/* go back (as Esc) */
};

/* What a step's leave() decided. */
enum vw_leave_result {
	VW_LEAVE_DONE,		/* go on */
	VW_LEAVE_STAY,		/* stay, saying nothing (the step said why itself) */
	VW_LEAVE_DIALOG,	/* stay: it opened a dialog, whose answer() may call
				   vw_wizard_next() to go on */
	VW_LEAVE_ERROR,		/* stay and show err */
};

/* One entry of the key line: the key as shown, and what it does (N_()). */
struct vw_keyhint {
	const char *key;
	const char *what;
};

struct vw_step_ops {
	const char *id;		/* stable: state file, tests, --start-at */
	const char *title;	/* N_("..."), translated when drawn */
	const char *help;	/* N_("..."): the help overlay's text for this step */
	const struct vw_keyhint *keys;	/* the step's own keys; {NULL} ends */
	size_t priv_size;	/* the runner allocates (zeroed) and frees it */
	/* Leave the step out of the walk (NULL: never). */
	bool (*skip)(const struct vw_ctx *);
	/* Build priv from ctx.  A failure shows err and stays on the previous step. */
	int (*enter)(void *priv, struct vw_ctx *, struct vw_err *);
	/* Draw into w (erased before); everything visible comes from priv and ctx. */
	void (*draw)(void *priv, const struct vw_ctx *, WINDOW *w);
	/* A key; IGNORED lets the runner handle it (arrows are not global). */
	enum vw_key_result (*key)(void *priv, struct vw_ctx *, int key);
	/* Validate before going on (NULL: always done). */
	enum vw_leave_result (*leave)(void *priv, struct vw_ctx *, struct vw_err *);
	/* Release what enter() made (priv itself is the runner's). */
	void (*done)(void *priv);
	/* The answer to a dialog this step opened with vw_wizard_confirm(). */
	void (*answer)(void *priv, struct vw_ctx *, int id, int button);
	/* True while a text field has the keys (q, ?, j, k are typed). */
	bool (*editing)(void *priv);
	/* What Enter does now, N_() ("write"); NULL or returning NULL: "next". */
	const char *(*enter_label)(void *priv, const struct vw_ctx *);
};

extern const struct vw_step_ops vw_step_checks, vw_step_gpu, vw_step_groups, vw_step_isolation,
	vw_step_vm, vw_step_access, vw_step_review, vw_step_apply, vw_step_verify;

/* A test's eye on a headless run (tests/tui/test-walk.c): the keys come
 * from next_key instead of a script, the test sees the state after every
 * key and every dialog answered, with the dialog's words. */
struct vw_wizard_probe {
	void *arg;
	/* The next key, or VW_KEY_NONE to end the run. */
	int (*next_key)(void *arg, const struct vw_ctx *ctx, const char *step, bool dialog);
	/* After every key, once the runner has redrawn: the step shown. */
	void (*seen)(void *arg, const struct vw_ctx *ctx, const char *step, int key);
	/* A dialog of a step was answered: its title, text and button. */
	void (*answered)(void *arg, const struct vw_ctx *ctx, const char *step, const char *title,
			 const char *text, int button);
};

struct vw_wizard_opts {
	const char *sysroot;	/* NULL: the live host */
	bool demo;		/* the built-in demo host, on a private copy */
	const char *script;	/* headless: keys "down,space,enter,F1" */
	const char *dump;	/* headless: folder for a text dump after every key */
	int cols, lines;	/* headless size (80x24 when 0) */
	const char *start_at;	/* step id to open on */
	bool mono;		/* no colours */
	const struct vw_wizard_probe *probe;	/* headless, keys from a test */
	/* Facts of sysroot probed already (tests running many walks on one
	 * host): borrowed, never freed or changed; NULL: probe them. */
	const struct vw_facts *facts;
};

/* Run the wizard; returns the process exit status. */
int vw_wizard_run(const struct vw_wizard_opts *o);

/* ---- calls from steps ---- */

/* Show a one-line message above the key line until the next key. */
void vw_wizard_msg(struct vw_ctx *ctx, enum vw_ui_color c, const char *fmt, ...) VW_PRINTF(3, 4);
/* Open a confirm dialog; the answer comes to the step's answer(). */
void vw_wizard_confirm(struct vw_ctx *ctx, int id, const char *title, const char *text,
		       const char *const *buttons, int nbuttons, int cancel);
/* The choices changed: unsaved, and the plan must be built again. */
void vw_wizard_changed(struct vw_ctx *ctx);
/* Drop the plan (and the accept marks). */
void vw_wizard_plan_reset(struct vw_ctx *ctx);
/* Save choices and progress now.  Returns 0 or a negative code with err. */
int vw_wizard_save(struct vw_ctx *ctx, struct vw_err *err);
/* Go on to the next step after the current key, as Enter does (leave()
 * is asked again): for a step whose leave() opened a dialog. */
void vw_wizard_next(struct vw_ctx *ctx);
/* For leave(): set err (printf format) and return VW_LEAVE_ERROR. */
enum vw_leave_result vw_leave_error(struct vw_err *err, const char *fmt, ...) VW_PRINTF(2, 3);
/* Jump to the step with this id (after the current key). */
void vw_wizard_goto(struct vw_ctx *ctx, const char *id);
/* Before writing: on the demo host, wait for its private copy and move
 * ctx->sr there (the first screens read the installed tree, which the copy
 * equals).  Returns 0 or a negative code with err set. */
int vw_wizard_writable(struct vw_ctx *ctx, struct vw_err *err);
/* Probe the host again (after apply, after a pretend reboot). */
int vw_wizard_reprobe(struct vw_ctx *ctx, struct vw_err *err);

/* ---- list and details (tui/w_listdetails.c) ---- */

/* The layout of most steps: a list, and below it the details of the item
 * under the cursor.  The details follow the cursor only when it rests
 * (ctx->settled): while keys come, only the list moves, which is little to
 * send over SSH.  When a step's priv begins with this struct,
 * vw_ld_editing() and vw_ld_step_done() can be its editing() and done(). */
struct vw_listdetails {
	struct vw_list list;
	struct vw_text details;
	int shown;		/* tag of the item the details are for, or
				   VW_LD_STALE */
	bool shown_on;		/* and its tick then */
};

#define VW_LD_STALE INT_MIN

void vw_ld_init(struct vw_listdetails *ld);
void vw_ld_done(struct vw_listdetails *ld);
/* The details are out of date: they are written again at the next draw. */
void vw_ld_stale(struct vw_listdetails *ld);
/* Before drawing: true when the step must write the details for *it, the
 * item under the cursor (NULL: none), which they are now cleared for;
 * false when they are for it already (and its tick), or some are shown
 * while the cursor moves. */
bool vw_ld_follow(struct vw_listdetails *ld, const struct vw_ctx *ctx, struct vw_item **it);
/* vw_draw_list_details() of both, titled "Details". */
void vw_ld_draw(struct vw_listdetails *ld, WINDOW *w, const char *intro, int list_max);
/* A key after the list had it (r: what vw_list_key() said): the list's
 * keys are handled; PgUp and PgDn scroll the details. */
enum vw_key_result vw_ld_key(struct vw_listdetails *ld, enum vw_wkey r, int key);
/* A text field of the list has the keys: a step's editing(). */
bool vw_ld_editing(void *priv);
/* A step's done() when its priv holds nothing more to free. */
void vw_ld_step_done(void *priv);

/* The ticked cards' IOMMU groups force devices along and no way on is
 * chosen yet (step_groups.c): after the reboot that turned the IOMMU on,
 * the walk resumes there. */
bool vw_groups_need_choice(const struct vw_ctx *ctx);

#endif
