/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_mig.c - the MIG parsers (core/mig.h): the mode query's CSV and the
 * GPU instance profile table of nvidia-smi mig -lgip.  The input goes to
 * both, whole and split at its first NUL. */
#include "mig.h"
#include "fuzzutil.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	const char *nul = memchr(text, 0, size);
	size_t first = nul ? (size_t)(nul - text) : size;
	struct vw_mig m = { 0 };

	vw_mig_parse(&m, NULL, text, size, text, size);
	for (size_t i = 0; i < m.nprofiles; i++)
		FU_CHECK(m.profiles[i].free <= m.profiles[i].total && memchr(m.profiles[i].name, 0, 32));
	for (size_t i = 0; i < m.ngpus; i++)
		FU_CHECK(strlen(m.gpus[i].addr) == 12 && m.gpus[i].dev == -1);
	vw_mig_parse(&m, NULL, text, first, nul ? nul + 1 : NULL, nul ? size - first - 1 : 0);
	/* -lgi rows: added to what is there. */
	vw_mig_parse_lgi(&m, text, size);
	FU_CHECK(m.instances_known);
	for (size_t i = 0; i < m.ninstances; i++)
		FU_CHECK(memchr(m.instances[i].name, 0, 32) && m.instances[i].gpu >= 0 && m.instances[i].id >= 0 &&
			 vw_mig_count(&m, m.instances[i].gpu, m.instances[i].name) >= 1);
	vw_mig_done(&m);
	return 0;
}
