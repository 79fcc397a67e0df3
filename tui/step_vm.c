/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_vm.c - step 5: the VM that gets the devices (libvirt or Proxmox VE,
 * new or existing), its size, guest system, the "Code 43" options and its
 * disk. */
#include "wizard.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "storage.h"
#include "vmplan.h"

enum {
	T_EXISTING = 1, T_NAME, T_VMID, T_MEM, T_CPUS, T_WIN, T_LINUX, T_HIDE,
	T_QCOW, T_IMAGE, T_DISK, T_SIZE, T_PATH, T_DISKSEL, T_ISO, T_VIRTIO,
	T_TARGET = 1000,	/* + enum vw_vm_target */
};

struct vm {
	struct vw_listdetails ld;	/* first: vw_ld_editing() */
	struct vw_storage st;
	bool st_ok;
	char **disks;		/* usable whole disks ("/dev/disk/by-id/..." or /dev/sdX) */
	size_t ndisks;
	long ram_mib;		/* the host's memory (facts), 0 unknown */
	unsigned has_target;	/* bit per enum vw_vm_target: installed here */
};

/* The back end of target t, NULL when there is none: the targets are
 * offered in the order of enum vw_vm_target. */
static const struct vw_vm_ops *target_ops(int t)
{
	for (size_t i = 0; vw_vm_backends[i]; i++)
		if ((int)vw_vm_backends[i]->target == t)
			return vw_vm_backends[i];
	return NULL;
}

static bool installed(const struct vm *p, enum vw_vm_target t)
{
	return p->has_target & (1u << t);
}

static struct vw_item *field(struct vm *p, int tag, const char *label, const char *value, size_t max)
{
	struct vw_item *it = vw_list_add(&p->ld.list, VW_ITEM_FIELD, tag, label);

	vw_field_done(&it->field);
	vw_field_init(&it->field, value, max, false);
	return it;
}

static struct vw_item *numfield(struct vm *p, int tag, const char *label, long v)
{
	char num[32];

	snprintf(num, sizeof(num), "%ld", v);
	return field(p, tag, label, num, 9);
}

static void build_list(struct vm *p, const struct vw_ctx *ctx)
{
	const struct vw_choices *c = ctx->ch;
	int keep = vw_list_current(&p->ld.list) ? vw_list_current(&p->ld.list)->tag : T_NAME;
	const struct vw_vm_ops *ops;
	struct vw_item *it;

	vw_list_clear(&p->ld.list);
	for (int t = 0; (ops = target_ops(t)); t++) {
		it = vw_list_add(&p->ld.list, VW_ITEM_RADIO, T_TARGET + t, _(ops->label));
		it->on = c->vm.target == ops->target;
		it->group = 1;
		vw_item_note(it, installed(p, ops->target) ? _("found on this host") : _("not installed"));
	}
	it = vw_list_add(&p->ld.list, VW_ITEM_CHECK, T_EXISTING, _("Change an existing VM instead of making a new one"));
	it->on = c->vm.existing;
	field(p, T_NAME, _("Name"), c->vm.name, 64);
	if (vw_vm_ops_get(c->vm.target)->uses_vmid)
		numfield(p, T_VMID, _("VMID (0: the next free one)"), c->vm.vmid);
	numfield(p, T_MEM, _("Memory (MiB)"), c->vm.memory_mib);
	numfield(p, T_CPUS, _("Virtual CPUs"), c->vm.vcpus);
	it = vw_list_add(&p->ld.list, VW_ITEM_RADIO, T_WIN, _("Windows guest"));
	it->on = c->vm.guest_os == VW_GUEST_WINDOWS;
	it->group = 2;
	it = vw_list_add(&p->ld.list, VW_ITEM_RADIO, T_LINUX, _("Linux guest"));
	it->on = c->vm.guest_os == VW_GUEST_LINUX;
	it->group = 2;
	it = vw_list_add(&p->ld.list, VW_ITEM_CHECK, T_HIDE, _("\"Code 43\" options: hide KVM, Hyper-V vendor id"));
	it->on = c->vm.hide_kvm;
	if (!c->vm.existing) {
		vw_list_add(&p->ld.list, VW_ITEM_HEADING, 0, _("Disk"));
		it = vw_list_add(&p->ld.list, VW_ITEM_RADIO, T_QCOW, _("A new qcow2 image"));
		it->on = c->vm.storage_type == VW_STORAGE_QCOW2;
		it->group = 3;
		it = vw_list_add(&p->ld.list, VW_ITEM_RADIO, T_IMAGE, _("An existing image file"));
		it->on = c->vm.storage_type == VW_STORAGE_IMAGE;
		it->group = 3;
		it = vw_list_add(&p->ld.list, VW_ITEM_RADIO, T_DISK, _("A whole disk"));
		it->on = c->vm.storage_type == VW_STORAGE_DISK;
		it->group = 3;
		it->disabled = !p->ndisks && c->vm.storage_type != VW_STORAGE_DISK;
		if (it->disabled)
			vw_item_note(it, _("no free disk"));
		switch (c->vm.storage_type) {
		case VW_STORAGE_QCOW2:
			numfield(p, T_SIZE, _("Size (GiB)"),
				 c->vm.storage_size_gib ? c->vm.storage_size_gib : VW_VM_DEFAULT_DISK_GIB);
			field(p, T_PATH, _("Image file (empty: the default)"), c->vm.storage_path, 4096);
			break;
		case VW_STORAGE_IMAGE:
			field(p, T_PATH, _("Image file"), c->vm.storage_path, 4096);
			break;
		case VW_STORAGE_DISK: {
			size_t cur = 0;

			for (size_t i = 0; i < p->ndisks; i++)
				if (!strcmp(p->disks[i], c->vm.storage_path))
					cur = i;
			if (p->ndisks) {
				it = vw_list_add(&p->ld.list, VW_ITEM_CYCLE, T_DISKSEL, _("Disk"));
				vw_item_values(it, (const char *const *)p->disks, p->ndisks, cur);
			}
			break;
		}
		}
		/* Installation media: a path on this host (libvirt), or a
		 * volume of a Proxmox storage (local:iso/NAME.iso). */
		vw_list_add(&p->ld.list, VW_ITEM_HEADING, 0, _("Installation media (CD-ROMs)"));
		field(p, T_ISO, _("Installer ISO (empty: none)"), c->vm.install_iso, 4096);
		field(p, T_VIRTIO, _("virtio-win ISO (empty: none)"), c->vm.virtio_iso, 4096);
	}
	vw_list_align(&p->ld.list);
	vw_list_select(&p->ld.list, keep);
	vw_ld_stale(&p->ld);
}

