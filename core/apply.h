/* SPDX-License-Identifier: GPL-2.0-or-later */
/* apply.h - writing a plan: journal, undo, post-commands (apply.c, undo.c;
 * the journal's format in journal.c).
 *
 * Every write goes through the one atomic-write routine (atomic.h): a crash
 * at any moment leaves each target wholly old or wholly new.
 *
 * Before the first target is touched, a journal directory
 *	var/lib/vfiowiz/journal/<YYYYmmddTHHMMSSZ>[-NNN]/	(0700)
 * receives a copy of every original (files/NNNN, 0600) and a manifest
 * ("manifest": one line per file with its path, whether it existed, mode,
 * owner, sizes and SHA-256 of the old and new contents, the copy's name; the
 * directories that will be created; the post-commands), written and fsynced
 * first.  Contents of secret changes never reach the manifest: their hashes
 * are keyed with a random key kept in the journal (0600), so that nobody
 * can try passwords against them.  "status" records how the apply ended,
 * "post.log" what the post-commands printed, "undone" that it was undone.
 *
 * Applies and undos hold var/lib/vfiowiz/lock (flock, non-blocking, with the
 * holder's pid in it), so two vfiowiz processes never write at once.
 *
 * Targets are checked before anything is written: a file that changed since
 * its diff was computed, a target or parent directory reached through a
 * symbolic link that leads outside the sysroot (or that would be followed
 * differently inside and outside it), something that is not a regular file,
 * a component that is not a directory, a read-only file system or an
 * immutable file: each refuses the whole apply, naming the file.
 */
#ifndef VW_APPLY_H
#define VW_APPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "atomic.h"
#include "plan.h"
#include "sysroot.h"
#include "vw.h"

#define VW_APPLY_JOURNAL_DIR "var/lib/vfiowiz/journal"

/* Post-commands (update-initramfs...) may take minutes. */
#define VW_APPLY_POST_TIMEOUT_MS (15 * 60 * 1000)

/* What vw_journal_tidy() cleaned. */
struct vw_tidy {
	size_t temps;		/* temporary files of killed writes removed
				   from journals */
	size_t journals;	/* journals removed that a killed apply left
				   without a manifest (nothing was written) */
};

enum vw_item_state {
	VW_ITEM_SKIPPED,	/* not accepted */
	VW_ITEM_PENDING,	/* accepted, not written (dry run, or an earlier
				   change failed, or a check refused the apply) */
	VW_ITEM_WRITTEN,	/* written (or removed) and journaled */
	VW_ITEM_FAILED,		/* this change failed; see error */
};

struct vw_apply_item {
	char *path;		/* the change's path */
	enum vw_item_state state;
	char *error;		/* translated message when FAILED, else NULL */
};

enum vw_post_state {
	VW_POST_RAN,		/* ran; see status */
	VW_POST_FAILED,		/* could not run, timed out, or exited non-zero */
	VW_POST_WOULD_RUN,	/* under a sysroot, dry run or no_post: listed */
	VW_POST_NOT_RUN,	/* skipped because a write failed */
};

struct vw_post_run {
	char *cmd;		/* the command line */
	enum vw_post_state state;
	int status;		/* exit status, -1 when it did not run */
	char *output;		/* stdout+stderr (never NULL) */
};

struct vw_apply_result {
	char *journal_id;	/* NULL when nothing was journaled */
	struct vw_apply_item *items;	/* one per change of the plan */
	size_t nitems;
	size_t written;		/* items WRITTEN */
	struct vw_post_run *post;
	size_t npost;
	struct vw_tidy tidy;	/* cleaned before the apply (vw_journal_tidy) */
};

/* Return true to apply change i. */
typedef bool (*vw_accept_fn)(const struct vw_change *c, size_t i, void *arg);

