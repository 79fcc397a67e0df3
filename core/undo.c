/* SPDX-License-Identifier: GPL-2.0-or-later */
/* undo.c - listing journals and undoing one: check every file, take the
 * post-commands back by kind, restore byte for byte (see apply.h). */
#define _GNU_SOURCE
#include "journal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "exec.h"

/* ---- listing and undo ---- */

static void strv_add(char ***v, size_t *n, const char *s)
{
	*v = vw_xreallocarray(*v, *n + 2, sizeof(char *));
	(*v)[(*n)++] = vw_xstrdup(s);
	(*v)[*n] = NULL;
}


int vw_undo_list(const struct vw_sysroot *sr, struct vw_journal_info **list, struct vw_err *err)
{
	char **names;
	int n = vw_sysroot_list(sr, VW_APPLY_JOURNAL_DIR, &names);
	size_t k = 0;

	*list = NULL;
	if (n == -ENOENT)
		return 0;
	if (n < 0)
		return vw_err_set(err, n, _("cannot read /%s: %s"), VW_APPLY_JOURNAL_DIR, strerror(-n));
	*list = vw_xcalloc((size_t)n + 1, sizeof(**list));
	/* Sorted ascending by vw_sysroot_list; ids sort by time. */
	for (int i = n - 1; i >= 0; i--) {
		struct vw_journal j;

		if (!vw_journal_valid_id(names[i]))
			continue;
		vw_journal_read(sr, names[i], &j, NULL);
		(*list)[k++] = (struct vw_journal_info){ vw_xstrdup(names[i]), vw_journal_time(names[i]),
							 j.nf, vw_journal_read_state(sr, &j) };
		vw_journal_done(&j);
	}
	vw_strv_free(names);
	return (int)k;
}

void vw_undo_list_free(struct vw_journal_info *list, size_t n)
{
	for (size_t i = 0; list && i < n; i++)
		free(list[i].id);
	free(list);
}

void vw_undo_result_done(struct vw_undo_result *res)
{
	free(res->journal_id);
	vw_strv_free(res->post);
	vw_strv_free(res->kept);
	vw_strv_free(res->images);
	vw_apply_runs_free(res->runs, res->nruns);
	for (size_t i = 0; i < res->nstale; i++) {
		free(res->stale[i].path);
		free(res->stale[i].restore);
	}
	free(res->stale);
	memset(res, 0, sizeof(*res));
}

/* Which journal: the one named, or the newest that is still in effect. */
static int pick_journal(const struct vw_sysroot *sr, const char *id, char **out,
			struct vw_err *err)
{
	struct vw_journal_info *l;
	int n;

	if (id) {
		if (!vw_journal_valid_id(id))
			return vw_err_set(err, -EINVAL, _("%s is not a journal name"), id);
		*out = vw_xstrdup(id);
		return 0;
	}
	n = vw_undo_list(sr, &l, err);
	if (n < 0)
		return n;
	for (int i = 0; i < n && !*out; i++)
		if (l[i].state != VW_JOURNAL_UNDONE && l[i].state != VW_JOURNAL_EMPTY)
			*out = vw_xstrdup(l[i].id);
	vw_undo_list_free(l, (size_t)n);
	return *out ? 0 : vw_err_set(err, -ENOENT, _("there is nothing to undo"));
}

/* Undo is a stack: a later apply still in effect that wrote one of j's
 * files holds bytes made from j's; restoring j's originals under it would
 * lose its change, and its own undo could then only put j's back.  So it
 * goes first (no --force-file for this: undo that one instead). */
