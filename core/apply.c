/* apply.c - atomic writes, the journal, undo and post-commands.
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
#include "apply.h"
#include "sha256.h"

#include <ctype.h>
#include <stdarg.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "exec.h"

#define TMP_PREFIX ".vfiowiz-"
#define TMP_SUFFIX ".tmp"
#define MANIFEST_MAGIC "vfiowiz-journal 1"
#define HASH_LEN 72		/* "sha256:" or "keyed:" + 64 hex + NUL */

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

static char *dir_of(const char *rel)
{
	const char *s = strrchr(rel, '/');
	return s ? vw_xstrndup(rel, (size_t)(s - rel)) : vw_xstrdup("");
}

static const char *base_of(const char *rel)
{
	const char *s = strrchr(rel, '/');
	return s ? s + 1 : rel;
}

static char *join(const char *dir, const char *name)
{
	return *dir ? vw_xasprintf("%s/%s", dir, name) : vw_xstrdup(name);
}

/* A directory under the root, opened so that it can be fsynced. */
static int open_dir(const struct vw_sysroot *sr, const char *rel)
{
	return vw_sysroot_openat(sr, *rel ? rel : ".", O_RDONLY | O_DIRECTORY, 0);
}

/* Turn an errno from writing /path into a message people can act on. */
static int fs_err(struct vw_err *err, int code, const char *path)
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
static int ensure_dirs(const struct vw_sysroot *sr, const char *rel, mode_t mode,
		       struct vw_err *err)
{
	char *path = vw_xstrdup(rel);
	int r = 0;

	for (char *s = path;; s++) {
		if (*s && *s != '/')
			continue;
		char saved = *s;
		*s = '\0';
		char *parent = dir_of(path);
		int pfd = vw_sysroot_openat(sr, *parent ? parent : ".", O_PATH | O_DIRECTORY, 0);
		if (pfd < 0)
			r = pfd;
		else if (mkdirat(pfd, base_of(path), mode) < 0 && errno != EEXIST)
			r = -errno;
		if (pfd >= 0)
			close(pfd);
		free(parent);
		if (r < 0) {
			fs_err(err, r, path);
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

struct wspec {
	mode_t mode;
	uid_t uid;
	gid_t gid;
	bool own;		/* give the file uid:gid */
};

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
	return fs_err(err, code, path);
}

/* What failed while filling a temporary file, for the message. */
enum fill_step { FILL_WRITE, FILL_CHOWN, FILL_CHMOD };

static int fill_temp(int fd, const void *data, size_t len, const struct wspec *w, bool pmx,
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
static int owner_err(struct vw_err *err, int code, const char *path, const struct wspec *w)
{
	if (code == -EPERM && geteuid() != 0)
		return vw_err_set(err, code,
				  _("cannot give /%s its owner (uid %lu, gid %lu): only root can; run vfiowiz as root"),
				  path, (unsigned long)w->uid, (unsigned long)w->gid);
	return vw_err_set(err, code, _("cannot give /%s its owner (uid %lu, gid %lu): %s"), path,
			  (unsigned long)w->uid, (unsigned long)w->gid, strerror(-code));
}

/* Write base in directory dfd; path names the file in messages. */
static int write_in_dir(int dfd, const char *path, const char *base, const void *data,
			size_t len, const struct wspec *w, struct vw_err *err)
{
	bool pmx = is_pmxcfs(dfd, path);
	enum fill_step step = FILL_WRITE;
	char tmp[32];
	int fd = open_temp(dfd, tmp), r;

	if (fd < 0)
		return pmx ? pmxcfs_err(err, fd, path) : fs_err(err, fd, path);
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
		return pmx ? pmxcfs_err(err, r, path) : fs_err(err, r, path);
	}
	/* The rename is durable only once the directory is (pmxcfs: always). */
	if (fsync(dfd) < 0 && !(pmx && (errno == EINVAL || errno == ENOSYS)))
		return fs_err(err, -errno, path);
	return 0;
}

/* A name open_temp() makes. */
static bool is_temp_name(const char *n)
{
	size_t l = strlen(n);

	return l == strlen(TMP_PREFIX) + 8 + strlen(TMP_SUFFIX) && vw_startswith(n, TMP_PREFIX) &&
	       !strcmp(n + l - strlen(TMP_SUFFIX), TMP_SUFFIX) &&
	       strspn(n + strlen(TMP_PREFIX), "0123456789abcdef") == 8;
}

static void strv_add(char ***v, size_t *n, const char *s)
{
	*v = vw_xreallocarray(*v, *n + 2, sizeof(char *));
	(*v)[(*n)++] = vw_xstrdup(s);
	(*v)[*n] = NULL;
}

/* Temporary files of a write that was killed; only called under the lock. */
static void clean_temps(int dfd)
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
		if (is_temp_name(de->d_name))
			unlinkat(dfd, de->d_name, 0);
	closedir(d);
}

/* ---- where a path really leads ---- */

struct target {
	char *rel;		/* resolved root-relative path of the file */
	char *dir;		/* its directory ("" for the root) */
	bool exists;
	struct stat st;
	char **mkdirs;		/* directories to create, shallowest first */
	size_t nmkdirs;
};

static void target_done(struct target *t)
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
				return fs_err(err, -ENOTDIR, path);
			}
			*found = cur;
			return 0;
		}
		if (fd != -ENOENT || !*cur) {
			free(cur);
			return fs_err(err, fd, path);
		}
		*missing = vw_xreallocarray(*missing, *nmissing + 1, sizeof(char *));
		memmove(*missing + 1, *missing, *nmissing * sizeof(char *));
		(*missing)[0] = vw_xstrdup(base_of(cur));
		(*nmissing)++;
		char *up = dir_of(cur);
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
		r = fs_err(err, dfd, path);
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
static int resolve_dir(const struct vw_sysroot *sr, const char *path, struct target *t,
		       struct vw_err *err)
{
	char *dir = dir_of(path), *anc = NULL, **miss = NULL, *real;
	size_t nmiss = 0;
	int r = existing_ancestor(sr, path, dir, &anc, &miss, &nmiss, err);

