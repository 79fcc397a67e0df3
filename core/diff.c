/* SPDX-License-Identifier: GPL-2.0-or-later */
/* diff.c - unified diff, hunk for hunk what GNU "diff -u" prints.
 *
 * Reviewers compare what we show with what they would get from diff(1), so
 * we make the same choices GNU diffutils makes, in the same order:
 *  1. keep the identical head and tail of the files out of the comparison,
 *     except for "horizon" lines (as many as the context);
 *  2. number the remaining lines by equivalence class (an incomplete last
 *     line never equals a complete one);
 *  3. discard lines that match nothing in the other file, and runs of lines
 *     that match too much (they only confuse the search);
 *  4. Myers' O(ND) search for the middle snake, divide and conquer in linear
 *     space, giving up on minimality past a cost of about sqrt(N) (>= 4096);
 *  5. slide each run of changes down as far as it goes, then back up to
 *     line up with a run in the other file;
 *  6. print hunks, merging changes less than 2*context+1 lines apart.
 * The algorithm is Myers' (Algorithmica 1, 1986), the tie-breaking and the
 * heuristics are the ones documented by diffutils; the code is our own.
 */
#include "diff.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct side {
	const char *buf;
	size_t len;
	long n;			/* lines */
	size_t *off;		/* n + 1 line starts; off[n] == len */
	bool incomplete;	/* the last line has no '\n' */
};

struct change {
	long line0, line1;	/* first line (0-based, whole file) */
	long del, ins;
};

/* The comparison proper, on the lines between the identical ends. */
struct analysis {
	long pre;		/* lines of identical head left out */
	long n[2];		/* lines compared */
	long *eq[2];		/* equivalence class of each compared line (>= 1) */
	long nclass;		/* classes are 1 .. nclass - 1 */
	char *changed[2];	/* one flag a line, with a 0 at [-1] and [n] */
	long *und[2];		/* classes of the lines not discarded */
	long *real[2];		/* their indexes among the compared lines */
	long nund[2];
	long *fd, *bd;		/* diagonal vectors of the search */
	long too_expensive;
};

static void split_lines(struct side *s, const char *buf, size_t len)
{
	long n = 0;

	s->buf = buf;
	s->len = len;
	for (size_t i = 0; i < len; i++)
		n += buf[i] == '\n';
	s->incomplete = len && buf[len - 1] != '\n';
	s->n = n + s->incomplete;
	s->off = vw_xcalloc((size_t)s->n + 1, sizeof(size_t));
	n = 0;
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\n' && i + 1 < len)
			s->off[++n] = i + 1;
	s->off[s->n] = len;
}

/* Byte k of the file as diff sees it: a missing final newline is added. */
static char vbyte(const struct side *s, size_t k)
{
	return k < s->len ? s->buf[k] : '\n';
}

static size_t vlen(const struct side *s)
{
	return s->len + s->incomplete;
}

