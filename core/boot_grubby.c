/* SPDX-License-Identifier: GPL-2.0-or-later */
/* boot_grubby.c - Fedora/RHEL: GRUB reading Boot Loader Specification
 * entries from /boot/loader/entries, managed with grubby.
 *
 * The entries are edited directly (the same edit grubby --update-kernel=ALL
 * makes), and GRUB_CMDLINE_LINUX in /etc/default/grub (and /etc/kernel/cmdline
 * where it exists) so that kernels installed later get the parameters too.
 * Entries that take their options from grubenv ("$kernelopts", RHEL 8) are
 * left to grubby itself, as a post-command. */
#include "hostplan.h"
#include "augedit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define ENTRIES "boot/loader/entries"

static bool uses_kernelopts(struct vw_host *h)
{
	char **names = NULL;
	int n = vw_sysroot_list(h->sr, ENTRIES, &names);
	bool found = false;

	for (int i = 0; i < n && !found; i++) {
		char *rel = vw_xasprintf("%s/%s", ENTRIES, names[i]), *text = NULL;

		if (vw_host_read(h, rel, &text, NULL) == 0 && text)
			found = strstr(text, "$kernelopts") != NULL;
		free(text);
		free(rel);
	}
	vw_strv_free(names);
	return found;
}

static char *grubby_cmd(const struct vw_host *h)
{
	struct vw_buf add = VW_BUF_INIT, rm = VW_BUF_INIT;
	char *missing = vw_cmdline_missing("", &h->kedits), *cmd;

	for (size_t i = 0; i < h->kedits.n; i++)
		if (h->kedits.v[i].op == VW_KOP_REMOVE && h->kedits.v[i].value)
			vw_buf_printf(&rm, "%s%s=%s", rm.len ? " " : "", h->kedits.v[i].key,
				      h->kedits.v[i].value);
	vw_buf_adds(&add, missing);
	cmd = vw_xasprintf("grubby --update-kernel=ALL --remove-args=\"%s\" --args=\"%s\"",
			   rm.data ? rm.data : "", add.data ? add.data : "");
	vw_buf_done(&add);
	vw_buf_done(&rm);
	free(missing);
	return cmd;
}

static int plan(struct vw_host *h, struct vw_err *err)
{
	bool kernelopts = uses_kernelopts(h);
	char *cmd = kernelopts ? grubby_cmd(h) : NULL;
	const char *const post[] = { cmd, NULL };
	int r;

	/* GRUB_CMDLINE_LINUX is what grubby and kernel-install use for new
	 * kernels on these systems. */
	r = vw_boot_grub_plan_with(h, kernelopts ? post : NULL, true, err);
	if (r == 0 && vw_sysroot_exists(h->sr, "etc/kernel/cmdline"))
		r = vw_boot_edit_cmdline_file(h, "etc/kernel/cmdline",
					      N_("Kernel parameters for passthrough, for kernels installed from now on"),
					      NULL, err);
	if (r == 0 && kernelopts)
		vw_host_note(h, _("The boot entries take their options from grubenv ($kernelopts): grubby changes them after the files are written."));
	else if (r == 0)
		r = vw_boot_edit_entries(h, ENTRIES,
					 N_("Kernel parameters for passthrough, in the boot entry (as grubby --update-kernel=ALL would)"),
					 err);
	if (r == 0)
		r = vw_boot_drop_test_entry(h, ENTRIES, err);
	free(cmd);
	return r;
}

static int plan_test(struct vw_host *h, struct vw_err *err)
{
	if (uses_kernelopts(h))
		return vw_err_set(err, -ENOTSUP,
				  _("test_boot: these boot entries take their options from grubenv; set test_boot = false"));
	/* GRUB with blscfg boots a BLS entry by its file name once. */
	return vw_boot_plan_test_entry(h, ENTRIES, "grub2-reboot vfiowiz-test", err);
}

static const char *detect(const struct vw_facts *f, const struct vw_sysroot *sr)
{
	static const char *const bins[] = { "usr/sbin/grubby", "sbin/grubby", "usr/bin/grubby" };

	(void)f;
	if (!vw_sysroot_is_dir(sr, ENTRIES))
		return NULL;
	for (size_t i = 0; i < VW_ARRAY_SIZE(bins); i++)
		if (vw_sysroot_exists(sr, bins[i]))
			return bins[i];
	return NULL;
}

const struct vw_boot_ops vw_boot_grubby = {
	.id = VW_BL_GRUBBY,
	.name = "grubby",
	.detect = detect,
	.plan = plan,
	.plan_test = plan_test,
};
