/* SPDX-License-Identifier: GPL-2.0-or-later */
/* apply.c - applying a plan: checks, the journal, the writes, post-commands.
 *
 * Order of an apply, and why:
 *  1. lock, then check every accepted target (links, type, writability,
 *     staleness): refusing is only clean before anything is written;
 *  2. journal: copies of the originals, then the manifest (atomically), so
 *     that a manifest on disk always describes copies that are on disk;
 *  3. targets, one atomic write each, in plan order;
 *  4. status, then post-commands, then their log.
 * A SIGKILL anywhere leaves each target old or new; a journal whose manifest
 * exists can be undone whatever happened after it.
 */
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

/* ---- apply ---- */

/* The file must still hold the bytes its diff was computed from. */
static int check_fresh(const struct vw_sysroot *sr, const struct vw_change *c,
		       const struct vw_target *t, struct vw_err *err)
{
	char *cur = NULL;
	size_t len = 0;
	bool same;
	int r;

	if (!t->exists || !c->old_exists)
		same = t->exists == c->old_exists;
	else {
		r = vw_sysroot_read(sr, t->rel, &cur, &len, VW_PLAN_MAX_FILE, err);
		if (r < 0)
			return r;
		same = len == c->old_len && !memcmp(cur, c->old_data, len);
		free(cur);
	}
	if (!same)
		return vw_err_set(err, -ESTALE,
				  _("/%s changed since its diff was computed; review the changes again"),
				  c->path);
	return 0;
}


struct job {
	const struct vw_sysroot *sr;
	const struct vw_plan *plan;
	const bool *acc;
	struct vw_target *t;
	struct vw_apply_result *res;
	bool dry;
};

static void item_fail(struct vw_apply_item *it, const struct vw_err *err)
{
	it->state = VW_ITEM_FAILED;
	free(it->error);
	it->error = vw_xstrdup(err && err->msg[0] ? err->msg : "");
}

static int check_one(struct job *jb, size_t i, struct vw_err *err)
{
	const struct vw_change *c = &jb->plan->v[i];
	struct vw_target *t = &jb->t[i];
	int r = vw_atomic_resolve(jb->sr, c->path, c->remove, t, err);

	/* The journal must stay what apply wrote. */
	if (r == 0 && vw_startswith(t->rel, VW_APPLY_STATE_DIR "/"))
		r = vw_err_set(err, -EPERM, _("/%s belongs to vfiowiz's own journal"), c->path);
	if (r == 0)
		r = vw_atomic_check_writable(jb->sr, c->path, t, !jb->dry, err);
	if (r == 0)
		r = check_fresh(jb->sr, c, t, err);
	for (size_t k = 0; r == 0 && k < i; k++)
		if (jb->acc[k] && jb->t[k].rel && !strcmp(jb->t[k].rel, t->rel))
			r = vw_err_set(err, -EINVAL, _("/%s and /%s are the same file"),
				       jb->plan->v[k].path, c->path);
	return r;
}

static int check_all(struct job *jb, struct vw_err *err)
{
	for (size_t i = 0; i < jb->plan->n; i++) {
		if (!jb->acc[i])
			continue;
		int r = check_one(jb, i, err);
		if (r < 0) {
			item_fail(&jb->res->items[i], err);
			return r;
		}
	}
	return 0;
}

static void add_dirs(struct vw_journal *j, const struct vw_target *t)
{
	for (size_t k = 0; k < t->nmkdirs; k++) {
		bool seen = false;
		for (size_t d = 0; d < j->ndirs && !seen; d++)
			seen = !strcmp(j->dirs[d], t->mkdirs[k]);
		if (seen)
			continue;
		j->dirs = vw_xreallocarray(j->dirs, j->ndirs + 1, sizeof(char *));
		j->dirs[j->ndirs++] = vw_xstrdup(t->mkdirs[k]);
	}
}

