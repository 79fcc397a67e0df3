/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-walk.c - the random walk property test of the wizard (issue 13).
 *
 * Seeded random key sequences drive the real wizard in this process
 * (headless, keys from a probe: wizard.h struct vw_wizard_probe) on a copy
 * of every fixture host, at 80x24 with resizes to 60x20 and 120x40; after
 * every key the choices and the plan are checked:
 *  - no trace: the choices are what the ticked cards alone leave
 *    (vw_choices_tidy() changes nothing), so going back and changing a
 *    choice leaves nothing of the old one;
 *  - the planned devices are exactly the ticked cards' unit: their
 *    functions, NVLink sets and what their IOMMU groups force, and each
 *    device a group forces was named in a dialog the user said yes to,
 *    after the last change of the ticked cards;
 *  - the host's boot (or only) display, and the devices the host needs
 *    (host_role), are never planned unless the user ticked their opt-in
 *    on screen during this run;
 *  - a card is given whole or shared one way (issue 16): the choices pass
 *    vw_answers_check (a VF count within sriov_totalvfs, mdevs and vGPUs
 *    within the room the host reports), no card ticked whole has a VF, a
 *    vGPU, a count or a MIG instance chosen, nor VFs or mdevs in use, a
 *    shared card is shared one way, and at the review a plan that could
 *    not be built says why.  The offer panel is counted: the walks must
 *    reach it on every host with a card that can be shared.
 * Then, on every host whose `check` exit is 0 or 1, a walk as a person
 * would make it (tick a card, say yes, fill in the fields) must reach the
 * review with a plan, for both VM targets and both access kinds: no step
 * is a dead end.
 *
 * A failure prints the host and the seed; `test-walk HOST SEED` replays
 * one walk, printing every key.  Seeds that failed once are kept in
 * regress[] below.
 */
#include "wizard.h"

#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "picks.h"
#include "pipeline.h"
#include "unit.h"

/* Walks per host; WALKS in the environment overrides. */
#define WALKS_DEFAULT 70
#define KEYS_MAX 120

/* Seeds that once found a defect: host, seed. */
static const struct {
	const char *host;
	unsigned seed;
} regress[] = {
	/* group devices of an unticked card stayed chosen (issue 13 item 1) */
	{ "amd-desktop", 100004 },
	/* an invalid allow-list went into the choices: state.conf unreadable */
	{ "acs-override-active", 700033 },
	{ "turing-4fn", 600093 },
	{ "nvswitch-8gpu", 800181 },
};

/* Key sequences of the issue, replayed as they are (with every check). */
static const struct {
	const char *host, *keys;
} scripted[] = {
	/* issue 13 item 1: tick the AMD boot display, give its group, Stay,
	   back, untick it, tick the NVIDIA card, on to the review */
	{ "demo", "enter,space,enter,space,enter,esc,esc,space,down,space,enter,enter,enter,enter,enter" },
};

struct walk {
	const char *host;
	unsigned seed, rng;
	int nkeys, maxkeys;
	bool verbose;
	/* what the user said yes to in dialogs since the ticked cards last changed */
	char *confirmed;
	char *gpus;		/* the ticked cards, as last seen */
	bool display_opt_in;	/* ticked "Take the host's display" on screen */
	bool was_allow_display;
	unsigned role_opt_in;	/* VW_HOST_* opted in on screen */
	unsigned was_roles;
	char failure[1024];
	char *last_choices;	/* formatted, as last checked */
	bool last_plan_ok;
	/* the policy walk */
	bool policy;
	int target;		/* enum vw_vm_target */
	bool access_rdp;	/* the access kind: VNC on the host, or RDP/xrdp in the guest */
	const char *pending;	/* keys of the current policy move */
	char *script, *script_pos;	/* a scripted walk: "down,space" */
	char *pending_buf;
	const char *last_step;
	int stuck;
	int home;		/* Up keys left of an 'H' */
	bool use_policy;	/* a random walk makes a person's move */
	char last_c;		/* the last letter of a move sent */
	int card_row;		/* the card the person's moves tick; -1 the first */
	bool reached_review;
	bool review_ok;
	char review_error[512];
};

/* main.c's, for --demo: the walks open copies of the fixture hosts instead. */
char *vw_cli_demo_dir(void)
{
	return NULL;
}

static unsigned rnd(struct walk *w)
{
	w->rng = w->rng * 1103515245u + 12345u;
	return (w->rng >> 16) & 0x7fff;
}

