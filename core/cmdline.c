/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmdline.c - kernel command-line editing on tokens kept as written. */
#include "cmdline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void vw_kedits_add(struct vw_kedits *e, enum vw_kop op, const char *key, const char *value,
		   const char *why)
{
	struct vw_kedit *k;

	e->v = vw_xreallocarray(e->v, e->n + 1, sizeof(*e->v));
	k = &e->v[e->n++];
	k->op = op;
	k->key = vw_xstrdup(key);
	k->value = value ? vw_xstrdup(value) : NULL;
	k->why = why;
}

void vw_kedits_done(struct vw_kedits *e)
{
	for (size_t i = 0; i < e->n; i++) {
		free(e->v[i].key);
		free(e->v[i].value);
	}
	free(e->v);
	e->v = NULL;
	e->n = 0;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

void vw_cmdline_split(struct vw_cmdline *l, const char *s)
{
	memset(l, 0, sizeof(*l));
	s = s ? s : "";
	for (;;) {
		const char *ws = s, *tok;
		bool q = false;

		while (blank(*s))
			s++;
		if (!*s) {
			l->tail = vw_xstrndup(ws, (size_t)(s - ws));
			return;
		}
		tok = s;
		for (; *s && (q || !blank(*s)); s++)
			if (*s == '"')
				q = !q;
		l->t = vw_xreallocarray(l->t, l->n + 1, sizeof(*l->t));
		l->t[l->n].sep = vw_xstrndup(ws, (size_t)(tok - ws));
		l->t[l->n].text = vw_xstrndup(tok, (size_t)(s - tok));
		l->n++;
		l->open_quote = q;
	}
}

void vw_cmdline_done(struct vw_cmdline *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->t[i].sep);
		free(l->t[i].text);
	}
	free(l->t);
	free(l->tail);
	memset(l, 0, sizeof(*l));
}

char *vw_cmdline_join(const struct vw_cmdline *l)
{
	struct vw_buf b = VW_BUF_INIT;

	for (size_t i = 0; i < l->n; i++) {
		vw_buf_adds(&b, l->t[i].sep);
		vw_buf_adds(&b, l->t[i].text);
	}
	vw_buf_adds(&b, l->tail ? l->tail : "");
	return vw_buf_steal(&b);
}

bool vw_kparam_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a == '-' ? '_' : *a, y = *b == '-' ? '_' : *b;
		if (x != y)
			return false;
	}
	return *a == *b;
}

/* A token as the kernel's next_arg() reads it: a leading '"' goes, with a
 * '"' that ends the token; the name runs to the first '=' (one in first
 * place does not count); a value that starts with '"' loses it and a '"'
 * that ends the token.  Any other '"' is part of the name or the value.
 * *value is NULL for a bare flag; value may be NULL when not wanted. */
void vw_ktok_parse(const char *text, char **key, char **value)
{
	size_t n = strlen(text);
	const char *eq, *v;
	bool quoted = *text == '"';
	size_t vn;

	if (quoted) {
		text++;
		n--;
	}
	eq = n > 1 ? memchr(text + 1, '=', n - 1) : NULL;
	if (!eq) {
		if (quoted && n && text[n - 1] == '"')
			n--;
		*key = vw_xstrndup(text, n);
		if (value)
			*value = NULL;
		return;
	}
	*key = vw_xstrndup(text, (size_t)(eq - text));
	if (!value)
		return;
	v = eq + 1;
	vn = n - (size_t)(v - text);
	if (vn && *v == '"') {
		v++;
		vn--;
		if (vn && v[vn - 1] == '"')
			vn--;
	} else if (quoted && vn && v[vn - 1] == '"') {
		vn--;
	}
	*value = vw_xstrndup(v, vn);
}

char *vw_ktok_key(const char *text)
{
	char *key;

	vw_ktok_parse(text, &key, NULL);
	return key;
}

/* The value the kernel sees; NULL for a bare flag.  Caller frees. */
static char *tok_value(const char *text)
{
	char *key, *value;

	vw_ktok_parse(text, &key, &value);
	free(key);
	return value;
}

static bool tok_is(const struct vw_ktok *t, const char *key)
{
	char *k = vw_ktok_key(t->text);
	bool r = vw_kparam_eq(k, key);

	free(k);
	return r;
}

