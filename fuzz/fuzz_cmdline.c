/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_cmdline.c - the kernel command line as the probes read it
 * (vw_cmdline_parse, vw_cmdline_get). */
#include "facts.h"
#include "fuzzutil.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = { "intel_iommu", "amd_iommu", "iommu", "iommu.passthrough",
					     "pcie_acs_override", "vfio-pci.ids", "vfio_pci.ids", "" };
	char *s = fu_str(data, size);
	struct vw_param *p = NULL;
	size_t n = vw_cmdline_parse(s, &p), bytes = 0;

	/* Every parameter comes from the line: never more text than it had. */
	for (size_t i = 0; i < n; i++) {
		FU_CHECK(p[i].key != NULL);
		bytes += strlen(p[i].key) + (p[i].value ? strlen(p[i].value) + 1 : 0);
	}
	FU_CHECK(bytes <= strlen(s));
	for (size_t i = 0; i < VW_ARRAY_SIZE(keys); i++) {
		bool present;
		const char *v = vw_cmdline_get(p, n, keys[i], &present);

		FU_CHECK(!v || present);
	}
	vw_params_free(p, n);
	free(s);
	return 0;
}
