/* SPDX-License-Identifier: GPL-2.0-or-later */
/* w_field.c - one line of editable text, optionally masked. */
#include "widgets.h"

#include <stdlib.h>
#include <string.h>

static int cw(wchar_t c)
{
	int w = wcwidth(c);

	return w < 1 ? 1 : w;
}

void vw_field_init(struct vw_field *f, const char *value, size_t maxlen, bool masked)
{
	memset(f, 0, sizeof(*f));
	f->maxlen = maxlen;
	f->masked = masked;
	vw_field_set(f, value ? value : "");
}

void vw_field_done(struct vw_field *f)
{
	free(f->text);
	memset(f, 0, sizeof(*f));
}

static void reserve(struct vw_field *f, size_t n)
{
	if (n + 1 > f->cap) {
		f->cap = (n + 1) * 2;
		f->text = vw_xreallocarray(f->text, f->cap, sizeof(wchar_t));
	}
}

void vw_field_set(struct vw_field *f, const char *value)
{
	size_t n = mbstowcs(NULL, value, 0);

	if (n == (size_t)-1) {	/* not valid in this locale: keep the ASCII */
		f->len = 0;
		reserve(f, strlen(value));
		for (const char *s = value; *s; s++)
			if ((unsigned char)*s < 0x80 && (unsigned char)*s >= 0x20)
				f->text[f->len++] = (wchar_t)*s;
	} else {
		reserve(f, n);
		mbstowcs(f->text, value, n + 1);
		f->len = n;
	}
	if (f->maxlen && f->len > f->maxlen)
		f->len = f->maxlen;
	f->text[f->len] = 0;
	f->cur = f->len;
	f->fresh = true;
}

char *vw_field_get(const struct vw_field *f)
{
	size_t n;
	char *s;

	if (!f->text)
		return vw_xstrdup("");
	n = wcstombs(NULL, f->text, 0);
	if (n == (size_t)-1)
		return vw_xstrdup("");
	s = vw_xmalloc(n + 1);
	wcstombs(s, f->text, n + 1);
	return s;
}

void vw_field_draw(const struct vw_field *f, WINDOW *w, int y, int x, int width, bool focused)
{
	size_t start = 0;
	int used = 0, cwid = 0;
	attr_t a = vw_ui_attr(VW_C_FIELD);

	if (width <= 0)
		return;
	/* scroll so the cursor (and one cell after it) is visible */
	for (size_t i = start; i < f->cur; i++)
		cwid += f->masked ? 1 : cw(f->text[i]);
	while (cwid >= width && start < f->cur) {
		cwid -= f->masked ? 1 : cw(f->text[start]);
		start++;
	}
	vw_ui_fill(w, y, x, width, a);
	for (size_t i = start; i <= f->len && used < width; i++) {
		wchar_t c = i < f->len ? (f->masked ? L'*' : f->text[i]) : L' ';
		int k = cw(c);
		attr_t ca = a;

		if (used + k > width)
			break;
		if (focused && i == f->cur)
			ca = vw_ui_attr(VW_C_CURSOR) | A_REVERSE;
		else if (focused && f->fresh && i < f->len)
			ca = a | A_UNDERLINE;	/* typing replaces it */
		if (i == f->len && !(focused && i == f->cur))
			break;
		wattrset(w, (int)ca);
		mvwaddnwstr(w, y, x + used, &c, 1);
		used += k;
	}
	wattrset(w, A_NORMAL);
}

enum vw_wkey vw_field_key(struct vw_field *f, int key)
{
	bool fresh = f->fresh;

	/* A prefilled value is replaced by what is typed, as in a form: the
	   first printable character clears it; moving or deleting first
	   edits it instead. */
	f->fresh = false;
	switch (key) {
	case VW_KEY_LEFT:
		if (f->cur > 0)
			f->cur--;
		return VW_W_MOVED;
	case VW_KEY_RIGHT:
		if (f->cur < f->len)
			f->cur++;
		return VW_W_MOVED;
	case VW_KEY_HOME:
	case VW_KEY_CTRL('a'):
		f->cur = 0;
		return VW_W_MOVED;
	case VW_KEY_END:
	case VW_KEY_CTRL('e'):
		f->cur = f->len;
		return VW_W_MOVED;
	case VW_KEY_BACKSPACE:
		if (!f->cur)
			return VW_W_MOVED;
		memmove(f->text + f->cur - 1, f->text + f->cur, (f->len - f->cur + 1) * sizeof(wchar_t));
		f->cur--;
		f->len--;
		return VW_W_CHANGED;
	case VW_KEY_DC:
		if (f->cur == f->len)
			return VW_W_MOVED;
		memmove(f->text + f->cur, f->text + f->cur + 1, (f->len - f->cur) * sizeof(wchar_t));
		f->len--;
		return VW_W_CHANGED;
	case VW_KEY_CTRL('u'):
		f->len = f->cur = 0;
		f->text[0] = 0;
		return VW_W_CHANGED;
	default:
		break;
	}
	if (key < 0x20 || key == 0x7f || key >= 0x110000 || wcwidth((wchar_t)key) < 1) {
		f->fresh = fresh;	/* not an edit: Enter, Esc, F1 */
		return VW_W_IGNORED;
	}
	if (fresh) {
		f->len = f->cur = 0;
		f->text[0] = 0;
	}
	if (f->maxlen && f->len >= f->maxlen) {
		beep();
		return VW_W_MOVED;
	}
	reserve(f, f->len + 1);
	memmove(f->text + f->cur + 1, f->text + f->cur, (f->len - f->cur + 1) * sizeof(wchar_t));
	f->text[f->cur++] = (wchar_t)key;
	f->len++;
	return VW_W_CHANGED;
}
