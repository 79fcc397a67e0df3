/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nvlink.c - nvidia-smi parsers and NVLink sets. */
#include "nvlink.h"
#include "exec.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_TOKENS (VW_NVLINK_MAX_COLS + 16)
#define MAX_GPU_INDEX 9999

/* ---- text cleaning and tokens --------------------------------------- */

/* A copy of text with ANSI escape sequences and carriage returns removed
 * and NUL bytes turned into blanks, so that the rest can use C strings.
 * nvidia-smi underlines the header of its matrices with ESC[4m ... ESC[0m. */
static char *clean_text(const char *text, size_t len)
{
	char *out = vw_xmalloc(len + 1), *o = out;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c == 0x1b) {
			/* CSI: ESC [ parameters intermediates final; other
			 * escapes: ESC and one byte. */
			if (i + 1 < len && text[i + 1] == '[') {
				i += 2;
				while (i < len && (unsigned char)text[i] >= 0x20 &&
				       (unsigned char)text[i] <= 0x3f)
					i++;
				while (i < len && (unsigned char)text[i] >= 0x20 &&
				       (unsigned char)text[i] <= 0x2f)
					i++;
				/* i now sits on the final byte (or past the end) */
			} else if (i + 1 < len) {
				i++;
			}
			continue;
		}
		if (c == '\r')
			continue;
		*o++ = c == 0 ? ' ' : (char)c;
	}
	*o = '\0';
	return out;
}

/* Next line of *s (in place: the '\n' becomes NUL); NULL at the end. */
static char *next_line(char **s)
{
	char *line = *s, *nl;

	if (!line || !*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*s = nl + 1;
	} else {
		*s = line + strlen(line);
	}
	return line;
}

static bool is_blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c < 0x20 || c == 0x7f;
}

/* Split line in place on blanks.  Returns the count, or max + 1 when the
 * line has more than max words (the words past max are not stored). */
static size_t tokenize(char *line, char **tok, size_t max)
{
	size_t n = 0;

	for (char *p = line; *p;) {
		while (*p && is_blank((unsigned char)*p))
			p++;
		if (!*p)
			break;
		if (n == max)
			return max + 1;
		tok[n++] = p;
		while (*p && !is_blank((unsigned char)*p))
			p++;
		if (*p)
			*p++ = '\0';
	}
	return n;
}

/* First non-empty line of text, trimmed and shortened, for messages.
 * Caller frees. */
static char *first_line(const char *text, size_t len)
{
	char *c = clean_text(text, len), *s = c, *line, *r = NULL;

	while ((line = next_line(&s))) {
		line = vw_strtrim(line);
		if (*line) {
			if (strlen(line) > 160)
				strcpy(line + 157, "...");
			for (char *p = line; *p; p++)
				if ((unsigned char)*p < 0x20)
					*p = ' ';
			r = vw_xstrdup(line);
			break;
		}
	}
	free(c);
	return r ? r : vw_xstrdup("");
}

/* "GPU12" -> 12, or -1. */
static int gpu_label(const char *s)
{
	char *end;
	long v;

	if (strncmp(s, "GPU", 3) || !isdigit((unsigned char)s[3]) || strlen(s) > 7)
		return -1;
	v = strtol(s + 3, &end, 10);
	return *end || v > MAX_GPU_INDEX ? -1 : (int)v;
}

/* A matrix column label: GPUn, NICn, or a device name such as mlx5_0
 * (lowercase letters, digits and '_', ending in a digit).  Cell values
 * (X, NV18, SYS, OK) never look like this. */
static bool is_label(const char *s)
{
	size_t n = strlen(s);

	if (gpu_label(s) >= 0)
		return true;
	if (!strncmp(s, "NIC", 3) && n > 3 && n < 8 && strspn(s + 3, "0123456789") == n - 3)
		return true;
	if (n < 2 || n > 32 || !islower((unsigned char)s[0]) || !isdigit((unsigned char)s[n - 1]))
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
}

/* ---- the matrix shared by topo -m and topo -p2p ---------------------- */

enum { EXTRA_CPU, EXTRA_NUMA, EXTRA_GPU_NUMA, NEXTRA };

struct matrix {
	char *buf;			/* cleaned text the pointers point into */
	size_t ncols;
	char **col;			/* column labels */
	size_t nrows;
	char **row;			/* row labels */
	char **cell;			/* nrows * ncols */
	char **extra;			/* nrows * NEXTRA, NULL when absent */
	int extra_kind[NEXTRA];		/* order of the trailing header fields */
	size_t nextra;
};

static void matrix_done(struct matrix *m)
{
	free(m->buf);
	free(m->col);
	free(m->row);
	free(m->cell);
	free(m->extra);
	memset(m, 0, sizeof(*m));
}

/* The header's words after the labels: "CPU Affinity NUMA Affinity GPU NUMA
 * ID".  Records which fields follow the matrix in each row, in order. */
