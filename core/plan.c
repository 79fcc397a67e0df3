/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plan.c - building a plan: whole-file changes read through the sysroot. */
#include "plan.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <strings.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"

#define NONE ((size_t)-1)

void vw_plan_init(struct vw_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->post_cmds = vw_xcalloc(1, sizeof(char *));
	p->last = NONE;
}

static void change_free(struct vw_change *c)
{
	free(c->path);
	free(c->old_data);
	free(c->new_data);
	free(c->why);
	vw_strv_free(c->post);
	memset(c, 0, sizeof(*c));
}

void vw_plan_done(struct vw_plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		change_free(&p->v[i]);
	free(p->v);
	vw_strv_free(p->post_cmds);
	memset(p, 0, sizeof(*p));
	p->last = NONE;
}

char *vw_change_normpath(const char *path, struct vw_err *err)
{
	const char *s = path ? path : "";
	size_t n;

	while (*s == '/')
		s++;
	if (!*s) {
		vw_err_set(err, -EINVAL, _("empty file name in the plan"));
		return NULL;
	}
	for (const char *c = s; *c;) {
		n = strcspn(c, "/");
		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.') ||
		    n > NAME_MAX) {
			vw_err_set(err, -EINVAL, _("invalid file name in the plan: %s"), path);
			return NULL;
		}
		c += n;
		if (*c == '/')
			c++;
		if (!*c && c[-1] == '/') {
			vw_err_set(err, -EINVAL, _("invalid file name in the plan: %s"), path);
			return NULL;
		}
	}
	return vw_xstrdup(s);
}

static size_t strv_len(char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

static bool strv_has(char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

/* Append a copy of s unless present; *v may be NULL. */
static void strv_add_once(char ***v, const char *s)
{
	size_t n = strv_len(*v);

	if (strv_has(*v, s))
		return;
	*v = vw_xreallocarray(*v, n + 2, sizeof(char *));
	(*v)[n] = vw_xstrdup(s);
	(*v)[n + 1] = NULL;
}

char **vw_plan_posts(const struct vw_plan *p, const bool *accept)
{
	char **v = vw_xcalloc(1, sizeof(char *));

	for (size_t i = 0; i < p->n; i++) {
		if (accept && !accept[i])
			continue;
		for (size_t k = 0; p->v[i].post && p->v[i].post[k]; k++)
			strv_add_once(&v, p->v[i].post[k]);
	}
	return v;
}

/* The plan-wide list is derived, so dropping a change can never leave one of
 * its commands behind. */
static void recompute_posts(struct vw_plan *p)
{
	vw_strv_free(p->post_cmds);
	p->post_cmds = vw_plan_posts(p, NULL);
	p->npost = strv_len(p->post_cmds);
}

static size_t find_index(const struct vw_plan *p, const char *norm)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].path, norm))
			return i;
	return NONE;
}

const struct vw_change *vw_plan_find(const struct vw_plan *p, const char *path)
{
	char *norm = vw_change_normpath(path, NULL);
	size_t i;

	if (!norm)
		return NULL;
	i = find_index(p, norm);
	free(norm);
	return i == NONE ? NULL : &p->v[i];
}

static void remove_index(struct vw_plan *p, size_t i)
{
	change_free(&p->v[i]);
	memmove(&p->v[i], &p->v[i + 1], (p->n - i - 1) * sizeof(p->v[0]));
	p->n--;
}

/* Read what is on disk now; a missing file is not an error. */
static int read_old(const struct vw_sysroot *sr, const char *path, struct vw_change *c,
		    struct vw_err *err)
{
	int r = vw_sysroot_read(sr, path, &c->old_data, &c->old_len, VW_PLAN_MAX_FILE, err);

	if (r == -ENOENT) {
		c->old_data = vw_xstrdup("");
		c->old_len = 0;
		c->old_exists = false;
		vw_err_clear(err);
		return 0;
	}
	c->old_exists = r == 0;
	return r;
}

static bool unchanged(const struct vw_change *c)
{
	if (c->remove)
		return !c->old_exists;
	return c->old_exists && c->old_len == c->new_len &&
	       !memcmp(c->old_data, c->new_data, c->new_len);
}

