/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-width.c - the TUI's text helpers with translated labels: display
 * widths (wcswidth, never bytes), padding, clipping with an ellipsis,
 * wrapping and a list in a narrow column, with Italian, Spanish and French
 * accents, combining marks and double-width characters.  Nothing may break
 * a column or cut a multibyte character.  Runs on a headless screen. */
#include "testutil.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "ui.h"
#include "widgets.h"

#define COLS_ 80
#define LINES_ 24

static const char *const labels[] = {
	"Configurazione della macchina virtuale",
	"Configuración de la máquina virtual",
	"Vérifications de l'hôte : périphériques",
	"仮想マシンの設定 (VM)",
	"ＧＰＵ の選択 ａｂｃ",
	"e\xcc\x81te\xcc\x81 a\xcc\x80 l'o\xcc\x82te",	/* combining accents: "été à l'ôte" */
};

/* Display width of a multibyte string; -1 when it is not valid text. */
static int mbwidth(const char *s)
{
	size_t n = mbstowcs(NULL, s, 0);
	wchar_t *w;
	int r;

	if (n == (size_t)-1)
		return -1;
	w = calloc(n + 1, sizeof(*w));
	assert_non_null(w);
	mbstowcs(w, s, n + 1);
	r = wcswidth(w, n);
	free(w);
	return r;
}

/* Byte length of the first character of s. */
static size_t mblen1(const char *s)
{
	mbstate_t st;
	size_t k;

	memset(&st, 0, sizeof(st));
	k = mbrtowc(NULL, s, strlen(s), &st);
	assert_true(k != (size_t)-1 && k != (size_t)-2);
	return k ? k : 1;
}

/* Line y of the screen as drawn (trailing blanks removed); caller frees. */
static char *screen_line(int y)
{
	char *dump, *p, *nl, *line;

	wnoutrefresh(stdscr);
	doupdate();
	dump = vw_ui_dump();
	p = dump;
	for (int i = 0; i < y; i++) {
		p = strchr(p, '\n');
		assert_non_null(p);
		p++;
	}
	nl = strchr(p, '\n');
	line = vw_xstrndup(p, nl ? (size_t)(nl - p) : strlen(p));
	free(dump);
	return line;
}

/* The display column where the first c (an ASCII byte) of line sits. */
static int column_of(const char *line, char c)
{
	const char *at = strchr(line, c);
	char *head;
	int w;

	assert_non_null(at);
	head = vw_xstrndup(line, (size_t)(at - line));
	w = mbwidth(head);
	free(head);
	return w;
}

static int setup(void **unused)
{
	struct vw_ui_opts o = { .headless = true, .cols = COLS_, .lines = LINES_, .mono = true };
	struct vw_err err = { 0 };

	(void)unused;
	if (!setlocale(LC_ALL, "C.UTF-8") && !setlocale(LC_ALL, "C.utf8"))
		return -1;
	if (vw_ui_open(&o, &err) < 0) {
		print_error("%s\n", err.msg);
		return -1;
	}
	return vw_ui.utf8 ? 0 : -1;
}

static int teardown(void **unused)
{
	(void)unused;
	vw_ui_close();
	return 0;
}

static void test_width(void **unused)
{
	(void)unused;
	for (size_t i = 0; i < VW_ARRAY_SIZE(labels); i++)
		assert_int_equal(vw_ui_width(labels[i]), mbwidth(labels[i]));
	/* The point of it all: bytes are not columns. */
	assert_int_equal(vw_ui_width("Configuración de la máquina virtual"), 35);
	assert_true(strlen("Configuración de la máquina virtual") > 35);
	assert_int_equal(vw_ui_width("仮想マシン"), 10);
}

static void test_pad(void **unused)
{
	(void)unused;
	for (size_t i = 0; i < VW_ARRAY_SIZE(labels); i++)
		for (int w = 0; w <= 45; w++) {
			struct vw_buf b = VW_BUF_INIT;
			int lw = mbwidth(labels[i]);

			vw_ui_pad(&b, labels[i], w);
			assert_non_null(b.data);
			assert_memory_equal(b.data, labels[i], strlen(labels[i]));
			assert_int_equal(mbwidth(b.data), w > lw ? w : lw);
			vw_buf_done(&b);
		}
}

/* Every label in every width from 1 to wider than itself, at column 3,
 * with a "|" drawn right after the room it was given. */
static void test_clip(void **unused)
{
	(void)unused;
	for (size_t i = 0; i < VW_ARRAY_SIZE(labels); i++) {
		const char *s = labels[i];
		int lw = mbwidth(s);

		for (int maxw = 1; maxw <= lw + 2; maxw++) {
			char *line, *text;
			size_t tl;
			int used;

			werase(stdscr);
			used = vw_ui_put(stdscr, 0, 3, maxw, s, A_NORMAL);
			vw_ui_put(stdscr, 0, 3 + maxw, 1, "|", A_NORMAL);
			line = screen_line(0);
			assert_true(used <= maxw);
			assert_true(mbwidth(line) >= 0);	/* no character cut in two */
			assert_int_equal(column_of(line, '|'), 3 + maxw);
			text = vw_xstrndup(line + 3, (size_t)(strchr(line, '|') - line - 3));
			vw_strtrim(text);
			tl = strlen(text);
			if (lw <= maxw) {
				assert_string_equal(text, s);
				assert_int_equal(used, lw);
			} else {
				const char *ell = vw_ui.g.ellipsis;
				size_t el = strlen(ell), kept;

				/* clipped: a prefix of whole characters, then "…" */
				assert_true(tl >= el);
				assert_string_equal(text + tl - el, ell);
				kept = tl - el;
				assert_memory_equal(text, s, kept);
				assert_true(mbwidth(text) <= maxw);
				/* and as much as fits: the next character would not */
				if (kept < strlen(s)) {
					char *more = vw_xstrndup(s, kept + mblen1(s + kept));

					assert_true(mbwidth(more) + mbwidth(ell) > maxw);
					free(more);
				}
			}
			free(text);
			free(line);
		}
	}
}

