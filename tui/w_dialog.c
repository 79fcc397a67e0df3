/* SPDX-License-Identifier: GPL-2.0-or-later */
/* w_dialog.c - the confirm dialog and the framed overlay (help). */
#include "widgets.h"

#include <stdlib.h>
#include <string.h>

void vw_dialog_open(struct vw_dialog *d, int id, const char *title, const char *text,
		    const char *const *buttons, int nbuttons, int cancel)
{
	vw_dialog_close(d);
	d->open = true;
	d->id = id;
	d->title = vw_xstrdup(title);
	d->text = vw_xstrdup(text);
	if (nbuttons > VW_DIALOG_MAX_BUTTONS)
		nbuttons = VW_DIALOG_MAX_BUTTONS;
	for (int i = 0; i < nbuttons; i++)
		d->buttons[i] = vw_xstrdup(buttons[i]);
	d->nbuttons = nbuttons;
	d->cancel = cancel >= 0 && cancel < nbuttons ? cancel : nbuttons - 1;
	d->sel = 0;
}

void vw_dialog_close(struct vw_dialog *d)
{
	free(d->title);
	free(d->text);
	for (int i = 0; i < d->nbuttons; i++)
		free(d->buttons[i]);
	memset(d, 0, sizeof(*d));
}

void vw_dialog_draw(const struct vw_dialog *d, WINDOW *w)
{
	int H = getmaxy(w), W = getmaxx(w);
	int bw = 0, width, height, y0, x0, bx;
	char **lines;
	size_t n;
	attr_t a = vw_ui_attr(VW_C_DIALOG);

	if (!d->open)
		return;
	for (int i = 0; i < d->nbuttons; i++)
		bw += vw_ui_width(d->buttons[i]) + 4 + 2;
	width = W - 8 < 64 ? W - 8 : 64;
	if (width < bw + 4)
		width = bw + 4 < W ? bw + 4 : W;
	n = vw_ui_wrap(d->text, width - 4, 0, &lines);
	height = (int)n + 5;
	if (height > H)
		height = H;
	y0 = (H - height) / 2;
	x0 = (W - width) / 2;
	for (int r = 0; r < height; r++)
		vw_ui_fill(w, y0 + r, x0, width, a);
	vw_ui_box(w, y0, x0, height, width, a);
	if (d->title && *d->title) {
		vw_ui_put(w, y0, x0 + 2, width - 4, " ", a);
		vw_ui_put(w, y0, x0 + 3, width - 6, d->title, a | A_BOLD);
		vw_ui_put(w, y0, x0 + 3 + vw_ui_width(d->title) < x0 + width - 2
			      ? x0 + 3 + vw_ui_width(d->title) : x0 + width - 2, 1, " ", a);
	}
	for (size_t i = 0; i < n && (int)i < height - 5 + 0; i++)
		vw_ui_put(w, y0 + 2 + (int)i, x0 + 2, width - 4, lines[i], a);
	vw_strv_free(lines);
	bx = x0 + (width - bw) / 2 + 1;
	for (int i = 0; i < d->nbuttons; i++) {
		attr_t ba = i == d->sel ? vw_ui_attr(VW_C_BUTTON) : a;
		int used = vw_ui_put(w, y0 + height - 2, bx, width, "[ ", ba);

		used += vw_ui_put(w, y0 + height - 2, bx + used, width, d->buttons[i], ba);
		used += vw_ui_put(w, y0 + height - 2, bx + used, width, " ]", ba);
		bx += used + 2;
	}
}

enum vw_wkey vw_dialog_key(struct vw_dialog *d, int key)
{
	switch (key) {
	case VW_KEY_LEFT:
	case VW_KEY_BTAB:
	case 'h':
		d->sel = (d->sel + d->nbuttons - 1) % d->nbuttons;
		return VW_W_MOVED;
	case VW_KEY_RIGHT:
	case VW_KEY_TAB:
	case 'l':
		d->sel = (d->sel + 1) % d->nbuttons;
		return VW_W_MOVED;
	case VW_KEY_HOME:
		d->sel = 0;
		return VW_W_MOVED;
	case VW_KEY_END:
		d->sel = d->nbuttons - 1;
		return VW_W_MOVED;
	case VW_KEY_RET:
	case ' ':
		return VW_W_CHOSEN;
	case VW_KEY_ESC:
	case VW_KEY_BACKSPACE:
		d->sel = d->cancel;
		return VW_W_CHOSEN;
	default:
		return VW_W_MOVED;	/* modal: nothing else gets through */
	}
}

void vw_overlay_draw(struct vw_text *t, WINDOW *w, const char *title, const char *footer)
{
	int H = getmaxy(w), W = getmaxx(w);
	int width = W - 4 > 100 ? 100 : W - 4, height = H - 2;
	int y0 = (H - height) / 2, x0 = (W - width) / 2;
	attr_t a = vw_ui_attr(VW_C_FRAME);

	if (width < 10 || height < 5)
		return;
	for (int r = 0; r < height; r++)	/* nothing of the step shows at the sides */
		vw_ui_fill(w, y0 + r, 0, W, A_NORMAL);
	vw_ui_box(w, y0, x0, height, width, a);
	if (title) {
		int tw = vw_ui_put(w, y0, x0 + 2, 1, " ", a);

		tw += vw_ui_put(w, y0, x0 + 2 + tw, width - 6, title, vw_ui_attr(VW_C_HEADING));
		vw_ui_put(w, y0, x0 + 2 + tw, 1, " ", a);
	}
	if (footer) {
		int fw = vw_ui_width(footer);

		if (fw > width - 6)
			fw = width - 6;
		vw_ui_put(w, y0 + height - 1, x0 + width - fw - 3, fw, footer, vw_ui_attr(VW_C_DIM));
	}
	vw_text_draw(t, w, y0 + 1, x0 + 2, height - 2, width - 3);
}
