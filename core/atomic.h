/* SPDX-License-Identifier: GPL-2.0-or-later */
/* atomic.h - file-system helpers, the one atomic write, path resolution and
 * the lock, shared by apply, the journal, undo and every other writer
 * (answers.c, state.c, demo.c depend on this header only).
 *
 * Every write goes through one routine (as htop's Settings_write and
 * util-linux's tab_update.c): a temporary file in the target's directory,
 * same mode and owner as the file it replaces (new files: the given mode),
 * every byte written and checked, fsync, rename over the target, fsync of the
 * directory; the temporary file is removed on failure.  A crash at any moment
 * leaves each target wholly old or wholly new.  Under Proxmox's /etc/pve
 * (pmxcfs, FUSE) no mode or owner is set: it has none of its own.
 */
#ifndef VW_ATOMIC_H
#define VW_ATOMIC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "sysroot.h"
#include "vw.h"

#define VW_APPLY_STATE_DIR "var/lib/vfiowiz"
#define VW_APPLY_LOCK "var/lib/vfiowiz/lock"

/* Write len bytes to path under sr atomically (see above).  An existing file
 * keeps its mode and owner; a new one gets mode (and missing parent
 * directories 0755).  Refuses targets reached through links that leave the
 * root and non-regular files.  Returns 0 or a negative code with err set. */
int vw_write_atomic(const struct vw_sysroot *sr, const char *path, const void *data, size_t len,
		    mode_t mode, struct vw_err *err);

/* The same for a private file (passwords): written 0600 from its first
 * byte, whatever mode an existing file had (its owner is kept), so that it
 * is never readable by others under either name. */
int vw_write_private(const struct vw_sysroot *sr, const char *path, const void *data, size_t len,
		     struct vw_err *err);

/* Take the apply lock (var/lib/vfiowiz/lock: flock, non-blocking, with the
 * holder's pid in it).  Returns an fd (>= 0; release with vw_apply_unlock())
 * or -EBUSY with a message naming the holder's pid, or another negative code. */
int vw_apply_lock(const struct vw_sysroot *sr, struct vw_err *err);
void vw_apply_unlock(int fd);

/* ---- for apply.c, journal.c and undo.c only ---- */

/* The directory part of a root-relative path ("" for none; caller frees),
 * and its last component (points into rel). */
char *vw_atomic_dirname(const char *rel);
const char *vw_atomic_basename(const char *rel);

/* A directory under the root, opened so that it can be fsynced. */
int vw_atomic_open_dir(const struct vw_sysroot *sr, const char *rel);

/* Turn an errno from writing /path into a message people can act on. */
int vw_atomic_fs_err(struct vw_err *err, int code, const char *path);

/* mkdir -p for our own state directories (not journaled: they are ours). */
int vw_atomic_mkdir_p(const struct vw_sysroot *sr, const char *rel, mode_t mode,
		       struct vw_err *err);

struct vw_wspec {
	mode_t mode;
	uid_t uid;
	gid_t gid;
	bool own;		/* give the file uid:gid */
};

/* Write base in directory dfd; path names the file in messages. */
int vw_atomic_write_in(int dfd, const char *path, const char *base, const void *data,
			size_t len, const struct vw_wspec *w, struct vw_err *err);

/* A name open_temp() makes. */
bool vw_atomic_is_temp(const char *n);

/* Temporary files of a write that was killed; only called under the lock. */
void vw_atomic_clean_temps(int dfd);

struct vw_target {
	char *rel;		/* resolved root-relative path of the file */
	char *dir;		/* its directory ("" for the root) */
	bool exists;
	struct stat st;
	char **mkdirs;		/* directories to create, shallowest first */
	size_t nmkdirs;
};

void vw_atomic_target_done(struct vw_target *t);

/* Where path really leads (links inside the root followed, ones leaving it
 * refused), what exists and which directories are missing.  Returns 0 or a
 * negative code with err set; t is released with vw_atomic_target_done(). */
int vw_atomic_resolve(const struct vw_sysroot *sr, const char *path, bool remove,
			  struct vw_target *t, struct vw_err *err);

/* Refuse read-only file systems and immutable files before any write; with
 * probe, a temporary file is created and removed where pmxcfs could be
 * read-only without saying so (no quorum).
 * (access(2) reports both even to root; mode bits do not matter: the write
 * is a rename in the directory.) */
int vw_atomic_check_writable(const struct vw_sysroot *sr, const char *path, const struct vw_target *t,
			  bool probe, struct vw_err *err);

/* Create t's missing directories (0755), each fsynced into its parent. */
int vw_atomic_make_dirs(const struct vw_sysroot *sr, const struct vw_target *t, struct vw_err *err);

#endif