static void remove_tok(struct vw_cmdline *l, size_t i)
{
	/* The first token's blanks stay at the front of the line. */
	if (i == 0 && l->n > 1) {
		free(l->t[1].sep);
		l->t[1].sep = l->t[0].sep;
		l->t[0].sep = NULL;
	} else if (i == 0 && l->n == 1) {
		char *tail = vw_xasprintf("%s%s", l->t[0].sep, l->tail ? l->tail : "");
		free(l->tail);
		l->tail = tail;
	}
	free(l->t[i].sep);
	free(l->t[i].text);
	memmove(&l->t[i], &l->t[i + 1], (l->n - i - 1) * sizeof(*l->t));
	l->n--;
}

static void append_tok(struct vw_cmdline *l, const char *text)
{
	l->t = vw_xreallocarray(l->t, l->n + 1, sizeof(*l->t));
	l->t[l->n].sep = vw_xstrdup(l->n || (l->tail && *l->tail) ? " " : "");
	if (!l->n && l->tail && *l->tail) {
		/* Leading blanks of an empty line stay leading. */
		free(l->t[l->n].sep);
		l->t[l->n].sep = l->tail;
		l->tail = vw_xstrdup("");
	}
	l->t[l->n].text = vw_xstrdup(text);
	l->n++;
}

/* Whether text is one token that the kernel reads as key=value. */
static bool reads_as(const char *text, const char *key, const char *value)
{
	struct vw_cmdline l;
	bool ok;

	vw_cmdline_split(&l, text);
	ok = l.n == 1 && !*l.t[0].sep && !*l.tail && !l.open_quote;
	if (ok) {
		char *k, *v;

		vw_ktok_parse(l.t[0].text, &k, &v);
		ok = !strcmp(k, key) && v && !strcmp(v, value);
		free(k);
		free(v);
	}
	vw_cmdline_done(&l);
	return ok;
}

/* The token for key=value (value NULL: a bare flag), quoted where a blank
 * needs it.  The kernel has no escapes: a value holding a '"' is written as
 * it is, or quoted, when that reads back the same; NULL when it cannot be
 * written at all.  Caller frees. */
static char *make_tok(const char *key, const char *value)
{
	bool blanks = false;
	char *t;

	if (!value)
		return vw_xstrdup(key);
	for (const char *p = value; *p; p++)
		blanks |= blank(*p);
	if (!strchr(value, '"'))
		return blanks ? vw_xasprintf("%s=\"%s\"", key, value) : vw_xasprintf("%s=%s", key, value);
	t = vw_xasprintf("%s=%s", key, value);
	if (reads_as(t, key, value))
		return t;
	free(t);
	t = vw_xasprintf("%s=\"%s\"", key, value);
	if (reads_as(t, key, value))
		return t;
	free(t);
	return NULL;
}

/* Comma lists: items in order, each once. */
struct items {
	char **v;
	size_t n;
};

static bool items_has(const struct items *it, const char *s)
{
	for (size_t i = 0; i < it->n; i++)
		if (!strcmp(it->v[i], s))
			return true;
	return false;
}

static void items_add(struct items *it, const char *s, size_t len)
{
	char *x = vw_xstrndup(s, len);

	if (!*x || items_has(it, x)) {
		free(x);
		return;
	}
	it->v = vw_xreallocarray(it->v, it->n + 1, sizeof(char *));
	it->v[it->n++] = x;
}

static void items_split(struct items *it, const char *list)
{
	while (list && *list) {
		size_t n = strcspn(list, ",");

		items_add(it, list, n);
		list += n;
		if (*list == ',')
			list++;
	}
}

static char *items_join(const struct items *it)
{
	struct vw_buf b = VW_BUF_INIT;

	for (size_t i = 0; i < it->n; i++) {
		if (i)
			vw_buf_addc(&b, ',');
		vw_buf_adds(&b, it->v[i]);
	}
	return vw_buf_steal(&b);
}

static void items_done(struct items *it)
{
	for (size_t i = 0; i < it->n; i++)
		free(it->v[i]);
	free(it->v);
	memset(it, 0, sizeof(*it));
}

/* Replace t's text; text NULL (it cannot be written, see make_tok()) leaves
 * t as it is and names key in *stuck. */
static bool set_text(struct vw_ktok *t, char *text, const char *key, const char **stuck)
{
	if (!text) {
		if (!*stuck)
			*stuck = key;
		return false;
	}
	if (!strcmp(t->text, text)) {
		free(text);
		return false;
	}
	free(t->text);
	t->text = text;
	return true;
}

