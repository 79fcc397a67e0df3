/* SPDX-License-Identifier: GPL-2.0-or-later */
/* boot_grub.c - kernel parameters through GRUB's /etc/default/grub.
 *
 * The files are shell, sourced in order: /etc/default/grub, then (Debian
 * family) the .cfg files of /etc/default/grub.d; the last assignment wins.  Parameters
 * that turn the IOMMU off are removed in the file that sets them; ours go
 * into a drop-in that sorts last (99-vfiowiz.cfg) and appends to
 * GRUB_CMDLINE_LINUX_DEFAULT, so an override such as Ubuntu cloud images'
 * 50-cloudimg-settings.cfg cannot drop them.  Without grub.d the value in
 * /etc/default/grub is edited.  Every file goes through the Shellvars lens. */
#include "hostplan.h"
#include "augedit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAIN "etc/default/grub"
#define LINUX "GRUB_CMDLINE_LINUX"
#define DEFAULT "GRUB_CMDLINE_LINUX_DEFAULT"

static const char *const vars[] = { LINUX, DEFAULT };

struct gfile {
	char *rel;
	int doc;
	bool removed;		/* parameters removed from it */
	bool added;		/* parameters added to it */
};

struct gfiles {
	struct gfile *v;
	size_t n;
};

static void gfiles_done(struct gfiles *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->v[i].rel);
	free(g->v);
	memset(g, 0, sizeof(*g));
}

static bool is_dropin(const char *name)
{
	size_t n = strlen(name);
	return n > 4 && !strcmp(name + n - 4, ".cfg");
}

/* The files grub-mkconfig sources, in order, ours left out (with_ours:
 * included, as planned). */
static int load(struct vw_host *h, struct gfiles *g, bool with_ours, struct vw_err *err)
{
	char **names = NULL;
	int n = 0;

	memset(g, 0, sizeof(*g));
	if (h->f->distro.grub_d)
		n = vw_sysroot_list(h->sr, "etc/default/grub.d", &names);
	if (n < 0)
		n = 0;	/* no grub.d: the main file only */
	for (int i = -1; i < n + 1; i++) {
		char *rel, *text = NULL, *disp;
		int r, doc;

		if (i == -1) {
			rel = vw_xstrdup(MAIN);
		} else if (i < n) {
			if (!is_dropin(names[i]) || !strcmp(names[i], "99-vfiowiz.cfg"))
				continue;
			rel = vw_xasprintf("etc/default/grub.d/%s", names[i]);
		} else {
			if (!with_ours)
				break;
			rel = vw_xstrdup(VW_GRUB_DROPIN);
		}
		r = vw_host_read(h, rel, &text, err);
		if (r < 0 || !text) {
			free(rel);
			if (r < 0) {
				vw_strv_free(names);
				gfiles_done(g);
				return r;
			}
			continue;
		}
		disp = vw_xasprintf("/%s", rel);
		doc = vw_aug_load(h->aug, "Shellvars.lns", text, disp, err);
		free(disp);
		free(text);
		if (doc < 0) {
			free(rel);
			vw_strv_free(names);
			gfiles_done(g);
			return doc;
		}
		g->v = vw_xreallocarray(g->v, g->n + 1, sizeof(*g->v));
		g->v[g->n++] = (struct gfile){ .rel = rel, .doc = doc };
	}
	vw_strv_free(names);
	return 0;
}

/* Edit one assignment's value with edits; true when it changed. */
static int edit_value(struct vw_host *h, const char *node, const char *fname,
		      const struct vw_kedits *e, bool *changed, struct vw_err *err)
{
	augeas *aug = vw_aug_handle(h->aug);
	const char *val = NULL;
	enum vw_shq q;
	char *inner, *edited, *quoted;

	*changed = false;
	if (aug_get(aug, node, &val) != 1 || !val)
		val = "\"\"";
	if (!vw_sh_unquote(val, &q, &inner))
		return vw_err_set(err, -EINVAL,
				  _("/%s: the value %s is too complex to edit safely; change it by hand"),
				  fname, val);
	edited = vw_cmdline_edit(inner, e, changed);
	if (*changed) {
		quoted = vw_sh_quote(edited, q);
		aug_set(aug, node, quoted);
		free(quoted);
	}
	free(edited);
	free(inner);
	return 0;
}

