/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bind.c - vfio-pci binding, softdeps, blacklists, lockout protection. */
#include "bind.h"
#include "augedit.h"
#include "template.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The usual host drivers by vendor and class (vendor 0: any vendor). */
static const struct {
	unsigned vendor;
	unsigned cls, mask;
	const char *mods[3];
} drvtab[] = {
	{ 0x10de, 0x030000, 0xff0000, { "nvidia", "nouveau", NULL } },
	{ 0x1002, 0x030000, 0xff0000, { "amdgpu", "radeon", NULL } },
	{ 0x8086, 0x030000, 0xff0000, { "i915", "xe", NULL } },
	{ 0x1a03, 0x030000, 0xff0000, { "ast", NULL, NULL } },
	{ 0x102b, 0x030000, 0xff0000, { "mgag200", NULL, NULL } },
	{ 0, 0x040300, 0xffff00, { "snd_hda_intel", NULL, NULL } },
	{ 0, 0x0c0330, 0xffffff, { "xhci_pci", NULL, NULL } },
	{ 0x10de, 0x0c8000, 0xffff00, { "i2c_nvidia_gpu", "ucsi_ccg", NULL } },
};

/* Driver names that differ from their module's, for hosts (snapshots)
 * without sys/bus/pci/drivers/NAME/module. */
static const struct { const char *driver, *module; } drvmod[] = {
	{ "xhci_hcd", "xhci_pci" },
	{ "nvidia-gpu", "i2c_nvidia_gpu" },
	{ "ehci-pci", "ehci_pci" },
	{ "ohci-pci", "ohci_pci" },
	{ "snd_hda_intel", "snd_hda_intel" },
};

static const char *const never[] = { "vfio_pci", "pci_stub", "pcieport", "vfio_pci_core" };

static void norm_module(char *m)
{
	for (; *m; m++)
		if (*m == '-')
			*m = '_';
}

static void strv_add_once(char ***v, size_t *n, const char *s)
{
	char *m = vw_xstrdup(s);

	norm_module(m);
	for (size_t i = 0; i < VW_ARRAY_SIZE(never); i++)
		if (!strcmp(m, never[i])) {
			free(m);
			return;
		}
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i], m)) {
			free(m);
			return;
		}
	*v = vw_xreallocarray(*v, *n + 2, sizeof(char *));
	(*v)[(*n)++] = m;
	(*v)[*n] = NULL;
}

static bool strv_has(char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (vw_kparam_eq(v[i], s))
			return true;
	return false;
}

char **vw_bind_host_modules(const struct vw_facts *f, const struct vw_sysroot *sr,
			    const struct vw_pci_dev *d)
{
	char **v = vw_xcalloc(1, sizeof(char *));
	size_t n = 0;

	(void)f;
	if (*d->driver) {
		char *rel = vw_xasprintf("sys/bus/pci/drivers/%s/module", d->driver);
		char *mod = vw_sysroot_link_base(sr, rel);

		free(rel);
		if (!mod) {
			for (size_t i = 0; i < VW_ARRAY_SIZE(drvmod); i++)
				if (!strcmp(drvmod[i].driver, d->driver))
					mod = vw_xstrdup(drvmod[i].module);
		}
		strv_add_once(&v, &n, mod ? mod : d->driver);
		free(mod);
	}
	for (size_t i = 0; i < VW_ARRAY_SIZE(drvtab); i++) {
		if ((drvtab[i].vendor && drvtab[i].vendor != d->vendor) ||
		    (d->class_code & drvtab[i].mask) != drvtab[i].cls)
			continue;
		for (size_t k = 0; k < VW_ARRAY_SIZE(drvtab[i].mods) && drvtab[i].mods[k]; k++)
			strv_add_once(&v, &n, drvtab[i].mods[k]);
	}
	return v;
}

static bool chosen(const int *devs, size_t n, size_t i)
{
	for (size_t k = 0; k < n; k++)
		if (devs[k] == (int)i)
			return true;
	return false;
}

