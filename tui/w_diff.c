/* SPDX-License-Identifier: GPL-2.0-or-later */
/* w_diff.c - a viewer for the unified diffs of several files, with a
 * cursor line, hunk and file navigation and an accept mark per file. */
#include "widgets.h"

#include <stdlib.h>
#include <string.h>

void vw_wdiff_init(struct vw_wdiff *d)
{
	memset(d, 0, sizeof(*d));
}

void vw_wdiff_done(struct vw_wdiff *d)
{
	for (size_t i = 0; i < d->nf; i++) {
		free(d->f[i].title);
		free(d->f[i].note);
		free(d->f[i].diff);
	}
	free(d->f);
	free(d->l);
	memset(d, 0, sizeof(*d));
}

static void push(struct vw_wdiff *d, size_t *cap, size_t file, int kind, const char *s, size_t len)
{
	if (d->nl == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		d->l = vw_xreallocarray(d->l, *cap, sizeof(*d->l));
	}
	d->l[d->nl].file = file;
	d->l[d->nl].kind = kind;
	d->l[d->nl].s = s;
	d->l[d->nl].len = len;
	d->nl++;
}

/* The line index is rebuilt from scratch: the file texts may have moved. */
static void index_lines(struct vw_wdiff *d)
{
	size_t cap = 0;

	free(d->l);
	d->l = NULL;
	d->nl = 0;
	for (size_t i = 0; i < d->nf; i++) {
		const char *p = d->f[i].diff;

		push(d, &cap, i, DL_FILE, d->f[i].title, strlen(d->f[i].title));
		if (*d->f[i].note)
			push(d, &cap, i, DL_NOTE, d->f[i].note, strlen(d->f[i].note));
		while (*p) {
			size_t n = strcspn(p, "\n");
			int kind = DL_CTX;

			if (!strncmp(p, "---", 3) || !strncmp(p, "+++", 3) || p[0] == '\\')
				kind = DL_META;
			else if (!strncmp(p, "@@", 2))
				kind = DL_HUNK;
			else if (p[0] == '+')
				kind = DL_ADD;
			else if (p[0] == '-')
				kind = DL_DEL;
			else if (p[0] != ' ')
				kind = DL_META;
			push(d, &cap, i, kind, p, n);
			p += n;
			if (*p)
				p++;
		}
		push(d, &cap, i, DL_BLANK, "", 0);
	}
}

void vw_wdiff_add(struct vw_wdiff *d, const char *title, const char *note, const char *diff, bool *accept)
{
	d->f = vw_xreallocarray(d->f, d->nf + 1, sizeof(*d->f));
	d->f[d->nf].title = vw_xstrdup(title);
	d->f[d->nf].note = vw_xstrdup(note ? note : "");
	d->f[d->nf].diff = vw_xstrdup(diff ? diff : "");
	d->f[d->nf].accept = accept;
	d->nf++;
	index_lines(d);
}

size_t vw_wdiff_current_file(const struct vw_wdiff *d)
{
	return d->cur < d->nl ? d->l[d->cur].file : 0;
}

/* Expand tabs to 8 columns (the bytes are the locale's encoding). */
static char *expand(const char *s, size_t len)
{
	struct vw_buf b = VW_BUF_INIT;
	size_t col = 0;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\t') {
			do
				vw_buf_addc(&b, ' ');
			while (++col % 8);
		} else {
			vw_buf_addc(&b, s[i]);
			if ((s[i] & 0xc0) != 0x80)
				col++;
		}
	}
	vw_buf_add(&b, "", 0);
	return vw_buf_steal(&b);
}