static void removal_edits(const struct vw_kedits *all, struct vw_kedits *rm)
{
	for (size_t i = 0; i < all->n; i++)
		if (all->v[i].op == VW_KOP_REMOVE)
			vw_kedits_add(rm, VW_KOP_REMOVE, all->v[i].key, all->v[i].value, all->v[i].why);
}

static int remove_params(struct vw_host *h, struct gfiles *g, struct vw_err *err)
{
	augeas *aug = vw_aug_handle(h->aug);
	struct vw_kedits rm = { 0 };
	int r = 0;

	removal_edits(&h->kedits, &rm);
	for (size_t i = 0; i < g->n && r == 0; i++) {
		for (size_t v = 0; v < VW_ARRAY_SIZE(vars) && r == 0; v++) {
			char *pat = vw_xasprintf("%s/%s", vw_aug_tree(h->aug, g->v[i].doc), vars[v]);
			char **nodes = NULL;
			int n = aug_match(aug, pat, &nodes);

			for (int k = 0; k < n; k++) {
				const char *val = NULL;
				bool changed = false;
				enum vw_shq q;
				char *inner = NULL, *lit;

				aug_get(aug, nodes[k], &val);
				if (r == 0 && val && vw_sh_unquote(val, &q, &inner)) {
					if (vw_cmdline_needs_removal(inner, &rm))
						r = edit_value(h, nodes[k], g->v[i].rel, &rm, &changed, err);
				} else if (r == 0 && val) {
					/* Too complex to edit: refuse only when it does hold
					 * a parameter that turns the IOMMU off. */
					lit = vw_sh_expand(val, NULL, NULL);
					if (!lit || vw_cmdline_needs_removal(lit, &rm))
						r = edit_value(h, nodes[k], g->v[i].rel, &rm, &changed, err);
					free(lit);
				}
				free(inner);
				g->v[i].removed |= changed;
				h->removed_off |= changed;
				free(nodes[k]);
			}
			free(nodes);
			free(pat);
		}
	}
	vw_kedits_done(&rm);
	return r;
}

struct env {
	char *val[2];
	bool unknown[2];
	int open_at[2];		/* the file whose assignment left a '"' open
				   in the value (kept while later ones build on
				   it), -1 none */
};

static const char *lookup(const char *name, void *arg)
{
	struct env *e = arg;

	for (size_t v = 0; v < VW_ARRAY_SIZE(vars); v++)
		if (!strcmp(name, vars[v]))
			return e->val[v];
	return NULL;
}

/* Source the files in order, as grub-mkconfig does, for our two variables. */
static void evaluate(struct vw_host *h, const struct gfiles *g, struct env *e)
{
	augeas *aug = vw_aug_handle(h->aug);
	const struct vw_kedits no_edits = { 0 };

	memset(e, 0, sizeof(*e));
	e->val[0] = vw_xstrdup("");
	e->val[1] = vw_xstrdup("");
	e->open_at[0] = e->open_at[1] = -1;
	for (size_t i = 0; i < g->n; i++) {
		char *pat = vw_xasprintf("%s/*", vw_aug_tree(h->aug, g->v[i].doc));
		char **nodes = NULL;
		int n = aug_match(aug, pat, &nodes);

		for (int k = 0; k < n; k++) {
			const char *label = NULL, *val = NULL;

			aug_label(aug, nodes[k], &label);
			for (size_t v = 0; label && v < VW_ARRAY_SIZE(vars); v++) {
				char *x;

				if (strcmp(label, vars[v]))
					continue;
				aug_get(aug, nodes[k], &val);
				x = vw_sh_expand(val ? val : "", lookup, e);
				if (!x) {
					e->unknown[v] = true;
					x = vw_xstrdup(e->val[v]);
				}
				free(e->val[v]);
				e->val[v] = x;
				if (vw_cmdline_check(x, &no_edits, "", NULL) == 0)
					e->open_at[v] = -1;
				else if (e->open_at[v] < 0)
					e->open_at[v] = (int)i;
			}
			free(nodes[k]);
		}
		free(nodes);
		free(pat);
	}
}