static void fail(struct walk *w, const char *fmt, ...) VW_PRINTF(2, 3);
static void fail(struct walk *w, const char *fmt, ...)
{
	va_list ap;

	if (w->failure[0])
		return;
	va_start(ap, fmt);
	vsnprintf(w->failure, sizeof(w->failure), fmt, ap);
	va_end(ap);
}

/* What the walks got to, printed at the end: a walk that never reaches a
 * plan proves little. */
static struct {
	unsigned plans, groups_given, display_taken, host_needed;
	unsigned offers, shared;	/* keys seen with the offer open; states sharing a card */
} stats;

static char *gpu_sig(const struct vw_choices *c)
{
	struct vw_buf b = VW_BUF_INIT;

	for (size_t i = 0; i < c->ndevices; i++)
		if (!strchr(c->devices[i], '.'))
			vw_buf_printf(&b, "%s ", c->devices[i]);
	return b.data ? b.data : vw_xstrdup("");
}

/* The choices as the state file holds them: what q "Save and quit" writes
 * must read back, or the next run starts afresh. */
static int copy_choices(struct walk *w, struct vw_choices *dst, const struct vw_choices *src,
			const char *step)
{
	struct vw_buf b = VW_BUF_INIT;
	struct vw_err err = { 0 };
	int r;

	vw_answers_format(&b, src);
	memset(dst, 0, sizeof(*dst));
	r = vw_answers_parse(dst, b.data, b.len, "state.conf", &err);
	if (r < 0)
		fail(w, "step %s: the choices would be saved unreadable: %s", step, err.msg);
	vw_buf_done(&b);
	return r;
}

/* Issue 16: whole or shared one way, within what the host has room for. */
static void check_shares(struct walk *w, const struct vw_ctx *ctx, const char *step)
{
	const struct vw_facts *f = ctx->facts;
	const struct vw_choices *c = ctx->ch;
	struct vw_err err = { 0 };

	if (vw_answers_check(c, f, &err) < 0)
		fail(w, "step %s: the choices do not pass vw_answers_check: %s", step, err.msg);
	for (size_t i = 0; i < f->ndevs; i++) {
		const struct vw_pci_dev *d = &f->devs[i];
		struct vw_offer o;
		int ways = 0;
		char pf[16];
		const char *rest;

		if (!vw_dev_is_display(d) || d->vf)
			continue;
		vw_offer_build(&o, f, NULL, (int)i);
		if (vw_choices_shared(c, f, (int)i)) {
			stats.shared++;
			if (vw_choices_has_gpu(c, d))
				fail(w, "step %s: %s is ticked whole and shared too", step, d->addr);
		} else if (vw_choices_has_gpu(c, d) && !vw_offer_whole_ok(&o)) {
			fail(w, "step %s: %s is ticked whole while its VFs or mdevs are in use", step, d->addr);
		}
		for (size_t k = 0; k < c->nsriov; k++) {
			int n;

			if (vw_sriov_split(c->sriov[k], pf, &n) && vw_facts_find_dev(f, pf) == (int)i) {
				ways++;
				if (n < 1 || n > d->sriov_total)
					fail(w, "step %s: %s makes %d VFs of %d", step, d->addr, n, d->sriov_total);
			}
		}
		for (size_t k = 0; k < c->nmigs; k++)
			ways += vw_mig_split(c->migs[k], pf, &rest) && vw_facts_find_dev(f, pf) == (int)i;
		if (!ways) {	/* a vGPU type alone: one instance */
			size_t n = 0;

			for (size_t k = 0; k < c->nmdevs; k++)
				n += vw_mdev_split(c->mdevs[k], pf, &rest) &&
				     vw_picks_card(f, vw_facts_find_dev(f, pf)) == (int)i;
			for (size_t k = 0; k < c->nvgpus; k++)
				n += vw_mdev_split(c->vgpus[k], pf, &rest) &&
				     vw_picks_card(f, vw_facts_find_dev(f, pf)) == (int)i;
			ways += n > 0;
			if (n > 1)
				fail(w, "step %s: %s gives %zu vGPUs to one VM", step, d->addr, n);
		}
		if (ways > 1)
			fail(w, "step %s: %s is shared more than one way", step, d->addr);
		vw_offer_done(&o);
	}
	if (!strcmp(step, "review") && !ctx->plan_ok && ctx->plan_error && !*ctx->plan_error)
		fail(w, "step review: no plan, and no word why");
}

