/* SPDX-License-Identifier: GPL-2.0-or-later */
/* apply-driver.c - drive core/apply from the shell (crash-apply.sh).
 *
 *   apply-driver plan  ROOT NEWDIR	print the number of changes and the diffs
 *   apply-driver apply ROOT NEWDIR	apply them all
 *   apply-driver undo  ROOT [ID]	undo a journal (default: the newest)
 *   apply-driver list  ROOT		list journals: id state files
 *   apply-driver check ROOT PRISTINE NEWDIR
 *					every target of NEWDIR holds either its
 *					bytes in PRISTINE (or is absent there) or
 *					its new bytes; prints "old=N new=M"
 *
 * NEWDIR mirrors the root: NEWDIR/etc/x holds the new bytes of etc/x;
 * NEWDIR/etc/x.vwremove asks for etc/x to be removed; a name ending in
 * .vwsecret is planned as a secret (the suffix is dropped).  Every change
 * gets the post-command "update-initramfs -u" (listed, never run here).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "apply.h"
#include "plan.h"
#include "diff.h"

static const char *const post[] = { "update-initramfs -u", NULL };

static int add_one(struct vw_plan *p, struct vw_sysroot *sr, struct vw_sysroot *nd,
		   const char *rel, struct vw_err *err)
{
	struct vw_file_spec s = { .mode = 0644, .why = "test", .post = post };
	char *path = vw_xstrdup(rel), *data = NULL;
	size_t n = strlen(path), len = 0;
	int r;

	if (n > 9 && !strcmp(path + n - 9, ".vwremove")) {
		path[n - 9] = '\0';
		s.flags |= VW_CHANGE_REMOVE;
	} else if (n > 9 && !strcmp(path + n - 9, ".vwsecret")) {
		path[n - 9] = '\0';
		s.flags |= VW_CHANGE_SECRET;
	}
	if (!(s.flags & VW_CHANGE_REMOVE)) {
		r = vw_sysroot_read(nd, rel, &data, &len, VW_PLAN_MAX_FILE, err);
		if (r < 0) {
			free(path);
			return r;
		}
	}
	s.path = path;
	s.data = data;
	s.len = len;
	r = vw_plan_add(p, sr, &s, err);
	free(path);
	free(data);
	return r;
}

static int walk(struct vw_plan *p, struct vw_sysroot *sr, struct vw_sysroot *nd, const char *dir,
		struct vw_err *err)
{
	char **names;
	int n = vw_sysroot_list(nd, dir, &names), r = 0;

	if (n < 0)
		return vw_err_set(err, n, "cannot list %s", dir);
	for (int i = 0; i < n && r >= 0; i++) {
		char *rel = *dir ? vw_xasprintf("%s/%s", dir, names[i]) : vw_xstrdup(names[i]);
		r = vw_sysroot_is_dir(nd, rel) ? walk(p, sr, nd, rel, err) : add_one(p, sr, nd, rel, err);
		free(rel);
	}
	vw_strv_free(names);
	return r;
}

static int cmd_plan(struct vw_sysroot *sr, const char *newdir, bool apply, struct vw_err *err)
{
	struct vw_sysroot *nd;
	struct vw_plan p;
	int r = vw_sysroot_open(&nd, newdir, err);

	if (r < 0)
		return r;
	vw_plan_init(&p);
	r = walk(&p, sr, nd, "", err);
	if (r >= 0 && !apply) {
		printf("%zu\n", p.n);
		for (size_t i = 0; i < p.n; i++) {
			struct vw_buf d = VW_BUF_INIT;
			char *la = vw_xasprintf("a/%s", p.v[i].path), *lb = vw_xasprintf("b/%s", p.v[i].path);
			vw_diff_unified(&d, p.v[i].old_data, p.v[i].old_len, p.v[i].new_data,
					p.v[i].new_len, p.v[i].old_exists ? la : NULL,
					p.v[i].remove ? NULL : lb, VW_DIFF_CONTEXT);
			if (!p.v[i].secret && d.data)
				fputs(d.data, stdout);
			vw_buf_done(&d);
			free(la);
			free(lb);
		}
	} else if (r >= 0) {
		struct vw_apply_result res;
		r = vw_apply_plan(sr, &p, NULL, &res, err);
		if (res.journal_id)
			printf("%s\n", res.journal_id);
		vw_apply_result_done(&res);
	}
	vw_plan_done(&p);
	vw_sysroot_free(nd);
	return r;
}

/* Bytes of rel under sr, or NULL when absent. */
static char *maybe_read(struct vw_sysroot *sr, const char *rel, size_t *len)
{
	char *data = NULL;

	*len = 0;
	if (vw_sysroot_read(sr, rel, &data, len, VW_PLAN_MAX_FILE, NULL) < 0)
		return NULL;
	return data;
}

