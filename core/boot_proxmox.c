/* SPDX-License-Identifier: GPL-2.0-or-later */
/* boot_proxmox.c - Proxmox VE hosts whose ESPs proxmox-boot-tool manages.
 *
 * With systemd-boot (ZFS root on UEFI) the command line is the one line of
 * /etc/kernel/cmdline; with GRUB it is /etc/default/grub as usual.  Either
 * way `proxmox-boot-tool refresh` copies the result to every ESP. */
#include "hostplan.h"
#include "augedit.h"

#include <stdlib.h>

static int plan(struct vw_host *h, struct vw_err *err)
{
	static const char *const cmdline_post[] = { "proxmox-boot-tool refresh", NULL };
	static const char *const grub_post[] = { "update-grub", "proxmox-boot-tool refresh", NULL };

	if (vw_sysroot_exists(h->sr, "etc/kernel/cmdline"))
		return vw_boot_edit_cmdline_file(h, "etc/kernel/cmdline",
						 N_("Kernel parameters for passthrough (/etc/kernel/cmdline, copied to the ESPs by proxmox-boot-tool)"),
						 cmdline_post, err);
	return vw_boot_grub_plan_with(h, grub_post, false, err);
}

static const char *detect(const struct vw_facts *f, const struct vw_sysroot *sr)
{
	static const char *const uuids = "etc/kernel/proxmox-boot-uuids";

	(void)f;
	return vw_sysroot_exists(sr, uuids) ? uuids : NULL;
}

const struct vw_boot_ops vw_boot_proxmox = {
	.id = VW_BL_PROXMOX,
	.name = "proxmox-boot-tool",
	.detect = detect,
	.plan = plan,
	.plan_test = NULL,	/* refresh rewrites the ESPs' entries */
};