static int check_later(const struct vw_sysroot *sr, const struct vw_journal *j, struct vw_err *err)
{
	struct vw_journal_info *l;
	int n = vw_undo_list(sr, &l, err), r = 0;

	if (n < 0)
		return n;
	/* Newest first: name the newest that is in the way. */
	for (int i = 0; i < n && r == 0; i++) {
		struct vw_journal k = { 0 };

		if (strcmp(l[i].id, j->id) <= 0 || l[i].state == VW_JOURNAL_UNDONE ||
		    l[i].state == VW_JOURNAL_EMPTY)
			continue;
		if (vw_journal_read(sr, l[i].id, &k, NULL) < 0)
			continue;
		for (size_t a = 0; a < k.nf && r == 0; a++)
			for (size_t b = 0; b < j->nf && r == 0; b++)
				if (!strcmp(k.f[a].path, j->f[b].path))
					r = vw_err_set(err, -EBUSY,
						       _("apply %s, made after %s and not undone, also changed /%s: undo it first (vfiowiz undo %s), then this one"),
						       k.id, j->id, k.f[a].path, k.id);
		vw_journal_done(&k);
	}
	vw_undo_list_free(l, (size_t)n);
	return r;
}

/* Where a journaled file stands now. */
enum fstate { F_OLD, F_NEW, F_OTHER, F_SKIP };

static enum fstate file_state(const struct vw_sysroot *sr, const struct vw_journal *j,
			      const struct vw_jfile *f, struct vw_target *t, struct vw_err *err, int *r)
{
	char h[HASH_LEN] = "-", *buf = NULL;
	size_t len = 0;

	*r = vw_atomic_resolve(sr, f->path, false, t, err);
	if (*r < 0)
		return F_OTHER;
	if (t->exists) {
		*r = vw_sysroot_read(sr, t->rel, &buf, &len, VW_PLAN_MAX_FILE, err);
		if (*r < 0)
			return F_OTHER;
		vw_journal_hash(j, f->secret, buf, len, h);
		free(buf);
	}
	if (f->existed ? t->exists && !strcmp(h, f->old_hash) : !t->exists)
		return F_OLD;
	if (f->removed ? !t->exists : t->exists && !strcmp(h, f->new_hash))
		return F_NEW;
	/* What our own post-commands (qm set) left is ours too. */
	if (t->exists && f->post_hash[0] && strcmp(f->post_hash, "-") && !strcmp(h, f->post_hash))
		return F_NEW;
	return F_OTHER;
}

/* The saved copy must be the original, byte for byte. */
static int load_copy(const struct vw_sysroot *sr, const struct vw_journal *j, const struct vw_jfile *f,
		     char **data, size_t *len, struct vw_err *err)
{
	char *path = vw_journal_path(j->id, f->copy), h[HASH_LEN];
	int r = vw_sysroot_read(sr, path, data, len, VW_PLAN_MAX_FILE, err);

	free(path);
	if (r < 0)
		return r;
	vw_journal_hash(j, f->secret, *data, *len, h);
	if (strcmp(h, f->old_hash)) {
		free(*data);
		*data = NULL;
		return vw_err_set(err, -EIO, _("the saved copy of /%s in journal %s is damaged"),
				  f->path, j->id);
	}
	return 0;
}

/* Is f named in list (paths as people give them: '/' optional, maybe
 * through a link such as /etc/pve/qemu-server)? */
static bool named(const struct vw_sysroot *sr, const char *const *list, const struct vw_jfile *f)
{
	for (size_t i = 0; list && list[i]; i++) {
		char *norm = vw_change_normpath(list[i], NULL), *real;
		bool hit;

		if (!norm)
			continue;
		real = vw_sysroot_realpath(sr, norm);
		hit = !strcmp(norm, f->path) || (real && !strcmp(real, f->path));
		free(real);
		free(norm);
		if (hit)
			return true;
	}
	return false;
}

static void add_stale(const struct vw_sysroot *sr, const struct vw_journal *j, const struct vw_jfile *f,
		      struct vw_undo_result *res)
{
	struct vw_undo_stale s = { vw_xstrdup(f->path), f->existed, f->secret, NULL, 0 };

	if (!f->existed || load_copy(sr, j, f, &s.restore, &s.restore_len, NULL) < 0) {
		s.restore = vw_xstrdup("");
		s.restore_len = 0;
	}
	res->stale = vw_xreallocarray(res->stale, res->nstale + 1, sizeof(*res->stale));
	res->stale[res->nstale++] = s;
}

