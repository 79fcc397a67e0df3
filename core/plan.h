/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plan.h - the plan: every change vfiowiz proposes to make to a host.
 *
 * The plan is data (as NetworkManager edits a clone, kconfig lists what
 * changed): a list of whole-file changes, each with the bytes that were on
 * disk when the plan was made and the bytes that will replace them.  Review
 * shows exactly these bytes as a diff (core/diff.h) and apply writes exactly
 * these bytes (core/apply.h), refusing a file that changed in between.
 *
 * Back ends (bootloader, initramfs tool, VM target, access method) only add
 * to a plan; they never write.  A change whose new bytes equal the current
 * ones is dropped on the spot, together with its post-commands, so running
 * the same plan twice changes (and runs) nothing the second time.
 *
 * Paths are root-relative ("etc/modprobe.d/vfiowiz.conf"; a leading '/' is
 * accepted and dropped), made of plain names: no "", "." or ".." components.
 */
#ifndef VW_PLAN_H
#define VW_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "sysroot.h"
#include "vw.h"

/* Files larger than this are not planned (nor diffed, nor journaled). */
#define VW_PLAN_MAX_FILE (16u << 20)

struct vw_change {
	char *path;		/* root-relative target, normalised */
	char *old_data;		/* bytes read when the plan was made (NUL-terminated) */
	size_t old_len;
	bool old_exists;	/* false: the file did not exist (old_data is "") */
	char *new_data;		/* bytes to write (NUL-terminated; "" when remove) */
	size_t new_len;
	bool remove;		/* delete the file instead of writing new_data */
	mode_t mode;		/* mode of a new file; existing files keep theirs */
	char *why;		/* untranslated msgid (N_()); show with _(why) */
	char **post;		/* NULL-terminated command lines, or NULL */
	bool secret;		/* contents never reach logs or the journal
				   manifest; the file is written 0600 */
};

struct vw_plan {
	struct vw_change *v;	/* n changes, in the order they were added */
	size_t n;
	char **post_cmds;	/* NULL-terminated, never NULL after init: the
				   post-commands of all changes, each once, in
				   order of first appearance */
	size_t npost;
	/* private */
	size_t cap;
	size_t last;		/* change the last add kept, or (size_t)-1 */
};

/* Flags of struct vw_file_spec. */
enum {
	VW_CHANGE_SECRET = 1 << 0,	/* see vw_change.secret */
	VW_CHANGE_REMOVE = 1 << 1,	/* delete the file (data ignored) */
};

/* What a back end asks for; vw_plan_add() copies everything it keeps. */
struct vw_file_spec {
	const char *path;
	const char *data;		/* new contents (may hold NUL bytes) */
	size_t len;
	mode_t mode;			/* for a new file; 0 means 0644 */
	const char *why;		/* N_("...") */
	const char *const *post;	/* NULL-terminated command lines, or NULL */
	unsigned flags;			/* VW_CHANGE_* */
};

void vw_plan_init(struct vw_plan *p);
/* Free everything the plan owns; the plan may be initialised again. */
void vw_plan_done(struct vw_plan *p);

/* Add a change: read the current bytes of spec->path through sr (a missing
 * file is old_exists = false) and compare them with the new ones.
 * Returns 1 when the change was kept, 0 when it was dropped because the file
 * already holds these bytes (or, for a removal, is already absent), or a
 * negative code (bad path, unreadable file, file too large) with err set.
 * Adding a path the plan already holds updates that change in place: the new
 * bytes replace the planned ones, old bytes stay those first read, flags are
 * merged, post-commands appended; if the result equals the old bytes the
 * change leaves the plan.  Use vw_plan_read() to build on planned bytes. */
int vw_plan_add(struct vw_plan *p, const struct vw_sysroot *sr,
		const struct vw_file_spec *spec, struct vw_err *err);

/* Shorthands for vw_plan_add(); same return values. */
int vw_plan_add_file(struct vw_plan *p, const struct vw_sysroot *sr, const char *path,
		     const char *data, size_t len, mode_t mode, const char *why,
		     struct vw_err *err);
int vw_plan_remove_file(struct vw_plan *p, const struct vw_sysroot *sr, const char *path,
			const char *why, struct vw_err *err);

/* Attach a post-command ("update-initramfs -u -k all": one shell-free
 * command line, split by vw_exec_split()) to the change the last
 * vw_plan_add*() call kept.  When that call dropped its change (nothing to
 * write), the command is dropped too: an unchanged host runs nothing.
 * Duplicates are kept once.  Returns 0, or -EINVAL for an empty command or
 * one vw_exec_split() refuses (open quote). */
int vw_plan_add_post(struct vw_plan *p, const char *cmd);

/* The planned change of path, or NULL. */
const struct vw_change *vw_plan_find(const struct vw_plan *p, const char *path);

/* The bytes path will hold once the plan is applied: the planned bytes when
 * the plan changes it, else what is on disk.  Returns 0 with *data
 * NUL-terminated (caller frees) and *len set, -ENOENT when the file does not
 * exist or the plan removes it, or another negative code with err set. */
int vw_plan_read(const struct vw_plan *p, const struct vw_sysroot *sr, const char *path,
		 char **data, size_t *len, struct vw_err *err);

/* Post-commands of the changes accept[] selects (all when accept is NULL),
 * each once, in plan order.  NULL-terminated; caller frees (vw_strv_free). */
char **vw_plan_posts(const struct vw_plan *p, const bool *accept);

/* Normalise a root-relative path: drop leading '/', refuse empty, ".",
 * ".." and empty components, and names over NAME_MAX.  Returns a new string
 * (caller frees) or NULL with err set (-EINVAL). */
char *vw_change_normpath(const char *path, struct vw_err *err);

/* s (len bytes) with every occurrence of secret (NULL or "": none) shown as
 * "********", for the diff of a secret change: the VNC password never
 * reaches the screen.  Every form it may be written in is masked: raw,
 * XML-escaped (entities, character references), shell-quoted ('\''),
 * URL-encoded (%XX either case), backslash-escaped.  Returns a new string
 * (caller frees), *outlen its length. */
char *vw_change_mask(const char *s, size_t len, const char *secret, size_t *outlen);

#endif
