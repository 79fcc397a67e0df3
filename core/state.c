/* SPDX-License-Identifier: GPL-2.0-or-later */
/* state.c - the wizard's state file: the answers format with its progress
 * section, read and written by core/answers.c. */
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic.h"
#include "journal.h"

#define STATE_VERSION 1

void vw_state_init(struct vw_state *s)
{
	memset(s, 0, sizeof(*s));
	vw_choices_init(&s->choices);
	s->step = vw_xstrdup("");
	s->boot_id = vw_xstrdup("");
	s->applied_boot_id = vw_xstrdup("");
	s->journal = vw_xstrdup("");
}

void vw_state_done(struct vw_state *s)
{
	vw_choices_done(&s->choices);
	free(s->step);
	free(s->boot_id);
	free(s->applied_boot_id);
	free(s->journal);
	memset(s, 0, sizeof(*s));
}

int vw_state_parse(struct vw_state *s, const char *text, size_t len, const char *name,
		   struct vw_err *err)
{
	struct vw_progress p = { 0 };
	int r;

	vw_state_done(s);
	vw_state_init(s);
	r = vw_answers_parse_progress(&s->choices, &p, text, len, name, err);
	if (r == 0 && p.version > STATE_VERSION)
		r = vw_err_set(err, -EINVAL, _("%s: written by a newer vfiowiz"), name);
	if (r < 0) {
		vw_progress_done(&p);
		vw_state_done(s);
		vw_state_init(s);
		return r;
	}
	/* No progress yet (a plain answers file): the defaults. */
	free(s->step);
	s->step = p.step;
	free(s->boot_id);
	s->boot_id = p.boot_id;
	s->applied = p.applied;
	free(s->applied_boot_id);
	s->applied_boot_id = p.applied_boot_id;
	free(s->journal);
	s->journal = p.journal;
	return 0;
}

int vw_state_load(struct vw_state *s, const struct vw_sysroot *sr, struct vw_err *err)
{
	char *text = NULL, *name = vw_xasprintf("/%s", VW_STATE_FILE);
	size_t len = 0;
	struct vw_err local = { 0 };
	int r;

	r = vw_sysroot_read(sr, VW_STATE_FILE, &text, &len, VW_ANSWERS_MAX, &local);
	if (r < 0) {
		vw_state_done(s);
		vw_state_init(s);
		free(name);
		if (r == -ENOENT)
			return r;
		if (err)
			*err = local;
		return r;
	}
	r = vw_state_parse(s, text, len, name, err);
	memset(text, 0, len);	/* may hold the VNC password */
	free(text);
	free(name);
	return r;
}

void vw_state_format(struct vw_buf *b, const struct vw_state *s)
{
	struct vw_progress p = {
		.present = true,
		.version = STATE_VERSION,
		.step = s->step,
		.boot_id = s->boot_id,
		.applied = s->applied,
		.applied_boot_id = s->applied_boot_id,
		.journal = s->journal,
	};

	vw_buf_adds(b, "# vfiowiz wizard state: your choices and how far the walk went.\n"
		       "# Written by the wizard; delete it to start over.\n");
	vw_answers_format(b, &s->choices);
	vw_answers_format_progress(b, &p);
}

int vw_state_save(const struct vw_state *s, const struct vw_sysroot *sr, struct vw_err *err)
{
	struct vw_buf b = VW_BUF_INIT;
	int r;

	vw_state_format(&b, s);
	/* 0600 from the first byte, even over a 0644 file: it may hold the
	 * VNC password. */
	r = vw_write_private(sr, VW_STATE_FILE, b.data, b.len, err);
	memset(b.data, 0, b.len);
	vw_buf_done(&b);
	return r;
}

char *vw_boot_id(const struct vw_sysroot *sr)
{
	char *id = vw_sysroot_read_line(sr, "proc/sys/kernel/random/boot_id");

	return id ? id : vw_xstrdup("");
}

bool vw_state_rebooted(const struct vw_state *s, const char *boot_id)
{
	return s->applied && *s->applied_boot_id && boot_id && *boot_id &&
	       strcmp(s->applied_boot_id, boot_id) != 0;
}

bool vw_state_forget_undone(struct vw_state *s, const struct vw_sysroot *sr)
{
	if (!s->applied || !vw_journal_valid_id(s->journal) ||
	    !vw_journal_marker(sr, s->journal, "undone", NULL, 0))
		return false;
	s->applied = false;
	free(s->applied_boot_id);
	s->applied_boot_id = vw_xstrdup("");
	free(s->journal);
	s->journal = vw_xstrdup("");
	return true;
}