static void set_new(struct vw_change *c, const struct vw_file_spec *s)
{
	free(c->new_data);
	c->remove = s->flags & VW_CHANGE_REMOVE;
	if (c->remove) {
		c->new_data = vw_xstrdup("");
		c->new_len = 0;
	} else {
		c->new_data = vw_xmalloc(s->len + 1);
		if (s->len)
			memcpy(c->new_data, s->data, s->len);
		c->new_data[s->len] = '\0';
		c->new_len = s->len;
	}
	c->secret = c->secret || (s->flags & VW_CHANGE_SECRET);
	c->mode = (s->mode ? s->mode : 0644) & 07777;
	if (c->secret)
		c->mode = 0600;
	if (!c->why)
		c->why = vw_xstrdup(s->why ? s->why : "");
	for (size_t k = 0; s->post && s->post[k]; k++)
		strv_add_once(&c->post, s->post[k]);
}

/* A command line that vw_exec_split() accepts and that names a program. */
static bool post_ok(const char *cmd)
{
	char **argv = NULL;
	bool ok = cmd && vw_exec_split(cmd, &argv, NULL) > 0;

	vw_strv_free(argv);
	return ok;
}

static int check_spec(const struct vw_file_spec *s, struct vw_err *err)
{
	if (!(s->flags & VW_CHANGE_REMOVE) && s->len > VW_PLAN_MAX_FILE)
		return vw_err_set(err, -EFBIG, _("/%s would be larger than %u bytes"), s->path,
				  VW_PLAN_MAX_FILE);
	if (!(s->flags & VW_CHANGE_REMOVE) && s->len && !s->data)
		return vw_err_set(err, -EINVAL, _("no contents given for /%s"), s->path);
	for (size_t k = 0; s->post && s->post[k]; k++)
		if (!post_ok(s->post[k]))
			return vw_err_set(err, -EINVAL, _("invalid post-command for /%s: %s"),
					  s->path, s->post[k]);
	return 0;
}

int vw_plan_add(struct vw_plan *p, const struct vw_sysroot *sr,
		const struct vw_file_spec *spec, struct vw_err *err)
{
	struct vw_change nc = { 0 };
	char *norm;
	size_t i;
	int r;

	p->last = NONE;
	norm = vw_change_normpath(spec->path, err);
	if (!norm)
		return -EINVAL;
	r = check_spec(spec, err);
	if (r < 0) {
		free(norm);
		return r;
	}
	i = find_index(p, norm);
	if (i == NONE) {
		nc.path = norm;
		r = read_old(sr, norm, &nc, err);
		if (r < 0) {
			change_free(&nc);
			return r;
		}
		if (p->n == p->cap) {
			p->cap = p->cap ? 2 * p->cap : 8;
			p->v = vw_xreallocarray(p->v, p->cap, sizeof(p->v[0]));
		}
		i = p->n++;
		p->v[i] = nc;
	} else {
		free(norm);
	}
	set_new(&p->v[i], spec);
	if (unchanged(&p->v[i])) {
		remove_index(p, i);
		recompute_posts(p);
		return 0;
	}
	p->last = i;
	recompute_posts(p);
	return 1;
}

int vw_plan_add_file(struct vw_plan *p, const struct vw_sysroot *sr, const char *path,
		     const char *data, size_t len, mode_t mode, const char *why,
		     struct vw_err *err)
{
	struct vw_file_spec s = {
		.path = path, .data = data, .len = len, .mode = mode, .why = why,
	};

	return vw_plan_add(p, sr, &s, err);
}

int vw_plan_remove_file(struct vw_plan *p, const struct vw_sysroot *sr, const char *path,
			const char *why, struct vw_err *err)
{
	struct vw_file_spec s = { .path = path, .why = why, .flags = VW_CHANGE_REMOVE };

	return vw_plan_add(p, sr, &s, err);
}

