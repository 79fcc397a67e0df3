/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vw.h - what every core module shares: errors, allocation, strings, i18n.
 *
 * Contracts:
 *  - Functions that can fail return 0 (or a count) on success and -errno
 *    (or -1 for "invalid input") on failure, and fill the caller's
 *    struct vw_err with a message meant for people (already translated).
 *  - vw_x*() allocation wrappers never return NULL: out of memory aborts,
 *    as in tmux's xmalloc.h.  "Caller frees" means free().
 *  - The core never prints, never exits, never calls curses.
 */
#ifndef VW_H
#define VW_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#if ENABLE_NLS
#include <libintl.h>
#define _(s) dgettext(PACKAGE, s)
#undef ngettext
#define ngettext(s, p, n) dngettext(PACKAGE, s, p, n)
#else
#define _(s) (s)
#endif
#define N_(s) (s)
#if !ENABLE_NLS
#define ngettext(s, p, n) ((n) == 1 ? (s) : (p))
#endif

#define VW_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define VW_PRINTF(f, a) __attribute__((format(printf, f, a)))

struct vw_err {
	int code;		/* -errno or -1; 0 when no error was set */
	char msg[1024];		/* translated, one line, no trailing newline */
};

/* Set *e (when e is not NULL) and return code (negative), so callers can
 * write: return vw_err_set(err, -ENOENT, _("..."), ...); */
int vw_err_set(struct vw_err *e, int code, const char *fmt, ...) VW_PRINTF(3, 4);
/* Prefix an existing message: "prefix: old message". Returns e->code. */
int vw_err_prefix(struct vw_err *e, const char *fmt, ...) VW_PRINTF(2, 3);
void vw_err_clear(struct vw_err *e);

void *vw_xmalloc(size_t n);
void *vw_xcalloc(size_t n, size_t size);
void *vw_xrealloc(void *p, size_t n);
void *vw_xreallocarray(void *p, size_t n, size_t size);
char *vw_xstrdup(const char *s);
char *vw_xstrndup(const char *s, size_t n);
char *vw_xasprintf(const char *fmt, ...) VW_PRINTF(1, 2);

/* Growable byte buffer; always NUL-terminated after any append.
 * Initialise with VW_BUF_INIT, release with vw_buf_done(). */
struct vw_buf {
	char *data;
	size_t len;
	size_t cap;
};
#define VW_BUF_INIT { NULL, 0, 0 }
void vw_buf_add(struct vw_buf *b, const void *p, size_t n);
void vw_buf_adds(struct vw_buf *b, const char *s);
void vw_buf_addc(struct vw_buf *b, char c);
void vw_buf_printf(struct vw_buf *b, const char *fmt, ...) VW_PRINTF(2, 3);
void vw_buf_vprintf(struct vw_buf *b, const char *fmt, va_list ap);
/* Hand the bytes to the caller (caller frees; never NULL) and reset b. */
char *vw_buf_steal(struct vw_buf *b);
void vw_buf_done(struct vw_buf *b);

/* Append a formatted string to *v, a NULL-terminated array of *n strings
 * (notes of the plan steps); *v may start NULL. */
void vw_strv_vaddf(char ***v, size_t *n, const char *fmt, va_list ap) VW_PRINTF(3, 0);

/* Trim ASCII white space at both ends, in place; returns s. */
char *vw_strtrim(char *s);
bool vw_startswith(const char *s, const char *prefix);

#endif
