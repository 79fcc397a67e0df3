/* SPDX-License-Identifier: GPL-2.0-or-later */
/* widgets.h - the few reusable pieces the steps are built from.
 *
 * Widgets hold state only; they draw into a rectangle of a window the caller
 * gives them every frame (so a resize needs nothing but a redraw) and take
 * keys through *_key(), which says whether the key was used.  Strings given
 * to widgets are copied; *_done() frees what a widget owns.
 *
 *  - vw_field: one line of editable text, optionally masked (passwords).
 *  - vw_list: a list of items with check marks, radio marks, values to cycle
 *    through and text fields, a cursor and scrolling; the step draws the
 *    details of the current item next to it.
 *  - vw_text: scrollable text, paragraphs wrapped to the width at draw time.
 *  - vw_wdiff: unified diffs of several files, coloured, with hunk and file
 *    navigation and an accept/skip mark per file.
 *  - vw_dialog: a modal confirm dialog with buttons; vw_help draws a help
 *    overlay around a vw_text.
 */
#ifndef VW_WIDGETS_H
#define VW_WIDGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <wchar.h>

#include "sysroot.h"
#include "ui.h"

/* What a *_key() function did with a key. */
enum vw_wkey {
	VW_W_IGNORED = 0,	/* not for this widget */
	VW_W_MOVED,		/* cursor or scroll position changed */
	VW_W_CHANGED,		/* a value changed (tick, radio, cycle, text) */
	VW_W_CHOSEN,		/* dialogs: a button was chosen */
};

/* ---- text field ---- */

struct vw_field {
	wchar_t *text;		/* NUL-terminated */
	size_t len, cap, cur;	/* in characters */
	size_t maxlen;		/* 0: unlimited */
	bool masked;
	bool fresh;		/* just arrived at: the first character typed
				   replaces the text (an edit key keeps it) */
};

void vw_field_init(struct vw_field *f, const char *value, size_t maxlen, bool masked);
void vw_field_done(struct vw_field *f);
void vw_field_set(struct vw_field *f, const char *value);
/* The text in the locale's encoding; caller frees. */
char *vw_field_get(const struct vw_field *f);
/* Draw in width columns; focused shows the cursor cell in reverse. */
void vw_field_draw(const struct vw_field *f, WINDOW *w, int y, int x, int width, bool focused);
/* Printable characters, Left/Right/Home/End, Backspace, Delete, Ctrl-U. */
enum vw_wkey vw_field_key(struct vw_field *f, int key);

/* ---- list ---- */

enum vw_item_kind {
	VW_ITEM_HEADING,	/* a caption; the cursor skips it */
	VW_ITEM_TEXT,		/* a line the cursor can rest on */
	VW_ITEM_CHECK,		/* [x] label */
	VW_ITEM_RADIO,		/* (*) label, one on per radio group */
	VW_ITEM_CYCLE,		/* label: <value>, Space picks the next value */
	VW_ITEM_FIELD,		/* label: [text field] */
};

struct vw_item {
	enum vw_item_kind kind;
	int tag;		/* the step's own id */
	char *label;
	char *note;		/* right-aligned, dimmed; NULL for none */
	enum vw_ui_color color;	/* colour of the mark (or the whole line) */
	char *mark;		/* text before the label for TEXT items ("ok") */
	bool on;		/* CHECK, RADIO */
	int group;		/* RADIO */
	bool disabled;		/* shown dimmed, cannot be changed */
	char **values;		/* CYCLE: the choices (owned), nvalues of them */
	size_t nvalues, value;
	struct vw_field field;	/* FIELD */
	int label_width;	/* FIELD, CYCLE: pad labels to this width */
};

struct vw_list {
	struct vw_item *v;
	size_t n, cap;
	size_t cur, top;
	int rows;		/* height at the last draw, for paging */
};

void vw_list_init(struct vw_list *l);
void vw_list_done(struct vw_list *l);
/* Remove the items, keep the cursor position when it is still valid. */
void vw_list_clear(struct vw_list *l);
/* Append an item (label copied); returns it for further settings.  The
 * pointer is valid until the next add. */
struct vw_item *vw_list_add(struct vw_list *l, enum vw_item_kind kind, int tag, const char *label);
void vw_item_note(struct vw_item *it, const char *note);
void vw_item_mark(struct vw_item *it, const char *mark, enum vw_ui_color c);
/* CYCLE values (copied). */
void vw_item_values(struct vw_item *it, const char *const *values, size_t n, size_t cur);
struct vw_item *vw_list_current(struct vw_list *l);	/* NULL when empty */
struct vw_item *vw_list_find(struct vw_list *l, int tag);
/* Put the cursor on the item with tag (first selectable one when absent). */
void vw_list_select(struct vw_list *l, int tag);
/* Switch a radio item on and the rest of its group off. */
void vw_list_radio(struct vw_list *l, struct vw_item *it);
/* Pad FIELD and CYCLE labels to the widest of them. */
void vw_list_align(struct vw_list *l);
void vw_list_draw(struct vw_list *l, WINDOW *w, int y, int x, int h, int width, bool focused);
/* Up/Down/j/k/PgUp/PgDn/Home/End move; Space ticks, picks the radio or
 * the next value; Left/Right cycle values; a FIELD under the cursor takes
 * printable keys. */
