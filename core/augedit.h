/* SPDX-License-Identifier: GPL-2.0-or-later */
/* augedit.h - editing config files on augeas trees, in memory.
 *
 * Augeas writes files itself when asked to save; we never let it.  Text is
 * parsed with aug_text_store() into a tree under /vw/N/tree, edited there,
 * and turned back into text with aug_text_retrieve(): the new bytes go into
 * the plan, and apply writes them (core/apply.h).  Lenses are loaded on
 * demand (AUG_NO_MODL_AUTOLOAD), nothing is read from disk by augeas, so one
 * handle serves a whole plan quickly.
 *
 * Lens names are augeas' own: "Shellvars.lns" (/etc/default/grub,
 * mkinitcpio.conf, dracut drop-ins), "Modprobe.lns", "Modules.lns"
 * (/etc/initramfs-tools/modules, /etc/modules), "Json.lns".
 */
#ifndef VW_AUGEDIT_H
#define VW_AUGEDIT_H

#include <augeas.h>
#include <stdbool.h>
#include <stddef.h>

#include "sysroot.h"
#include "vw.h"

struct vw_aug;

/* Returns 0 and *out (free with vw_aug_free), or a negative code with err. */
int vw_aug_new(struct vw_aug **out, const struct vw_sysroot *sr, struct vw_err *err);
void vw_aug_free(struct vw_aug *a);

/* The augeas handle, for aug_get/aug_set/aug_match/aug_insert/aug_rm on
 * document trees (owned by a). */
augeas *vw_aug_handle(struct vw_aug *a);

/* Parse text (the contents of fname, named in messages) with lens.  Returns
 * a document number (>= 0) or -EINVAL with err "FILE:LINE: cannot be read
 * as LENS (augeas: message)".  Text holding a control character other than
 * tab, CR and LF is refused first ("FILE:LINE: holds a control character"):
 * augeas aborts on some of them. */
int vw_aug_load(struct vw_aug *a, const char *lens, const char *text, const char *fname,
		struct vw_err *err);

/* Path of a document's tree ("/vw/3/tree"); owned by a. */
const char *vw_aug_tree(struct vw_aug *a, int doc);

/* The text of a document's (edited) tree; caller frees.  Returns 0 or a
 * negative code with err (the edit broke the lens' rules). */
int vw_aug_text(struct vw_aug *a, int doc, char **out, struct vw_err *err);

/* Value of a path (printf-style), copied; NULL when absent or valueless.
 * Caller frees. */
char *vw_aug_get(struct vw_aug *a, const char *fmt, ...) VW_PRINTF(2, 3);

/* Number of nodes a path expression matches (negative on a bad path). */
int vw_aug_count(struct vw_aug *a, const char *fmt, ...) VW_PRINTF(2, 3);

/* ---- Shellvars values ---------------------------------------------------
 * Shellvars keeps quotes in values ("'quiet splash'", "\"a b\"", "a").  A
 * value we can edit is one quoted word: '...', "..." (which may hold $VAR
 * and \-escapes, kept as written) or a bare word.  */

enum vw_shq { VW_SHQ_NONE, VW_SHQ_SINGLE, VW_SHQ_DOUBLE };

/* Split a value into its quote style and inner text (caller frees *inner).
 * Returns false for anything else (several quoted parts, backticks outside
 * quotes...), which we refuse to edit. */
bool vw_sh_unquote(const char *value, enum vw_shq *q, char **inner);

/* Quote inner text again (double quotes when q is NONE and the text has
 * blanks, or is empty).  Caller frees. */
char *vw_sh_quote(const char *inner, enum vw_shq q);

/* Expand a shell value as far as we can without running anything:
 * quotes removed, $NAME and ${NAME} replaced through lookup (NULL: empty).
 * Returns NULL when the value holds a command substitution or anything we
 * cannot know statically.  Caller frees. */
char *vw_sh_expand(const char *value, const char *(*lookup)(const char *name, void *arg),
		   void *arg);

#endif
