/* SPDX-License-Identifier: GPL-2.0-or-later */
/* text.c - printable and valid text; see text.h. */
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vw.h"

size_t vw_utf8_next(const char *s, size_t n, unsigned *cp)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned c = p[0], min;
	size_t len;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2, c &= 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3, c &= 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4, c &= 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

static bool cp_control(unsigned c)
{
	return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) || c == 0x2028 || c == 0x2029 ||
	       (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

bool vw_text_ok(const char *s)
{
	size_t n = strlen(s), l;
	unsigned c;

	for (size_t i = 0; i < n; i += l) {
		l = vw_utf8_next(s + i, n - i, &c);
		if (!l || cp_control(c))
			return false;
	}
	return true;
}

char *vw_printable_n(const char *s, size_t n, bool lines)
{
	struct vw_buf b = VW_BUF_INIT;
	size_t l;
	unsigned c;

	for (size_t i = 0; i < n; i += l) {
		l = vw_utf8_next(s + i, n - i, &c);
		if (!l) {
			vw_buf_printf(&b, "\\x%02x", (unsigned char)s[i]);
			l = 1;
		} else if (lines && (c == '\n' || c == '\t')) {
			vw_buf_addc(&b, (char)c);
		} else if (cp_control(c)) {
			/* \u form for DEL and above: valid in a JSON string too. */
			vw_buf_printf(&b, c < 0x7f ? "\\x%02x" : "\\u%04x", c);
		} else {
			vw_buf_add(&b, s + i, l);
		}
	}
	return b.data ? vw_buf_steal(&b) : vw_xstrdup("");
}

char *vw_printable(const char *s)
{
	return vw_printable_n(s ? s : "", s ? strlen(s) : 0, false);
}

void vw_printable_inplace(char **s)
{
	char *p;

	if (!*s || vw_text_ok(*s))
		return;
	p = vw_printable(*s);
	free(*s);
	*s = p;
}