static void header_trailer(struct matrix *m, char **tok, size_t n)
{
	for (size_t i = 0; i < n && m->nextra < NEXTRA; i++) {
		if (i + 1 < n && !strcmp(tok[i], "CPU") && !strcmp(tok[i + 1], "Affinity"))
			m->extra_kind[m->nextra++] = EXTRA_CPU, i++;
		else if (i + 1 < n && !strcmp(tok[i], "NUMA") && !strcmp(tok[i + 1], "Affinity"))
			m->extra_kind[m->nextra++] = EXTRA_NUMA, i++;
		else if (i + 2 < n && !strcmp(tok[i], "GPU") && !strcmp(tok[i + 1], "NUMA") &&
			 !strcmp(tok[i + 2], "ID"))
			m->extra_kind[m->nextra++] = EXTRA_GPU_NUMA, i += 2;
	}
}

/* what: "topology" or "P2P status", for messages. */
static int matrix_parse(const char *text, size_t len, struct matrix *m, const char *what,
			struct vw_err *err)
{
	char *s, *line, *tok[MAX_TOKENS];
	bool header = false;

	memset(m, 0, sizeof(*m));
	m->buf = clean_text(text, len);
	s = m->buf;
	while ((line = next_line(&s))) {
		size_t n = tokenize(line, tok, MAX_TOKENS);

		if (n > MAX_TOKENS)
			return vw_err_set(err, -EINVAL, _("nvidia-smi %s: a line has too many columns"), what);
		if (!header) {
			size_t c = 0;

			/* The header: the first line that starts with GPUn. */
			if (!n || gpu_label(tok[0]) < 0)
				continue;
			while (c < n && is_label(tok[c]))
				c++;
			if (c > VW_NVLINK_MAX_COLS)
				return vw_err_set(err, -EINVAL, _("nvidia-smi %s: too many columns"), what);
			m->ncols = c;
			m->col = vw_xcalloc(c, sizeof(*m->col));
			memcpy(m->col, tok, c * sizeof(*tok));
			header_trailer(m, tok + c, n - c);
			header = true;
			continue;
		}
		if (!n || !is_label(tok[0])) {
			if (m->nrows)
				break;		/* the legend follows the matrix */
			continue;
		}
		if (n < 1 + m->ncols)
			return vw_err_set(err, -EINVAL,
					  _("nvidia-smi %s: row %s has %zu cells, the header has %zu columns"),
					  what, tok[0], n - 1, m->ncols);
		if (m->nrows == VW_NVLINK_MAX_COLS)
			return vw_err_set(err, -EINVAL, _("nvidia-smi %s: too many rows"), what);
		m->row = vw_xreallocarray(m->row, m->nrows + 1, sizeof(*m->row));
		m->cell = vw_xreallocarray(m->cell, (m->nrows + 1) * (m->ncols ? m->ncols : 1),
					   sizeof(*m->cell));
		m->extra = vw_xreallocarray(m->extra, (m->nrows + 1) * NEXTRA, sizeof(*m->extra));
		m->row[m->nrows] = tok[0];
		memcpy(&m->cell[m->nrows * m->ncols], tok + 1, m->ncols * sizeof(*tok));
		for (size_t k = 0; k < NEXTRA; k++)
			m->extra[m->nrows * NEXTRA + k] = NULL;
		for (size_t k = 0; k < m->nextra && 1 + m->ncols + k < n; k++)
			m->extra[m->nrows * NEXTRA + m->extra_kind[k]] = tok[1 + m->ncols + k];
		m->nrows++;
	}
	if (!header || !m->nrows) {
		char *first = first_line(text, len);
		int rc;

		if (*first)
			rc = vw_err_set(err, -EINVAL, _("nvidia-smi printed no %s matrix: \"%s\""), what, first);
		else
			rc = vw_err_set(err, -EINVAL, _("nvidia-smi printed nothing"));
		free(first);
		return rc;
	}
	return 0;
}

/* The GPU columns of m: their indexes, positions of their columns and rows.
 * Fills gpu[], colpos[], rowpos[] (ngpus each, caller frees) */
static int matrix_gpus(const struct matrix *m, const char *what, size_t *ngpus, int **gpu,
		       size_t **colpos, size_t **rowpos, struct vw_err *err)
{
	size_t n = 0;

	*gpu = vw_xcalloc(m->ncols ? m->ncols : 1, sizeof(**gpu));
	*colpos = vw_xcalloc(m->ncols ? m->ncols : 1, sizeof(**colpos));
	*rowpos = vw_xcalloc(m->ncols ? m->ncols : 1, sizeof(**rowpos));
	for (size_t c = 0; c < m->ncols; c++) {
		int g = gpu_label(m->col[c]);
		bool found = false;

		if (g < 0)
			continue;
		for (size_t k = 0; k < n; k++)
			if ((*gpu)[k] == g)
				return vw_err_set(err, -EINVAL, _("nvidia-smi %s: %s is listed twice"),
						  what, m->col[c]);
		for (size_t r = 0; r < m->nrows; r++) {
			if (strcmp(m->row[r], m->col[c]))
				continue;
			if (found)
				return vw_err_set(err, -EINVAL, _("nvidia-smi %s: two rows for %s"),
						  what, m->col[c]);
			(*rowpos)[n] = r;
			found = true;
		}
		if (!found)
			return vw_err_set(err, -EINVAL, _("nvidia-smi %s: no row for %s"), what, m->col[c]);
		(*gpu)[n] = g;
		(*colpos)[n] = c;
		n++;
	}
	if (!n)
		return vw_err_set(err, -EINVAL, _("nvidia-smi %s: no GPU in the matrix"), what);
	*ngpus = n;
	return 0;
}

