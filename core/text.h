/* SPDX-License-Identifier: GPL-2.0-or-later */
/* text.h - strings from outside (a host, a snapshot, an answers file) made
 * safe to show and to write.
 *
 * A host string may hold terminal escapes (OSC 52 clipboard writes, ESC[2J),
 * C1 controls or bytes that are not UTF-8: shown raw they act on the
 * reader's terminal.  Everything read from a host goes through
 * vw_printable() before it is shown (the JSON writer escapes on its own).
 * Strings that we write into XML, scripts or configuration files must pass
 * vw_text_ok() when they are read (answers).
 */
#ifndef VW_TEXT_H
#define VW_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Length of the valid UTF-8 sequence at s (n bytes available, n >= 1) and
 * its code point in *cp, or 0 when s[0] does not start one (overlong forms,
 * surrogates and code points over U+10FFFF are not valid). */
size_t vw_utf8_next(const char *s, size_t n, unsigned *cp);

/* True when s is valid UTF-8 without control characters: no C0 (tab and
 * newline included), DEL, C1 (U+0080..U+009F), U+2028/U+2029 line
 * separators or bidirectional overrides (U+202A..U+202E, U+2066..U+2069). */
bool vw_text_ok(const char *s);

/* s with every byte or character vw_text_ok() refuses written as an escape
 * (\x1b, \u0085, \u007f): one line of text that shows what is there and does nothing
 * to a terminal; text vw_text_ok() accepts comes back unchanged.  NULL
 * gives "".  Returns a new string; caller frees. */
char *vw_printable(const char *s);

/* The same for n bytes of s (NUL bytes escaped too); with lines, newlines
 * and tabs stay as they are (a whole text output, a diff). */
char *vw_printable_n(const char *s, size_t n, bool lines);

/* The same, in place on a string the caller owns: *s is replaced by its
 * printable form when it needs one (and freed).  For facts read from a
 * host. */
void vw_printable_inplace(char **s);

#endif
