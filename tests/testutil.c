/* SPDX-License-Identifier: GPL-2.0-or-later */
/* testutil.c - scratch sysroots and fixture hosts for the unit tests. */
#define _GNU_SOURCE
#include "testutil.h"
#include "vw.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *tu_mkroot(void)
{
	const char *tmp = getenv("TMPDIR");
	char *p = vw_xasprintf("%s/vwtest.XXXXXX", tmp && *tmp ? tmp : "/tmp");

	assert_non_null(mkdtemp(p));
	return p;
}

static void mkparents(const char *path)
{
	char *p = vw_xstrdup(path);

	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			fail_msg("mkdir %s: %s", p, strerror(errno));
		*s = '/';
	}
	free(p);
}

void tu_write_bytes(const char *root, const char *rel, const void *data, size_t len)
{
	char *path = vw_xasprintf("%s/%s", root, rel);
	FILE *fp;

	mkparents(path);
	fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(data, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
	free(path);
}

void tu_write(const char *root, const char *rel, const char *text)
{
	tu_write_bytes(root, rel, text, strlen(text));
}

void tu_symlink(const char *root, const char *rel, const char *target)
{
	char *path = vw_xasprintf("%s/%s", root, rel);

	mkparents(path);
	assert_int_equal(symlink(target, path), 0);
	free(path);
}

void tu_mkdir(const char *root, const char *rel)
{
	char *path = vw_xasprintf("%s/%s/", root, rel);

	mkparents(path);
	free(path);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

void tu_rmtree(const char *root)
{
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

char *tu_host(const char *name)
{
	const char *b = getenv("top_builddir");
	char *p;

	if (!b)
		return NULL;
	p = vw_xasprintf("%s/tests/out/hosts/%s", b, name);
	if (access(p, R_OK) != 0) {
		free(p);
		return NULL;
	}
	return p;
}

bool tu_fixture_open(struct tu_fixture *h, const char *name)
{
	struct vw_err err = { 0 };

	memset(h, 0, sizeof(*h));
	h->root = tu_host(name);
	if (!h->root)
		return false;
	assert_int_equal(vw_sysroot_open(&h->sr, h->root, &err), 0);
	assert_int_equal(vw_facts_probe(&h->f, h->sr, &err), 0);
	return true;
}

void tu_fixture_close(struct tu_fixture *h)
{
	vw_facts_done(&h->f);
	vw_sysroot_free(h->sr);
	free(h->root);
}
