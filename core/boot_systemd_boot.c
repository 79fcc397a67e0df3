/* SPDX-License-Identifier: GPL-2.0-or-later */
/* boot_systemd_boot.c - kernel parameters in Boot Loader Specification
 * entries (the .conf files of <ESP>/loader/entries), as systemd-boot reads them.
 *
 * Every Linux entry is edited, not just the default one.  An entry is
 * "key value" lines; "options" may repeat and the kernel gets them all,
 * joined.  No augeas lens covers these files, so the lines are edited one by
 * one here: every other line comes back byte for byte.  The helpers are
 * shared with kernel-install and grubby (same entries, other tools). */
#include "hostplan.h"
#include "augedit.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

const char *vw_boot_entries_dir(const struct vw_sysroot *sr)
{
	static const char *const dirs[] = {
		"efi/loader/entries", "boot/efi/loader/entries", "boot/loader/entries",
	};

	for (size_t i = 0; i < VW_ARRAY_SIZE(dirs); i++)
		if (vw_sysroot_is_dir(sr, dirs[i]))
			return dirs[i];
	return NULL;
}

struct eline {
	const char *s;		/* start of the line */
	size_t len;		/* without the newline */
	bool nl;		/* ends with '\n' */
	const char *val;	/* options: start of the value */
	bool options;
};

struct entry {
	struct eline *l;
	size_t n;
	bool linux_entry;
	int title;		/* line index, -1 */
};

static void parse_entry(const char *text, struct entry *e)
{
	const char *p = text;

	memset(e, 0, sizeof(*e));
	e->title = -1;
	while (*p) {
		const char *eol = strchr(p, '\n'), *k = p, *ke;
		struct eline *l;

		e->l = vw_xreallocarray(e->l, e->n + 1, sizeof(*e->l));
		l = &e->l[e->n];
		memset(l, 0, sizeof(*l));
		l->s = p;
		l->len = eol ? (size_t)(eol - p) : strlen(p);
		l->nl = eol != NULL;
		while (k < p + l->len && (*k == ' ' || *k == '\t'))
			k++;
		ke = k;
		while (ke < p + l->len && *ke != ' ' && *ke != '\t')
			ke++;
		if ((size_t)(ke - k) == 7 && !strncmp(k, "options", 7)) {
			l->options = true;
			l->val = ke;
			while (l->val < p + l->len && (*l->val == ' ' || *l->val == '\t'))
				l->val++;
		} else if ((size_t)(ke - k) == 5 && !strncmp(k, "linux", 5)) {
			e->linux_entry = true;
		} else if ((size_t)(ke - k) == 5 && !strncmp(k, "title", 5)) {
			e->title = (int)e->n;
		}
		e->n++;
		p = eol ? eol + 1 : p + l->len;
	}
}

/* Whether the options of an entry can take the edits: the kernel gets the
 * options lines joined, so each line and the whole are checked
 * (vw_cmdline_check()). */
static int check_entry(const char *text, const struct vw_kedits *ed, const char *rel,
		       struct vw_err *err)
{
	struct entry e;
	struct vw_buf all = VW_BUF_INIT;
	char *where = vw_xasprintf("/%s", rel);
	int r = 0;

	parse_entry(text, &e);
	for (size_t i = 0; i < e.n && r == 0; i++) {
		const struct eline *l = &e.l[i];
		char *v;

		if (!l->options)
			continue;
		v = vw_xstrndup(l->val, l->len - (size_t)(l->val - l->s));
		r = vw_cmdline_check(v, ed, where, err);
		vw_buf_printf(&all, "%s%s", all.len ? " " : "", v);
		free(v);
	}
	if (r == 0)
		r = vw_cmdline_check(all.data ? all.data : "", ed, where, err);
	vw_buf_done(&all);
	free(e.l);
	free(where);
	return r;
}

/* The text of an entry with its options edited; *changed says whether it
 * differs.  title (may be NULL) replaces the title line's value. */