	free(dir);
	if (r == 0 && (r = same_inside_and_out(sr, anc)) <= 0)
		r = r < 0 ? fs_err(err, r, path) : outside_err(sr, path, err);
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
			struct target *t, struct vw_err *err)
{
	char *rel = join(t->dir, base_of(path)), *real;
	int dfd, r;

	t->rel = rel;
	if (t->nmkdirs)
		return 0;
	dfd = vw_sysroot_openat(sr, *t->dir ? t->dir : ".", O_PATH | O_DIRECTORY, 0);
	if (dfd < 0)
		return fs_err(err, dfd, path);
	r = fstatat(dfd, base_of(rel), &t->st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
	close(dfd);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return fs_err(err, r, path);
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
		t->dir = dir_of(real);
		dfd = vw_sysroot_openat(sr, real, O_PATH, 0);
		r = dfd < 0 ? dfd : fstat(dfd, &t->st) < 0 ? -errno : 0;
		if (dfd >= 0)
			close(dfd);
		if (r < 0)
			return fs_err(err, r, path);
	}
	if (!S_ISREG(t->st.st_mode))
		return vw_err_set(err, -EINVAL, _("/%s is not a regular file; refusing to replace it"),
				  path);
	t->exists = true;
	return 0;
}

static int resolve_target(const struct vw_sysroot *sr, const char *path, bool remove,
			  struct target *t, struct vw_err *err)
{
	int r = resolve_dir(sr, path, t, err);

	if (r == 0)
		r = resolve_file(sr, path, remove, t, err);
	return r;
}

/* Refuse read-only file systems and immutable files before any write.
 * (access(2) reports both even to root; mode bits do not matter: the write
 * is a rename in the directory.) */
