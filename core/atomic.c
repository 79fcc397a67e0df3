/* SPDX-License-Identifier: GPL-2.0-or-later */
/* atomic.c - file-system helpers, the one atomic-write routine, where a
 * path really leads, and the lock (see atomic.h). */
#define _GNU_SOURCE
#include "atomic.h"

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
#include <time.h>
#include <unistd.h>

#include "plan.h"

#define TMP_PREFIX ".vfiowiz-"
#define TMP_SUFFIX ".tmp"

/* ---- small file-system helpers ---- */

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n, len -= (size_t)n;
	}
	return 0;
}

static uint32_t rand32(void)
{
	static uint32_t counter;
	uint32_t v;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != sizeof(v))
		v = (uint32_t)getpid() * 2654435761u ^ (uint32_t)time(NULL) ^ ++counter;
	return v;
}

char *vw_atomic_dirname(const char *rel)
{
	const char *s = strrchr(rel, '/');
	return s ? vw_xstrndup(rel, (size_t)(s - rel)) : vw_xstrdup("");
}

const char *vw_atomic_basename(const char *rel)
{
	const char *s = strrchr(rel, '/');
	return s ? s + 1 : rel;
}

static char *join(const char *dir, const char *name)
{
	return *dir ? vw_xasprintf("%s/%s", dir, name) : vw_xstrdup(name);
}

/* A directory under the root, opened so that it can be fsynced. */
int vw_atomic_open_dir(const struct vw_sysroot *sr, const char *rel)
{
	return vw_sysroot_openat(sr, *rel ? rel : ".", O_RDONLY | O_DIRECTORY, 0);
}

/* Turn an errno from writing /path into a message people can act on. */
int vw_atomic_fs_err(struct vw_err *err, int code, const char *path)
{
	switch (-code) {
	case EROFS:
		return vw_err_set(err, code, _("cannot change /%s: the file system is read-only"),
				  path);
	case EPERM:
		return vw_err_set(err, code,
				  _("cannot change /%s: operation not permitted (is it immutable? see lsattr)"),
				  path);
	case EACCES:
		return vw_err_set(err, code, _("cannot change /%s: permission denied"), path);
	case ENOTDIR:
		return vw_err_set(err, code,
				  _("cannot change /%s: a component of the path is not a directory"),
				  path);
	default:
		return vw_err_set(err, code, _("cannot change /%s: %s"), path, strerror(-code));
	}
}

/* mkdir -p for our own state directories (not journaled: they are ours). */
int vw_atomic_mkdir_p(const struct vw_sysroot *sr, const char *rel, mode_t mode,
		       struct vw_err *err)
{
	char *path = vw_xstrdup(rel);
	int r = 0;

	for (char *s = path;; s++) {
		if (*s && *s != '/')
			continue;
		char saved = *s;
		*s = '\0';
		char *parent = vw_atomic_dirname(path);
		int pfd = vw_sysroot_openat(sr, *parent ? parent : ".", O_PATH | O_DIRECTORY, 0);
		if (pfd < 0)
			r = pfd;
		else if (mkdirat(pfd, vw_atomic_basename(path), mode) < 0 && errno != EEXIST)
			r = -errno;
		if (pfd >= 0)
			close(pfd);
		free(parent);
		if (r < 0) {
			vw_atomic_fs_err(err, r, path);
			break;
		}
		*s = saved;
		if (!saved)
			break;
	}
	free(path);
	return r;
}

/* ---- the one atomic-write routine ---- */