static int undo_check(const struct vw_sysroot *sr, const struct vw_journal *j,
		      const struct vw_undo_opts *o, enum fstate *st, struct vw_undo_result *res,
		      struct vw_err *err)
{
	for (size_t i = 0; i < j->nf; i++) {
		const struct vw_jfile *f = &j->f[i];
		struct vw_target t = { 0 };
		char *data = NULL;
		size_t len;
		int r;

		st[i] = file_state(sr, j, f, &t, err, &r);
		/* Refuse a read-only target before anything is restored. */
		if (r == 0 && st[i] != F_OLD && !named(sr, o->skip, f))
			r = vw_atomic_check_writable(sr, f->path, &t, !o->dry, err);
		vw_atomic_target_done(&t);
		if (r < 0)
			return r;
		if (named(sr, o->skip, f)) {
			st[i] = F_SKIP;
			continue;
		}
		if (st[i] == F_OTHER && named(sr, o->force, f))
			st[i] = F_NEW;
		if (st[i] == F_OTHER) {
			add_stale(sr, j, f, res);
			continue;
		}
		if (st[i] == F_NEW && f->existed) {
			r = load_copy(sr, j, f, &data, &len, err);
			free(data);
			if (r < 0)
				return r;
		}
	}
	if (res->nstale)
		return vw_err_set(err, -ESTALE,
				  ngettext("/%s was changed after vfiowiz wrote it; undoing would lose those changes (undo --force-file PATH restores it all the same, --skip-file PATH leaves it and undoes the rest)",
					   "/%s and %zu more files were changed after vfiowiz wrote them; undoing would lose those changes (undo --force-file PATH restores one all the same, --skip-file PATH leaves it and undoes the rest)",
					   res->nstale),
				  res->stale[0].path, res->nstale - 1);
	return 0;
}

static int restore_one(const struct vw_sysroot *sr, const struct vw_journal *j,
		       const struct vw_jfile *f, struct vw_undo_result *res, struct vw_err *err)
{
	struct vw_target t = { 0 };
	struct vw_wspec w = { f->mode, f->uid, f->gid, true };
	char *data = NULL;
	size_t len = 0;
	int dfd, r = vw_atomic_resolve(sr, f->path, false, &t, err);

	if (r == 0 && f->existed)
		r = load_copy(sr, j, f, &data, &len, err);
	if (r == 0)
		r = vw_atomic_make_dirs(sr, &t, err);
	dfd = r == 0 ? vw_atomic_open_dir(sr, t.dir) : -1;
	if (r == 0 && dfd < 0)
		r = vw_atomic_fs_err(err, dfd, f->path);
	if (r == 0 && f->existed)
		r = vw_atomic_write_in(dfd, f->path, vw_atomic_basename(t.rel), data, len, &w, err);
	else if (r == 0 && t.exists && (unlinkat(dfd, vw_atomic_basename(t.rel), 0) < 0 || fsync(dfd) < 0))
		r = vw_atomic_fs_err(err, -errno, f->path);
	if (r == 0)
		*(f->existed ? &res->restored : &res->removed) += 1;
	if (dfd >= 0)
		close(dfd);
	free(data);
	vw_atomic_target_done(&t);
	return r;
}

/* A write killed before its rename leaves a temporary file next to a target
 * that still holds its old bytes: remove those too. */
static void clean_journal_dirs(const struct vw_sysroot *sr, const struct vw_journal *j)
{
	for (size_t i = 0; i < j->nf; i++) {
		char *dir = vw_atomic_dirname(j->f[i].path);
		int dfd = vw_atomic_open_dir(sr, dir);

		if (dfd >= 0) {
			vw_atomic_clean_temps(dfd);
			close(dfd);
		}
		free(dir);
	}
}

/* Directories the apply created, deepest first; ones that are not empty
 * (someone put files there since) stay. */