static int check_writable(const struct vw_sysroot *sr, const char *path, const struct target *t,
			  bool probe, struct vw_err *err)
{
	char *dir = t->nmkdirs ? dir_of(t->mkdirs[0]) : vw_xstrdup(t->dir);
	int dfd = vw_sysroot_openat(sr, *dir ? dir : ".", O_RDONLY | O_DIRECTORY, 0), r = 0;
	bool pmx;

	free(dir);
	if (dfd < 0)
		return fs_err(err, dfd, path);
	pmx = is_pmxcfs(dfd, path);
	if (faccessat(dfd, ".", W_OK, AT_EACCESS) < 0)
		r = -errno;
	else if (t->exists && faccessat(dfd, base_of(t->rel), W_OK, AT_EACCESS) < 0 &&
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
		return pmx ? pmxcfs_err(err, r, path) : fs_err(err, r, path);
	return 0;
}

/* The file must still hold the bytes its diff was computed from. */
static int check_fresh(const struct vw_sysroot *sr, const struct vw_change *c,
		       const struct target *t, struct vw_err *err)
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

/* ---- lock ---- */

int vw_apply_lock(const struct vw_sysroot *sr, struct vw_err *err)
{
	char buf[32] = "";
	ssize_t n;
	int fd, r = ensure_dirs(sr, VW_APPLY_STATE_DIR, 0755, err);

	if (r < 0)
		return r;
	fd = vw_sysroot_openat(sr, VW_APPLY_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW, 0600);
	if (fd < 0)
		return fs_err(err, fd, VW_APPLY_LOCK);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		r = errno == EWOULDBLOCK ? -EBUSY : -errno;
		n = pread(fd, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		close(fd);
		if (r != -EBUSY)
			return fs_err(err, r, VW_APPLY_LOCK);
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
		return fs_err(err, r, VW_APPLY_LOCK);
	}
	return fd;
}

void vw_apply_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

/* ---- post-command kinds ---- */

static const char *const kind_names[] = {
	[VW_POSTK_REBUILD] = "rebuild", [VW_POSTK_DEFINE] = "define",
	[VW_POSTK_ENABLE] = "enable",	[VW_POSTK_RESTART] = "restart",
	[VW_POSTK_CONFIG] = "config",	[VW_POSTK_IMAGE] = "image",
	[VW_POSTK_ONESHOT] = "oneshot", [VW_POSTK_ARGS] = "args",
	[VW_POSTK_OTHER] = "other",
};

static bool arg_is(char **argv, size_t i, const char *s)
{
	for (size_t k = 0; k < i; k++)
		if (!argv[k])
			return false;
	return argv[i] && !strcmp(argv[i], s);
}

static enum vw_post_kind kind_of_argv(char **argv)
{
	/* Tools that regenerate something from the files undo restores. */
	static const char *const rebuilds[] = {
		"update-initramfs", "update-grub", "update-grub2", "grub-mkconfig", "grub2-mkconfig",
		"dracut", "mkinitcpio", "kernelstub", "regenerate_images",
	};
	const char *base = base_of(argv[0]);

	for (size_t i = 0; i < VW_ARRAY_SIZE(rebuilds); i++)
		if (!strcmp(base, rebuilds[i]))
			return VW_POSTK_REBUILD;
	if (!strcmp(base, "proxmox-boot-tool") && arg_is(argv, 1, "refresh"))
		return VW_POSTK_REBUILD;
	if (!strcmp(base, "systemctl") && arg_is(argv, 1, "daemon-reload"))
		return VW_POSTK_REBUILD;
	if (!strcmp(base, "systemctl") && arg_is(argv, 1, "enable"))
		return VW_POSTK_ENABLE;
	if (!strcmp(base, "systemctl") && arg_is(argv, 1, "restart"))
		return VW_POSTK_RESTART;
	if (!strcmp(base, "virsh") && arg_is(argv, 1, "define") && argv[2] && !argv[3])
		return VW_POSTK_DEFINE;
	if (!strcmp(base, "qm") && arg_is(argv, 1, "set"))
		return VW_POSTK_CONFIG;
	if (!strcmp(base, "qemu-img") && arg_is(argv, 1, "create"))
		return VW_POSTK_IMAGE;
	if (!strcmp(base, "bootctl") && arg_is(argv, 1, "set-oneshot"))
		return VW_POSTK_ONESHOT;
	if (!strcmp(base, "grubby") && argv[1] && vw_startswith(argv[1], "--update-kernel="))
		return VW_POSTK_ARGS;
	return VW_POSTK_OTHER;
}

enum vw_post_kind vw_post_kind_of(const char *cmd)
{
	char **argv = NULL;
	enum vw_post_kind k = VW_POSTK_OTHER;

	if (vw_exec_split(cmd, &argv, NULL) > 0)
		k = kind_of_argv(argv);
	vw_strv_free(argv);
	return k;
}

/* The disk image a qemu-img create makes: the word before the size. */
static char *image_path(const char *cmd)
{
	char **argv = NULL, *path = NULL;
	size_t n = 0;

	if (vw_exec_split(cmd, &argv, NULL) > 0) {
		while (argv[n])
			n++;
		if (n >= 4)
			path = vw_xstrdup(argv[n - 2]);
	}
	vw_strv_free(argv);
	return path;
}

/* ---- the journal ---- */

struct jfile {
	char *path;		/* resolved root-relative path */
	bool existed, removed, secret;
	mode_t mode;
	uid_t uid;
	gid_t gid;
	char old_hash[HASH_LEN], new_hash[HASH_LEN];
	size_t old_size, new_size;
	char *copy;		/* "files/NNNN" or NULL */
	char post_hash[HASH_LEN];	/* after our post-commands changed it
					   (qm set), else "-" */
};

struct jpost {
	char *cmd;
	enum vw_post_kind kind;
	char *inverse;		/* the command that takes it back, or NULL */
};

struct journal {
	char *id;
	char **dirs;
	size_t ndirs;
	struct jfile *f;
	size_t nf;
	char **post;		/* NULL-terminated */
	struct jpost *pk;	/* one per post, with its kind */
	size_t npk;
	bool complete;
	bool has_key;
	unsigned char key[32];
};

static void journal_done(struct journal *j)
{
	free(j->id);
	for (size_t i = 0; i < j->ndirs; i++)
		free(j->dirs[i]);
	free(j->dirs);
	for (size_t i = 0; i < j->nf; i++) {
		free(j->f[i].path);
		free(j->f[i].copy);
	}
	free(j->f);
	vw_strv_free(j->post);
	for (size_t i = 0; i < j->npk; i++) {
		free(j->pk[i].cmd);
		free(j->pk[i].inverse);
	}
	free(j->pk);
	memset(j, 0, sizeof(*j));
}

/* Secret contents are hashed with the journal's key, so the manifest gives
 * nothing to test guesses against. */
static void hash_data(const struct journal *j, bool secret, const void *data, size_t len,
		      char out[HASH_LEN])
{
	struct vw_sha256 s;
	char hex[65];

	vw_sha256_init(&s);
	if (secret)
		vw_sha256_add(&s, j->key, sizeof(j->key));
	vw_sha256_add(&s, data, len);
	vw_sha256_hex(&s, hex);
	snprintf(out, HASH_LEN, "%s:%s", secret ? "keyed" : "sha256", hex);
}

/* Paths and commands go into the manifest with %XX for blanks, controls,
 * non-ASCII and '%', one token each. */
static void add_escaped(struct vw_buf *b, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p <= 0x20 || *p >= 0x7f || *p == '%')
			vw_buf_printf(b, "%%%02X", *p);
		else
			vw_buf_addc(b, (char)*p);
}

static char *unescape(const char *s)
{
	struct vw_buf b = VW_BUF_INIT;

	vw_buf_adds(&b, "");
	for (; *s; s++) {
		if (*s == '%' && isxdigit((unsigned char)s[1]) && isxdigit((unsigned char)s[2])) {
			char hex[3] = { s[1], s[2], 0 };
			vw_buf_addc(&b, (char)strtol(hex, NULL, 16));
			s += 2;
		} else {
			vw_buf_addc(&b, *s);
		}
	}
	return vw_buf_steal(&b);
}

static char *manifest_text(const struct journal *j)
{
	struct vw_buf b = VW_BUF_INIT;

	vw_buf_printf(&b, MANIFEST_MAGIC "\nid %s\n", j->id);
	for (size_t i = 0; i < j->ndirs; i++) {
		vw_buf_adds(&b, "dir ");
		add_escaped(&b, j->dirs[i]);
		vw_buf_addc(&b, '\n');
	}
	for (size_t i = 0; i < j->nf; i++) {
		const struct jfile *f = &j->f[i];

		vw_buf_adds(&b, "file ");
		add_escaped(&b, f->path);
		vw_buf_printf(&b,
			      " existed=%d remove=%d secret=%d mode=%04o uid=%lu gid=%lu"
			      " old=%s old-size=%zu new=%s new-size=%zu copy=%s\n",
			      f->existed, f->removed, f->secret, (unsigned)f->mode,
			      (unsigned long)f->uid, (unsigned long)f->gid, f->old_hash, f->old_size,
			      f->new_hash, f->new_size, f->copy ? f->copy : "-");
	}
	for (size_t i = 0; i < j->npk; i++) {
		vw_buf_printf(&b, "post %s ", kind_names[j->pk[i].kind]);
		add_escaped(&b, j->pk[i].cmd);
		vw_buf_addc(&b, ' ');
		add_escaped(&b, j->pk[i].inverse ? j->pk[i].inverse : "-");
		vw_buf_addc(&b, '\n');
	}
	vw_buf_adds(&b, "end\n");
	return vw_buf_steal(&b);
}