static int open_temp(int dfd, char name[32])
{
	for (int tries = 0; tries < 64; tries++) {
		snprintf(name, 32, TMP_PREFIX "%08x" TMP_SUFFIX, rand32());
		int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				0600);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

/* Proxmox's /etc/pve is pmxcfs, a FUSE file system without owners or
 * permissions of its own (chmod and chown fail with EPERM), read-only
 * without quorum. */
#define FUSE_SUPER_MAGIC 0x65735546

static bool is_pmxcfs(int dfd, const char *path)
{
	struct statfs sf;

	return (vw_startswith(path, "etc/pve/") || !strcmp(path, "etc/pve")) &&
	       fstatfs(dfd, &sf) == 0 && sf.f_type == FUSE_SUPER_MAGIC;
}

static int pmxcfs_err(struct vw_err *err, int code, const char *path)
{
	if (code == -EACCES || code == -EPERM || code == -EROFS)
		return vw_err_set(err, code,
				  _("cannot change /%s: Proxmox's cluster file system (/etc/pve) refuses writes; it is read-only while this node has no quorum (see: pvecm status)"),
				  path);
	return vw_atomic_fs_err(err, code, path);
}

/* What failed while filling a temporary file, for the message. */
enum fill_step { FILL_WRITE, FILL_CHOWN, FILL_CHMOD };

static int fill_temp(int fd, const void *data, size_t len, const struct vw_wspec *w, bool pmx,
		     enum fill_step *step)
{
	struct stat st;
	int r = write_all(fd, data, len);

	*step = FILL_WRITE;
	/* pmxcfs gives every file its own owner and mode: nothing to set. */
	if (pmx)
		goto sync;
	if (!r && w->own && fstat(fd, &st) == 0 && (st.st_uid != w->uid || st.st_gid != w->gid) &&
	    fchown(fd, w->uid, w->gid) < 0)
		r = -errno, *step = FILL_CHOWN;
	/* After fchown, which may clear set-id bits. */
	if (!r && fchmod(fd, w->mode & 07777) < 0)
		r = -errno, *step = FILL_CHMOD;
sync:
	if (!r && fsync(fd) < 0)
		r = -errno, *step = FILL_WRITE;
	return r;
}

/* Giving a file its owner back takes root: say so rather than guess. */
static int owner_err(struct vw_err *err, int code, const char *path, const struct vw_wspec *w)
{
	if (code == -EPERM && geteuid() != 0)
		return vw_err_set(err, code,
				  _("cannot give /%s its owner (uid %lu, gid %lu): only root can; run vfiowiz as root"),
				  path, (unsigned long)w->uid, (unsigned long)w->gid);
	return vw_err_set(err, code, _("cannot give /%s its owner (uid %lu, gid %lu): %s"), path,
			  (unsigned long)w->uid, (unsigned long)w->gid, strerror(-code));
}

/* Write base in directory dfd; path names the file in messages. */
int vw_atomic_write_in(int dfd, const char *path, const char *base, const void *data,
			size_t len, const struct vw_wspec *w, struct vw_err *err)
{
	bool pmx = is_pmxcfs(dfd, path);
	enum fill_step step = FILL_WRITE;
	char tmp[32];
	int fd = open_temp(dfd, tmp), r;

	if (fd < 0)
		return pmx ? pmxcfs_err(err, fd, path) : vw_atomic_fs_err(err, fd, path);
	r = fill_temp(fd, data, len, w, pmx, &step);
	if (close(fd) < 0 && !r)
		r = -errno;
	if (!r && renameat(dfd, tmp, dfd, base) < 0)
		r = -errno;
	if (r) {
		unlinkat(dfd, tmp, 0);
		if (step == FILL_CHOWN)
			return owner_err(err, r, path, w);
		if (step == FILL_CHMOD && r == -EPERM)
			return vw_err_set(err, r, _("cannot set the mode of /%s to %04o: %s"), path,
					  (unsigned)(w->mode & 07777), strerror(-r));
		return pmx ? pmxcfs_err(err, r, path) : vw_atomic_fs_err(err, r, path);
	}
	/* The rename is durable only once the directory is (pmxcfs: always). */
	if (fsync(dfd) < 0 && !(pmx && (errno == EINVAL || errno == ENOSYS)))
		return vw_atomic_fs_err(err, -errno, path);
	return 0;
}

/* A name open_temp() makes. */
bool vw_atomic_is_temp(const char *n)
{
	size_t l = strlen(n);

	return l == strlen(TMP_PREFIX) + 8 + strlen(TMP_SUFFIX) && vw_startswith(n, TMP_PREFIX) &&
	       !strcmp(n + l - strlen(TMP_SUFFIX), TMP_SUFFIX) &&
	       strspn(n + strlen(TMP_PREFIX), "0123456789abcdef") == 8;
}

/* Temporary files of a write that was killed; only called under the lock. */
void vw_atomic_clean_temps(int dfd)
{
	int fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)))
		if (vw_atomic_is_temp(de->d_name))
			unlinkat(dfd, de->d_name, 0);
	closedir(d);
}

