/* SPDX-License-Identifier: GPL-2.0-or-later */
/* demo.c - the demo host's private copy, and its pretend reboot. */
/* nftw() and its FTW_* flags need the X/Open extensions before any header. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "demo.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "exec.h"
#include "unit.h"
#include "verify.h"

/* nftw() has no user argument: the copy in progress. */
static const char *copy_src, *copy_dst;
static struct vw_err *copy_err;

static int copy_file(const char *from, const char *to, mode_t mode)
{
	int in = open(from, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), out, r = 0;
	char buf[65536];
	ssize_t n;

	if (in < 0 && errno == EACCES) {
		/* A file only root may read (an ACPI table, 0400), copied by a
		   user: keep that it exists, as a live host shows it. */
		out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode & 07777);
		if (out < 0)
			return -errno;
		close(out);
		return 0;
	}
	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode & 07777);
	if (out < 0) {
		r = -errno;
		close(in);
		return r;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));

			if (w < 0) {
				r = -errno;
				goto out;
			}
			off += w;
		}
	}
	if (n < 0)
		r = -errno;
out:
	if (close(out) < 0 && !r)
		r = -errno;
	close(in);
	return r;
}

static int copy_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *rel = path + strlen(copy_src);
	char *to = vw_xasprintf("%s%s", copy_dst, rel);
	int r = 0;

	(void)ftw;
	if (!*rel) {	/* the top: already made by mkdtemp */
		free(to);
		return 0;
	}
	if (type == FTW_D) {
		if (mkdir(to, (st->st_mode & 07777) | 0700) < 0)
			r = -errno;
	} else if (type == FTW_SL || type == FTW_SLN) {
		char target[4096];
		ssize_t n = readlink(path, target, sizeof(target) - 1);

		if (n < 0)
			r = -errno;
		else {
			target[n] = '\0';
			if (symlink(target, to) < 0)
				r = -errno;
		}
	} else if (type == FTW_F) {
		if (S_ISREG(st->st_mode))
			r = copy_file(path, to, st->st_mode);
	} else if (type == FTW_DNR || type == FTW_NS) {
		r = -EACCES;
	}
	if (r < 0)
		vw_err_set(copy_err, r, _("cannot copy the demo host (%s): %s"), rel, strerror(-r));
	free(to);
	return r < 0 ? 1 : 0;
}