static bool valid_hash(const char *h)
{
	const char *hex = vw_startswith(h, "sha256:") ? h + 7 : vw_startswith(h, "keyed:") ? h + 6 : NULL;

	return !strcmp(h, "-") || (hex && strlen(hex) == 64 && strspn(hex, "0123456789abcdef") == 64);
}

static int parse_field(struct jfile *f, const char *key, const char *val)
{
	char *end;
	unsigned long v = strtoul(val, &end, strcmp(key, "mode") ? 10 : 8);
	bool num = *val && !*end;

	if (!strcmp(key, "old") || !strcmp(key, "new")) {
		if (!valid_hash(val))
			return -1;
		snprintf(!strcmp(key, "old") ? f->old_hash : f->new_hash, HASH_LEN, "%s", val);
	} else if (!strcmp(key, "copy")) {
		if (strcmp(val, "-") && !(vw_startswith(val, "files/") && strlen(val) == 10 &&
					  strspn(val + 6, "0123456789") == 4))
			return -1;
		f->copy = strcmp(val, "-") ? vw_xstrdup(val) : NULL;
	} else if (!num) {
		return -1;
	} else if (!strcmp(key, "existed") || !strcmp(key, "remove") || !strcmp(key, "secret")) {
		bool *b = key[0] == 'e' ? &f->existed : key[0] == 'r' ? &f->removed : &f->secret;
		*b = v != 0;
	} else if (!strcmp(key, "mode")) {
		f->mode = (mode_t)(v & 07777);
	} else if (!strcmp(key, "uid")) {
		f->uid = (uid_t)v;
	} else if (!strcmp(key, "gid")) {
		f->gid = (gid_t)v;
	} else if (!strcmp(key, "old-size") || !strcmp(key, "new-size")) {
		*(key[0] == 'o' ? &f->old_size : &f->new_size) = v;
	}
	return 0;
}

static int parse_file_line(struct journal *j, char *rest)
{
	struct jfile f = { 0 };
	char *save = NULL, *tok = strtok_r(rest, " ", &save), *p;

	if (!tok)
		return -1;
	p = unescape(tok);
	f.path = vw_change_normpath(p, NULL);
	free(p);
	if (!f.path)
		return -1;
	strcpy(f.old_hash, "-");
	strcpy(f.new_hash, "-");
	while ((tok = strtok_r(NULL, " ", &save))) {
		char *eq = strchr(tok, '=');
		if (!eq || (*eq = '\0', parse_field(&f, tok, eq + 1) < 0)) {
			free(f.path);
			free(f.copy);
			return -1;
		}
	}
	if (f.existed != (f.copy != NULL)) {
		free(f.path);
		free(f.copy);
		return -1;
	}
	j->f = vw_xreallocarray(j->f, j->nf + 1, sizeof(*j->f));
	j->f[j->nf++] = f;
	return 0;
}

static void add_post(struct journal *j, char *cmd, enum vw_post_kind kind, char *inverse)
{
	j->post = vw_xreallocarray(j->post, j->npk + 2, sizeof(char *));
	j->post[j->npk] = vw_xstrdup(cmd);
	j->post[j->npk + 1] = NULL;
	j->pk = vw_xreallocarray(j->pk, j->npk + 1, sizeof(*j->pk));
	j->pk[j->npk++] = (struct jpost){ cmd, kind, inverse };
}

/* "post KIND CMD INVERSE"; a journal from before kinds has "post CMD":
 * then only rebuilds run again. */
static int parse_post(struct journal *j, char *arg)
{
	char *save = NULL, *a = strtok_r(arg, " ", &save), *b = strtok_r(NULL, " ", &save);
	char *c = strtok_r(NULL, " ", &save), *cmd;
	enum vw_post_kind k;

	if (!a || (b && !c) || strtok_r(NULL, " ", &save))
		return -1;
	if (!b) {
		cmd = unescape(a);
		k = vw_post_kind_of(cmd);
		add_post(j, cmd, k, k == VW_POSTK_REBUILD ? vw_xstrdup(cmd) : NULL);
		return 0;
	}
	for (k = 0; k < VW_ARRAY_SIZE(kind_names) && strcmp(kind_names[k], a); k++)
		;
	if (k == VW_ARRAY_SIZE(kind_names))
		return -1;
	add_post(j, unescape(b), k, strcmp(c, "-") ? unescape(c) : NULL);
	return 0;
}

static int parse_line(struct journal *j, char *line)
{
	char *sp = strchr(line, ' '), *arg;

	if (!strcmp(line, "end"))
		return j->complete = true, 0;
	if (!sp)
		return -1;
	*sp = '\0';
	arg = sp + 1;
	if (!strcmp(line, "id"))
		return 0;
	if (!strcmp(line, "file"))
		return parse_file_line(j, arg);
	if (!strcmp(line, "dir")) {
		char *p = unescape(arg), *d = vw_change_normpath(p, NULL);
		free(p);
		if (!d)
			return -1;
		j->dirs = vw_xreallocarray(j->dirs, j->ndirs + 1, sizeof(char *));
		j->dirs[j->ndirs++] = d;
		return 0;
	}
	if (!strcmp(line, "post"))
		return parse_post(j, arg);
	return -1;
}

static bool valid_id(const char *id)
{
	size_t n = strlen(id);

	return (n == 16 || (n == 20 && id[16] == '-' && strspn(id + 17, "0123456789") == 3)) &&
	       strspn(id, "0123456789") == 8 && id[8] == 'T' && strspn(id + 9, "0123456789") == 6 &&
	       id[15] == 'Z';
}

