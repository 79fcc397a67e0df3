/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vm_proxmox.c - the Proxmox VE back end of the VM step (docs/formats.md section 7).
 *
 * etc/pve/qemu-server/VMID.conf is "key: value" lines; leading "#" lines
 * are the description; "[PENDING]", "[special:...]" and "[snapshot]"
 * sections follow.  Only the main section is edited, line by line: every
 * line we do not set is kept byte for byte, the sections after it too.
 */
#include "vmplan.h"
#include "template.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bars.h"
#include "exec.h"
#include "storage.h"

#define CONF_MAX (1u << 20)
#define QEMU_DIR "etc/pve/qemu-server"

/* The main section as lines (no '\n'), the rest verbatim. */
struct conf {
	char **line;
	size_t n;
	char *rest;		/* from the first "[section]" line on, "" none */
	struct vw_buf cmds;	/* `qm set` equivalents of what changed */
	long vmid;
	bool changed;
};

static void conf_init(struct conf *c, long vmid)
{
	memset(c, 0, sizeof(*c));
	c->rest = vw_xstrdup("");
	c->vmid = vmid;
	vw_buf_adds(&c->cmds, "");
}

static void conf_done(struct conf *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->line[i]);
	free(c->line);
	free(c->rest);
	vw_buf_done(&c->cmds);
}

static void conf_insert(struct conf *c, size_t at, char *line)
{
	c->line = vw_xreallocarray(c->line, c->n + 1, sizeof(char *));
	memmove(c->line + at + 1, c->line + at, (c->n - at) * sizeof(char *));
	c->line[at] = line;
	c->n++;
}

/* Parse text; "##" lines are dropped when template is set. */
static void conf_parse(struct conf *c, const char *text, bool template)
{
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, "\n");

		if (*p == '[') {
			free(c->rest);
			c->rest = vw_xstrdup(p);
			return;
		}
		if (!(template && n >= 2 && p[0] == '#' && p[1] == '#'))
			conf_insert(c, c->n, vw_xstrndup(p, n));
		p += n;
		if (*p == '\n')
			p++;
	}
}

static char *conf_text(const struct conf *c, size_t *len)
{
	struct vw_buf b = VW_BUF_INIT;

	vw_buf_adds(&b, "");
	for (size_t i = 0; i < c->n; i++)
		vw_buf_printf(&b, "%s\n", c->line[i]);
	vw_buf_adds(&b, c->rest);
	*len = b.len;
	return vw_buf_steal(&b);
}

/* Length of the key of a "key: value" line, 0 when it is not one. */
static size_t key_len(const char *line)
{
	size_t n = 0;

	while (islower((unsigned char)line[n]) || isdigit((unsigned char)line[n]) || line[n] == '-' ||
	       line[n] == '_')
		n++;
	return n && line[n] == ':' ? n : 0;
}

static bool key_is(const char *line, const char *key)
{
	size_t n = key_len(line);

	return n && n == strlen(key) && memcmp(line, key, n) == 0;
}

/* Proxmox skips the blanks after the colon (its parser: "key:\s*value"). */
static const char *line_value(const char *line)
{
	const char *v = line + key_len(line) + 1;

	while (*v == ' ' || *v == '\t')
		v++;
	return v;
}

/* The line of key that counts: the last one, since Proxmox reads the lines
 * in order and a later one replaces an earlier one. */
static ssize_t conf_find(const struct conf *c, const char *key)
{
	for (size_t i = c->n; i-- > 0;)
		if (key_is(c->line[i], key))
			return (ssize_t)i;
	return -1;
}

static void conf_remove(struct conf *c, size_t i)
{
	free(c->line[i]);
	memmove(c->line + i, c->line + i + 1, (c->n - i - 1) * sizeof(char *));
	c->n--;
}

/* Drop the lines of key before the one that counts (dead copies), so that
 * what we set is what Proxmox reads and a second plan finds nothing to do.
 * Returns how many went. */
static size_t conf_drop_earlier(struct conf *c, const char *key)
{
	ssize_t last = conf_find(c, key);
	size_t gone = 0;

	for (size_t i = last > 0 ? (size_t)last : 0; i-- > 0;)
		if (key_is(c->line[i], key)) {
			conf_remove(c, i);
			gone++;
		}
	return gone;
}

static const char *conf_get(const struct conf *c, const char *key)
{
	ssize_t i = conf_find(c, key);

	return i < 0 ? NULL : line_value(c->line[i]);
}

static void add_cmd(struct conf *c, const char *opt, const char *value)
{
	char id[24], *o = vw_xasprintf("--%s", opt);
	const char *argv[] = { "qm", "set", id, o, value, NULL };
	char *cmd;

	snprintf(id, sizeof(id), "%ld", c->vmid);
	cmd = vw_exec_join(argv);
	vw_buf_printf(&c->cmds, "%s\n", cmd);
	free(cmd);
	free(o);
}

/* Set key to value (in place, else at its sorted place among the keys). */
static void conf_set(struct conf *c, const char *key, const char *value)
{
	ssize_t i = conf_find(c, key);
	size_t at = c->n, last = 0;
	bool any = false;

	if (i >= 0) {
		size_t gone = conf_drop_earlier(c, key);

		i -= (ssize_t)gone;
		if (!gone && strcmp(line_value(c->line[i]), value) == 0)
			return;
		free(c->line[i]);
		c->line[i] = vw_xasprintf("%s: %s", key, value);
	} else {
		for (size_t k = 0; k < c->n; k++) {
			size_t n = key_len(c->line[k]);
			char ek[64];

			if (!n)
				continue;
			any = true;
			last = k;
			snprintf(ek, sizeof(ek), "%.*s", (int)n, c->line[k]);
			if (at == c->n && strcmp(ek, key) > 0)
				at = k;
		}
		if (at == c->n) {
			at = any ? last + 1 : 0;
			/* After the description. */
			while (!any && at < c->n && c->line[at][0] == '#')
				at++;
		}
		conf_insert(c, at, vw_xasprintf("%s: %s", key, value));
	}
	c->changed = true;
	add_cmd(c, key, value);
}

/* Every line of key goes. */
static void conf_delete(struct conf *c, const char *key)
{
	ssize_t i;

	if (conf_find(c, key) < 0)
		return;
	while ((i = conf_find(c, key)) >= 0)
		conf_remove(c, (size_t)i);
	c->changed = true;
	add_cmd(c, "delete", key);
}

