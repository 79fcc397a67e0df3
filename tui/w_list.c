/* SPDX-License-Identifier: GPL-2.0-or-later */
/* w_list.c - a list with check marks, radio marks, cycling values and text
 * fields; the cursor skips headings. */
#include "widgets.h"

#include <stdlib.h>
#include <string.h>

void vw_list_init(struct vw_list *l)
{
	memset(l, 0, sizeof(*l));
}

static void item_free(struct vw_item *it)
{
	free(it->label);
	free(it->note);
	free(it->mark);
	for (size_t i = 0; i < it->nvalues; i++)
		free(it->values[i]);
	free(it->values);
	if (it->kind == VW_ITEM_FIELD)
		vw_field_done(&it->field);
}

void vw_list_clear(struct vw_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		item_free(&l->v[i]);
	l->n = 0;
}

void vw_list_done(struct vw_list *l)
{
	vw_list_clear(l);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static bool selectable(const struct vw_item *it)
{
	return it->kind != VW_ITEM_HEADING;
}

struct vw_item *vw_list_add(struct vw_list *l, enum vw_item_kind kind, int tag, const char *label)
{
	struct vw_item *it;

	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->v = vw_xreallocarray(l->v, l->cap, sizeof(*l->v));
	}
	it = &l->v[l->n++];
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	it->tag = tag;
	it->label = vw_xstrdup(label ? label : "");
	it->color = VW_C_NORMAL;
	if (kind == VW_ITEM_FIELD)
		vw_field_init(&it->field, "", 0, false);
	/* the cursor never rests on a heading */
	if (l->cur >= l->n || !selectable(&l->v[l->cur])) {
		for (size_t i = 0; i < l->n; i++)
			if (selectable(&l->v[i])) {
				l->cur = i;
				break;
			}
	}
	return it;
}

void vw_item_note(struct vw_item *it, const char *note)
{
	free(it->note);
	it->note = note ? vw_xstrdup(note) : NULL;
}

void vw_item_mark(struct vw_item *it, const char *mark, enum vw_ui_color c)
{
	free(it->mark);
	it->mark = mark ? vw_xstrdup(mark) : NULL;
	it->color = c;
}

void vw_item_values(struct vw_item *it, const char *const *values, size_t n, size_t cur)
{
	for (size_t i = 0; i < it->nvalues; i++)
		free(it->values[i]);
	free(it->values);
	it->values = vw_xcalloc(n, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		it->values[i] = vw_xstrdup(values[i]);
	it->nvalues = n;
	it->value = cur < n ? cur : 0;
}

struct vw_item *vw_list_current(struct vw_list *l)
{
	if (l->cur >= l->n || !selectable(&l->v[l->cur]))
		return NULL;
	return &l->v[l->cur];
}

struct vw_item *vw_list_find(struct vw_list *l, int tag)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].tag == tag && selectable(&l->v[i]))
			return &l->v[i];
	return NULL;
}

void vw_list_select(struct vw_list *l, int tag)
{
	struct vw_item *it = vw_list_find(l, tag);

	if (it)
		l->cur = (size_t)(it - l->v);
}

void vw_list_radio(struct vw_list *l, struct vw_item *it)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].kind == VW_ITEM_RADIO && l->v[i].group == it->group)
			l->v[i].on = false;
	it->on = true;
}

void vw_list_align(struct vw_list *l)
{
	int w = 0;

	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].kind == VW_ITEM_FIELD || l->v[i].kind == VW_ITEM_CYCLE) {
			int k = vw_ui_width(l->v[i].label);

			if (k > w)
				w = k;
		}
	for (size_t i = 0; i < l->n; i++)
		l->v[i].label_width = w;
}

bool vw_list_editing(const struct vw_list *l)
{
	return l->cur < l->n && l->v[l->cur].kind == VW_ITEM_FIELD && !l->v[l->cur].disabled;
}