/* matrix_parse() then matrix_gpus(); on failure nothing is left to free. */
static int gpu_matrix(const char *text, size_t len, const char *what, struct matrix *m, size_t *ngpus,
		      int **gpu, size_t **colpos, size_t **rowpos, struct vw_err *err)
{
	int rc = matrix_parse(text, len, m, what, err);

	*gpu = NULL;
	*colpos = *rowpos = NULL;
	if (!rc)
		rc = matrix_gpus(m, what, ngpus, gpu, colpos, rowpos, err);
	if (rc) {
		free(*gpu);
		free(*colpos);
		free(*rowpos);
		matrix_done(m);
	}
	return rc;
}

/* ---- topo -m ---------------------------------------------------------- */

static void decode_cell(const char *s, struct vw_topo_cell *c)
{
	static const struct {
		const char *name;
		enum vw_link_kind kind;
	} names[] = {
		{ "X", VW_LINK_SELF }, { "PIX", VW_LINK_PIX }, { "PXB", VW_LINK_PXB },
		{ "PHB", VW_LINK_PHB }, { "NODE", VW_LINK_NODE }, { "SYS", VW_LINK_SYS },
		{ "SOC", VW_LINK_SOC },
	};

	memset(c, 0, sizeof(*c));
	snprintf(c->text, sizeof(c->text), "%s", s);
	for (size_t i = 0; i < VW_ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i].name)) {
			c->kind = names[i].kind;
			return;
		}
	if (!strncmp(s, "NV", 2) && isdigit((unsigned char)s[2]) && strlen(s) <= 5 &&
	    strspn(s + 2, "0123456789") == strlen(s + 2)) {
		int links = atoi(s + 2);

		if (links > 0) {
			c->kind = VW_LINK_NVLINK;
			c->links = links;
		}
	}
}

void vw_nvlink_topo_done(struct vw_nvlink_topo *t)
{
	for (size_t i = 0; i < t->ngpus; i++) {
		if (t->cpu_affinity)
			free(t->cpu_affinity[i]);
		if (t->numa_affinity)
			free(t->numa_affinity[i]);
	}
	free(t->cpu_affinity);
	free(t->numa_affinity);
	free(t->gpu);
	free(t->cell);
	memset(t, 0, sizeof(*t));
}

int vw_nvlink_parse_topo(const char *text, size_t len, struct vw_nvlink_topo *out,
			 struct vw_err *err)
{
	struct matrix m;
	size_t *colpos = NULL, *rowpos = NULL, n = 0;
	int *gpu = NULL, rc;

	memset(out, 0, sizeof(*out));
	rc = gpu_matrix(text, len, "topology", &m, &n, &gpu, &colpos, &rowpos, err);
	if (rc)
		return rc;
	out->ngpus = n;
	out->gpu = gpu;
	out->nnics = m.ncols - n;
	out->cell = vw_xcalloc(n * n, sizeof(*out->cell));
	out->cpu_affinity = vw_xcalloc(n, sizeof(char *));
	out->numa_affinity = vw_xcalloc(n, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		char **ex = &m.extra[rowpos[i] * NEXTRA];

		for (size_t j = 0; j < n; j++)
			decode_cell(m.cell[rowpos[i] * m.ncols + colpos[j]], &out->cell[i * n + j]);
		out->cpu_affinity[i] = vw_xstrdup(ex[EXTRA_CPU] ? ex[EXTRA_CPU] : "");
		out->numa_affinity[i] = vw_xstrdup(ex[EXTRA_NUMA] ? ex[EXTRA_NUMA] : "");
	}
	free(colpos);
	free(rowpos);
	matrix_done(&m);
	return 0;
}

int vw_nvlink_topo_pos(const struct vw_nvlink_topo *t, int gpu)
{
	for (size_t i = 0; i < t->ngpus; i++)
		if (t->gpu[i] == gpu)
			return (int)i;
	return -1;
}

const struct vw_topo_cell *vw_nvlink_topo_cell(const struct vw_nvlink_topo *t, size_t i, size_t j)
{
	return &t->cell[i * t->ngpus + j];
}

const char *vw_topo_cell_name(const struct vw_topo_cell *c)
{
	return *c->text ? c->text : "?";
}

/* ---- topo -p2p -------------------------------------------------------- */

static enum vw_p2p_status decode_p2p(const char *s)
{
	static const char *const names[] = {
		[VW_P2P_SELF] = "X", [VW_P2P_OK] = "OK", [VW_P2P_CNS] = "CNS",
		[VW_P2P_GNS] = "GNS", [VW_P2P_TNS] = "TNS", [VW_P2P_NS] = "NS", [VW_P2P_U] = "U",
	};