static void disk_details(struct vm *p, struct vw_text *t, const char *path)
{
	char size[32];

	if (!p->st_ok)
		return;
	vw_text_add(t, VW_C_HEADING, 0, _("Disks of this host"));
	for (size_t i = 0; i < p->st.ndisks; i++) {
		const struct vw_blk_disk *d = &p->st.disks[i];

		vw_storage_human_size(d->size, size, sizeof(size));
		vw_text_addf(t, d->usable ? (!strcmp(path, d->dev) || !strcmp(path, d->by_id) ? VW_C_OK : VW_C_NORMAL)
				 : VW_C_DIM, 6, "  %-8s %9s  %s%s%s", d->name, size, d->model,
			     d->usable ? "" : " - ", d->usable ? "" : d->refusal);
	}
	if (!p->st.ndisks)
		vw_text_add(t, VW_C_DIM, 0, _("No disks found."));
}

static void fill_details(struct vm *p, const struct vw_ctx *ctx)
{
	const struct vw_choices *c = ctx->ch;
	const struct vw_vm_ops *ops;
	struct vw_item *it;
	struct vw_text *t = &p->ld.details;
	int tag;

	if (!vw_ld_follow(&p->ld, ctx, &it))
		return;
	tag = it ? it->tag : -1;
	if (tag >= T_TARGET && (ops = target_ops(tag - T_TARGET))) {
		vw_text_add(t, VW_C_NORMAL, 0, _(ops->about));
		if (!installed(p, ops->target))
			vw_text_add(t, VW_C_WARN, 0, _(ops->absent));
		return;
	}
	switch (tag) {
	case T_EXISTING:
		vw_text_add(t, VW_C_NORMAL, 0,
			    _("Add the devices to a VM you already have (by its name, or VMID on Proxmox): "
			      "everything else in it is kept."));
		break;
	case T_NAME:
		vw_text_add(t, VW_C_NORMAL, 0,
			    _("Letters, digits, '.', '_', '+' and '-'. Leave it empty to prepare the host only, "
			      "without a VM."));
		break;
	case T_VMID:
		vw_text_addf(t, VW_C_NORMAL, 0, _("The next free VMID on this host is %ld."),
			     vw_pve_next_vmid(ctx->sr));
		break;
	case T_MEM:
	case T_CPUS:
		vw_text_add(t, VW_C_NORMAL, 0,
			    _("Leave enough to the host: a few GiB of memory and a core or two."));
		if (p->ram_mib) {
			vw_text_addf(t, VW_C_NORMAL, 0, _("This host has %ld MiB of memory."), p->ram_mib);
			/* TRANSLATORS: the VM's memory is pinned while a device is passed through */
			vw_text_addf(t, VW_C_NORMAL, 0, _("A VM with a passed-through device keeps all its memory: give it at most %ld MiB."),
				     vw_vm_memory_max(ctx->facts));
		}
		break;
	case T_WIN:
	case T_LINUX:
		vw_text_add(t, VW_C_NORMAL, 0,
			    _("The guest system decides the Hyper-V options and the remote access offered in the "
			      "next step."));
		break;
	case T_HIDE:
		vw_text_add(t, VW_C_NORMAL, 0,
			    _("NVIDIA drivers before R465 stop with \"Code 43\" when they see a hypervisor: these "
			      "options hide it (KVM hidden state, a Hyper-V vendor id). Harmless otherwise; used "
			      "for Windows guests with NVIDIA cards."));
		break;
	case T_QCOW:
	case T_SIZE:
		vw_text_addf(t, VW_C_NORMAL, 0,
			     _("qemu-img creates a qcow2 image of this size, growing on demand; default place: "
			       "/var/lib/libvirt/images/%s.qcow2."), *c->vm.name ? c->vm.name : "NAME");
		break;
	case T_IMAGE:
	case T_PATH:
		vw_text_add(t, VW_C_NORMAL, 0, _("The absolute path of an image on this host (qcow2 or raw)."));
		break;
	case T_DISK:
	case T_DISKSEL:
		vw_text_add(t, VW_C_NORMAL, 0,
			    _("The VM gets a whole disk. Disks the host uses (mounted, swap, LVM, RAID, in fstab) "
			      "are refused."));
		disk_details(p, t, c->vm.storage_path);
		break;
	default:
		break;
	}
}