static void remove_dirs(const struct vw_sysroot *sr, const struct vw_journal *j)
{
	for (size_t i = j->ndirs; i-- > 0;) {
		char *parent = vw_atomic_dirname(j->dirs[i]);
		int pfd = vw_atomic_open_dir(sr, parent);

		free(parent);
		if (pfd < 0)
			continue;
		int dfd = vw_atomic_open_dir(sr, j->dirs[i]);
		if (dfd >= 0) {
			vw_atomic_clean_temps(dfd);
			close(dfd);
		}
		if (unlinkat(pfd, vw_atomic_basename(j->dirs[i]), AT_REMOVEDIR) == 0)
			fsync(pfd);
		close(pfd);
	}
}

static int mark_undone(const struct vw_sysroot *sr, const struct vw_journal *j, size_t skipped,
		       struct vw_err *err)
{
	char *rel = vw_journal_path(j->id, NULL), stamp[96];
	int jfd = vw_atomic_open_dir(sr, rel), r;
	time_t now = time(NULL);
	struct tm tm;
	size_t n;

	free(rel);
	if (jfd < 0)
		return vw_atomic_fs_err(err, jfd, VW_APPLY_JOURNAL_DIR);
	n = strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime_r(&now, &tm));
	snprintf(stamp + n, sizeof(stamp) - n, skipped ? " skipped=%zu\n" : "\n", skipped);
	r = vw_journal_put(jfd, j, "undone", stamp, strlen(stamp), err);
	close(jfd);
	return r;
}

/* The commands that take the post-commands back: *before* the restore, the
 * inverses of what changed state (stop, disable, undefine: while what the
 * apply made is still there), in reverse order; *after* it, the rebuilds
 * from the restored files, then what reads restored files again (define,
 * restart), in apply order. */
static void undo_posts(const struct vw_journal *j, struct vw_undo_result *res, char ***before,
		       char ***after)
{
	size_t n = 0, nb = 0, na = 0, nk = 0, ni = 0;

	*before = vw_xcalloc(1, sizeof(char *));
	*after = vw_xcalloc(1, sizeof(char *));
	for (int phase = 0; phase < 3; phase++) {
		for (size_t k = 0; k < j->npk; k++) {
			size_t i = phase == 0 ? j->npk - 1 - k : k;
			const struct vw_jpost *p = &j->pk[i];
			int ph = !p->inverse ? -1
				 : p->kind == VW_POSTK_REBUILD ? 1
				 : !strcmp(p->inverse, p->cmd) ? 2 : 0;

			if (ph != phase)
				continue;
			strv_add(&res->post, &n, p->inverse);
			if (phase == 0)
				strv_add(before, &nb, p->inverse);
			else
				strv_add(after, &na, p->inverse);
		}
	}
	for (size_t i = 0; i < j->npk; i++) {
		const struct vw_jpost *p = &j->pk[i];

		if (p->inverse)
			continue;
		strv_add(&res->kept, &nk, p->cmd);
		if (p->kind == VW_POSTK_IMAGE) {
			char *img = vw_journal_image_path(p->cmd);

			if (img)
				strv_add(&res->images, &ni, img);
			free(img);
		}
	}
}

/* Run cmds (listed only when dry or under a sysroot), appending to res->runs. */
static int undo_run(const struct vw_sysroot *sr, char **cmds, bool dry, struct vw_undo_result *res,
		    struct vw_err *err)
{
	struct vw_post_run *runs = NULL;
	size_t n = 0;
	int r = vw_apply_run_posts(sr, (const char *const *)cmds, dry, 0, &runs, &n, err);

	res->runs = vw_xreallocarray(res->runs, res->nruns + n + 1, sizeof(*res->runs));
	memcpy(res->runs + res->nruns, runs, n * sizeof(*runs));
	res->nruns += n;
	free(runs);
	return r;
}