static bool do_set(struct vw_cmdline *l, const struct vw_kedit *e, const char **stuck)
{
	bool changed = false;
	size_t last = (size_t)-1;

	for (size_t i = 0; i < l->n; i++)
		if (tok_is(&l->t[i], e->key))
			last = i;
	if (last == (size_t)-1) {
		char *t = make_tok(e->key, e->value);

		if (!t) {
			*stuck = *stuck ? *stuck : e->key;
			return false;
		}
		append_tok(l, t);
		free(t);
		return true;
	}
	{
		char *v = tok_value(l->t[last].text);
		bool same = (!v && !e->value) || (v && e->value && !strcmp(v, e->value));

		free(v);
		if (!same)
			changed = set_text(&l->t[last], make_tok(e->key, e->value), e->key, stuck);
	}
	for (size_t i = last; i-- > 0;)
		if (tok_is(&l->t[i], e->key)) {
			remove_tok(l, i);
			changed = true;
		}
	return changed;
}

static bool do_merge(struct vw_cmdline *l, const struct vw_kedit *e, const char **stuck)
{
	struct items it = { 0 };
	size_t last = (size_t)-1, count = 0;
	bool changed = false, written = true;
	char *joined, *t;

	for (size_t i = 0; i < l->n; i++) {
		if (tok_is(&l->t[i], e->key)) {
			char *v = tok_value(l->t[i].text);
			items_split(&it, v);
			free(v);
			last = i;
			count++;
		}
	}
	if (last == (size_t)-1) {
		items_split(&it, e->value);
		joined = items_join(&it);
		t = make_tok(e->key, joined);
		if (t) {
			append_tok(l, t);
			changed = true;
		} else if (!*stuck) {
			*stuck = e->key;
		}
		free(t);
		free(joined);
		items_done(&it);
		return changed;
	}
	items_split(&it, e->value);
	joined = items_join(&it);
	{
		char *v = tok_value(l->t[last].text);
		/* Keep the user's spelling of the name when only items change. */
		char *key = vw_ktok_key(l->t[last].text);

		if (!v || strcmp(v, joined)) {
			t = make_tok(key, joined);
			written = t != NULL;
			changed = set_text(&l->t[last], t, e->key, stuck);
		}
		free(key);
		free(v);
	}
	free(joined);
	items_done(&it);
	/* The earlier occurrences' items are in the last one only when it
	 * could be written. */
	for (size_t i = last; written && count > 1 && i-- > 0;)
		if (tok_is(&l->t[i], e->key)) {
			remove_tok(l, i);
			changed = true;
		}
	return changed;
}

static bool do_remove(struct vw_cmdline *l, const struct vw_kedit *e, const char **stuck)
{
	bool changed = false;

	for (size_t i = l->n; i-- > 0;) {
		struct items it = { 0 }, keep = { 0 };
		char *v, *key, *joined;

		if (!tok_is(&l->t[i], e->key))
			continue;
		if (!e->value) {
			remove_tok(l, i);
			changed = true;
			continue;
		}
		v = tok_value(l->t[i].text);
		items_split(&it, v);
		for (size_t k = 0; k < it.n; k++)
			if (strcmp(it.v[k], e->value))
				items_add(&keep, it.v[k], strlen(it.v[k]));
		if (keep.n == it.n) {
			free(v);
			items_done(&it);
			items_done(&keep);
			continue;
		}
		if (!keep.n) {
			remove_tok(l, i);
			changed = true;
		} else {
			key = vw_ktok_key(l->t[i].text);
			joined = items_join(&keep);
			changed |= set_text(&l->t[i], make_tok(key, joined), e->key, stuck);
			free(key);
			free(joined);
		}
		free(v);
		items_done(&it);
		items_done(&keep);
	}
	return changed;
}

/* *stuck: the key of the first edit that could not be made (see
 * make_tok()), else NULL. */
static bool apply(struct vw_cmdline *l, const struct vw_kedits *e, const char **stuck)
{
	bool changed = false;

	*stuck = NULL;
	/* Whatever is appended would land inside the open quote. */
	if (l->open_quote)
		return false;
	for (size_t i = 0; i < e->n; i++) {
		switch (e->v[i].op) {
		case VW_KOP_SET: changed |= do_set(l, &e->v[i], stuck); break;
		case VW_KOP_MERGE: changed |= do_merge(l, &e->v[i], stuck); break;
		case VW_KOP_REMOVE: changed |= do_remove(l, &e->v[i], stuck); break;
		}
	}
	return changed;
}

bool vw_cmdline_apply(struct vw_cmdline *l, const struct vw_kedits *e)
{
	const char *stuck;

	return apply(l, e, &stuck);
}

