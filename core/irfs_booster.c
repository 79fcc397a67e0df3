/* SPDX-License-Identifier: GPL-2.0-or-later */
/* irfs_booster.c - booster: /etc/booster.yaml's modules_force_load (a
 * comma-separated list) loads modules early; booster reads only the
 * "options" lines of /etc/modprobe.d.
 *
 * No augeas lens reads YAML reliably, and only one top-level key is ever
 * touched: that line is edited (or appended), every other line stays. */
#include "hostplan.h"
#include "augedit.h"

#include <stdlib.h>
#include <string.h>

#define CONF "etc/booster.yaml"
#define KEY "modules_force_load:"

static bool in_list(const char *list, const char *m)
{
	char *copy = vw_xstrdup(list), *tok, *save = NULL;
	bool found = false;

	for (tok = strtok_r(copy, ",", &save); tok && !found; tok = strtok_r(NULL, ",", &save))
		found = vw_kparam_eq(vw_strtrim(tok), m);
	free(copy);
	return found;
}

static int plan(struct vw_host *h, struct vw_err *err)
{
	const char *const post[] = { h->rebuild, NULL };
	char *text = NULL;
	struct vw_buf out = VW_BUF_INIT;
	bool found = false;
	int r;

	if (h->bind_script)
		vw_host_note(h, _("booster reads only the options lines of /etc/modprobe.d: the bind-by-address script runs once the real root loads vfio-pci. Keep the GPU drivers out of the booster image."));
	if (h->vfio_builtin)
		return 0;
	r = vw_host_read(h, CONF, &text, err);
	if (r < 0)
		return r;
	for (const char *p = text ? text : ""; *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		if (!found && !strncmp(p, KEY, strlen(KEY))) {
			/* value up to a comment (kept as written, with the blanks
			 * before it), unquoted */
			char *val = vw_xstrndup(p + strlen(KEY), len - strlen(KEY)), *hash = strchr(val, '#');
			char *v, *comment = NULL;
			struct vw_buf list = VW_BUF_INIT;

			if (hash) {
				char *c = hash;

				while (c > val && (c[-1] == ' ' || c[-1] == '\t'))
					c--;
				comment = vw_xstrdup(c);
				*c = '\0';
			}
			v = vw_strtrim(val);
			if ((*v == '"' || *v == '\'') && strlen(v) >= 2 && v[strlen(v) - 1] == *v) {
				v[strlen(v) - 1] = '\0';
				v++;
			}
			for (size_t i = 0; h->modules[i]; i++)
				if (!in_list(v, h->modules[i]))
					vw_buf_printf(&list, "%s%s", list.len ? "," : "", h->modules[i]);
			if (*v)
				vw_buf_printf(&list, "%s%s", list.len ? "," : "", v);
			vw_buf_printf(&out, KEY " %s%s", list.data ? list.data : "", comment ? comment : "");
			vw_buf_done(&list);
			free(comment);
			free(val);
			found = true;
		} else {
			vw_buf_add(&out, p, len);
		}
		if (eol)
			vw_buf_addc(&out, '\n');
		p = eol ? eol + 1 : p + len;
	}
	if (!found) {
		if (out.len && out.data[out.len - 1] != '\n')
			vw_buf_addc(&out, '\n');
		vw_buf_adds(&out, KEY " ");
		for (size_t i = 0; h->modules[i]; i++)
			vw_buf_printf(&out, "%s%s", i ? "," : "", h->modules[i]);
		vw_buf_addc(&out, '\n');
	}
	r = vw_host_put(h, CONF, out.data, 0644,
			N_("Load the vfio modules early, from the initramfs (booster's modules_force_load)"), post, err);
	vw_buf_done(&out);
	free(text);
	return r < 0 ? r : 0;
}

static char *list_cmd(const struct vw_host *h)
{
	(void)h;
	return vw_xstrdup("booster ls /boot/booster-linux.img");
}

static const char *detect(const struct vw_facts *f, const struct vw_sysroot *sr)
{
	static const char *const files[] = { CONF, "usr/bin/booster" };

	(void)f;
	for (size_t i = 0; i < VW_ARRAY_SIZE(files); i++)
		if (vw_sysroot_exists(sr, files[i]))
			return files[i];
	return NULL;
}

const struct vw_irfs_ops vw_irfs_booster = {
	.id = VW_IRFS_BOOSTER,
	.name = "booster",
	.detect = detect,
	.plan = plan,
	.rebuild = "/usr/lib/booster/regenerate_images",
	.list_cmd = list_cmd,
	.lists_modprobe = false,
};