static int enter(void *priv, struct vw_ctx *ctx, struct vw_err *err)
{
	struct vm *p = priv;

	(void)err;
	vw_ld_init(&p->ld);
	p->st_ok = vw_storage_list(ctx->sr, &p->st, NULL) == 0;
	p->ram_mib = ctx->facts->ram_mib;
	for (size_t i = 0; vw_vm_backends[i]; i++)
		if (vw_vm_backends[i]->detect(ctx->sr, ctx->facts))
			p->has_target |= 1u << vw_vm_backends[i]->target;
	/* The default is what is installed (the first in detection order):
	   Proxmox VE on a Proxmox host. */
	for (size_t i = 0; !installed(p, ctx->ch->vm.target) && vw_vm_backends[i]; i++)
		if (installed(p, vw_vm_backends[i]->target)) {
			ctx->ch->vm.target = vw_vm_backends[i]->target;
			ctx->dirty = true;
		}
	for (size_t i = 0; p->st_ok && i < p->st.ndisks; i++) {
		const struct vw_blk_disk *d = &p->st.disks[i];

		if (!d->usable)
			continue;
		p->disks = vw_xreallocarray(p->disks, p->ndisks + 1, sizeof(char *));
		p->disks[p->ndisks++] = vw_xstrdup(*d->by_id ? d->by_id : d->dev);
	}
	build_list(p, ctx);
	return 0;
}

static void draw(void *priv, const struct vw_ctx *ctx, WINDOW *w)
{
	struct vm *p = priv;

	fill_details(p, ctx);
	vw_ld_draw(&p->ld, w, NULL, 13);
}

static bool path_ok(const char *s)
{
	if (!*s)
		return true;
	if (s[0] != '/' || strstr(s, "/../"))
		return false;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

/* An installer ISO: a path as path_ok, or a Proxmox volume "local:iso/X.iso". */
static bool iso_ok(const char *s)
{
	const char *colon = strchr(s, ':');

	if (!colon || s[0] == '/')
		return path_ok(s);
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f || *p == '\'' || *p == '"')
			return false;
	return colon > s && !strncmp(colon + 1, "iso/", 4) && colon[5];
}

/* The choices take a field's text only when it is valid (the state file
 * must read back); leave() says what is wrong with the text. */
static void set_str(char **dst, const struct vw_field *f, bool (*ok)(const char *))
{
	char *s = vw_field_get(f);

	if (ok(s)) {
		free(*dst);
		*dst = s;
	} else {
		free(s);
	}
}