static void check_wrap(const char *s, int width, int indent)
{
	char **lines;
	size_t n = vw_ui_wrap(s, width, indent, &lines);
	struct vw_buf got = VW_BUF_INIT, want = VW_BUF_INIT;

	assert_true(n >= 1);
	for (size_t k = 0; k < n; k++) {
		int w = mbwidth(lines[k]);

		assert_true(w >= 0);		/* valid text: nothing cut in two */
		assert_true(w <= width);	/* a line never spills over */
		for (const char *p = lines[k]; *p; p++)
			if (*p != ' ')
				vw_buf_addc(&got, *p);
	}
	for (const char *p = s; *p; p++)
		if (*p != ' ')
			vw_buf_addc(&want, *p);
	vw_buf_addc(&got, 0);
	vw_buf_addc(&want, 0);
	assert_string_equal(got.data, want.data);	/* nothing lost */
	vw_buf_done(&got);
	vw_buf_done(&want);
	vw_strv_free(lines);
}

static void test_wrap(void **unused)
{
	static const char *const texts[] = {
		"Configurazione della macchina virtuale: memoria, processori virtuali e disco.",
		"Configuración de la máquina virtual: memoria, procesadores virtuales y disco.",
		"仮想マシンの設定を確認してください。ディスクとメモリ、仮想CPUの数。",
		"ＧＰＵ、ＩＯＭＭＵ、ＶＦＩＯ。Entrée · Échap · Espace",
	};

	(void)unused;
	for (size_t i = 0; i < VW_ARRAY_SIZE(texts); i++)
		for (int width = 2; width <= 50; width++) {
			check_wrap(texts[i], width, 0);
			if (width > 4)
				check_wrap(texts[i], width, 2);
		}
	for (size_t i = 0; i < VW_ARRAY_SIZE(labels); i++)
		for (int width = 2; width <= 45; width++)
			check_wrap(labels[i], width, 0);
}

/* A list in a column 30 wide from column 10, a "|" at column 40: a long
 * Italian item is clipped with an ellipsis inside the column, and text
 * fields line up after Spanish and Italian labels of other byte lengths. */
static void test_list_column(void **unused)
{
	struct vw_list l;
	struct vw_item *it;

	(void)unused;
	vw_list_init(&l);
	it = vw_list_add(&l, VW_ITEM_CHECK, 1, "Configurazione della macchina virtuale");
	vw_item_note(it, "trovato su questo host");
	it = vw_list_add(&l, VW_ITEM_FIELD, 2, "Memoria (MiB)");
	vw_field_set(&it->field, "8192");
	it = vw_list_add(&l, VW_ITEM_FIELD, 3, "Configuración");
	vw_field_set(&it->field, "4");
	it = vw_list_add(&l, VW_ITEM_FIELD, 4, "仮想CPU");
	vw_field_set(&it->field, "2");
	vw_list_align(&l);
	werase(stdscr);
	vw_list_draw(&l, stdscr, 0, 10, 4, 30, true);
	for (int y = 0; y < 4; y++)
		vw_ui_put(stdscr, y, 40, 1, "|", A_NORMAL);
	{
		char *rows[4];
		int vcol = -1;

		for (int y = 0; y < 4; y++) {
			rows[y] = screen_line(y);
			assert_true(mbwidth(rows[y]) >= 0);
			assert_int_equal(column_of(rows[y], '|'), 40);
		}
		assert_non_null(strstr(rows[0], vw_ui.g.ellipsis));
		assert_non_null(strstr(rows[0], "Configurazi"));	/* the note takes a third */
		/* the values start in the same column on every field row */
		for (int y = 1; y < 4; y++) {
			const char *digits = strpbrk(rows[y] + 10, "0123456789");
			char *head;
			int c;

			assert_non_null(digits);
			head = vw_xstrndup(rows[y], (size_t)(digits - rows[y]));
			c = mbwidth(head);
			free(head);
			if (vcol < 0)
				vcol = c;
			assert_int_equal(c, vcol);
		}
		for (int y = 0; y < 4; y++)
			free(rows[y]);
	}
	vw_list_done(&l);
}

/* Marks before TEXT items ("ok", "info", or translated: "hôte", "invité",
 * "invitado") take one column as wide as the widest: the labels line up. */
static void test_list_marks(void **unused)
{
	static const char *const marks[] = { "ok", "info", "hôte", "invité", "invitado", "!!" };
	struct vw_list l;

	(void)unused;
	vw_list_init(&l);
	for (size_t i = 0; i < VW_ARRAY_SIZE(marks); i++) {
		struct vw_item *it = vw_list_add(&l, VW_ITEM_TEXT, (int)i, "Label");

		vw_item_mark(it, marks[i], VW_C_OK);
	}
	werase(stdscr);
	vw_list_draw(&l, stdscr, 0, 0, (int)VW_ARRAY_SIZE(marks), 40, true);
	for (int y = 0; y < (int)VW_ARRAY_SIZE(marks); y++) {
		char *row = screen_line(y), *at = strstr(row, "Label"), *head;

		assert_non_null(at);
		head = vw_xstrndup(row, (size_t)(at - row));
		/* the gutter (cursor, blank), the widest mark (8), a blank */
		assert_int_equal(mbwidth(head), 2 + 8 + 1);
		free(head);
		free(row);
	}
	vw_list_done(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_width),
		cmocka_unit_test(test_pad),
		cmocka_unit_test(test_clip),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_list_column),
		cmocka_unit_test(test_list_marks),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
