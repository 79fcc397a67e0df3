/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sysroot.c - path resolution under a root directory.
 *
 * This is the only module that spells out how a path reaches the file
 * system; everything else passes root-relative paths. */
#define _GNU_SOURCE
#include "sysroot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

struct vw_sysroot {
	char *root;	/* "" for "/", else absolute path without trailing '/' */
	int fd;
	bool host;
};

int vw_sysroot_open(struct vw_sysroot **out, const char *root, struct vw_err *err)
{
	struct vw_sysroot *sr;
	char *abs;
	size_t n;

	if (!root || !*root)
		root = "/";
	abs = realpath(root, NULL);
	if (!abs)
		return vw_err_set(err, -errno, _("cannot use %s as the system root: %s"),
				  root, strerror(errno));
	sr = vw_xcalloc(1, sizeof(*sr));
	sr->fd = open(abs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (sr->fd < 0) {
		int e = errno;
		free(sr);
		vw_err_set(err, -e, _("cannot open %s: %s"), abs, strerror(e));
		free(abs);
		return -e;
	}
	n = strlen(abs);
	while (n > 0 && abs[n - 1] == '/')
		abs[--n] = '\0';
	sr->root = abs;
	sr->host = (n == 0);
	*out = sr;
	return 0;
}

void vw_sysroot_free(struct vw_sysroot *sr)
{
	if (!sr)
		return;
	close(sr->fd);
	free(sr->root);
	free(sr);
}

const char *vw_sysroot_root(const struct vw_sysroot *sr)
{
	return sr->root;
}

bool vw_sysroot_is_host(const struct vw_sysroot *sr)
{
	return sr->host;
}

int vw_sysroot_fd(const struct vw_sysroot *sr)
{
	return sr->fd;
}

static const char *strip(const char *rel)
{
	while (*rel == '/')
		rel++;
	return *rel ? rel : ".";
}

char *vw_sysroot_path(const struct vw_sysroot *sr, const char *rel)
{
	return vw_xasprintf("%s/%s", sr->root, strip(rel));
}

int vw_sysroot_openat(const struct vw_sysroot *sr, const char *rel, int flags, mode_t mode)
{
	static int have_openat2 = 1;
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int fd;

	rel = strip(rel);
	if (have_openat2) {
		/* EAGAIN: a rename anywhere on the machine while the walk went
		 * through "..", so the kernel could not vouch that it stayed
		 * in the root (openat2(2) says to retry).  A busy machine does
		 * that all the time; a path is never refused for it. */
		int tries = 0;

		do
			fd = (int)syscall(SYS_openat2, sr->fd, rel, &how, sizeof(how));
		while (fd < 0 && errno == EAGAIN && ++tries < 1000);
		if (fd >= 0)
			return fd;
		if (errno != ENOSYS)
			return -errno;
		have_openat2 = 0;
	}
	/* Kernels before 5.6: links are followed as the host sees them. */
	fd = openat(sr->fd, rel, flags | O_CLOEXEC, mode);
	return fd >= 0 ? fd : -errno;
}

int vw_sysroot_read(const struct vw_sysroot *sr, const char *rel, char **buf,
		    size_t *len, size_t max, struct vw_err *err)
{
	struct vw_buf b = VW_BUF_INIT;
	char chunk[8192];
	ssize_t n;
	int fd;

	*buf = NULL;
	if (len)
		*len = 0;
	fd = vw_sysroot_openat(sr, rel, O_RDONLY | O_NOCTTY | O_NONBLOCK, 0);
	if (fd < 0)
		return vw_err_set(err, fd, _("cannot open /%s: %s"), strip(rel), strerror(-fd));
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			vw_buf_done(&b);
			return vw_err_set(err, -e, _("cannot read /%s: %s"), strip(rel), strerror(e));
		}
		if (n == 0)
			break;
		if (b.len + (size_t)n > max) {
			close(fd);
			vw_buf_done(&b);
			return vw_err_set(err, -EFBIG, _("/%s is larger than %zu bytes"), strip(rel), max);
		}
		vw_buf_add(&b, chunk, (size_t)n);
	}
	close(fd);
	if (len)
		*len = b.len;
	*buf = vw_buf_steal(&b);
	return 0;
}