/* ---- where a path really leads ---- */

void vw_atomic_target_done(struct vw_target *t)
{
	free(t->rel);
	free(t->dir);
	for (size_t i = 0; i < t->nmkdirs; i++)
		free(t->mkdirs[i]);
	free(t->mkdirs);
	memset(t, 0, sizeof(*t));
}

/* 1 when rel resolves to the same object inside the root (chroot rules)
 * and as the kernel would follow it from the host; 0 when not (a link
 * leaving the root, or one whose meaning depends on the root); -ENOENT when
 * it leads nowhere either way. */
static int same_inside_and_out(const struct vw_sysroot *sr, const char *rel)
{
	struct stat a, b;
	int fa = vw_sysroot_openat(sr, rel, O_PATH, 0), fb, r;

	fb = openat(vw_sysroot_fd(sr), *rel ? rel : ".", O_PATH | O_CLOEXEC);
	if (fa < 0 && fb < 0)
		r = fa;
	else if (fa < 0 || fb < 0)
		r = 0;
	else
		r = fstat(fa, &a) == 0 && fstat(fb, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino;
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return r;
}

static int outside_err(const struct vw_sysroot *sr, const char *path, struct vw_err *err)
{
	return vw_err_set(err, -EXDEV,
			  _("/%s is reached through a symbolic link that leads outside %s; refusing to write there"),
			  path, *vw_sysroot_root(sr) ? vw_sysroot_root(sr) : "/");
}

/* Deepest existing ancestor directory of dir; the missing rest is listed. */
static int existing_ancestor(const struct vw_sysroot *sr, const char *path, const char *dir,
			     char **found, char ***missing, size_t *nmissing, struct vw_err *err)
{
	char *cur = vw_xstrdup(dir);

	for (;;) {
		int fd = vw_sysroot_openat(sr, *cur ? cur : ".", O_PATH, 0);
		struct stat st;

		if (fd >= 0) {
			int ok = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
			close(fd);
			if (!ok) {
				free(cur);
				return vw_atomic_fs_err(err, -ENOTDIR, path);
			}
			*found = cur;
			return 0;
		}
		if (fd != -ENOENT || !*cur) {
			free(cur);
			return vw_atomic_fs_err(err, fd, path);
		}
		*missing = vw_xreallocarray(*missing, *nmissing + 1, sizeof(char *));
		memmove(*missing + 1, *missing, *nmissing * sizeof(char *));
		(*missing)[0] = vw_xstrdup(vw_atomic_basename(cur));
		(*nmissing)++;
		char *up = vw_atomic_dirname(cur);
		free(cur);
		cur = up;
	}
}

/* A "missing" directory may be a link that leads nowhere inside the root
 * (an absolute link in a snapshot): never create through it. */
static int check_missing(const struct vw_sysroot *sr, const char *path, const char *anc,
			 const char *name, struct vw_err *err)
{
	char *rel = join(anc, name);
	struct stat st;
	int dfd = vw_sysroot_openat(sr, *anc ? anc : ".", O_PATH | O_DIRECTORY, 0), r = 0;

	if (dfd < 0)
		r = vw_atomic_fs_err(err, dfd, path);
	else if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		r = same_inside_and_out(sr, rel) == 0
			    ? outside_err(sr, path, err)
			    : vw_err_set(err, -ENOENT, _("/%s leads to a missing directory"), path);
	if (dfd >= 0)
		close(dfd);
	free(rel);
	return r;
}

/* Resolve the directory part: canonical in-root path plus what to create. */
static int resolve_dir(const struct vw_sysroot *sr, const char *path, struct vw_target *t,
		       struct vw_err *err)
{
	char *dir = vw_atomic_dirname(path), *anc = NULL, **miss = NULL, *real;
	size_t nmiss = 0;
	int r = existing_ancestor(sr, path, dir, &anc, &miss, &nmiss, err);

	free(dir);
	if (r == 0 && (r = same_inside_and_out(sr, anc)) <= 0)
		r = r < 0 ? vw_atomic_fs_err(err, r, path) : outside_err(sr, path, err);
	if (r >= 0 && nmiss)
		r = check_missing(sr, path, anc, miss[0], err);
	if (r < 0)
		goto out;
	real = vw_sysroot_realpath(sr, anc);
	if (!real) {
		r = vw_err_set(err, -EIO, _("cannot resolve the directory of /%s"), path);
		goto out;
	}
	t->dir = real;
	for (size_t i = 0; i < nmiss; i++) {
		char *next = join(t->dir, miss[i]);
		t->mkdirs = vw_xreallocarray(t->mkdirs, t->nmkdirs + 1, sizeof(char *));
		t->mkdirs[t->nmkdirs++] = vw_xstrdup(next);
		free(t->dir);
		t->dir = next;
	}
	r = 0;
out:
	for (size_t i = 0; i < nmiss; i++)
		free(miss[i]);
	free(miss);
	free(anc);
	return r;
}

/* The file itself: absent, regular, or a link to a regular file that stays
 * inside the root (then the link's target is what gets written). */
static int resolve_file(const struct vw_sysroot *sr, const char *path, bool remove,
			struct vw_target *t, struct vw_err *err)
{
	char *rel = join(t->dir, vw_atomic_basename(path)), *real;
	int dfd, r;

	t->rel = rel;
	if (t->nmkdirs)
		return 0;
	dfd = vw_sysroot_openat(sr, *t->dir ? t->dir : ".", O_PATH | O_DIRECTORY, 0);
	if (dfd < 0)
		return vw_atomic_fs_err(err, dfd, path);
	r = fstatat(dfd, vw_atomic_basename(rel), &t->st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
	close(dfd);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return vw_atomic_fs_err(err, r, path);
	if (S_ISLNK(t->st.st_mode)) {
		if (remove)
			return vw_err_set(err, -ELOOP, _("/%s is a symbolic link; refusing to remove it"),
					  path);
		r = same_inside_and_out(sr, rel);
		if (r <= 0)
			return r == -ENOENT ? vw_err_set(err, r,
					  _("/%s is a symbolic link to a missing file"), path)
					    : outside_err(sr, path, err);
		real = vw_sysroot_realpath(sr, rel);
		if (!real)
			return vw_err_set(err, -EIO, _("cannot resolve /%s"), path);
		free(t->rel);
		free(t->dir);
		t->rel = real;
		t->dir = vw_atomic_dirname(real);
		dfd = vw_sysroot_openat(sr, real, O_PATH, 0);
		r = dfd < 0 ? dfd : fstat(dfd, &t->st) < 0 ? -errno : 0;
		if (dfd >= 0)
			close(dfd);
		if (r < 0)
			return vw_atomic_fs_err(err, r, path);
	}
	if (!S_ISREG(t->st.st_mode))
		return vw_err_set(err, -EINVAL, _("/%s is not a regular file; refusing to replace it"),
				  path);
	t->exists = true;
	return 0;
}

int vw_atomic_resolve(const struct vw_sysroot *sr, const char *path, bool remove,
			  struct vw_target *t, struct vw_err *err)
{
	int r = resolve_dir(sr, path, t, err);

	if (r == 0)
		r = resolve_file(sr, path, remove, t, err);
	return r;
}

/* Refuse read-only file systems and immutable files before any write.
 * (access(2) reports both even to root; mode bits do not matter: the write
 * is a rename in the directory.) */
int vw_atomic_check_writable(const struct vw_sysroot *sr, const char *path, const struct vw_target *t,
			  bool probe, struct vw_err *err)
{
	char *dir = t->nmkdirs ? vw_atomic_dirname(t->mkdirs[0]) : vw_xstrdup(t->dir);
	int dfd = vw_sysroot_openat(sr, *dir ? dir : ".", O_RDONLY | O_DIRECTORY, 0), r = 0;
	bool pmx;

	free(dir);
	if (dfd < 0)
		return vw_atomic_fs_err(err, dfd, path);
	pmx = is_pmxcfs(dfd, path);
	if (faccessat(dfd, ".", W_OK, AT_EACCESS) < 0)
		r = -errno;
	else if (t->exists && faccessat(dfd, vw_atomic_basename(t->rel), W_OK, AT_EACCESS) < 0 &&
		 (errno == EROFS || errno == EPERM))
		r = -errno;
	/* pmxcfs without quorum says nothing until a file is created: try one
	 * (not in a dry run, which writes nothing). */
	if (r == 0 && pmx && probe) {
		char tmp[32];
		int fd = open_temp(dfd, tmp);

		if (fd < 0)
			r = fd;
		else {
			close(fd);
			unlinkat(dfd, tmp, 0);
		}
	}
	close(dfd);
	if (r < 0)
		return pmx ? pmxcfs_err(err, r, path) : vw_atomic_fs_err(err, r, path);
	return 0;
}

/* ---- lock ---- */

int vw_apply_lock(const struct vw_sysroot *sr, struct vw_err *err)
{
	char buf[32] = "";
	ssize_t n;
	int fd, r = vw_atomic_mkdir_p(sr, VW_APPLY_STATE_DIR, 0755, err);

	if (r < 0)
		return r;
	fd = vw_sysroot_openat(sr, VW_APPLY_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW, 0600);
	if (fd < 0)
		return vw_atomic_fs_err(err, fd, VW_APPLY_LOCK);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		r = errno == EWOULDBLOCK ? -EBUSY : -errno;
		n = pread(fd, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		close(fd);
		if (r != -EBUSY)
			return vw_atomic_fs_err(err, r, VW_APPLY_LOCK);
		if (atol(buf) > 0)
			return vw_err_set(err, r,
					  _("another vfiowiz (pid %ld) is changing this system; wait for it to finish"),
					  atol(buf));
		return vw_err_set(err, r, _("another vfiowiz is changing this system; wait for it to finish"));
	}
	snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, strlen(buf), 0) < 0) {
		r = -errno;
		close(fd);
		return vw_atomic_fs_err(err, r, VW_APPLY_LOCK);
	}
	return fd;
}