static char *jpath(const char *id, const char *name)
{
	return vw_xasprintf(VW_APPLY_JOURNAL_DIR "/%s%s%s", id, name ? "/" : "", name ? name : "");
}

/* "post-state": "PATH HASH" lines, the bytes qm set left in a file. */
static void read_post_state(const struct vw_sysroot *sr, struct journal *j)
{
	char *path = jpath(j->id, "post-state"), *text, *save = NULL, *line;

	for (size_t i = 0; i < j->nf; i++)
		strcpy(j->f[i].post_hash, "-");
	if (vw_sysroot_read(sr, path, &text, NULL, 1 << 16, NULL) < 0) {
		free(path);
		return;
	}
	free(path);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' '), *p;

		if (!sp || !valid_hash(sp + 1))
			continue;
		*sp = '\0';
		p = unescape(line);
		for (size_t i = 0; i < j->nf; i++)
			if (!strcmp(j->f[i].path, p))
				snprintf(j->f[i].post_hash, HASH_LEN, "%s", sp + 1);
		free(p);
	}
	free(text);
}

/* Read a journal's manifest.  A missing or cut-short manifest gives 0 with
 * complete == false; a malformed one -EINVAL. */
static int journal_read(const struct vw_sysroot *sr, const char *id, struct journal *j,
			struct vw_err *err)
{
	char *path = jpath(id, "manifest"), *text, *save = NULL, *line;
	int r = vw_sysroot_read(sr, path, &text, NULL, VW_PLAN_MAX_FILE, err);

	memset(j, 0, sizeof(*j));
	j->id = vw_xstrdup(id);
	free(path);
	if (r == -ENOENT) {
		vw_err_clear(err);
		return 0;
	}
	if (r < 0)
		return r;
	line = strtok_r(text, "\n", &save);
	if (!line || strcmp(line, MANIFEST_MAGIC))
		r = -1;
	while (r == 0 && (line = strtok_r(NULL, "\n", &save)) && !j->complete)
		r = parse_line(j, line);
	free(text);
	if (r < 0 || line) {
		j->complete = false;
		return vw_err_set(err, -EINVAL, _("the manifest of journal %s is damaged"), id);
	}
	read_post_state(sr, j);
	return 0;
}

static int read_key(const struct vw_sysroot *sr, struct journal *j, struct vw_err *err)
{
	char *path = jpath(j->id, "key"), *buf;
	size_t len;
	int r = vw_sysroot_read(sr, path, &buf, &len, 64, err);

	free(path);
	if (r < 0)
		return r;
	if (len != sizeof(j->key)) {
		free(buf);
		return vw_err_set(err, -EINVAL, _("the key of journal %s is damaged"), j->id);
	}
	memcpy(j->key, buf, len);
	j->has_key = true;
	free(buf);
	return 0;
}

/* A fresh journal directory named after the current UTC time. */
static int journal_mkdir(const struct vw_sysroot *sr, struct journal *j, int *jfd,
			 struct vw_err *err)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int rfd, r = ensure_dirs(sr, VW_APPLY_STATE_DIR, 0755, err);

	if (r == 0)
		r = ensure_dirs(sr, VW_APPLY_JOURNAL_DIR, 0700, err);
	if (r < 0)
		return r;
	rfd = open_dir(sr, VW_APPLY_JOURNAL_DIR);
	if (rfd < 0)
		return fs_err(err, rfd, VW_APPLY_JOURNAL_DIR);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime_r(&now, &tm));
	r = -EEXIST;
	for (int n = 0; n < 1000 && r == -EEXIST; n++) {
		free(j->id);
		j->id = n ? vw_xasprintf("%s-%03d", stamp, n) : vw_xstrdup(stamp);
		r = mkdirat(rfd, j->id, 0700) < 0 ? -errno : 0;
	}
	if (r == 0 && fsync(rfd) < 0)
		r = -errno;
	close(rfd);
	if (r < 0)
		return fs_err(err, r, VW_APPLY_JOURNAL_DIR);
	*jfd = -1;
	char *rel = jpath(j->id, NULL);
	*jfd = open_dir(sr, rel);
	free(rel);
	if (*jfd < 0)
		return fs_err(err, *jfd, VW_APPLY_JOURNAL_DIR);
	if (mkdirat(*jfd, "files", 0700) < 0)
		return fs_err(err, -errno, VW_APPLY_JOURNAL_DIR);
	return 0;
}

static int journal_put(int jfd, const struct journal *j, const char *name, const void *data,
		       size_t len, struct vw_err *err)
{
	const struct wspec w = { .mode = 0600 };
	char *path = jpath(j->id, name);
	int r = write_in_dir(jfd, path, name, data, len, &w, err);

	free(path);
	return r;
}

/* ---- apply ---- */

struct job {
	const struct vw_sysroot *sr;
	const struct vw_plan *plan;
	const bool *acc;
	struct target *t;
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
	struct target *t = &jb->t[i];
	int r = resolve_target(jb->sr, c->path, c->remove, t, err);