static void check_state(struct walk *w, const struct vw_ctx *ctx, const char *step)
{
	const struct vw_facts *f = ctx->facts;
	struct vw_choices cp;
	struct vw_nvlink nl;
	struct vw_unit gu;
	char *sig = gpu_sig(ctx->ch);

	if (strcmp(sig, w->gpus)) {	/* the ticked cards changed: old yeses are void */
		free(w->gpus);
		w->gpus = sig;
		w->confirmed[0] = '\0';
	} else {
		free(sig);
	}
	{	/* the opt-ins for what the host needs: only from the groups dialog */
		unsigned now = (ctx->ch->allow_host_storage ? VW_HOST_STORAGE : 0) |
			       (ctx->ch->allow_host_network ? VW_HOST_NETWORK : 0) |
			       (ctx->ch->allow_host_input ? VW_HOST_INPUT : 0);

		if ((now & ~w->was_roles) && strcmp(step, "groups") && strcmp(step, "isolation"))
			fail(w, "a host opt-in turned on in step %s", step);
		w->role_opt_in = now;
		w->was_roles = now;
	}
	if (ctx->ch->allow_host_display && !w->was_allow_display) {
		if (strcmp(step, "isolation"))
			fail(w, "allow_host_display turned on in step %s", step);
		w->display_opt_in = true;
	}
	if (!ctx->ch->allow_host_display)
		w->display_opt_in = false;
	w->was_allow_display = ctx->ch->allow_host_display;

	/* Unchanged since the last key: checked already. */
	{
		struct vw_buf now = VW_BUF_INIT;

		vw_answers_format(&now, ctx->ch);
		if (w->last_choices && !strcmp(now.data, w->last_choices) && w->last_plan_ok == ctx->plan_ok) {
			vw_buf_done(&now);
			return;
		}
		free(w->last_choices);
		w->last_choices = now.data;
		w->last_plan_ok = ctx->plan_ok;
	}
	check_shares(w, ctx, step);

	/* no trace of an old choice */
	vw_pipeline_nvlink(&nl, ctx->sr, f, ctx->ch, NULL);
	if (copy_choices(w, &cp, ctx->ch, step) == 0 && vw_choices_tidy(&cp, f, &nl)) {
		struct vw_buf a = VW_BUF_INIT, b = VW_BUF_INIT;

		vw_answers_format(&a, ctx->ch);
		vw_answers_format(&b, &cp);
		fail(w, "step %s: the choices hold a trace of an old choice:\n%s\nwhere the ticked cards leave:\n%s",
		     step, a.data, b.data);
		vw_buf_done(&a);
		vw_buf_done(&b);
	}
	vw_choices_done(&cp);

	/* the plan, when there is one */
	vw_choices_gpu_unit(&gu, ctx->ch, f, &nl);
	if (ctx->plan_ok) {
		const struct vw_unit *pu = &ctx->pinfo.u;

		stats.plans++;
		stats.groups_given += gu.nforced > 0;
		stats.host_needed += gu.host_roles != 0;
		stats.display_taken += pu->boot_display || pu->only_display;
		if (pu->n != gu.n)
			fail(w, "step %s: %zu devices planned, the ticked cards' unit has %zu", step, pu->n, gu.n);
		for (size_t i = 0; i < pu->n; i++) {
			const struct vw_pci_dev *d = &f->devs[pu->m[i].dev];
			const struct vw_unit_member *g = vw_unit_find(&gu, pu->m[i].dev);

			if (!g) {
				fail(w, "step %s: %s is planned but no ticked card brings it", step, d->addr);
				continue;
			}
			if (g->why == VW_UNIT_GROUP && !strstr(w->confirmed, d->addr))
				fail(w, "step %s: %s is planned for its IOMMU group, but no dialog the user "
				     "accepted named it", step, d->addr);
			if (d->host_role & ~w->role_opt_in)
				fail(w, "step %s: %s, which the host needs, is planned without the opt-in", step,
				     d->addr);
			if (d->host_role && !strstr(w->confirmed, d->addr))
				fail(w, "step %s: %s, which the host needs, is planned but no accepted dialog "
				     "named it", step, d->addr);
			if (d->boot_vga == 1 && !w->display_opt_in)
				fail(w, "step %s: the boot display %s is planned without the opt-in", step,
				     d->addr);
		}
		/* dynamic: the host gets its only display back when the VM stops,
		   and the isolation step asks nothing (step_isolation.c) */
		if (pu->only_display && !w->display_opt_in && ctx->ch->gpu_mode != VW_GPU_DYNAMIC)
			fail(w, "step %s: the host's only display is planned without the opt-in", step);
	}
	vw_unit_done(&gu);
	vw_nvlink_done(&nl);
}

