/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmxfs.c - a FUSE file system with the semantics of Proxmox's pmxcfs
 * (/etc/pve), over a backing directory, for tests/pmxcfs.sh:
 *  - every file is root:www-data 0640, every directory 0755; chmod, chown,
 *    symlink, link and mknod fail with EPERM (pmxcfs has no such thing; the
 *    links it shows, such as qemu-server, are its own: here, the ones in
 *    the backing directory);
 *  - no fsync (ENOSYS, as pmxcfs); files are small: writing past 1 MiB
 *    fails with EFBIG, and the whole file system reports 30 MiB;
 *  - renaming a directory that is not empty fails (EACCES);
 *  - without quorum it is read-only: while the file named by -q exists,
 *    every change fails with EACCES, as pmxcfs does;
 *  - -k OP:NAME kills the process making call OP ("create", "write",
 *    "rename", "unlink") on a file named NAME ("*SUFFIX": ending so), with
 *    SIGKILL, and does not do it: a crash at an exact point, without timing.
 * Every refused call is logged to -l FILE ("chmod /path").
 *
 *   pmxfs [-q NOQUORUM] [-k OP:NAME] [-l LOG] BACKING MOUNTPOINT
 * It returns once the file system is mounted, served by a single-threaded
 * process in the background; unmount to stop it.
 */
#define FUSE_USE_VERSION 31
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define MAX_FILE (1 << 20)
#define WWW_DATA 33

static int base = -1;
static const char *noquorum, *kill_op, *kill_name, *logfile;

static const char *rel(const char *path)
{
	return path[1] ? path + 1 : ".";
}

static void logged(const char *op, const char *path)
{
	FILE *f = logfile ? fopen(logfile, "a") : NULL;

	if (f) {
		fprintf(f, "%s %s\n", op, path);
		fclose(f);
	}
}

static int refuse(const char *op, const char *path)
{
	logged(op, path);
	return -EPERM;
}

/* No quorum: read-only (pmxcfs answers EACCES). */
static int ro(const char *op, const char *path)
{
	if (noquorum && access(noquorum, F_OK) == 0) {
		logged(op, path);
		return -EACCES;
	}
	return 0;
}

/* True when the caller was killed: the call then does nothing, as if the
 * crash came just before it. */
static bool killed(const char *op, const char *path)
{
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	size_t n = strlen(name), k = kill_name ? strlen(kill_name) : 0;
	/* "*SUFFIX" matches the names that end so (temporary files). */
	bool hit = kill_name && (kill_name[0] == '*' ? n >= k - 1 && !strcmp(name + n - (k - 1), kill_name + 1)
						     : !strcmp(name, kill_name));

	if (kill_op && !strcmp(op, kill_op) && hit) {
		logged("killed", path);
		kill(fuse_get_context()->pid, SIGKILL);
		kill_op = NULL;	/* once */
		return true;
	}
	return false;
}

static int px_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	if (fstatat(base, rel(path), st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	st->st_uid = 0;
	st->st_gid = WWW_DATA;
	if (S_ISREG(st->st_mode))
		st->st_mode = S_IFREG | 0640;
	else if (S_ISDIR(st->st_mode))
		st->st_mode = S_IFDIR | 0755;
	return 0;
}

static int px_readlink(const char *path, char *buf, size_t size)
{
	ssize_t n = readlinkat(base, rel(path), buf, size - 1);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static int px_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	int fd = openat(base, rel(path), O_RDONLY | O_DIRECTORY);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	(void)off, (void)fi, (void)flags;
	if (!d)
		return fd >= 0 ? (close(fd), -ENOMEM) : -errno;
	while ((de = readdir(d)))
		fill(buf, de->d_name, NULL, 0, 0);
	closedir(d);
	return 0;
}

static int px_open(const char *path, struct fuse_file_info *fi)
{
	int r, fd;

	if ((fi->flags & O_ACCMODE) != O_RDONLY && (r = ro("open", path)))
		return r;
	fd = openat(base, rel(path), fi->flags & ~(O_NOFOLLOW | O_CLOEXEC));
	if (fd < 0)
		return -errno;
	fi->fh = (uint64_t)fd;
	return 0;
}

static int px_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	int r, fd;

	(void)mode;
	if ((r = ro("create", path)))
		return r;
	if (killed("create", path))
		return -EINTR;
	/* pmxcfs: O_EXCL is checked, then the file made, not atomically. */
	if ((fi->flags & O_EXCL) && faccessat(base, rel(path), F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return -EEXIST;
	fd = openat(base, rel(path), (fi->flags & ~(O_EXCL | O_NOFOLLOW | O_CLOEXEC)) | O_CREAT, 0640);
	if (fd < 0)
		return -errno;
	fi->fh = (uint64_t)fd;
	return 0;
}

static int px_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	ssize_t n = pread((int)fi->fh, buf, size, off);

	(void)path;
	return n < 0 ? -errno : (int)n;
}

static int px_write(const char *path, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	ssize_t n;
	int r;

	if ((r = ro("write", path)))
		return r;
	if (killed("write", path))
		return -EINTR;
	if (off + (off_t)size > MAX_FILE)
		return -EFBIG;
	n = pwrite((int)fi->fh, buf, size, off);
	return n < 0 ? -errno : (int)n;
}

static int px_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	int r;

	if ((r = ro("truncate", path)))
		return r;
	if (size > MAX_FILE)
		return -EFBIG;
	r = fi ? ftruncate((int)fi->fh, size) : -1;
	if (!fi) {
		int fd = openat(base, rel(path), O_WRONLY);

		r = fd < 0 ? -1 : ftruncate(fd, size);
		if (fd >= 0)
			close(fd);
	}
	return r < 0 ? -errno : 0;
}