/* ---- the host ----------------------------------------------------------------- */

static bool pve_detect(const struct vw_sysroot *sr, const struct vw_facts *f)
{
	return (f && f->distro.proxmox) || vw_sysroot_is_dir(sr, "etc/pve") ||
	       vw_sysroot_exists(sr, "usr/sbin/qm");
}

static bool pve_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 63 || !isalnum((unsigned char)s[0]))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '.')
			return false;
	return true;
}

static int read_conf(const struct vw_sysroot *sr, long vmid, char **text, struct vw_err *err)
{
	char *rel = vw_xasprintf("%s/%ld.conf", QEMU_DIR, vmid);
	size_t len = 0;
	int rc = vw_sysroot_read(sr, rel, text, &len, CONF_MAX, err);

	if (rc == 0 && strlen(*text) != len) {
		rc = vw_err_set(err, -EINVAL, _("/%s holds a NUL byte: it is not a Proxmox configuration"),
				rel);
		free(*text);
		*text = NULL;
	}
	free(rel);
	return rc;
}

/* The VMID of this node's VM named name whose description says vfiowiz
 * made it (want_ours), or any VM so named; 0 when none. */
static long find_by_name(const struct vw_sysroot *sr, const char *name, bool want_ours)
{
	char **names = NULL;
	long found = 0;

	if (vw_sysroot_list(sr, QEMU_DIR, &names) < 0)
		return 0;
	for (size_t i = 0; names[i] && !found; i++) {
		char *end, *text = NULL;
		long id = strtol(names[i], &end, 10);
		struct conf c;
		const char *nm;

		if (end == names[i] || strcmp(end, ".conf") != 0 || id <= 0)
			continue;
		if (read_conf(sr, id, &text, NULL) < 0)
			continue;
		conf_init(&c, id);
		conf_parse(&c, text, false);
		nm = conf_get(&c, "name");
		if (nm && strcmp(nm, name) == 0 && (!want_ours || (c.n && strstr(c.line[0], "vfiowiz"))))
			found = id;
		conf_done(&c);
		free(text);
	}
	vw_strv_free(names);
	return found;
}

/* The first storage of storage.cfg that holds VM images, or NULL. */
static char *images_storage(const struct vw_sysroot *sr)
{
	char *text = NULL, *found = NULL, *cur = NULL;
	bool disabled = false, images = false;

	if (vw_sysroot_read(sr, "etc/pve/storage.cfg", &text, NULL, CONF_MAX, NULL) < 0)
		return NULL;
	for (char *line = text, *next; line && !found; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!isspace((unsigned char)line[0]) && strchr(line, ':')) {
			if (cur && images && !disabled)
				found = cur;
			else
				free(cur);
			cur = NULL;
			disabled = images = false;
			line = strchr(line, ':') + 1;
			cur = vw_xstrdup(vw_strtrim(line));
		} else {
			char *t = vw_strtrim(line);

			if (vw_startswith(t, "content") && isspace((unsigned char)t[7]))
				images = strstr(t, "images") != NULL;
			else if (vw_startswith(t, "disable"))
				disabled = true;
		}
	}
	if (!found && cur && images && !disabled)
		found = cur;
	else if (cur != found)
		free(cur);
	free(text);
	return found;
}

static char *node_name(const struct vw_sysroot *sr)
{
	char *h = vw_sysroot_read_line(sr, "etc/hostname");

	if (!h || !*h) {
		free(h);
		return vw_xstrdup("NODE");
	}
	h[strcspn(h, ".")] = '\0';
	return h;
}

/* A stable MAC in Proxmox's range (BC:24:11), so that planning twice gives
 * the same file. */
