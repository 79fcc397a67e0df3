/* SPDX-License-Identifier: GPL-2.0-or-later */
/* irfs_mkinitcpio.c - Arch and friends: MODULES=(...) lists what loads early
 * (the vfio modules first, before any GPU driver), HOOKS must hold modconf
 * for /etc/modprobe.d to reach the image, FILES=(...) carries extra files.
 *
 * mkinitcpio 36 and later read the .conf files of /etc/mkinitcpio.conf.d after the main
 * file: there our drop-in prepends to the user's MODULES.  Older versions
 * get /etc/mkinitcpio.conf edited through augeas' Shellvars lens (bash
 * arrays are nodes 1..n): the user's modules are kept, after ours, and
 * MODULES is never left empty. */
#include "hostplan.h"
#include "augedit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CONF "etc/mkinitcpio.conf"
#define DIR "etc/mkinitcpio.conf.d"

static bool is_ours(const char *m, char *const *mods)
{
	for (size_t i = 0; mods[i]; i++)
		if (vw_kparam_eq(m, mods[i]))
			return true;
	return false;
}

/* Words of an array or string variable: nodes 1..n, or a quoted string. */
static char **words_of(struct vw_aug *a, const char *var, bool *array)
{
	augeas *aug = vw_aug_handle(a);
	char *pat = vw_xasprintf("%s/*", var), **nodes = NULL, **v;
	int n = aug_match(aug, pat, &nodes);
	size_t k = 0;

	free(pat);
	*array = true;
	v = vw_xcalloc((n > 0 ? (size_t)n : 0) + 64, sizeof(char *));
	if (n > 0) {
		for (int i = 0; i < n; i++) {
			const char *x = NULL, *label = NULL;

			aug_label(aug, nodes[i], &label);
			if (label && *label != '#' && aug_get(aug, nodes[i], &x) == 1 && x)
				v[k++] = vw_xstrdup(x);
			free(nodes[i]);
		}
		free(nodes);
		return v;
	}
	free(nodes);
	{
		const char *val = NULL;
		enum vw_shq q;
		char *inner = NULL;

		aug_get(aug, var, &val);
		if (val && !strcmp(val, "()"))
			return v;
		if (val && vw_sh_unquote(val, &q, &inner)) {
			struct vw_cmdline cl;

			*array = false;
			vw_cmdline_split(&cl, inner);
			for (size_t i = 0; i < cl.n && k < 63; i++)
				v[k++] = vw_xstrdup(cl.t[i].text);
			vw_cmdline_done(&cl);
		}
		free(inner);
	}
	return v;
}

/* Replace a variable's words, keeping its style (array or string). */
static void set_words(struct vw_aug *a, const char *var, char *const *words, bool array)
{
	augeas *aug = vw_aug_handle(a);
	char *pat = vw_xasprintf("%s/*", var);

	aug_rm(aug, pat);
	free(pat);
	if (!array) {
		struct vw_buf b = VW_BUF_INIT;
		char *q;

		for (size_t i = 0; words[i]; i++)
			vw_buf_printf(&b, "%s%s", i ? " " : "", words[i]);
		q = vw_sh_quote(b.data ? b.data : "", VW_SHQ_DOUBLE);
		aug_set(aug, var, q);
		free(q);
		vw_buf_done(&b);
		return;
	}
	aug_set(aug, var, words[0] ? NULL : "()");
	for (size_t i = 0; words[i]; i++) {
		char *p = vw_xasprintf("%s/%zu", var, i + 1);
		aug_set(aug, p, words[i]);
		free(p);
	}
}

/* Insert modconf into HOOKS after autodetect (else udev/systemd, else base). */
static bool fix_hooks(struct vw_aug *a, const char *var)
{
	static const char *const after[] = { "autodetect", "udev", "systemd", "base" };
	bool array;
	char **w = words_of(a, var, &array), **nw;
	size_t n = 0, at = 0;
	bool found = false;

	while (w[n])
		n++;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(w[i], "modconf"))
			found = true;
	if (found) {
		vw_strv_free(w);
		return false;
	}
	for (size_t k = 0; k < VW_ARRAY_SIZE(after) && !at; k++)
		for (size_t i = 0; i < n; i++)
			if (!strcmp(w[i], after[k]))
				at = i + 1;
	nw = vw_xcalloc(n + 2, sizeof(char *));
	for (size_t i = 0, j = 0; i <= n; i++) {
		if (i == at)
			nw[j++] = vw_xstrdup("modconf");
		if (i < n)
			nw[j++] = vw_xstrdup(w[i]);
	}
	set_words(a, var, nw, array);
	vw_strv_free(w);
	vw_strv_free(nw);
	return true;
}