static int undo_journal(const struct vw_sysroot *sr, struct vw_journal *j,
			const struct vw_undo_opts *o, struct vw_undo_result *res,
			struct vw_err *err)
{
	enum fstate *st = vw_xcalloc(j->nf + 1, sizeof(*st));
	char **before, **after;
	struct vw_err perr = { 0 };
	int r = 0, pr = 0;

	undo_posts(j, res, &before, &after);
	for (size_t i = 0; r == 0 && i < j->nf; i++)
		if (j->f[i].secret && !j->has_key)
			r = vw_journal_read_key(sr, j, err);
	if (r == 0)
		r = undo_check(sr, j, o, st, res, err);
	/* A command that fails (a domain already undefined by hand) does not
	 * stop the restore; it is reported and makes the undo fail. */
	if (r == 0)
		pr = undo_run(sr, before, o->dry, res, &perr);
	/* Reverse order: the last write is undone first. */
	for (size_t i = j->nf; r == 0 && i-- > 0;) {
		if (st[i] == F_OLD)
			res->unchanged++;
		else if (st[i] == F_SKIP)
			res->skipped++;
		else if (o->dry)
			*(j->f[i].existed ? &res->restored : &res->removed) += 1;
		else
			r = restore_one(sr, j, &j->f[i], res, err);
	}
	free(st);
	if (r == 0 && !o->dry) {
		clean_journal_dirs(sr, j);
		remove_dirs(sr, j);
	}
	if (r == 0) {
		struct vw_err e2 = { 0 };
		int r2 = undo_run(sr, after, o->dry, res, &e2);

		if (pr == 0 && r2 < 0) {
			pr = r2;
			perr = e2;
		}
	}
	vw_strv_free(before);
	vw_strv_free(after);
	if (r == 0 && pr < 0) {
		if (err)
			*err = perr;
		r = pr;
		res->posts_failed = true;
	}
	return r;
}

int vw_undo_opts(const struct vw_sysroot *sr, const char *id, const struct vw_undo_opts *opts,
		 struct vw_undo_result *res, struct vw_err *err)
{
	const struct vw_undo_opts none = { 0 };
	const struct vw_undo_opts *o = opts ? opts : &none;
	struct vw_journal j = { 0 };
	char *which = NULL;
	int lock = -1, r;

	memset(res, 0, sizeof(*res));
	res->post = vw_xcalloc(1, sizeof(char *));
	res->kept = vw_xcalloc(1, sizeof(char *));
	res->images = vw_xcalloc(1, sizeof(char *));
	if (!o->dry) {
		lock = vw_apply_lock(sr, err);
		if (lock < 0)
			return lock;
		vw_journal_tidy(sr, &res->tidy);
	}
	r = pick_journal(sr, id, &which, err);
	if (r == 0) {
		res->journal_id = vw_xstrdup(which);
		r = vw_journal_read(sr, which, &j, err);
	}
	if (r == 0 && vw_journal_marker(sr, which, "undone", NULL, 0))
		r = vw_err_set(err, -EALREADY, _("journal %s was already undone"), which);
	else if (r == 0 && !j.complete && !vw_journal_exists(sr, which))
		r = vw_err_set(err, -ENOENT, _("there is no journal %s"), which);
	if (r == 0 && j.complete)
		r = check_later(sr, &j, err);
	if (r == 0 && j.complete)
		r = undo_journal(sr, &j, o, res, err);
	/* The files are back even when a command failed. */
	if ((r == 0 || res->posts_failed) && !o->dry) {
		struct vw_err e2 = { 0 };
		int r2 = mark_undone(sr, &j, res->skipped, &e2);

		if (r2 < 0) {
			r = r2;
			if (err)
				*err = e2;
		}
	}
	vw_journal_done(&j);
	free(which);
	vw_apply_unlock(lock);
	return r;
}

int vw_undo(const struct vw_sysroot *sr, const char *id, struct vw_undo_result *res,
	    struct vw_err *err)
{
	return vw_undo_opts(sr, id, NULL, res, err);
}