static bool same(const char *a, size_t al, const char *b, size_t bl)
{
	return (!a && !b) || (a && b && al == bl && !memcmp(a, b, al));
}

struct tally {
	unsigned old, new, bad;
};

static void check_one(struct vw_sysroot *sr, struct vw_sysroot *pr, struct vw_sysroot *nd,
		      const char *rel, struct tally *t)
{
	char *path = vw_xstrdup(rel), *cur, *old, *new = NULL;
	size_t n = strlen(path), cl, ol, nl = 0;
	bool removal = n > 9 && !strcmp(path + n - 9, ".vwremove");

	if (removal || (n > 9 && !strcmp(path + n - 9, ".vwsecret")))
		path[n - 9] = '\0';
	if (!removal)
		new = maybe_read(nd, rel, &nl);
	cur = maybe_read(sr, path, &cl);
	old = maybe_read(pr, path, &ol);
	if (same(cur, cl, old, ol))
		t->old++;
	else if (same(cur, cl, new, nl))
		t->new++;
	else {
		t->bad++;
		fprintf(stderr, "/%s is neither old nor new\n", path);
	}
	free(cur);
	free(old);
	free(new);
	free(path);
}

static void check_walk(struct vw_sysroot *sr, struct vw_sysroot *pr, struct vw_sysroot *nd,
		       const char *dir, struct tally *t)
{
	char **names;
	int n = vw_sysroot_list(nd, dir, &names);

	for (int i = 0; i < n; i++) {
		char *rel = *dir ? vw_xasprintf("%s/%s", dir, names[i]) : vw_xstrdup(names[i]);
		if (vw_sysroot_is_dir(nd, rel))
			check_walk(sr, pr, nd, rel, t);
		else
			check_one(sr, pr, nd, rel, t);
		free(rel);
	}
	if (n >= 0)
		vw_strv_free(names);
}

static int cmd_check(struct vw_sysroot *sr, const char *pristine, const char *newdir,
		     struct vw_err *err)
{
	struct vw_sysroot *pr = NULL, *nd = NULL;
	struct tally t = { 0 };
	int r = vw_sysroot_open(&pr, pristine, err);

	if (r == 0)
		r = vw_sysroot_open(&nd, newdir, err);
	if (r == 0) {
		check_walk(sr, pr, nd, "", &t);
		printf("old=%u new=%u\n", t.old, t.new);
		if (t.bad)
			r = vw_err_set(err, -EIO, "%u files are neither old nor new", t.bad);
	}
	vw_sysroot_free(pr);
	vw_sysroot_free(nd);
	return r;
}

static const char *state_name(enum vw_journal_state s)
{
	static const char *const names[] = { "applied", "partial", "interrupted", "undone", "empty" };
	return names[s];
}

static int cmd_list(struct vw_sysroot *sr, struct vw_err *err)
{
	struct vw_journal_info *l;
	int n = vw_undo_list(sr, &l, err);

	for (int i = 0; i < n; i++)
		printf("%s %s %zu\n", l[i].id, state_name(l[i].state), l[i].nfiles);
	if (n > 0)
		vw_undo_list_free(l, (size_t)n);
	return n < 0 ? n : 0;
}

static int cmd_undo(struct vw_sysroot *sr, const char *id, struct vw_err *err)
{
	struct vw_undo_result res;
	int r = vw_undo(sr, id, &res, err);

	if (r == 0)
		printf("%s restored=%zu removed=%zu unchanged=%zu\n", res.journal_id, res.restored,
		       res.removed, res.unchanged);
	vw_undo_result_done(&res);
	return r;
}

int main(int argc, char **argv)
{
	struct vw_err err = { 0 };
	struct vw_sysroot *sr;
	int r;

	if (argc < 3) {
		fprintf(stderr, "usage: apply-driver plan|apply|undo|list ROOT [NEWDIR|ID]\n");
		return 2;
	}
	r = vw_sysroot_open(&sr, argv[2], &err);
	if (r == 0 && !strcmp(argv[1], "plan") && argc > 3)
		r = cmd_plan(sr, argv[3], false, &err);
	else if (r == 0 && !strcmp(argv[1], "apply") && argc > 3)
		r = cmd_plan(sr, argv[3], true, &err);
	else if (r == 0 && !strcmp(argv[1], "undo"))
		r = cmd_undo(sr, argc > 3 ? argv[3] : NULL, &err);
	else if (r == 0 && !strcmp(argv[1], "check") && argc > 4)
		r = cmd_check(sr, argv[3], argv[4], &err);
	else if (r == 0 && !strcmp(argv[1], "list"))
		r = cmd_list(sr, &err);
	else if (r == 0)
		r = vw_err_set(&err, -EINVAL, "bad command");
	if (r < 0)
		fprintf(stderr, "apply-driver: %s\n", err.msg);
	if (sr)
		vw_sysroot_free(sr);
	return r < 0 ? 1 : 0;
}