/* ---- random keys ---- */

static const char *const typed[] = {
	"gpu-vm", "secret1", "4096", "8", "0", "/x.img", "10.0.0.0/8", " ", "mario", "q", "123456789",
};

static int random_key(struct walk *w)
{
	/* Enter and Space often, so that walks get far; Esc enough to come back. */
	static const int common[] = {
		VW_KEY_DOWN, VW_KEY_DOWN, VW_KEY_DOWN, VW_KEY_UP, ' ', ' ', ' ', ' ', VW_KEY_RET, VW_KEY_RET,
		VW_KEY_RET, VW_KEY_RET, VW_KEY_RET, VW_KEY_RET, VW_KEY_ESC, VW_KEY_ESC, VW_KEY_TAB, VW_KEY_LEFT,
		VW_KEY_RIGHT, VW_KEY_BACKSPACE, VW_KEY_PGDN, VW_KEY_PGUP, VW_KEY_HOME, VW_KEY_END, 'j', 'k',
		'?', 'n', 'p', 'r',
	};
	unsigned r = rnd(w) % 100;

	if (r < 4 && !w->pending) {	/* a word typed */
		w->pending = typed[rnd(w) % VW_ARRAY_SIZE(typed)];
	}
	if (w->pending && *w->pending) {
		int k = (unsigned char)*w->pending++;

		if (!*w->pending)
			w->pending = NULL;
		return k;
	}
	if (r < 6) {	/* the terminal changes size: too small, usual, large */
		static const int sizes[][2] = { { 60, 20 }, { 80, 24 }, { 120, 40 }, { 80, 24 } };
		unsigned s = rnd(w) % 4;

		vw_ui_resize(sizes[s][0], sizes[s][1]);
		return VW_KEY_RESIZE;
	}
	return common[rnd(w) % VW_ARRAY_SIZE(common)];
}

/* ---- the walk a person makes ---- */

static void set_pending(struct walk *w, const char *keys)
{
	free(w->pending_buf);
	w->pending_buf = vw_xstrdup(keys);
	w->pending = w->pending_buf;
}

/* Keys in the policy's strings: one letter each. */
static int policy_char(char c)
{
	switch (c) {
	case 'D': return VW_KEY_DOWN;
	case 'U': return VW_KEY_UP;
	case 'E': return VW_KEY_END;
	case 'L': return VW_KEY_LEFT;
	case 'S': return ' ';
	case 'N': return VW_KEY_RET;
	case 'X': return VW_KEY_CTRL('u');
	case 'Y': return VW_KEY_HOME;	/* in a dialog: the first button, yes */
	default: return (unsigned char)c;
	}
}

/* The first card a person would take: not the boot display when another
 * one is there.  Its row in the GPU list. */
static int first_card_row(const struct vw_facts *f)
{
	int row = 0, boot_row = -1;

	for (size_t i = 0; i < f->ndevs; i++) {
		if (!vw_dev_is_display(&f->devs[i]) || f->devs[i].vf)	/* a VF has no row */
			continue;
		if (f->devs[i].boot_vga != 1)
			return row;
		if (boot_row < 0)
			boot_row = row;
		row++;
	}
	return boot_row < 0 ? 0 : boot_row;
}

/* Whether the card of a GPU list row can be shared (the offer opens). */
static bool row_shares(const struct vw_facts *f, int row)
{
	for (size_t i = 0; i < f->ndevs; i++) {
		struct vw_offer o;
		bool share;

		if (!vw_dev_is_display(&f->devs[i]) || f->devs[i].vf || row-- > 0)
			continue;
		vw_offer_build(&o, f, NULL, (int)i);
		share = vw_offer_shareable(&o);
		vw_offer_done(&o);
		return share || f->devs[i].vendor == 0x10de;	/* MIG: nvidia-smi's word */
	}
	return false;
}

