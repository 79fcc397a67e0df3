/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzzutil.c - helpers shared by the libFuzzer harnesses. */
#define _GNU_SOURCE
#include "fuzzutil.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *fu_str(const uint8_t *data, size_t size)
{
	char *s = vw_xmalloc(size + 1);

	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

char **fu_fields(const uint8_t *data, size_t size, size_t max, size_t *lens)
{
	char **f = vw_xcalloc(max, sizeof(*f));
	size_t start = 0, k = 0;

	for (size_t i = 0; i <= size && k < max; i++) {
		if (i == size || data[i] == 0x01) {
			/* The last field takes the rest, separators included. */
			size_t end = k == max - 1 ? size : i;

			f[k] = fu_str(data + start, end - start);
			if (lens)
				lens[k] = end - start;
			k++;
			start = i + 1;
			if (end == size)
				break;
		}
	}
	for (; lens && k < max; k++)
		lens[k] = 0;
	return f;
}

void fu_fields_free(char **f, size_t max)
{
	for (size_t i = 0; i < max; i++)
		free(f[i]);
	free(f);
}

static char *scratch;

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)ftw;
	if (flag == FTW_DNR)
		chmod(path, 0700);
	remove(path);
	return 0;
}

int fu_rmtree(const char *dir)
{
	return nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void remove_scratch(void)
{
	if (scratch)
		fu_rmtree(scratch);
}

const char *fu_scratch(void)
{
	if (!scratch) {
		const char *t = getenv("TMPDIR");

		scratch = vw_xasprintf("%s/vw-fuzz-run.XXXXXX", t && *t == '/' ? t : "/tmp");
		if (!mkdtemp(scratch)) {
			perror(scratch);
			abort();
		}
		atexit(remove_scratch);
	}
	return scratch;
}

char *fu_mkdtemp(void)
{
	char *d = vw_xasprintf("%s/d.XXXXXX", fu_scratch());

	if (!mkdtemp(d)) {
		perror(d);
		abort();
	}
	return d;
}

static void mkparents(char *path)
{
	for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
}

void fu_write(const char *root, const char *rel, const void *data, size_t len)
{
	char *p = vw_xasprintf("%s/%s", root, rel);
	FILE *fp;

	mkparents(p);
	unlink(p);
	fp = fopen(p, "wb");
	if (fp) {
		if (len)
			fwrite(data, 1, len, fp);
		fclose(fp);
	}
	free(p);
}

void fu_symlink(const char *root, const char *rel, const char *target)
{
	char *p = vw_xasprintf("%s/%s", root, rel);

	mkparents(p);
	unlink(p);
	if (*target)
		symlink(target, p);
	free(p);
}

void fu_fail(const char *what, const char *file, int line)
{
	fprintf(stderr, "%s:%d: invariant broken: %s\n", file, line, what);
	abort();
}