static struct vw_jfile make_jfile(const struct vw_journal *j, const struct vw_change *c,
			       const struct vw_target *t, size_t ncopy)
{
	struct vw_jfile f = {
		.path = vw_xstrdup(t->rel),
		.existed = t->exists,
		.removed = c->remove,
		.secret = c->secret,
		.mode = t->exists ? t->st.st_mode & 07777 : c->mode,
		.uid = t->exists ? t->st.st_uid : geteuid(),
		.gid = t->exists ? t->st.st_gid : getegid(),
		.old_size = t->exists ? c->old_len : 0,
		.new_size = c->remove ? 0 : c->new_len,
	};

	strcpy(f.old_hash, "-");
	strcpy(f.new_hash, "-");
	if (t->exists) {
		vw_journal_hash(j, c->secret, c->old_data, c->old_len, f.old_hash);
		f.copy = vw_xasprintf("files/%04zu", ncopy);
	}
	if (!c->remove)
		vw_journal_hash(j, c->secret, c->new_data, c->new_len, f.new_hash);
	return f;
}

/* The accepted change that writes abs ("/etc/x"), or NULL. */
static const struct vw_change *planned(const struct job *jb, const char *abs)
{
	while (*abs == '/')
		abs++;
	for (size_t i = 0; i < jb->plan->n; i++)
		if (jb->acc[i] && !strcmp(jb->plan->v[i].path, abs))
			return &jb->plan->v[i];
	return NULL;
}

/* True when the apply creates every unit named in argv[from..] (options
 * skipped): then undo removes them, and stops or disables them first. */
static bool creates_units(const struct job *jb, char **argv, size_t from, struct vw_buf *units)
{
	bool all = true, any = false;

	for (size_t a = from; argv[a]; a++) {
		bool created = false;

		if (argv[a][0] == '-')
			continue;
		for (size_t i = 0; i < jb->plan->n; i++)
			if (jb->acc[i] && !strcmp(vw_atomic_basename(jb->plan->v[i].path), argv[a]))
				created = !jb->plan->v[i].old_exists && !jb->plan->v[i].remove;
		all = all && created;
		any = true;
		vw_buf_printf(units, " %s", argv[a]);
	}
	return any && all;
}

/* The domain name of a libvirt XML: its first <name> element. */
static char *xml_name(const char *xml)
{
	const char *s = strstr(xml, "<name>"), *e;

	if (!s)
		return NULL;
	s += 6;
	e = strstr(s, "</name>");
	if (!e || e == s || memchr(s, '&', (size_t)(e - s)) || memchr(s, '<', (size_t)(e - s)))
		return NULL;
	return vw_xstrndup(s, (size_t)(e - s));
}

/* grubby: the arguments it added are removed and the ones it removed added. */
static char *swap_args(char **argv)
{
	size_t n = 0;
	char **v, *cmd;
	const char *add = NULL, *rm = NULL;

	while (argv[n])
		n++;
	v = vw_xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		if (vw_startswith(argv[i], "--args="))
			add = argv[i] + 7;
		else if (vw_startswith(argv[i], "--remove-args="))
			rm = argv[i] + 14;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = vw_startswith(argv[i], "--args=") ? vw_xasprintf("--args=%s", rm ? rm : "")
		       : vw_startswith(argv[i], "--remove-args=")
			       ? vw_xasprintf("--remove-args=%s", add ? add : "")
			       : vw_xstrdup(argv[i]);
	cmd = vw_exec_join((const char *const *)v);
	vw_strv_free(v);
	return cmd;
}

/* The command that takes cmd back once the files are restored (NULL: none),
 * decided now, while it is known what the apply creates. */