void vw_wdiff_draw(struct vw_wdiff *d, WINDOW *w, int y, int x, int h, int width)
{
	if (h <= 0 || width <= 4)
		return;
	d->rows = h;
	if (d->cur >= d->nl)
		d->cur = d->nl ? d->nl - 1 : 0;
	if (d->cur < d->top)
		d->top = d->cur;
	if (d->cur >= d->top + (size_t)h)
		d->top = d->cur - (size_t)h + 1;
	for (int r = 0; r < h; r++) {
		size_t i = d->top + (size_t)r;
		const struct vw_wdiff_line *l;
		attr_t a = A_NORMAL;
		char *s;
		bool cursor;

		vw_ui_fill(w, y + r, x, width, A_NORMAL);
		if (i >= d->nl)
			continue;
		l = &d->l[i];
		cursor = i == d->cur;
		switch (l->kind) {
		case DL_FILE: a = vw_ui_attr(VW_C_HEADING); break;
		case DL_NOTE: a = vw_ui_attr(VW_C_DIM); break;
		case DL_META: a = vw_ui_attr(VW_C_DIM); break;
		case DL_HUNK: a = vw_ui_attr(VW_C_HUNK); break;
		case DL_ADD: a = vw_ui_attr(VW_C_ADDED); break;
		case DL_DEL: a = vw_ui_attr(VW_C_REMOVED); break;
		default: break;
		}
		if (cursor) {
			a = vw_ui_attr(VW_C_CURSOR);
			vw_ui_fill(w, y + r, x, width - 1, a);
		}
		if (l->kind == DL_FILE && !d->f[l->file].accept) {	/* notes, commands */
			vw_ui_put(w, y + r, x, width - 1, l->s, a | A_BOLD);
			continue;
		}
		if (l->kind == DL_FILE) {
			bool on = *d->f[l->file].accept;
			/* TRANSLATORS: marks of a file in the review: it will be
			   written, or it is skipped.  Keep both the same width. */
			const char *mark = on ? _("[x] write") : _("[ ] skip ");
			int used = vw_ui_put(w, y + r, x, width - 1, mark, a | A_BOLD);

			used += vw_ui_put(w, y + r, x + used, width - 1 - used, "  ", a);
			vw_ui_put(w, y + r, x + used, width - 1 - used, l->s, a | A_BOLD);
			continue;
		}
		s = expand(l->s, l->len);
		vw_ui_put(w, y + r, x + (l->kind == DL_NOTE ? 4 : 0),
			  width - 1 - (l->kind == DL_NOTE ? 4 : 0), s, a);
		free(s);
	}
	if (d->top > 0)
		vw_ui_put(w, y, x + width - 1, 1, vw_ui.g.up, vw_ui_attr(VW_C_HEADING));
	if (d->top + (size_t)h < d->nl)
		vw_ui_put(w, y + h - 1, x + width - 1, 1, vw_ui.g.down, vw_ui_attr(VW_C_HEADING));
}

/* Move the cursor to the next (dir > 0) or previous line of kind; true when found. */
static bool seek(struct vw_wdiff *d, int dir, int kind)
{
	size_t i = d->cur;

	for (;;) {
		if (dir < 0 && i == 0)
			return false;
		if (dir > 0 && i + 1 >= d->nl)
			return false;
		i = dir < 0 ? i - 1 : i + 1;
		if ((int)d->l[i].kind == kind) {
			d->cur = i;
			d->top = i;	/* a jump shows what follows */
			if (d->rows > 0 && d->nl > (size_t)d->rows && d->top > d->nl - (size_t)d->rows)
				d->top = d->nl - (size_t)d->rows;
			return true;
		}
	}
}

enum vw_wkey vw_wdiff_key(struct vw_wdiff *d, int key)
{
	size_t page = d->rows > 1 ? (size_t)d->rows - 1 : 1;

	if (!d->nl)
		return VW_W_IGNORED;
	switch (key) {
	case VW_KEY_UP:
	case 'k':
		if (d->cur)
			d->cur--;
		return VW_W_MOVED;
	case VW_KEY_DOWN:
	case 'j':
		if (d->cur + 1 < d->nl)
			d->cur++;
		return VW_W_MOVED;
	case VW_KEY_PGUP:
		d->cur = d->cur > page ? d->cur - page : 0;
		d->top = d->top > page ? d->top - page : 0;
		return VW_W_MOVED;
	case VW_KEY_PGDN:
		d->cur = d->cur + page < d->nl ? d->cur + page : d->nl - 1;
		d->top += page;
		if (d->top > d->cur)
			d->top = d->cur;
		return VW_W_MOVED;
	case VW_KEY_HOME:
		d->cur = d->top = 0;
		return VW_W_MOVED;
	case VW_KEY_END:
		d->cur = d->nl - 1;
		return VW_W_MOVED;
	case 'n':
		if (!seek(d, 1, DL_HUNK))
			beep();
		return VW_W_MOVED;
	case 'p':
		if (!seek(d, -1, DL_HUNK))
			beep();
		return VW_W_MOVED;
	case ']':
		if (!seek(d, 1, DL_FILE))
			beep();
		return VW_W_MOVED;
	case '[':
		if (!seek(d, -1, DL_FILE))
			beep();
		return VW_W_MOVED;
	case ' ': {
		size_t file = vw_wdiff_current_file(d), h = d->cur;
		struct vw_wdiff_file *f = &d->f[file];

		/* Only a file whose header is in view: else show the header
		   first, so nobody skips a file they cannot see the name of. */
		while (h > 0 && !(d->l[h].kind == DL_FILE && d->l[h].file == file))
			h--;
		if (d->rows > 0 && (h < d->top || h >= d->top + (size_t)d->rows)) {
			d->cur = d->top = h;
			if (d->nl > (size_t)d->rows && d->top > d->nl - (size_t)d->rows)
				d->top = d->nl - (size_t)d->rows;
			return VW_W_MOVED;
		}
		if (f->accept)
			*f->accept = !*f->accept;
		return VW_W_CHANGED;
	}
	case 'a': {
		bool all = true;

		for (size_t i = 0; i < d->nf; i++)
			if (d->f[i].accept && !*d->f[i].accept)
				all = false;
		for (size_t i = 0; i < d->nf; i++)
			if (d->f[i].accept)
				*d->f[i].accept = !all;
		return VW_W_CHANGED;
	}
	default:
		return VW_W_IGNORED;
	}
}
