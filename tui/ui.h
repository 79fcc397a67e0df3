/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ui.h - the terminal: setup and restore, colours, glyphs, keys, and text
 * drawn by display width; the drawing helpers and labels the steps share.
 *
 * Contracts:
 *  - vw_ui_open() takes the terminal (or, headless, a virtual one of a fixed
 *    size that nothing is shown on); vw_ui_close() gives it back and may be
 *    called any number of times, from atexit() and from the fatal-signal
 *    handlers it installs, so every exit path restores the terminal.
 *  - Text is the locale's multibyte encoding (what gettext returns).  Every
 *    width here is in display columns (wcwidth), never bytes.
 *  - Keys are ints: a character is its code point (< 0x110000), a function
 *    key is VW_KEY_FN(KEY_xxx) (see the VW_KEY_* names).
 */
#ifndef VW_UI_H
#define VW_UI_H

#include <stdbool.h>
#include <signal.h>
#include <stddef.h>
#include <curses.h>

#include "facts.h"
#include "findings.h"
#include "vw.h"

struct vw_list;
struct vw_text;
struct vw_unit;

/* Smallest terminal the wizard draws in. */
#define VW_UI_MIN_COLS 80
#define VW_UI_MIN_LINES 24

#define VW_KEY_FN(k) (0x200000 + (k))
#define VW_KEY_UP VW_KEY_FN(KEY_UP)
#define VW_KEY_DOWN VW_KEY_FN(KEY_DOWN)
#define VW_KEY_LEFT VW_KEY_FN(KEY_LEFT)
#define VW_KEY_RIGHT VW_KEY_FN(KEY_RIGHT)
#define VW_KEY_PGUP VW_KEY_FN(KEY_PPAGE)
#define VW_KEY_PGDN VW_KEY_FN(KEY_NPAGE)
#define VW_KEY_HOME VW_KEY_FN(KEY_HOME)
#define VW_KEY_END VW_KEY_FN(KEY_END)
#define VW_KEY_BTAB VW_KEY_FN(KEY_BTAB)
#define VW_KEY_BACKSPACE VW_KEY_FN(KEY_BACKSPACE)
#define VW_KEY_DC VW_KEY_FN(KEY_DC)
#define VW_KEY_ENTER VW_KEY_FN(KEY_ENTER)
#define VW_KEY_F1 VW_KEY_FN(KEY_F(1))
#define VW_KEY_RESIZE VW_KEY_FN(KEY_RESIZE)
#define VW_KEY_ESC 0x1b
#define VW_KEY_TAB '\t'
#define VW_KEY_RET '\n'
#define VW_KEY_CTRL(c) ((c) & 0x1f)
#define VW_KEY_NONE (-1)
#define VW_KEY_INTR VW_KEY_FN(0776)	/* SIGINT/SIGTERM/SIGHUP, or the terminal is gone */

/* Colour roles: name, foreground, background, attribute with colours,
 * attribute in monochrome (NO_COLOR, or a terminal without colours). */
#define VW_UI_COLORS(X) \
	X(NORMAL, -1, -1, A_NORMAL, A_NORMAL) \
	X(TITLE, COLOR_WHITE, COLOR_BLUE, A_BOLD, A_REVERSE) \
	X(STATUS, COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE) \
	X(STATUSKEY, COLOR_WHITE, COLOR_CYAN, A_BOLD, A_REVERSE | A_BOLD) \
	X(CURSOR, COLOR_BLACK, COLOR_WHITE, A_NORMAL, A_REVERSE) \
	X(HEADING, COLOR_CYAN, -1, A_BOLD, A_BOLD) \
	X(DIM, -1, -1, A_DIM, A_DIM) \
	X(OK, COLOR_GREEN, -1, A_NORMAL, A_NORMAL) \
	X(INFO, COLOR_CYAN, -1, A_NORMAL, A_NORMAL) \
	X(WARN, COLOR_YELLOW, -1, A_BOLD, A_BOLD) \
	X(FIX, COLOR_MAGENTA, -1, A_BOLD, A_BOLD) \
	X(ERROR, COLOR_RED, -1, A_BOLD, A_BOLD | A_UNDERLINE) \
	X(ADDED, COLOR_GREEN, -1, A_NORMAL, A_BOLD) \
	X(REMOVED, COLOR_RED, -1, A_NORMAL, A_DIM) \
	X(HUNK, COLOR_CYAN, -1, A_NORMAL, A_UNDERLINE) \
	X(FRAME, COLOR_BLUE, -1, A_NORMAL, A_NORMAL) \
	X(FIELD, -1, -1, A_UNDERLINE, A_UNDERLINE) \
	X(DIALOG, COLOR_WHITE, COLOR_BLUE, A_NORMAL, A_NORMAL) \
	X(BUTTON, COLOR_BLUE, COLOR_WHITE, A_BOLD, A_REVERSE)

enum vw_ui_color {
#define X(name, fg, bg, cattr, mattr) VW_C_##name,
	VW_UI_COLORS(X)
#undef X
	VW_C_COUNT
};