static int policy_key(struct walk *w, const struct vw_ctx *ctx, const char *step, bool dialog)
{
	char buf[256];

	if (w->pending && !*w->pending)
		w->pending = NULL;
	if (dialog && w->pending && *w->pending != 'Y' && w->last_c != 'Y') {
		/* a dialog opened in the middle of a move: yes, then go on */
		char *rest = vw_xasprintf("YN%s", w->pending);

		set_pending(w, rest);
		free(rest);
	}
	if (w->pending) {
		char c = *w->pending++;

		w->last_c = c;
		if (c == 'H') {	/* to the top of the list: Home would move in a field */
			w->home = w->home ? w->home - 1 : 30;
			if (w->home)
				w->pending--;
			return VW_KEY_UP;
		}
		return policy_char(c);
	}
	if (dialog)
		return set_pending(w, "YN"), policy_key(w, ctx, step, dialog);	/* yes */
	if (!strcmp(step, "review") || !strcmp(step, "apply") || !strcmp(step, "verify")) {
		w->reached_review = true;
		w->review_ok = ctx->plan_ok;
		snprintf(w->review_error, sizeof(w->review_error), "%s",
			 ctx->plan_error ? ctx->plan_error : "");
		return VW_KEY_NONE;
	}
	if (w->last_step && !strcmp(w->last_step, step))
		w->stuck++;
	else
		w->stuck = 0;
	w->last_step = step;
	if (w->stuck > 6)
		return VW_KEY_NONE;
	if (!strcmp(step, "gpu")) {
		int row = w->card_row >= 0 ? w->card_row : first_card_row(ctx->facts);
		char *p = buf;

		char *sig = gpu_sig(ctx->ch);
		const struct vw_choices *c = ctx->ch;
		/* a card given whole, or shared (vGPUs, VFs to come: no slot) */
		bool any = strchr(sig, ':') != NULL || c->nsriov || c->nmdevs || c->nvgpus || c->nmigs;

		free(sig);
		if (w->stuck == 0 && any)
			return VW_KEY_RET;
		p += sprintf(p, "H");
		for (int i = 0; i < row; i++)
			*p++ = 'D';
		/* a card that can be shared: Space opens the offer, Enter takes
		   the way the cursor starts on, Enter goes on */
		strcpy(p, row_shares(ctx->facts, row) ? "SNN" : "SN");
		set_pending(w, buf);
	} else if (!strcmp(step, "groups")) {
		set_pending(w, w->stuck % 2 ? "EUUSN" : "N");	/* give the group */
	} else if (!strcmp(step, "isolation")) {
		/* take the display */
		set_pending(w, w->stuck && !ctx->ch->allow_host_display ? "ESN" : "N");
	} else if (!strcmp(step, "vm")) {
		/* target, then the name (row 3); refused (the target is not
		   installed): the name emptied, the host prepared alone */
		if (w->stuck == 1)
			set_pending(w, "HDDDXN");
		else if (w->stuck == 2)	/* memory and CPUs as a person types them */
			set_pending(w, ctx->ch->vm.target == VW_VM_PROXMOX ? "HDDDDX0DX4096DX2N" : "HDDDDX4096DX2N");
		else if (w->stuck == 3)	/* the last field, the image file: emptied */
			set_pending(w, "DDDDDDDDDDDDDDDDDDDDXN");
		else if (w->stuck)
			set_pending(w, "N");
		else
			set_pending(w, w->target == VW_VM_PROXMOX ? "HDSDDXgpu-vmN" : "HSDDDXgpu-vmN");
	} else if (!strcmp(step, "access")) {
		if (w->stuck)
			set_pending(w, "N");
		else if (!w->access_rdp)	/* VNC on, its password */
			set_pending(w, ctx->ch->access.vnc ? "HDXsecret1N" : "HSDXsecret1N");
		else	/* VNC off, RDP or xrdp in the guest on, the allow-list */
			set_pending(w, ctx->ch->access.vnc ? "HSDSN" : "HDSN");
	} else {
		return VW_KEY_RET;
	}
	return policy_key(w, ctx, step, dialog);
}

/* ---- the probe ---- */