static char *inverse_of(const struct job *jb, const char *cmd, enum vw_post_kind k)
{
	struct vw_buf units = VW_BUF_INIT;
	const struct vw_change *c;
	char **argv = NULL, *inv = NULL, *name;

	if (vw_exec_split(cmd, &argv, NULL) <= 0)
		return NULL;
	vw_buf_adds(&units, "");
	switch (k) {
	case VW_POSTK_REBUILD:
		inv = vw_xstrdup(cmd);
		break;
	case VW_POSTK_DEFINE:
		c = planned(jb, argv[2]);
		if (c && c->old_exists && !c->remove) {
			inv = vw_xstrdup(cmd);	/* the restored XML, defined again */
		} else if (c && !c->old_exists && (name = xml_name(c->new_data))) {
			const char *a[] = { "virsh", "undefine", "--nvram", name, NULL };

			inv = vw_exec_join(a);
			free(name);
		}
		break;
	case VW_POSTK_ENABLE:
		if (creates_units(jb, argv, 2, &units))
			inv = vw_xasprintf("systemctl disable%s", units.data);
		break;
	case VW_POSTK_RESTART:
		inv = creates_units(jb, argv, 2, &units) ? vw_xasprintf("systemctl stop%s", units.data)
							 : vw_xstrdup(cmd);
		break;
	case VW_POSTK_ONESHOT:
		inv = vw_xstrdup("bootctl set-oneshot ''");
		break;
	case VW_POSTK_ARGS:
		inv = swap_args(argv);
		break;
	default:
		break;
	}
	vw_buf_done(&units);
	vw_strv_free(argv);
	return inv;
}

static void journal_fill(struct job *jb, struct vw_journal *j)
{
	size_t ncopy = 0;
	char **posts;

	for (size_t i = 0; i < jb->plan->n; i++) {
		if (!jb->acc[i])
			continue;
		add_dirs(j, &jb->t[i]);
		j->f = vw_xreallocarray(j->f, j->nf + 1, sizeof(*j->f));
		j->f[j->nf] = make_jfile(j, &jb->plan->v[i], &jb->t[i], ncopy + 1);
		ncopy += j->f[j->nf].copy != NULL;
		j->nf++;
	}
	posts = vw_plan_posts(jb->plan, jb->acc);
	for (size_t i = 0; posts[i]; i++) {
		enum vw_post_kind k = vw_post_kind_of(posts[i]);

		vw_journal_add_post(j, vw_xstrdup(posts[i]), k, inverse_of(jb, posts[i], k));
	}
	vw_strv_free(posts);
}

static bool any_secret(const struct job *jb)
{
	for (size_t i = 0; i < jb->plan->n; i++)
		if (jb->acc[i] && jb->plan->v[i].secret)
			return true;
	return false;
}

/* Copies and key first, manifest last: a manifest always has its copies. */
static int journal_begin(struct job *jb, struct vw_journal *j, int *jfd, struct vw_err *err)
{
	int r = vw_journal_mkdir(jb->sr, j, jfd, err);
	size_t k = 0;

	if (r < 0)
		return r;
	if (any_secret(jb)) {
		if (getrandom(j->key, sizeof(j->key), 0) != sizeof(j->key))
			return vw_err_set(err, -EIO, _("cannot get random bytes for the journal key"));
		j->has_key = true;
		r = vw_journal_put(*jfd, j, "key", j->key, sizeof(j->key), err);
	}
	journal_fill(jb, j);
	for (size_t i = 0; r == 0 && i < jb->plan->n; i++) {
		if (!jb->acc[i])
			continue;
		const struct vw_change *c = &jb->plan->v[i];
		if (j->f[k].copy)
			r = vw_journal_put(*jfd, j, j->f[k].copy, c->old_data, c->old_len, err);
		k++;
	}
	if (r == 0) {
		char *text = vw_journal_manifest(j);
		r = vw_journal_put(*jfd, j, "manifest", text, strlen(text), err);
		free(text);
	}
	return r;
}

static int write_one(const struct vw_sysroot *sr, const struct vw_change *c,
		     const struct vw_target *t, struct vw_err *err)
{
	struct vw_wspec w = { .mode = c->mode };
	int dfd, r = check_fresh(sr, c, t, err);

	if (r == 0)
		r = vw_atomic_make_dirs(sr, t, err);
	if (r < 0)
		return r;
	dfd = vw_atomic_open_dir(sr, t->dir);
	if (dfd < 0)
		return vw_atomic_fs_err(err, dfd, c->path);
	vw_atomic_clean_temps(dfd);
	if (t->exists) {
		w = (struct vw_wspec){ t->st.st_mode & 07777, t->st.st_uid, t->st.st_gid, true };
		if (c->secret)
			w.mode = 0600;
	}
	if (!c->remove)
		r = vw_atomic_write_in(dfd, c->path, vw_atomic_basename(t->rel), c->new_data, c->new_len, &w, err);
	else if (unlinkat(dfd, vw_atomic_basename(t->rel), 0) < 0 || fsync(dfd) < 0)
		r = vw_atomic_fs_err(err, -errno, c->path);
	close(dfd);
	return r;
}

