/* SPDX-License-Identifier: GPL-2.0-or-later */
/* exec.h - the one place external commands run.
 *
 * On the live host (vw_sysroot_is_host()) a command is spawned directly, no
 * shell, stdin from /dev/null, stdout and stderr captured together through
 * one pipe (bounded), killed with its process group after a timeout.
 *
 * Under any other sysroot (test fixture, demo host, support snapshot) nothing
 * ever runs: the output recorded when the snapshot was taken is read from
 *	.vfiowiz/cmd/<key>	(bytes of stdout+stderr)
 *	.vfiowiz/cmd/<key>.rc	(optional: exit status as a number, default 0)
 * where <key> is vw_exec_key(argv): the arguments joined with single spaces,
 * every byte outside [A-Za-z0-9._-] replaced by '_'
 * ("nvidia-smi topo -m" -> "nvidia-smi_topo_-m").
 */
#ifndef VW_EXEC_H
#define VW_EXEC_H

#include <stdbool.h>
#include <stddef.h>

#include "sysroot.h"
#include "vw.h"

#define VW_EXEC_TIMEOUT_MS (120 * 1000)
#define VW_EXEC_MAX_OUTPUT ((size_t)1 << 20)

enum vw_exec_source {
	VW_EXEC_NONE,		/* nothing happened (error, or not recorded) */
	VW_EXEC_RAN,		/* ran on the live host */
	VW_EXEC_RECORDED,	/* replayed from the sysroot's recording */
	VW_EXEC_LISTED,		/* dry mode: only listed, not run */
};

struct vw_exec_result {
	enum vw_exec_source source;
	int status;		/* exit status 0-255, 128+N when killed by signal N,
				   -1 when nothing ran (listed, not recorded) */
	char *output;		/* stdout+stderr, NUL-terminated, never NULL after
				   vw_exec_run() (even on error); free with
				   vw_exec_result_done() */
	size_t len;
	bool truncated;		/* more than max_output bytes: the rest was dropped */
	bool timed_out;		/* killed after timeout_ms */
};

struct vw_exec_opts {
	unsigned timeout_ms;	/* 0: VW_EXEC_TIMEOUT_MS */
	size_t max_output;	/* 0: VW_EXEC_MAX_OUTPUT */
	bool dry;		/* list only: neither run nor read a recording */
};

/* Run argv (argv[0] looked up in PATH) with default options.
 * Returns 0 when the command ran (or its recording was found, or it was
 * listed), whatever its exit status: look at res->status.  Returns -ENOENT
 * when the program does not exist on the host or the sysroot has no
 * recording for it (err says "not recorded"), -ETIMEDOUT after a timeout (res
 * holds the output so far), other negative codes on failure; err is set.
 * res is always initialised; release it with vw_exec_result_done(). */
int vw_exec_run(const struct vw_sysroot *sr, const char *const argv[],
		struct vw_exec_result *res, struct vw_err *err);
int vw_exec_run_opts(const struct vw_sysroot *sr, const char *const argv[],
		     const struct vw_exec_opts *opts, struct vw_exec_result *res,
		     struct vw_err *err);
void vw_exec_result_done(struct vw_exec_result *res);

/* Recording key of argv (see above).  Caller frees. */
char *vw_exec_key(const char *const argv[]);

/* Split a shell-free command line into words: blanks separate words, '...'
 * and "..." quote (no escapes inside '...'; \" and \\ inside "..."), a
 * backslash outside quotes takes the next byte literally.  No expansion of
 * any kind.  Returns the word count (> 0) with *argv NULL-terminated (caller
 * frees with vw_strv_free), or -EINVAL (empty line, open quote) with err set
 * and *argv NULL. */
int vw_exec_split(const char *line, char ***argv, struct vw_err *err);

/* argv joined with spaces for display (words with blanks or quotes are
 * single-quoted).  Caller frees. */
char *vw_exec_join(const char *const argv[]);

#endif