/* markw: the width of the widest mark of the list's TEXT items. */
static void draw_item(struct vw_item *it, WINDOW *w, int y, int x, int width, bool cursor, int markw)
{
	/* The cursor is the marker in the gutter, nothing else: moving it
	   rewrites two cells, not two lines (what a slow SSH link notices). */
	attr_t base = A_NORMAL;
	attr_t lab = base;
	int used = 0, notew = 0;
	char box[8];

	if (it->disabled)
		lab = vw_ui_attr(VW_C_DIM);
	vw_ui_fill(w, y, x, width, base);
	if (it->kind == VW_ITEM_HEADING) {
		vw_ui_put(w, y, x, width, it->label, vw_ui_attr(VW_C_HEADING));
		return;
	}
	used += vw_ui_put(w, y, x, width, cursor ? vw_ui.g.cursor : " ",
			  cursor ? vw_ui_attr(VW_C_CURSOR) | A_BOLD : base);
	used += vw_ui_put(w, y, x + used, width - used, " ", base);
	if (it->note && *it->note) {
		notew = vw_ui_width(it->note);
		/* a warning row's note says the danger: it gets most of the row */
		if (notew > (it->color == VW_C_WARN || it->color == VW_C_ERROR ? width * 3 / 5 : width / 3))
			notew = it->color == VW_C_WARN || it->color == VW_C_ERROR ? width * 3 / 5 : width / 3;
		vw_ui_put(w, y, x + width - notew - 1, notew, it->note, vw_ui_attr(VW_C_DIM));
		notew += 2;
	}
	switch (it->kind) {
	case VW_ITEM_CHECK:
		snprintf(box, sizeof(box), "[%c] ", it->on ? 'x' : ' ');
		used += vw_ui_put(w, y, x + used, width - used, box, lab);
		break;
	case VW_ITEM_RADIO:
		snprintf(box, sizeof(box), "(%c) ", it->on ? '*' : ' ');
		used += vw_ui_put(w, y, x + used, width - used, box, lab);
		break;
	case VW_ITEM_TEXT:
		if (it->mark) {
			int mw = vw_ui_width(it->mark);

			/* a column of 4, or one blank after the widest mark: the
			   labels line up whatever the (translated) marks are */
			int col = markw < 4 ? 4 : markw + 1;

			used += vw_ui_put(w, y, x + used, width - used, it->mark, vw_ui_attr(it->color));
			for (; mw < col && used < width; mw++)
				used += vw_ui_put(w, y, x + used, 1, " ", base);
		}
		break;
	default:
		break;
	}
	if (it->kind == VW_ITEM_FIELD || it->kind == VW_ITEM_CYCLE) {
		int lw = vw_ui_width(it->label), room, fw;

		used += vw_ui_put(w, y, x + used, width - used - notew, it->label, lab);
		for (; lw < it->label_width; lw++)
			used += vw_ui_put(w, y, x + used, 1, " ", base);
		used += vw_ui_put(w, y, x + used, width - used, "  ", base);
		room = width - used - notew;
		if (it->kind == VW_ITEM_FIELD) {
			fw = room > 40 ? 40 : room;
			vw_field_draw(&it->field, w, y, x + used, fw, cursor && !it->disabled);
		} else if (it->nvalues) {
			struct vw_buf b = VW_BUF_INIT;

			vw_buf_printf(&b, "< %s >", it->values[it->value]);
			vw_ui_put(w, y, x + used, room, b.data, lab | A_BOLD);
			vw_buf_done(&b);
		}
		return;
	}
	vw_ui_put(w, y, x + used, width - used - notew, it->label,
		  it->kind == VW_ITEM_TEXT && !it->mark && it->color != VW_C_NORMAL ? vw_ui_attr(it->color) : lab);
}

static void ensure_visible(struct vw_list *l, int h)
{
	if (h <= 0)
		return;
	if (l->cur < l->top)
		l->top = l->cur;
	/* show the heading right above the cursor too */
	if (l->cur > 0 && l->cur - 1 < l->top && !selectable(&l->v[l->cur - 1]))
		l->top = l->cur - 1;
	if (l->cur >= l->top + (size_t)h)
		l->top = l->cur - (size_t)h + 1;
	if (l->top + (size_t)h > l->n)
		l->top = l->n > (size_t)h ? l->n - (size_t)h : 0;
}

