/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vmfake.h - hand-made hosts for the VM and access tests.
 *
 * The facts hold only what the VM back ends read (addresses, ids, classes,
 * groups), so the golden files do not move when a fixture host does.  The
 * hosts are modelled on tests/hosts/{turing-4fn,amd-desktop,nvswitch-8gpu}.
 */
#ifndef VW_VMFAKE_H
#define VW_VMFAKE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answers.h"
#include "facts.h"
#include "unit.h"

struct fake_host {
	struct vw_facts f;
	struct vw_unit u;
};

static inline void fake_dev(struct fake_host *h, const char *addr, unsigned vendor, unsigned device,
			    unsigned class_code, int group, bool in_unit)
{
	struct vw_pci_dev *d;

	h->f.devs = vw_xreallocarray(h->f.devs, h->f.ndevs + 1, sizeof(*d));
	d = &h->f.devs[h->f.ndevs];
	memset(d, 0, sizeof(*d));
	snprintf(d->addr, sizeof(d->addr), "%s", addr);
	sscanf(addr, "%x:%x:%x.%x", &d->domain, &d->bus, &d->dev, &d->func);
	d->vendor = vendor;
	d->device = device;
	d->class_code = class_code;
	d->group = group;
	d->has_subsys = vendor == 0x10de;
	d->subvendor = vendor;
	d->subdevice = 0x1234;
	d->parent = -1;
	d->gpu = -1;
	d->numa_node = -1;
	d->boot_vga = (class_code >> 8) == 0x0300 ? 0 : -1;
	d->role = vw_dev_is_display(d) ? VW_ROLE_GPU : VW_ROLE_OTHER;
	if (in_unit) {
		h->u.m = vw_xreallocarray(h->u.m, h->u.n + 1, sizeof(*h->u.m));
		h->u.m[h->u.n].dev = (int)h->f.ndevs;
		h->u.m[h->u.n].why = h->u.n ? VW_UNIT_FUNCTION : VW_UNIT_CHOSEN;
		h->u.n++;
	}
	h->f.ndevs++;
}

static inline void fake_done(struct fake_host *h)
{
	free(h->f.devs);
	free(h->u.m);
	memset(h, 0, sizeof(*h));
}

/* RTX 2080 Ti-like: VGA, audio, USB-C xHCI, UCSI in one slot. */
static inline void fake_turing(struct fake_host *h)
{
	memset(h, 0, sizeof(*h));
	fake_dev(h, "0000:00:01.0", 0x8086, 0x1901, 0x060400, 1, false);
	fake_dev(h, "0000:01:00.0", 0x10de, 0x1e07, 0x030000, 12, true);
	fake_dev(h, "0000:01:00.1", 0x10de, 0x10f7, 0x040300, 12, true);
	fake_dev(h, "0000:01:00.2", 0x10de, 0x1ad6, 0x0c0330, 12, true);
	fake_dev(h, "0000:01:00.3", 0x10de, 0x1ad7, 0x0c8000, 12, true);
	fake_dev(h, "0000:02:00.0", 0x8086, 0x15f3, 0x020000, 13, false);
}

/* Radeon RX 6800-like: VGA and audio. */
static inline void fake_amd(struct fake_host *h)
{
	memset(h, 0, sizeof(*h));
	fake_dev(h, "0000:0c:00.0", 0x1002, 0x73bf, 0x030000, 20, true);
	fake_dev(h, "0000:0c:00.1", 0x1002, 0xab28, 0x040300, 20, true);
}

/* Eight H100-like 3D controllers and four NVSwitches, one unit. */
static inline void fake_nvswitch(struct fake_host *h)
{
	static const unsigned gpu_bus[] = { 0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb };
	static const unsigned sw_bus[] = { 0x05, 0x06, 0x07, 0x08 };
	char addr[16];

	memset(h, 0, sizeof(*h));
	for (size_t i = 0; i < 4; i++) {
		snprintf(addr, sizeof(addr), "0000:%02x:00.0", sw_bus[i]);
		fake_dev(h, addr, 0x10de, 0x22a3, 0x068000, 40 + (int)i, true);
	}
	for (size_t i = 0; i < 8; i++) {
		snprintf(addr, sizeof(addr), "0000:%02x:00.0", gpu_bus[i]);
		fake_dev(h, addr, 0x10de, 0x2330, 0x030200, 50 + (int)i, true);
	}
}

/* Choices for a VM named name. */
static inline void fake_choices(struct vw_choices *c, enum vw_vm_target target, enum vw_guest_os os,
				const char *name)
{
	vw_choices_init(c);
	c->vm.target = target;
	c->vm.guest_os = os;
	free(c->vm.name);
	c->vm.name = vw_xstrdup(name);
	free(c->access.vnc_password);
	c->access.vnc_password = vw_xstrdup("s3cret");
	c->access.vnc = true;
}

static inline void fake_set(char **field, const char *value)
{
	free(*field);
	*field = vw_xstrdup(value);
}

static inline void fake_allow(struct vw_choices *c, const char *const *list)
{
	vw_strv_free(c->access.allow);
	c->access.nallow = 0;
	while (list[c->access.nallow])
		c->access.nallow++;
	c->access.allow = vw_xcalloc(c->access.nallow + 1, sizeof(char *));
	for (size_t i = 0; i < c->access.nallow; i++)
		c->access.allow[i] = vw_xstrdup(list[i]);
}

/* Compare text with tests/vm-golden/name; VW_UPDATE_GOLDEN=1 rewrites it. */
static inline void golden(const char *name, const char *text, size_t len)
{
	const char *src = getenv("top_srcdir");
	char *path = vw_xasprintf("%s/tests/vm-golden/%s", src ? src : ".", name);
	const char *upd = getenv("VW_UPDATE_GOLDEN");
	FILE *fp;

	if (upd && *upd == '1') {
		fp = fopen(path, "w");
		assert_non_null(fp);
		assert_int_equal(fwrite(text, 1, len, fp), len);
		fclose(fp);
	} else {
		struct vw_buf b = VW_BUF_INIT;
		char chunk[4096];
		size_t n;

		fp = fopen(path, "r");
		if (!fp)
			fail_msg("golden file %s is missing (VW_UPDATE_GOLDEN=1 writes it)", path);
		vw_buf_adds(&b, "");
		while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
			vw_buf_add(&b, chunk, n);
		fclose(fp);
		if (b.len != len || memcmp(b.data, text, len) != 0) {
			const char *bld = getenv("top_builddir");
			char *got = vw_xasprintf("%s/tests/out/%s.got", bld ? bld : ".", name);

			fp = fopen(got, "w");
			if (fp) {
				fwrite(text, 1, len, fp);
				fclose(fp);
			}
			fail_msg("%s differs from what was generated (see %s)", path, got);
		}
		vw_buf_done(&b);
	}
	free(path);
}

#endif
