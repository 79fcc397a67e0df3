/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_vmplan.c - the VM step's parsers: an existing libvirt domain (libxml2)
 * and an existing Proxmox VM configuration, edited for a GPU; the hostpci
 * property checker; the allow-list address checker.
 *
 * Input: a selector byte, then the text.  Invariants: an edited domain or
 * configuration, written back as the VM's own file, plans to no change at
 * all (the plan is idempotent), and the Proxmox sections after the main one
 * come out byte for byte. */
#include "access.h"
#include "plan.h"
#include "vmplan.h"
#include "fuzzutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fake_dev(struct vw_facts *f, struct vw_unit *u, unsigned bus, unsigned fn, unsigned cls)
{
	struct vw_pci_dev *d;

	f->devs = vw_xreallocarray(f->devs, f->ndevs + 1, sizeof(*d));
	d = &f->devs[f->ndevs];
	memset(d, 0, sizeof(*d));
	snprintf(d->addr, sizeof(d->addr), "0000:%02x:00.%u", bus, fn);
	d->bus = bus;
	d->func = fn;
	d->vendor = 0x10de;
	d->device = 0x1e07;
	d->class_code = cls;
	d->group = 1;
	u->m = vw_xreallocarray(u->m, u->n + 1, sizeof(*u->m));
	u->m[u->n].dev = (int)f->ndevs;
	u->m[u->n].why = VW_UNIT_CHOSEN;
	u->n++;
	f->ndevs++;
}

/* Plan the VM of c under root; on success write the planned file back as
 * the VM's own (rel) and check that planning again changes nothing. */
static void plan_twice(const char *root, const char *rel, const char *ours, struct vw_facts *f,
		       struct vw_unit *u, const struct vw_choices *c, const char *in, size_t inlen)
{
	struct vw_sysroot *sr = NULL;
	struct vw_plan p;
	struct vw_vm_info info;
	struct vw_err err = { 0 };
	const struct vw_change *ch;

	if (vw_sysroot_open(&sr, root, &err) < 0)
		return;
	vw_plan_init(&p);
	if (vw_vmplan_build(&p, sr, f, c, u, &info, &err) == 0 && (ch = vw_plan_find(&p, ours))) {
		const char *rest = NULL;

		for (size_t i = 0; i + 1 < inlen && !rest; i++)
			if (in[i] == '\n' && in[i + 1] == '[')
				rest = in + i;

		if (strcmp(rel, ours) == 0 && rest) {
			/* Proxmox: the snapshots and [PENDING] come out unchanged. */
			size_t n = inlen - (size_t)(rest - in);

			FU_CHECK(ch->new_len >= n && !memcmp(ch->new_data + ch->new_len - n, rest, n));
		}
		fu_write(root, rel, ch->new_data, ch->new_len);
		vw_vm_info_done(&info);
		vw_plan_done(&p);
		vw_plan_init(&p);
		FU_CHECK(vw_vmplan_build(&p, sr, f, c, u, &info, &err) == 0);
		FU_CHECK(p.n == 0);
	}
	vw_vm_info_done(&info);
	vw_plan_done(&p);
	vw_sysroot_free(sr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vw_facts f;
	struct vw_unit u;
	struct vw_choices c;
	struct vw_err err = { 0 };
	char *text, *root;
	unsigned sel;

	if (size < 1)
		return 0;
	sel = data[0];
	text = fu_str(data + 1, size - 1);
	memset(&f, 0, sizeof(f));
	memset(&u, 0, sizeof(u));
	fake_dev(&f, &u, 1, 0, 0x030000);
	fake_dev(&f, &u, 1, 1, 0x040300);
	vw_choices_init(&c);
	c.vm.existing = true;
	c.vm.guest_os = sel & 1 ? VW_GUEST_LINUX : VW_GUEST_WINDOWS;
	c.access.vnc = sel & 2;
	free(c.access.vnc_password);
	c.access.vnc_password = vw_xstrdup("pw");
	free(c.vm.name);

	root = fu_mkdtemp();
	switch ((sel >> 2) % 4) {
	case 0:
		c.vm.target = VW_VM_LIBVIRT;
		c.vm.name = vw_xstrdup("h");
		fu_write(root, "etc/libvirt/qemu/h.xml", data + 1, size - 1);
		plan_twice(root, "etc/libvirt/qemu/h.xml", "etc/vfiowiz/libvirt/h.xml", &f, &u, &c,
			   text, size - 1);
		break;
	case 1:
		c.vm.target = VW_VM_PROXMOX;
		c.vm.name = vw_xstrdup("");
		c.vm.vmid = 100;
		fu_write(root, "etc/pve/qemu-server/100.conf", data + 1, size - 1);
		plan_twice(root, "etc/pve/qemu-server/100.conf", "etc/pve/qemu-server/100.conf", &f, &u,
			   &c, text, size - 1);
		break;
	case 2:
		vw_pve_hostpci_valid(text, &err);
		c.vm.name = vw_xstrdup("");
		break;
	default:
		vw_access_addr_ok(text, NULL);
		c.vm.name = vw_xstrdup("");
		break;
	}
	fu_rmtree(root);
	free(root);
	vw_choices_done(&c);
	free(f.devs);
	free(u.m);
	free(text);
	return 0;
}
