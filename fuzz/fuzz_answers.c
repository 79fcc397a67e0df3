/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_answers.c - the answers file and the state file (libconfuse):
 * whatever parses formats back to text that parses again to the same. */
#include "answers.h"
#include "state.h"
#include "fuzzutil.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vw_choices c, c2;
	struct vw_state s;
	struct vw_err err = { 0 };

	vw_choices_init(&c);
	if (vw_answers_parse(&c, (const char *)data, size, "fuzz.conf", &err) == 0) {
		struct vw_buf a = VW_BUF_INIT, b = VW_BUF_INIT;

		vw_answers_format(&a, &c);
		vw_choices_init(&c2);
		FU_CHECK(vw_answers_parse(&c2, a.data, a.len, "again.conf", &err) == 0);
		vw_answers_format(&b, &c2);
		FU_CHECK(a.len == b.len && !memcmp(a.data, b.data, a.len));
		vw_choices_done(&c2);
		vw_buf_done(&a);
		vw_buf_done(&b);
	}
	vw_choices_done(&c);
	vw_state_init(&s);
	if (vw_state_parse(&s, (const char *)data, size, "state.conf", &err) == 0) {
		struct vw_buf a = VW_BUF_INIT;

		vw_state_format(&a, &s);
		vw_buf_done(&a);
	}
	vw_state_done(&s);
	return 0;
}