enum vw_wkey vw_list_key(struct vw_list *l, int key);
/* Whether the item under the cursor is a text field (keys like q go to it). */
bool vw_list_editing(const struct vw_list *l);

/* ---- scrollable text ---- */

struct vw_para {
	char *text;
	enum vw_ui_color color;
	int indent;		/* hanging indent of continuation lines */
	bool pre;		/* no wrapping: clipped, as for commands and output */
};

struct vw_text {
	struct vw_para *p;
	size_t np, cap;
	size_t top;		/* first visible line */
	int rows;
	/* the wrapped lines, for the width they were made for */
	char **lines;
	enum vw_ui_color *colors;
	size_t nlines;
	int wrapped_for;
};

void vw_text_init(struct vw_text *t);
void vw_text_done(struct vw_text *t);
void vw_text_clear(struct vw_text *t);	/* keeps the scroll position */
void vw_text_add(struct vw_text *t, enum vw_ui_color c, int indent, const char *s);
void vw_text_addf(struct vw_text *t, enum vw_ui_color c, int indent, const char *fmt, ...) VW_PRINTF(4, 5);
void vw_text_pre(struct vw_text *t, enum vw_ui_color c, const char *s);	/* one paragraph a line */
/* Lines the text takes at width (after wrapping). */
size_t vw_text_height(struct vw_text *t, int width);
void vw_text_draw(struct vw_text *t, WINDOW *w, int y, int x, int h, int width);
enum vw_wkey vw_text_key(struct vw_text *t, int key);

/* ---- diff viewer ---- */

struct vw_wdiff_file {
	char *title;		/* "etc/modprobe.d/vfiowiz.conf" */
	char *note;		/* "new file", why it changes */
	char *diff;		/* unified diff text, or a message when secret */
	bool *accept;		/* the mark (owned by the caller) */
};

struct vw_wdiff_line {
	size_t file;
	enum { DL_FILE, DL_NOTE, DL_META, DL_HUNK, DL_ADD, DL_DEL, DL_CTX, DL_BLANK } kind;
	const char *s;		/* into the file's text, len bytes */
	size_t len;
};

struct vw_wdiff {
	struct vw_wdiff_file *f;
	size_t nf;
	struct vw_wdiff_line *l;
	size_t nl;
	size_t cur, top;
	int rows;
};

void vw_wdiff_init(struct vw_wdiff *d);
void vw_wdiff_done(struct vw_wdiff *d);
/* Add a file (strings copied; accept stays the caller's). */
void vw_wdiff_add(struct vw_wdiff *d, const char *title, const char *note, const char *diff, bool *accept);
void vw_wdiff_draw(struct vw_wdiff *d, WINDOW *w, int y, int x, int h, int width);
/* Up/Down/PgUp/PgDn/Home/End scroll, n/p next/previous hunk, ]/[ next/
 * previous file, Space accepts or skips the file under the cursor when its
 * header is in view (else it brings the header into view), a/s
 * accept or skip all. */
enum vw_wkey vw_wdiff_key(struct vw_wdiff *d, int key);
size_t vw_wdiff_current_file(const struct vw_wdiff *d);

/* ---- dialog ---- */

#define VW_DIALOG_MAX_BUTTONS 3

struct vw_dialog {
	bool open;
	int id;			/* who asked (the runner routes the answer) */
	char *title, *text;
	char *buttons[VW_DIALOG_MAX_BUTTONS];
	int nbuttons, sel, cancel;	/* cancel: the button Esc means */
	bool danger;		/* the first button is risky: start on the last */
};

/* Open a dialog (strings copied; buttons already translated). */
void vw_dialog_open(struct vw_dialog *d, int id, const char *title, const char *text,
		    const char *const *buttons, int nbuttons, int cancel);
void vw_dialog_close(struct vw_dialog *d);
void vw_dialog_draw(const struct vw_dialog *d, WINDOW *w);
/* Left/Right/Tab move between buttons, Enter chooses (returns VW_W_CHOSEN
 * with d->sel the button), Esc chooses the cancel button. */
enum vw_wkey vw_dialog_key(struct vw_dialog *d, int key);

/* A framed overlay with a title over most of the window, holding t. */
void vw_overlay_draw(struct vw_text *t, WINDOW *w, const char *title, const char *footer);

#endif
