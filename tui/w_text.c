/* SPDX-License-Identifier: GPL-2.0-or-later */
/* w_text.c - scrollable text; paragraphs are wrapped for the width they are
 * drawn at, so a resize rewraps them. */
#include "widgets.h"

#include <stdlib.h>
#include <string.h>

void vw_text_init(struct vw_text *t)
{
	memset(t, 0, sizeof(*t));
	t->wrapped_for = -1;
}

static void drop_lines(struct vw_text *t)
{
	for (size_t i = 0; i < t->nlines; i++)
		free(t->lines[i]);
	free(t->lines);
	free(t->colors);
	t->lines = NULL;
	t->colors = NULL;
	t->nlines = 0;
	t->wrapped_for = -1;
}

void vw_text_clear(struct vw_text *t)
{
	for (size_t i = 0; i < t->np; i++)
		free(t->p[i].text);
	t->np = 0;
	drop_lines(t);
}

void vw_text_done(struct vw_text *t)
{
	vw_text_clear(t);
	free(t->p);
	memset(t, 0, sizeof(*t));
	t->wrapped_for = -1;
}

static void add(struct vw_text *t, enum vw_ui_color c, int indent, const char *s, bool pre)
{
	if (t->np == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->p = vw_xreallocarray(t->p, t->cap, sizeof(*t->p));
	}
	t->p[t->np++] = (struct vw_para){ vw_xstrdup(s ? s : ""), c, indent, pre };
	drop_lines(t);
}

void vw_text_add(struct vw_text *t, enum vw_ui_color c, int indent, const char *s)
{
	add(t, c, indent, s, false);
}

void vw_text_addf(struct vw_text *t, enum vw_ui_color c, int indent, const char *fmt, ...)
{
	struct vw_buf b = VW_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	vw_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	add(t, c, indent, b.data ? b.data : "", false);
	vw_buf_done(&b);
}

void vw_text_pre(struct vw_text *t, enum vw_ui_color c, const char *s)
{
	const char *p = s ? s : "";

	while (*p) {
		size_t n = strcspn(p, "\n");
		char *line = vw_xstrndup(p, n);

		add(t, c, 0, line, true);
		free(line);
		p += n;
		if (*p == '\n')
			p++;
	}
}

static void wrap(struct vw_text *t, int width)
{
	size_t cap = 0;

	if (t->wrapped_for == width)
		return;
	drop_lines(t);
	for (size_t i = 0; i < t->np; i++) {
		char **ls;
		size_t n;

		if (t->p[i].pre) {
			ls = vw_xcalloc(2, sizeof(char *));
			ls[0] = vw_xstrdup(t->p[i].text);
			n = 1;
		} else {
			n = vw_ui_wrap(t->p[i].text, width, t->p[i].indent, &ls);
		}
		if (t->nlines + n > cap) {
			cap = (t->nlines + n) * 2;
			t->lines = vw_xreallocarray(t->lines, cap, sizeof(char *));
			t->colors = vw_xreallocarray(t->colors, cap, sizeof(*t->colors));
		}
		for (size_t k = 0; k < n; k++) {
			t->lines[t->nlines] = ls[k];
			t->colors[t->nlines++] = t->p[i].color;
		}
		free(ls);
	}
	t->wrapped_for = width;
}

size_t vw_text_height(struct vw_text *t, int width)
{
	wrap(t, width);
	return t->nlines;
}

void vw_text_draw(struct vw_text *t, WINDOW *w, int y, int x, int h, int width)
{
	if (h <= 0 || width <= 1)
		return;
	wrap(t, width - 1);	/* the last column holds the scroll marks */
	t->rows = h;
	if (t->nlines <= (size_t)h)
		t->top = 0;
	else if (t->top > t->nlines - (size_t)h)
		t->top = t->nlines - (size_t)h;
	for (int r = 0; r < h; r++) {
		size_t i = t->top + (size_t)r;

		vw_ui_fill(w, y + r, x, width, A_NORMAL);
		if (i < t->nlines)
			vw_ui_put(w, y + r, x, width - 1, t->lines[i], vw_ui_attr(t->colors[i]));
	}
	if (t->top > 0)
		vw_ui_put(w, y, x + width - 1, 1, vw_ui.g.up, vw_ui_attr(VW_C_HEADING));
	if (t->top + (size_t)h < t->nlines)
		vw_ui_put(w, y + h - 1, x + width - 1, 1, vw_ui.g.down, vw_ui_attr(VW_C_HEADING));
}

enum vw_wkey vw_text_key(struct vw_text *t, int key)
{
	size_t page = t->rows > 1 ? (size_t)t->rows - 1 : 1;
	size_t max = t->nlines > (size_t)t->rows ? t->nlines - (size_t)t->rows : 0;
	size_t old = t->top;

	switch (key) {
	case VW_KEY_UP:
	case 'k':
		if (t->top)
			t->top--;
		break;
	case VW_KEY_DOWN:
	case 'j':
		if (t->top < max)
			t->top++;
		break;
	case VW_KEY_PGUP:
		t->top = t->top > page ? t->top - page : 0;
		break;
	case VW_KEY_PGDN:
	case ' ':
		t->top = t->top + page < max ? t->top + page : max;
		break;
	case VW_KEY_HOME:
		t->top = 0;
		break;
	case VW_KEY_END:
		t->top = max;
		break;
	default:
		return VW_W_IGNORED;
	}
	(void)old;
	return VW_W_MOVED;
}