	for (size_t i = 1; i < VW_ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i]))
			return (enum vw_p2p_status)i;
	return VW_P2P_UNKNOWN;
}

const char *vw_p2p_name(enum vw_p2p_status s)
{
	static const char *const names[] = {
		[VW_P2P_UNKNOWN] = "?", [VW_P2P_SELF] = "X", [VW_P2P_OK] = "OK",
		[VW_P2P_CNS] = "CNS", [VW_P2P_GNS] = "GNS", [VW_P2P_TNS] = "TNS",
		[VW_P2P_NS] = "NS", [VW_P2P_U] = "U",
	};
	return (unsigned)s < VW_ARRAY_SIZE(names) ? names[s] : "?";
}

void vw_p2p_done(struct vw_p2p *p)
{
	free(p->gpu);
	free(p->st);
	memset(p, 0, sizeof(*p));
}

int vw_nvlink_parse_p2p(const char *text, size_t len, struct vw_p2p *out, struct vw_err *err)
{
	struct matrix m;
	size_t *colpos = NULL, *rowpos = NULL, n = 0;
	int *gpu = NULL, rc;

	memset(out, 0, sizeof(*out));
	rc = gpu_matrix(text, len, "P2P status", &m, &n, &gpu, &colpos, &rowpos, err);
	if (rc)
		return rc;
	out->ngpus = n;
	out->gpu = gpu;
	out->st = vw_xcalloc(n * n, sizeof(*out->st));
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			out->st[i * n + j] = decode_p2p(m.cell[rowpos[i] * m.ncols + colpos[j]]);
	free(colpos);
	free(rowpos);
	matrix_done(&m);
	return 0;
}

bool vw_p2p_all_ok(const struct vw_p2p *p)
{
	if (p->ngpus < 2)
		return false;
	for (size_t i = 0; i < p->ngpus; i++)
		for (size_t j = 0; j < p->ngpus; j++)
			if (i != j && p->st[i * p->ngpus + j] != VW_P2P_OK)
				return false;
	return true;
}

/* ---- nvlink -s -------------------------------------------------------- */

void vw_nvlink_status_done(struct vw_nvlink_status *s)
{
	for (size_t i = 0; i < s->ngpus; i++) {
		free(s->gpus[i].name);
		free(s->gpus[i].gbps);
	}
	free(s->gpus);
	memset(s, 0, sizeof(*s));
}

static bool contains_ci(const char *s, const char *needle)
{
	size_t n = strlen(needle);

	for (; *s; s++)
		if (!strncasecmp(s, needle, n))
			return true;
	return false;
}

int vw_nvlink_parse_status(const char *text, size_t len, struct vw_nvlink_status *out,
			   struct vw_err *err)
{
	char *buf = clean_text(text, len), *s = buf, *line;
	struct vw_nvlink_links *cur = NULL;

	memset(out, 0, sizeof(*out));
	while ((line = next_line(&s))) {
		char *end;
		long v;

		line = vw_strtrim(line);
		if (!strncmp(line, "GPU ", 4) && isdigit((unsigned char)line[4])) {
			char *name, *uuid;

			v = strtol(line + 4, &end, 10);
			if (*end != ':' || v > MAX_GPU_INDEX)
				continue;
			if (out->ngpus == VW_NVLINK_MAX_COLS) {
				free(buf);
				vw_nvlink_status_done(out);
				return vw_err_set(err, -EINVAL, _("nvidia-smi nvlink: too many GPUs"));
			}
			out->gpus = vw_xreallocarray(out->gpus, out->ngpus + 1, sizeof(*out->gpus));
			cur = &out->gpus[out->ngpus++];
			memset(cur, 0, sizeof(*cur));
			cur->gpu = (int)v;
			name = vw_strtrim(end + 1);
			uuid = strstr(name, "(UUID:");
			if (uuid)
				*uuid = '\0';
			cur->name = vw_xstrdup(vw_strtrim(name));
			continue;
		}
		if (!cur)
			continue;
		if (contains_ci(line, "all links are inactive")) {
			cur->all_inactive = true;
			continue;
		}
		if (strncmp(line, "Link ", 5) || !isdigit((unsigned char)line[5]))
			continue;
		v = strtol(line + 5, &end, 10);
		if (*end != ':' || v >= VW_NVLINK_MAX_LINKS)
			continue;
		if (cur->nlinks == VW_NVLINK_MAX_LINKS) {
			int gpu = cur->gpu;

			free(buf);
			vw_nvlink_status_done(out);
			return vw_err_set(err, -EINVAL, _("nvidia-smi nvlink: too many links on GPU %d"), gpu);
		}
		cur->gbps = vw_xreallocarray(cur->gbps, cur->nlinks + 1, sizeof(*cur->gbps));
		{
			char *val = vw_strtrim(end + 1), *unit;
			double g = strtod(val, &unit);

			/* "26.562 GB/s"; anything else ("<inactive>") is down. */
			if (unit != val && g > 0 && g < 1e6 && vw_startswith(vw_strtrim(unit), "GB/s")) {
				cur->gbps[cur->nlinks++] = g;
				cur->nactive++;
			} else {
				cur->gbps[cur->nlinks++] = -1;
			}
		}
	}
	if (!out->ngpus) {
		char *first = first_line(text, len);
		int rc = *first ? vw_err_set(err, -EINVAL, _("nvidia-smi printed no NVLink status: \"%s\""), first)
				: vw_err_set(err, -EINVAL, _("nvidia-smi printed nothing"));

		free(first);
		free(buf);
		return rc;
	}
	free(buf);
	return 0;
}