static bool name_ok(const char *s)
{
	return !*s || vw_vm_name_ok(s);
}

static void set_num(long *dst, const struct vw_field *f, long lo, long hi)
{
	char *s = vw_field_get(f), *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!errno && end != s && !*end && v >= lo && v <= hi)
		*dst = v;
	free(s);
}

#define MEM_MAX (16L << 20)

static enum vw_key_result key(void *priv, struct vw_ctx *ctx, int k)
{
	struct vm *p = priv;
	enum vw_wkey r = vw_list_key(&p->ld.list, k);
	struct vw_item *it = vw_list_current(&p->ld.list);
	struct vw_choices *c = ctx->ch;
	bool rebuild = false;

	if (r != VW_W_CHANGED || !it)
		return vw_ld_key(&p->ld, r, k);
	switch (it->tag) {
	case T_EXISTING: c->vm.existing = it->on; rebuild = true; break;
	case T_NAME: set_str(&c->vm.name, &it->field, name_ok); break;
	case T_VMID: set_num(&c->vm.vmid, &it->field, 0, 999999999); break;
	case T_MEM: set_num(&c->vm.memory_mib, &it->field, 256, p->ram_mib ? p->ram_mib : MEM_MAX); break;
	case T_CPUS: set_num(&c->vm.vcpus, &it->field, 1, 1024); break;
	case T_WIN: c->vm.guest_os = VW_GUEST_WINDOWS; break;
	case T_LINUX: c->vm.guest_os = VW_GUEST_LINUX; break;
	case T_HIDE: c->vm.hide_kvm = it->on; break;
	case T_QCOW:
	case T_IMAGE:
	case T_DISK:
		c->vm.storage_type = it->tag == T_QCOW ? VW_STORAGE_QCOW2 :
				     it->tag == T_IMAGE ? VW_STORAGE_IMAGE : VW_STORAGE_DISK;
		free(c->vm.storage_path);
		c->vm.storage_path = vw_xstrdup(it->tag == T_DISK && p->ndisks ? p->disks[0] : "");
		rebuild = true;
		break;
	case T_SIZE: set_num(&c->vm.storage_size_gib, &it->field, 1, 1L << 20); break;
	case T_PATH: set_str(&c->vm.storage_path, &it->field, path_ok); break;
	case T_ISO: set_str(&c->vm.install_iso, &it->field, iso_ok); break;
	case T_VIRTIO: set_str(&c->vm.virtio_iso, &it->field, iso_ok); break;
	case T_DISKSEL:
		free(c->vm.storage_path);
		c->vm.storage_path = vw_xstrdup(it->values[it->value]);
		break;
	default:
		if (it->tag >= T_TARGET) {
			c->vm.target = (enum vw_vm_target)(it->tag - T_TARGET);
			rebuild = true;
		}
		break;
	}
	vw_wizard_changed(ctx);
	if (rebuild)
		build_list(p, ctx);
	vw_ld_stale(&p->ld);
	return VW_KEY_HANDLED;
}

/* The number in a field, or an error naming the field. */
static int field_num(struct vm *p, int tag, long lo, long hi, long *out, struct vw_err *err)
{
	struct vw_item *it = vw_list_find(&p->ld.list, tag);
	char *s, *end;
	long v;

	if (!it)
		return 0;
	s = vw_field_get(&it->field);
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		vw_list_select(&p->ld.list, tag);
		free(s);
		return vw_err_set(err, -EINVAL, _("%s: a whole number from %ld to %ld, please."), it->label, lo, hi);
	}
	free(s);
	*out = v;
	return 0;
}

static enum vw_leave_result leave(void *priv, struct vw_ctx *ctx, struct vw_err *err)
{
	struct vm *p = priv;
	struct vw_choices *c = ctx->ch;
	const struct vw_vm_ops *ops = vw_vm_ops_get(c->vm.target);
	struct vw_image_info info;

	struct vw_item *it;

