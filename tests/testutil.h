/* SPDX-License-Identifier: GPL-2.0-or-later */
/* testutil.h - helpers for the cmocka tests: scratch sysroots, fixture
 * hosts. */
#ifndef VW_TESTUTIL_H
#define VW_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "facts.h"
#include "sysroot.h"

/* A fresh empty directory under $TMPDIR; caller frees; removed by tu_rmtree. */
char *tu_mkroot(void);
/* Write text to root/rel, creating parent directories. */
void tu_write(const char *root, const char *rel, const char *text);
void tu_write_bytes(const char *root, const char *rel, const void *data, size_t len);
void tu_symlink(const char *root, const char *rel, const char *target);
void tu_mkdir(const char *root, const char *rel);
void tu_rmtree(const char *root);
/* Path of a built fixture host ($top_builddir/tests/out/hosts/NAME); NULL
 * when the fixtures were not built. Caller frees. */
char *tu_host(const char *name);

/* A built fixture host, opened and probed as vfiowiz does. */
struct tu_fixture {
	char *root;
	struct vw_sysroot *sr;
	struct vw_facts f;
};

/* Open the fixture host name (tests/out/hosts/NAME) and probe its facts;
 * a failure fails the test.  Returns false when the fixtures were not
 * built (the caller skips).  Close it with tu_fixture_close(). */
bool tu_fixture_open(struct tu_fixture *h, const char *name);
void tu_fixture_close(struct tu_fixture *h);

#endif
