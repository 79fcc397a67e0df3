/* SPDX-License-Identifier: GPL-2.0-or-later */
/* journal.h - the journal of an apply, for apply.c and undo.c.
 *
 * var/lib/vfiowiz/journal/<YYYYmmddTHHMMSSZ>[-NNN]/ (0700) holds a copy of
 * every original (files/NNNN, 0600), the manifest ("vfiowiz-journal 1":
 * "dir PATH", "file PATH key=value...", "post KIND CMD INVERSE", "end"; paths
 * and commands %XX-escaped), the key of secret hashes, "status", "post.log",
 * "post-state" (what qm set left in a file) and "undone".
 */
#ifndef VW_JOURNAL_H
#define VW_JOURNAL_H

#include <time.h>

#include "apply.h"

#define HASH_LEN 72		/* "sha256:" or "keyed:" + 64 hex + NUL */

/* The disk image a qemu-img create makes: the word before the size. */
char *vw_journal_image_path(const char *cmd);

struct vw_jfile {
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

struct vw_jpost {
	char *cmd;
	enum vw_post_kind kind;
	char *inverse;		/* the command that takes it back, or NULL */
};

struct vw_journal {
	char *id;
	char **dirs;
	size_t ndirs;
	struct vw_jfile *f;
	size_t nf;
	char **post;		/* NULL-terminated */
	struct vw_jpost *pk;	/* one per post, with its kind */
	size_t npk;
	bool complete;
	bool has_key;
	unsigned char key[32];
};

void vw_journal_done(struct vw_journal *j);

/* Secret contents are hashed with the journal's key, so the manifest gives
 * nothing to test guesses against. */
void vw_journal_hash(const struct vw_journal *j, bool secret, const void *data, size_t len,
		      char out[HASH_LEN]);

/* Paths and commands go into the manifest with %XX for blanks, controls,
 * non-ASCII and '%', one token each. */
void vw_journal_escape(struct vw_buf *b, const char *s);

char *vw_journal_manifest(const struct vw_journal *j);

void vw_journal_add_post(struct vw_journal *j, char *cmd, enum vw_post_kind kind, char *inverse);

bool vw_journal_valid_id(const char *id);

char *vw_journal_path(const char *id, const char *name);

/* Read a journal's manifest.  A missing or cut-short manifest gives 0 with
 * complete == false; a malformed one -EINVAL. */
int vw_journal_read(const struct vw_sysroot *sr, const char *id, struct vw_journal *j,
			struct vw_err *err);

int vw_journal_read_key(const struct vw_sysroot *sr, struct vw_journal *j, struct vw_err *err);

/* A fresh journal directory named after the current UTC time. */
int vw_journal_mkdir(const struct vw_sysroot *sr, struct vw_journal *j, int *jfd,
			 struct vw_err *err);

int vw_journal_put(int jfd, const struct vw_journal *j, const char *name, const void *data,
		       size_t len, struct vw_err *err);

/* A journal that could not be completed describes nothing: remove it. */
void vw_journal_discard(int jfd, const struct vw_sysroot *sr, const char *id);

bool vw_journal_marker(const struct vw_sysroot *sr, const char *id, const char *name, char *first,
		   size_t size);

enum vw_journal_state vw_journal_read_state(const struct vw_sysroot *sr, const struct vw_journal *j);

time_t vw_journal_time(const char *id);

bool vw_journal_exists(const struct vw_sysroot *sr, const char *id);

#endif