static char *stable_mac(const char *node, long vmid, const char *name)
{
	char *key = vw_xasprintf("%s/%ld/%s", node, vmid, name);
	uint32_t h = 2166136261u;

	for (const char *p = key; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	free(key);
	return vw_xasprintf("BC:24:11:%02X:%02X:%02X", (h >> 16) & 0xff, (h >> 8) & 0xff, h & 0xff);
}

/* "STORAGE:SIZE[,...]": Proxmox's syntax for "allocate a new volume". */
static bool is_allocation(const char *v)
{
	const char *colon = strchr(v, ':');
	size_t n;

	if (!colon || colon == v || !isalpha((unsigned char)v[0]) || memchr(v, '/', (size_t)(colon - v)))
		return false;
	n = strspn(colon + 1, "0123456789.");
	return n > 0 && (colon[1 + n] == '\0' || colon[1 + n] == ',');
}

/* ---- cluster resource mapping (vm { mapping = NAME }) ----------------------------- */

#define MAPPING_CFG "etc/pve/mapping/pci.cfg"

/* The ID of the k-th device the VM gets through the mapping: NAME, then
 * NAME-2, NAME-3... (one ID names one device on each node). */
static char *mapping_id(const char *name, size_t k)
{
	return k ? vw_xasprintf("%s-%zu", name, k + 1) : vw_xstrdup(name);
}

/* A "map" property string, its keys in the order Proxmox writes them; path
 * is a function, or a slot for all its functions (then d is its first). */
static char *map_value(const struct vw_pci_dev *d, const char *path, const char *node)
{
	struct vw_buf b = VW_BUF_INIT;

	vw_buf_printf(&b, "id=%04x:%04x", d->vendor, d->device);
	if (d->group >= 0)
		vw_buf_printf(&b, ",iommugroup=%d", d->group);
	vw_buf_printf(&b, ",node=%s,path=%s", node, path);
	if (d->has_subsys)
		vw_buf_printf(&b, ",subsystem-id=%04x:%04x", d->subvendor, d->subdevice);
	return vw_buf_steal(&b);
}

static char *slot_path(const struct vw_vm_slot *s)
{
	if (s->vf || !s->all_functions)
		return vw_xasprintf("%04x:%02x:%02x.%x", s->domain, s->bus, s->dev, s->vf ? s->func : 0);
	return vw_xasprintf("%04x:%02x:%02x", s->domain, s->bus, s->dev);
}

/* Does a map value name this node? */
static bool map_on_node(const char *v, const char *node)
{
	for (const char *k = v; (k = strstr(k, "node=")); k += 5)
		if ((k == v || k[-1] == ',') && !strncmp(k + 5, node, strlen(node)) &&
		    (k[5 + strlen(node)] == ',' || !k[5 + strlen(node)]))
			return true;
	return false;
}

/* Put this node's map line into section id of pci.cfg's text (*text, NULL
 * for no file; replaced): a new section, or a line added to the section
 * other nodes filled, "mdev 1" added when needed.  The same line there
 * already changes nothing; another device of this node under that ID is
 * refused: the ID is someone else's. */
static int mapping_merge(char **text, const char *id, const char *map, bool mdev, const char *node,
			 const char *where, struct vw_err *err)
{
	const char *t = *text ? *text : "", *p = t, *head_end = NULL, *ins = NULL, *sec_end = NULL;
	bool in = false, has_mdev = false, present = false;
	struct vw_buf b = VW_BUF_INIT;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p), hl = n;
		const char *next = p + n + (nl ? 1 : 0), *q = p + strspn(p, " \t");

		if (n && !isspace((unsigned char)*p)) {
			if (in)
				break;
			while (hl && isspace((unsigned char)p[hl - 1]))
				hl--;
			in = *p != '#' && hl == strlen(id) && !strncmp(p, id, hl);
			if (in)
				head_end = ins = sec_end = next;
		} else if (in && q < p + n) {
			if (!strncmp(q, "map ", 4)) {
				char *v = vw_xasprintf("%.*s", (int)(n - (size_t)(q + 4 - p)), q + 4);

				v[strcspn(v, " \t\r")] = '\0';
				if (map_on_node(v, node) && strcmp(v, map)) {
					int r = vw_err_set(err, -EEXIST,
							   _("%sthe resource mapping '%s' in /etc/pve/mapping/pci.cfg names another device on node %s already (map %s): choose another name in 'vm|mapping'"),
							   where, id, node, v);

					free(v);
					return r;
				}
				present = present || !strcmp(v, map);
				free(v);
				ins = next;
			} else if (!strncmp(q, "description ", 12) && ins == head_end) {
				ins = next;
			} else if (!strncmp(q, "mdev", 4)) {
				has_mdev = strstr(q, "1") != NULL;
			}
			sec_end = next;
		}
		p = next;
	}
	if (!head_end) {
		vw_buf_adds(&b, t);
		if (*t && t[strlen(t) - 1] != '\n')
			vw_buf_addc(&b, '\n');
		vw_buf_printf(&b, "%s%s\n\tmap %s\n%s", *t ? "\n" : "", id, map, mdev ? "\tmdev 1\n" : "");
	} else if (present && (has_mdev || !mdev)) {
		return 0;
	} else {
		vw_buf_printf(&b, "%.*s", (int)(ins - t), t);
		if (!present)
			vw_buf_printf(&b, "\tmap %s\n", map);
		vw_buf_printf(&b, "%.*s", (int)(sec_end - ins), ins);
		if (mdev && !has_mdev)
			vw_buf_adds(&b, "\tmdev 1\n");
		vw_buf_adds(&b, sec_end);
	}
	free(*text);
	*text = vw_buf_steal(&b);
	return 0;
}

/* The distinct mdev parents of the choices, in order: the index of the
 * k-th element's parent among them. */
static size_t mdev_parent_index(const struct vw_choices *ch, size_t k)
{
	char pk[16], pj[16];
	const char *type;
	size_t idx = 0;

	vw_mdev_split(ch->mdevs[k], pk, &type);
	for (size_t j = 0; j < k; j++) {
		bool first = true;

		vw_mdev_split(ch->mdevs[j], pj, &type);
		for (size_t i = 0; i < j && first; i++) {
			char pi[16];

			vw_mdev_split(ch->mdevs[i], pi, &type);
			first = strcmp(pi, pj) != 0;
		}
		if (!strcmp(pj, pk))
			return idx;
		idx += first;
	}
	return idx;
}

/* /etc/pve/mapping/pci.cfg with this node's entries for the VM's devices. */
static int plan_mapping(struct vw_plan *p, const struct vw_vm_ctx *ctx, const struct vw_vm_slot *slots,
			size_t nslots, const char *node, struct vw_vm_info *info, struct vw_err *err)
{
	const struct vw_choices *ch = ctx->choices;
	const char *name = ch->vm.mapping;
	char *text = NULL, where[300];
	size_t len;
	int rc = vw_plan_read(p, ctx->sr, MAPPING_CFG, &text, &len, err);

	if (rc == -ENOENT) {
		vw_err_clear(err);
		text = NULL;
		rc = 0;
	}
	vw_choices_where(ch, ch->mapping_line, where, sizeof(where));
	for (size_t s = 0; rc == 0 && s < nslots; s++) {
		char *id = mapping_id(name, s), *path = slot_path(&slots[s]);
		char *map = map_value(&ctx->facts->devs[slots[s].devs[0]], path, node);

		rc = mapping_merge(&text, id, map, false, node, where, err);
		free(id);
		free(path);
		free(map);
	}
	for (size_t k = 0; rc == 0 && k < ch->nmdevs; k++) {
		char parent[16], *id, *map;
		const char *type;
		int d;

		vw_mdev_split(ch->mdevs[k], parent, &type);
		d = vw_facts_find_dev(ctx->facts, parent);
		if (d < 0)
			continue;
		id = mapping_id(name, nslots + mdev_parent_index(ch, k));
		map = map_value(&ctx->facts->devs[d], parent, node);
		rc = mapping_merge(&text, id, map, true, node, where, err);
		free(id);
		free(map);
	}
	if (rc == 0 && text)
		rc = vw_plan_add_file(p, ctx->sr, MAPPING_CFG, text, strlen(text), 0640,
				      N_("Proxmox cluster resource mapping: this node's entry for each device of the VM"), err);
	if (rc >= 0) {
		vw_vm_info_note(info, _("The VM names its devices through the cluster resource mapping '%s' (/etc/pve/mapping/pci.cfg), filled for node %s: to let the VM run on another node, add that node's devices to the same mapping there (Datacenter, Resource Mappings)."),
				name, node);
		rc = 0;
	}
	free(text);
	return rc;
}

/* ---- hostpci --------------------------------------------------------------------- */