	if (p->ram_mib && (it = vw_list_find(&p->ld.list, T_MEM))) {
		char *s = vw_field_get(&it->field);
		long v = strtol(s, NULL, 10);

		free(s);
		if (vw_vm_memory_check(ctx->facts, v, err) < 0) {
			vw_list_select(&p->ld.list, T_MEM);
			return VW_LEAVE_ERROR;
		}
	}
	if (field_num(p, T_MEM, 256, MEM_MAX, &c->vm.memory_mib, err) < 0 ||
	    field_num(p, T_CPUS, 1, 1024, &c->vm.vcpus, err) < 0 ||
	    field_num(p, T_VMID, 0, 999999999, &c->vm.vmid, err) < 0 ||
	    field_num(p, T_SIZE, 1, 1L << 20, &c->vm.storage_size_gib, err) < 0)
		return VW_LEAVE_ERROR;
	if ((it = vw_list_find(&p->ld.list, T_NAME))) {
		char *s = vw_field_get(&it->field);
		bool ok = name_ok(s);

		free(s);
		if (!ok) {
			vw_list_select(&p->ld.list, T_NAME);
			return vw_leave_error(err, _("The name may hold letters, digits, '.', '_', '+' and '-' "
					      "(at most 64, not starting with '.')."));
		}
	}
	if ((it = vw_list_find(&p->ld.list, T_PATH))) {
		char *s = vw_field_get(&it->field);
		bool ok = path_ok(s);

		free(s);
		if (!ok) {
			vw_list_select(&p->ld.list, T_PATH);
			return vw_leave_error(err, _("The image file is an absolute path, starting with /."));
		}
	}
	if (!*c->vm.name && !(ops->uses_vmid && c->vm.existing && c->vm.vmid))
		return VW_LEAVE_DONE;	/* the host only, no VM */
	if (!installed(p, c->vm.target)) {
		vw_list_select(&p->ld.list, T_TARGET + (int)c->vm.target);
		return vw_leave_error(err, "%s", _(ops->absent));
	}
	if (*c->vm.name && !vw_vm_name_ok(c->vm.name)) {
		vw_list_select(&p->ld.list, T_NAME);
		return vw_leave_error(err, _("The name may hold letters, digits, '.', '_', '+' and '-' "
				      "(at most 64, not starting with '.')."));
	}
	if (c->vm.existing)
		return VW_LEAVE_DONE;
	if (c->vm.storage_type == VW_STORAGE_IMAGE &&
	    vw_storage_check_image(ctx->sr, c->vm.storage_path, &info, err) < 0) {
		vw_list_select(&p->ld.list, T_PATH);
		return VW_LEAVE_ERROR;
	}
	/* The ISOs must exist (Proxmox volumes are checked by the plan). */
	if (*c->vm.install_iso && (!ops->iso_volumes || c->vm.install_iso[0] == '/') &&
	    vw_vm_check_iso(ctx->sr, c->vm.install_iso, _("installer ISO"), err) < 0) {
		vw_list_select(&p->ld.list, T_ISO);
		return VW_LEAVE_ERROR;
	}
	if (*c->vm.virtio_iso && (!ops->iso_volumes || c->vm.virtio_iso[0] == '/') &&
	    vw_vm_check_iso(ctx->sr, c->vm.virtio_iso, _("virtio-win ISO"), err) < 0) {
		vw_list_select(&p->ld.list, T_VIRTIO);
		return VW_LEAVE_ERROR;
	}
	if (c->vm.storage_type == VW_STORAGE_DISK) {
		const struct vw_blk_disk *d;

		if (!p->st_ok || vw_storage_check_disk(&p->st, c->vm.storage_path, &d, err) < 0)
			return p->st_ok ? VW_LEAVE_ERROR
					: vw_leave_error(err, _("The disks of this host cannot be listed."));
	}
	return VW_LEAVE_DONE;
}

static void done(void *priv)
{
	struct vm *p = priv;

	vw_ld_done(&p->ld);
	if (p->st_ok)
		vw_storage_done(&p->st);
	for (size_t i = 0; i < p->ndisks; i++)
		free(p->disks[i]);
	free(p->disks);
}

static const struct vw_keyhint keys[] = {
	{ N_("Space"), N_("choose") },
	{ N_("PgUp PgDn"), N_("details") },
	{ NULL, NULL },
};

const struct vw_step_ops vw_step_vm = {
	.id = "vm",
	.title = N_("VM configuration"),
	.help = N_("The VM that gets the card: a new one, or one you have. libvirt or Proxmox VE, q35 with "
		   "OVMF (UEFI), every function of the card passed through, the \"Code 43\" options for "
		   "Windows guests with NVIDIA cards, and its disk: a new qcow2 image, an existing image, "
		   "or a whole disk the host does not use.\n\n"
		   "Type in the fields directly; Up and Down move between them. Leave the name empty to "
		   "prepare the host only."),
	.keys = keys,
	.priv_size = sizeof(struct vm),
	.enter = enter,
	.draw = draw,
	.key = key,
	.leave = leave,
	.done = done,
	.editing = vw_ld_editing,
};