double vw_nvlink_links_min_speed(const struct vw_nvlink_links *g)
{
	double m = 0;

	for (size_t i = 0; i < g->nlinks; i++)
		if (g->gbps[i] > 0 && (m == 0 || g->gbps[i] < m))
			m = g->gbps[i];
	return m;
}

/* ---- bus ids ---------------------------------------------------------- */

static int hexnum(const char *s, size_t n, size_t maxdigits, unsigned long *v)
{
	if (!n || n > maxdigits)
		return -1;
	*v = 0;
	for (size_t i = 0; i < n; i++) {
		int c = tolower((unsigned char)s[i]);

		if (!isxdigit(c))
			return -1;
		*v = *v * 16 + (unsigned long)(isdigit(c) ? c - '0' : c - 'a' + 10);
	}
	return 0;
}

int vw_pci_addr_normalize(const char *in, char out[16])
{
	const char *c1 = strchr(in, ':'), *c2, *dot;
	unsigned long dom = 0, bus, dev, fn;
	const char *b;

	if (!c1)
		return -EINVAL;
	c2 = strchr(c1 + 1, ':');
	if (c2) {
		/* nvidia-smi prints 8 digits; Linux domains fit in 5 (VMD
		 * uses 10000-1ffff), which keeps the result in 16 bytes. */
		if (hexnum(in, (size_t)(c1 - in), 8, &dom) < 0 || dom > 0xfffff)
			return -EINVAL;
		b = c1 + 1;
	} else {
		c2 = c1;
		b = in;
	}
	dot = strchr(c2 + 1, '.');
	if (!dot || hexnum(b, (size_t)(c2 - b), 2, &bus) < 0 ||
	    hexnum(c2 + 1, (size_t)(dot - c2 - 1), 2, &dev) < 0 ||
	    hexnum(dot + 1, strlen(dot + 1), 1, &fn) < 0 || dev > 0x1f || fn > 7)
		return -EINVAL;
	snprintf(out, 16, "%04lx:%02lx:%02lx.%lu", dom, bus, dev, fn);
	return 0;
}

int vw_nvlink_parse_busids(const char *text, size_t len, struct vw_gpu_busid **out,
			   size_t *n, struct vw_err *err)
{
	char *buf = clean_text(text, len), *s = buf, *line;
	int rc = 0;

	*out = NULL;
	*n = 0;
	while ((line = next_line(&s))) {
		char *comma, *end, *left;
		long idx;
		struct vw_gpu_busid *b;

		line = vw_strtrim(line);
		if (!*line)
			continue;
		/* "0, 00000000:00:06.0" */
		comma = strchr(line, ',');
		if (!comma || *n == VW_NVLINK_MAX_COLS) {
			rc = -EINVAL;
			break;
		}
		*comma = '\0';
		left = vw_strtrim(line);
		idx = strtol(left, &end, 10);
		if (end == left || *end || idx < 0 || idx > MAX_GPU_INDEX) {
			rc = -EINVAL;
			break;
		}
		*out = vw_xreallocarray(*out, *n + 1, sizeof(**out));
		b = &(*out)[(*n)++];
		b->gpu = (int)idx;
		if (vw_pci_addr_normalize(vw_strtrim(comma + 1), b->addr) < 0) {
			rc = -EINVAL;
			break;
		}
		for (size_t k = 0; k + 1 < *n; k++)
			if ((*out)[k].gpu == b->gpu) {
				rc = -EINVAL;
				break;
			}
		if (rc)
			break;
	}
	free(buf);
	if (!rc && !*n)
		rc = -EINVAL;
	if (rc) {
		char *first = first_line(text, len);

		free(*out);
		*out = NULL;
		*n = 0;
		vw_err_set(err, rc, _("nvidia-smi printed no usable GPU bus ids: \"%s\""), first);
		free(first);
	}
	return rc;
}

/* ---- NVLink sets ------------------------------------------------------ */

static void note(struct vw_nvlink *nl, char *msg)
{
	nl->notes = vw_xreallocarray(nl->notes, nl->nnotes + 1, sizeof(*nl->notes));
	nl->notes[nl->nnotes++] = msg;
}