char *vw_sysroot_read_line(const struct vw_sysroot *sr, const char *rel)
{
	char *buf, *nl, *t, *r;

	if (vw_sysroot_read(sr, rel, &buf, NULL, 65536, NULL) < 0)
		return NULL;
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	t = vw_strtrim(buf);
	r = vw_xstrdup(t);
	free(buf);
	return r;
}

int vw_sysroot_read_long(const struct vw_sysroot *sr, const char *rel, long *out)
{
	char *s = vw_sysroot_read_line(sr, rel), *end;
	long v;

	if (!s)
		return -ENOENT;
	errno = 0;
	v = strtol(s, &end, 0);
	if (end == s || *end || errno) {
		free(s);
		return -EINVAL;
	}
	free(s);
	*out = v;
	return 0;
}

static bool stat_under(const struct vw_sysroot *sr, const char *rel, struct stat *st)
{
	int fd = vw_sysroot_openat(sr, rel, O_PATH, 0);
	bool ok;

	if (fd < 0)
		return false;
	ok = fstat(fd, st) == 0;
	close(fd);
	return ok;
}

bool vw_sysroot_exists(const struct vw_sysroot *sr, const char *rel)
{
	struct stat st;
	return stat_under(sr, rel, &st);
}

bool vw_sysroot_is_dir(const struct vw_sysroot *sr, const char *rel)
{
	struct stat st;
	return stat_under(sr, rel, &st) && S_ISDIR(st.st_mode);
}

char *vw_sysroot_link_base(const struct vw_sysroot *sr, const char *rel)
{
	char target[PATH_MAX], *slash, *dir;
	const char *base;
	ssize_t n;
	int fd;

	/* Read the link itself: open its directory, readlinkat the last name. */
	rel = strip(rel);
	slash = strrchr(rel, '/');
	dir = slash ? vw_xstrndup(rel, (size_t)(slash - rel)) : vw_xstrdup(".");
	base = slash ? slash + 1 : rel;
	fd = vw_sysroot_openat(sr, dir, O_PATH | O_DIRECTORY, 0);
	free(dir);
	if (fd < 0)
		return NULL;
	n = readlinkat(fd, base, target, sizeof(target) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	target[n] = '\0';
	while (n > 1 && target[n - 1] == '/')
		target[--n] = '\0';
	slash = strrchr(target, '/');
	return vw_xstrdup(slash ? slash + 1 : target);
}

char *vw_sysroot_realpath(const struct vw_sysroot *sr, const char *rel)
{
	char proc[64], target[PATH_MAX];
	size_t rn = strlen(sr->root);
	ssize_t n;
	int fd;

	fd = vw_sysroot_openat(sr, rel, O_PATH, 0);
	if (fd < 0)
		return NULL;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, target, sizeof(target) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	target[n] = '\0';
	if (strncmp(target, sr->root, rn) != 0 || (target[rn] != '/' && target[rn] != '\0'))
		return NULL;
	return vw_xstrdup(target[rn] == '/' ? target + rn + 1 : target + rn);
}

DIR *vw_sysroot_opendir(const struct vw_sysroot *sr, const char *rel)
{
	int fd = vw_sysroot_openat(sr, rel, O_RDONLY | O_DIRECTORY, 0);
	DIR *d;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	d = fdopendir(fd);
	if (!d) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return d;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int vw_sysroot_list(const struct vw_sysroot *sr, const char *rel, char ***names)
{
	DIR *d = vw_sysroot_opendir(sr, rel);
	struct dirent *de;
	char **v = NULL;
	size_t n = 0, cap = 0;

	*names = NULL;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n + 2 > cap) {
			cap = cap ? cap * 2 : 16;
			v = vw_xreallocarray(v, cap, sizeof(*v));
		}
		v[n++] = vw_xstrdup(de->d_name);
	}
	closedir(d);
	if (!v)
		v = vw_xcalloc(1, sizeof(*v));
	v[n] = NULL;
	qsort(v, n, sizeof(*v), cmp_names);
	*names = v;
	return (int)n;
}

void vw_strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}
