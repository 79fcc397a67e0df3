/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_kcmdline.c - editing kernel command lines (core/cmdline.h): split +
 * join is the identity, edits never crash and are idempotent, and a line
 * vw_cmdline_check() accepts ends up with every edit made. */
#include "cmdline.h"
#include "fuzzutil.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fu_str(data, size), *j, *e1, *e2, *miss;
	struct vw_cmdline l;
	struct vw_kedits ed = { 0 };
	bool changed;

	if (strlen(s) != size) {	/* a line is text */
		free(s);
		return 0;
	}
	vw_cmdline_split(&l, s);
	j = vw_cmdline_join(&l);
	FU_CHECK(!strcmp(j, s));
	for (size_t i = 0; i < l.n; i++)
		free(vw_ktok_key(l.t[i].text));
	vw_cmdline_has(&l, "vfio-pci.ids", "10de:2204");
	vw_cmdline_done(&l);

	vw_kedits_add(&ed, VW_KOP_SET, "intel_iommu", "on", "x");
	vw_kedits_add(&ed, VW_KOP_SET, "iommu", "pt", "x");
	vw_kedits_add(&ed, VW_KOP_MERGE, "vfio-pci.ids", "10de:2204,10de:1aef", "x");
	vw_kedits_add(&ed, VW_KOP_REMOVE, "nouveau.modeset", NULL, "x");
	vw_kedits_add(&ed, VW_KOP_REMOVE, "modprobe.blacklist", "vfio_pci", "x");
	e1 = vw_cmdline_edit(s, &ed, &changed);
	e2 = vw_cmdline_edit(e1, &ed, &changed);
	/* The same plan twice changes nothing, whatever the quotes: a line
	 * with an open quote is left alone, and so is a value holding a '"'
	 * that could not be written back.  Lines the check accepts get every
	 * edit: the kernel sees the parameters. */
	FU_CHECK(!strcmp(e1, e2));
	FU_CHECK(!changed);
	if (vw_cmdline_check(s, &ed, "/x", NULL) == 0) {
		char *left = vw_cmdline_missing(e1, &ed);

		FU_CHECK(!*left);
		FU_CHECK(!vw_cmdline_needs_removal(e1, &ed));
		FU_CHECK(vw_cmdline_check(e1, &ed, "/x", NULL) == 0);
		free(left);
	}
	miss = vw_cmdline_missing(s, &ed);
	vw_cmdline_needs_removal(s, &ed);
	free(miss);
	free(e1);
	free(e2);
	free(j);
	vw_kedits_done(&ed);
	free(s);
	return 0;
}
