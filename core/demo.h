/* SPDX-License-Identifier: GPL-2.0-or-later */
/* demo.h - the built-in demo host: a fixture tree installed with the program,
 * walked on a private copy so that apply writes into the copy.
 *
 * Symbolic links are copied as links (their text unchanged: the sysroot
 * resolves them inside the copy), regular files with their mode, and
 * nothing else (no devices, fifos or sockets). */
#ifndef VW_DEMO_H
#define VW_DEMO_H

#include "answers.h"
#include "facts.h"
#include "sysroot.h"

/* Copy the tree src into a new private directory ($TMPDIR or /tmp,
 * "vfiowiz-demo.XXXXXX", 0700).  On success *dir is its path (caller
 * frees, and removes with vw_demo_remove()).  Returns 0 or a negative code
 * with err set (nothing is left behind). */
int vw_demo_copy(const char *src, char **dir, struct vw_err *err);

/* The copy made in the background, so that the first screen does not wait
 * for it: the wizard reads the installed tree (which the copy equals) until
 * it needs to write, and waits for the copy then. */
struct vw_demo {
	char *dir;		/* the copy ("" until started); caller frees via vw_demo_end */
	int pid;		/* the copying child, 0 when done */
	bool ready;		/* the copy is complete */
};

/* Make the private folder and start copying src into it in a child process.
 * Returns 0, or a negative code with err set (nothing left behind). */
int vw_demo_start(struct vw_demo *d, const char *src, struct vw_err *err);
/* Wait for the copy.  Returns 0 when d->dir holds the whole tree, or a
 * negative code with err set. */
int vw_demo_wait(struct vw_demo *d, struct vw_err *err);
/* Stop a copy still running, remove the folder, free d->dir. */
void vw_demo_end(struct vw_demo *d);

/* Remove a tree made by vw_demo_copy() (links are removed, never followed).
 * Returns 0 or a negative code with err set. */
int vw_demo_remove(const char *dir, struct vw_err *err);

/* Pretend the demo host rebooted with the plan applied: a new boot id, the
 * devices of the choices' unit bound to vfio-pci, the vfio modules loaded
 * and in the recorded initramfs listing.  Only ever call this on a demo
 * copy.  Returns 0 or a negative code with err set. */
int vw_demo_reboot(const struct vw_sysroot *sr, const struct vw_facts *f, const struct vw_choices *c,
		   struct vw_err *err);

#endif
