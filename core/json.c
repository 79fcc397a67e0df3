/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.c - a small, strict JSON writer. */
#include "json.h"

#include <stdio.h>
#include <string.h>

void vw_json_init(struct vw_json *j, struct vw_buf *out)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
	j->first[0] = true;
}

static void indent(struct vw_json *j)
{
	vw_buf_addc(j->out, '\n');
	for (int i = 0; i < j->depth; i++)
		vw_buf_adds(j->out, "  ");
}

static void member(struct vw_json *j, const char *key)
{
	if (j->depth > 0) {
		if (!j->first[j->depth])
			vw_buf_addc(j->out, ',');
		indent(j);
	}
	j->first[j->depth] = false;
	if (key) {
		vw_json_escape(j->out, key);
		vw_buf_adds(j->out, ": ");
	}
}

static void open_(struct vw_json *j, const char *key, char c)
{
	member(j, key);
	vw_buf_addc(j->out, c);
	if (j->depth + 1 < (int)VW_ARRAY_SIZE(j->first))
		j->depth++;
	j->first[j->depth] = true;
}

static void close_(struct vw_json *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty)
		indent(j);
	vw_buf_addc(j->out, c);
	if (j->depth == 0)
		vw_buf_addc(j->out, '\n');
}

void vw_json_obj_begin(struct vw_json *j, const char *key) { open_(j, key, '{'); }
void vw_json_obj_end(struct vw_json *j) { close_(j, '}'); }
void vw_json_arr_begin(struct vw_json *j, const char *key) { open_(j, key, '['); }
void vw_json_arr_end(struct vw_json *j) { close_(j, ']'); }

void vw_json_str(struct vw_json *j, const char *key, const char *val)
{
	member(j, key);
	if (val)
		vw_json_escape(j->out, val);
	else
		vw_buf_adds(j->out, "null");
}

void vw_json_int(struct vw_json *j, const char *key, long long val)
{
	member(j, key);
	vw_buf_printf(j->out, "%lld", val);
}

void vw_json_bool(struct vw_json *j, const char *key, bool val)
{
	member(j, key);
	vw_buf_adds(j->out, val ? "true" : "false");
}

void vw_json_null(struct vw_json *j, const char *key)
{
	member(j, key);
	vw_buf_adds(j->out, "null");
}

void vw_json_hex(struct vw_json *j, const char *key, unsigned val, int width)
{
	char s[16];

	snprintf(s, sizeof(s), "%0*x", width, val);
	vw_json_str(j, key, s);
}

void vw_json_tri(struct vw_json *j, const char *key, int val)
{
	if (val < 0)
		vw_json_null(j, key);
	else
		vw_json_bool(j, key, val != 0);
}

/* Length of a valid UTF-8 sequence at s, 0 when invalid. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		n = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void vw_json_escape(struct vw_buf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	vw_buf_addc(b, '"');
	while (*s) {
		size_t n;

		switch (*s) {
		case '"': vw_buf_adds(b, "\\\""); s++; continue;
		case '\\': vw_buf_adds(b, "\\\\"); s++; continue;
		case '\n': vw_buf_adds(b, "\\n"); s++; continue;
		case '\t': vw_buf_adds(b, "\\t"); s++; continue;
		case '\r': vw_buf_adds(b, "\\r"); s++; continue;
		}
		if (*s < 0x20 || *s == 0x7f) {
			vw_buf_printf(b, "\\u%04x", *s);
			s++;
			continue;
		}
		n = utf8_len(s);
		if (!n) {
			vw_buf_adds(b, "\\ufffd");
			s++;
			continue;
		}
		vw_buf_add(b, s, n);
		s += n;
	}
	vw_buf_addc(b, '"');
}