	/* The journal must stay what apply wrote. */
	if (r == 0 && vw_startswith(t->rel, VW_APPLY_STATE_DIR "/"))
		r = vw_err_set(err, -EPERM, _("/%s belongs to vfiowiz's own journal"), c->path);
	if (r == 0)
		r = check_writable(jb->sr, c->path, t, !jb->dry, err);
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

static void add_dirs(struct journal *j, const struct target *t)
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

static struct jfile make_jfile(const struct journal *j, const struct vw_change *c,
			       const struct target *t, size_t ncopy)
{
	struct jfile f = {
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
		hash_data(j, c->secret, c->old_data, c->old_len, f.old_hash);
		f.copy = vw_xasprintf("files/%04zu", ncopy);
	}
	if (!c->remove)
		hash_data(j, c->secret, c->new_data, c->new_len, f.new_hash);
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
			if (jb->acc[i] && !strcmp(base_of(jb->plan->v[i].path), argv[a]))
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

static void journal_fill(struct job *jb, struct journal *j)
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

		add_post(j, vw_xstrdup(posts[i]), k, inverse_of(jb, posts[i], k));
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
static int journal_begin(struct job *jb, struct journal *j, int *jfd, struct vw_err *err)
{
	int r = journal_mkdir(jb->sr, j, jfd, err);
	size_t k = 0;

	if (r < 0)
		return r;
	if (any_secret(jb)) {
		if (getrandom(j->key, sizeof(j->key), 0) != sizeof(j->key))
			return vw_err_set(err, -EIO, _("cannot get random bytes for the journal key"));
		j->has_key = true;
		r = journal_put(*jfd, j, "key", j->key, sizeof(j->key), err);
	}
	journal_fill(jb, j);
	for (size_t i = 0; r == 0 && i < jb->plan->n; i++) {
		if (!jb->acc[i])
			continue;
		const struct vw_change *c = &jb->plan->v[i];
		if (j->f[k].copy)
			r = journal_put(*jfd, j, j->f[k].copy, c->old_data, c->old_len, err);
		k++;
	}
	if (r == 0) {
		char *text = manifest_text(j);
		r = journal_put(*jfd, j, "manifest", text, strlen(text), err);
		free(text);
	}
	return r;
}

static int make_dirs(const struct vw_sysroot *sr, const struct target *t, struct vw_err *err)
{
	for (size_t k = 0; k < t->nmkdirs; k++) {
		char *parent = dir_of(t->mkdirs[k]);
		int pfd = open_dir(sr, parent), r = 0;

		free(parent);
		if (pfd < 0)
			return fs_err(err, pfd, t->mkdirs[k]);
		if (mkdirat(pfd, base_of(t->mkdirs[k]), 0755) < 0 && errno != EEXIST)
			r = -errno;
		if (r == 0 && fsync(pfd) < 0)
			r = -errno;
		close(pfd);
		if (r < 0)
			return fs_err(err, r, t->mkdirs[k]);
	}
	return 0;
}

static int write_one(const struct vw_sysroot *sr, const struct vw_change *c,
		     const struct target *t, struct vw_err *err)
{
	struct wspec w = { .mode = c->mode };
	int dfd, r = check_fresh(sr, c, t, err);

	if (r == 0)
		r = make_dirs(sr, t, err);
	if (r < 0)
		return r;
	dfd = open_dir(sr, t->dir);
	if (dfd < 0)
		return fs_err(err, dfd, c->path);
	clean_temps(dfd);
	if (t->exists) {
		w = (struct wspec){ t->st.st_mode & 07777, t->st.st_uid, t->st.st_gid, true };
		if (c->secret)
			w.mode = 0600;
	}
	if (!c->remove)
		r = write_in_dir(dfd, c->path, base_of(t->rel), c->new_data, c->new_len, &w, err);
	else if (unlinkat(dfd, base_of(t->rel), 0) < 0 || fsync(dfd) < 0)
		r = fs_err(err, -errno, c->path);
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
	struct target t = { 0 };
	struct wspec w = { .mode = mode };
	int dfd = -1, r;

	if (!norm)
		return -EINVAL;
	r = resolve_target(sr, norm, false, &t, err);
	if (r == 0)
		r = make_dirs(sr, &t, err);
	if (r == 0 && (dfd = open_dir(sr, t.dir)) < 0)
		r = fs_err(err, dfd, norm);
	if (r == 0 && t.exists)
		w = (struct wspec){ private ? 0600 : t.st.st_mode & 07777, t.st.st_uid, t.st.st_gid,
				    true };
	if (r == 0)
		r = write_in_dir(dfd, norm, base_of(t.rel), data, len, &w, err);
	if (dfd >= 0)
		close(dfd);
	target_done(&t);
	free(norm);
	return r;
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

static void post_log(int jfd, const struct journal *j, const struct vw_post_run *runs, size_t n)
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
	journal_put(jfd, j, "post.log", b.data, b.len, NULL);
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
static void post_state(struct job *jb, const struct journal *j, int jfd)
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
			hash_data(j, j->f[k].secret, buf, len, h);
			free(buf);
			if (strcmp(h, j->f[k].new_hash) && !strstr(b.data, h)) {
				add_escaped(&b, p);
				vw_buf_printf(&b, " %s\n", h);
			}
		}
		free(suffix);
		vw_strv_free(argv);
	}
	/* Informative like post.log: without it undo asks about the file. */
	if (b.len)
		journal_put(jfd, j, "post-state", b.data, b.len, NULL);
	vw_buf_done(&b);
}