/* Does an existing hostpci value pass (a function of) slot s? */
static bool hostpci_has_slot(const char *value, const struct vw_vm_slot *s)
{
	char want[16], *copy = vw_xstrdup(value), *ids = copy;
	bool hit = false;

	if (s->vf)	/* a VF: that function only, not its PF's or siblings' */
		snprintf(want, sizeof(want), "%04x:%02x:%02x.%x", s->domain, s->bus, s->dev, s->func);
	else
		snprintf(want, sizeof(want), "%04x:%02x:%02x", s->domain, s->bus, s->dev);
	ids[strcspn(ids, ",")] = '\0';
	if (vw_startswith(ids, "host="))
		ids += 5;
	for (char *id = ids, *next; id && *id && !hit; id = next) {
		char full[32];

		next = strchr(id, ';');
		if (next)
			*next++ = '\0';
		/* The domain is optional. */
		snprintf(full, sizeof(full), "%s%s", strlen(id) <= 7 ? "0000:" : "", id);
		for (char *p = full; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		hit = strncmp(full, want, strlen(want)) == 0 &&
		      (full[strlen(want)] == '\0' || full[strlen(want)] == '.');
	}
	free(copy);
	return hit;
}

/* Is an existing hostpci value "mapping=id[,...]"? */
static bool hostpci_is_mapping(const char *value, const char *id)
{
	size_t n = strlen(id);

	return vw_startswith(value, "mapping=") && !strncmp(value + 8, id, n) &&
	       (value[8 + n] == ',' || !value[8 + n]);
}

/* id: the slot's mapping ID (named in place of the address), or NULL. */
static char *hostpci_value(const struct vw_facts *f, const struct vw_vm_slot *s, const char *id, bool pcie,
			   bool xvga)
{
	struct vw_buf b = VW_BUF_INIT;

	if (id) {
		vw_buf_printf(&b, "mapping=%s", id);
	} else if (s->all_functions) {
		vw_buf_printf(&b, "%04x:%02x:%02x", s->domain, s->bus, s->dev);
	} else {
		/* Some functions only: listed, Proxmox keeps them together. */
		for (size_t k = 0; k < s->ndevs; k++)
			vw_buf_printf(&b, "%s%s", k ? ";" : "", f->devs[s->devs[k]].addr);
	}
	if (pcie)
		vw_buf_adds(&b, ",pcie=1");
	if (xvga)
		vw_buf_adds(&b, ",x-vga=1");
	return vw_buf_steal(&b);
}

static int plan_hostpci(struct conf *c, const struct vw_vm_ctx *ctx, const struct vw_vm_slot *slots,
			size_t nslots, bool pcie, bool primary, const char *mapping, struct vw_err *err)
{
	int used[VW_PVE_MAX_HOSTPCI];
	bool xvga_done = false;

	for (int i = 0; i < VW_PVE_MAX_HOSTPCI; i++) {
		char key[16];

		snprintf(key, sizeof(key), "hostpci%d", i);
		used[i] = conf_get(c, key) ? -1 : 0;	/* -1: someone else's */
	}
	for (size_t s = 0; s < nslots; s++) {
		int at = -1;
		char key[16], *value, *id = *mapping ? mapping_id(mapping, s) : NULL;
		bool xvga = primary && slots[s].vga && !xvga_done;

		/* A mapping's path is a whole device or one function. */
		if (id && !slots[s].all_functions && slots[s].ndevs > 1) {
			free(id);
			return vw_err_set(err, -EINVAL,
					  _("a Proxmox resource mapping names a whole device or one function, and the VM gets %zu functions of %04x:%02x:%02x: choose them all, or one, or leave 'vm|mapping' out"),
					  slots[s].ndevs, slots[s].domain, slots[s].bus, slots[s].dev);
		}

		/* An entry that passes this slot already: ours from before. */
		for (int i = 0; i < VW_PVE_MAX_HOSTPCI; i++) {
			const char *v;

			snprintf(key, sizeof(key), "hostpci%d", i);
			v = conf_get(c, key);
			if (!v || used[i] > 0 || !(hostpci_has_slot(v, &slots[s]) || (id && hostpci_is_mapping(v, id))))
				continue;
			if (at < 0) {
				at = i;
			} else {
				conf_delete(c, key);
				used[i] = 0;
			}
		}
		for (int i = 0; i < VW_PVE_MAX_HOSTPCI && at < 0; i++)
			if (used[i] == 0)
				at = i;
		if (at < 0) {
			free(id);
			return vw_err_set(err, -ENOSPC,
					  _("the VM has no free hostpci entry left (Proxmox allows %d)"),
					  VW_PVE_MAX_HOSTPCI);
		}
		used[at] = 1;
		xvga_done |= xvga;
		value = hostpci_value(ctx->facts, &slots[s], id, pcie, xvga);
		free(id);
		if (!vw_pve_hostpci_valid(value, err)) {
			free(value);
			return -EINVAL;
		}
		snprintf(key, sizeof(key), "hostpci%d", at);
		conf_set(c, key, value);
		free(value);
	}
	return 0;
}

/* The choices' mediated devices: "hostpciN: PARENT,mdev=TYPE", Proxmox
 * makes each when the VM starts.  An entry with the same value is ours from
 * before (the same pair twice: two entries). */
static int plan_mdev_hostpci(struct conf *c, const struct vw_vm_ctx *ctx, bool pcie, const char *mapping,
			     size_t nslots, struct vw_err *err)
{
	bool mine[VW_PVE_MAX_HOSTPCI] = { false };

	for (size_t k = 0; k < ctx->choices->nmdevs; k++) {
		char parent[16], key[16], *value;
		const char *type;
		int at = -1;

		vw_mdev_split(ctx->choices->mdevs[k], parent, &type);
		if (*mapping) {
			char *id = mapping_id(mapping, nslots + mdev_parent_index(ctx->choices, k));

			value = vw_xasprintf("mapping=%s,mdev=%s%s", id, type, pcie ? ",pcie=1" : "");
			free(id);
		} else {
			value = vw_xasprintf("%s,mdev=%s%s", parent, type, pcie ? ",pcie=1" : "");
		}
		for (int i = 0; i < VW_PVE_MAX_HOSTPCI && at < 0; i++) {
			const char *v;

			snprintf(key, sizeof(key), "hostpci%d", i);
			v = conf_get(c, key);
			if (v && !mine[i] && !strcmp(v, value))
				at = i;
		}
		for (int i = 0; i < VW_PVE_MAX_HOSTPCI && at < 0; i++) {
			snprintf(key, sizeof(key), "hostpci%d", i);
			if (!conf_get(c, key))
				at = i;
		}
		if (at < 0) {
			free(value);
			return vw_err_set(err, -ENOSPC, _("the VM has no free hostpci entry left (Proxmox allows %d)"),
					  VW_PVE_MAX_HOSTPCI);
		}
		mine[at] = true;
		snprintf(key, sizeof(key), "hostpci%d", at);
		conf_set(c, key, value);
		free(value);
	}
	return 0;
}

/* cpu: keep the type and its other options, set hidden=1. */
static void plan_cpu_hidden(struct conf *c)
{
	const char *v = conf_get(c, "cpu");
	struct vw_buf b = VW_BUF_INIT;
	char *copy, *save = NULL;
	bool first = true;

	copy = vw_xstrdup(v && *v ? v : "host");
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (vw_startswith(t, "hidden="))
			continue;
		vw_buf_printf(&b, "%s%s", first ? "" : ",", t);
		first = false;
	}
	vw_buf_adds(&b, ",hidden=1");
	conf_set(c, "cpu", b.data);
	vw_buf_done(&b);
	free(copy);
}