static char *edit_entry(const char *text, const struct vw_kedits *ed, const char *title,
			bool *changed)
{
	struct entry e;
	struct vw_buf out = VW_BUF_INIT;
	char **vals;
	size_t nopt = 0, last = 0;
	struct vw_kedits rm = { 0 };
	char *missing = NULL;

	parse_entry(text, &e);
	vals = vw_xcalloc(e.n + 1, sizeof(char *));
	for (size_t i = 0; i < e.n; i++) {
		if (!e.l[i].options)
			continue;
		vals[i] = vw_xstrndup(e.l[i].val, e.l[i].len - (size_t)(e.l[i].val - e.l[i].s));
		nopt++;
		last = i;
	}
	if (nopt == 1) {
		char *v = vw_cmdline_edit(vals[last], ed, NULL);
		free(vals[last]);
		vals[last] = v;
	} else {
		struct vw_buf all = VW_BUF_INIT;

		for (size_t i = 0; i < ed->n; i++)
			if (ed->v[i].op == VW_KOP_REMOVE)
				vw_kedits_add(&rm, VW_KOP_REMOVE, ed->v[i].key, ed->v[i].value, NULL);
		for (size_t i = 0; i < e.n; i++) {
			char *v;

			if (!vals[i])
				continue;
			v = vw_cmdline_edit(vals[i], &rm, NULL);
			free(vals[i]);
			vals[i] = v;
			vw_buf_printf(&all, "%s%s", all.len ? " " : "", v);
		}
		missing = vw_cmdline_missing(all.data ? all.data : "", ed);
		vw_buf_done(&all);
		if (nopt && *missing) {
			char *v = vw_xasprintf("%s%s%s", vals[last], *vals[last] ? " " : "", missing);
			free(vals[last]);
			vals[last] = v;
		}
	}
	for (size_t i = 0; i < e.n; i++) {
		const struct eline *l = &e.l[i];

		if (vals[i]) {
			vw_buf_add(&out, l->s, (size_t)(l->val - l->s));
			if (l->val == l->s + l->len && *vals[i] && l->val[-1] != ' ' && l->val[-1] != '\t')
				vw_buf_addc(&out, ' ');
			vw_buf_adds(&out, vals[i]);
		} else if ((int)i == e.title && title) {
			vw_buf_printf(&out, "title %s", title);
		} else {
			vw_buf_add(&out, l->s, l->len);
		}
		if (l->nl)
			vw_buf_addc(&out, '\n');
	}
	if (!nopt && missing && *missing) {
		if (out.len && out.data[out.len - 1] != '\n')
			vw_buf_addc(&out, '\n');
		vw_buf_printf(&out, "options %s\n", missing);
	}
	for (size_t i = 0; i < e.n; i++)
		free(vals[i]);
	free(vals);
	free(e.l);
	free(missing);
	vw_kedits_done(&rm);
	if (!out.data)
		vw_buf_adds(&out, "");
	*changed = strcmp(out.data, text) != 0;
	return vw_buf_steal(&out);
}

static bool entry_name(const char *name)
{
	size_t n = strlen(name);
	return n > 5 && !strcmp(name + n - 5, ".conf") && strcmp(name, VW_TEST_ENTRY);
}

int vw_boot_edit_entries(struct vw_host *h, const char *dir, const char *why, struct vw_err *err)
{
	char **names = NULL;
	int n = vw_sysroot_list(h->sr, dir, &names), r = 0;
	size_t linux_entries = 0;

	for (int i = 0; i < n && r >= 0; i++) {
		char *rel, *text = NULL, *out;
		struct entry e;
		bool changed;

		if (!entry_name(names[i]))
			continue;
		rel = vw_xasprintf("%s/%s", dir, names[i]);
		r = vw_host_read(h, rel, &text, err);
		if (r < 0 || !text) {
			free(rel);
			continue;
		}
		parse_entry(text, &e);
		free(e.l);
		if (!e.linux_entry) {
			free(text);
			free(rel);
			continue;
		}
		linux_entries++;
		r = check_entry(text, &h->kedits, rel, err);
		if (r < 0) {
			free(text);
			free(rel);
			break;
		}
		h->removed_off |= vw_cmdline_needs_removal(text, &h->kedits);
		out = edit_entry(text, &h->kedits, NULL, &changed);
		if (changed)
			r = vw_host_put(h, rel, out, 0, why, NULL, err);
		free(out);
		free(text);
		free(rel);
	}
	vw_strv_free(names);
	if (r >= 0 && !linux_entries)
		vw_host_note(h, _("No Linux boot entry found in /%s: the kernel parameters are not planned there."), dir);
	return r < 0 ? r : 0;
}

/* The entry systemd-boot starts by default: loader.conf's "default" glob,
 * else the last Linux entry by name. */
static char *default_entry(struct vw_host *h, const char *dir)
{
	char *conf_rel = vw_xasprintf("%.*s/loader.conf", (int)(strrchr(dir, '/') - dir), dir);
	char *conf = NULL, *pattern = NULL, **names = NULL, *pick = NULL;
	int n;

	if (vw_host_read(h, conf_rel, &conf, NULL) == 0 && conf) {
		for (char *line = strtok(conf, "\n"); line; line = strtok(NULL, "\n")) {
			line = vw_strtrim(line);
			if (vw_startswith(line, "default") && (line[7] == ' ' || line[7] == '\t')) {
				free(pattern);
				pattern = vw_xstrdup(vw_strtrim(line + 7));
			}
		}
	}
	n = vw_sysroot_list(h->sr, dir, &names);
	for (int i = 0; i < n; i++) {
		char *rel, *text = NULL;
		struct entry e;
		bool match;

		if (!entry_name(names[i]))
			continue;
		rel = vw_xasprintf("%s/%s", dir, names[i]);
		if (vw_host_read(h, rel, &text, NULL) < 0 || !text) {
			free(rel);
			continue;
		}
		parse_entry(text, &e);
		free(e.l);
		free(text);
		match = pattern && *pattern != '@' && !fnmatch(pattern, names[i], 0);
		if (e.linux_entry && (!pick || match || !pattern || *pattern == '@')) {
			free(pick);
			pick = rel;
			if (match)
				break;
		} else {
			free(rel);
		}
	}
	vw_strv_free(names);
	free(pattern);
	free(conf);
	free(conf_rel);
	return pick;
}