static int finish(struct job *jb, struct journal *j, int jfd, int r,
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
	sr_ = journal_put(jfd, j, "status", status, strlen(status), &serr);
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

/* A journal that could not be completed describes nothing: remove it. */
static void journal_discard(int jfd, const struct vw_sysroot *sr, const char *id)
{
	static const char *const names[] = { "manifest", "key", "files" };
	int ffd = openat(jfd, "files", O_RDONLY | O_DIRECTORY | O_CLOEXEC), rfd;

	if (ffd >= 0) {
		DIR *d = fdopendir(ffd);
		struct dirent *de;

		while (d && (de = readdir(d)))
			if (de->d_name[0] != '.')
				unlinkat(ffd, de->d_name, 0);
		if (d)
			closedir(d);
		else
			close(ffd);
	}
	clean_temps(jfd);
	for (size_t i = 0; i < VW_ARRAY_SIZE(names); i++)
		unlinkat(jfd, names[i], i == 2 ? AT_REMOVEDIR : 0);
	rfd = open_dir(sr, VW_APPLY_JOURNAL_DIR);
	if (rfd >= 0) {
		unlinkat(rfd, id, AT_REMOVEDIR);
		close(rfd);
	}
}

static int apply_locked(struct job *jb, const struct vw_apply_opts *o, struct vw_err *err)
{
	struct journal j = { 0 };
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
			journal_discard(jfd, jb->sr, j.id);
		err_append(err, _("nothing was changed"));
	} else {
		jb->res->journal_id = vw_xstrdup(j.id);
		r = write_changes(jb, j.id, err);
		r = finish(jb, &j, jfd, r, o, err);
	}
	if (jfd >= 0)
		close(jfd);
	journal_done(&j);
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
			target_done(&jb.t[i]);
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

/* ---- listing and undo ---- */

static bool marker(const struct vw_sysroot *sr, const char *id, const char *name, char *first,
		   size_t size)
{
	char *path = jpath(id, name), *text;
	bool ok = vw_sysroot_read(sr, path, &text, NULL, 4096, NULL) == 0;

	free(path);
	if (ok && first) {
		snprintf(first, size, "%s", text);
		first[strcspn(first, " \n")] = '\0';
	}
	if (ok)
		free(text);
	return ok;
}

static enum vw_journal_state journal_state(const struct vw_sysroot *sr, const struct journal *j)
{
	char status[32] = "";

	if (marker(sr, j->id, "undone", NULL, 0))
		return VW_JOURNAL_UNDONE;
	if (!j->complete)
		return VW_JOURNAL_EMPTY;
	if (!marker(sr, j->id, "status", status, sizeof(status)))
		return VW_JOURNAL_INTERRUPTED;
	return !strcmp(status, "applied") ? VW_JOURNAL_APPLIED : VW_JOURNAL_PARTIAL;
}

static time_t id_time(const char *id)
{
	struct tm tm = { 0 };

	if (sscanf(id, "%4d%2d%2dT%2d%2d%2dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
		   &tm.tm_min, &tm.tm_sec) != 6)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return timegm(&tm);
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
		struct journal j;

		if (!valid_id(names[i]))
			continue;
		journal_read(sr, names[i], &j, NULL);
		(*list)[k++] = (struct vw_journal_info){ vw_xstrdup(names[i]), id_time(names[i]),
							 j.nf, journal_state(sr, &j) };
		journal_done(&j);
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
		if (!valid_id(id))
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

/* Where a journaled file stands now. */
enum fstate { F_OLD, F_NEW, F_OTHER, F_SKIP };

static enum fstate file_state(const struct vw_sysroot *sr, const struct journal *j,
			      const struct jfile *f, struct target *t, struct vw_err *err, int *r)
{
	char h[HASH_LEN] = "-", *buf = NULL;
	size_t len = 0;

	*r = resolve_target(sr, f->path, false, t, err);
	if (*r < 0)
		return F_OTHER;
	if (t->exists) {
		*r = vw_sysroot_read(sr, t->rel, &buf, &len, VW_PLAN_MAX_FILE, err);
		if (*r < 0)
			return F_OTHER;
		hash_data(j, f->secret, buf, len, h);
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
static int load_copy(const struct vw_sysroot *sr, const struct journal *j, const struct jfile *f,
		     char **data, size_t *len, struct vw_err *err)
{
	char *path = jpath(j->id, f->copy), h[HASH_LEN];
	int r = vw_sysroot_read(sr, path, data, len, VW_PLAN_MAX_FILE, err);

	free(path);
	if (r < 0)
		return r;
	hash_data(j, f->secret, *data, *len, h);
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
static bool named(const struct vw_sysroot *sr, const char *const *list, const struct jfile *f)
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

static void add_stale(const struct vw_sysroot *sr, const struct journal *j, const struct jfile *f,
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

static int undo_check(const struct vw_sysroot *sr, const struct journal *j,
		      const struct vw_undo_opts *o, enum fstate *st, struct vw_undo_result *res,
		      struct vw_err *err)
{
	for (size_t i = 0; i < j->nf; i++) {
		const struct jfile *f = &j->f[i];
		struct target t = { 0 };
		char *data = NULL;
		size_t len;
		int r;

		st[i] = file_state(sr, j, f, &t, err, &r);
		/* Refuse a read-only target before anything is restored. */
		if (r == 0 && st[i] != F_OLD && !named(sr, o->skip, f))
			r = check_writable(sr, f->path, &t, !o->dry, err);
		target_done(&t);
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

static int restore_one(const struct vw_sysroot *sr, const struct journal *j,
		       const struct jfile *f, struct vw_undo_result *res, struct vw_err *err)
{
	struct target t = { 0 };
	struct wspec w = { f->mode, f->uid, f->gid, true };
	char *data = NULL;
	size_t len = 0;
	int dfd, r = resolve_target(sr, f->path, false, &t, err);

	if (r == 0 && f->existed)
		r = load_copy(sr, j, f, &data, &len, err);
	if (r == 0)
		r = make_dirs(sr, &t, err);
	dfd = r == 0 ? open_dir(sr, t.dir) : -1;
	if (r == 0 && dfd < 0)
		r = fs_err(err, dfd, f->path);
	if (r == 0 && f->existed)
		r = write_in_dir(dfd, f->path, base_of(t.rel), data, len, &w, err);
	else if (r == 0 && t.exists && (unlinkat(dfd, base_of(t.rel), 0) < 0 || fsync(dfd) < 0))
		r = fs_err(err, -errno, f->path);
	if (r == 0)
		*(f->existed ? &res->restored : &res->removed) += 1;
	if (dfd >= 0)
		close(dfd);
	free(data);
	target_done(&t);
	return r;
}

/* A write killed before its rename leaves a temporary file next to a target
 * that still holds its old bytes: remove those too. */
static void clean_journal_dirs(const struct vw_sysroot *sr, const struct journal *j)
{
	for (size_t i = 0; i < j->nf; i++) {
		char *dir = dir_of(j->f[i].path);
		int dfd = open_dir(sr, dir);

		if (dfd >= 0) {
			clean_temps(dfd);
			close(dfd);
		}
		free(dir);
	}
}

/* Directories the apply created, deepest first; ones that are not empty
 * (someone put files there since) stay. */
static void remove_dirs(const struct vw_sysroot *sr, const struct journal *j)
{
	for (size_t i = j->ndirs; i-- > 0;) {
		char *parent = dir_of(j->dirs[i]);
		int pfd = open_dir(sr, parent);

		free(parent);
		if (pfd < 0)
			continue;
		int dfd = open_dir(sr, j->dirs[i]);
		if (dfd >= 0) {
			clean_temps(dfd);
			close(dfd);
		}
		if (unlinkat(pfd, base_of(j->dirs[i]), AT_REMOVEDIR) == 0)
			fsync(pfd);
		close(pfd);
	}
}

static int mark_undone(const struct vw_sysroot *sr, const struct journal *j, size_t skipped,
		       struct vw_err *err)
{
	char *rel = jpath(j->id, NULL), stamp[96];
	int jfd = open_dir(sr, rel), r;
	time_t now = time(NULL);
	struct tm tm;
	size_t n;

	free(rel);
	if (jfd < 0)
		return fs_err(err, jfd, VW_APPLY_JOURNAL_DIR);
	n = strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime_r(&now, &tm));
	snprintf(stamp + n, sizeof(stamp) - n, skipped ? " skipped=%zu\n" : "\n", skipped);
	r = journal_put(jfd, j, "undone", stamp, strlen(stamp), err);
	close(jfd);
	return r;
}

/* The commands that take the post-commands back: *before* the restore, the
 * inverses of what changed state (stop, disable, undefine: while what the
 * apply made is still there), in reverse order; *after* it, the rebuilds
 * from the restored files, then what reads restored files again (define,
 * restart), in apply order. */
static void undo_posts(const struct journal *j, struct vw_undo_result *res, char ***before,
		       char ***after)
{
	size_t n = 0, nb = 0, na = 0, nk = 0, ni = 0;

	*before = vw_xcalloc(1, sizeof(char *));
	*after = vw_xcalloc(1, sizeof(char *));
	for (int phase = 0; phase < 3; phase++) {
		for (size_t k = 0; k < j->npk; k++) {
			size_t i = phase == 0 ? j->npk - 1 - k : k;
			const struct jpost *p = &j->pk[i];
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
		const struct jpost *p = &j->pk[i];

		if (p->inverse)
			continue;
		strv_add(&res->kept, &nk, p->cmd);
		if (p->kind == VW_POSTK_IMAGE) {
			char *img = image_path(p->cmd);

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

static int undo_journal(const struct vw_sysroot *sr, struct journal *j,
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
			r = read_key(sr, j, err);
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

static bool journal_exists(const struct vw_sysroot *sr, const char *id)
{
	char *rel = jpath(id, NULL);
	bool ok = vw_sysroot_is_dir(sr, rel);

	free(rel);
	return ok;
}

/* Remove temporary files in a journal and its files/; count them. */
static size_t tidy_temps(int jfd)
{
	size_t n = 0;

	for (int pass = 0; pass < 2; pass++) {
		int dfd = pass ? openat(jfd, "files", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : dup(jfd);
		DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
		struct dirent *de;

		if (!d) {
			if (dfd >= 0)
				close(dfd);
			continue;
		}
		while ((de = readdir(d)))
			if (is_temp_name(de->d_name) && unlinkat(dirfd(d), de->d_name, 0) == 0)
				n++;
		closedir(d);
	}
	return n;
}

void vw_journal_tidy(const struct vw_sysroot *sr, struct vw_tidy *t)
{
	char **names;
	int n = vw_sysroot_list(sr, VW_APPLY_JOURNAL_DIR, &names);

	memset(t, 0, sizeof(*t));
	if (n < 0)
		return;
	for (int i = 0; i < n; i++) {
		char *rel = jpath(names[i], NULL), *man = jpath(names[i], "manifest");
		int jfd = valid_id(names[i]) ? open_dir(sr, rel) : -1;

		if (jfd >= 0) {
			t->temps += tidy_temps(jfd);
			/* No manifest: killed before any target was touched. */
			if (!vw_sysroot_exists(sr, man)) {
				journal_discard(jfd, sr, names[i]);
				t->journals += !journal_exists(sr, names[i]);
			}
			close(jfd);
		}
		free(rel);
		free(man);
	}
	vw_strv_free(names);
}

int vw_undo_opts(const struct vw_sysroot *sr, const char *id, const struct vw_undo_opts *opts,
		 struct vw_undo_result *res, struct vw_err *err)
{
	const struct vw_undo_opts none = { 0 };
	const struct vw_undo_opts *o = opts ? opts : &none;
	struct journal j = { 0 };
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
		r = journal_read(sr, which, &j, err);
	}
	if (r == 0 && marker(sr, which, "undone", NULL, 0))
		r = vw_err_set(err, -EALREADY, _("journal %s was already undone"), which);
	else if (r == 0 && !j.complete && !journal_exists(sr, which))
		r = vw_err_set(err, -ENOENT, _("there is no journal %s"), which);
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
	journal_done(&j);
	free(which);
	vw_apply_unlock(lock);
	return r;
}

int vw_undo(const struct vw_sysroot *sr, const char *id, struct vw_undo_result *res,
	    struct vw_err *err)
{
	return vw_undo_opts(sr, id, NULL, res, err);
}