int vw_demo_copy(const char *src, char **dir, struct vw_err *err)
{
	const char *tmp = getenv("TMPDIR");
	char *tmpl = vw_xasprintf("%s/vfiowiz-demo.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	char *from;
	int r;

	*dir = NULL;
	if (!mkdtemp(tmpl)) {
		r = -errno;
		vw_err_set(err, r, _("cannot make a folder for the demo host in %s: %s"),
			   tmp && *tmp ? tmp : "/tmp", strerror(-r));
		free(tmpl);
		return r;
	}
	/* nftw() does not follow a link given as the top: resolve it first */
	from = realpath(src, NULL);
	if (!from)
		from = vw_xstrdup(src);
	copy_src = from;
	copy_dst = tmpl;
	copy_err = err;
	r = nftw(from, copy_one, 32, FTW_PHYS);
	copy_src = copy_dst = NULL;
	copy_err = NULL;
	free(from);
	if (r != 0) {
		if (r < 0)
			vw_err_set(err, -errno, _("cannot copy the demo host from %s: %s"), src, strerror(errno));
		vw_demo_remove(tmpl, NULL);
		free(tmpl);
		return -EIO;
	}
	*dir = tmpl;
	return 0;
}

int vw_demo_start(struct vw_demo *d, const char *src, struct vw_err *err)
{
	const char *tmp = getenv("TMPDIR");
	char *tmpl = vw_xasprintf("%s/vfiowiz-demo.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	pid_t pid;
	int r;

	memset(d, 0, sizeof(*d));
	if (!mkdtemp(tmpl)) {
		r = -errno;
		vw_err_set(err, r, _("cannot make a folder for the demo host in %s: %s"),
			   tmp && *tmp ? tmp : "/tmp", strerror(-r));
		free(tmpl);
		return r;
	}
	pid = fork();
	if (pid < 0) {
		r = -errno;
		vw_err_set(err, r, _("cannot copy the demo host from %s: %s"), src, strerror(-r));
		rmdir(tmpl);
		free(tmpl);
		return r;
	}
	if (pid == 0) {	/* the child copies and leaves; it never returns */
		char *from = realpath(src, NULL);

		if (!from)
			_exit(1);
		copy_src = from;
		copy_dst = tmpl;
		_exit(nftw(from, copy_one, 32, FTW_PHYS) == 0 ? 0 : 1);
	}
	d->dir = tmpl;
	d->pid = (int)pid;
	return 0;
}

int vw_demo_wait(struct vw_demo *d, struct vw_err *err)
{
	int st;

	if (d->ready)
		return 0;
	if (!d->pid)
		return vw_err_set(err, -ECHILD, _("the demo host was not copied"));
	while (waitpid((pid_t)d->pid, &st, 0) < 0)
		if (errno != EINTR)
			return vw_err_set(err, -errno, _("cannot copy the demo host: %s"), strerror(errno));
	d->pid = 0;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return vw_err_set(err, -EIO, _("cannot copy the demo host into %s"), d->dir);
	d->ready = true;
	return 0;
}

void vw_demo_end(struct vw_demo *d)
{
	if (d->pid) {
		kill((pid_t)d->pid, SIGKILL);
		while (waitpid((pid_t)d->pid, NULL, 0) < 0 && errno == EINTR)
			;
		d->pid = 0;
	}
	if (d->dir)
		vw_demo_remove(d->dir, NULL);
	free(d->dir);
	memset(d, 0, sizeof(*d));
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		return rmdir(path) < 0 ? -1 : 0;
	return unlink(path) < 0 ? -1 : 0;
}

int vw_demo_remove(const char *dir, struct vw_err *err)
{
	if (!dir || !*dir || !strcmp(dir, "/"))
		return vw_err_set(err, -EINVAL, _("refusing to remove '%s'"), dir ? dir : "");
	if (nftw(dir, remove_one, 32, FTW_DEPTH | FTW_PHYS) != 0)
		return vw_err_set(err, -errno, _("cannot remove %s: %s"), dir, strerror(errno));
	return 0;
}

/* mkdir -p rel under the root. */
static int mkdirs(const struct vw_sysroot *sr, const char *rel)
{
	char *p = vw_xstrdup(rel);
	int r = 0;

	for (char *s = p;; s++) {
		if (*s == '/' || !*s) {
			char c = *s;

			*s = '\0';
			if (!vw_sysroot_is_dir(sr, p)) {
				char *slash = strrchr(p, '/');
				int dfd;

				if (slash) {
					*slash = '\0';
					dfd = vw_sysroot_openat(sr, p, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
					*slash = '/';
				} else {
					dfd = dup(vw_sysroot_fd(sr));
				}
				if (dfd < 0 || mkdirat(dfd, slash ? slash + 1 : p, 0755) < 0)
					r = dfd < 0 ? dfd : -errno;
				if (dfd >= 0)
					close(dfd);
				if (r < 0 && r != -EEXIST)
					break;
				r = 0;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	free(p);
	return r;
}

static int bind_vfio(const struct vw_sysroot *sr, const char *addr)
{
	char *dev = vw_xasprintf("sys/bus/pci/devices/%s", addr);
	char *real = vw_sysroot_realpath(sr, dev);
	char target[4096];
	struct vw_buf link = VW_BUF_INIT;
	int fd, r = 0;
	ssize_t n;

	free(dev);
	if (!real)
		return -ENOENT;
	fd = vw_sysroot_openat(sr, real, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd < 0) {
		free(real);
		return fd;
	}
	n = readlinkat(fd, "driver", target, sizeof(target) - 1);
	if (n > 0) {
		char *slash;

		target[n] = '\0';
		slash = strrchr(target, '/');
		vw_buf_add(&link, target, slash ? (size_t)(slash - target + 1) : 0);
		vw_buf_adds(&link, "vfio-pci");
		unlinkat(fd, "driver", 0);
	} else {
		/* "sys/devices/a/b/c" -> "../../../bus/pci/drivers/vfio-pci" */
		for (const char *s = strchr(real, '/'); s; s = strchr(s + 1, '/'))
			vw_buf_adds(&link, "../");
		vw_buf_adds(&link, "bus/pci/drivers/vfio-pci");
	}
	if (symlinkat(link.data, fd, "driver") < 0)
		r = -errno;
	close(fd);
	vw_buf_done(&link);
	free(real);
	return r;
}

static int append_lines(const struct vw_sysroot *sr, const char *rel, const char *const *lines,
			mode_t mode, struct vw_err *err)
{
	char *old = NULL;
	size_t len = 0;
	struct vw_buf b = VW_BUF_INIT;
	int r;

	if (vw_sysroot_read(sr, rel, &old, &len, 1 << 20, NULL) < 0) {
		old = vw_xstrdup("");
		len = 0;
	}
	vw_buf_add(&b, old, len);
	if (len && old[len - 1] != '\n')
		vw_buf_addc(&b, '\n');
	for (size_t i = 0; lines[i]; i++)
		if (!strstr(old, lines[i]))
			vw_buf_printf(&b, "%s\n", lines[i]);
	r = vw_write_atomic(sr, rel, b.data ? b.data : "", b.len, mode, err);
	vw_buf_done(&b);
	free(old);
	return r;
}

int vw_demo_reboot(const struct vw_sysroot *sr, const struct vw_facts *f, const struct vw_choices *c,
		   struct vw_err *err)
{
	struct vw_unit u;
	char id[64];
	unsigned char rnd[16] = { 0 };
	int fd, r;

	r = vw_unit_build(&u, f, c, err);
	if (r < 0)
		return r;
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, rnd, sizeof(rnd)) != (ssize_t)sizeof(rnd)) {
		unsigned long t = (unsigned long)time(NULL) ^ (unsigned long)getpid();

		memcpy(rnd, &t, sizeof(t));
	}
	if (fd >= 0)
		close(fd);
	snprintf(id, sizeof(id), "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\n",
		 rnd[0], rnd[1], rnd[2], rnd[3], rnd[4], rnd[5], rnd[6], rnd[7], rnd[8], rnd[9], rnd[10],
		 rnd[11], rnd[12], rnd[13], rnd[14], rnd[15]);
	r = vw_write_atomic(sr, "proc/sys/kernel/random/boot_id", id, strlen(id), 0444, err);
	if (r == 0)
		r = mkdirs(sr, "sys/bus/pci/drivers/vfio-pci");
	for (size_t k = 0; r == 0 && k < u.n; k++)
		r = bind_vfio(sr, f->devs[u.m[k].dev].addr);
	if (r < 0 && !(err && err->code))
		vw_err_set(err, r, _("cannot pretend the demo host rebooted: %s"), strerror(-r));
	if (r == 0) {
		static const char *const mods[] = {
			"vfio_pci 16384 2 - Live 0x0000000000000000",
			"vfio_iommu_type1 45056 1 - Live 0x0000000000000000",
			"vfio 45056 6 vfio_pci,vfio_iommu_type1, Live 0x0000000000000000", NULL,
		};
		r = append_lines(sr, "proc/modules", mods, 0444, err);
	}
	if (r == 0) {	/* update-initramfs "ran": the listing now holds vfio */
		char *cmd = vw_verify_initramfs_cmd(f), **argv = NULL;

		if (cmd && vw_exec_split(cmd, &argv, NULL) > 0) {
			char *key = vw_exec_key((const char *const *)argv);
			char *rel = vw_xasprintf(".vfiowiz/cmd/%s", key);
			char *m1 = vw_xasprintf("usr/lib/modules/%s/kernel/drivers/vfio/vfio.ko", f->kernel.release);
			char *m2 = vw_xasprintf("usr/lib/modules/%s/kernel/drivers/vfio/pci/vfio-pci.ko",
						f->kernel.release);
			char *m3 = vw_xasprintf("usr/lib/modules/%s/kernel/drivers/vfio/vfio_iommu_type1.ko",
						f->kernel.release);
			const char *const lines[] = { "etc/modprobe.d/vfiowiz.conf", m1, m2, m3, NULL };

			r = append_lines(sr, rel, lines, 0644, err);
			free(m1);
			free(m2);
			free(m3);
			free(rel);
			free(key);
		}
		vw_strv_free(argv);
		free(cmd);
	}
	vw_unit_done(&u);
	return r;
}