static void env_done(struct env *e)
{
	free(e->val[0]);
	free(e->val[1]);
}

static char *combined(const struct env *e)
{
	return vw_xasprintf("%s%s%s", e->val[0], *e->val[0] && *e->val[1] ? " " : "", e->val[1]);
}

/* The command line can take the edits: no value leaves a '"' open (what
 * follows would be swallowed by it), no edit is stuck on a '"' in a value. */
static int check_line(struct vw_host *h, const struct gfiles *g, struct vw_err *err)
{
	struct env e;
	char *line, *where;
	int r = 0;

	evaluate(h, g, &e);
	for (size_t v = 0; v < VW_ARRAY_SIZE(vars) && r == 0; v++) {
		if (e.open_at[v] < 0)
			continue;
		where = vw_xasprintf("/%s (%s)", g->v[e.open_at[v]].rel, vars[v]);
		r = vw_cmdline_check(e.val[v], &h->kedits, where, err);
		free(where);
	}
	if (r == 0) {
		line = combined(&e);
		r = vw_cmdline_check(line, &h->kedits, "/" MAIN, err);
		free(line);
	}
	env_done(&e);
	return r;
}

/* Without grub.d: each edit goes to the variable that already holds the
 * parameter (the DEFAULT one when neither does). */
static int edit_main(struct vw_host *h, struct gfiles *g, bool all_entries, struct vw_err *err)
{
	augeas *aug = vw_aug_handle(h->aug);
	struct gfile *m = NULL;
	struct env e;
	char *line;
	int r = 0;

	for (size_t i = 0; i < g->n; i++)
		if (!strcmp(g->v[i].rel, MAIN))
			m = &g->v[i];
	if (!m)
		return vw_err_set(err, -ENOENT, _("/%s is missing: cannot set the kernel parameters for GRUB"), MAIN);
	evaluate(h, g, &e);
	line = combined(&e);
	for (size_t i = 0; i < h->kedits.n && r == 0; i++) {
		const struct vw_kedit *k = &h->kedits.v[i];
		struct vw_kedits one = { (struct vw_kedit *)k, 1 };
		struct vw_cmdline cl;
		const char *target = all_entries ? LINUX : DEFAULT;
		const char *other = all_entries ? DEFAULT : LINUX;
		char *missing, *node;
		bool changed;

		if (k->op == VW_KOP_REMOVE)
			continue;
		missing = vw_cmdline_missing(line, &one);
		if (!*missing) {
			free(missing);
			continue;
		}
		vw_cmdline_split(&cl, e.val[all_entries ? 0 : 1]);
		if (!vw_cmdline_has(&cl, k->key, NULL)) {
			struct vw_cmdline lx;

			vw_cmdline_split(&lx, e.val[all_entries ? 1 : 0]);
			if (vw_cmdline_has(&lx, k->key, NULL))
				target = other;
			vw_cmdline_done(&lx);
		}
		vw_cmdline_done(&cl);
		node = vw_xasprintf("%s/%s[last()]", vw_aug_tree(h->aug, m->doc), target);
		if (aug_match(aug, node, NULL) <= 0)
			aug_set(aug, node, "\"\"");
		r = edit_value(h, node, MAIN, &one, &changed, err);
		m->added |= changed;
		free(node);
		free(missing);
		/* Re-read what the kernel will see for the next edit. */
		env_done(&e);
		evaluate(h, g, &e);
		free(line);
		line = combined(&e);
	}
	free(line);
	env_done(&e);
	return r;
}

static const char *update_cmd(const struct vw_host *h)
{
	if (h->f->distro.grub_d || vw_sysroot_exists(h->sr, "usr/sbin/update-grub"))
		return "update-grub";
	if (vw_sysroot_is_dir(h->sr, "boot/grub2"))
		return "grub2-mkconfig -o /boot/grub2/grub.cfg";
	return "grub-mkconfig -o /boot/grub/grub.cfg";
}

