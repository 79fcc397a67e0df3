/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-diff.c - vw_diff_unified() on known pairs (expected outputs are what
 * GNU diffutils 3.8 prints with --label a --label b). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "diff.h"

/* Diff two C strings with labels a and b; returns the text (static). */
static const char *udiff(const char *a, const char *b, const char *la, const char *lb, int ctx,
			 int *ret)
{
	static struct vw_buf out = VW_BUF_INIT;

	vw_buf_done(&out);
	vw_buf_adds(&out, "");
	*ret = vw_diff_unified(&out, a, strlen(a), b, strlen(b), la, lb, ctx);
	return out.data;
}

static void expect(const char *a, const char *b, int ctx, const char *want)
{
	int r;
	const char *got = udiff(a, b, "a", "b", ctx, &r);

	assert_int_equal(r, want[0] ? 1 : 0);
	assert_string_equal(got, want);
}

#define NINE "1\n2\n3\n4\n5\n6\n7\n8\n9\n"

static void test_identical(void **state)
{
	(void)state;
	expect("", "", 3, "");
	expect(NINE, NINE, 3, "");
	expect("x", "x", 3, "");
}

static void test_middle_change(void **state)
{
	(void)state;
	expect(NINE, "1\n2\n3\n4\nfive\n6\n7\n8\n9\n", 3,
	       "--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
}

static void test_new_and_deleted_file(void **state)
{
	int r;

	(void)state;
	assert_string_equal(udiff("", "x\ny\n", NULL, "b", 3, &r),
			    "--- /dev/null\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n");
	assert_int_equal(r, 1);
	assert_string_equal(udiff("x\ny\n", "", "a", NULL, 3, &r),
			    "--- a\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n");
}

static void test_no_newline(void **state)
{
	(void)state;
	expect("x\n", "x", 3, "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+x\n\\ No newline at end of file\n");
	expect("a\nb\nc\n", "a\nb\nc\nd", 3,
	       "--- a\n+++ b\n@@ -1,3 +1,4 @@\n a\n b\n c\n+d\n\\ No newline at end of file\n");
	/* An unchanged incomplete last line shown as context keeps its marker. */
	expect("a\nb", "z\nb", 3,
	       "--- a\n+++ b\n@@ -1,2 +1,2 @@\n-a\n+z\n b\n\\ No newline at end of file\n");
}

static void test_merge_hunks(void **state)
{
	const char *twenty = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n";

	(void)state;
	/* Six unchanged lines between two changes: one hunk. */
	expect(twenty,
	       "1\n2\nthree\n4\n5\n6\n7\n8\n9\nten\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n", 3,
	       "--- a\n+++ b\n@@ -1,13 +1,13 @@\n 1\n 2\n-3\n+three\n 4\n 5\n 6\n 7\n 8\n 9\n"
	       "-10\n+ten\n 11\n 12\n 13\n");
	/* Seven: two hunks. */
	expect(twenty,
	       "1\n2\nthree\n4\n5\n6\n7\n8\n9\n10\neleven\n12\n13\n14\n15\n16\n17\n18\n19\n20\n", 3,
	       "--- a\n+++ b\n@@ -1,6 +1,6 @@\n 1\n 2\n-3\n+three\n 4\n 5\n 6\n"
	       "@@ -8,7 +8,7 @@\n 8\n 9\n 10\n-11\n+eleven\n 12\n 13\n 14\n");
}

static void test_deletions_first(void **state)
{
	(void)state;
	expect("a\nb\n", "c\nd\n", 3, "--- a\n+++ b\n@@ -1,2 +1,2 @@\n-a\n-b\n+c\n+d\n");
}

static void test_context_zero(void **state)
{
	(void)state;
	expect(NINE, "1\n2\n3\n4\nfive\n6\n7\n8\n9\n", 0, "--- a\n+++ b\n@@ -5 +5 @@\n-5\n+five\n");
	expect("1\n2\n3\n", "1\n3\n", 0, "--- a\n+++ b\n@@ -2 +1,0 @@\n-2\n");
}

static void test_binary_and_errors(void **state)
{
	struct vw_buf out = VW_BUF_INIT;

	(void)state;
	assert_int_equal(vw_diff_unified(&out, "a\0b", 3, "a", 1, "x", "y", 3), 1);
	assert_string_equal(out.data, "Binary files x and y differ\n");
	vw_buf_done(&out);
	assert_int_equal(vw_diff_unified(&out, "a", 1, "b", 1, "x", "y", -1), -EINVAL);
	assert_null(out.data);
}

/* A repeated line: GNU slides the change to the last equal position. */
static void test_shift_boundaries(void **state)
{
	(void)state;
	expect("a\nb\nb\nc\n", "a\nb\nc\n", 3, "--- a\n+++ b\n@@ -1,4 +1,3 @@\n a\n b\n-b\n c\n");
	expect("x\n\ny\n", "x\n\n\ny\n", 3, "--- a\n+++ b\n@@ -1,3 +1,4 @@\n x\n \n+\n y\n");
}

/* The VNC password is masked in every form a plan may write it in (issue 14
 * item 5: the XML held p&amp;ss and the raw password was looked for). */
static void mask_is(const char *in, const char *secret, const char *want)
{
	size_t n;
	char *m = vw_change_mask(in, strlen(in), secret, &n);

	assert_string_equal(m, want);
	assert_int_equal(n, strlen(want));
	free(m);
}

static void test_mask(void **state)
{
	const char *pw = "p&<>\"'% ";

	(void)state;
	mask_is("x p&<>\"'%  y", pw, "x ******** y");
	mask_is("passwd=\"p&amp;&lt;&gt;&quot;'% \"", pw, "passwd=\"********\"");
	mask_is("passwd='p&amp;&lt;&gt;&quot;&apos;% '", pw, "passwd='********'");
	mask_is("p&#38;&#60;&#x3e;&#34;&#39;%&#32;", pw, "********");
	mask_is("echo 'p&<>\"'\\''% '", pw, "echo '********'");
	mask_is("echo 'p&<>\"'\"'\"'% '", pw, "echo '********'");
	mask_is("vnc://h?pw=p%26%3C%3E%22%27%25%20", pw, "vnc://h?pw=********");
	mask_is("vnc://h?pw=p%26%3c%3e%22%27%25+", pw, "vnc://h?pw=********");
	mask_is("vnc_password = 'p&<>\"\\'% '", pw, "vnc_password = '********'");
	mask_is("\"p&<>\\\"'% \"", pw, "\"********\"");
	/* Nothing else is touched; no secret, no mask. */
	mask_is("p&<>\"'%", pw, "p&<>\"'%");
	mask_is("p&amp;x", pw, "p&amp;x");
	mask_is("abc", NULL, "abc");
	mask_is("abc", "", "abc");
	mask_is("s3cr3t s3cr3", "s3cr3t", "******** s3cr3");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identical),
		cmocka_unit_test(test_middle_change),
		cmocka_unit_test(test_new_and_deleted_file),
		cmocka_unit_test(test_no_newline),
		cmocka_unit_test(test_merge_hunks),
		cmocka_unit_test(test_deletions_first),
		cmocka_unit_test(test_context_zero),
		cmocka_unit_test(test_binary_and_errors),
		cmocka_unit_test(test_shift_boundaries),
		cmocka_unit_test(test_mask),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
