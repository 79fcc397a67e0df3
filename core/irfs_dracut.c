/* SPDX-License-Identifier: GPL-2.0-or-later */
/* irfs_dracut.c - Fedora/RHEL/openSUSE (and Debian with dracut): a drop-in
 * in /etc/dracut.conf.d/ (the name must end in .conf or dracut ignores it)
 * forces the vfio drivers into the image and installs our modprobe.d file,
 * which dracut copies by itself only in hostonly mode.
 *
 * dracut's files are shell with "+=", which augeas' Shellvars lens does not
 * read; ours is generated whole, and in the user's files only the word
 * vfio_virqfd is ever removed (line by line), when no installed kernel has
 * that module: dracut fails on it and the boot hangs. */
#include "hostplan.h"
#include "augedit.h"

#include <stdlib.h>
#include <string.h>

#define DIR "etc/dracut.conf.d"

static bool has_module(char *const *v, const char *m)
{
	for (size_t i = 0; v && v[i]; i++)
		if (!strcmp(v[i], m))
			return true;
	return false;
}

static bool word_end(char c)
{
	return c == '\0' || c == ' ' || c == '\t' || c == '"' || c == '\'' || c == '\n';
}

/* Remove the word vfio_virqfd from driver-list assignments; NULL when
 * nothing changed.  Caller frees. */
static char *drop_virqfd(const char *text)
{
	static const char *const keys[] = { "add_drivers", "force_drivers", "drivers", "filesystems" };
	struct vw_buf out = VW_BUF_INIT;
	bool changed = false;

	for (const char *p = text; *p;) {
		const char *eol = strchr(p, '\n'), *k = p;
		size_t len = eol ? (size_t)(eol - p + 1) : strlen(p);
		bool assign = false;

		while (*k == ' ' || *k == '\t')
			k++;
		for (size_t i = 0; i < VW_ARRAY_SIZE(keys); i++) {
			size_t n = strlen(keys[i]);
			if (!strncmp(k, keys[i], n) && (k[n] == '=' || (k[n] == '+' && k[n + 1] == '=')))
				assign = true;
		}
		for (size_t i = 0; i < len; i++) {
			static const char w[] = "vfio_virqfd";
			size_t wl = sizeof(w) - 1;

			if (assign && i + wl <= len && !strncmp(p + i, w, wl) &&
			    (i == 0 || word_end(p[i - 1])) && word_end(i + wl < len ? p[i + wl] : '\0')) {
				/* Take one blank with it when there is one. */
				if (i + wl < len && (p[i + wl] == ' ' || p[i + wl] == '\t'))
					i++;
				i += wl - 1;
				changed = true;
				continue;
			}
			vw_buf_addc(&out, p[i]);
		}
		p += len;
	}
	if (!changed) {
		vw_buf_done(&out);
		return NULL;
	}
	return out.data ? vw_buf_steal(&out) : vw_xstrdup("");
}

static int check_existing(struct vw_host *h, const char *const *post, struct vw_err *err)
{
	char **names = NULL;
	int n = vw_sysroot_list(h->sr, DIR, &names), r = 0;
	bool virqfd_ok = has_module(h->modules, "vfio_virqfd");

	if (n < 0)
		n = 0;	/* no drop-in directory: dracut.conf only */

	for (int i = -1; i < n && r >= 0; i++) {
		char *rel = i < 0 ? vw_xstrdup("etc/dracut.conf") : vw_xasprintf(DIR "/%s", names[i]);
		char *text = NULL, *fixed;
		size_t len = i < 0 ? 0 : strlen(names[i]);

		if (i >= 0 && !strcmp(rel, VW_DRACUT_DROPIN)) {
			free(rel);
			continue;
		}
		r = vw_host_read(h, rel, &text, err);
		if (r < 0 || !text) {
			free(rel);
			continue;
		}
		if (i >= 0 && (len < 6 || strcmp(names[i] + len - 5, ".conf"))) {
			if (strstr(text, "vfio"))
				vw_host_note(h, _("/%s mentions vfio but dracut ignores it: only files ending in .conf are read."),
					     rel);
		} else if (!virqfd_ok && (fixed = drop_virqfd(text))) {
			r = vw_host_put(h, rel, fixed, 0644,
					N_("Remove vfio_virqfd: kernels 6.2 and later have no such module, and dracut fails on it"),
					post, err);
			free(fixed);
		}
		free(text);
		free(rel);
	}
	vw_strv_free(names);
	return r < 0 ? r : 0;
}

static int plan(struct vw_host *h, struct vw_err *err)
{
	const char *const post[] = { h->rebuild, NULL };
	struct vw_buf b = VW_BUF_INIT;
	int r = check_existing(h, post, err);

	if (r < 0)
		return r;
	vw_buf_adds(&b, "# Written by vfiowiz (GPU passthrough); 'vfiowiz undo' takes it back.\n");
	if (!h->vfio_builtin) {
		vw_buf_adds(&b, "force_drivers+=\" ");
		for (size_t i = 0; h->modules[i]; i++)
			vw_buf_printf(&b, "%s ", h->modules[i]);
		vw_buf_adds(&b, "\"\n");
	}
	vw_buf_adds(&b, "install_items+=\" /" VW_MODPROBE_CONF " ");
	if (h->ids_conf)
		vw_buf_printf(&b, "/%s ", h->ids_conf);
	if (h->bind_script)
		vw_buf_adds(&b, "/" VW_BIND_SCRIPT " ");
	vw_buf_adds(&b, "\"\n");
	r = vw_host_put(h, VW_DRACUT_DROPIN, b.data, 0644,
			N_("Load the vfio drivers early and put our modprobe.d configuration into the initramfs (dracut drop-in)"),
			post, err);
	vw_buf_done(&b);
	return r < 0 ? r : 0;
}

static char *list_cmd(const struct vw_host *h)
{
	if (!*h->f->kernel.release)
		return NULL;
	return vw_xasprintf("lsinitrd /boot/initramfs-%s.img", h->f->kernel.release);
}

static const char *detect(const struct vw_facts *f, const struct vw_sysroot *sr)
{
	static const char *const files[] = { "usr/bin/dracut", "usr/sbin/dracut", "etc/dracut.conf", DIR };

	(void)f;
	for (size_t i = 0; i < VW_ARRAY_SIZE(files); i++)
		if (vw_sysroot_exists(sr, files[i]))
			return files[i];
	return NULL;
}

const struct vw_irfs_ops vw_irfs_dracut = {
	.id = VW_IRFS_DRACUT,
	.name = "dracut",
	.detect = detect,
	.plan = plan,
	.rebuild = "dracut -f --regenerate-all",
	.list_cmd = list_cmd,
	.lists_modprobe = true,
};
