/* SPDX-License-Identifier: GPL-2.0-or-later */
/* irfs_initramfs_tools.c - Debian/Ubuntu/Proxmox: modules listed in
 * /etc/initramfs-tools/modules load early; mkinitramfs copies
 * /etc/modprobe.d/ by itself.  The modules file is edited through augeas'
 * Modules lens (the user's lines and comments stay); a hook (from
 * templates/initramfs-tools-hook) copies our bind script into the image
 * when binding by address. */
#include "hostplan.h"
#include "augedit.h"
#include "template.h"

#include <stdlib.h>
#include <string.h>

#define MODULES "etc/initramfs-tools/modules"

static const char *const header =
	"# List of modules that you want to include in your initramfs.\n"
	"# They will be loaded at boot time in the order below.\n";

static int plan(struct vw_host *h, struct vw_err *err)
{
	const char *const post[] = { h->rebuild, NULL };
	augeas *aug = vw_aug_handle(h->aug);
	char *text = NULL, *out = NULL;
	bool changed = false;
	int r, doc;

	r = vw_host_read(h, MODULES, &text, err);
	if (r < 0)
		return r;
	if (!h->vfio_builtin) {
		doc = vw_aug_load(h->aug, "Modules.lns", text ? text : header, "/" MODULES, err);
		free(text);
		if (doc < 0)
			return doc;
		for (size_t i = 0; h->modules[i]; i++) {
			char *alt = vw_xstrdup(h->modules[i]), *p;

			for (char *c = alt; *c; c++)
				if (*c == '_')
					*c = '-';
			if (vw_aug_count(h->aug, "%s/%s", vw_aug_tree(h->aug, doc), h->modules[i]) > 0 ||
			    vw_aug_count(h->aug, "%s/%s", vw_aug_tree(h->aug, doc), alt) > 0) {
				free(alt);
				continue;
			}
			p = vw_xasprintf("%s/%s", vw_aug_tree(h->aug, doc), h->modules[i]);
			aug_set(aug, p, NULL);
			free(p);
			free(alt);
			changed = true;
		}
		if (changed) {
			r = vw_aug_text(h->aug, doc, &out, err);
			if (r == 0)
				r = vw_host_put(h, MODULES, out, 0644,
						N_("Load the vfio modules early, from the initramfs, before any GPU driver"),
						post, err);
			free(out);
			if (r < 0)
				return r;
		}
	} else {
		free(text);
	}
	if (h->bind_script) {
		const struct vw_tvar vars[] = { { "BIND_SCRIPT", "/" VW_BIND_SCRIPT } };
		struct vw_buf b = VW_BUF_INIT;
		size_t len;

		r = vw_template_load("initramfs-tools-hook", &text, &len, err);
		if (r == 0)
			r = vw_template_expand(&b, text, len, vars, VW_ARRAY_SIZE(vars), "initramfs-tools-hook", err);
		if (r == 0)
			r = vw_host_put(h, VW_IRFS_HOOK, b.data, 0755,
					N_("Put the bind-by-address script into the initramfs, where vfio-pci first loads"),
					post, err);
		vw_buf_done(&b);
		free(text);
	} else if (vw_sysroot_exists(h->sr, VW_IRFS_HOOK))
		r = vw_plan_remove_file(h->plan, h->sr, VW_IRFS_HOOK,
					N_("Remove the initramfs hook of the bind-by-address script, no longer used"),
					err);
	return r < 0 ? r : 0;
}

static char *list_cmd(const struct vw_host *h)
{
	if (!*h->f->kernel.release)
		return NULL;
	return vw_xasprintf("lsinitramfs /boot/initrd.img-%s", h->f->kernel.release);
}

static const char *detect(const struct vw_facts *f, const struct vw_sysroot *sr)
{
	static const char *const files[] = { "usr/sbin/mkinitramfs", "etc/initramfs-tools/initramfs.conf", "etc/initramfs-tools" };

	(void)f;
	for (size_t i = 0; i < VW_ARRAY_SIZE(files); i++)
		if (vw_sysroot_exists(sr, files[i]))
			return files[i];
	return NULL;
}

const struct vw_irfs_ops vw_irfs_initramfs_tools = {
	.id = VW_IRFS_INITRAMFS_TOOLS,
	.name = "initramfs-tools",
	.detect = detect,
	.plan = plan,
	.rebuild = "update-initramfs -u -k all",
	.list_cmd = list_cmd,
	.lists_modprobe = true,
};