static const char *dev_name(const struct vw_pci_dev *d)
{
	return *d->device_name ? d->device_name : _("unknown device");
}

int vw_bind_check_lockout(const struct vw_facts *f, const struct vw_choices *c, const int *devs,
			  size_t n, struct vw_err *err)
{
	size_t kept = 0, taken = 0;
	const struct vw_pci_dev *last = NULL;
	char where[300];

	vw_choices_where(c, c->devices_line, where, sizeof(where));
	for (size_t k = 0; k < n; k++) {
		const struct vw_pci_dev *d = &f->devs[devs[k]];

		if (vw_dev_is_bridge(d))
			return vw_err_set(err, -EPERM,
					  _("%s%s is a PCI bridge (%s): bridges stay with the host; choose the devices behind it"),
					  where, d->addr, dev_name(d));
		if (d->boot_vga == 1 && !c->allow_host_display && c->gpu_mode != VW_GPU_DYNAMIC)
			return vw_err_set(err, -EPERM,
					  _("%s%s (%s) is the display the firmware boots on: giving it to vfio-pci leaves this host without a local screen after the reboot (the console goes dark; SSH still works). Set allow_host_display = true to do it anyway"),
					  where, d->addr, dev_name(d));
	}
	for (size_t i = 0; i < f->ndevs; i++) {
		if (!vw_dev_is_display(&f->devs[i]))
			continue;
		if (chosen(devs, n, i)) {
			taken++;
			last = &f->devs[i];
		} else {
			kept++;
		}
	}
	/* Dynamic: the host has its display back whenever the VM stops. */
	if (taken && !kept && !c->allow_host_display && c->gpu_mode != VW_GPU_DYNAMIC)
		return vw_err_set(err, -EPERM,
				  _("%s%s (%s) is the only display device of this host: giving it to vfio-pci leaves the host headless after the reboot (no local console; SSH still works). Set allow_host_display = true to do it anyway"),
				  where, last->addr, dev_name(last));
	/* "SSH still works" is the premise of that opt-in: at the console of a
	 * host with no SSH server, nothing could reach it after the reboot. */
	if (taken && !kept && c->gpu_mode != VW_GPU_DYNAMIC && !f->over_ssh && !f->distro.ssh_server)
		return vw_err_set(err, -EPERM,
				  _("%s%s (%s) is the only display device of this host, this session is not over SSH and this host has no SSH server (no sshd): after the reboot nothing could reach it. Install and enable one first (Debian, Ubuntu: apt install openssh-server; Fedora: systemctl enable --now sshd), check that you can log in over SSH, then plan again"),
				  where, last->addr, dev_name(last));
	return 0;
}

static void put_id(struct vw_buf *b, const struct vw_pci_dev *d, bool subsys)
{
	if (subsys)
		vw_buf_printf(b, "%04x:%04x:%04x:%04x", d->vendor, d->device, d->subvendor, d->subdevice);
	else
		vw_buf_printf(b, "%04x:%04x", d->vendor, d->device);
}

char *vw_bind_ids(const struct vw_facts *f, const int *devs, size_t n, char **clash)
{
	struct vw_buf out = VW_BUF_INIT;
	char **seen = NULL;
	size_t nseen = 0;

	*clash = NULL;
	for (size_t k = 0; k < n; k++) {
		const struct vw_pci_dev *d = &f->devs[devs[k]];
		bool need_sub = false;
		struct vw_buf id = VW_BUF_INIT;

		for (size_t i = 0; i < f->ndevs; i++) {
			const struct vw_pci_dev *o = &f->devs[i];

			if (chosen(devs, n, i) || o->vendor != d->vendor || o->device != d->device)
				continue;
			/* Same ids: only the subsystem ids may still tell them apart. */
			if (d->has_subsys && o->has_subsys &&
			    (o->subvendor != d->subvendor || o->subdevice != d->subdevice)) {
				need_sub = true;
				continue;
			}
			*clash = vw_xasprintf(_("%s has the same ids %04x:%04x as %s, and ids= would take it too"),
					      o->addr, d->vendor, d->device, d->addr);
			for (size_t s = 0; s < nseen; s++)
				free(seen[s]);
			free(seen);
			vw_buf_done(&out);
			return NULL;
		}
		/* A chosen device identical to one told apart by subsystem
		 * needs the long form too. */
		put_id(&id, d, need_sub);
		{
			bool dup = false;

			for (size_t s = 0; s < nseen; s++)
				dup = dup || !strcmp(seen[s], id.data);
			if (!dup) {
				seen = vw_xreallocarray(seen, nseen + 1, sizeof(char *));
				seen[nseen++] = vw_xstrdup(id.data);
				if (out.len)
					vw_buf_addc(&out, ',');
				vw_buf_adds(&out, id.data);
			}
		}
		vw_buf_done(&id);
	}
	for (size_t s = 0; s < nseen; s++)
		free(seen[s]);
	free(seen);
	if (!out.data)
		return vw_xstrdup("");
	return vw_buf_steal(&out);
}