/* "message; more" (the message people read first stays first). */
static void err_append(struct vw_err *err, const char *fmt, ...)
{
	char more[512];
	size_t n;
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(more, sizeof(more), fmt, ap);
	va_end(ap);
	n = strlen(err->msg);
	snprintf(err->msg + n, sizeof(err->msg) - n, "; %s", more);
}

static int write_changes(struct job *jb, const char *jid, struct vw_err *err)
{
	for (size_t i = 0; i < jb->plan->n; i++) {
		if (!jb->acc[i])
			continue;
		int r = write_one(jb->sr, &jb->plan->v[i], &jb->t[i], err);
		if (r < 0) {
			item_fail(&jb->res->items[i], err);
			err_append(err, _("changes written before this one: %zu (\"vfiowiz undo %s\" reverts them)"),
				   jb->res->written, jid);
			return r;
		}
		jb->res->items[i].state = VW_ITEM_WRITTEN;
		jb->res->written++;
	}
	return 0;
}

static void post_log(int jfd, const struct vw_journal *j, const struct vw_post_run *runs, size_t n)
{
	struct vw_buf b = VW_BUF_INIT;

	vw_buf_adds(&b, "");
	for (size_t i = 0; i < n; i++) {
		vw_buf_printf(&b, "$ %s\n%s", runs[i].cmd, runs[i].output);
		if (runs[i].output[0] && runs[i].output[strlen(runs[i].output) - 1] != '\n')
			vw_buf_addc(&b, '\n');
		if (runs[i].state == VW_POST_WOULD_RUN)
			vw_buf_adds(&b, "[not run]\n");
		else
			vw_buf_printf(&b, "[exit status %d]\n", runs[i].status);
	}
	/* The log is informative: failing to write it does not undo the apply. */
	vw_journal_put(jfd, j, "post.log", b.data, b.len, NULL);
	vw_buf_done(&b);
}

static void init_result(struct vw_apply_result *res, const struct vw_plan *plan, const bool *acc)
{
	memset(res, 0, sizeof(*res));
	res->nitems = plan->n;
	res->items = vw_xcalloc(plan->n, sizeof(*res->items));
	for (size_t i = 0; i < plan->n; i++) {
		res->items[i].path = vw_xstrdup(plan->v[i].path);
		res->items[i].state = acc[i] ? VW_ITEM_PENDING : VW_ITEM_SKIPPED;
	}
}

static bool *accepted(const struct vw_plan *plan, const struct vw_apply_opts *o, size_t *n)
{
	bool *acc = vw_xcalloc(plan->n + 1, sizeof(bool));

	*n = 0;
	for (size_t i = 0; i < plan->n; i++) {
		acc[i] = o->accept ? o->accept[i]
				   : o->accept_fn ? o->accept_fn(&plan->v[i], i, o->accept_arg) : true;
		*n += acc[i];
	}
	return acc;
}

static void posts_not_run(struct vw_apply_result *res, char **cmds, enum vw_post_state st)
{
	size_t n = 0;

	while (cmds[n])
		n++;
	res->post = vw_xcalloc(n + 1, sizeof(*res->post));
	for (size_t i = 0; i < n; i++)
		res->post[i] = (struct vw_post_run){ vw_xstrdup(cmds[i]), st, -1, vw_xstrdup("") };
	res->npost = n;
}

/* qm set edits the config file the apply wrote: record what it left, so
 * that undo tells those lines from a user's edit. */