static int px_release(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	close((int)fi->fh);
	return 0;
}

static int px_unlink(const char *path)
{
	int r;

	if ((r = ro("unlink", path)))
		return r;
	if (killed("unlink", path))
		return -EINTR;
	return unlinkat(base, rel(path), 0) < 0 ? -errno : 0;
}

static int px_mkdir(const char *path, mode_t mode)
{
	int r;

	(void)mode;
	if ((r = ro("mkdir", path)))
		return r;
	return mkdirat(base, rel(path), 0755) < 0 ? -errno : 0;
}

static int px_rmdir(const char *path)
{
	int r;

	if ((r = ro("rmdir", path)))
		return r;
	return unlinkat(base, rel(path), AT_REMOVEDIR) < 0 ? -errno : 0;
}

static int px_rename(const char *from, const char *to, unsigned int flags)
{
	struct stat st;
	int r;

	if ((r = ro("rename", to)))
		return r;
	if (flags)
		return -EINVAL;
	if (killed("rename", to))
		return -EINTR;
	if (fstatat(base, rel(from), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_nlink > 2) {
		logged("rename-dir", from);
		return -EACCES;
	}
	return renameat(base, rel(from), base, rel(to)) < 0 ? -errno : 0;
}

static int px_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	(void)mode, (void)fi;
	return refuse("chmod", path);
}

static int px_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	(void)uid, (void)gid, (void)fi;
	return refuse("chown", path);
}

static int px_symlink(const char *target, const char *path)
{
	(void)target;
	return refuse("symlink", path);
}

static int px_link(const char *from, const char *to)
{
	(void)from;
	return refuse("link", to);
}

static int px_mknod(const char *path, mode_t mode, dev_t dev)
{
	(void)mode, (void)dev;
	return refuse("mknod", path);
}

static int px_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	int r;

	(void)fi;
	if ((r = ro("utimens", path)))
		return r;
	return utimensat(base, rel(path), tv, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

static int px_statfs(const char *path, struct statvfs *sv)
{
	(void)path;
	memset(sv, 0, sizeof(*sv));
	sv->f_bsize = sv->f_frsize = 4096;
	sv->f_blocks = (30u << 20) / 4096;
	sv->f_bfree = sv->f_bavail = sv->f_blocks / 2;
	sv->f_namemax = 255;
	return 0;
}

static const struct fuse_operations ops = {
	.getattr = px_getattr,
	.readlink = px_readlink,
	.readdir = px_readdir,
	.open = px_open,
	.create = px_create,
	.read = px_read,
	.write = px_write,
	.truncate = px_truncate,
	.release = px_release,
	.unlink = px_unlink,
	.mkdir = px_mkdir,
	.rmdir = px_rmdir,
	.rename = px_rename,
	.chmod = px_chmod,
	.chown = px_chown,
	.symlink = px_symlink,
	.link = px_link,
	.mknod = px_mknod,
	.utimens = px_utimens,
	.statfs = px_statfs,
};

int main(int argc, char **argv)
{
	/* In the background once mounted (fuse_main returns in the parent
	 * only then): the caller needs no wait. */
	char *fargs[] = { argv[0], "-s", "-o", "fsname=pmxcfs,subtype=pmxcfs", NULL, NULL };
	int c;

	while ((c = getopt(argc, argv, "q:k:l:")) != -1) {
		switch (c) {
		case 'q': noquorum = optarg; break;
		case 'l': logfile = optarg; break;
		case 'k':
			kill_op = optarg;
			kill_name = strchr(optarg, ':');
			if (!kill_name)
				return 2;
			*(char *)kill_name++ = '\0';
			break;
		default: return 2;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: pmxfs [-q NOQUORUM] [-k OP:NAME] [-l LOG] BACKING MOUNTPOINT\n");
		return 2;
	}
	base = open(argv[optind], O_RDONLY | O_DIRECTORY);
	if (base < 0) {
		perror(argv[optind]);
		return 1;
	}
	/* Paths in the log and the kill point are absolute: the daemon
	 * changes to /. */
	fargs[4] = argv[optind + 1];
	return fuse_main(5, fargs, &ops, NULL);
}
