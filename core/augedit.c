/* SPDX-License-Identifier: GPL-2.0-or-later */
/* augedit.c - augeas trees in memory (aug_text_store/aug_text_retrieve). */
#include "augedit.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct doc {
	char *lens;
	char *fname;
	char path[48];		/* "/vw/N" */
	char tree[48];		/* "/vw/N/tree" */
};

struct vw_aug {
	augeas *aug;
	struct doc *docs;
	size_t ndocs;
};

int vw_aug_new(struct vw_aug **out, const struct vw_sysroot *sr, struct vw_err *err)
{
	char *root = vw_sysroot_path(sr, "");
	struct vw_aug *a;
	augeas *aug;

	*out = NULL;
	/* The root only matters to augeas' own file access, which we never
	 * use; it is the sysroot all the same, so nothing can reach "/". */
	aug = aug_init(root, NULL, AUG_NO_MODL_AUTOLOAD | AUG_NO_LOAD | AUG_NO_ERR_CLOSE);
	free(root);
	if (!aug)
		return vw_err_set(err, -ENOMEM, _("cannot start augeas"));
	if (aug_error(aug) != AUG_NOERROR) {
		int r = vw_err_set(err, -EIO, _("cannot start augeas: %s"), aug_error_message(aug));
		aug_close(aug);
		return r;
	}
	a = vw_xcalloc(1, sizeof(*a));
	a->aug = aug;
	*out = a;
	return 0;
}

void vw_aug_free(struct vw_aug *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->ndocs; i++) {
		free(a->docs[i].lens);
		free(a->docs[i].fname);
	}
	free(a->docs);
	aug_close(a->aug);
	free(a);
}

augeas *vw_aug_handle(struct vw_aug *a)
{
	return a->aug;
}

static int lens_error(struct vw_aug *a, const struct doc *d, struct vw_err *err)
{
	char *base = vw_xasprintf("/augeas/text%s/tree/error", d->path);
	char *p;
	const char *msg = NULL, *line = NULL;
	int r;

	aug_get(a->aug, base, &msg);
	p = vw_xasprintf("%s/message", base);
	if (aug_get(a->aug, p, &msg) != 1 || !msg)
		msg = aug_error_message(a->aug);
	free(p);
	p = vw_xasprintf("%s/line", base);
	if (aug_get(a->aug, p, &line) != 1)
		line = NULL;
	free(p);
	/* TRANSLATORS: a file that augeas cannot parse: the file name and
	 * line, the lens (a parser, named like "Grub"), augeas' own message. */
	if (line)
		r = vw_err_set(err, -EINVAL, _("%s:%s: cannot be read with the %s lens (augeas: %s)"),
			       d->fname, line, d->lens, msg ? msg : "?");
	else
		r = vw_err_set(err, -EINVAL, _("%s: cannot be read with the %s lens (augeas: %s)"),
			       d->fname, d->lens, msg ? msg : "?");
	free(base);
	return r;
}

int vw_aug_load(struct vw_aug *a, const char *lens, const char *text, const char *fname,
		struct vw_err *err)
{
	struct doc *d;
	char *in;
	int n = (int)a->ndocs;
	size_t line = 1;

	/* Augeas asserts (aborts) on some control bytes (0x04 in Shellvars):
	 * refuse them all before it sees the text.  Tab, newline and the
	 * carriage return of a CRLF file are text. */
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if (*p == '\n')
			line++;
		else if ((*p < 0x20 && *p != '\t' && *p != '\r') || *p == 0x7f)
			/* TRANSLATORS: a file name, a line number, a byte in hex. */
			return vw_err_set(err, -EINVAL,
					  _("%s:%zu: holds a control character (byte 0x%02x): remove it, then plan again"),
					  fname, line, *p);
	}
	a->docs = vw_xreallocarray(a->docs, a->ndocs + 1, sizeof(*a->docs));
	d = &a->docs[a->ndocs++];
	d->lens = vw_xstrdup(lens);
	d->fname = vw_xstrdup(fname);
	snprintf(d->path, sizeof(d->path), "/vw/%d", n);
	snprintf(d->tree, sizeof(d->tree), "/vw/%d/tree", n);
	in = vw_xasprintf("%s/in", d->path);
	if (aug_set(a->aug, in, text) < 0) {
		free(in);
		return vw_err_set(err, -ENOMEM, _("%s: augeas: %s"), fname, aug_error_message(a->aug));
	}
	if (aug_text_store(a->aug, lens, in, d->tree) < 0) {
		free(in);
		return lens_error(a, d, err);
	}
	free(in);
	return n;
}

const char *vw_aug_tree(struct vw_aug *a, int doc)
{
	return (size_t)doc < a->ndocs ? a->docs[doc].tree : "/vw/none";
}