void vw_nvlink_done(struct vw_nvlink *nl)
{
	for (size_t i = 0; i < nl->nsets; i++) {
		for (size_t k = 0; k < nl->sets[i].n; k++)
			free(nl->sets[i].addrs[k]);
		free(nl->sets[i].addrs);
	}
	free(nl->sets);
	for (size_t i = 0; i < nl->nnotes; i++)
		free(nl->notes[i]);
	free(nl->notes);
	memset(nl, 0, sizeof(*nl));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_set(const void *a, const void *b)
{
	const struct vw_nvlink_set *x = a, *y = b;
	return strcmp(x->addrs[0], y->addrs[0]);
}

static bool set_has(const struct vw_nvlink_set *s, const char *addr)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->addrs[i], addr))
			return true;
	return false;
}

static void set_add(struct vw_nvlink_set *s, const char *addr)
{
	if (set_has(s, addr))
		return;
	s->addrs = vw_xreallocarray(s->addrs, s->n + 1, sizeof(*s->addrs));
	s->addrs[s->n++] = vw_xstrdup(addr);
}

static struct vw_nvlink_set *new_set(struct vw_nvlink *nl)
{
	struct vw_nvlink_set *s;

	nl->sets = vw_xreallocarray(nl->sets, nl->nsets + 1, sizeof(*nl->sets));
	s = &nl->sets[nl->nsets++];
	memset(s, 0, sizeof(*s));
	return s;
}

static void finish_sets(struct vw_nvlink *nl)
{
	for (size_t i = 0; i < nl->nsets; i++)
		if (nl->sets[i].n > 1)	/* qsort(NULL, 0, ...) is undefined */
			qsort(nl->sets[i].addrs, nl->sets[i].n, sizeof(char *), cmp_str);
	if (nl->nsets > 1)
		qsort(nl->sets, nl->nsets, sizeof(*nl->sets), cmp_set);
}

static bool is_nvidia_gpu(const struct vw_pci_dev *d)
{
	return d->vendor == 0x10de && d->role == VW_ROLE_GPU;
}

static size_t count_switches(const struct vw_facts *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->ndevs; i++)
		n += f->devs[i].role == VW_ROLE_NVSWITCH;
	return n;
}

static int find_root(int *parent, int i)
{
	while (parent[i] != i)
		i = parent[i] = parent[parent[i]];
	return i;
}

/* Addresses of f's NVIDIA GPUs in address order, for the fallback mapping:
 * nvidia-smi numbers the GPUs its driver owns by PCI bus id. */
static size_t nvidia_gpus(const struct vw_facts *f, bool driver_only, const char **addr, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < f->ndevs; i++) {
		const struct vw_pci_dev *d = &f->devs[i];

		if (!is_nvidia_gpu(d) || (driver_only && strcmp(d->driver, "nvidia")))
			continue;
		if (n < max)
			addr[n] = d->addr;
		n++;
	}
	return n;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int vw_nvlink_build(struct vw_nvlink *nl, const struct vw_nvlink_topo *t,
		    const struct vw_gpu_busid *map, size_t n, const struct vw_facts *f,
		    struct vw_err *err)
{
	size_t ng = t->ngpus, nsw = count_switches(f), multi = 0;
	const char **addr = vw_xcalloc(ng ? ng : 1, sizeof(*addr));
	int *parent = vw_xcalloc(ng ? ng : 1, sizeof(*parent));
	size_t *set_of = vw_xcalloc(ng ? ng : 1, sizeof(*set_of));

	if (map) {
		for (size_t i = 0; i < ng; i++) {
			for (size_t k = 0; k < n && !addr[i]; k++)
				if (map[k].gpu == t->gpu[i])
					addr[i] = map[k].addr;
			if (!addr[i]) {
				free(addr);
				free(parent);
				free(set_of);
				return vw_err_set(err, -EINVAL, _("nvidia-smi lists GPU%d but not its PCI bus id"),
						  t->gpu[i]);
			}
		}
	} else {
		const char **by_addr = vw_xcalloc(ng ? ng : 1, sizeof(*by_addr));
		int *sorted = vw_xcalloc(ng ? ng : 1, sizeof(*sorted));
		size_t have = nvidia_gpus(f, true, by_addr, ng);

		if (have != ng)
			have = nvidia_gpus(f, false, by_addr, ng);
		if (have != ng) {
			free(by_addr);
			free(sorted);
			free(addr);
			free(parent);
			free(set_of);
			return vw_err_set(err, -EINVAL,
					  _("nvidia-smi lists %zu GPUs but this host has %zu NVIDIA GPUs: cannot tell which is which"),
					  ng, have);
		}
		/* An empty matrix has no gpu array: memcpy and qsort from
		 * NULL are undefined, even for 0 bytes. */
		if (ng) {
			memcpy(sorted, t->gpu, ng * sizeof(*sorted));
			qsort(sorted, ng, sizeof(*sorted), cmp_int);
		}
		for (size_t i = 0; i < ng; i++)
			for (size_t k = 0; k < ng; k++)
				if (sorted[k] == t->gpu[i])
					addr[i] = by_addr[k];
		free(by_addr);
		free(sorted);
		nl->order_guessed = true;
		note(nl, vw_xstrdup(_("The PCI bus ids of the GPUs were not recorded: nvidia-smi's GPU numbers were matched to the NVIDIA GPUs in PCI address order.")));
	}