struct vw_apply_opts {
	const bool *accept;		/* plan->n flags; NULL: see accept_fn */
	vw_accept_fn accept_fn;		/* NULL (and accept NULL): accept all */
	void *accept_arg;
	bool dry;			/* check everything, write and run nothing
					   (not even the lock file) */
	bool no_post;			/* write, but only list post-commands */
	unsigned post_timeout_ms;	/* 0: VW_APPLY_POST_TIMEOUT_MS */
};

/* Apply the accepted changes of plan (opts may be NULL: all, for real).
 * Nothing is written unless every accepted change passes its checks.  If
 * change k fails while being written, changes before it stay written and
 * journaled (vw_undo() reverts them), nothing after it is tried, no
 * post-command runs, and err names the file, the count written and the
 * journal.  After all writes succeed, the post-commands of the accepted
 * changes run through core/exec on the live host, each once, in order (under
 * a sysroot they are only listed: VW_POST_WOULD_RUN); their output goes to
 * res and to the journal's post.log.
 * Returns 0 when every write succeeded and every post-command that ran
 * exited 0, or a negative code with err set; res is filled in either case
 * (release with vw_apply_result_done()).  No accepted change: returns 0 and
 * creates no journal. */
int vw_apply_plan(const struct vw_sysroot *sr, const struct vw_plan *plan,
		  const struct vw_apply_opts *opts, struct vw_apply_result *res,
		  struct vw_err *err);

/* The same for one change (journaled on its own). */
int vw_apply_change(const struct vw_sysroot *sr, const struct vw_change *c,
		    const struct vw_apply_opts *opts, struct vw_apply_result *res,
		    struct vw_err *err);

void vw_apply_result_done(struct vw_apply_result *res);

/* Run command lines one after another as post-commands (listed only under a
 * sysroot or when dry); fills *runs (caller frees with vw_apply_runs_free()).
 * Returns 0 when all that ran succeeded, else the first failure's code with
 * err set.  For the commands vw_undo() hands back. */
int vw_apply_run_posts(const struct vw_sysroot *sr, const char *const *cmds, bool dry,
		       unsigned timeout_ms, struct vw_post_run **runs, size_t *n,
		       struct vw_err *err);
void vw_apply_runs_free(struct vw_post_run *runs, size_t n);

enum vw_journal_state {
	VW_JOURNAL_APPLIED,	/* every change written */
	VW_JOURNAL_PARTIAL,	/* a write failed; the ones before it stand */
	VW_JOURNAL_INTERRUPTED,	/* no end recorded: the apply was killed */
	VW_JOURNAL_UNDONE,	/* vw_undo() restored it */
	VW_JOURNAL_EMPTY,	/* killed before its manifest was complete:
				   nothing was written to the host */
};

struct vw_journal_info {
	char *id;		/* "20250102T030405Z" or "20250102T030405Z-001" */
	time_t time;		/* from the id (UTC) */
	size_t nfiles;
	enum vw_journal_state state;
};

/* Journals under sr, newest first.  Returns the count (>= 0; *list may be
 * NULL when 0; free with vw_undo_list_free()) or a negative code. */
int vw_undo_list(const struct vw_sysroot *sr, struct vw_journal_info **list,
		 struct vw_err *err);
void vw_undo_list_free(struct vw_journal_info *list, size_t n);

/* Under the lock: remove the temporary files killed journal writes left in
 * journals, and journals a killed apply left without a manifest (it wrote
 * nothing to the host: copies come first, the manifest next, targets last).
 * Apply and undo call it; counts go to *t. */
void vw_journal_tidy(const struct vw_sysroot *sr, struct vw_tidy *t);

/* A file changed since the apply wrote it (and not by our own
 * post-commands): what undo would put back, so that the loss can be shown. */
struct vw_undo_stale {
	char *path;		/* root-relative */
	bool existed;		/* false: undo would remove the file */
	bool secret;		/* never show its bytes */
	char *restore;		/* the bytes undo would write (NUL-terminated; ""
				   when !existed or unreadable) */
	size_t restore_len;
};

