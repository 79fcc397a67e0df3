/* SPDX-License-Identifier: GPL-2.0-or-later */
/* diff.h - unified diffs computed in-process.
 *
 * The output is what GNU diffutils' "diff -u --label A --label B" prints,
 * hunk for hunk: the same choice among equally short edit scripts (Myers'
 * O(ND) search for the middle snake in linear space, with GNU's discarding of
 * lines that match nothing, its boundary shifting and its cost cap for very
 * large inputs), the same "@@ -l,n +l,n @@" ranges (",n" left out when n is
 * 1, "-0,0" for an empty side), hunks merged when their contexts touch or
 * overlap, and "\ No newline at end of file" after an incomplete last line.
 */
#ifndef VW_DIFF_H
#define VW_DIFF_H

#include <stddef.h>

#include "vw.h"

#define VW_DIFF_CONTEXT 3

/* Append to out the unified diff turning a into b: "--- label_a",
 * "+++ label_b" (NULL means "/dev/null", the usual label for the missing side
 * of a new or deleted file), then the hunks with context lines of context
 * around each change.  Inputs holding a NUL byte are binary: one line
 * "Binary files label_a and label_b differ" is appended instead.
 * Returns 0 when a and b are equal (nothing appended), 1 when they differ,
 * -EINVAL when context is negative. */
int vw_diff_unified(struct vw_buf *out, const char *a, size_t alen, const char *b, size_t blen,
		    const char *label_a, const char *label_b, int context);

#endif