/* ---- existing vfio-pci options in modprobe.d -------------------------------- */

struct existing {
	char *path;		/* "etc/modprobe.d/vfio.conf" */
	int doc;
	char *ids;		/* its ids= value */
};

/* The last "options vfio-pci ids=" in modprobe's reading order, outside
 * our own file.  Returns 0 (e->path NULL when none) or a parse error. */
static int find_existing(struct vw_host *h, struct existing *e, struct vw_err *err)
{
	char **names = NULL;
	int n = vw_sysroot_list(h->sr, "etc/modprobe.d", &names);

	if (n < 0)
		n = 0;	/* no directory: no file */

	memset(e, 0, sizeof(*e));
	e->doc = -1;
	for (int i = 0; i < n; i++) {
		size_t len = strlen(names[i]);
		char *rel, *text = NULL, *disp, *ids;
		int doc, r, cnt;

		if (len < 6 || strcmp(names[i] + len - 5, ".conf") || !strcmp(names[i], "vfiowiz.conf"))
			continue;
		rel = vw_xasprintf("etc/modprobe.d/%s", names[i]);
		r = vw_host_read(h, rel, &text, err);
		if (r < 0 || !text) {
			free(rel);
			if (r < 0) {
				vw_strv_free(names);
				return r;
			}
			continue;
		}
		disp = vw_xasprintf("/%s", rel);
		doc = vw_aug_load(h->aug, "Modprobe.lns", text, disp, err);
		free(disp);
		free(text);
		if (doc < 0) {
			free(rel);
			vw_strv_free(names);
			return doc;
		}
		cnt = vw_aug_count(h->aug, "%s/options[. = 'vfio-pci' or . = 'vfio_pci']/ids",
				   vw_aug_tree(h->aug, doc));
		if (cnt <= 0) {
			free(rel);
			continue;
		}
		ids = vw_aug_get(h->aug, "%s/options[. = 'vfio-pci' or . = 'vfio_pci'][ids][last()]/ids",
				 vw_aug_tree(h->aug, doc));
		free(e->path);
		free(e->ids);
		e->path = rel;
		e->doc = doc;
		e->ids = ids ? ids : vw_xstrdup("");
	}
	vw_strv_free(names);
	return 0;
}

/* Union of two comma lists, a's items first and as written; hex ids
 * compare without regard to case. */