struct cfile {
	char *rel;
	int doc;
	bool dirty;
};

static int plan(struct vw_host *h, struct vw_err *err)
{
	const char *const post[] = { h->rebuild, NULL };
	bool dropin = vw_sysroot_is_dir(h->sr, DIR);
	struct cfile *files = NULL, *hooks_in = NULL, *main_conf = NULL;
	size_t nfiles = 0;
	char **names = NULL;
	int n = dropin ? vw_sysroot_list(h->sr, DIR, &names) : 0, r = 0;

	if (n < 0)
		n = 0;

	/* Parse the main file and the others' drop-ins, in reading order. */
	for (int i = -1; i < n; i++) {
		char *rel, *text = NULL, *disp;
		size_t len = i < 0 ? 0 : strlen(names[i]);
		int doc;

		if (i >= 0 && (len < 6 || strcmp(names[i] + len - 5, ".conf") ||
			       !strcmp(names[i], "vfiowiz.conf")))
			continue;
		rel = i < 0 ? vw_xstrdup(CONF) : vw_xasprintf(DIR "/%s", names[i]);
		r = vw_host_read(h, rel, &text, err);
		if (r < 0 || !text) {
			free(rel);
			if (r < 0)
				goto out;
			continue;
		}
		disp = vw_xasprintf("/%s", rel);
		doc = vw_aug_load(h->aug, "Shellvars.lns", text, disp, err);
		free(disp);
		free(text);
		if (doc < 0) {
			free(rel);
			r = doc;
			goto out;
		}
		files = vw_xreallocarray(files, nfiles + 1, sizeof(*files));
		files[nfiles++] = (struct cfile){ .rel = rel, .doc = doc };
	}
	for (size_t i = 0; i < nfiles; i++) {
		if (vw_aug_count(h->aug, "%s/HOOKS", vw_aug_tree(h->aug, files[i].doc)) > 0)
			hooks_in = &files[i];
		if (!strcmp(files[i].rel, CONF))
			main_conf = &files[i];
	}
	if (!main_conf) {
		r = vw_err_set(err, -ENOENT, _("/%s is missing: cannot set up early loading for mkinitcpio"), CONF);
		goto out;
	}
	if (hooks_in) {
		char *var = vw_xasprintf("%s/HOOKS[last()]", vw_aug_tree(h->aug, hooks_in->doc));

		if (fix_hooks(h->aug, var)) {
			hooks_in->dirty = true;
			vw_host_note(h, _("HOOKS in /%s lacked modconf, so /etc/modprobe.d never reached the image: modconf is added."),
				     hooks_in->rel);
		}
		free(var);
	}
	if (dropin) {
		struct vw_buf b = VW_BUF_INIT;

		vw_buf_adds(&b, "# Written by vfiowiz (GPU passthrough); 'vfiowiz undo' takes it back.\n"
				"# Read after /etc/mkinitcpio.conf: the vfio modules go first, the user's stay.\n");
		if (!h->vfio_builtin) {
			vw_buf_adds(&b, "MODULES=(");
			for (size_t i = 0; h->modules[i]; i++)
				vw_buf_printf(&b, "%s ", h->modules[i]);
			vw_buf_adds(&b, "\"${MODULES[@]}\")\n");
		}
		if (h->bind_script)
			vw_buf_adds(&b, "FILES+=(/" VW_BIND_SCRIPT ")\n");
		r = vw_host_put(h, VW_MKINITCPIO_DROPIN, b.data, 0644,
				N_("Load the vfio modules early, before any GPU driver (mkinitcpio drop-in)"), post, err);
		vw_buf_done(&b);
		if (r < 0)
			goto out;
	} else {
		const char *tree = vw_aug_tree(h->aug, main_conf->doc);
		char *var = vw_xasprintf(vw_aug_count(h->aug, "%s/MODULES", tree) > 0 ? "%s/MODULES[last()]"
										  : "%s/MODULES", tree);
		bool array;
		char **w = words_of(h->aug, var, &array), **nw;
		size_t nw_n = 0, k = 0;

		while (w[nw_n])
			nw_n++;
		nw = vw_xcalloc(nw_n + 8, sizeof(char *));
		for (size_t i = 0; !h->vfio_builtin && h->modules[i]; i++)
			nw[k++] = vw_xstrdup(h->modules[i]);
		for (size_t i = 0; i < nw_n; i++)
			if (h->vfio_builtin || !is_ours(w[i], h->modules))
				nw[k++] = vw_xstrdup(w[i]);
		{
			bool same = k == nw_n;

			for (size_t i = 0; same && i < k; i++)
				same = !strcmp(nw[i], w[i]);
			if (!same) {
				set_words(h->aug, var, nw, array);
				main_conf->dirty = true;
			}
		}
		vw_strv_free(w);
		vw_strv_free(nw);
		free(var);
		if (h->bind_script) {
			var = vw_xasprintf(vw_aug_count(h->aug, "%s/FILES", tree) > 0 ? "%s/FILES[last()]"
										   : "%s/FILES", tree);
			w = words_of(h->aug, var, &array);
			if (!is_ours("/" VW_BIND_SCRIPT, w)) {
				size_t m = 0;

				while (w[m])
					m++;
				w = vw_xreallocarray(w, m + 2, sizeof(char *));
				w[m] = vw_xstrdup("/" VW_BIND_SCRIPT);
				w[m + 1] = NULL;
				set_words(h->aug, var, w, array);
				main_conf->dirty = true;
			}
			vw_strv_free(w);
			free(var);
		}
	}
	for (size_t i = 0; i < nfiles && r >= 0; i++) {
		char *text = NULL;

		if (!files[i].dirty)
			continue;
		r = vw_aug_text(h->aug, files[i].doc, &text, err);
		if (r == 0)
			r = vw_host_put(h, files[i].rel, text, 0644,
					&files[i] == main_conf && !dropin ?
					N_("Load the vfio modules early, first in MODULES (the user's modules stay), with modconf in HOOKS") :
					N_("Add modconf to HOOKS, so that /etc/modprobe.d reaches the initramfs"),
					post, err);
		free(text);
	}
out:
	for (size_t i = 0; i < nfiles; i++)
		free(files[i].rel);
	free(files);
	vw_strv_free(names);
	return r < 0 ? r : 0;
}

