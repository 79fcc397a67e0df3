/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_execsplit.c - command lines split into argv without a shell
 * (vw_exec_split), joined for display (vw_exec_join) and keyed for
 * recordings (vw_exec_key): join then split gives the same words back, and
 * a key is always one safe file name. */
#include "exec.h"
#include "fuzzutil.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fu_str(data, size), **argv = NULL, **again = NULL, *joined, *key;
	struct vw_err err = { 0 };
	int n = vw_exec_split(s, &argv, &err);

	if (n < 0) {
		FU_CHECK(argv == NULL && err.msg[0]);
		free(s);
		return 0;
	}
	joined = vw_exec_join((const char *const *)argv);
	FU_CHECK(vw_exec_split(joined, &again, &err) == n);
	for (int i = 0; i < n; i++)
		FU_CHECK(!strcmp(argv[i], again[i]));
	key = vw_exec_key((const char *const *)argv);
	for (const char *p = key; *p; p++)
		FU_CHECK(strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-", *p));
	free(key);
	free(joined);
	vw_strv_free(again);
	vw_strv_free(argv);
	free(s);
	return 0;
}
