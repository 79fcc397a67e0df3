/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_tar.c - snapshot import (core/tarsafe.h): any bytes, gzip or not,
 * are extracted into a fresh folder or refused; nothing ever lands beside
 * that folder, and nothing extracted is a device, a fifo, executable, or a
 * link that leaves the tree. */
#define _GNU_SOURCE
#include "tarsafe.h"
#include "fuzzutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *root;
static size_t rootlen;

static int check_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)flag, (void)ftw;
	FU_CHECK(S_ISDIR(st->st_mode) || S_ISREG(st->st_mode) || S_ISLNK(st->st_mode));
	if (S_ISREG(st->st_mode))
		FU_CHECK((st->st_mode & 07777) == 0600);
	if (S_ISLNK(st->st_mode)) {
		char target[8192];
		ssize_t n = readlink(path, target, sizeof(target) - 1);

		FU_CHECK(n > 0);
		target[n] = '\0';
		FU_CHECK(vw_tar_link_ok(path + rootlen + 1, target));
	}
	return 0;
}

static size_t entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	FU_CHECK(d != NULL);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vw_tar_limits lim = { .max_total = 1 << 20, .max_file = 256 << 10,
				     .max_stream = 4 << 20, .max_entries = 2000 };
	char *jail = fu_mkdtemp(), *dest = vw_xasprintf("%s/dest", jail);
	struct vw_err err = { 0 };
	int dfd, r;

	FU_CHECK(mkdir(dest, 0700) == 0);
	dfd = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	FU_CHECK(dfd >= 0);
	r = vw_tar_extract_mem(data, size, dfd, &lim, NULL, &err);
	close(dfd);
	FU_CHECK(r == 0 || err.msg[0]);
	for (const char *p = err.msg; *p; p++)
		FU_CHECK((unsigned char)*p >= 0x20);
	FU_CHECK(entries(jail) == 1);
	root = dest;
	rootlen = strlen(dest);
	nftw(dest, check_one, 16, FTW_PHYS);
	fu_rmtree(jail);
	free(dest);
	free(jail);
	return 0;
}