int vw_aug_text(struct vw_aug *a, int doc, char **out, struct vw_err *err)
{
	struct doc *d;
	char *in, *o;
	const char *text = NULL;

	*out = NULL;
	if ((size_t)doc >= a->ndocs)
		return vw_err_set(err, -EINVAL, _("no augeas document %d"), doc);
	d = &a->docs[doc];
	in = vw_xasprintf("%s/in", d->path);
	o = vw_xasprintf("%s/out", d->path);
	if (aug_text_retrieve(a->aug, d->lens, in, d->tree, o) < 0) {
		int r = vw_err_set(err, -EINVAL, _("%s: the edited file cannot be written with the %s lens (augeas: %s %s)"),
				   d->fname, d->lens, aug_error_message(a->aug),
				   aug_error_details(a->aug) ? aug_error_details(a->aug) : "");
		free(in);
		free(o);
		return r;
	}
	aug_get(a->aug, o, &text);
	*out = vw_xstrdup(text ? text : "");
	aug_rm(a->aug, o);
	free(in);
	free(o);
	return 0;
}

char *vw_aug_get(struct vw_aug *a, const char *fmt, ...)
{
	va_list ap;
	char *path;
	const char *v = NULL;
	struct vw_buf b = VW_BUF_INIT;

	va_start(ap, fmt);
	vw_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	path = vw_buf_steal(&b);
	if (aug_get(a->aug, path, &v) != 1 || !v) {
		free(path);
		return NULL;
	}
	free(path);
	return vw_xstrdup(v);
}

int vw_aug_count(struct vw_aug *a, const char *fmt, ...)
{
	va_list ap;
	struct vw_buf b = VW_BUF_INIT;
	int n;

	va_start(ap, fmt);
	vw_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	n = aug_match(a->aug, b.data, NULL);
	vw_buf_done(&b);
	return n;
}

/* ---- shell values --------------------------------------------------------- */

bool vw_sh_unquote(const char *v, enum vw_shq *q, char **inner)
{
	size_t n = strlen(v);

	*inner = NULL;
	if (n >= 2 && v[0] == '\'' && v[n - 1] == '\'' && !memchr(v + 1, '\'', n - 2)) {
		*q = VW_SHQ_SINGLE;
		*inner = vw_xstrndup(v + 1, n - 2);
		return true;
	}
	if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
		/* The closing quote must be the only unescaped one inside. */
		for (size_t i = 1; i < n - 1; i++) {
			if (v[i] == '\\') {
				i++;
				continue;
			}
			if (v[i] == '"' || v[i] == '`')
				return false;
		}
		if (n >= 3 && v[n - 2] == '\\') {
			size_t bs = 0;
			for (size_t i = n - 2; i > 0 && v[i] == '\\'; i--)
				bs++;
			if (bs % 2)
				return false;
		}
		*q = VW_SHQ_DOUBLE;
		*inner = vw_xstrndup(v + 1, n - 2);
		return true;
	}
	for (size_t i = 0; i < n; i++)
		if (strchr("'\"`\\ \t$;&|<>()", v[i]))
			return false;
	*q = VW_SHQ_NONE;
	*inner = vw_xstrdup(v);
	return true;
}

char *vw_sh_quote(const char *inner, enum vw_shq q)
{
	if (q == VW_SHQ_SINGLE)
		return vw_xasprintf("'%s'", inner);
	if (q == VW_SHQ_DOUBLE || !*inner || strpbrk(inner, " \t'\"`\\$;&|<>()"))
		return vw_xasprintf("\"%s\"", inner);
	return vw_xstrdup(inner);
}

static bool name_char(char c, bool first)
{
	return c == '_' || isalpha((unsigned char)c) || (!first && isdigit((unsigned char)c));
}

char *vw_sh_expand(const char *v, const char *(*lookup)(const char *, void *), void *arg)
{
	struct vw_buf b = VW_BUF_INIT;
	char q = 0;

	for (const char *p = v; *p; p++) {
		if (q == '\'') {
			if (*p == '\'')
				q = 0;
			else
				vw_buf_addc(&b, *p);
			continue;
		}
		if (*p == '`' || (*p == '$' && p[1] == '('))
			goto unknown;
		if (*p == '\'' && !q) {
			q = '\'';
		} else if (*p == '"') {
			q = q ? 0 : '"';
		} else if (*p == '\\') {
			if (!p[1])
				goto unknown;
			if (q == '"' && !strchr("$`\"\\\n", p[1]))
				vw_buf_addc(&b, '\\');
			p++;
			if (*p != '\n')
				vw_buf_addc(&b, *p);
		} else if (*p == '$') {
			char name[128];
			size_t n = 0;
			bool brace = p[1] == '{';
			const char *s = p + 1 + brace, *val;

			while (name_char(s[n], n == 0) && n < sizeof(name) - 1)
				n++;
			if (!n || (brace && s[n] != '}'))
				goto unknown;	/* ${x:-y}, $1, $@ ... */
			memcpy(name, s, n);
			name[n] = '\0';
			val = lookup ? lookup(name, arg) : NULL;
			vw_buf_adds(&b, val ? val : "");
			p = s + n + brace - 1;
		} else if (!q && strchr(" \t;&|<>()", *p)) {
			goto unknown;
		} else {
			vw_buf_addc(&b, *p);
		}
	}
	if (q)
		goto unknown;
	if (!b.data)
		return vw_xstrdup("");
	return vw_buf_steal(&b);
unknown:
	vw_buf_done(&b);
	return NULL;
}
