/* SPDX-License-Identifier: GPL-2.0-or-later */
/* script.h - the wizard's scripted mode (--script, --dump), what the
 * screen tests drive: keys from a list instead of the terminal, and a text
 * dump of the screen after every key. */
#ifndef VW_SCRIPT_H
#define VW_SCRIPT_H

#include <stddef.h>

#include "vw.h"

struct vw_script_key {
	int key;
	int cols, lines;	/* for resizes */
};

struct vw_script {
	struct vw_script_key *keys;
	size_t n, ip;		/* keys, and the next one */
	const char *dump;	/* folder of the dumps (borrowed), NULL: none */
	unsigned ndump;		/* dumps written */
};

/* Parse keys "down,space,enter,F1,type:text,resize:100x30" (key names as
 * vw_ui_key_parse()) into s, which must be zeroed.  Returns 0, or -EINVAL
 * with err naming the bad key; vw_script_done() in both cases. */
int vw_script_parse(struct vw_script *s, const char *text, struct vw_err *err);
/* The next key, VW_KEY_NONE after the last.  A resize is made here (the
 * headless screen takes the size) and comes back as VW_KEY_RESIZE. */
int vw_script_next(struct vw_script *s);
/* With a dump folder: the screen as text into DUMP/NNN-name.txt. */
void vw_script_dump(struct vw_script *s, const char *name);
void vw_script_done(struct vw_script *s);

#endif