static int next_key(void *arg, const struct vw_ctx *ctx, const char *step, bool dialog)
{
	struct walk *w = arg;
	int k;

	if (w->failure[0] || w->nkeys >= w->maxkeys)
		return VW_KEY_NONE;
	/* Never write to the host copy: the walk ends at the apply step. */
	if (!w->policy && (!strcmp(step, "apply") || !strcmp(step, "verify")))
		return VW_KEY_NONE;
	w->nkeys++;
	if (w->script) {
		char *tok = w->script_pos;

		if (!tok || !*tok)
			return VW_KEY_NONE;
		w->script_pos = strchr(tok, ',');
		if (w->script_pos)
			*w->script_pos++ = '\0';
		k = vw_ui_key_parse(tok);
	} else if (w->policy) {
		k = policy_key(w, ctx, step, dialog);
	} else {
		/* Now and then a person's move (tick a card, fill in a field),
		   so that random walks get to the plan too. */
		if (!w->pending && rnd(w) % 100 < 30)
			w->use_policy = true;
		if (w->use_policy) {
			k = policy_key(w, ctx, step, dialog);
			if (!w->pending || !*w->pending)
				w->use_policy = false;
			if (k == VW_KEY_NONE)
				k = VW_KEY_RET;
		} else {
			k = random_key(w);
		}
	}
	if (w->verbose && k != VW_KEY_NONE)
		fprintf(stderr, "  key %d on %s: %#x\n", w->nkeys, step, (unsigned)k);
	return k;
}

static const char *end_step;

static void seen(void *arg, const struct vw_ctx *ctx, const char *step, int key)
{
	(void)key;
	end_step = step;
	if (!strcmp(step, "gpu") && ctx->panel && !strcmp(ctx->panel, "offer"))
		stats.offers++;
	check_state(arg, ctx, step);
}

static void answered(void *arg, const struct vw_ctx *ctx, const char *step, const char *title,
		     const char *text, int button)
{
	struct walk *w = arg;
	size_t n;

	(void)ctx;
	(void)title;
	if (w->verbose)
		fprintf(stderr, "  dialog on %s: button %d: %s\n", step, button, text);
	if (button != 0)
		return;
	n = strlen(w->confirmed);
	w->confirmed = vw_xrealloc(w->confirmed, n + strlen(text) + 2);
	sprintf(w->confirmed + n, "%s\n", text);
}

/* ---- running ---- */

static char *host_copy(const char *name, const char *tmp)
{
	const char *top = getenv("top_builddir");
	char *src = vw_xasprintf("%s/tests/out/hosts/%s", top ? top : ".", name);
	char *dst = vw_xasprintf("%s/%s", tmp, name);
	char *cmd = vw_xasprintf("cp -a '%s' '%s'", src, dst);

	if (access(src, F_OK) < 0 || system(cmd) != 0) {
		free(dst);
		dst = NULL;
	}
	free(cmd);
	free(src);
	return dst;
}

/* The host's facts, probed once for all its walks. */
static struct vw_facts host_facts;

/* Until the probe finds host roles on the fixtures (core/hostrole.c), the
 * walks give them by hand: on a host whose probe found none, every network
 * controller carries the host's network and every storage controller its
 * disks, as on a machine that boots from them over SSH. */
static void hand_roles(struct vw_facts *f)
{
	for (size_t i = 0; i < f->ndevs; i++)
		if (f->devs[i].host_role)
			return;
	for (size_t i = 0; i < f->ndevs; i++) {
		struct vw_pci_dev *d = &f->devs[i];
		unsigned base = d->class_code >> 16;

		if (base != 0x01 && base != 0x02)
			continue;
		d->host_role = base == 0x01 ? VW_HOST_STORAGE : VW_HOST_NETWORK;
		free(d->host_role_why);
		d->host_role_why = vw_xstrdup(base == 0x01 ? "/ (sda)" : "the default route (eth0)");
	}
}

/* Probe the host into host_facts; its `check` exit status, -1 on error. */
static int host_probe(const char *root)
{
	struct vw_sysroot *sr;
	struct vw_findings fs;
	struct vw_err err = { 0 };
	int rc;

	if (vw_sysroot_open(&sr, root, &err) < 0)
		return -1;
	if (vw_facts_probe(&host_facts, sr, &err) < 0) {
		vw_sysroot_free(sr);
		return -1;
	}
	vw_findings_eval(&host_facts, &fs);
	rc = vw_findings_exit_code(&fs);
	hand_roles(&host_facts);
	vw_findings_done(&fs);
	vw_sysroot_free(sr);
	return rc;
}

static void forget_state(const char *root)
{
	char *p = vw_xasprintf("%s/%s", root, VW_STATE_FILE);

	unlink(p);
	free(p);
}

