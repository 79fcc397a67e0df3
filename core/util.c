/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.c - errors, allocation and buffers shared by the core. */
#include "vw.h"
#include "text.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Messages quote host files and names: keep terminal escapes out of them
 * (core/text.h), whoever shows them. */
static void err_printable(struct vw_err *e)
{
	char *p;

	if (vw_text_ok(e->msg))
		return;
	p = vw_printable_n(e->msg, strlen(e->msg), true);
	snprintf(e->msg, sizeof(e->msg), "%s", p);
	free(p);
}

int vw_err_set(struct vw_err *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (code >= 0)
		code = -1;
	if (e) {
		e->code = code;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
		err_printable(e);
	}
	return code;
}

int vw_err_prefix(struct vw_err *e, const char *fmt, ...)
{
	char prefix[512], old[sizeof(e->msg)];
	va_list ap;

	if (!e)
		return -1;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof(old));
	snprintf(e->msg, sizeof(e->msg), "%s: %s", prefix, old);
	err_printable(e);
	return e->code ? e->code : -1;
}

void vw_err_clear(struct vw_err *e)
{
	if (e) {
		e->code = 0;
		e->msg[0] = '\0';
	}
}

static void *oom(void)
{
	/* The one place the core gives up: nothing sensible is left to do. */
	fputs("vfiowiz: out of memory\n", stderr);
	abort();
}

void *vw_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	return p ? p : oom();
}

void *vw_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	return p ? p : oom();
}

void *vw_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	return p ? p : oom();
}

void *vw_xreallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return oom();
	return vw_xrealloc(p, n * size);
}

char *vw_xstrdup(const char *s)
{
	char *p = strdup(s ? s : "");
	return p ? p : oom();
}

char *vw_xstrndup(const char *s, size_t n)
{
	char *p = strndup(s ? s : "", n);
	return p ? p : oom();
}

char *vw_xasprintf(const char *fmt, ...)
{
	struct vw_buf b = VW_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	vw_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return vw_buf_steal(&b);
}

static void buf_grow(struct vw_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;

	if (need <= b->cap)
		return;
	if (need < b->len)
		oom();
	b->cap = b->cap ? b->cap : 64;
	while (b->cap < need)
		b->cap *= 2;
	b->data = vw_xrealloc(b->data, b->cap);
}

void vw_strv_vaddf(char ***v, size_t *n, const char *fmt, va_list ap)
{
	struct vw_buf b = VW_BUF_INIT;

	vw_buf_vprintf(&b, fmt, ap);
	*v = vw_xreallocarray(*v, *n + 2, sizeof(char *));
	(*v)[(*n)++] = vw_buf_steal(&b);
	(*v)[*n] = NULL;
}

void vw_buf_add(struct vw_buf *b, const void *p, size_t n)
{
	buf_grow(b, n);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void vw_buf_adds(struct vw_buf *b, const char *s)
{
	vw_buf_add(b, s, strlen(s));
}

void vw_buf_addc(struct vw_buf *b, char c)
{
	vw_buf_add(b, &c, 1);
}

void vw_buf_vprintf(struct vw_buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		return;
	buf_grow(b, (size_t)n);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void vw_buf_printf(struct vw_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vw_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

char *vw_buf_steal(struct vw_buf *b)
{
	char *p;

	buf_grow(b, 0);
	b->data[b->len] = '\0';	/* an empty buffer was never terminated */
	p = b->data;
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}

void vw_buf_done(struct vw_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

char *vw_strtrim(char *s)
{
	char *e;

	while (*s && isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

bool vw_startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}