/* Large BARs: phys-bits=host on cpu and OVMF's MMIO window through args.
 * Returns 0 or a negative code with err set. */
static int plan_bars(struct conf *c, const struct vw_vm_ctx *ctx)
{
	static const char key[] = "-fw_cfg name=opt/ovmf/X-PciMmio64Mb,";
	struct vw_vm_bars b;
	struct vw_buf out = VW_BUF_INIT;
	const char *v = conf_get(c, "cpu");
	char *copy, *save = NULL, *fw, *want, *hit;
	bool first = true;

	vw_vm_bars_get(ctx->facts, ctx->unit, &b);
	if (!b.mmio_mb)
		return 0;
	copy = vw_xstrdup(v && *v ? v : "host");
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (vw_startswith(t, "phys-bits="))
			continue;
		vw_buf_printf(&out, "%s%s", first ? "" : ",", t);
		first = false;
	}
	vw_buf_adds(&out, ",phys-bits=host");
	conf_set(c, "cpu", out.data);
	vw_buf_done(&out);
	free(copy);

	fw = vw_vm_mmio_fwcfg(&b);
	want = vw_xasprintf("-fw_cfg %s", fw);
	v = conf_get(c, "args");
	copy = vw_xstrdup(v ? v : "");
	if (!strstr(copy, want)) {
		while ((hit = strstr(copy, key))) {
			size_t n = strcspn(hit + sizeof(key) - 1, " ") + sizeof(key) - 1;

			memmove(hit, hit + n, strlen(hit + n) + 1);
		}
		vw_buf_adds(&out, vw_strtrim(copy));
		vw_buf_printf(&out, "%s%s", out.len ? " " : "", want);
		conf_set(c, "args", out.data);
		vw_buf_done(&out);
	}
	free(copy);
	free(want);
	free(fw);
	return 0;
}

/* The path of the directory storage name ("dir: name" ... "path P") in
 * storage.cfg; "local" is /var/lib/vz unless the file says otherwise.
 * NULL when unknown.  Caller frees. */
static char *dir_storage_path(const struct vw_sysroot *sr, const char *name)
{
	char *text = NULL, *found = NULL;
	bool in = false;

	if (vw_sysroot_read(sr, "etc/pve/storage.cfg", &text, NULL, CONF_MAX, NULL) == 0) {
		for (char *line = text, *next; line && !found; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			if (!isspace((unsigned char)line[0]) && strchr(line, ':')) {
				in = vw_startswith(line, "dir:") && !strcmp(vw_strtrim(strchr(line, ':') + 1), name);
			} else if (in) {
				char *t = vw_strtrim(line);

				if (vw_startswith(t, "path") && isspace((unsigned char)t[4]))
					found = vw_xstrdup(vw_strtrim(t + 4));
			}
		}
		free(text);
	}
	if (!found && !strcmp(name, "local"))
		found = vw_xstrdup("/var/lib/vz");
	return found;
}

/* An ISO of the answers as a Proxmox volume: STORAGE:iso/NAME stays (and
 * must exist when the storage is a directory we know); an absolute path in
 * a directory storage's template/iso/ becomes its volume.  Returns 0 with
 * *vol (caller frees), or a negative code with err set. */
static int iso_volume(const struct vw_sysroot *sr, const char *iso, const char *what, char **vol,
		      struct vw_err *err)
{
	const char *colon = strchr(iso, ':');
	char *storage, *dir, *file;
	int rc = 0;

	*vol = NULL;
	if (iso[0] == '/') {
		const char *slash = strrchr(iso, '/'), *iso_dir = strstr(iso, "/template/iso/");
		char *base = iso_dir ? vw_xstrndup(iso, (size_t)(iso_dir - iso)) : NULL;

		/* /var/lib/vz/template/iso/X.iso on the "local" storage. */
		dir = dir_storage_path(sr, "local");
		if (!base || slash != iso_dir + strlen("/template/iso") || !dir || strcmp(base, dir) != 0)
			rc = vw_err_set(err, -EINVAL,
					_("%s: Proxmox takes ISOs from a storage: copy %s to /var/lib/vz/template/iso/ and give local:iso/%s"),
					what, iso, slash + 1);
		else if ((rc = vw_vm_check_iso(sr, iso, what, err)) == 0)
			*vol = vw_xasprintf("local:iso/%s", slash + 1);
		free(base);
		free(dir);
		return rc;
	}
	storage = vw_xstrndup(iso, (size_t)(colon - iso));
	dir = dir_storage_path(sr, storage);
	file = dir ? vw_xasprintf("%s/template/%s", dir, colon + 1) : NULL;
	if (file && !vw_sysroot_exists(sr, file + 1))
		rc = vw_err_set(err, -ENOENT, _("%s: %s does not exist on this host (%s)"), what, iso, file);
	else
		*vol = vw_xstrdup(iso);
	free(file);
	free(dir);
	free(storage);
	return rc;
}