int vw_cmdline_check(const char *line, const struct vw_kedits *e, const char *where,
		     struct vw_err *err)
{
	struct vw_cmdline l;
	const char *stuck = NULL;
	int rc = 0;

	vw_cmdline_split(&l, line);
	if (l.open_quote) {
		/* TRANSLATORS: %s is a file (and the variable in it); the kernel
		 * groups the text between two '"' into one parameter. */
		rc = vw_err_set(err, -EINVAL,
				_("%s: the kernel command line has a '\"' that is never closed: parameters added after it would be part of the quoted text, and the kernel would not see them; close the quote by hand"),
				where);
	} else {
		apply(&l, e, &stuck);
		if (stuck)
			rc = vw_err_set(err, -EINVAL,
					_("%s: the value of %s holds a '\"' that cannot be written back after the edit; change it by hand"),
					where, stuck);
	}
	vw_cmdline_done(&l);
	return rc;
}

char *vw_cmdline_edit(const char *line, const struct vw_kedits *e, bool *changed)
{
	struct vw_cmdline l;
	bool ch;
	char *out;

	vw_cmdline_split(&l, line);
	ch = vw_cmdline_apply(&l, e);
	out = ch ? vw_cmdline_join(&l) : vw_xstrdup(line ? line : "");
	vw_cmdline_done(&l);
	if (changed)
		*changed = ch;
	return out;
}

bool vw_cmdline_has(const struct vw_cmdline *l, const char *key, const char *item)
{
	for (size_t i = 0; i < l->n; i++) {
		struct items it = { 0 };
		char *v;
		bool hit;

		if (!tok_is(&l->t[i], key))
			continue;
		if (!item)
			return true;
		v = tok_value(l->t[i].text);
		items_split(&it, v);
		hit = items_has(&it, item);
		items_done(&it);
		free(v);
		if (hit)
			return true;
	}
	return false;
}

/* Whether SET edit k holds on l: its last occurrence has the value. */
static bool set_holds(const struct vw_cmdline *l, const struct vw_kedit *k)
{
	size_t last = (size_t)-1;
	bool hold = false;
	char *v;

	for (size_t j = 0; j < l->n; j++)
		if (tok_is(&l->t[j], k->key))
			last = j;
	if (last == (size_t)-1)
		return false;
	v = tok_value(l->t[last].text);
	hold = (!v && !k->value) || (v && k->value && !strcmp(v, k->value));
	free(v);
	return hold;
}

char *vw_cmdline_missing(const char *line, const struct vw_kedits *e)
{
	struct vw_cmdline l, out = { 0 };
	char *s;

	vw_cmdline_split(&l, line);
	out.tail = vw_xstrdup("");
	for (size_t i = 0; i < e->n; i++) {
		const struct vw_kedit *k = &e->v[i];
		struct vw_kedits one = { (struct vw_kedit *)k, 1 };
		char *tok = NULL;

		if (k->op == VW_KOP_SET && !set_holds(&l, k)) {
			tok = make_tok(k->key, k->value);
		} else if (k->op == VW_KOP_MERGE) {
			struct items have = { 0 }, want = { 0 };
			bool all = true;

			for (size_t j = 0; j < l.n; j++)
				if (tok_is(&l.t[j], k->key)) {
					char *v = tok_value(l.t[j].text);
					items_split(&have, v);
					free(v);
				}
			items_split(&want, k->value);
			for (size_t j = 0; j < want.n; j++)
				all = all && items_has(&have, want.v[j]);
			if (!all) {
				char *joined;

				for (size_t j = 0; j < want.n; j++)
					items_add(&have, want.v[j], strlen(want.v[j]));
				joined = items_join(&have);
				tok = make_tok(k->key, joined);
				free(joined);
			}
			items_done(&have);
			items_done(&want);
		}
		if (tok) {
			append_tok(&out, tok);
			vw_cmdline_apply(&l, &one);
			free(tok);
		}
	}
	s = vw_cmdline_join(&out);
	vw_cmdline_done(&out);
	vw_cmdline_done(&l);
	return s;
}

bool vw_cmdline_needs_removal(const char *line, const struct vw_kedits *e)
{
	struct vw_kedits rm = { 0 };
	bool changed;
	char *s;

	for (size_t i = 0; i < e->n; i++)
		if (e->v[i].op == VW_KOP_REMOVE)
			vw_kedits_add(&rm, VW_KOP_REMOVE, e->v[i].key, e->v[i].value, e->v[i].why);
	s = vw_cmdline_edit(line, &rm, &changed);
	free(s);
	vw_kedits_done(&rm);
	return changed;
}