static void post_state(struct job *jb, const struct vw_journal *j, int jfd)
{
	struct vw_buf b = VW_BUF_INIT;

	vw_buf_adds(&b, "");
	for (size_t i = 0; i < j->npk && i < jb->res->npost; i++) {
		char **argv = NULL, *suffix;

		if (j->pk[i].kind != VW_POSTK_CONFIG || jb->res->post[i].state != VW_POST_RAN ||
		    vw_exec_split(j->pk[i].cmd, &argv, NULL) < 3) {
			vw_strv_free(argv);
			continue;
		}
		suffix = vw_xasprintf("qemu-server/%s.conf", argv[2]);
		for (size_t k = 0; k < j->nf; k++) {
			const char *p = j->f[k].path;
			size_t pl = strlen(p), sl = strlen(suffix), len;
			char *buf = NULL, h[HASH_LEN];

			if (pl < sl || strcmp(p + pl - sl, suffix) || (pl > sl && p[pl - sl - 1] != '/'))
				continue;
			if (vw_sysroot_read(jb->sr, p, &buf, &len, VW_PLAN_MAX_FILE, NULL) < 0)
				continue;
			vw_journal_hash(j, j->f[k].secret, buf, len, h);
			free(buf);
			if (strcmp(h, j->f[k].new_hash) && !strstr(b.data, h)) {
				vw_journal_escape(&b, p);
				vw_buf_printf(&b, " %s\n", h);
			}
		}
		free(suffix);
		vw_strv_free(argv);
	}
	/* Informative like post.log: without it undo asks about the file. */
	if (b.len)
		vw_journal_put(jfd, j, "post-state", b.data, b.len, NULL);
	vw_buf_done(&b);
}

static int finish(struct job *jb, struct vw_journal *j, int jfd, int r,
		  const struct vw_apply_opts *o, struct vw_err *err)
{
	char status[64];

	struct vw_err serr = { 0 };
	int sr_;

	snprintf(status, sizeof(status), "%s %zu\n", r == 0 ? "applied" : "partial",
		 jb->res->written);
	/* Without a status the journal reads as interrupted, which undo
	 * handles; but the apply did not end well (ENOSPC: the rebuilds would
	 * fail too), so say so and run nothing. */
	sr_ = vw_journal_put(jfd, j, "status", status, strlen(status), &serr);
	if (sr_ < 0 && r == 0) {
		r = vw_err_set(err, sr_, _("the changes were written, but the journal could not record it (%s); nothing was run: free the space, then run \"vfiowiz undo %s\" or apply again"),
			       serr.msg, j->id);
	}
	if (r < 0) {
		posts_not_run(jb->res, j->post, VW_POST_NOT_RUN);
		return r;
	}
	r = vw_apply_run_posts(jb->sr, (const char *const *)j->post, o->no_post,
			       o->post_timeout_ms, &jb->res->post, &jb->res->npost, err);
	if (jb->res->npost) {
		post_log(jfd, j, jb->res->post, jb->res->npost);
		post_state(jb, j, jfd);
	}
	return r;
}

static int apply_locked(struct job *jb, const struct vw_apply_opts *o, struct vw_err *err)
{
	struct vw_journal j = { 0 };
	int jfd = -1, r = check_all(jb, err);

	if (r < 0 || o->dry) {
		if (r == 0) {
			char **cmds = vw_plan_posts(jb->plan, jb->acc);
			posts_not_run(jb->res, cmds, VW_POST_WOULD_RUN);
			vw_strv_free(cmds);
		}
		return r;
	}
	r = journal_begin(jb, &j, &jfd, err);
	if (r < 0) {
		if (jfd >= 0)
			vw_journal_discard(jfd, jb->sr, j.id);
		err_append(err, _("nothing was changed"));
	} else {
		jb->res->journal_id = vw_xstrdup(j.id);
		r = write_changes(jb, j.id, err);
		r = finish(jb, &j, jfd, r, o, err);
	}
	if (jfd >= 0)
		close(jfd);
	vw_journal_done(&j);
	return r;
}

int vw_apply_plan(const struct vw_sysroot *sr, const struct vw_plan *plan,
		  const struct vw_apply_opts *opts, struct vw_apply_result *res,
		  struct vw_err *err)
{
	const struct vw_apply_opts none = { 0 };
	const struct vw_apply_opts *o = opts ? opts : &none;
	size_t nacc;
	bool *acc = accepted(plan, o, &nacc);
	struct job jb = { sr, plan, acc, NULL, res, o->dry };
	int lock = -1, r = 0;

