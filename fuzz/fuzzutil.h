/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzzutil.h - helpers shared by the libFuzzer harnesses. */
#ifndef VW_FUZZUTIL_H
#define VW_FUZZUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "vw.h"

/* The input as a NUL-terminated string (NUL bytes inside stay). Caller frees. */
char *fu_str(const uint8_t *data, size_t size);

/* Split the input at each '\x01' byte into at most max fields; fields past
 * the input's end are NULL.  Each field is NUL-terminated (a copy) and
 * *lens gets its length.  Free with fu_fields_free(). */
char **fu_fields(const uint8_t *data, size_t size, size_t max, size_t *lens);
void fu_fields_free(char **f, size_t max);

/* A private scratch directory for the whole run (removed at exit). */
const char *fu_scratch(void);
/* A fresh empty directory under the scratch one; caller frees and removes
 * it with fu_rmtree(). */
char *fu_mkdtemp(void);
int fu_rmtree(const char *dir);

/* Write a whole file under root (parents made), replacing what was there. */
void fu_write(const char *root, const char *rel, const void *data, size_t len);
/* Replace whatever is at root/rel by a symlink to target. */
void fu_symlink(const char *root, const char *rel, const char *target);

/* Abort with a message when cond is false (a broken invariant is a crash
 * libFuzzer reports). */
#define FU_CHECK(cond) do { if (!(cond)) fu_fail(#cond, __FILE__, __LINE__); } while (0)
void fu_fail(const char *what, const char *file, int line) __attribute__((noreturn));

#endif