	for (size_t i = 0; i < ng; i++)
		parent[i] = (int)i;
	for (size_t i = 0; i < ng; i++)
		for (size_t j = 0; j < ng; j++)
			if (i != j && vw_nvlink_topo_cell(t, i, j)->kind == VW_LINK_NVLINK)
				parent[find_root(parent, (int)i)] = find_root(parent, (int)j);

	/* One set per component of two or more GPUs. */
	for (size_t i = 0; i < ng; i++)
		set_of[i] = (size_t)-1;
	for (size_t i = 0; i < ng; i++) {
		int r = find_root(parent, (int)i);
		size_t members = 0;

		for (size_t j = 0; j < ng; j++)
			members += find_root(parent, (int)j) == r;
		if (members < 2)
			continue;
		if (set_of[r] == (size_t)-1) {
			new_set(nl);
			set_of[r] = nl->nsets - 1;
		}
		set_add(&nl->sets[set_of[r]], addr[i]);
		for (size_t j = 0; j < ng; j++) {
			const struct vw_topo_cell *c = vw_nvlink_topo_cell(t, i, j);
			struct vw_nvlink_set *s = &nl->sets[set_of[r]];

			if (c->kind == VW_LINK_NVLINK && (s->links == 0 || c->links < s->links))
				s->links = c->links;
		}
	}
	multi = nl->nsets;

	/* NVSwitches join the fabric they serve.  With several NVLink sets
	 * the switch-to-set wiring is not known, so they all become one. */
	if (nsw) {
		if (multi > 1) {
			for (size_t i = 1; i < nl->nsets; i++) {
				for (size_t k = 0; k < nl->sets[i].n; k++) {
					set_add(&nl->sets[0], nl->sets[i].addrs[k]);
					free(nl->sets[i].addrs[k]);
				}
				if (nl->sets[i].links && nl->sets[i].links < nl->sets[0].links)
					nl->sets[0].links = nl->sets[i].links;
				free(nl->sets[i].addrs);
			}
			nl->nsets = 1;
			note(nl, vw_xstrdup(_("NVSwitches are present and nvidia-smi shows several NVLink sets: they are treated as one set, since which switch serves which GPUs is not known.")));
		} else if (multi == 0) {
			const char **all = vw_xcalloc(f->ndevs ? f->ndevs : 1, sizeof(*all));
			size_t k = nvidia_gpus(f, false, all, f->ndevs);
			struct vw_nvlink_set *s = new_set(nl);

			for (size_t i = 0; i < k; i++)
				set_add(s, all[i]);
			free(all);
			note(nl, vw_xstrdup(_("NVSwitches are present but nvidia-smi shows no NVLink between the GPUs (is nvidia-fabricmanager running?): all NVIDIA GPUs and NVSwitches are treated as one set.")));
		}
		for (size_t i = 0; i < f->ndevs; i++)
			if (f->devs[i].role == VW_ROLE_NVSWITCH)
				set_add(&nl->sets[0], f->devs[i].addr);
	}
	finish_sets(nl);
	free(addr);
	free(parent);
	free(set_of);
	return 0;
}

/* All NVIDIA GPUs and NVSwitches of f as one set: the safe guess on a host
 * with NVSwitches whose topology cannot be read. */
static void infer(struct vw_nvlink *nl, const struct vw_facts *f)
{
	struct vw_nvlink_set *s;

	if (!count_switches(f))
		return;
	s = new_set(nl);
	for (size_t i = 0; i < f->ndevs; i++)
		if (is_nvidia_gpu(&f->devs[i]) || f->devs[i].role == VW_ROLE_NVSWITCH)
			set_add(s, f->devs[i].addr);
	finish_sets(nl);
	nl->source = VW_NVLINK_INFERRED;
	note(nl, vw_xstrdup(_("The NVLink topology is unknown but NVSwitches are present: all NVIDIA GPUs and NVSwitches are treated as one NVLink set.")));
}

static int run(const struct vw_sysroot *sr, const char *const argv[], struct vw_exec_result *res,
	       struct vw_nvlink *nl)
{
	struct vw_err e = { 0 };
	char *cmd = vw_exec_join(argv);
	int rc = vw_exec_run(sr, argv, res, &e);

	if (rc < 0) {
		note(nl, vw_xasprintf(_("'%s' could not be run: %s"), cmd, e.msg));
	} else if (res->status != 0) {
		char *first = first_line(res->output, res->len);

		note(nl, vw_xasprintf(_("'%s' failed (exit status %d): %s"), cmd, res->status, first));
		free(first);
		rc = -EIO;
	}
	free(cmd);
	return rc;
}