/* Line number that starts at byte p (a line start, or the end). */
static long line_at(const struct side *s, size_t p)
{
	long lo = 0, hi = s->n;

	while (lo < hi) {
		long mid = (lo + hi) / 2;
		if (s->off[mid] < p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Step 1: the identical head, backed up to a line start and then by
 * horizon lines.  Returns its end (a byte offset, same in both files). */
static size_t identical_head(const struct side *a, const struct side *b, long horizon)
{
	size_t n0 = vlen(a), n1 = vlen(b), lim = n0 < n1 ? n0 : n1, p = 0;

	while (p < lim && vbyte(a, p) == vbyte(b, p))
		p++;
	/* The added newline of an incomplete line is not a shared byte. */
	if ((n0 - a->incomplete < p) != (n1 - b->incomplete < p))
		p--;
	while (p) {
		if (vbyte(a, p - 1) == '\n') {
			if (horizon == 0)
				break;
			horizon--;
		}
		p--;
	}
	return p;
}

/* Step 1, tail: returns the number of identical trailing lines left out. */
static long identical_tail(const struct side *a, const struct side *b, size_t head,
			   long horizon)
{
	size_t n0 = vlen(a), n1 = vlen(b), p0 = n0, p1 = n1, beg;
	long i;

	if (a->incomplete != b->incomplete)
		return 0;
	beg = head + (n0 < n1 ? 0 : n0 - n1);
	while (p0 != beg) {
		if (vbyte(a, --p0) != vbyte(b, --p1)) {
			p0++, p1++;
			break;
		}
	}
	beg = p0;
	i = horizon + !((p0 == 0 || vbyte(a, p0 - 1) == '\n') &&
			(p1 == 0 || vbyte(b, p1 - 1) == '\n'));
	while (i-- && p0 != n0)
		while (vbyte(a, p0++) != '\n')
			;
	return a->n - line_at(a, p0);
}

/* Step 2.  Classes are numbered from 1 in order of first appearance. */
struct eqclass {
	const char *p;
	size_t len;		/* without the newline */
	bool incomplete;
	long id;
};

static uint64_t hash_line(const char *p, size_t n, bool incomplete)
{
	uint64_t h = 1469598103934665603ull ^ incomplete;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return h;
}

static void classify(struct analysis *an, const struct side *s[2])
{
	size_t cap = 16, total = (size_t)an->n[0] + (size_t)an->n[1];
	struct eqclass *tab;

	while (cap < 2 * total)
		cap *= 2;
	tab = vw_xcalloc(cap, sizeof(*tab));
	an->nclass = 1;
	for (int f = 0; f < 2; f++) {
		an->eq[f] = vw_xcalloc((size_t)an->n[f] + 1, sizeof(long));
		for (long i = 0; i < an->n[f]; i++) {
			long l = an->pre + i;
			const char *p = s[f]->buf + s[f]->off[l];
			bool inc = s[f]->incomplete && l == s[f]->n - 1;
			size_t len = s[f]->off[l + 1] - s[f]->off[l] - !inc;
			size_t k = hash_line(p, len, inc) & (cap - 1);

			while (tab[k].id && !(tab[k].len == len && tab[k].incomplete == inc &&
					      !memcmp(tab[k].p, p, len)))
				k = (k + 1) & (cap - 1);
			if (!tab[k].id)
				tab[k] = (struct eqclass){ p, len, inc, an->nclass++ };
			an->eq[f][i] = tab[k].id;
		}
	}
	free(tab);
}

/* Step 3: mark lines matching nothing (1) or too much (2, provisional),
 * keep provisional discards only inside runs of real ones. */
static void mark_discards(const struct analysis *an, int f, const long *other_count, char *d)
{
	long end = an->n[f], many = 5;

	for (long tem = end >> 6; (tem >>= 2) > 0;)
		many *= 2;
	for (long i = 0; i < end; i++) {
		long m = other_count[an->eq[f][i]];
		d[i] = m == 0 ? 1 : m > many ? 2 : 0;
	}
}

static void trim_run(char *d, long i, long length)
{
	long minimum = 1, consec = 0, j;

	/* A long enough subrun of provisionals is a real match: keep it. */
	for (long tem = length >> 2; 0 < (tem >>= 2);)
		minimum <<= 1;
	minimum++;
	for (j = 0; j < length; j++)
		if (d[i + j] != 2)
			consec = 0;
		else if (minimum == ++consec)
			j -= consec;
		else if (minimum < consec)
			d[i + j] = 0;
	/* Near either end of the run, provisionals are kept out too. */
	for (j = 0, consec = 0; j < length; j++) {
		if (j >= 8 && d[i + j] == 1)
			break;
		if (d[i + j] == 2)
			consec = 0, d[i + j] = 0;
		else if (d[i + j] == 0)
			consec = 0;
		else
			consec++;
		if (consec == 3)
			break;
	}
	i += length - 1;
	for (j = 0, consec = 0; j < length; j++) {
		if (j >= 8 && d[i - j] == 1)
			break;
		if (d[i - j] == 2)
			consec = 0, d[i - j] = 0;
		else if (d[i - j] == 0)
			consec = 0;
		else
			consec++;
		if (consec == 3)
			break;
	}
}

static void settle_discards(long end, char *d)
{
	for (long i = 0; i < end; i++) {
		long j, provisional = 0, length;

		if (d[i] == 2) {
			d[i] = 0;
			continue;
		}
		if (!d[i])
			continue;
		for (j = i; j < end && d[j]; j++)
			provisional += d[j] == 2;
		while (j > i && d[j - 1] == 2)
			d[--j] = 0, provisional--;
		length = j - i;
		if (provisional * 4 > length) {
			while (j > i)
				if (d[--j] == 2)
					d[j] = 0;
		} else {
			trim_run(d, i, length);
			i += length - 1;
		}
	}
}

static void discard_lines(struct analysis *an)
{
	long *count[2];
	char *d[2];

	for (int f = 0; f < 2; f++) {
		count[f] = vw_xcalloc((size_t)an->nclass, sizeof(long));
		for (long i = 0; i < an->n[f]; i++)
			count[f][an->eq[f][i]]++;
	}
	for (int f = 0; f < 2; f++) {
		d[f] = vw_xcalloc((size_t)an->n[f] + 1, 1);
		mark_discards(an, f, count[1 - f], d[f]);
	}
	for (int f = 0; f < 2; f++) {
		settle_discards(an->n[f], d[f]);
		an->und[f] = vw_xcalloc((size_t)an->n[f] + 1, sizeof(long));
		an->real[f] = vw_xcalloc((size_t)an->n[f] + 1, sizeof(long));
		an->nund[f] = 0;
		for (long i = 0; i < an->n[f]; i++) {
			if (d[f][i]) {
				an->changed[f][i] = 1;
				continue;
			}
			an->und[f][an->nund[f]] = an->eq[f][i];
			an->real[f][an->nund[f]++] = i;
		}
		free(d[f]);
		free(count[f]);
	}
}

/* Step 4. */
struct partition {
	long xmid, ymid;
	bool lo_minimal, hi_minimal;
};

/* Cost cap reached: split halfway between the furthest points reached. */
static void give_up(const struct analysis *an, long xoff, long xlim, long yoff, long ylim,
		    long fmin, long fmax, long bmin, long bmax, struct partition *part)
{
	long fxybest = -1, fxbest = 0, bxybest = LONG_MAX, bxbest = 0;

	for (long d = fmax; d >= fmin; d -= 2) {
		long x = an->fd[d] < xlim ? an->fd[d] : xlim, y = x - d;
		if (ylim < y)
			x = ylim + d, y = ylim;
		if (fxybest < x + y)
			fxybest = x + y, fxbest = x;
	}
	for (long d = bmax; d >= bmin; d -= 2) {
		long x = an->bd[d] > xoff ? an->bd[d] : xoff, y = x - d;
		if (y < yoff)
			x = yoff + d, y = yoff;
		if (x + y < bxybest)
			bxybest = x + y, bxbest = x;
	}
	if ((xlim + ylim) - bxybest < fxybest - (xoff + yoff))
		*part = (struct partition){ fxbest, fxybest - fxbest, true, false };
	else
		*part = (struct partition){ bxbest, bxybest - bxbest, false, true };
}

/* Find the middle snake of [xoff,xlim) x [yoff,ylim), searching forward
 * from the top-left and backward from the bottom-right until they meet. */
static void middle_snake(struct analysis *an, long xoff, long xlim, long yoff, long ylim,
			 bool find_minimal, struct partition *part)
{
	long *const fd = an->fd, *const bd = an->bd;
	const long *xv = an->und[0], *yv = an->und[1];
	const long dmin = xoff - ylim, dmax = xlim - yoff;
	const long fmid = xoff - yoff, bmid = xlim - ylim;
	long fmin = fmid, fmax = fmid, bmin = bmid, bmax = bmid;
	bool odd = (fmid - bmid) & 1;

	fd[fmid] = xoff;
	bd[bmid] = xlim;
	for (long c = 1;; ++c) {
		long d;

		if (fmin > dmin)
			fd[--fmin - 1] = -1;
		else
			++fmin;
		if (fmax < dmax)
			fd[++fmax + 1] = -1;
		else
			--fmax;
		for (d = fmax; d >= fmin; d -= 2) {
			long tlo = fd[d - 1], thi = fd[d + 1];
			long x = tlo < thi ? thi : tlo + 1, y = x - d;

			while (x < xlim && y < ylim && xv[x] == yv[y])
				x++, y++;
			fd[d] = x;
			if (odd && bmin <= d && d <= bmax && bd[d] <= x) {
				*part = (struct partition){ x, y, true, true };
				return;
			}
		}
		if (bmin > dmin)
			bd[--bmin - 1] = LONG_MAX;
		else
			++bmin;
		if (bmax < dmax)
			bd[++bmax + 1] = LONG_MAX;
		else
			--bmax;
		for (d = bmax; d >= bmin; d -= 2) {
			long tlo = bd[d - 1], thi = bd[d + 1];
			long x = tlo < thi ? tlo : thi - 1, y = x - d;

			while (xoff < x && yoff < y && xv[x - 1] == yv[y - 1])
				x--, y--;
			bd[d] = x;
			if (!odd && fmin <= d && d <= fmax && x <= fd[d]) {
				*part = (struct partition){ x, y, true, true };
				return;
			}
		}
		if (!find_minimal && c >= an->too_expensive) {
			give_up(an, xoff, xlim, yoff, ylim, fmin, fmax, bmin, bmax, part);
			return;
		}
	}
}

static void compareseq(struct analysis *an, long xoff, long xlim, long yoff, long ylim,
		       bool find_minimal)
{
	const long *xv = an->und[0], *yv = an->und[1];
	struct partition part;

	while (xoff < xlim && yoff < ylim && xv[xoff] == yv[yoff])
		xoff++, yoff++;
	while (xoff < xlim && yoff < ylim && xv[xlim - 1] == yv[ylim - 1])
		xlim--, ylim--;
	if (xoff == xlim) {
		while (yoff < ylim)
			an->changed[1][an->real[1][yoff++]] = 1;
	} else if (yoff == ylim) {
		while (xoff < xlim)
			an->changed[0][an->real[0][xoff++]] = 1;
	} else {
		middle_snake(an, xoff, xlim, yoff, ylim, find_minimal, &part);
		compareseq(an, xoff, part.xmid, yoff, part.ymid, part.lo_minimal);
		compareseq(an, part.xmid, xlim, part.ymid, ylim, part.hi_minimal);
	}
}

static void search(struct analysis *an)
{
	long diags = an->nund[0] + an->nund[1] + 3, te = 1;
	long *space = vw_xcalloc(2 * (size_t)diags, sizeof(long));

	an->fd = space + an->nund[1] + 1;
	an->bd = space + diags + an->nund[1] + 1;
	for (long k = diags; k != 0; k >>= 2)
		te <<= 1;
	an->too_expensive = te > 4096 ? te : 4096;
	compareseq(an, 0, an->nund[0], 0, an->nund[1], false);
	free(space);
}

/* Step 5: slide runs of changes over identical lines, merging with
 * neighbouring runs where possible, ending aligned with the other file. */
static void shift_side(struct analysis *an, int f)
{
	char *changed = an->changed[f], *other = an->changed[1 - f];
	const long *eq = an->eq[f];
	long i = 0, j = 0, i_end = an->n[f];

	for (;;) {
		long start, runlength, corresponding;

		while (i < i_end && !changed[i]) {
			while (other[j++])
				;
			i++;
		}
		if (i == i_end)
			break;
		start = i;
		while (changed[++i])
			;
		while (other[j])
			j++;
		do {
			runlength = i - start;
			while (start && eq[start - 1] == eq[i - 1]) {
				changed[--start] = 1;
				changed[--i] = 0;
				while (changed[start - 1])
					start--;
				while (other[--j])
					;
			}
			corresponding = other[j - 1] ? i : i_end;
			while (i != i_end && eq[start] == eq[i]) {
				changed[start++] = 0;
				changed[i++] = 1;
				while (changed[i])
					i++;
				while (other[++j])
					corresponding = i;
			}
		} while (runlength != i - start);
		while (corresponding < i) {
			changed[--start] = 1;
			changed[--i] = 0;
			while (other[--j])
				;
		}
	}
}

static struct change *build_script(const struct analysis *an, size_t *count)
{
	const char *c0 = an->changed[0], *c1 = an->changed[1];
	struct change *v = NULL;
	long i0 = 0, i1 = 0;
	size_t n = 0;

	while (i0 < an->n[0] || i1 < an->n[1]) {
		if (c0[i0] | c1[i1]) {
			long l0 = i0, l1 = i1;

			while (c0[i0])
				i0++;
			while (c1[i1])
				i1++;
			v = vw_xreallocarray(v, n + 1, sizeof(*v));
			v[n++] = (struct change){ an->pre + l0, an->pre + l1, i0 - l0, i1 - l1 };
		}
		i0++, i1++;
	}
	*count = n;
	return v;
}

static struct change *analyse(const struct side *a, const struct side *b, long context,
			      size_t *count)
{
	const struct side *s[2] = { a, b };
	struct analysis an = { 0 };
	struct change *script;
	size_t head = identical_head(a, b, context);
	long tail;

	an.pre = line_at(a, head);
	tail = identical_tail(a, b, head, context);
	an.n[0] = a->n - an.pre - tail;
	an.n[1] = b->n - an.pre - tail;
	classify(&an, s);
	for (int f = 0; f < 2; f++)
		an.changed[f] = (char *)vw_xcalloc((size_t)an.n[f] + 2, 1) + 1;
	discard_lines(&an);
	search(&an);
	shift_side(&an, 0);
	shift_side(&an, 1);
	script = build_script(&an, count);
	for (int f = 0; f < 2; f++) {
		free(an.eq[f]);
		free(an.und[f]);
		free(an.real[f]);
		free(an.changed[f] - 1);
	}
	return script;
}

/* Step 6. */
static void print_range(struct vw_buf *out, long first, long last)
{
	long a = first + 1, b = last + 1;

	/* An empty range names the line before it, as patch(1) expects. */
	if (b < a)
		vw_buf_printf(out, "%ld,0", b);
	else if (b == a)
		vw_buf_printf(out, "%ld", b);
	else
		vw_buf_printf(out, "%ld,%ld", a, b - a + 1);
}

static void print_line(struct vw_buf *out, char mark, const struct side *s, long l)
{
	size_t from = s->off[l], to = s->off[l + 1];

	vw_buf_addc(out, mark);
	vw_buf_add(out, s->buf + from, to - from);
	if (l == s->n - 1 && s->incomplete)
		vw_buf_adds(out, "\n\\ No newline at end of file\n");
}

static void print_hunk(struct vw_buf *out, const struct side *a, const struct side *b,
		       const struct change *c, size_t n, long context)
{
	const struct change *z = &c[n - 1];
	long first0 = c->line0 - context, last0 = z->line0 + z->del - 1 + context;
	long first1 = c->line1 - context, last1 = z->line1 + z->ins - 1 + context;
	long i, j;
	size_t k = 0;

	first0 = first0 < 0 ? 0 : first0;
	first1 = first1 < 0 ? 0 : first1;
	last0 = last0 > a->n - 1 ? a->n - 1 : last0;
	last1 = last1 > b->n - 1 ? b->n - 1 : last1;
	vw_buf_adds(out, "@@ -");
	print_range(out, first0, last0);
	vw_buf_adds(out, " +");
	print_range(out, first1, last1);
	vw_buf_adds(out, " @@\n");
	for (i = first0, j = first1; i <= last0 || j <= last1;) {
		if (k == n || i < c[k].line0) {
			print_line(out, ' ', a, i++);
			j++;
			continue;
		}
		for (long d = 0; d < c[k].del; d++)
			print_line(out, '-', a, i++);
		for (long d = 0; d < c[k].ins; d++)
			print_line(out, '+', b, j++);
		k++;
	}
}

static void print_hunks(struct vw_buf *out, const struct side *a, const struct side *b,
			const struct change *c, size_t n, long context)
{
	for (size_t h = 0; h < n;) {
		size_t e = h + 1;

		/* Changes whose contexts meet share a hunk. */
		while (e < n && c[e].line0 - (c[e - 1].line0 + c[e - 1].del) < 2 * context + 1)
			e++;
		print_hunk(out, a, b, c + h, e - h, context);
		h = e;
	}
}

int vw_diff_unified(struct vw_buf *out, const char *a, size_t alen, const char *b, size_t blen,
		    const char *label_a, const char *label_b, int context)
{
	struct side sa, sb;
	struct change *script;
	size_t n;

	if (context < 0)
		return -EINVAL;
	if (alen == blen && (alen == 0 || !memcmp(a, b, alen)))
		return 0;
	label_a = label_a ? label_a : "/dev/null";
	label_b = label_b ? label_b : "/dev/null";
	if ((alen && memchr(a, '\0', alen)) || (blen && memchr(b, '\0', blen))) {
		vw_buf_printf(out, "Binary files %s and %s differ\n", label_a, label_b);
		return 1;
	}
	split_lines(&sa, alen ? a : "", alen);
	split_lines(&sb, blen ? b : "", blen);
	script = analyse(&sa, &sb, context, &n);
	vw_buf_printf(out, "--- %s\n+++ %s\n", label_a, label_b);
	print_hunks(out, &sa, &sb, script, n, context);
	free(script);
	free(sa.off);
	free(sb.off);
	return 1;
}
