/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sysroot.h - every path the program reads or writes goes through here.
 *
 * A sysroot is a directory that stands for "/" (a live host, a test fixture,
 * the demo host or a support snapshot).  Paths given to these functions are
 * relative to the root ("sys/bus/pci/devices", "etc/default/grub"); a leading
 * '/' is accepted and ignored.  Symbolic links are resolved *inside* the root,
 * as chroot would (openat2 RESOLVE_IN_ROOT), so an absolute link in a snapshot
 * never reaches the machine it is replayed on.
 */
#ifndef VW_SYSROOT_H
#define VW_SYSROOT_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "vw.h"

struct vw_sysroot;

/* Open root ("/" or NULL for the live host).  On success *out is set; free it
 * with vw_sysroot_free(). */
int vw_sysroot_open(struct vw_sysroot **out, const char *root, struct vw_err *err);
void vw_sysroot_free(struct vw_sysroot *sr);

/* The root directory as given, without a trailing '/' ("" for the live host,
 * so vw_sysroot_path() of "etc/x" is "/etc/x"). */
const char *vw_sysroot_root(const struct vw_sysroot *sr);
/* True when the root is the live host's "/": only then do commands run. */
bool vw_sysroot_is_host(const struct vw_sysroot *sr);
/* Directory fd of the root (owned by sr, do not close). */
int vw_sysroot_fd(const struct vw_sysroot *sr);

/* Absolute path of rel under the root, for libraries that take paths
 * (libpci's sysfs.path, augeas, libblkid).  Caller frees. */
char *vw_sysroot_path(const struct vw_sysroot *sr, const char *rel);

/* openat2() under the root with RESOLVE_IN_ROOT (falls back to a plain
 * openat() relative to the root fd on kernels without openat2).  Returns an
 * fd or -errno. */
int vw_sysroot_openat(const struct vw_sysroot *sr, const char *rel, int flags, mode_t mode);

/* Read a whole file, at most max bytes (larger files are an error, -EFBIG).
 * *buf is NUL-terminated (caller frees), *len excludes the NUL (len may be
 * NULL).  Returns 0 or -errno; err gets a message naming the path. */
int vw_sysroot_read(const struct vw_sysroot *sr, const char *rel, char **buf,
		    size_t *len, size_t max, struct vw_err *err);

/* First line of a small file (sysfs attributes), trimmed; NULL when missing
 * or unreadable.  Caller frees. */
char *vw_sysroot_read_line(const struct vw_sysroot *sr, const char *rel);

/* Parse a small file holding one integer (strtol base 0: "0x10de", "1",
 * "-1").  Returns 0 and sets *out, or -ENOENT / -EINVAL (garbage). */
int vw_sysroot_read_long(const struct vw_sysroot *sr, const char *rel, long *out);

bool vw_sysroot_exists(const struct vw_sysroot *sr, const char *rel);
bool vw_sysroot_is_dir(const struct vw_sysroot *sr, const char *rel);

/* Last component of a symbolic link's target ("nvidia" for a driver link),
 * NULL when rel is not a link.  Caller frees. */
char *vw_sysroot_link_base(const struct vw_sysroot *sr, const char *rel);

/* Canonical path of rel relative to the root, links resolved inside it
 * ("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"); NULL on error.
 * Caller frees. */
char *vw_sysroot_realpath(const struct vw_sysroot *sr, const char *rel);

/* opendir() under the root; NULL with errno set on failure. */
DIR *vw_sysroot_opendir(const struct vw_sysroot *sr, const char *rel);

/* Sorted names of a directory's entries, "." and ".." left out.  Returns the
 * count (>= 0) or -errno; *names is a NULL-terminated array (caller frees
 * with vw_strv_free()). */
int vw_sysroot_list(const struct vw_sysroot *sr, const char *rel, char ***names);
void vw_strv_free(char **v);

#endif
