/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_redact.c - snapshot redaction (core/redact.h) on any text: no
 * crash, and no registered host or user name (nor the domain of a host's
 * FQDN) survives as a whole word. */
#include "redact.h"
#include "fuzzutil.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool alnum(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* A whole-word occurrence of w (compared without case) in s. */
static bool has_word(const char *s, size_t len, const char *w)
{
	size_t n = strlen(w);

	for (size_t i = 0; i + n <= len; i++)
		if ((i == 0 || !alnum((unsigned char)s[i - 1])) && !strncasecmp(s + i, w, n) &&
		    (i + n == len || !alnum((unsigned char)s[i + n])))
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vw_redact *r = vw_redact_new();
	struct vw_buf sum = VW_BUF_INIT;
	char *out, *lines;
	size_t len, n;

	vw_redact_protect(r, "nvidia");
	vw_redact_add_name(r, VW_RED_HOST, "gpubox");
	vw_redact_add_name(r, VW_RED_HOST, "gpubox.example.org");
	vw_redact_add_name(r, VW_RED_USER, "alice");
	out = vw_redact_text(r, (const char *)data, size, &len, &n);
	FU_CHECK(out[len] == '\0');
	FU_CHECK(!has_word(out, len, "gpubox"));
	FU_CHECK(!has_word(out, len, "alice"));
	FU_CHECK(!has_word(out, len, "example.org"));	/* the FQDN's domain */
	lines = vw_redact_id_lines(r, (const char *)data, size, &len);
	FU_CHECK(!has_word(lines, len, "alice"));
	vw_redact_summary(r, &sum);
	vw_redact_counts(r, &sum);
	vw_buf_done(&sum);
	free(lines);
	free(out);
	vw_redact_free(r);
	return 0;
}
