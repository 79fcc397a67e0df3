/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ansible.h - a plan (core/plan.h) as an Ansible playbook, for fleets.
 *
 * `vfiowiz plan --answers F --format ansible` writes one play that makes the
 * same changes as `vfiowiz apply` would on the host the plan was made on:
 *
 *  - every planned file with its exact bytes (ansible.builtin.copy with a
 *    literal block scalar, tagged !unsafe so that Jinja never touches it),
 *    its mode when the plan creates it (0600 for secret files), removals
 *    with ansible.builtin.file state=absent;
 *  - the post-commands as handlers, in plan order, notified by the tasks
 *    whose file changed (nothing changed, nothing runs), and the initramfs
 *    listings checked after the rebuild, as in `apply`;
 *  - first, a guard as in `apply`: a host whose file is neither the bytes the
 *    plan was made from nor the planned bytes is refused before anything is
 *    written (-e vfiowiz_force=true overrides);
 *  - secret files (the VNC password) are no_log, and the password itself is
 *    not in the playbook: it is the variable vfiowiz_vnc_password, asked for
 *    when the play starts (vars_prompt) unless given with -e or a vault.
 *
 * `ansible-playbook --check --diff` shows the same diffs and changes
 * nothing.  -e vfiowiz_root=DIR writes under DIR instead of / and runs no
 * post-command (tests, staging a tree).
 *
 * YAML cannot hold every byte string: contents that are not UTF-8 text in
 * YAML's printable set (NUL and other control characters, CR, invalid
 * UTF-8, U+0085/U+2028/U+2029, a BOM) go to a files/ directory next to the
 * playbook (copy src:) when the caller allows it, else the export is
 * refused with a message naming the file.
 */
#ifndef VW_ANSIBLE_H
#define VW_ANSIBLE_H

#include <stdbool.h>
#include <stddef.h>

#include "plan.h"
#include "hostplan.h"
#include "vw.h"

struct vw_ansible_opts {
	/* The VNC password (the answers' access.vnc_password), or NULL/"":
	 * in secret changes it becomes {{ vfiowiz_vnc_password }}.  A secret
	 * change that does not hold it verbatim is refused (the playbook
	 * would carry a secret). */
	const char *secret;
	/* The initramfs listings `apply` runs after a post-command
	 * (vw_hostplan.checks); may be NULL. */
	const struct vw_check *checks;
	size_t nchecks;
	/* true: contents YAML cannot hold are returned in *files, for the
	 * caller to write under files/ next to the playbook; false: refused. */
	bool allow_files;
	/* Shown in the header comment (the answers file's name); may be NULL. */
	const char *source;
};

/* One file for the playbook's files/ directory: files/<path>. */
struct vw_ansible_file {
	const char *path;	/* root-relative, as in the plan (points into it) */
	const char *data;	/* the bytes (points into the plan) */
	size_t len;
	mode_t mode;
};

struct vw_ansible_files {
	struct vw_ansible_file *v;
	size_t n;
};

/* Append the playbook for plan to out.  files may be NULL when
 * o->allow_files is false.  Returns 0, or a negative code with err set
 * (a content YAML cannot hold and files/ not allowed, a path or command
 * that is not UTF-8, a secret file without the password in it); out then
 * holds a partial playbook the caller should drop. */
int vw_ansible_playbook(struct vw_buf *out, const struct vw_plan *plan,
			const struct vw_ansible_opts *o, struct vw_ansible_files *files,
			struct vw_err *err);
void vw_ansible_files_done(struct vw_ansible_files *files);

/* Whether YAML (and so Ansible's copy content:) can hold these bytes
 * exactly: valid UTF-8, no NUL, no CR, only YAML's printable characters,
 * no line separators other than LF, no BOM. */
bool vw_ansible_text_ok(const char *data, size_t len);

#endif