	init_result(res, plan, acc);
	if (nacc && !o->dry)
		r = lock = vw_apply_lock(sr, err);
	if (lock >= 0)
		vw_journal_tidy(sr, &res->tidy);
	if (nacc && r >= 0) {
		jb.t = vw_xcalloc(plan->n, sizeof(*jb.t));
		r = apply_locked(&jb, o, err);
		for (size_t i = 0; i < plan->n; i++)
			vw_atomic_target_done(&jb.t[i]);
		free(jb.t);
	}
	vw_apply_unlock(lock);
	free(acc);
	return r < 0 ? r : 0;
}

int vw_apply_change(const struct vw_sysroot *sr, const struct vw_change *c,
		    const struct vw_apply_opts *opts, struct vw_apply_result *res,
		    struct vw_err *err)
{
	struct vw_plan one = { .v = (struct vw_change *)c, .n = 1 };
	struct vw_apply_opts o = opts ? *opts : (struct vw_apply_opts){ 0 };

	/* Selection flags index the caller's plan, not this one-change view. */
	o.accept = NULL;
	o.accept_fn = NULL;
	return vw_apply_plan(sr, &one, &o, res, err);
}

static void run_free(struct vw_post_run *p)
{
	free(p->cmd);
	free(p->output);
}

void vw_apply_runs_free(struct vw_post_run *runs, size_t n)
{
	for (size_t i = 0; runs && i < n; i++)
		run_free(&runs[i]);
	free(runs);
}

void vw_apply_result_done(struct vw_apply_result *res)
{
	free(res->journal_id);
	for (size_t i = 0; i < res->nitems; i++) {
		free(res->items[i].path);
		free(res->items[i].error);
	}
	free(res->items);
	vw_apply_runs_free(res->post, res->npost);
	memset(res, 0, sizeof(*res));
}

static int run_post(const struct vw_sysroot *sr, const char *cmd, bool dry, unsigned timeout,
		    struct vw_post_run *p, struct vw_err *err)
{
	struct vw_exec_opts eo = { .timeout_ms = timeout ? timeout : VW_APPLY_POST_TIMEOUT_MS };
	struct vw_exec_result er;
	char **argv = NULL;
	int r;

	*p = (struct vw_post_run){ vw_xstrdup(cmd), VW_POST_WOULD_RUN, -1, NULL };
	r = vw_exec_split(cmd, &argv, err);
	if (r < 0) {
		p->state = VW_POST_FAILED;
		p->output = vw_xstrdup(err ? err->msg : "");
		return r;
	}
	/* Under a sysroot nothing runs, not even a recording is consulted. */
	eo.dry = dry || !vw_sysroot_is_host(sr);
	r = vw_exec_run_opts(sr, (const char *const *)argv, &eo, &er, err);
	vw_strv_free(argv);
	p->output = er.output;
	p->status = er.status;
	if (er.source == VW_EXEC_RAN)
		p->state = r == 0 && er.status == 0 ? VW_POST_RAN : VW_POST_FAILED;
	else if (r < 0)
		p->state = VW_POST_FAILED;
	if (r == 0 && p->state == VW_POST_FAILED)
		r = vw_err_set(err, -ECHILD, _("%s failed (exit status %d)"), cmd, er.status);
	return r;
}

int vw_apply_run_posts(const struct vw_sysroot *sr, const char *const *cmds, bool dry,
		       unsigned timeout_ms, struct vw_post_run **runs, size_t *n,
		       struct vw_err *err)
{
	size_t count = 0;
	int first = 0;

	while (cmds && cmds[count])
		count++;
	*runs = vw_xcalloc(count + 1, sizeof(**runs));
	*n = count;
	for (size_t i = 0; i < count; i++) {
		struct vw_err e = { 0 };
		int r = run_post(sr, cmds[i], dry, timeout_ms, &(*runs)[i], &e);

		/* Keep going: each command's output matters to the user. */
		if (r < 0 && first == 0) {
			first = r;
			if (err)
				*err = e;
		}
	}
	return first;
}