static char *list_cmd(const struct vw_host *h)
{
	static const char *const flavours[] = { "zen", "lts", "hardened", "rt" };
	const char *rel = h->f->kernel.release;
	char *img = NULL;

	for (size_t i = 0; i < VW_ARRAY_SIZE(flavours) && !img; i++) {
		char *suffix = vw_xasprintf("-%s", flavours[i]);

		if (strstr(rel, suffix))
			img = vw_xasprintf("boot/initramfs-linux-%s.img", flavours[i]);
		free(suffix);
	}
	if (!img)
		img = vw_xstrdup("boot/initramfs-linux.img");
	{
		char *cmd = vw_xasprintf("lsinitcpio /%s", img);
		free(img);
		return cmd;
	}
}

static const char *detect(const struct vw_facts *f, const struct vw_sysroot *sr)
{
	static const char *const files[] = { CONF, "usr/bin/mkinitcpio" };

	(void)f;
	for (size_t i = 0; i < VW_ARRAY_SIZE(files); i++)
		if (vw_sysroot_exists(sr, files[i]))
			return files[i];
	return NULL;
}

const struct vw_irfs_ops vw_irfs_mkinitcpio = {
	.id = VW_IRFS_MKINITCPIO,
	.name = "mkinitcpio",
	.detect = detect,
	.plan = plan,
	.rebuild = "mkinitcpio -P",
	.list_cmd = list_cmd,
	.lists_modprobe = true,
};