void vw_list_draw(struct vw_list *l, WINDOW *w, int y, int x, int h, int width, bool focused)
{
	int markw = 0;

	if (h <= 0 || width <= 2)
		return;
	l->rows = h;
	ensure_visible(l, h);
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].kind == VW_ITEM_TEXT && l->v[i].mark) {
			int mw = vw_ui_width(l->v[i].mark);

			if (mw > markw)
				markw = mw;
		}
	for (int r = 0; r < h; r++) {
		size_t i = l->top + (size_t)r;

		if (i >= l->n) {
			vw_ui_fill(w, y + r, x, width, A_NORMAL);
			continue;
		}
		draw_item(&l->v[i], w, y + r, x, width - 1, focused && i == l->cur, markw);
		vw_ui_fill(w, y + r, x + width - 1, 1, A_NORMAL);
	}
	if (l->top > 0)
		vw_ui_put(w, y, x + width - 1, 1, vw_ui.g.up, vw_ui_attr(VW_C_HEADING));
	if (l->top + (size_t)h < l->n)
		vw_ui_put(w, y + h - 1, x + width - 1, 1, vw_ui.g.down, vw_ui_attr(VW_C_HEADING));
}

static bool cursor_move(struct vw_list *l, int dir, size_t steps)
{
	size_t c = l->cur, last = l->cur;

	while (steps--) {
		for (;;) {
			if (dir < 0 && c == 0)
				goto out;
			if (dir > 0 && c + 1 >= l->n)
				goto out;
			c = dir < 0 ? c - 1 : c + 1;
			if (selectable(&l->v[c]))
				break;
		}
		last = c;
	}
out:
	if (last == l->cur)
		return false;
	l->cur = last;
	if (l->v[last].kind == VW_ITEM_FIELD)	/* arriving: typing replaces the value */
		l->v[last].field.fresh = true;
	return true;
}

enum vw_wkey vw_list_key(struct vw_list *l, int key)
{
	struct vw_item *it = vw_list_current(l);

	if (!it)
		return VW_W_IGNORED;
	if (it->kind == VW_ITEM_FIELD && !it->disabled && key != VW_KEY_UP && key != VW_KEY_DOWN &&
	    key != VW_KEY_PGUP && key != VW_KEY_PGDN) {
		enum vw_wkey r = vw_field_key(&it->field, key);

		if (r != VW_W_IGNORED)
			return r;
	}
	switch (key) {
	case VW_KEY_UP:
	case 'k':
		cursor_move(l, -1, 1);
		return VW_W_MOVED;
	case VW_KEY_DOWN:
	case 'j':
		cursor_move(l, 1, 1);
		return VW_W_MOVED;
	/* PgUp and PgDn are not the list's: they scroll the step's details
	   pane (shown in the key line); Home and End reach a long list's ends. */
	case VW_KEY_HOME:
		cursor_move(l, -1, l->n);
		return VW_W_MOVED;
	case VW_KEY_END:
		cursor_move(l, 1, l->n);
		return VW_W_MOVED;
	case ' ':
	case VW_KEY_LEFT:
	case VW_KEY_RIGHT:
		if (it->disabled) {
			if (key == ' ')
				beep();
			return key == ' ' ? VW_W_MOVED : VW_W_IGNORED;
		}
		if (it->kind == VW_ITEM_CHECK && key == ' ') {
			it->on = !it->on;
			return VW_W_CHANGED;
		}
		if (it->kind == VW_ITEM_RADIO && key == ' ') {
			if (it->on)
				return VW_W_MOVED;
			vw_list_radio(l, it);
			return VW_W_CHANGED;
		}
		if (it->kind == VW_ITEM_CYCLE && it->nvalues) {
			if (key == VW_KEY_LEFT)
				it->value = (it->value + it->nvalues - 1) % it->nvalues;
			else
				it->value = (it->value + 1) % it->nvalues;
			return VW_W_CHANGED;
		}
		return VW_W_IGNORED;
	default:
		return VW_W_IGNORED;
	}
}
