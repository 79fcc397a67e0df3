/* SPDX-License-Identifier: GPL-2.0-or-later */
/* state.h - the wizard's state file: choices and progress, so that the walk
 * resumes where it stopped, and opens on Verify after the reboot.
 *
 * The file is VW_STATE_FILE (var/lib/vfiowiz/state.conf) under the sysroot,
 * mode 0600 (the choices may hold the VNC password), written atomically.  It
 * is the answers format (answers.h) followed by one section of our own:
 *
 *	progress {
 *	  step = 'groups'		# the step to resume at
 *	  boot_id = '...'		# the boot it was written in
 *	  applied = false		# the plan was applied ...
 *	  applied_boot_id = ''		# ... in this boot
 *	  journal = ''			# the apply's journal id (for undo)
 *	}
 *
 * The answers parser reads the whole file, the progress section included
 * (vw_answers_parse_progress()), so messages name the file's own lines and
 * the section may stand anywhere; the writer puts it last.
 * Strings are owned by the struct; "" means unset, never NULL. */
#ifndef VW_STATE_H
#define VW_STATE_H

#include "answers.h"
#include "sysroot.h"

struct vw_state {
	struct vw_choices choices;
	char *step;
	char *boot_id;
	bool applied;
	char *applied_boot_id;
	char *journal;
};

void vw_state_init(struct vw_state *s);
void vw_state_done(struct vw_state *s);

/* Load the state file of sr into s (vw_state_done'd and re-initialised
 * first).  Returns 0, -ENOENT when there is none (s holds the defaults), or
 * another negative code with err set ("/var/lib/vfiowiz/state.conf:3: ..."). */
int vw_state_load(struct vw_state *s, const struct vw_sysroot *sr, struct vw_err *err);
/* Write s to the state file (atomically, 0600).  Returns 0 or a negative
 * code with err set. */
int vw_state_save(const struct vw_state *s, const struct vw_sysroot *sr, struct vw_err *err);
/* Parse and format without a file (tests; name is used in messages). */
int vw_state_parse(struct vw_state *s, const char *text, size_t len, const char *name,
		   struct vw_err *err);
void vw_state_format(struct vw_buf *out, const struct vw_state *s);

/* The running boot's id (proc/sys/kernel/random/boot_id), "" when unknown.
 * Caller frees. */
char *vw_boot_id(const struct vw_sysroot *sr);

/* When s records an apply whose journal was undone since (`vfiowiz undo`),
 * nothing of it is on the host any more: forget it (applied = false, no
 * journal) and return true.  False otherwise (s unchanged). */
bool vw_state_forget_undone(struct vw_state *s, const struct vw_sysroot *sr);

/* True when the plan was applied in another boot than boot_id: the host has
 * rebooted since, and the wizard should open on Verify.  Unknown boot ids
 * never count as a reboot. */
bool vw_state_rebooted(const struct vw_state *s, const char *boot_id);

#endif
