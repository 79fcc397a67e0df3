/* SPDX-License-Identifier: GPL-2.0-or-later */
/* diff-vs-gnu.c - compare vw_diff_unified() with GNU "diff -u" on random pairs.
 *
 * Pairs are random edits (delete, insert, replace, copy, move blocks) of
 * files made of lines from small alphabets, so lines repeat and the
 * choice among equally short scripts matters; some files are empty, some
 * lack their final newline, some are long with sparse edits (GNU's discard
 * heuristics).  Every output must equal GNU's byte for byte; when one does
 * not, patch(1) (if installed) tells whether ours is at least a correct
 * diff, and the test fails either way.  VW_DIFF_PAIRS (default 1500) and VW_DIFF_SEED set the
 * run; the match rate is printed.
 */
#include "diff.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned long long rng_state = 88172645463325252ull;

static unsigned rnd(unsigned n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return n ? (unsigned)(rng_state % n) : 0;
}

struct lines {
	char **v;
	size_t n;
};

static void push(struct lines *l, size_t at, const char *s)
{
	l->v = vw_xreallocarray(l->v, l->n + 1, sizeof(char *));
	memmove(l->v + at + 1, l->v + at, (l->n - at) * sizeof(char *));
	l->v[at] = vw_xstrdup(s);
	l->n++;
}

static void drop(struct lines *l, size_t at)
{
	free(l->v[at]);
	memmove(l->v + at, l->v + at + 1, (l->n - at - 1) * sizeof(char *));
	l->n--;
}

static const char *word(unsigned alphabet)
{
	static const char *const w[] = { "a", "b", "c", "", "}", "d", "e", "{",
					 "f", "g", "h", "int x;", "i", "j", "k", "l" };
	static char buf[32];
	static unsigned fresh;

	/* Lines found in one file only, and a few very common ones: what GNU's
	 * discarding of confusing lines is about. */
	if (alphabet == ~0u || rnd(8) == 0) {
		snprintf(buf, sizeof(buf), "new %u", fresh++);
		return buf;
	}
	if (alphabet > VW_ARRAY_SIZE(w) && rnd(3) == 0)
		return w[3 + rnd(2)];
	if (alphabet > VW_ARRAY_SIZE(w)) {
		snprintf(buf, sizeof(buf), "line %u", rnd(alphabet));
		return buf;
	}
	return w[rnd(alphabet)];
}

static void edit(struct lines *l, unsigned alphabet, unsigned edits)
{
	for (unsigned e = 0; e < edits; e++) {
		size_t at = l->n ? rnd((unsigned)l->n + 1) : 0;
		unsigned len = 1 + rnd(rnd(4) ? 2 : 6);

		switch (rnd(6)) {
		case 5: /* fresh lines around common ones (discard heuristics) */
			for (unsigned k = 0, m = 1 + rnd(5); k < m; k++)
				push(l, at, word(~0u));
			for (unsigned k = 0, m = 1 + rnd(3); k < m; k++)
				push(l, at, rnd(2) ? "" : "}");
			for (unsigned k = 0, m = 1 + rnd(5); k < m; k++)
				push(l, at, word(~0u));
			break;
		case 0: /* delete */
			for (unsigned k = 0; k < len && at < l->n; k++)
				drop(l, at);
			break;
		case 1: /* insert */
			for (unsigned k = 0; k < len; k++)
				push(l, at, word(alphabet));
			break;
		case 2: /* replace */
			for (unsigned k = 0; k < len && at + k < l->n; k++) {
				free(l->v[at + k]);
				l->v[at + k] = vw_xstrdup(word(alphabet));
			}
			break;
		case 3: /* copy a block elsewhere */
			if (l->n) {
				size_t from = rnd((unsigned)l->n);
				for (unsigned k = 0; k < len && from + k < l->n; k++) {
					char *s = vw_xstrdup(l->v[from + k]);
					push(l, at, s);
					free(s);
				}
			}
			break;
		default: /* move one line */
			if (l->n > 1) {
				size_t from = rnd((unsigned)l->n);
				char *s = vw_xstrdup(l->v[from]);
				drop(l, from);
				push(l, rnd((unsigned)l->n + 1), s);
				free(s);
			}
		}
	}
}

static char *text(const struct lines *l, bool final_newline, size_t *len)
{
	struct vw_buf b = VW_BUF_INIT;

	vw_buf_adds(&b, "");
	for (size_t i = 0; i < l->n; i++) {
		vw_buf_adds(&b, l->v[i]);
		if (i + 1 < l->n || final_newline)
			vw_buf_addc(&b, '\n');
	}
	*len = b.len;
	return vw_buf_steal(&b);
}

static void put(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
		perror(path);
		exit(99);
	}
}

static char *slurp(const char *path, size_t *len)
{
	struct vw_buf b = VW_BUF_INIT;
	char chunk[4096];
	size_t n;
	FILE *f = fopen(path, "r");

	*len = 0;
	vw_buf_adds(&b, "");
	if (!f)
		return vw_buf_steal(&b);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		vw_buf_add(&b, chunk, n);
	fclose(f);
	*len = b.len;
	return vw_buf_steal(&b);
}

