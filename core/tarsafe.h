/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tarsafe.h - tar archives: a small writer, and a reader that refuses
 * whatever could reach outside the folder it extracts into.
 *
 * Snapshots are sysroot-shaped tar archives, gzip-compressed (a plain tar is
 * read too).  A snapshot comes from someone else's machine, so the reader
 * treats every byte as hostile:
 *  - names: no absolute path, no "..", no control character (0x00-0x1f,
 *    0x7f), at most VW_TAR_PATH_MAX bytes, VW_TAR_DEPTH_MAX folders deep
 *    and NAME_MAX per component;
 *  - types: regular files, directories and symbolic links only; hard links,
 *    device nodes, fifos, sparse files and the like refuse the archive;
 *  - symbolic links: the target must be relative and stay inside the folder
 *    when read from the link's own directory: leading ".." components only
 *    (at most as many as the link is deep), then names (a ".." after a name
 *    could climb back out through another link);
 *  - nothing is created through a symbolic link: every parent is opened
 *    with O_NOFOLLOW, so "link -> /etc" followed by "link/passwd" refuses;
 *  - an entry that appears twice (except a directory) refuses;
 *  - limits on the total size, the size of each file, the number of entries
 *    and the number of bytes decompressed (a gzip bomb stops there);
 *  - an input that can be read twice (memory, a regular file) is read
 *    once without making anything, with every check but those that need
 *    the tree (an entry given twice, a parent that is a file or a link):
 *    an archive over a limit is refused before the first file is made;
 *  - files are created 0600 and directories 0700, whatever the archive says
 *    (nothing extracted is ever executable), owned by whoever extracts;
 *  - ustar headers are checked (magic, checksum, octal fields); pax
 *    extended headers (path, linkpath, size) and GNU long names are read.
 * Any refusal stops the extraction with a message naming the entry; what was
 * extracted so far stays, for the caller to remove (vw_tar_extract_* never
 * deletes anything itself).
 *
 * The writer makes POSIX pax (ustar + extended headers for long names)
 * archives, gzip-compressed, with fixed owner root:root and one mtime, so the
 * same input gives the same bytes.
 */
#ifndef VW_TARSAFE_H
#define VW_TARSAFE_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "vw.h"

#define VW_TAR_NAME_MAX 4095	/* bytes in a link target */
/* A name (path) in the archive: at most this many bytes and folders deep.
 * Real snapshots stay far below (sysfs paths: about 200 bytes, 25 deep);
 * the limits keep extraction linear and every path, TMPDIR included,
 * under PATH_MAX. */
#define VW_TAR_PATH_MAX 1024
#define VW_TAR_DEPTH_MAX 64

struct vw_tar_limits {
	uint64_t max_total;	/* sum of the sizes of the regular files */
	uint64_t max_file;	/* size of one regular file */
	uint64_t max_stream;	/* bytes of tar read (after decompression) */
	size_t max_entries;	/* files, directories and links */
	/* When set and *stop becomes non-zero (a signal handler), extraction
	 * stops at the next entry or chunk with -EINTR. */
	const volatile sig_atomic_t *stop;
};

/* Entries of a snapshot (files, folders, links; folders made on the way
 * count too).  Real ones: 1,231 (the demo host), 2,291 (the largest
 * fixture, 78 PCI functions), 22,388 (bench/scan's 1019 functions, about
 * 22 a function); 60,000 leaves room for about 2,700 functions.  Every
 * entry costs a file-system call to make and one to remove, which is all a
 * hostile archive can make us spend. */
#define VW_TAR_ENTRIES_MAX 60000

/* 256 MiB in all, 64 MiB a file, VW_TAR_ENTRIES_MAX entries, 512 MiB of
 * tar stream. */
#define VW_TAR_LIMITS_DEFAULT \
	{ (uint64_t)256 << 20, (uint64_t)64 << 20, (uint64_t)512 << 20, VW_TAR_ENTRIES_MAX, NULL }

struct vw_tar_stats {
	size_t files, dirs, symlinks;
	uint64_t bytes;		/* file contents written */
	bool compressed;	/* the input was gzip */
};

/* Extract the archive read from fd (gzip or plain tar) into the directory
 * dest_fd, which should be empty.  A seekable fd is read twice, from its
 * offset at the call (the first pass checks).  lim may be NULL (defaults); st may be
 * NULL.  Returns 0, or a negative code with err naming the entry and the
 * reason ("etc/../../x: the name contains '..'"). */
int vw_tar_extract_fd(int fd, int dest_fd, const struct vw_tar_limits *lim,
		      struct vw_tar_stats *st, struct vw_err *err);
/* The same from bytes in memory. */
int vw_tar_extract_mem(const void *data, size_t len, int dest_fd, const struct vw_tar_limits *lim,
		       struct vw_tar_stats *st, struct vw_err *err);

/* Whether a link at path (an archive name, "a/b/link") with this target
 * stays inside the tree by the rule above.  Used by the snapshot writer too,
 * so that it never writes what the reader would refuse. */
bool vw_tar_link_ok(const char *path, const char *target);

/* Normalise an archive name: "./a//b/" -> "a/b"; "" for the root itself.
 * Returns NULL (and a reason, untranslated, in *why when not NULL) when the
 * name is absolute, holds "..", a control character, or is too long.
 * Caller frees. */
char *vw_tar_clean_name(const char *name, const char **why);

/* Writer. */
struct vw_tar_writer;

/* Start a gzip-compressed archive written to fd (not closed by the writer).
 * mtime: the time stamped on every entry. */
struct vw_tar_writer *vw_tar_writer_new(int fd, time_t mtime);
/* Entries; path is an archive name ("etc/os-release", no leading '/').
 * Each returns 0 or a negative code with err set (a write error, or a name
 * the reader would refuse). */
int vw_tar_add_dir(struct vw_tar_writer *w, const char *path, mode_t mode, struct vw_err *err);
int vw_tar_add_file(struct vw_tar_writer *w, const char *path, mode_t mode, const void *data,
		    size_t len, struct vw_err *err);
int vw_tar_add_symlink(struct vw_tar_writer *w, const char *path, const char *target,
		       struct vw_err *err);
/* Write the end of the archive and flush the compressor, then free w.
 * Returns 0 or a negative code (every error met since the start). */
int vw_tar_writer_finish(struct vw_tar_writer *w, struct vw_err *err);
/* Free w without finishing (after an error). */
void vw_tar_writer_free(struct vw_tar_writer *w);

#endif
