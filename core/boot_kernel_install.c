/* SPDX-License-Identifier: GPL-2.0-or-later */
/* boot_kernel_install.c - kernel parameters for kernel-install: the command
 * line of kernels installed from now on comes from /etc/kernel/cmdline
 * (else /usr/lib/kernel/cmdline, else /proc/cmdline); the entries already
 * installed are edited too, so the next boot has the parameters without a
 * kernel reinstall.  The cmdline file goes through augeas' Cmdline lens for
 * parsing; tokens are edited by core/cmdline. */
#include "hostplan.h"
#include "augedit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Tokens of a live command line that do not belong in a cmdline file. */
static char *strip_boot_tokens(const char *line)
{
	struct vw_kedits e = { 0 };
	char *out, *t;

	vw_kedits_add(&e, VW_KOP_REMOVE, "BOOT_IMAGE", NULL, NULL);
	vw_kedits_add(&e, VW_KOP_REMOVE, "initrd", NULL, NULL);
	out = vw_cmdline_edit(line, &e, NULL);
	vw_kedits_done(&e);
	t = vw_xstrdup(vw_strtrim(out));
	free(out);
	return t;
}

int vw_boot_edit_cmdline_file(struct vw_host *h, const char *path, const char *why,
			      const char *const *post, struct vw_err *err)
{
	char *text = NULL, *line, *edited, *out, *disp;
	size_t len;
	int r, doc;

	r = vw_host_read(h, path, &text, err);
	if (r < 0)
		return r;
	if (!text) {
		char *base = NULL;

		if (vw_host_read(h, "usr/lib/kernel/cmdline", &base, NULL) == 0 && base)
			text = base;
		else
			text = strip_boot_tokens(h->f->kernel.cmdline);
		vw_host_note(h, _("/%s does not exist: it is created from the current command line, with the new parameters."),
			     path);
	}
	/* The lens is the parser of record for this file: refuse what it
	 * cannot read (several lines, binary junk) rather than guess. */
	disp = vw_xasprintf("/%s", path);
	doc = vw_aug_load(h->aug, "Cmdline.lns", text, disp, err);
	free(disp);
	if (doc < 0) {
		free(text);
		return doc;
	}
	len = strlen(text);
	line = vw_xstrndup(text, len && text[len - 1] == '\n' ? len - 1 : len);
	disp = vw_xasprintf("/%s", path);
	r = vw_cmdline_check(line, &h->kedits, disp, err);
	free(disp);
	if (r < 0) {
		free(line);
		free(text);
		return r;
	}
	h->removed_off |= vw_cmdline_needs_removal(line, &h->kedits);
	edited = vw_cmdline_edit(line, &h->kedits, NULL);
	out = vw_xasprintf("%s\n", edited);
	r = vw_host_put(h, path, out, 0644, why, post, err);
	free(out);
	free(edited);
	free(line);
	free(text);
	return r < 0 ? r : 0;
}

static int plan(struct vw_host *h, struct vw_err *err)
{
	const char *dir = vw_boot_entries_dir(h->sr);
	int r;

	r = vw_boot_edit_cmdline_file(h, "etc/kernel/cmdline",
				      N_("Kernel parameters for passthrough, for kernels installed from now on (kernel-install)"),
				      NULL, err);
	if (r == 0 && dir)
		r = vw_boot_edit_entries(h, dir,
					 N_("Kernel parameters for passthrough, in the boot entry already installed"),
					 err);
	if (r == 0 && dir)
		r = vw_boot_drop_test_entry(h, dir, err);
	return r;
}

static int plan_test(struct vw_host *h, struct vw_err *err)
{
	const char *dir = vw_boot_entries_dir(h->sr);

	if (!dir)
		return vw_err_set(err, -ENOENT, _("no boot entries found (loader/entries on the ESP)"));
	return vw_boot_plan_test_entry(h, dir, "bootctl set-oneshot " VW_TEST_ENTRY, err);
}

/* systemd-boot's evidence with etc/kernel/cmdline (kernel-install writes
 * the entries from it); or, with no boot entries yet, kernel-install with
 * that file and no GRUB (a unified kernel image set-up). */
static const char *detect(const struct vw_facts *f, const struct vw_sysroot *sr)
{
	const char *sd;

	if (!vw_sysroot_exists(sr, "etc/kernel/cmdline"))
		return NULL;
	if ((sd = vw_sdboot_evidence(f, sr)))
		return sd;
	if (vw_sysroot_exists(sr, "usr/bin/kernel-install") && !vw_sysroot_exists(sr, "etc/default/grub"))
		return "usr/bin/kernel-install";
	return NULL;
}

const struct vw_boot_ops vw_boot_kernel_install = {
	.id = VW_BL_KERNEL_INSTALL,
	.name = "kernel-install",
	.detect = detect,
	.plan = plan,
	.plan_test = plan_test,
};