/* The installer (ide2, boots first) and virtio-win (ide0) CD-ROMs. */
static int plan_cdroms(struct conf *c, const struct vw_vm_ctx *ctx, struct vw_err *err)
{
	const struct vw_vm_choices *vm = &ctx->choices->vm;
	char *vol, *val;
	int rc;

	if (vm->virtio_iso[0]) {
		if ((rc = iso_volume(ctx->sr, vm->virtio_iso, _("virtio-win ISO"), &vol, err)) < 0)
			return rc;
		val = vw_xasprintf("%s,media=cdrom", vol);
		conf_set(c, "ide0", val);
		free(val);
		free(vol);
	}
	if (vm->install_iso[0]) {
		const char *boot = conf_get(c, "boot");

		if ((rc = iso_volume(ctx->sr, vm->install_iso, _("installer ISO"), &vol, err)) < 0)
			return rc;
		val = vw_xasprintf("%s,media=cdrom", vol);
		conf_set(c, "ide2", val);
		free(val);
		free(vol);
		if (!boot || !strstr(boot, "ide2")) {
			val = vw_xasprintf("order=ide2%s%s", boot && vw_startswith(boot, "order=") ? ";" : "",
					   boot && vw_startswith(boot, "order=") ? boot + 6 : "");
			conf_set(c, "boot", val);
			free(val);
		}
	}
	return 0;
}

/* ---- cluster mapping -------------------------------------------------------------- */

static void mapping_text(struct vw_buf *out, const struct vw_vm_ctx *ctx, const struct vw_vm_slot *slots,
			 size_t nslots, long vmid, const char *node)
{
	const struct vw_facts *f = ctx->facts;
	struct vw_buf cfg = VW_BUF_INIT;

	vw_buf_adds(&cfg, "");
	vw_buf_printf(out, "# %s\n",
		      _("On a cluster, resource mappings let the VM move to nodes that have the same devices:"));
	for (size_t s = 0; s < nslots; s++) {
		char *path = slots[s].vf ? vw_xasprintf("%04x:%02x:%02x.%x", slots[s].domain, slots[s].bus,
							 slots[s].dev, slots[s].func)
					 : vw_xasprintf("%04x:%02x:%02x", slots[s].domain, slots[s].bus, slots[s].dev);
		char *map = map_value(&f->devs[slots[s].devs[0]], path, node);

		vw_buf_printf(out, "pvesh create /cluster/mapping/pci --id vfiowiz-%ld-%zu --map %s\n", vmid,
			      s, map);
		vw_buf_printf(&cfg, "#   vfiowiz-%ld-%zu\n#   \tmap %s\n", vmid, s, map);
		free(path);
		free(map);
	}
	vw_buf_printf(out, "# %s\n%s", _("/etc/pve/mapping/pci.cfg then holds:"), cfg.data);
	vw_buf_printf(out, "# %s\n",
		      _("and the VM's hostpci entries take mapping=ID (in this order) in place of the address, their other options unchanged."));
	vw_buf_done(&cfg);
}

/* ---- the back end ------------------------------------------------------------------ */

struct disk_value {
	char *value;		/* for @DISK@ */
	char *create_cmd;	/* qemu-img create ..., or NULL */
};

/* reuse: the VM is ours from an earlier run, so an image at the path is the
 * one that run created. */
static int disk_value(const struct vw_vm_ctx *ctx, const char *storage, bool reuse,
		      struct disk_value *dv, struct vw_err *err)
{
	const struct vw_vm_choices *vm = &ctx->choices->vm;
	long gib = vm->storage_size_gib > 0 ? vm->storage_size_gib : VW_VM_DEFAULT_DISK_GIB;
	int rc = 0;

	memset(dv, 0, sizeof(*dv));
	switch (vm->storage_type) {
	case VW_STORAGE_QCOW2:
		if (!vm->storage_path[0]) {
			/* On a Proxmox storage: allocated by qm set. */
			dv->value = vw_xasprintf("%s:%ld", storage, gib);
			break;
		}
		if (reuse && vw_sysroot_exists(ctx->sr, vm->storage_path)) {
			dv->value = vw_xstrdup(vm->storage_path);
		} else {
			struct vw_image_info ii;

			rc = vw_storage_check_new_image(ctx->sr, vm->storage_path, (uint64_t)gib << 30, &ii,
							err);
			if (rc < 0)
				return rc;
			dv->create_cmd = vw_storage_qcow2_cmd(vm->storage_path, (uint64_t)gib << 30);
			dv->value = vw_xstrdup(vm->storage_path);
		}
		break;
	case VW_STORAGE_IMAGE: {
		struct vw_image_info ii;

		rc = vw_storage_check_image(ctx->sr, vm->storage_path, &ii, err);
		if (rc < 0)
			return rc;
		dv->value = vw_xstrdup(vm->storage_path);
		break;
	}
	case VW_STORAGE_DISK:
		rc = vw_vm_check_whole_disk(ctx->sr, vm->storage_path, err);
		if (rc < 0)
			return rc;
		dv->value = vw_xstrdup(vm->storage_path);
		break;
	}
	return 0;
}

/* The template's lines, expanded, as a conf. */
/* The q35 machine pinned to the host's QEMU ("pc-q35-8.1", from `kvm
 * --version`), as Proxmox pins it for Windows guests so that an upgrade of
 * QEMU does not change the guest's hardware; "q35" when unknown. */
static char *machine_type(const struct vw_sysroot *sr)
{
	const char *argv[] = { "kvm", "--version", NULL };
	struct vw_exec_result res;
	const char *v;
	unsigned maj, min;
	char *m = NULL;

	if (vw_exec_run(sr, argv, &res, NULL) == 0 && res.status == 0 &&
	    (v = strstr(res.output, "version ")) && sscanf(v + 8, "%u.%u", &maj, &min) == 2 && maj < 100 &&
	    min < 100)
		m = vw_xasprintf("pc-q35-%u.%u", maj, min);
	vw_exec_result_done(&res);
	return m ? m : vw_xstrdup("q35");
}