struct vw_undo_result {
	char *journal_id;
	size_t restored;	/* files written back (dry: would be) */
	size_t removed;		/* files removed (they did not exist before) */
	size_t unchanged;	/* files that already held their old bytes */
	size_t skipped;		/* files left as they are (opts->skip) */
	char **post;		/* NULL-terminated commands that take the
				   post-commands back, in the order they run
				   (see runs); never NULL */
	struct vw_post_run *runs;	/* what ran (listed when dry or under a
					   sysroot): the inverses of what changed
					   state (stop, disable, undefine) before
					   the files are restored, the rebuilds
					   and re-defines after */
	size_t nruns;
	bool posts_failed;	/* the files were restored, but a command failed */
	char **kept;		/* NULL-terminated post-commands whose effect
				   undo does not take back (a disk image, storage
				   qm allocated, an unknown command); never NULL */
	char **images;		/* NULL-terminated paths of disk images the apply
				   created; they stay; never NULL */
	struct vw_undo_stale *stale;	/* on -ESTALE: the changed files */
	size_t nstale;
	struct vw_tidy tidy;	/* what was cleaned first (vw_journal_tidy) */
};

struct vw_undo_opts {
	bool dry;			/* check everything, write and run nothing
					   (no lock file either) */
	const char *const *force;	/* NULL-terminated paths ('/' optional):
					   restore even though changed since */
	const char *const *skip;	/* NULL-terminated paths: leave as they are */
};

/* Undo journal id (NULL: the newest one not undone yet): first check that
 * every file still holds the bytes the apply left (or its old bytes, or the
 * bytes our own post-commands left, e.g. qm set's lines in a new Proxmox VM
 * config); files changed since refuse the whole undo (-ESTALE) naming the
 * first, all listed in res->stale, unless opts names them in force (restored
 * all the same) or skip (left alone, the rest undone).  Then restore every
 * file byte for byte with its old mode and owner through the atomic write,
 * remove files that did not exist and directories the apply created, and
 * mark the journal undone.  opts may be NULL.  Returns 0 or a negative code
 * with err set; res is always initialised (vw_undo_result_done()). */
int vw_undo_opts(const struct vw_sysroot *sr, const char *id, const struct vw_undo_opts *opts,
		 struct vw_undo_result *res, struct vw_err *err);
int vw_undo(const struct vw_sysroot *sr, const char *id, struct vw_undo_result *res,
	    struct vw_err *err);
void vw_undo_result_done(struct vw_undo_result *res);

/* What a post-command is, and so how undo takes it back.  The kind and the
 * inverse command are recorded in the journal when the apply is made. */
enum vw_post_kind {
	VW_POSTK_REBUILD,	/* rebuilt from files (update-initramfs, update-grub,
				   dracut, mkinitcpio, proxmox-boot-tool refresh,
				   kernelstub, systemctl daemon-reload): run again
				   after the restore */
	VW_POSTK_DEFINE,	/* virsh define: the previous XML defined again, or
				   virsh undefine --nvram (never its storage) */
	VW_POSTK_ENABLE,	/* systemctl enable of a unit the apply created:
				   disable */
	VW_POSTK_RESTART,	/* systemctl restart: stop when the apply created
				   the unit, else restart again */
	VW_POSTK_CONFIG,	/* qm set: the previous config file is restored */
	VW_POSTK_IMAGE,		/* qemu-img create: never undone nor re-run */
	VW_POSTK_ONESHOT,	/* bootctl set-oneshot: cleared */
	VW_POSTK_ARGS,		/* grubby --args/--remove-args: swapped */
	VW_POSTK_OTHER,		/* unknown: not taken back, listed */
};

/* The kind of command line cmd (split with vw_exec_split()). */
enum vw_post_kind vw_post_kind_of(const char *cmd);

#endif
