/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-listdetails.c - the list-plus-details base of the steps
 * (tui/w_listdetails.c): the details follow the cursor only once it rests,
 * are written once per item and tick, again when made stale; the keys the
 * list does not take scroll the details; the layout on a headless screen. */
#include "testutil.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "wizard.h"

/* What a step does in its fill_details(): the item's label as details. */
static bool fill(struct vw_listdetails *ld, const struct vw_ctx *ctx)
{
	struct vw_item *it;

	if (!vw_ld_follow(ld, ctx, &it))
		return false;
	vw_text_addf(&ld->details, VW_C_NORMAL, 0, "about %s%s", it ? it->label : "nothing",
		     it && it->on ? " (ticked)" : "");
	return true;
}

static const char *details(const struct vw_listdetails *ld)
{
	return ld->details.np ? ld->details.p[0].text : "";
}

static void make(struct vw_listdetails *ld)
{
	vw_ld_init(ld);
	vw_list_add(&ld->list, VW_ITEM_CHECK, 1, "one");
	vw_list_add(&ld->list, VW_ITEM_CHECK, 2, "two");
	vw_list_add(&ld->list, VW_ITEM_CHECK, 3, "three");
}

static void test_follow_settled(void **unused)
{
	struct vw_listdetails ld;
	struct vw_ctx ctx = { .settled = true };

	(void)unused;
	make(&ld);
	assert_true(fill(&ld, &ctx));
	assert_string_equal(details(&ld), "about one");
	assert_false(fill(&ld, &ctx));	/* written once per item */
	assert_int_equal(ld.details.np, 1);
	assert_int_equal(vw_list_key(&ld.list, VW_KEY_DOWN), VW_W_MOVED);
	assert_true(fill(&ld, &ctx));
	assert_string_equal(details(&ld), "about two");
	assert_int_equal(ld.details.np, 1);	/* cleared before */
	vw_ld_done(&ld);
}

static void test_follow_moving(void **unused)
{
	struct vw_listdetails ld;
	struct vw_ctx ctx = { .settled = false };

	(void)unused;
	make(&ld);
	/* the first frame has details even while keys come */
	assert_true(fill(&ld, &ctx));
	assert_string_equal(details(&ld), "about one");
	vw_list_key(&ld.list, VW_KEY_DOWN);
	vw_list_key(&ld.list, VW_KEY_DOWN);
	assert_false(fill(&ld, &ctx));	/* moving: only the list moves */
	assert_string_equal(details(&ld), "about one");
	ctx.settled = true;	/* the cursor rests */
	assert_true(fill(&ld, &ctx));
	assert_string_equal(details(&ld), "about three");
	vw_ld_done(&ld);
}

static void test_stale(void **unused)
{
	struct vw_listdetails ld;
	struct vw_ctx ctx = { .settled = true };

	(void)unused;
	make(&ld);
	assert_true(fill(&ld, &ctx));
	assert_false(fill(&ld, &ctx));
	vw_ld_stale(&ld);	/* what the details say changed */
	assert_true(fill(&ld, &ctx));
	assert_false(fill(&ld, &ctx));
	vw_ld_done(&ld);
}

static void test_tick(void **unused)
{
	struct vw_listdetails ld;
	struct vw_ctx ctx = { .settled = true };

	(void)unused;
	make(&ld);
	assert_true(fill(&ld, &ctx));
	assert_int_equal(vw_list_key(&ld.list, ' '), VW_W_CHANGED);
	assert_true(fill(&ld, &ctx));	/* the same item, ticked now */
	assert_string_equal(details(&ld), "about one (ticked)");
	assert_false(fill(&ld, &ctx));
	vw_ld_done(&ld);
}

static void test_empty_list(void **unused)
{
	struct vw_listdetails ld;
	struct vw_ctx ctx = { .settled = true };

	(void)unused;
	vw_ld_init(&ld);
	assert_true(fill(&ld, &ctx));
	assert_string_equal(details(&ld), "about nothing");
	assert_false(fill(&ld, &ctx));
	vw_ld_done(&ld);
}

static void test_keys_and_draw(void **unused)
{
	struct vw_listdetails ld;
	struct vw_ctx ctx = { .settled = true };
	WINDOW *w = derwin(stdscr, 21, 78, 1, 1);
	char *dump;

	(void)unused;
	assert_non_null(w);
	make(&ld);
	fill(&ld, &ctx);
	for (int i = 0; i < 40; i++)
		vw_text_addf(&ld.details, VW_C_NORMAL, 0, "line %d", i);
	werase(stdscr);
	vw_ld_draw(&ld, w, "An intro.", 3);
	wnoutrefresh(stdscr);
	doupdate();
	dump = vw_ui_dump();
	assert_non_null(strstr(dump, "An intro."));
	assert_non_null(strstr(dump, "three"));
	assert_non_null(strstr(dump, "Details"));
	assert_non_null(strstr(dump, "about one"));
	free(dump);
	/* the list took the key: handled, whatever the key */
	assert_int_equal(vw_ld_key(&ld, VW_W_MOVED, 'x'), VW_KEY_HANDLED);
	/* not the list's: PgDn scrolls the details, others go to the runner */
	assert_int_equal(vw_ld_key(&ld, VW_W_IGNORED, VW_KEY_PGDN), VW_KEY_HANDLED);
	assert_true(ld.details.top > 0);
	assert_int_equal(vw_ld_key(&ld, VW_W_IGNORED, 'x'), VW_KEY_IGNORED);
	assert_false(vw_ld_editing(&ld));
	vw_ld_step_done(&ld);
	delwin(w);
}

static int setup(void **unused)
{
	struct vw_ui_opts o = { .headless = true, .cols = 80, .lines = 24, .mono = true };
	struct vw_err err = { 0 };

	(void)unused;
	if (!setlocale(LC_ALL, "C.UTF-8") && !setlocale(LC_ALL, "C.utf8"))
		return -1;
	if (vw_ui_open(&o, &err) < 0) {
		print_error("%s\n", err.msg);
		return -1;
	}
	return 0;
}

static int teardown(void **unused)
{
	(void)unused;
	vw_ui_close();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_follow_settled),
		cmocka_unit_test(test_follow_moving),
		cmocka_unit_test(test_stale),
		cmocka_unit_test(test_tick),
		cmocka_unit_test(test_empty_list),
		cmocka_unit_test(test_keys_and_draw),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