int vw_nvlink_probe(struct vw_nvlink *nl, const struct vw_sysroot *sr,
		    const struct vw_facts *f, struct vw_err *err)
{
	static const char *const topo_argv[] = { "nvidia-smi", "topo", "-m", NULL };
	static const char *const ids_argv[] = {
		"nvidia-smi", "--query-gpu=index,pci.bus_id", "--format=csv,noheader", NULL,
	};
	struct vw_exec_result res;
	struct vw_nvlink_topo t;
	struct vw_gpu_busid *map = NULL;
	size_t nmap = 0;
	struct vw_err e = { 0 };
	bool any = false;

	(void)err;
	memset(nl, 0, sizeof(*nl));
	for (size_t i = 0; i < f->ndevs; i++)
		any |= is_nvidia_gpu(&f->devs[i]);
	if (!any)
		return 0;

	if (run(sr, topo_argv, &res, nl) < 0) {
		vw_exec_result_done(&res);
		infer(nl, f);
		return 0;
	}
	if (vw_nvlink_parse_topo(res.output, res.len, &t, &e) < 0) {
		note(nl, vw_xstrdup(e.msg));
		vw_exec_result_done(&res);
		vw_nvlink_topo_done(&t);
		infer(nl, f);
		return 0;
	}
	vw_exec_result_done(&res);

	if (run(sr, ids_argv, &res, nl) == 0 &&
	    vw_nvlink_parse_busids(res.output, res.len, &map, &nmap, &e) < 0)
		note(nl, vw_xstrdup(e.msg));
	vw_exec_result_done(&res);

	/* A failed build has made no set yet (mapping comes first). */
	if (vw_nvlink_build(nl, &t, map, nmap, f, &e) < 0) {
		note(nl, vw_xstrdup(e.msg));
		infer(nl, f);
	} else {
		nl->source = vw_sysroot_is_host(sr) ? VW_NVLINK_PROBED : VW_NVLINK_RECORDED;
	}
	free(map);
	vw_nvlink_topo_done(&t);
	return 0;
}

const struct vw_nvlink_set *vw_nvlink_set_of(const struct vw_nvlink *nl, const char *addr)
{
	for (size_t i = 0; nl && i < nl->nsets; i++)
		if (set_has(&nl->sets[i], addr))
			return &nl->sets[i];
	return NULL;
}

/* ---- state file form -------------------------------------------------- */

char *vw_nvlink_to_string(const struct vw_nvlink *nl)
{
	struct vw_buf b = VW_BUF_INIT;

	vw_buf_adds(&b, "");
	for (size_t i = 0; i < nl->nsets; i++) {
		const struct vw_nvlink_set *s = &nl->sets[i];

		if (i)
			vw_buf_addc(&b, ' ');
		for (size_t k = 0; k < s->n; k++) {
			if (k)
				vw_buf_addc(&b, ',');
			vw_buf_adds(&b, s->addrs[k]);
		}
		if (s->links > 0)
			vw_buf_printf(&b, "/NV%d", s->links);
	}
	return vw_buf_steal(&b);
}

int vw_nvlink_from_string(struct vw_nvlink *nl, const char *s, struct vw_err *err)
{
	char *copy = vw_xstrdup(s ? s : ""), *save = NULL;
	int rc = 0;

	memset(nl, 0, sizeof(*nl));
	nl->source = VW_NVLINK_STATE;
	for (char *word = strtok_r(copy, " \t\n", &save); word; word = strtok_r(NULL, " \t\n", &save)) {
		char *slash = strchr(word, '/'), *save2 = NULL;
		struct vw_nvlink_set *set = new_set(nl);

		if (slash) {
			char *end;
			long links;

			*slash = '\0';
			if (strncmp(slash + 1, "NV", 2) || !isdigit((unsigned char)slash[3]))
				rc = -EINVAL;
			else if ((links = strtol(slash + 3, &end, 10)) < 1 || links > 999 || *end)
				rc = -EINVAL;
			if (rc) {
				vw_err_set(err, rc, _("NVLink state: bad link count \"%s\""), slash + 1);
				break;
			}
			set->links = (int)links;
		}
		for (char *a = strtok_r(word, ",", &save2); a; a = strtok_r(NULL, ",", &save2)) {
			char addr[16];

			if (vw_pci_addr_normalize(a, addr) < 0) {
				rc = vw_err_set(err, -EINVAL, _("NVLink state: bad PCI address \"%s\""), a);
				break;
			}
			for (size_t i = 0; i + 1 < nl->nsets && !rc; i++)
				if (set_has(&nl->sets[i], addr))
					rc = vw_err_set(err, -EINVAL, _("NVLink state: %s is in two sets"), addr);
			if (rc)
				break;
			set_add(set, addr);
		}
		if (!rc && set->n < 2)
			rc = vw_err_set(err, -EINVAL, _("NVLink state: a set needs at least two members"));
		if (rc)
			break;
	}
	free(copy);
	if (rc) {
		vw_nvlink_done(nl);
		return rc;
	}
	finish_sets(nl);
	return 0;
}

const char *vw_nvlink_source_name(enum vw_nvlink_source s)
{
	static const char *const names[] = {
		[VW_NVLINK_NONE] = "none", [VW_NVLINK_PROBED] = "probed",
		[VW_NVLINK_RECORDED] = "recorded", [VW_NVLINK_STATE] = "state",
		[VW_NVLINK_INFERRED] = "inferred",
	};
	return (unsigned)s < VW_ARRAY_SIZE(names) ? names[s] : "none";
}
