/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ui.c - terminal setup and restore, colours, glyphs, keys, width-aware text,
 * and the drawing helpers and labels the steps share. */
#include "ui.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <langinfo.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "unit.h"
#include "widgets.h"

struct vw_ui vw_ui;
volatile sig_atomic_t vw_ui_interrupted;

static attr_t attrs[VW_C_COUNT];

static const struct vw_ui_glyphs glyphs_utf8 = {
	.hline = "\u2500", .vline = "\u2502", .tl = "\u250c", .tr = "\u2510",
	.bl = "\u2514", .br = "\u2518", .up = "\u25b2", .down = "\u25bc",
	.ellipsis = "\u2026", .sep = "\u00b7", .arrow = "\u2192", .updown = "\u2191\u2193",
	.cursor = ">",
};

static const struct vw_ui_glyphs glyphs_ascii = {
	.hline = "-", .vline = "|", .tl = "+", .tr = "+", .bl = "+", .br = "+",
	.up = "^", .down = "v", .ellipsis = "...", .sep = "-", .arrow = "->",
	.updown = "Up/Dn", .cursor = ">",
};

struct color_def {
	short fg, bg;
	attr_t cattr, mattr;
};

static const struct color_def color_defs[VW_C_COUNT] = {
#define X(name, f, b, c, m) [VW_C_##name] = { f, b, c, m },
	VW_UI_COLORS(X)
#undef X
};

/* Crashes: restore the terminal and die.  SIGINT, SIGTERM and SIGHUP only
 * set a flag: the key loop sees it and quits the normal way. */
