/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_acs.c - the pcie_acs_override= value (vw_acs_parse): what parses
 * formats back to something that parses to the same override. */
#include "acs.h"
#include "fuzzutil.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fu_str(data, size);
	struct vw_acs_override a, b;
	struct vw_err err = { 0 };

	memset(&a, 0, sizeof(a));
	if (vw_acs_parse(s, &a, &err) == 0) {
		struct vw_buf out = VW_BUF_INIT;

		FU_CHECK(a.nids <= VW_ACS_MAX_IDS);
		vw_acs_format(&a, &out);
		vw_buf_adds(&out, "");
		memset(&b, 0, sizeof(b));
		FU_CHECK(vw_acs_parse(out.data, &b, &err) == 0);
		FU_CHECK(a.downstream == b.downstream && a.multifunction == b.multifunction);
		FU_CHECK(a.nids == b.nids);
		FU_CHECK(!memcmp(a.ids, b.ids, sizeof(a.ids[0]) * a.nids));
		FU_CHECK(vw_acs_is_none(&a) == vw_acs_is_none(&b));
		vw_buf_done(&out);
	} else {
		FU_CHECK(err.msg[0] != '\0');
	}
	free(s);
	return 0;
}
