/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mkhostile - write every hostile archive of hostile.c into a folder.
 *
 *	mkhostile OUTDIR [TAG]
 *
 * OUTDIR/NAME.tar.gz for each case, plus payloads.tar.gz (whose scripts
 * would create TAG-marker if anything ran them).  TAG (default
 * /tmp/vfiowiz-hostile) is the absolute prefix the archives aim at. */
#include "hostile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	const char *tag = argc > 2 ? argv[2] : "/tmp/vfiowiz-hostile";
	char path[4096], marker[4096];

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: mkhostile OUTDIR [TAG]\n");
		return 2;
	}
	if (mkdir(argv[1], 0755) < 0 && errno != EEXIST) {
		perror(argv[1]);
		return 1;
	}
	for (size_t i = 0; i < hostile_ncases; i++) {
		snprintf(path, sizeof(path), "%s/%s.tar.gz", argv[1], hostile_cases[i].name);
		if (hostile_write(hostile_cases[i].name, path, tag) < 0) {
			perror(path);
			return 1;
		}
		printf("%-24s %s\n", hostile_cases[i].name, hostile_cases[i].what);
	}
	snprintf(path, sizeof(path), "%s/payloads.tar.gz", argv[1]);
	snprintf(marker, sizeof(marker), "%s-marker", tag);
	if (hostile_write_payloads(path, marker) < 0) {
		perror(path);
		return 1;
	}
	printf("%-24s %s\n", "payloads", "scripts that must never run");
	return 0;
}
