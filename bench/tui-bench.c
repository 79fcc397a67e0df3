/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tui-bench - how fast the wizard draws, and how little it sends, measured
 * in a pseudo-terminal against references run the same way in the same run.
 *
 *	tui-bench VFIOWIZ [RUNS]
 *
 * 1. Time to the first full frame: from fork to the moment the terminal has
 *    received the key line (drawn last).  References: `vfiowiz --demo check`
 *    (the same probe, no terminal) to its exit, and `dialog --menu` to its
 *    first full frame (when dialog is installed).
 * 2. Bytes sent to the terminal for one cursor move in a list, against the
 *    bytes of a full frame (the first one, and a Ctrl-L repaint), next to
 *    dialog --menu doing the same.  Target: at most a tenth of a full frame.
 *
 * The terminal is 80x24, TERM=xterm-256color, LC_ALL=C.UTF-8; the demo host
 * comes from $VFIOWIZ_DEMO or the build tree.  A key's output is read until
 * the terminal has been quiet for 300 ms: this is a measurement, not a test.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define QUIET_MS 300
#define KEY_DOWN "\033OB"	/* xterm application mode (keypad on) */

struct term {
	pid_t pid;
	int fd;
	char *buf;
	size_t len, cap;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void append(struct term *t, const char *p, size_t n)
{
	if (t->len + n + 1 > t->cap) {
		t->cap = (t->len + n + 1) * 2;
		t->buf = realloc(t->buf, t->cap);
		if (!t->buf)
			die("realloc");
	}
	memcpy(t->buf + t->len, p, n);
	t->len += n;
	t->buf[t->len] = '\0';
}

static int spawn(struct term *t, char *const argv[])
{
	struct winsize ws = { .ws_row = 24, .ws_col = 80 };

	memset(t, 0, sizeof(*t));
	t->pid = forkpty(&t->fd, NULL, NULL, &ws);
	if (t->pid < 0)
		die("forkpty");
	if (t->pid == 0) {
		setenv("TERM", "xterm-256color", 1);
		setenv("LC_ALL", "C.UTF-8", 1);
		unsetenv("LANGUAGE");
		unsetenv("NO_COLOR");
		execvp(argv[0], argv);
		_exit(127);
	}
	return 0;
}

/* Read until marker shows (or EOF / 10 s); returns ms since start. */
static double read_until(struct term *t, const char *marker, double start)
{
	char chunk[65536];

	for (;;) {
		struct pollfd pf = { t->fd, POLLIN, 0 };
		ssize_t n;

		if (marker && t->buf && strstr(t->buf, marker))
			return now_ms() - start;
		if (now_ms() - start > 10000)
			return -1;
		if (poll(&pf, 1, 100) <= 0)
			continue;
		n = read(t->fd, chunk, sizeof(chunk));
		if (n <= 0)
			return marker ? -1 : now_ms() - start;
		append(t, chunk, (size_t)n);
	}
}

/* Read until quiet for QUIET_MS; returns the bytes read. */
static size_t drain(struct term *t)
{
	char chunk[65536];
	size_t before = t->len;

	for (;;) {
		struct pollfd pf = { t->fd, POLLIN, 0 };
		ssize_t n;

		if (poll(&pf, 1, QUIET_MS) <= 0)
			break;
		n = read(t->fd, chunk, sizeof(chunk));
		if (n <= 0)
			break;
		append(t, chunk, (size_t)n);
	}
	return t->len - before;
}

/* Read for ms; returns the bytes read. */
static size_t read_for(struct term *t, double ms)
{
	char chunk[65536];
	size_t before = t->len;
	double end = now_ms() + ms;

	for (;;) {
		struct pollfd pf = { t->fd, POLLIN, 0 };
		double left = end - now_ms();
		ssize_t n;

		if (left <= 0 || poll(&pf, 1, (int)left + 1) <= 0)
			break;
		n = read(t->fd, chunk, sizeof(chunk));
		if (n <= 0)
			break;
		append(t, chunk, (size_t)n);
	}
	return t->len - before;
}

/* Send k; *now gets what came within 60 ms (the cursor move itself), the
 * return value everything until the terminal was quiet (the details panes
 * follow the cursor once the keys pause). */
static size_t key2(struct term *t, const char *k, size_t *now)
{
	size_t n = strlen(k), a;

	if (write(t->fd, k, n) != (ssize_t)n)
		die("write");
	a = read_for(t, 60);
	if (now)
		*now = a;
	return a + drain(t);
}

static size_t key(struct term *t, const char *k)
{
	return key2(t, k, NULL);
}

static void finish(struct term *t)
{
	int st;

	kill(t->pid, SIGTERM);
	drain(t);
	waitpid(t->pid, &st, 0);
	close(t->fd);
	free(t->buf);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void stats(const char *what, double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	printf("  %-46s median %7.1f ms   min %7.1f ms   max %7.1f ms\n", what, v[n / 2], v[0], v[n - 1]);
}

static char **menu_argv(void)
{
	static char *argv[64];
	static char tags[10][4];
	static char items[10][32];
	int k = 0;

	argv[k++] = "dialog";
	argv[k++] = "--menu";
	argv[k++] = "Pick one";
	argv[k++] = "24";
	argv[k++] = "80";
	argv[k++] = "16";
	for (int i = 0; i < 10; i++) {
		snprintf(tags[i], sizeof(tags[i]), "%d", i + 1);
		snprintf(items[i], sizeof(items[i]), "menu item number %d", i + 1);
		argv[k++] = tags[i];
		argv[k++] = items[i];
	}
	argv[k] = NULL;
	return argv;
}

static bool have_dialog(void)
{
	return system("command -v dialog >/dev/null 2>&1") == 0;
}

int main(int argc, char **argv)
{
	const char *bin = argc > 1 ? argv[1] : "./vfiowiz";
	int runs = argc > 2 ? atoi(argv[2]) : 20;
	char *wiz[] = { (char *)bin, "--demo", NULL };
	char *check[] = { (char *)bin, "--demo", "check", NULL };
	double *t_wiz = calloc((size_t)runs, sizeof(double));
	double *t_check = calloc((size_t)runs, sizeof(double));
	double *t_dialog = calloc((size_t)runs, sizeof(double));
	bool dlg = have_dialog();
	struct term t;

	if (runs < 1 || !t_wiz || !t_check || !t_dialog) {
		fprintf(stderr, "usage: tui-bench VFIOWIZ [RUNS]\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	printf("tui-bench: %s, %d runs, 80x24, TERM=xterm-256color\n\n", bin, runs);
	printf("1. Time to the first full frame\n");
	for (int i = 0; i < runs; i++) {
		double s = now_ms();

		spawn(&t, wiz);
		t_wiz[i] = read_until(&t, "quit", s);
		finish(&t);
		s = now_ms();
		spawn(&t, check);
		t_check[i] = read_until(&t, NULL, s);
		finish(&t);
		if (dlg) {
			s = now_ms();
			spawn(&t, menu_argv());
			t_dialog[i] = read_until(&t, "Cancel", s);
			finish(&t);
		}
	}
	stats("vfiowiz --demo (wizard, first frame)", t_wiz, runs);
	stats("reference: vfiowiz --demo check (to exit)", t_check, runs);
	if (dlg)
		stats("reference: dialog --menu (first frame)", t_dialog, runs);

	printf("\n2. Bytes sent to the terminal for one line down in a list\n");
	printf("   (at once: within 60 ms, the list itself; in all: once the details pane followed)\n");
	{
		static const struct { const char *step, *what; } lists[] = {
			{ "checks", "host checks (findings)" },
			{ "gpu", "GPU selection" },
			{ "isolation", "host driver isolation" },
			{ "vm", "VM configuration (fields)" },
			{ "verify", "troubleshooting" },
		};
		size_t first, redraw;
		double s = now_ms();

		spawn(&t, wiz);
		read_until(&t, "quit", s);
		drain(&t);
		first = t.len;
		redraw = key(&t, "\014");	/* Ctrl-L: everything again */
		finish(&t);
		printf("  vfiowiz: first frame %zu bytes, Ctrl-L repaint %zu bytes\n", first, redraw);
		for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
			char *av[] = { (char *)bin, "--demo", "--start-at", (char *)lists[i].step, NULL };
			size_t now, all;

			s = now_ms();
			spawn(&t, av);
			read_until(&t, "quit", s);
			drain(&t);
			all = key2(&t, KEY_DOWN, &now);
			finish(&t);
			printf("  vfiowiz: %-28s at once %4zu bytes (%4.1f%% of a full frame), in all %4zu (%4.1f%%)\n",
			       lists[i].what, now, 100.0 * now / first, all, 100.0 * all / first);
		}
	}
	if (dlg) {
		size_t first, down;
		double s = now_ms();

		spawn(&t, menu_argv());
		read_until(&t, "Cancel", s);
		drain(&t);
		first = t.len;
		down = key(&t, KEY_DOWN);
		finish(&t);
		printf("  reference: dialog --menu: first frame %zu bytes, one line down %zu bytes (%.1f%%)\n", first,
		       down, 100.0 * down / first);
	}
	free(t_wiz);
	free(t_check);
	free(t_dialog);
	return 0;
}