static void walk_init(struct walk *w, const char *host, unsigned seed)
{
	memset(w, 0, sizeof(*w));
	w->host = host;
	w->seed = seed;
	w->rng = seed * 2654435761u + 1;
	w->confirmed = vw_xcalloc(1, 1);
	w->gpus = vw_xstrdup("");
	w->maxkeys = KEYS_MAX;
	w->card_row = -1;
}

static void walk_done(struct walk *w)
{
	free(w->confirmed);
	free(w->gpus);
	free(w->pending_buf);
	free(w->last_choices);
	free(w->script);
}

static int run_walk(struct walk *w, const char *root, int cols, int lines)
{
	struct vw_wizard_probe probe = { .arg = w, .next_key = next_key, .seen = seen, .answered = answered };
	struct vw_wizard_opts o = { .sysroot = root, .cols = cols, .lines = lines, .probe = &probe, .mono = true,
				    .facts = &host_facts };

	forget_state(root);
	return vw_wizard_run(&o);
}

static int one_random(const char *host, const char *root, unsigned seed, bool verbose)
{
	struct walk w;
	int bad = 0;

	walk_init(&w, host, seed);
	w.verbose = verbose;
	w.maxkeys = 40 + (int)(seed % KEYS_MAX);
	{	/* the card a person would tick: any of them */
		int n = 0;

		for (size_t i = 0; i < host_facts.ndevs; i++)
			n += vw_dev_is_display(&host_facts.devs[i]) && !host_facts.devs[i].vf;
		w.card_row = n ? (int)(rnd(&w) % (unsigned)n) : 0;
	}
	run_walk(&w, root, 80, 24);
	if (getenv("WALK_ENDS"))
		printf("end %s\n", end_step ? end_step : "?");
	if (w.failure[0]) {
		printf("FAIL: random walk on %s, seed %u (replay: tests/tui/test-walk %s %u):\n  %s\n", host, seed,
		       host, seed, w.failure);
		bad = 1;
	}
	walk_done(&w);
	return bad;
}

static int one_scripted(const char *host, const char *root, const char *keys)
{
	struct walk w;
	int bad = 0;

	walk_init(&w, host, 0);
	w.script = w.script_pos = vw_xstrdup(keys);
	w.maxkeys = 1000;
	run_walk(&w, root, 80, 24);
	if (w.failure[0]) {
		printf("FAIL: the keys %s on %s:\n  %s\n", keys, host, w.failure);
		bad = 1;
	}
	walk_done(&w);
	return bad;
}

static int one_policy(const char *host, const char *root, int target, bool rdp, int check_rc)
{
	struct walk w;
	int bad = 0;

	walk_init(&w, host, 0);
	w.policy = true;
	w.verbose = getenv("WALK_VERBOSE") != NULL;
	w.target = target;
	w.access_rdp = rdp;
	w.maxkeys = 400;
	run_walk(&w, root, 80, 24);
	if (w.failure[0]) {
		printf("FAIL: walk on %s (%s, %s): %s\n", host, target ? "Proxmox" : "libvirt", rdp ? "RDP" : "VNC",
		       w.failure);
		bad = 1;
	} else if (!w.reached_review) {
		printf("FAIL: %s (check exit %d): the walk (%s, %s) is stuck on step %s\n", host, check_rc,
		       target ? "Proxmox" : "libvirt", rdp ? "RDP" : "VNC", w.last_step ? w.last_step : "?");
		bad = 1;
	} else if (!w.review_ok && !strcmp(host, "bad-input") && strstr(w.review_error, "repair it")) {
		/* a damaged file: the review says which and what to do */
	} else if (!w.review_ok) {
		printf("FAIL: %s (check exit %d): the review (%s, %s) has no plan: %s\n", host, check_rc,
		       target ? "Proxmox" : "libvirt", rdp ? "RDP" : "VNC", w.review_error);
		bad = 1;
	}
	walk_done(&w);
	return bad;
}

static const char *const hosts[] = {
	"demo", "amd-desktop", "intel-desktop-rootport", "identical-gpus-separate", "identical-gpus-shared",
	"laptop-optimus", "turing-4fn", "acs-override-active", "nvswitch-8gpu", "iommu-off-firmware",
	"iommu-off-cmdline", "debian-intgpu-off", "proxmox-systemd-boot", "bad-input", "h200x2-nvlink-guest",
	/* sharing one GPU (issue 16): the offer must be reached on these */
	"z790-igpu-sriov", "z790-igpu-sriov-novfs", "a100-vgpu", "l40-vgpu", "a100-mig", "mi210-gim",
};