static int template_conf(struct conf *t, const struct vw_vm_ctx *ctx, long vmid, const char *storage,
			 const char *disk, const char *node, struct vw_err *err)
{
	const struct vw_vm_choices *vm = &ctx->choices->vm;
	const char *tname = vm->guest_os == VW_GUEST_WINDOWS ? "proxmox-windows.conf" : "proxmox-linux.conf";
	char cores[24], memory[24], *mac = stable_mac(node, vmid, vm->name), *text = NULL;
	struct vw_buf out = VW_BUF_INIT;
	size_t len;
	int rc;

	snprintf(cores, sizeof(cores), "%ld", vm->vcpus);
	snprintf(memory, sizeof(memory), "%ld", vm->memory_mib);
	{
		char *machine = machine_type(ctx->sr);
		const struct vw_tvar vars[] = {
			{ "NAME", vm->name }, { "CORES", cores }, { "MEMORY", memory },
			{ "STORAGE", storage }, { "DISK", disk }, { "MAC", mac },
			{ "MACHINE", machine },
		};

		rc = vw_template_load(tname, &text, &len, err);
		if (rc == 0)
			rc = vw_template_expand(&out, text, len, vars, VW_ARRAY_SIZE(vars), tname, err);
		free(machine);
	}
	if (rc == 0)
		conf_parse(t, out.data, true);
	free(text);
	free(mac);
	vw_buf_done(&out);
	return rc;
}

static void add_post_argv(struct vw_plan *p, const char *const *argv)
{
	char *cmd = vw_exec_join(argv);

	vw_plan_add_post(p, cmd);
	free(cmd);
}

static int pve_plan(struct vw_plan *p, const struct vw_vm_ctx *ctx, struct vw_vm_info *info,
		    struct vw_err *err)
{
	const struct vw_choices *ch = ctx->choices;
	const struct vw_vm_choices *vm = &ch->vm;
	const char *mapping = vm->mapping ? vm->mapping : "";
	bool code43 = vw_vm_code43(ch, ctx->facts, ctx->unit), primary = !ch->access.vnc;
	/* A new VM keeps its emulated display (Proxmox's console) for the
	 * installation when VNC was not chosen: the GPU is not primary yet. */
	bool install = !vm->existing && !ch->access.vnc &&
		       (vm->guest_os == VW_GUEST_WINDOWS || vm->install_iso[0]);
	bool reuse = false, q35;
	long vmid = vm->vmid;
	char *text = NULL, *path = NULL, *data = NULL, *storage = NULL, *node = node_name(ctx->sr);
	struct vw_vm_slot *slots = NULL;
	char **akey = vw_xcalloc(1, sizeof(char *)), **aval = vw_xcalloc(1, sizeof(char *));
	size_t nalloc = 0;	/* volumes to allocate with qm set */
	struct disk_value dv = { 0 };
	struct conf c;
	size_t nslots = vw_vm_slots(ctx->facts, ctx->unit, &slots), len;
	const char *v;
	int rc = 0;

	conf_init(&c, 0);
	if (vm->name[0] && !pve_name_ok(vm->name)) {
		rc = vw_err_set(err, -EINVAL,
				_("'%s' cannot be a Proxmox VM name: use letters, digits, '-' and '.' (a DNS name)"),
				vm->name);
		goto out;
	}
	if (!vm->existing && !vm->name[0]) {
		rc = vw_err_set(err, -EINVAL, _("a new VM needs a name"));
		goto out;
	}
	if (vm->existing) {
		if (vmid <= 0 && !(vmid = find_by_name(ctx->sr, vm->name, false))) {
			rc = vw_err_set(err, -ENOENT, _("this node has no VM named %s"), vm->name);
			goto out;
		}
		rc = read_conf(ctx->sr, vmid, &text, err);
		if (rc < 0)
			goto out;
		c.vmid = vmid;
		conf_parse(&c, text, false);
	} else {
		if (vmid <= 0)
			vmid = find_by_name(ctx->sr, vm->name, true);
		if (vmid > 0 && read_conf(ctx->sr, vmid, &text, NULL) == 0) {
			conf_parse(&c, text, false);
			reuse = c.n && strstr(c.line[0], "vfiowiz");
			if (!reuse) {
				rc = vw_err_set(err, -EEXIST,
						_("VMID %ld exists already and was not made by vfiowiz: choose it as an existing VM, or another VMID"),
						vmid);
				goto out;
			}
		}
		if (vmid <= 0)
			vmid = vw_pve_next_vmid(ctx->sr);
		c.vmid = vmid;
	}
	free(info->name);
	info->name = vw_xstrdup(vm->name[0] ? vm->name : (v = conf_get(&c, "name")) ? v : "");
	info->vmid = vmid;
	info->created = !vm->existing;
	path = vw_xasprintf("%s/%ld.conf", QEMU_DIR, vmid);
	free(info->config_path);
	info->config_path = vw_xstrdup(path);

	if (!vm->existing) {
		struct conf t;

		storage = images_storage(ctx->sr);
		if (!storage) {
			storage = vw_xstrdup("local-lvm");
			vw_vm_info_note(info, _("No storage for VM images was found in /etc/pve/storage.cfg: the EFI disk goes to local-lvm."));
		}
		rc = disk_value(ctx, storage, reuse, &dv, err);
		if (rc < 0)
			goto out;
		conf_init(&t, vmid);
		rc = template_conf(&t, ctx, vmid, storage, dv.value, node, err);
		for (size_t i = 0; rc == 0 && i < t.n; i++) {
			size_t kl = key_len(t.line[i]);
			char key[64];

			if (!kl) {
				/* The description: a new file takes the template's. */
				if (!reuse && t.line[i][0] == '#')
					conf_insert(&c, c.n, vw_xstrdup(t.line[i]));
				continue;
			}
			snprintf(key, sizeof(key), "%.*s", (int)kl, t.line[i]);
			if (is_allocation(line_value(t.line[i]))) {
				if (!conf_get(&c, key)) {
					akey = vw_xreallocarray(akey, nalloc + 2, sizeof(char *));
					aval = vw_xreallocarray(aval, nalloc + 2, sizeof(char *));
					akey[nalloc] = vw_xstrdup(key);
					aval[nalloc++] = vw_xstrdup(line_value(t.line[i]));
					akey[nalloc] = aval[nalloc] = NULL;
				}
				continue;
			}
			/* A volume planned by an earlier run stays as it is. */
			if (reuse && conf_get(&c, key) && (vw_startswith(key, "scsi") ||
							   vw_startswith(key, "efidisk")))
				continue;
			conf_set(&c, key, line_value(t.line[i]));
		}
		conf_done(&t);
		if (rc < 0)
			goto out;
	}

