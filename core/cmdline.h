/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmdline.h - editing a kernel command line, keeping what the user wrote.
 *
 * A line is split as the kernel splits it (blanks separate, double quotes
 * group, no escapes); each token keeps its exact text and the blanks before
 * it, so untouched parts come back byte for byte.  A parameter inside quotes
 * is part of the quoted one, not a parameter of its own.  Names and values
 * are read as the kernel's next_arg() reads them: a '"' that opens the token
 * or the value goes, with the '"' that ends the token; any other '"' belongs
 * to the name or value.  Parameter names compare with '-' and '_' alike, as
 * the kernel compares them ("vfio-pci.ids" is "vfio_pci.ids").  Tokens that
 * are not parameters ("$GRUB_CMDLINE_LINUX" inside a GRUB variable) are
 * never touched.
 *
 * A line whose last token opens a '"' and never closes it is not edited at
 * all: anything appended would fall inside the quote.  A value that holds a
 * '"' is rewritten only when the new value can be written so that it reads
 * back the same (the kernel has no escapes); otherwise that edit is skipped.
 * vw_cmdline_check() says, before editing, whether either happens.
 *
 * Edits:
 *   SET key=value	one occurrence with this value: the last existing one
 *			is rewritten, earlier ones removed; appended if absent
 *			(value NULL: a bare flag).
 *   MERGE key=a,b	comma-list parameters (vfio-pci.ids, intel_iommu):
 *			the items of every occurrence are gathered into the
 *			last one, missing items appended; earlier occurrences
 *			removed.  Nobody's ids are dropped.
 *   REMOVE key[=item]	drop the item from the comma list of every
 *			occurrence (a token left empty goes); item NULL drops
 *			every occurrence.
 */
#ifndef VW_CMDLINE_H
#define VW_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

#include "vw.h"

enum vw_kop { VW_KOP_SET, VW_KOP_MERGE, VW_KOP_REMOVE };

struct vw_kedit {
	enum vw_kop op;
	char *key;
	char *value;		/* see above; may be NULL */
	const char *why;	/* N_() reason, shown in the plan's notes */
};

struct vw_kedits {
	struct vw_kedit *v;
	size_t n;
};

/* Append an edit (strings copied). */
void vw_kedits_add(struct vw_kedits *e, enum vw_kop op, const char *key, const char *value,
		   const char *why);
void vw_kedits_done(struct vw_kedits *e);

struct vw_ktok {
	char *sep;		/* blanks before the token, as written */
	char *text;		/* the token as written, quotes included */
};

struct vw_cmdline {
	struct vw_ktok *t;
	size_t n;
	char *tail;		/* blanks after the last token */
	bool open_quote;	/* the last token opens a '"' it never closes */
};

/* Split s (NULL is ""); free with vw_cmdline_done(). */
void vw_cmdline_split(struct vw_cmdline *l, const char *s);
void vw_cmdline_done(struct vw_cmdline *l);
/* The line again (caller frees); split + join is the identity. */
char *vw_cmdline_join(const struct vw_cmdline *l);

/* Apply edits in order; returns true when the line changed.  Nothing is
 * applied to a line with an open quote, nor an edit that cannot be written
 * (see above). */
bool vw_cmdline_apply(struct vw_cmdline *l, const struct vw_kedits *e);

/* Whether edits e can be made on line as asked: 0, else -EINVAL with a
 * message that starts with where (the file, e.g. "/etc/kernel/cmdline")
 * when the line has an open quote or an edit cannot be written.  Back ends
 * call it before editing; err may be NULL. */
int vw_cmdline_check(const char *line, const struct vw_kedits *e, const char *where,
		     struct vw_err *err);

/* Convenience: edit a whole line.  Returns the new line (caller frees) and
 * sets *changed (may be NULL); an unchanged line comes back byte for byte. */
char *vw_cmdline_edit(const char *line, const struct vw_kedits *e, bool *changed);

/* Whether key is present (item NULL), or item is in the comma list of one
 * of its occurrences. */
bool vw_cmdline_has(const struct vw_cmdline *l, const char *key, const char *item);

/* The tokens to append to a line so that its SET and MERGE edits hold
 * ("intel_iommu=on iommu=pt", "" when they hold already); for MERGE the
 * appended token carries every item, the line's own included, since the
 * last occurrence wins.  REMOVE edits are ignored (appending cannot remove).
 * Caller frees. */
char *vw_cmdline_missing(const char *line, const struct vw_kedits *e);

/* Whether the REMOVE edits find anything to remove in line. */
bool vw_cmdline_needs_removal(const char *line, const struct vw_kedits *e);

/* A token as the kernel reads it (see above): *key, and *value (NULL for a
 * bare flag; value may be NULL when not wanted); caller frees both. */
void vw_ktok_parse(const char *text, char **key, char **value);
/* Name of a token ("intel_iommu" for intel_iommu=on), as the kernel reads
 * it; caller frees. */
char *vw_ktok_key(const char *text);

/* '-' and '_' alike. */
bool vw_kparam_eq(const char *a, const char *b);

#endif