/* Run argv with stdout to out (when not NULL); returns the exit status. */
static int run(char *const argv[], const char *out)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		if (out) {
			int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			dup2(fd, 1);
		}
		int dn = open("/dev/null", O_WRONLY);
		dup2(dn, 2);
		if (!out)
			dup2(dn, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Does our diff turn a into b under patch(1)? */
static bool patch_ok(const char *dir, const char *ours, size_t olen, const char *b, size_t blen)
{
	char pa[512], pd[512], pt[512], *orig, *got;
	size_t alen, glen = 0;
	bool ok;

	snprintf(pa, sizeof(pa), "%s/a", dir);
	snprintf(pd, sizeof(pd), "%s/ours.diff", dir);
	snprintf(pt, sizeof(pt), "%s/patched", dir);
	put(pd, ours, olen);
	orig = slurp(pa, &alen);
	put(pt, orig, alen);
	free(orig);
	char *argv[] = { "patch", "-s", "-f", "-N", pt, pd, NULL };
	ok = run(argv, NULL) == 0;
	got = slurp(pt, &glen);
	ok = ok && glen == blen && !memcmp(got, b, blen);
	free(got);
	return ok;
}

static bool have_patch;

struct stats {
	unsigned pairs, exact, patch_only, wrong;
};

static void one_pair(const char *dir, unsigned idx, struct stats *st)
{
	struct lines a = { 0 }, b = { 0 };
	bool big = rnd(10) == 0;
	unsigned alphabet = big ? 3 + rnd(200) : 2 + rnd(8);
	unsigned n = big ? 100 + rnd(1500) : (rnd(12) ? rnd(30) : 0);
	int ctx = rnd(4) ? 3 : (int)rnd(6);
	size_t alen, blen, glen = 0;
	char *ta, *tb, *gnu, pa[512], pb[512], po[512], cs[16];
	struct vw_buf ours = VW_BUF_INIT;

	for (unsigned i = 0; i < n; i++)
		push(&a, a.n, word(alphabet));
	for (size_t i = 0; i < a.n; i++)
		push(&b, b.n, a.v[i]);
	if (rnd(15) == 0) {
		while (b.n)
			drop(&b, 0);
	} else {
		edit(&b, alphabet, big ? 1 + rnd(30) : 1 + rnd(6));
	}
	ta = text(&a, rnd(5) != 0, &alen);
	tb = text(&b, rnd(5) != 0, &blen);
	snprintf(pa, sizeof(pa), "%s/a", dir);
	snprintf(pb, sizeof(pb), "%s/b", dir);
	snprintf(po, sizeof(po), "%s/gnu.diff", dir);
	snprintf(cs, sizeof(cs), "-U%d", ctx);
	put(pa, ta, alen);
	put(pb, tb, blen);
	char *argv[] = { "diff", cs, "--label", "A", "--label", "B", pa, pb, NULL };
	run(argv, po);
	gnu = slurp(po, &glen);
	vw_buf_adds(&ours, "");
	vw_diff_unified(&ours, ta, alen, tb, blen, "A", "B", ctx);
	st->pairs++;
	if (ours.len == glen && !memcmp(ours.data, gnu, glen)) {
		st->exact++;
	} else if (have_patch && patch_ok(dir, ours.data, ours.len, tb, blen)) {
		st->patch_only++;
		if (st->patch_only <= 3)
			fprintf(stderr, "pair %u: differs from GNU (patch applies)\n--- ours\n%s--- gnu\n%s",
				idx, ours.data, gnu);
	} else {
		st->wrong++;
		if (st->wrong <= 3)
			fprintf(stderr, "pair %u: differs from GNU, and patch does not confirm it\n--- ours\n%s--- gnu\n%s", idx, ours.data, gnu);
	}
	free(ta);
	free(tb);
	free(gnu);
	vw_buf_done(&ours);
	while (a.n)
		drop(&a, 0);
	while (b.n)
		drop(&b, 0);
	free(a.v);
	free(b.v);
}

int main(void)
{
	const char *np = getenv("VW_DIFF_PAIRS"), *seed = getenv("VW_DIFF_SEED");
	unsigned pairs = np ? (unsigned)atoi(np) : 1500;
	char dir[] = "/tmp/vw-diffgnu-XXXXXX";
	struct stats st = { 0 };

	if (seed)
		rng_state ^= strtoull(seed, NULL, 0) * 0x9E3779B97F4A7C15ull;
	if (system("diff --version 2>/dev/null | grep -q GNU") != 0) {
		printf("SKIP: GNU diff is not installed\n");
		return 77;
	}
	have_patch = system("patch --version >/dev/null 2>&1") == 0;
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 99;
	}
	for (unsigned i = 0; i < pairs; i++)
		one_pair(dir, i, &st);
	printf("diff vs GNU diff -u: %u pairs, %u identical (%.2f%%), %u differ but patch correctly, %u differ otherwise\n",
	       st.pairs, st.exact, st.pairs ? 100.0 * st.exact / st.pairs : 0.0, st.patch_only,
	       st.wrong);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	return st.exact == st.pairs ? 0 : 1;
}