void vw_apply_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

int vw_atomic_make_dirs(const struct vw_sysroot *sr, const struct vw_target *t, struct vw_err *err)
{
	for (size_t k = 0; k < t->nmkdirs; k++) {
		char *parent = vw_atomic_dirname(t->mkdirs[k]);
		int pfd = vw_atomic_open_dir(sr, parent), r = 0;

		free(parent);
		if (pfd < 0)
			return vw_atomic_fs_err(err, pfd, t->mkdirs[k]);
		if (mkdirat(pfd, vw_atomic_basename(t->mkdirs[k]), 0755) < 0 && errno != EEXIST)
			r = -errno;
		if (r == 0 && fsync(pfd) < 0)
			r = -errno;
		close(pfd);
		if (r < 0)
			return vw_atomic_fs_err(err, r, t->mkdirs[k]);
	}
	return 0;
}

static int write_atomic(const struct vw_sysroot *sr, const char *path, const void *data,
			size_t len, mode_t mode, bool private, struct vw_err *err);

int vw_write_atomic(const struct vw_sysroot *sr, const char *path, const void *data, size_t len,
		    mode_t mode, struct vw_err *err)
{
	return write_atomic(sr, path, data, len, mode, false, err);
}

int vw_write_private(const struct vw_sysroot *sr, const char *path, const void *data, size_t len,
		     struct vw_err *err)
{
	return write_atomic(sr, path, data, len, 0600, true, err);
}

static int write_atomic(const struct vw_sysroot *sr, const char *path, const void *data,
			size_t len, mode_t mode, bool private, struct vw_err *err)
{
	char *norm = vw_change_normpath(path, err);
	struct vw_target t = { 0 };
	struct vw_wspec w = { .mode = mode };
	int dfd = -1, r;

	if (!norm)
		return -EINVAL;
	r = vw_atomic_resolve(sr, norm, false, &t, err);
	if (r == 0)
		r = vw_atomic_make_dirs(sr, &t, err);
	if (r == 0 && (dfd = vw_atomic_open_dir(sr, t.dir)) < 0)
		r = vw_atomic_fs_err(err, dfd, norm);
	if (r == 0 && t.exists)
		w = (struct vw_wspec){ private ? 0600 : t.st.st_mode & 07777, t.st.st_uid, t.st.st_gid,
				    true };
	if (r == 0)
		r = vw_atomic_write_in(dfd, norm, vw_atomic_basename(t.rel), data, len, &w, err);
	if (dfd >= 0)
		close(dfd);
	vw_atomic_target_done(&t);
	free(norm);
	return r;
}
