/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_json.c - JSON string escaping: whatever the bytes, the output is one
 * valid JSON string of valid UTF-8 (invalid input bytes become U+FFFD). */
#include "json.h"
#include "fuzzutil.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Length of the UTF-8 sequence at p (0 when invalid). */
static size_t utf8_len(const unsigned char *p, size_t left)
{
	unsigned c = p[0];
	size_t n;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (left < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fu_str(data, size);
	struct vw_buf b = VW_BUF_INIT;
	const unsigned char *p;
	size_t len, i;

	vw_json_escape(&b, s);
	p = (const unsigned char *)b.data;
	len = b.len;
	FU_CHECK(len >= 2 && p[0] == '"' && p[len - 1] == '"');
	for (i = 1; i < len - 1;) {
		size_t n;

		FU_CHECK(p[i] >= 0x20);		/* no raw control byte */
		if (p[i] == '\\') {
			FU_CHECK(i + 1 < len - 1);
			if (p[i + 1] == 'u') {
				FU_CHECK(i + 5 < len - 1);
				for (int k = 2; k < 6; k++)
					FU_CHECK(strchr("0123456789abcdefABCDEF", p[i + k]) != NULL);
				i += 6;
			} else {
				FU_CHECK(strchr("\"\\/bfnrt", p[i + 1]) != NULL);
				i += 2;
			}
			continue;
		}
		FU_CHECK(p[i] != '"');
		n = utf8_len(p + i, len - 1 - i);
		FU_CHECK(n > 0);
		i += n;
	}
	vw_buf_done(&b);
	free(s);
	return 0;
}