/* Whether a host has a card the offer panel is for. */
static bool host_shares(const struct vw_facts *f)
{
	bool any = false;

	for (size_t i = 0; i < f->ndevs; i++) {
		struct vw_offer o;

		if (!vw_dev_is_display(&f->devs[i]) || f->devs[i].vf)
			continue;
		vw_offer_build(&o, f, NULL, (int)i);
		any |= vw_offer_shareable(&o);
		vw_offer_done(&o);
	}
	return any;
}

int main(int argc, char **argv)
{
	/* in memory where there is a tmpfs: the runner saves its state at every step */
	char tmpl[] = "/dev/shm/vw-walk-XXXXXX";
	const char *env = getenv("WALKS");
	int walks = env ? atoi(env) : WALKS_DEFAULT, bad = 0, nwalks = 0, nhosts = 0;

	setlocale(LC_ALL, "C.UTF-8");
	unsetenv("SSH_CONNECTION");
	unsetenv("SSH_CLIENT");
	if (!mkdtemp(tmpl)) {
		memcpy(tmpl, "/tmp/vw-walk-XXXXXX", sizeof("/tmp/vw-walk-XXXXXX"));
		if (!mkdtemp(tmpl))
			return 99;
	}
	if (argc == 3) {	/* replay one walk */
		char *root = host_copy(argv[1], tmpl);

		if (!root || host_probe(root) < 0)
			return 99;
		bad = one_random(argv[1], root, (unsigned)strtoul(argv[2], NULL, 10), true);
		free(root);
		vw_facts_done(&host_facts);
	} else {
		for (size_t h = 0; h < VW_ARRAY_SIZE(hosts); h++) {
			char *root;
			int rc;
			unsigned offers_before = stats.offers, shared_before = stats.shared;

			if (getenv("WALK_HOST") && strcmp(getenv("WALK_HOST"), hosts[h]))
				continue;
			root = host_copy(hosts[h], tmpl);
			if (!root) {
				printf("# no fixture host %s: skipped\n", hosts[h]);
				continue;
			}
			nhosts++;
			rc = host_probe(root);
			if (rc < 0) {
				printf("FAIL: %s cannot be probed\n", hosts[h]);
				bad++;
				free(root);
				continue;
			}
			for (size_t i = 0; i < VW_ARRAY_SIZE(scripted); i++)
				if (!strcmp(scripted[i].host, hosts[h]))
					bad += one_scripted(hosts[h], root, scripted[i].keys), nwalks++;
			for (size_t i = 0; i < VW_ARRAY_SIZE(regress); i++)
				if (!strcmp(regress[i].host, hosts[h]))
					bad += one_random(hosts[h], root, regress[i].seed, false), nwalks++;
			for (int i = 0; i < walks; i++, nwalks++)
				bad += one_random(hosts[h], root, (unsigned)(h * 100003u + (unsigned)i), false);
			if (rc == 0 || rc == 1)
				for (int t = 0; t < 2; t++)
					for (int a = 0; a < 2; a++, nwalks++)
						bad += one_policy(hosts[h], root, t, a, rc);
			{	/* MIG needs nvidia-smi's answer: the host's own, not the facts */
				bool shares = host_shares(&host_facts) || !strcmp(hosts[h], "a100-mig");

				if (shares && walks > 0 && stats.offers == offers_before) {
					printf("FAIL: %s: no walk opened the offer of a card that can be shared\n", hosts[h]);
					bad++;
				} else if (shares) {
					printf("# %s: %u keys with the offer open, %u states sharing a card\n", hosts[h],
					       stats.offers - offers_before, stats.shared - shared_before);
				}
			}
			vw_facts_done(&host_facts);
			free(root);
		}
		printf("%d walks on %d hosts, %d failed; %u plans checked, %u with a group given, %u taking "
		       "the host's display, %u a device the host needs\n", nwalks, nhosts, bad, stats.plans,
		       stats.groups_given, stats.display_taken, stats.host_needed);
	}
	{
		char *cmd = vw_xasprintf("rm -rf '%s'", tmpl);

		if (system(cmd) != 0)
			bad++;
		free(cmd);
	}
	return bad ? 1 : 0;
}
