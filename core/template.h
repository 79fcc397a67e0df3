/* SPDX-License-Identifier: GPL-2.0-or-later */
/* template.h - the documents the plan starts from (templates/: libvirt
 * domains, Proxmox VMs, guest scripts, nftables, the bind script, the
 * initramfs hook), read and filled in.
 *
 * Templates are the program's own data, not the host's: they are read with
 * plain stdio from vw_template_dir(), never through the sysroot.  Host
 * planning (bind.c, hooks.c, irfs_initramfs_tools.c), the VM back ends and
 * guest access all use them; this module depends on none of them.
 */
#ifndef VW_TEMPLATE_H
#define VW_TEMPLATE_H

#include <stddef.h>

#include "vw.h"

/* Directory holding the templates: $VFIOWIZ_TEMPLATES, else the templates/
 * of the source tree the program was built from when it runs from its build
 * tree, else $(pkgdatadir)/templates (core/datadir.h); the first that holds
 * libvirt-windows.xml wins.  NULL when none does.  Caller frees. */
char *vw_template_dir(void);

/* Read template name ("libvirt-windows.xml") from vw_template_dir().
 * *text is NUL-terminated (caller frees); len may be NULL.  Returns 0 or a
 * negative code with err set. */
int vw_template_load(const char *name, char **text, size_t *len, struct vw_err *err);

/* A variable of vw_template_expand(). */
struct vw_tvar {
	const char *name;	/* "ALLOW" for @ALLOW@ */
	const char *value;	/* inserted verbatim: the caller quotes */
};

/* Append text to out with every @NAME@ (NAME of [A-Z0-9_], starting with a
 * letter) replaced by its value; any other '@' is copied as is.  A NAME not
 * in vars is an error naming the template (tname), so that a typo in a
 * template never reaches a host.  Returns 0 or -EINVAL. */
int vw_template_expand(struct vw_buf *out, const char *text, size_t len,
		       const struct vw_tvar *vars, size_t nvars, const char *tname,
		       struct vw_err *err);

#endif