/* Glyphs: Unicode when the locale is UTF-8, ASCII otherwise. */
struct vw_ui_glyphs {
	const char *hline, *vline, *tl, *tr, *bl, *br;
	const char *up, *down;		/* "more above / below" marks */
	const char *ellipsis;
	const char *sep;		/* between items of a line: "·" or "-" */
	const char *arrow;		/* "goes to", "now" */
	const char *updown;		/* the arrow keys in the status line */
	const char *cursor;		/* the list cursor, one column */
};

struct vw_ui_opts {
	bool headless;		/* virtual screen: no terminal is touched */
	int cols, lines;	/* headless size */
	bool mono;		/* force monochrome */
};

struct vw_ui {
	bool open;
	bool headless;
	bool utf8;
	bool color;
	struct vw_ui_glyphs g;
	SCREEN *screen;
	FILE *out, *in;		/* headless: /dev/null */
};

extern struct vw_ui vw_ui;
/* The quit signal that arrived (SIGINT, SIGTERM, SIGHUP), else 0. */
extern volatile sig_atomic_t vw_ui_interrupted;

/* Take the terminal.  Returns 0, or -1 with err set (no terminal, unknown
 * TERM).  setlocale() must have been called. */
int vw_ui_open(const struct vw_ui_opts *o, struct vw_err *err);
/* Give the terminal back (endwin); safe to call again and from signals. */
void vw_ui_close(void);
/* Headless: pretend the terminal changed size. */
void vw_ui_resize(int cols, int lines);

attr_t vw_ui_attr(enum vw_ui_color c);

/* Next key, waiting at most timeout_ms (-1: for ever).  Returns
 * VW_KEY_RESIZE after a resize, VW_KEY_INTR after a quit signal or when the
 * terminal is gone, VW_KEY_NONE when the time ran out. */
int vw_ui_getkey(int timeout_ms);
/* Parse a key name as used by --script ("down", "space", "F1", "x").
 * Returns the key or VW_KEY_NONE. */
int vw_ui_key_parse(const char *name);

/* Display width of s (invalid bytes count as one column each). */
int vw_ui_width(const char *s);
/* Append s to out, padded with blanks to width display columns. */
void vw_ui_pad(struct vw_buf *out, const char *s, int width);
/* Draw s at (y, x) in at most maxw columns, clipped with an ellipsis.
 * Returns the columns used.  Newlines and control characters are drawn as
 * spaces. */
int vw_ui_put(WINDOW *w, int y, int x, int maxw, const char *s, attr_t a);
/* Same, with printf formatting. */
int vw_ui_putf(WINDOW *w, int y, int x, int maxw, attr_t a, const char *fmt, ...) VW_PRINTF(6, 7);
/* Fill columns [x, x+n) of line y with blanks in attribute a. */
void vw_ui_fill(WINDOW *w, int y, int x, int n, attr_t a);
/* A horizontal rule with an optional title: "── Title ────". */
void vw_ui_rule(WINDOW *w, int y, int x, int n, const char *title, attr_t a);
/* A box frame. */
void vw_ui_box(WINDOW *w, int y, int x, int h, int wd, attr_t a);

/* Wrap s into lines of at most width columns (breaking at blanks, hard
 * breaks at '\n'; a word longer than a line is cut).  Continuation lines
 * of a paragraph start with indent blanks.  Returns the line count; *lines
 * is a NULL-terminated array (caller frees with vw_strv_free). */
size_t vw_ui_wrap(const char *s, int width, int indent, char ***lines);

/* Dump the screen as text lines (UTF-8 or the locale's encoding), trailing
 * blanks removed, one '\n' after each line.  Caller frees. */
char *vw_ui_dump(void);

/* ---- drawing helpers and labels shared by the steps ---- */

/* Wrapped text from line y; at most max lines, the last one ending in an
 * ellipsis when the text is longer; returns the lines used. */
int vw_draw_para(WINDOW *w, int y, int x, int width, int max, const char *text, attr_t a);
/* The usual step layout: an intro paragraph, the list, a rule titled
 * details_title and the details text below it.  The list gets at most
 * list_max lines (0: about half of what is left). */
void vw_draw_list_details(WINDOW *w, const char *intro, struct vw_list *l, int list_max,
			  const char *details_title, struct vw_text *details);

/* Short translated names for display. */
const char *vw_sev_label(enum vw_severity s);		/* "ok", "fix", ... */
enum vw_ui_color vw_sev_color(enum vw_severity s);
/* What the host needs the devices for (enum vw_host_role bits), in a few
 * words for a list row: "host disks, network". */
void vw_role_short(struct vw_buf *out, unsigned roles);
/* One paragraph per role of d: the device, what the host uses it for
 * (host_role_why) and what losing it means. */
void vw_role_loss(struct vw_buf *out, const struct vw_pci_dev *d);
/* For the devices u's IOMMU groups bring along that the host may use
 * though no role was found (network, storage and USB controllers): one
 * line per kind, their addresses and what losing them would mean.
 * vw_group_kind_short: "NIC", "disks", "USB" or NULL. */
void vw_group_losses(struct vw_buf *out, const struct vw_facts *f, const struct vw_unit *u);
const char *vw_group_kind_short(const struct vw_pci_dev *d);
/* "0000:09:00.0 NVIDIA GA102 [GeForce RTX 3090]" style label of a device. */
void vw_dev_label(struct vw_buf *out, const struct vw_pci_dev *d);

#endif
