/* SPDX-License-Identifier: GPL-2.0-or-later */
/* boot_kernelstub.c - Pop!_OS: kernelstub keeps the kernel options in the
 * "user" section of /etc/kernelstub/configuration (JSON) and writes the
 * systemd-boot entry from it; `kernelstub` then rewrites the entry.
 *
 * augeas' Json lens is the parser of record: the file must parse, and the
 * options are read from its tree.  Writing through the lens would give new
 * array elements no layout of their own (`,"iommu=pt"]`), so the new array
 * is spliced into the text instead, with the layout of the old one; every
 * byte outside the array stays. */
#include "hostplan.h"
#include "augedit.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CONF "etc/kernelstub/configuration"
#define OPTS "%s/dict/entry[. = 'user']/dict/entry[. = 'kernel_options']/array"

/* ---- a minimal JSON walker, for locating the array ------------------------ */

static const char *skip_ws(const char *p)
{
	while (*p && isspace((unsigned char)*p))
		p++;
	return p;
}

/* Past a string starting at p ('"'); NULL when unterminated. */
static const char *skip_string(const char *p)
{
	for (p++; *p; p++) {
		if (*p == '\\' && p[1])
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

/* Past any value starting at p; NULL on malformed input. */
static const char *skip_value(const char *p)
{
	int depth = 0;

	p = skip_ws(p);
	if (*p == '"')
		return skip_string(p);
	if (*p != '{' && *p != '[') {
		while (*p && *p != ',' && *p != '}' && *p != ']' && !isspace((unsigned char)*p))
			p++;
		return p;
	}
	while (*p) {
		if (*p == '"') {
			p = skip_string(p);
			if (!p)
				return NULL;
			continue;
		}
		if (*p == '{' || *p == '[') {
			depth++;
		} else if (*p == '}' || *p == ']') {
			if (--depth == 0)
				return p + 1;
		}
		p++;
	}
	return NULL;
}

/* In the object starting at p ('{'), the value of key; NULL when absent. */
static const char *find_key(const char *p, const char *key)
{
	size_t kl = strlen(key);

	if (*p != '{')
		return NULL;
	p = skip_ws(p + 1);
	while (*p == '"') {
		const char *k = p, *e = skip_string(p);

		if (!e)
			return NULL;
		p = skip_ws(e);
		if (*p != ':')
			return NULL;
		p = skip_ws(p + 1);
		if ((size_t)(e - k) == kl + 2 && !strncmp(k + 1, key, kl))
			return p;
		p = skip_value(p);
		if (!p)
			return NULL;
		p = skip_ws(p);
		if (*p == ',')
			p = skip_ws(p + 1);
	}
	return NULL;
}

static void json_string(struct vw_buf *b, const char *s)
{
	vw_buf_addc(b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			vw_buf_addc(b, '\\');
		vw_buf_addc(b, *s);
	}
	vw_buf_addc(b, '"');
}

/* The text with the array at [start, end) replaced by tokens, laid out
 * like the old array ("[" lead e1 sep e2 ... trail "]"). */
static char *splice(const char *text, const char *start, const char *end, const struct vw_cmdline *cl)
{
	struct vw_buf b = VW_BUF_INIT;
	const char *first = skip_ws(start + 1), *lead_end = first;
	const char *sep = ", ", *trail = "";
	size_t sep_len = 2, trail_len = 0;
	char *seps = NULL;

	if (*first != ']') {
		/* sep: from the end of the first element to the second; trail:
		 * from the end of the last element to ']'. */
		const char *e1 = skip_value(first), *p = e1, *last_end = e1;

		while (p && *(p = skip_ws(p)) == ',') {
			const char *next = skip_ws(p + 1);

			if (last_end == e1 && !seps) {
				seps = vw_xstrndup(e1, (size_t)(next - e1));
				sep = seps;
				sep_len = strlen(seps);
			}
			last_end = skip_value(next);
			p = last_end;
		}
		if (last_end) {
			trail = last_end;
			trail_len = (size_t)(end - 1 - last_end);
		}
	}
	vw_buf_add(&b, text, (size_t)(start - text));
	vw_buf_addc(&b, '[');
	if (cl->n) {
		vw_buf_add(&b, start + 1, (size_t)(lead_end - start - 1));
		for (size_t i = 0; i < cl->n; i++) {
			if (i)
				vw_buf_add(&b, sep, sep_len);
			json_string(&b, cl->t[i].text);
		}
		vw_buf_add(&b, trail, trail_len);
	}
	vw_buf_addc(&b, ']');
	vw_buf_adds(&b, end);
	free(seps);
	return vw_buf_steal(&b);
}

static int plan(struct vw_host *h, struct vw_err *err)
{
	static const char *const post[] = { "kernelstub", NULL };
	augeas *aug = vw_aug_handle(h->aug);
	struct vw_cmdline cl = { 0 };
	struct vw_buf line = VW_BUF_INIT;
	char *text = NULL, *arr = NULL, *pat = NULL, **nodes = NULL, *out = NULL;
	const char *user, *opts, *end;
	int r, doc, n = 0;

	r = vw_host_read(h, CONF, &text, err);
	if (r < 0)
		return r;
	if (!text)
		return vw_err_set(err, -ENOENT, _("/%s is missing: cannot set the kernel parameters for kernelstub"), CONF);
	doc = vw_aug_load(h->aug, "Json.lns", text, "/" CONF, err);
	if (doc < 0) {
		free(text);
		return doc;
	}
	arr = vw_xasprintf(OPTS, vw_aug_tree(h->aug, doc));
	user = find_key(skip_ws(text), "user");
	opts = user ? find_key(user, "kernel_options") : NULL;
	end = opts && *opts == '[' ? skip_value(opts) : NULL;
	if (aug_match(aug, arr, NULL) != 1 || !end) {
		r = vw_err_set(err, -EINVAL, _("/%s has no user kernel_options array"), CONF);
		goto out;
	}
	pat = vw_xasprintf("%s/string", arr);
	n = aug_match(aug, pat, &nodes);
	/* Each array element is one token. */
	for (int i = 0; i < n; i++) {
		const char *v = NULL;

		aug_get(aug, nodes[i], &v);
		vw_buf_printf(&line, "%s%s", i ? " " : "", v ? v : "");
	}
	vw_cmdline_split(&cl, line.data ? line.data : "");
	r = vw_cmdline_check(line.data ? line.data : "", &h->kedits, "/" CONF, err);
	if (r < 0)
		goto out;
	h->removed_off |= vw_cmdline_needs_removal(line.data ? line.data : "", &h->kedits);
	if (vw_cmdline_apply(&cl, &h->kedits)) {
		out = splice(text, opts, end, &cl);
		r = vw_host_put(h, CONF, out, 0644,
				N_("Kernel parameters for passthrough (kernelstub's user kernel_options)"), post, err);
	}
out:
	for (int i = 0; i < n; i++)
		free(nodes[i]);
	free(nodes);
	free(out);
	free(pat);
	free(arr);
	free(text);
	vw_buf_done(&line);
	vw_cmdline_done(&cl);
	return r < 0 ? r : 0;
}

static const char *detect(const struct vw_facts *f, const struct vw_sysroot *sr)
{
	(void)f;
	return vw_sysroot_exists(sr, CONF) ? CONF : NULL;
}

const struct vw_boot_ops vw_boot_kernelstub = {
	.id = VW_BL_KERNELSTUB,
	.name = "kernelstub",
	.detect = detect,
	.plan = plan,
	.plan_test = NULL,
};