int vw_plan_add_post(struct vw_plan *p, const char *cmd)
{
	if (!post_ok(cmd))
		return -EINVAL;
	if (p->last == NONE || p->last >= p->n)
		return 0;
	strv_add_once(&p->v[p->last].post, cmd);
	recompute_posts(p);
	return 0;
}

int vw_plan_read(const struct vw_plan *p, const struct vw_sysroot *sr, const char *path,
		 char **data, size_t *len, struct vw_err *err)
{
	const struct vw_change *c = vw_plan_find(p, path);
	char *norm;
	int r;

	*data = NULL;
	*len = 0;
	if (c) {
		if (c->remove)
			return vw_err_set(err, -ENOENT, _("/%s is removed by the plan"), c->path);
		*data = vw_xmalloc(c->new_len + 1);
		memcpy(*data, c->new_data, c->new_len + 1);
		*len = c->new_len;
		return 0;
	}
	norm = vw_change_normpath(path, err);
	if (!norm)
		return -EINVAL;
	r = vw_sysroot_read(sr, norm, data, len, VW_PLAN_MAX_FILE, err);
	free(norm);
	return r;
}

/* Length of one written form of the byte c at s (n bytes left), trying the
 * alternative alt (0, 1, ...); 0 when alt does not match, -1 past the last
 * alternative.  Longer forms come first so that a match covers all of it. */
static int enc_len(const char *s, size_t n, unsigned char c, int alt)
{
	static const char hex[] = "0123456789abcdef";
	char e[16];

	switch (alt) {
	case 0:	/* shell: a single quote inside '...' */
		if (c != '\'')
			return 0;
		if (n >= 4 && !memcmp(s, "'\\''", 4))
			return 4;
		return n >= 5 && !memcmp(s, "'\"'\"'", 5) ? 5 : 0;
	case 1:	/* XML: named entities */
		snprintf(e, sizeof(e), "%s", c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" :
			 c == '"' ? "&quot;" : c == '\'' ? "&apos;" : "");
		break;
	case 2:	/* XML: character references */
		snprintf(e, sizeof(e), "&#%u;", c);
		break;
	case 3:
		snprintf(e, sizeof(e), "&#x%x;", c);
		break;
	case 4:	/* URL: %XX in either case; + for a blank in a query */
		if (n >= 3 && s[0] == '%' && tolower((unsigned char)s[1]) == hex[c >> 4] &&
		    tolower((unsigned char)s[2]) == hex[c & 15])
			return 3;
		return c == ' ' && n >= 1 && s[0] == '+' ? 1 : 0;
	case 5:	/* backslash escapes: "...", libconfuse, C */
		return n >= 2 && s[0] == '\\' && (unsigned char)s[1] == c ? 2 : 0;
	case 6:
		return n >= 1 && (unsigned char)s[0] == c ? 1 : 0;
	default:
		return -1;
	}
	if (!*e)
		return 0;
	return n >= strlen(e) && !strncasecmp(s, e, strlen(e)) ? (int)strlen(e) : 0;
}

/* Length of secret written at s in any of the forms above (mixed forms
 * too: masking more is harmless), or 0. */
static size_t enc_match(const char *s, size_t n, const char *secret)
{
	if (!*secret)
		return 0;
	for (int alt = 0;; alt++) {
		int l = enc_len(s, n, (unsigned char)*secret, alt);
		size_t rest;

		if (l < 0)
			return 0;
		if (!l)
			continue;
		if (!secret[1])
			return (size_t)l;
		rest = enc_match(s + l, n - (size_t)l, secret + 1);
		if (rest)
			return (size_t)l + rest;
	}
}

char *vw_change_mask(const char *s, size_t len, const char *secret, size_t *outlen)
{
	struct vw_buf b = VW_BUF_INIT;
	size_t m;

	for (size_t i = 0; i < len;) {
		if (secret && *secret && (m = enc_match(s + i, len - i, secret))) {
			vw_buf_adds(&b, "********");
			i += m;
		} else {
			vw_buf_addc(&b, s[i++]);
		}
	}
	*outlen = b.len;
	return b.data ? vw_buf_steal(&b) : vw_xstrdup("");
}
