/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.h - a small JSON writer into a struct vw_buf.
 *
 * The writer tracks nesting so that commas and indentation come out right;
 * output is pretty-printed with two spaces, keys in the order written (the
 * schema in docs/json-schema.md fixes that order, so output is stable). */
#ifndef VW_JSON_H
#define VW_JSON_H

#include "vw.h"

struct vw_json {
	struct vw_buf *out;
	int depth;
	bool first[32];		/* no member written yet at this depth */
	bool after_key;
};

void vw_json_init(struct vw_json *j, struct vw_buf *out);
void vw_json_obj_begin(struct vw_json *j, const char *key);	/* key NULL inside arrays/top */
void vw_json_obj_end(struct vw_json *j);
void vw_json_arr_begin(struct vw_json *j, const char *key);
void vw_json_arr_end(struct vw_json *j);
void vw_json_str(struct vw_json *j, const char *key, const char *val);	/* NULL -> null */
void vw_json_int(struct vw_json *j, const char *key, long long val);
void vw_json_bool(struct vw_json *j, const char *key, bool val);
void vw_json_null(struct vw_json *j, const char *key);
/* 0x%04x-style id as a string: "10de". */
void vw_json_hex(struct vw_json *j, const char *key, unsigned val, int width);
/* Tristate: true, false or null. */
void vw_json_tri(struct vw_json *j, const char *key, int val);

/* Append s as a JSON string literal (quotes, escapes; invalid UTF-8 bytes
 * become U+FFFD). */
void vw_json_escape(struct vw_buf *b, const char *s);

#endif