	q35 = (v = conf_get(&c, "machine")) && strstr(v, "q35");
	if (!q35)
		vw_vm_info_note(info, _("VM %ld uses the i440fx machine type: the GPU is passed without pcie=1. Switching an installed guest to q35 is left to you (Hardware, Machine)."),
				vmid);
	if (vm->existing && (!(v = conf_get(&c, "bios")) || strcmp(v, "ovmf") != 0))
		vw_vm_info_note(info, _("VM %ld boots with SeaBIOS and keeps it: switching an installed guest to OVMF would leave it unbootable."),
				vmid);
	{
		struct vw_vm_bars b;
		char max[32];

		vw_vm_bars_get(ctx->facts, ctx->unit, &b);
		if (b.large && (!q35 || !(v = conf_get(&c, "bios")) || strcmp(v, "ovmf") != 0)) {
			rc = vw_err_set(err, -EINVAL,
					_("VM %ld is not a q35 machine with OVMF (UEFI): a %s BAR cannot be mapped there; create a new VM instead"),
					vmid, vw_size_text(max, sizeof(max), b.max));
			goto out;
		}
	}
	if (install)
		primary = false;
	info->install_display = install;
	rc = plan_hostpci(&c, ctx, slots, nslots, q35, primary, mapping, err);
	if (rc == 0)
		rc = plan_mdev_hostpci(&c, ctx, q35, mapping, nslots, err);
	if (rc == 0 && *mapping)
		rc = plan_mapping(p, ctx, slots, nslots, node, info, err);
	if (rc < 0 || (rc = plan_bars(&c, ctx)) < 0 || (!vm->existing && (rc = plan_cdroms(&c, ctx, err)) < 0))
		goto out;
	if (code43)
		plan_cpu_hidden(&c);
	if (primary) {
		bool any_vga = false;

		for (size_t s = 0; s < nslots; s++)
			any_vga |= slots[s].vga;
		if (any_vga)
			conf_set(&c, "vga", "none");
	}

	data = conf_text(&c, &len);
	{
		struct vw_file_spec spec = {
			.path = path,
			.data = data,
			.len = len,
			.mode = 0640,
			.why = vm->existing ? N_("Proxmox VM: the GPU's functions added (main section only)")
					    : N_("new Proxmox VM with the GPU's functions"),
		};

		rc = vw_plan_add(p, ctx->sr, &spec, err);
	}
	if (rc < 0)
		goto out;
	if (rc > 0) {
		char id[24];

		snprintf(id, sizeof(id), "%ld", vmid);
		if (dv.create_cmd)
			vw_plan_add_post(p, dv.create_cmd);
		for (size_t i = 0; i < nalloc; i++) {
			char *opt = vw_xasprintf("--%s", akey[i]);
			const char *argv[] = { "qm", "set", id, opt, aval[i], NULL };

			add_post_argv(p, argv);
			free(opt);
		}
	}
	rc = 0;

	/* What a user would type instead. */
	free(info->commands);
	{
		struct vw_buf cmds = VW_BUF_INIT;

		vw_buf_adds(&cmds, "");
		if (!vm->existing && !reuse) {
			vw_buf_printf(&cmds, "qm create %ld", vmid);
			for (size_t i = 0; i < c.n; i++) {
				size_t kl = key_len(c.line[i]);
				char *o, *val;

				if (!kl)
					continue;
				o = vw_xasprintf("--%.*s", (int)kl, c.line[i]);
				{
					const char *argv[] = { o, line_value(c.line[i]), NULL };

					val = vw_exec_join(argv);
				}
				vw_buf_printf(&cmds, " \\\n  %s", val);
				free(val);
				free(o);
			}
			for (size_t i = 0; i < nalloc; i++)
				vw_buf_printf(&cmds, " \\\n  --%s %s", akey[i], aval[i]);
			vw_buf_adds(&cmds, "\n");
		} else {
			vw_buf_adds(&cmds, c.cmds.data);
		}
		if (vw_sysroot_exists(ctx->sr, "etc/pve/corosync.conf") && !*mapping)
			mapping_text(&cmds, ctx, slots, nslots, vmid, node);
		info->commands = vw_buf_steal(&cmds);
	}
	if (!vm->existing && vm->guest_os == VW_GUEST_WINDOWS && !vm->virtio_iso[0])
		vw_vm_info_note(info, _("Windows Setup needs the virtio-win drivers to see the virtio-scsi disk: add the Windows installer and the virtio-win ISO as CD-ROMs (Hardware, Add, CD/DVD Drive) before the first start."));
	if (vm->existing && (vm->install_iso[0] || vm->virtio_iso[0]))
		vw_vm_info_note(info, _("The ISOs are attached to new VMs only: add them to VM %ld with qm set %ld --ide2 VOLUME,media=cdrom."),
				vmid, vmid);
	if (install)
		vw_vm_info_note(info, _("For the installation VM %ld keeps its emulated display: use Proxmox's console (noVNC, in the web interface). Once Remote Desktop works, make the GPU the primary display: qm set %ld --vga none, and add x-vga=1 to the GPU's hostpci line (only for a GPU with a VGA function)."),
				vmid, vmid);
	if (ch->access.vnc)
		vw_vm_info_note(info, _("The emulated display stays (for Proxmox's console): the GPU is a second display. Without VNC in the answers the GPU becomes the primary display (x-vga=1, vga: none)."));
	vw_vm_info_note(info, _("Start the VM with: qm start %ld"), vmid);
out:
	free(data);
	free(text);
	free(path);
	free(storage);
	free(node);
	free(dv.value);
	free(dv.create_cmd);
	vw_strv_free(akey);
	vw_strv_free(aval);
	conf_done(&c);
	vw_vm_slots_free(slots, nslots);
	return rc;
}

const struct vw_vm_ops vw_vm_proxmox_ops = {
	.name = "proxmox",
	.label = N_("Proxmox VE"),
	.product = "Proxmox VE",
	.target = VW_VM_PROXMOX,
	.host_vnc = false,
	.nat_guest_net = false,
	.uses_vmid = true,
	.creates_mdevs = true,
	.looking_glass = false,
	.qemu_hooks = false,
	.pci_mapping = true,
	.vendor_vgpu = false,
	.iso_volumes = true,
	.about = N_("A Proxmox VE VM (q35, OVMF) with a hostpci entry per card: "
		    "/etc/pve/qemu-server/VMID.conf. noVNC shows only the emulated display, never the "
		    "passed-through GPU."),
	.absent = N_("Proxmox VE is not installed on this host: choose libvirt, or leave the name empty to "
		     "prepare only the host."),
	.detect = pve_detect,
	.plan = pve_plan,
};