int vw_boot_plan_test_entry(struct vw_host *h, const char *dir, const char *oneshot_cmd,
			    struct vw_err *err)
{
	char *src = default_entry(h, dir), *text = NULL, *out, *rel, *title;
	const char *const post[] = { oneshot_cmd, NULL };
	bool changed;
	int r;

	if (!src)
		return vw_err_set(err, -ENOENT, _("test_boot: no Linux boot entry in /%s to copy"), dir);
	r = vw_host_read(h, src, &text, err);
	if (r < 0 || !text) {
		if (r == 0)
			r = vw_err_set(err, -ENOENT, _("test_boot: /%s vanished"), src);
		free(src);
		return r;
	}
	r = check_entry(text, &h->kedits, src, err);
	if (r < 0) {
		free(text);
		free(src);
		return r;
	}
	/* Nothing to try when the default entry has the parameters already. */
	out = edit_entry(text, &h->kedits, NULL, &changed);
	free(out);
	if (!changed) {
		vw_host_note(h, _("test_boot: /%s has the kernel parameters already; no test boot is needed."), src);
		free(text);
		free(src);
		return vw_boot_drop_test_entry(h, dir, err);
	}
	title = vw_xasprintf("vfiowiz test boot (%s)", strrchr(src, '/') + 1);
	out = edit_entry(text, &h->kedits, title, &changed);
	rel = vw_xasprintf("%s/%s", dir, VW_TEST_ENTRY);
	r = vw_host_put(h, rel, out, 0644,
			N_("One-shot test boot: a copy of the default entry with the new kernel parameters, booted once; the default entries stay as they are"),
			post, err);
	if (r >= 0)
		vw_host_note(h, _("Test boot: the next boot, and only that one, uses /%s (a copy of /%s with the new kernel parameters). If the host does not come back, power-cycle it: it boots the old entry. Once it works, plan again with test_boot = false to make the parameters permanent."),
			     rel, src);
	free(rel);
	free(title);
	free(out);
	free(text);
	free(src);
	return r < 0 ? r : 0;
}

int vw_boot_drop_test_entry(struct vw_host *h, const char *dir, struct vw_err *err)
{
	char *rel = vw_xasprintf("%s/%s", dir, VW_TEST_ENTRY);
	int r = 0;

	if (vw_sysroot_exists(h->sr, rel))
		r = vw_plan_remove_file(h->plan, h->sr, rel,
					N_("Remove the one-shot test entry: the parameters are now in the regular entries"),
					err);
	free(rel);
	return r < 0 ? r : 0;
}

static int plan(struct vw_host *h, struct vw_err *err)
{
	const char *dir = vw_boot_entries_dir(h->sr);
	int r;

	if (!dir)
		return vw_err_set(err, -ENOENT, _("no systemd-boot entries found (loader/entries on the ESP)"));
	r = vw_boot_edit_entries(h, dir, N_("Kernel parameters for passthrough, in the boot entry's options"), err);
	if (r == 0)
		r = vw_boot_drop_test_entry(h, dir, err);
	return r;
}

static int plan_test(struct vw_host *h, struct vw_err *err)
{
	const char *dir = vw_boot_entries_dir(h->sr);

	if (!dir)
		return vw_err_set(err, -ENOENT, _("no systemd-boot entries found (loader/entries on the ESP)"));
	return vw_boot_plan_test_entry(h, dir, "bootctl set-oneshot " VW_TEST_ENTRY, err);
}

const char *vw_sdboot_evidence(const struct vw_facts *f, const struct vw_sysroot *sr)
{
	static const char *const var =
		"sys/firmware/efi/efivars/LoaderInfo-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f";

	if (f->fw.efi && vw_sysroot_exists(sr, var))
		return var;
	return vw_sysroot_exists(sr, "etc/default/grub") ? NULL : vw_boot_entries_dir(sr);
}

static const char *detect(const struct vw_facts *f, const struct vw_sysroot *sr)
{
	return vw_sdboot_evidence(f, sr);
}

const struct vw_boot_ops vw_boot_systemd_boot = {
	.id = VW_BL_SYSTEMD_BOOT,
	.name = "systemd-boot",
	.detect = detect,
	.plan = plan,
	.plan_test = plan_test,
};