static const char *const header =
	"# Written by vfiowiz (GPU passthrough); 'vfiowiz undo' takes it back.\n"
	"# grub-mkconfig reads this after /etc/default/grub and the other grub.d files.\n";

static int note_effective(struct vw_host *h, struct vw_err *err)
{
	struct gfiles g;
	struct env e;
	char *line;
	int r = load(h, &g, true, err);

	if (r < 0)
		return r;
	evaluate(h, &g, &e);
	line = combined(&e);
	if (e.unknown[0] || e.unknown[1])
		vw_host_note(h, _("GRUB: the kernel command line cannot be worked out exactly (a value runs a command); as far as it can: %s"),
			     line);
	else if (h->f->distro.grub_d)
		vw_host_note(h, _("GRUB: after /etc/default/grub and every /etc/default/grub.d file, the default entries boot with: %s"),
			     line);
	else
		vw_host_note(h, _("GRUB: after /etc/default/grub, the default entries boot with: %s"), line);
	free(line);
	env_done(&e);
	gfiles_done(&g);
	return 0;
}

int vw_boot_grub_plan_with(struct vw_host *h, const char *const *post, bool all_entries,
			   struct vw_err *err)
{
	struct gfiles g;
	char *missing = NULL;
	int r = load(h, &g, false, err);

	if (r < 0)
		return r;
	r = check_line(h, &g, err);
	if (r == 0)
		r = remove_params(h, &g, err);
	if (r == 0 && h->f->distro.grub_d) {
		struct env e;
		char *line;

		evaluate(h, &g, &e);
		line = combined(&e);
		missing = vw_cmdline_missing(line, &h->kedits);
		free(line);
		env_done(&e);
	} else if (r == 0) {
		r = edit_main(h, &g, all_entries, err);
	}
	/* The files that set parameters first, then our drop-in after them. */
	for (size_t i = 0; i < g.n && r >= 0; i++) {
		char *text = NULL;

		if (!g.v[i].removed && !g.v[i].added)
			continue;
		r = vw_aug_text(h->aug, g.v[i].doc, &text, err);
		if (r == 0)
			r = vw_host_put(h, g.v[i].rel, text, 0644,
					g.v[i].added ? N_("Kernel parameters for passthrough in /etc/default/grub (no other parameter turns the IOMMU off)")
						     : N_("Remove the kernel parameter that turns the IOMMU off"),
					post, err);
		free(text);
	}
	if (r >= 0 && missing && *missing) {
		char *text = vw_xasprintf("%s" DEFAULT "=\"$" DEFAULT " %s\"\n", header, missing);

		r = vw_host_put(h, VW_GRUB_DROPIN, text, 0644,
				N_("Kernel parameters for passthrough, in a GRUB drop-in read after /etc/default/grub"),
				post, err);
		free(text);
	} else if (r >= 0 && missing && vw_sysroot_exists(h->sr, VW_GRUB_DROPIN)) {
		r = vw_plan_remove_file(h->plan, h->sr, VW_GRUB_DROPIN,
					N_("The kernel parameters are set elsewhere already: our GRUB drop-in is not needed"),
					err);
		for (size_t k = 0; r > 0 && post && post[k]; k++)
			vw_plan_add_post(h->plan, post[k]);
	}
	free(missing);
	gfiles_done(&g);
	if (r >= 0)
		r = note_effective(h, err);
	return r < 0 ? r : 0;
}

static int plan(struct vw_host *h, struct vw_err *err)
{
	const char *const post[] = { update_cmd(h), NULL };

	return vw_boot_grub_plan_with(h, post, false, err);
}

static const char *detect(const struct vw_facts *f, const struct vw_sysroot *sr)
{
	static const char *const files[] = { MAIN, "boot/grub/grub.cfg", "boot/grub2/grub.cfg" };

	(void)f;
	for (size_t i = 0; i < VW_ARRAY_SIZE(files); i++)
		if (vw_sysroot_exists(sr, files[i]))
			return files[i];
	return NULL;
}

const struct vw_boot_ops vw_boot_grub = {
	.id = VW_BL_GRUB,
	.name = "grub",
	.detect = detect,
	.plan = plan,
	.plan_test = NULL,	/* grub-reboot needs a separate menu entry */
};