static const int fatal_signals[] = { SIGQUIT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
static const int quit_signals[] = { SIGINT, SIGTERM, SIGHUP };

/* Restore the terminal, then die of the same signal (so the shell sees it). */
static void on_fatal_signal(int sig)
{
	if (vw_ui.open && !vw_ui.headless)
		endwin();
	vw_ui.open = false;
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Wakes the key loop when a quit signal arrives: ncurses hides EINTR from
 * its read, so a flag alone would wait for the next key. */
static int wake_pipe[2] = { -1, -1 };

static void on_quit_signal(int sig)
{
	int saved = errno;

	vw_ui_interrupted = sig;
	if (wake_pipe[1] >= 0 && write(wake_pipe[1], "", 1) < 0) {
		/* full: a wake-up is pending anyway */
	}
	errno = saved;
}

static void install_signals(void)
{
	struct sigaction sa;

	if (wake_pipe[0] < 0 && pipe(wake_pipe) == 0) {
		for (int i = 0; i < 2; i++) {
			fcntl(wake_pipe[i], F_SETFL, O_NONBLOCK);
			fcntl(wake_pipe[i], F_SETFD, FD_CLOEXEC);
		}
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < VW_ARRAY_SIZE(fatal_signals); i++)
		sigaction(fatal_signals[i], &sa, NULL);
	sa.sa_handler = on_quit_signal;	/* no SA_RESTART: the read returns */
	for (size_t i = 0; i < VW_ARRAY_SIZE(quit_signals); i++)
		sigaction(quit_signals[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static void setup_colors(bool mono)
{
	const char *nc = getenv("NO_COLOR");

	vw_ui.color = !mono && !(nc && *nc) && has_colors();
	if (vw_ui.color) {
		start_color();
		if (COLORS < 8 || COLOR_PAIRS < VW_C_COUNT + 1)
			vw_ui.color = false;
	}
	if (vw_ui.color) {
		bool dflt = use_default_colors() == OK;

		for (int i = 1; i < VW_C_COUNT; i++) {
			short fg = color_defs[i].fg, bg = color_defs[i].bg;

			if (!dflt) {
				fg = fg < 0 ? COLOR_WHITE : fg;
				bg = bg < 0 ? COLOR_BLACK : bg;
			}
			init_pair((short)i, fg, bg);
		}
	}
	for (int i = 0; i < VW_C_COUNT; i++) {
		if (!vw_ui.color)
			attrs[i] = color_defs[i].mattr;
		else
			attrs[i] = color_defs[i].cattr | (i ? COLOR_PAIR(i) : 0);
	}
}

int vw_ui_open(const struct vw_ui_opts *o, struct vw_err *err)
{
	const char *cs = nl_langinfo(CODESET);

	if (vw_ui.open)
		return 0;
	memset(&vw_ui, 0, sizeof(vw_ui));
	vw_ui.utf8 = cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
	vw_ui.g = vw_ui.utf8 ? glyphs_utf8 : glyphs_ascii;
	vw_ui.headless = o->headless;
	install_signals();
	if (o->headless) {
		static const char *const terms[] = { "xterm-256color", "xterm", "vt100", "dumb" };
		char num[16];

		snprintf(num, sizeof(num), "%d", o->cols);
		setenv("COLUMNS", num, 1);
		snprintf(num, sizeof(num), "%d", o->lines);
		setenv("LINES", num, 1);
		vw_ui.out = fopen("/dev/null", "w");
		vw_ui.in = fopen("/dev/null", "r");
		if (!vw_ui.out || !vw_ui.in)
			return vw_err_set(err, -errno, _("cannot open /dev/null: %s"), strerror(errno));
		for (size_t i = 0; i < VW_ARRAY_SIZE(terms) && !vw_ui.screen; i++)
			vw_ui.screen = newterm(terms[i], vw_ui.out, vw_ui.in);
		if (!vw_ui.screen)
			return vw_err_set(err, -1, _("no terminal description found for the headless screen"));
	} else {
		const char *term = getenv("TERM");

		if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
			return vw_err_set(err, -ENOTTY, _("the wizard needs a terminal; use a command (see --help) or --script"));
		vw_ui.screen = newterm(NULL, stdout, stdin);
		if (!vw_ui.screen)
			return vw_err_set(err, -1, _("cannot use the terminal type '%s' (set TERM)"),
					  term ? term : "");
	}
	vw_ui.open = true;
	atexit(vw_ui_close);
	set_term(vw_ui.screen);
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	leaveok(stdscr, TRUE);
	curs_set(0);
	set_escdelay(50);
	setup_colors(o->mono);
	if (o->headless)
		resizeterm(o->lines, o->cols);
	return 0;
}

void vw_ui_close(void)
{
	if (!vw_ui.open)
		return;
	vw_ui.open = false;
	endwin();
	if (vw_ui.screen)
		delscreen(vw_ui.screen);
	vw_ui.screen = NULL;
	if (vw_ui.out)
		fclose(vw_ui.out);
	if (vw_ui.in)
		fclose(vw_ui.in);
	vw_ui.out = vw_ui.in = NULL;
	fflush(stdout);
}

void vw_ui_resize(int cols, int lines)
{
	resizeterm(lines, cols);
}

attr_t vw_ui_attr(enum vw_ui_color c)
{
	return c < VW_C_COUNT ? attrs[c] : A_NORMAL;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int vw_ui_getkey(int timeout_ms)
{
	int errs = 0;
	long deadline = timeout_ms >= 0 ? now_ms() + timeout_ms : 0;

	for (;;) {
		int wait = -1;

		wint_t wch;
		int r;
		struct pollfd pf[2] = { { STDIN_FILENO, POLLIN, 0 }, { wake_pipe[0], POLLIN, 0 } };

		if (vw_ui_interrupted)
			return VW_KEY_INTR;
		/* What ncurses has buffered (or can read now) first, then wait
		   for the terminal, a signal or a resize (poll is never restarted). */
		nodelay(stdscr, TRUE);
		r = wget_wch(stdscr, &wch);
		nodelay(stdscr, FALSE);
		if (r == KEY_CODE_YES) {
			switch (wch) {
			case KEY_ENTER: return VW_KEY_RET;
			case KEY_BACKSPACE: return VW_KEY_BACKSPACE;
			default: return VW_KEY_FN((int)wch);
			}
		}
		if (r == OK) {
			switch (wch) {
			case '\r': case '\n': return VW_KEY_RET;
			case 127: case 8: return VW_KEY_BACKSPACE;
			default: return (int)wch;
			}
		}
		if (timeout_ms >= 0) {
			wait = (int)(deadline - now_ms());
			if (wait <= 0)
				return VW_KEY_NONE;
		}
		if (poll(pf, wake_pipe[0] >= 0 ? 2 : 1, wait) > 0) {
			char drain[16];

			if (pf[1].revents & POLLIN)
				while (read(wake_pipe[0], drain, sizeof(drain)) > 0)
					;
			/* the terminal hung up, or keeps failing */
			if ((pf[0].revents & (POLLHUP | POLLERR | POLLNVAL)) && !(pf[0].revents & POLLIN))
				return VW_KEY_INTR;
			if ((pf[0].revents & POLLIN) && ++errs > 1000)
				return VW_KEY_INTR;
			if (!(pf[0].revents & POLLIN))
				errs = 0;
		}
	}
}

struct key_name {
	const char *name;
	int key;
};

static const struct key_name key_names[] = {
	{ "up", VW_KEY_UP }, { "down", VW_KEY_DOWN }, { "left", VW_KEY_LEFT },
	{ "right", VW_KEY_RIGHT }, { "pgup", VW_KEY_PGUP }, { "pgdn", VW_KEY_PGDN },
	{ "home", VW_KEY_HOME }, { "end", VW_KEY_END }, { "space", ' ' },
	{ "enter", VW_KEY_RET }, { "tab", VW_KEY_TAB }, { "btab", VW_KEY_BTAB },
	{ "esc", VW_KEY_ESC }, { "backspace", VW_KEY_BACKSPACE }, { "bs", VW_KEY_BACKSPACE },
	{ "del", VW_KEY_DC }, { "comma", ',' },
};

int vw_ui_key_parse(const char *name)
{
	wchar_t wc;
	mbstate_t st;
	size_t n;

	for (size_t i = 0; i < VW_ARRAY_SIZE(key_names); i++)
		if (!strcmp(name, key_names[i].name))
			return key_names[i].key;
	if ((name[0] == 'F' || name[0] == 'f') && name[1] >= '1' && name[1] <= '9') {
		int k = atoi(name + 1);

		if (k >= 1 && k <= 12)
			return VW_KEY_FN(KEY_F(k));
	}
	if (!strncmp(name, "ctrl-", 5) && name[5] && !name[6])
		return VW_KEY_CTRL(name[5]);
	memset(&st, 0, sizeof(st));
	n = mbrtowc(&wc, name, strlen(name), &st);
	if (n != (size_t)-1 && n != (size_t)-2 && n > 0 && !name[n])
		return (int)wc;
	return VW_KEY_NONE;
}

/* Decode s into wide characters; invalid bytes become '?'.  Caller frees. */
static wchar_t *widen(const char *s, size_t *out_n)
{
	size_t len = strlen(s), n = 0;
	wchar_t *w = vw_xcalloc(len + 1, sizeof(wchar_t));
	mbstate_t st;

	memset(&st, 0, sizeof(st));
	while (*s) {
		wchar_t wc;
		size_t k = mbrtowc(&wc, s, strlen(s), &st);

		if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
			memset(&st, 0, sizeof(st));
			wc = L'?';
			k = 1;
		}
		w[n++] = wc;
		s += k;
	}
	w[n] = 0;
	if (out_n)
		*out_n = n;
	return w;
}

static int wcw(wchar_t c)
{
	int w;

	if (c < 0x20 || c == 0x7f)
		return 1;	/* drawn as a blank */
	w = wcwidth(c);
	return w < 0 ? 1 : w;
}

static char *narrow(const wchar_t *w, size_t n)
{
	struct vw_buf b = VW_BUF_INIT;
	mbstate_t st;
	char mb[MB_LEN_MAX];

	memset(&st, 0, sizeof(st));
	for (size_t i = 0; i < n; i++) {
		size_t k = wcrtomb(mb, w[i], &st);

		if (k == (size_t)-1) {
			memset(&st, 0, sizeof(st));
			mb[0] = '?';
			k = 1;
		}
		vw_buf_add(&b, mb, k);
	}
	vw_buf_add(&b, "", 0);
	return vw_buf_steal(&b);
}

int vw_ui_width(const char *s)
{
	size_t n;
	wchar_t *w = widen(s, &n);
	int width = 0;

	for (size_t i = 0; i < n; i++)
		width += wcw(w[i]);
	free(w);
	return width;
}

void vw_ui_pad(struct vw_buf *out, const char *s, int width)
{
	vw_buf_adds(out, s);
	for (int w = vw_ui_width(s); w < width; w++)
		vw_buf_addc(out, ' ');
}

int vw_ui_put(WINDOW *win, int y, int x, int maxw, const char *s, attr_t a)
{
	size_t n, keep;
	wchar_t *w;
	int total = 0, used = 0, ew;

	if (maxw <= 0 || !s)
		return 0;
	w = widen(s, &n);
	for (size_t i = 0; i < n; i++) {
		if (w[i] < 0x20 || (w[i] >= 0x7f && w[i] <= 0x9f) || w[i] == 0x2028 || w[i] == 0x2029 ||
		    (w[i] >= 0x202a && w[i] <= 0x202e) || (w[i] >= 0x2066 && w[i] <= 0x2069))
			w[i] = L' ';	/* controls, C1, bidi overrides (core/text.h) */
		total += wcw(w[i]);
	}
	keep = n;
	ew = 0;
	if (total > maxw) {
		ew = vw_ui_width(vw_ui.g.ellipsis);
		if (ew > maxw)
			ew = 0;
		keep = 0;
		while (keep < n && used + wcw(w[keep]) <= maxw - ew)
			used += wcw(w[keep++]);
	} else {
		used = total;
	}
	wattrset(win, (int)a);
	if (keep)
		mvwaddnwstr(win, y, x, w, (int)keep);
	if (total > maxw && ew) {
		wchar_t *e = widen(vw_ui.g.ellipsis, NULL);

		mvwaddwstr(win, y, x + used, e);
		used += ew;
		free(e);
	}
	wattrset(win, A_NORMAL);
	free(w);
	return used;
}

int vw_ui_putf(WINDOW *win, int y, int x, int maxw, attr_t a, const char *fmt, ...)
{
	struct vw_buf b = VW_BUF_INIT;
	va_list ap;
	int r;

	va_start(ap, fmt);
	vw_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	r = vw_ui_put(win, y, x, maxw, b.data ? b.data : "", a);
	vw_buf_done(&b);
	return r;
}

void vw_ui_fill(WINDOW *win, int y, int x, int n, attr_t a)
{
	if (n <= 0)
		return;
	wattrset(win, (int)a);
	mvwhline(win, y, x, ' ', n);
	wattrset(win, A_NORMAL);
}

void vw_ui_rule(WINDOW *win, int y, int x, int n, const char *title, attr_t a)
{
	int used = 0;

	if (n <= 0)
		return;
	if (title && *title && n > 6) {
		used += vw_ui_put(win, y, x, 2, vw_ui.g.hline, a);
		used += vw_ui_put(win, y, x + used, 1, vw_ui.g.hline, a);
		used += vw_ui_put(win, y, x + used, 1, " ", a);
		used += vw_ui_put(win, y, x + used, n - used - 1, title, a | A_BOLD);
		used += vw_ui_put(win, y, x + used, 1, " ", a);
	}
	while (used < n)
		used += vw_ui_put(win, y, x + used, 1, vw_ui.g.hline, a);
}

void vw_ui_box(WINDOW *win, int y, int x, int h, int wd, attr_t a)
{
	if (h < 2 || wd < 2)
		return;
	vw_ui_put(win, y, x, 1, vw_ui.g.tl, a);
	vw_ui_rule(win, y, x + 1, wd - 2, NULL, a);
	vw_ui_put(win, y, x + wd - 1, 1, vw_ui.g.tr, a);
	for (int i = 1; i < h - 1; i++) {
		vw_ui_put(win, y + i, x, 1, vw_ui.g.vline, a);
		vw_ui_put(win, y + i, x + wd - 1, 1, vw_ui.g.vline, a);
	}
	vw_ui_put(win, y + h - 1, x, 1, vw_ui.g.bl, a);
	vw_ui_rule(win, y + h - 1, x + 1, wd - 2, NULL, a);
	vw_ui_put(win, y + h - 1, x + wd - 1, 1, vw_ui.g.br, a);
}

static void push_line(char ***v, size_t *n, const wchar_t *w, size_t len)
{
	while (len && w[len - 1] == L' ')
		len--;
	*v = vw_xreallocarray(*v, *n + 2, sizeof(char *));
	(*v)[(*n)++] = narrow(w, len);
	(*v)[*n] = NULL;
}

/* Wrap one paragraph w[0..n) (no '\n' inside) into v. */
static void wrap_para(const wchar_t *w, size_t n, int width, int indent, wchar_t *line,
		      char ***v, size_t *count)
{
	size_t len = 0, i = 0;
	int lw = 0;
	bool hasword = false;

	while (i < n && w[i] == L' ' && lw < width - 1) {	/* keep leading blanks */
		line[len++] = L' ';
		lw++;
		i++;
	}
	while (i < n && w[i] == L' ')
		i++;
	while (i < n) {
		size_t j = i, k;
		int sw = 0, ww = 0;

		while (j < n && w[j] == L' ')
			sw += wcw(w[j++]);
		if (j == n)
			break;
		for (k = j; k < n && w[k] != L' '; k++)
			ww += wcw(w[k]);
		if (lw + (hasword ? sw : 0) + ww <= width) {
			if (hasword)
				for (size_t t = i; t < j; t++)
					line[len++] = L' ';
			lw += hasword ? sw : 0;
			for (size_t t = j; t < k; t++) {
				line[len++] = w[t] < 0x20 ? L' ' : w[t];
				lw += wcw(w[t]);
			}
			hasword = true;
			i = k;
			continue;
		}
		if (hasword) {	/* the word goes to the next line */
			push_line(v, count, line, len);
			len = 0;
			for (lw = 0; lw < indent; lw++)
				line[len++] = L' ';
			hasword = false;
			i = j;
			continue;
		}
		/* a word longer than a whole line: cut it, after a comma when one fits */
		for (size_t t = j; t < k; t++) {
			if (lw + wcw(w[t]) > width && lw > indent) {
				size_t back = 0;

				while (back < len && back < (size_t)(t - j) && line[len - 1 - back] != L',')
					back++;
				if (back < len && back < (size_t)(t - j) && line[len - 1 - back] == L',' && back < len / 2) {
					/* move the part after the comma to the next line */
					push_line(v, count, line, len - back);
					memmove(line + indent, line + len - back, back * sizeof(wchar_t));
					for (int d = 0; d < indent; d++)
						line[d] = L' ';
					len = (size_t)indent + back;
					lw = indent;
					for (size_t q = (size_t)indent; q < len; q++)
						lw += wcw(line[q]);
					line[len++] = w[t] < 0x20 ? L' ' : w[t];
					lw += wcw(w[t]);
					continue;
				}
				push_line(v, count, line, len);
				len = 0;
				for (lw = 0; lw < indent; lw++)
					line[len++] = L' ';
			}
			line[len++] = w[t] < 0x20 ? L' ' : w[t];
			lw += wcw(w[t]);
		}
		hasword = true;
		i = k;
	}
	push_line(v, count, line, len);
}

size_t vw_ui_wrap(const char *s, int width, int indent, char ***lines)
{
	size_t n, count = 0, start = 0;
	wchar_t *w = widen(s ? s : "", &n);
	wchar_t *line = vw_xcalloc(n + (size_t)(indent > 0 ? indent : 0) + 2, sizeof(wchar_t));
	char **v = vw_xcalloc(1, sizeof(char *));

	if (width < 1)
		width = 1;
	if (indent < 0 || indent >= width)
		indent = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && w[i] != L'\n')
			continue;
		if (i == n && start == n && n > 0)
			break;	/* text ending in '\n': no empty last line */
		wrap_para(w + start, i - start, width, indent, line, &v, &count);
		start = i + 1;
	}
	free(line);
	free(w);
	*lines = v;
	return count;
}

char *vw_ui_dump(void)
{
	struct vw_buf b = VW_BUF_INIT;

	for (int y = 0; y < LINES; y++) {
		size_t start = b.len, end;

		for (int x = 0; x < COLS;) {
			cchar_t cc;
			wchar_t ws[CCHARW_MAX + 1];
			attr_t at;
			short pair;
			int cw;
			char *mb;

			if (mvwin_wch(curscr, y, x, &cc) == ERR || getcchar(&cc, ws, &at, &pair, NULL) == ERR ||
			    !ws[0]) {
				vw_buf_addc(&b, ' ');
				x++;
				continue;
			}
			cw = wcw(ws[0]);
			mb = narrow(ws, wcslen(ws));
			vw_buf_adds(&b, mb);
			free(mb);
			x += cw > 0 ? cw : 1;
		}
		end = b.len;
		while (end > start && b.data[end - 1] == ' ')
			end--;
		b.len = end;
		vw_buf_addc(&b, '\n');
	}
	vw_buf_add(&b, "", 0);
	return vw_buf_steal(&b);
}

/* ---- drawing helpers and labels shared by the steps ---- */

int vw_draw_para(WINDOW *w, int y, int x, int width, int max, const char *text, attr_t a)
{
	char **lines;
	size_t n = vw_ui_wrap(text, width, 0, &lines);
	int used = 0;

	for (size_t i = 0; i < n && used < max; i++, used++) {
		if (used == max - 1 && i + 1 < n) {
			/* More than fits (a translation is often longer): the
			   last line ends in an ellipsis, so nothing is lost
			   silently. */
			char *more = vw_xasprintf("%s %s", lines[i], lines[i + 1]);

			if (vw_ui_width(more) <= width) {
				free(more);
				more = vw_xasprintf("%s%s", lines[i], vw_ui.g.ellipsis);
			}
			vw_ui_put(w, y + used, x, width, more, a);
			free(more);
		} else {
			vw_ui_put(w, y + used, x, width, lines[i], a);
		}
	}
	vw_strv_free(lines);
	return used;
}

void vw_draw_list_details(WINDOW *w, const char *intro, struct vw_list *l, int list_max,
			  const char *details_title, struct vw_text *details)
{
	int H = getmaxy(w), W = getmaxx(w), y = 0, lh, rest;

	if (intro && *intro) {
		/* 3 lines hold the English intros at 80 columns; translations
		   run longer, so up to a quarter of the window. */
		y += vw_draw_para(w, y, 0, W, H / 4 > 3 ? H / 4 : 3, intro, A_NORMAL);
		y++;
	}
	rest = H - y;
	lh = (int)l->n;
	if (list_max <= 0)
		list_max = rest / 2 > 4 ? rest / 2 : 4;
	else if (H > 21)	/* 21: the body at 80x24; a taller terminal shows more of the list */
		list_max += (H - 21) / 2;
	if (lh > list_max)
		lh = list_max;
	if (lh > rest - 3)
		lh = rest - 3;
	if (lh < 1)
		lh = 1;
	vw_list_draw(l, w, y, 0, lh, W, true);
	y += lh;
	if (!details || H - y < 3)
		return;
	vw_ui_rule(w, y, 0, W, details_title, vw_ui_attr(VW_C_FRAME));
	y++;
	vw_text_draw(details, w, y, 0, H - y, W);
}

const char *vw_sev_label(enum vw_severity s)
{
	switch (s) {
	/* TRANSLATORS: severity marks in the host checks, at most 5 columns. */
	case VW_SEV_OK: return _("ok");
	case VW_SEV_INFO: return _("info");
	case VW_SEV_WARN: return _("warn");
	case VW_SEV_FIXABLE: return _("fix");
	case VW_SEV_BLOCKER: return _("stop");
	}
	return "";
}

enum vw_ui_color vw_sev_color(enum vw_severity s)
{
	switch (s) {
	case VW_SEV_OK: return VW_C_OK;
	case VW_SEV_INFO: return VW_C_INFO;
	case VW_SEV_WARN: return VW_C_WARN;
	case VW_SEV_FIXABLE: return VW_C_FIX;
	case VW_SEV_BLOCKER: return VW_C_ERROR;
	}
	return VW_C_NORMAL;
}

void vw_role_short(struct vw_buf *out, unsigned roles)
{
	const char *w[3];
	size_t n = 0;

	if (roles & VW_HOST_STORAGE)
		w[n++] = _("disks");
	if (roles & VW_HOST_NETWORK)
		w[n++] = _("network");
	if (roles & VW_HOST_INPUT)
		w[n++] = _("keyboard");
	if (!n)
		return;
	{
		struct vw_buf l = VW_BUF_INIT;

		for (size_t i = 0; i < n; i++)
			vw_buf_printf(&l, "%s%s", i ? ", " : "", w[i]);
		/* TRANSLATORS: a list row's warning; %s is "disks", "network",
		   "keyboard" joined by ", ": what the host would lose. */
		vw_buf_printf(out, _("host's %s!"), l.data);
		vw_buf_done(&l);
	}
}

void vw_role_loss(struct vw_buf *out, const struct vw_pci_dev *d)
{
	const char *why = d->host_role_why && *d->host_role_why ? d->host_role_why : "";
	struct vw_buf l = VW_BUF_INIT;

	vw_dev_label(&l, d);
	if (*d->driver)
		vw_buf_printf(&l, " (%s)", d->driver);
	if (d->boot_vga == 1)
		vw_buf_printf(out, _("%s is the display the host boots on: after the reboot the host shows "
				     "nothing on its screen, and you reach it only over SSH.\n"), l.data);
	if (d->host_role & VW_HOST_STORAGE)
		vw_buf_printf(out, _("%s holds the host's own disks%s%s: without them the host cannot run, "
				     "and does not boot again.\n"), l.data, *why ? ": " : "", why);
	if (d->host_role & VW_HOST_NETWORK)
		vw_buf_printf(out, _("%s carries the host's network%s%s: without it the host is cut off, and "
				     "this SSH session drops.\n"), l.data, *why ? ": " : "", why);
	if (d->host_role & VW_HOST_INPUT)
		vw_buf_printf(out, _("%s holds the host's only keyboard%s%s: without it you cannot type at "
				     "the host.\n"), l.data, *why ? ": " : "", why);
	vw_buf_done(&l);
}

const char *vw_group_kind_short(const struct vw_pci_dev *d)
{
	unsigned base = d->class_code >> 16, sub = d->class_code >> 8;

	/* TRANSLATORS: short kinds of devices in a list row: network card,
	   disk controller, USB controller. */
	if (base == 0x02)
		return _("NIC");
	if (base == 0x01)
		return _("disks");
	if (sub == 0x0c03)
		return _("USB");
	return NULL;
}

void vw_group_losses(struct vw_buf *out, const struct vw_facts *f, const struct vw_unit *u)
{
	static const char *const what[3] = {
		N_("Network cards: %s. If the host uses one, it loses that network, and an SSH session "
		   "through it drops."),
		N_("Disk controllers: %s. The host loses every disk on them."),
		N_("USB controllers: %s. The host loses the keyboards and disks plugged into them."),
	};

	for (int kind = 0; kind < 3; kind++) {
		struct vw_buf l = VW_BUF_INIT;

		for (size_t k = 0; k < u->n; k++) {
			const struct vw_pci_dev *d = &f->devs[u->m[k].dev];
			unsigned base = d->class_code >> 16, sub = d->class_code >> 8;
			int dk = base == 0x02 ? 0 : base == 0x01 ? 1 : sub == 0x0c03 ? 2 : -1;

			if (u->m[k].why != VW_UNIT_GROUP || d->host_role || dk != kind)
				continue;
			vw_buf_printf(&l, "%s%s", l.len ? ", " : "", d->addr);
			if (*d->driver)
				vw_buf_printf(&l, " (%s)", d->driver);
		}
		if (l.len) {
			vw_buf_printf(out, _(what[kind]), l.data);
			vw_buf_adds(out, "\n");
		}
		vw_buf_done(&l);
	}
}

void vw_dev_label(struct vw_buf *out, const struct vw_pci_dev *d)
{
	const char *v = d->vendor_name, *n = d->device_name;

	vw_buf_printf(out, "%s ", d->addr);
	/* "NVIDIA Corporation" says no more than "NVIDIA" in a list. */
	if (vw_startswith(v, "NVIDIA"))
		v = "NVIDIA";
	else if (vw_startswith(v, "Advanced Micro Devices"))
		v = "AMD";
	else if (vw_startswith(v, "Intel Corporation"))
		v = "Intel";
	if (*n)
		vw_buf_printf(out, "%s %s", *v ? v : "", n);
	else
		vw_buf_printf(out, "[%04x:%04x]", d->vendor, d->device);
}