static char *merge_ids(const char *a, const char *b)
{
	struct vw_buf out = VW_BUF_INIT;
	char *all = vw_xasprintf("%s,%s", a, b), *tok, *save = NULL;
	char **seen = NULL;
	size_t n = 0;

	for (tok = strtok_r(all, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool dup = false;

		tok = vw_strtrim(tok);
		if (!*tok)
			continue;
		for (size_t i = 0; i < n; i++)
			dup = dup || !strcasecmp(seen[i], tok);
		if (dup)
			continue;
		seen = vw_xreallocarray(seen, n + 1, sizeof(char *));
		seen[n++] = tok;
		if (out.len)
			vw_buf_addc(&out, ',');
		vw_buf_adds(&out, tok);
	}
	free(seen);
	free(all);
	return out.data ? vw_buf_steal(&out) : vw_xstrdup("");
}

/* ---- the plan ------------------------------------------------------------ */

enum mode { BY_IDS, BY_CMDLINE, BY_DRIVERCTL, BY_SCRIPT };

static const char *const header =
	"# Written by vfiowiz (GPU passthrough); 'vfiowiz undo' takes it back.\n";

static void addr_list(struct vw_buf *b, const struct vw_host *h)
{
	for (size_t k = 0; k < h->hp->ndevs; k++)
		vw_buf_printf(b, "%s%s", k ? " " : "", h->f->devs[h->hp->devs[k]].addr);
}

/* The bind script, from its template (templates/vfio-bind.sh). */
static int bind_script(const struct vw_host *h, char **out, struct vw_err *err)
{
	struct vw_buf addrs = VW_BUF_INIT, b = VW_BUF_INIT;
	char *text = NULL;
	size_t len;
	int r;

	*out = NULL;
	addr_list(&addrs, h);
	r = vw_template_load("vfio-bind.sh", &text, &len, err);
	if (r == 0) {
		const struct vw_tvar vars[] = { { "ADDRESSES", addrs.data } };

		r = vw_template_expand(&b, text, len, vars, VW_ARRAY_SIZE(vars), "vfio-bind.sh", err);
	}
	if (r == 0)
		*out = vw_buf_steal(&b);
	vw_buf_done(&b);
	vw_buf_done(&addrs);
	free(text);
	return r;
}

/* What a host role stands for, in the words of the refusal. */
static const char *role_words(unsigned role)
{
	if (role & VW_HOST_STORAGE)
		return _("its own disks");
	if (role & VW_HOST_NETWORK)
		return _("its network");
	return _("its only keyboard");
}

static int check_blacklist(struct vw_host *h, struct vw_err *err)
{
	const struct vw_facts *f = h->f;
	const struct vw_choices *c = h->c;

	for (size_t m = 0; m < c->nblacklist; m++) {
		const char *mod = c->blacklist[m];

		for (size_t i = 0; i < f->ndevs; i++) {
			const struct vw_pci_dev *d = &f->devs[i];
			char **mods;
			bool hit, drives;

			if (chosen(h->hp->devs, h->hp->ndevs, i))
				continue;
			mods = vw_bind_host_modules(f, h->sr, d);
			hit = strv_has(mods, mod);
			/* mods[0] is the module of its current driver (xhci_hcd
			 * is xhci_pci's), unless that driver is vfio-pci. */
			drives = *d->driver && ((mods[0] && vw_kparam_eq(mods[0], mod) &&
						 !vw_kparam_eq(d->driver, "vfio-pci")) ||
						vw_kparam_eq(d->driver, mod));
			vw_strv_free(mods);
			if ((hit || drives) && d->host_role) {
				char where[300];

				vw_choices_where(c, c->blacklist_line, where, sizeof(where));
				return vw_err_set(err, -EPERM,
						  _("%sblacklisting %s would also stop the driver of %s (%s), which the host needs for %s%s%s. Refused: remove it from 'blacklist'; the softdeps already make vfio-pci win for the chosen devices"),
						  where, mod, d->addr, dev_name(d), role_words(d->host_role),
						  d->host_role_why && *d->host_role_why ? ": " : "",
						  d->host_role_why ? d->host_role_why : "");
			}
			if (hit && vw_dev_is_display(d)) {
				char where[300];

				vw_choices_where(c, c->blacklist_line, where, sizeof(where));
				return vw_err_set(err, -EPERM,
						  _("%sblacklisting %s would also stop the driver of the host's own display %s (%s): refused. Remove it from 'blacklist'; the softdeps already make vfio-pci win for the chosen devices"),
						  where, mod, d->addr, dev_name(d));
			}
			if (drives)
				vw_host_note(h, _("Blacklisting %s also keeps it from %s (%s), which the host keeps."),
					     mod, d->addr, dev_name(d));
		}
	}
	return 0;
}

/* IOMMU group members that must go along. */
static void note_groups(struct vw_host *h)
{
	const struct vw_facts *f = h->f;

	for (size_t k = 0; k < h->hp->ndevs; k++) {
		const struct vw_pci_dev *d = &f->devs[h->hp->devs[k]];
		const struct vw_group *g = d->group >= 0 ? vw_facts_group(f, d->group) : NULL;
		bool first = true;

		if (!g)
			continue;
		/* Once per group: at its first chosen member. */
		for (size_t j = 0; j < k; j++)
			if (f->devs[h->hp->devs[j]].group == d->group)
				first = false;
		if (!first)
			continue;
		for (size_t m = 0; m < g->ndevs; m++) {
			const struct vw_pci_dev *o = &f->devs[g->devs[m]];

			if (chosen(h->hp->devs, h->hp->ndevs, (size_t)g->devs[m]) || vw_dev_is_bridge(o))
				continue;
			vw_host_note(h, _("IOMMU group %d also holds %s (%s), which is not chosen: the VM cannot start until it goes along too (or an ACS override splits the group)."),
				     g->id, o->addr, dev_name(o));
		}
	}
}

int vw_bind_plan(struct vw_host *h, struct vw_err *err)
{
	const struct vw_facts *f = h->f;
	const struct vw_choices *c = h->c;
	const char *const post[] = { h->rebuild, NULL };
	const char *const *posts = h->rebuild ? post : NULL;
	char **soft = vw_xcalloc(1, sizeof(char *));
	size_t nsoft = 0;
	struct existing ex = { 0 };
	struct vw_buf conf = VW_BUF_INIT;
	char *clash = NULL, *ids;
	enum mode mode;
	int r;

	ids = vw_bind_ids(f, h->hp->devs, h->hp->ndevs, &clash);
	switch (c->binding) {
	case VW_BIND_AUTO:
		if (ids)
			mode = h->vfio_builtin ? BY_CMDLINE : BY_IDS;
		else
			mode = f->distro.driverctl ? BY_DRIVERCTL : BY_SCRIPT;
		break;
	case VW_BIND_IDS:
	case VW_BIND_CMDLINE:
		if (!ids) {
			char where[300];

			r = vw_err_set(err, -EPERM, _("%sbinding = %s refused: %s. Use binding = address (or auto)"),
				       vw_choices_where(c, c->binding_line, where, sizeof(where)),
				       vw_binding_name(c->binding), clash);
			goto out;
		}
		mode = c->binding == VW_BIND_CMDLINE || h->vfio_builtin ? BY_CMDLINE : BY_IDS;
		if (c->binding == VW_BIND_IDS && h->vfio_builtin)
			vw_host_note(h, _("vfio-pci is built into this kernel: modprobe options do not reach it, so the ids go on the kernel command line (vfio-pci.ids=)."));
		break;
	default:
		mode = f->distro.driverctl ? BY_DRIVERCTL : BY_SCRIPT;
		break;
	}
	if (mode == BY_SCRIPT && h->vfio_builtin) {
		r = vw_err_set(err, -EPERM,
			       _("binding by address needs driverctl on this host: vfio-pci is built into the kernel, so modprobe never runs our bind script. Install driverctl and plan again"));
		goto out;
	}
	h->hp->by_address = mode == BY_DRIVERCTL || mode == BY_SCRIPT;
	if (clash && h->hp->by_address)
		vw_host_note(h, _("Binding by address: %s."), clash);

	r = check_blacklist(h, err);
	if (r < 0)
		goto out;
	note_groups(h);

	for (size_t k = 0; k < h->hp->ndevs; k++) {
		char **mods = vw_bind_host_modules(f, h->sr, &f->devs[h->hp->devs[k]]);

		for (size_t m = 0; mods[m]; m++)
			strv_add_once(&soft, &nsoft, mods[m]);
		vw_strv_free(mods);
	}

	vw_buf_adds(&conf, header);
	vw_buf_adds(&conf, "# Functions for vfio-pci: ");
	addr_list(&conf, h);
	vw_buf_addc(&conf, '\n');

	if (mode == BY_IDS) {
		r = find_existing(h, &ex, err);
		if (r < 0)
			goto out;
		if (ex.path) {
			/* A second ids= would replace the first (the last one
			 * wins): merge ours into the line already there. */
			char *merged = merge_ids(ex.ids, ids), *text = NULL, *path;
			augeas *aug = vw_aug_handle(h->aug);

			path = vw_xasprintf("%s/options[. = 'vfio-pci' or . = 'vfio_pci'][ids][last()]/ids",
					    vw_aug_tree(h->aug, ex.doc));
			aug_set(aug, path, merged);
			free(path);
			r = vw_aug_text(h->aug, ex.doc, &text, err);
			if (r == 0)
				r = vw_host_put(h, ex.path, text, 0,
						N_("Add the chosen devices' ids to the vfio-pci options already on this host (a second ids= line would replace them)"),
						posts, err);
			free(h->ids_conf);
			h->ids_conf = vw_xstrdup(ex.path);
			if (r > 0)
				vw_host_note(h, _("/%s already gives ids to vfio-pci (%s); the chosen ones are merged into that line: %s."),
					     ex.path, ex.ids, merged);
			free(text);
			free(merged);
			if (r < 0)
				goto out;
		} else {
			vw_buf_printf(&conf, "options vfio-pci ids=%s\n", ids);
		}
	} else if (mode == BY_CMDLINE) {
		vw_kedits_add(&h->kedits, VW_KOP_MERGE, "vfio-pci.ids", ids,
			      N_("bind the chosen devices to vfio-pci by id"));
	} else if (mode == BY_SCRIPT) {
		vw_buf_printf(&conf, "install vfio-pci /%s $CMDLINE_OPTS\n", VW_BIND_SCRIPT);
	}
	for (size_t i = 0; i < nsoft; i++)
		vw_buf_printf(&conf, "softdep %s pre: vfio-pci\n", soft[i]);
	for (size_t i = 0; i < c->nblacklist; i++)
		vw_buf_printf(&conf, "blacklist %s\n", c->blacklist[i]);

	if (mode == BY_SCRIPT) {
		char *script = NULL;

		r = bind_script(h, &script, err);
		if (r < 0)
			goto out;
		r = vw_host_put(h, VW_BIND_SCRIPT, script, 0755,
				N_("Bind the chosen functions to vfio-pci by address: another device on this host has the same ids, and ids= would take it too"),
				posts, err);
		free(script);
		if (r < 0)
			goto out;
		h->bind_script = true;
	} else if (vw_sysroot_exists(h->sr, VW_BIND_SCRIPT)) {
		r = vw_plan_remove_file(h->plan, h->sr, VW_BIND_SCRIPT,
					N_("Remove the bind-by-address script: the devices are bound by id now"), err);
		if (r < 0)
			goto out;
	}
	if (mode == BY_DRIVERCTL) {
		vw_host_note(h, _("driverctl applies its overrides when udev sees the devices; the softdeps load vfio-pci before the host drivers."));
		for (size_t k = 0; k < h->hp->ndevs; k++) {
			char *p = vw_xasprintf("etc/driverctl.d/pci-%s", f->devs[h->hp->devs[k]].addr);

			r = vw_host_put(h, p, "vfio-pci\n", 0644,
					N_("driverctl override: vfio-pci takes this function by address (another device on this host has the same ids)"),
					NULL, err);
			free(p);
			if (r < 0)
				goto out;
		}
	}

	r = vw_host_put(h, VW_MODPROBE_CONF, conf.data, 0644,
			mode == BY_IDS ? N_("vfio-pci takes the chosen devices by id, and loads before their host drivers (softdep)")
				       : N_("vfio-pci loads before the host drivers of the chosen devices (softdep)"),
			posts, err);
	if (r > 0)
		r = 0;
out:
	free(ids);
	free(clash);
	free(ex.path);
	free(ex.ids);
	vw_buf_done(&conf);
	vw_strv_free(soft);
	return r < 0 ? r : 0;
}
