/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sriov.c - what lets one GPU serve several VMs: SR-IOV virtual functions,
 * mediated device (mdev) types, NVIDIA's vendor-specific vGPU types, and
 * the mediated devices that exist now; all from sysfs under the sysroot.
 *
 * Sources (docs/formats.md, section 18): the kernel's
 * Documentation/ABI/testing/sysfs-bus-pci (sriov_totalvfs, sriov_numvfs,
 * sriov_drivers_autoprobe, virtfnN, physfn), Documentation/driver-api/
 * vfio-mediated-device.rst (mdev_supported_types/TYPE/{name,description,
 * available_instances,device_api}, /sys/bus/mdev/devices/UUID), and NVIDIA's
 * vGPU user guide for the vendor-specific VFIO model of Ada and Hopper
 * (nvidia/creatable_vgpu_types, nvidia/current_vgpu_type on each VF).
 *
 * Only candidates are looked at, so a 1000-function host pays almost
 * nothing: functions with the SR-IOV capability in config space, display
 * and processing-accelerator functions (whose config space a non-root
 * user cannot read beyond 64 bytes), and the parents listed under
 * /sys/class/mdev_bus. */
#include "facts.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEVDIR "sys/bus/pci/devices/"
/* A PF advertises at most this many VFs here (the capability's field is 16
 * bits; real GPUs have 7 to 64). */
#define MAX_VFS 4096

static char *read_str(const struct vw_sysroot *sr, const char *fmt, const char *a, const char *b)
{
	char rel[512];
	char *s;

	snprintf(rel, sizeof(rel), fmt, a, b);
	s = vw_sysroot_read_line(sr, rel);
	return s ? s : vw_xstrdup("");
}

static long read_num(const struct vw_sysroot *sr, const char *fmt, const char *a, const char *b, long dflt)
{
	char rel[512];
	long v;

	snprintf(rel, sizeof(rel), fmt, a, b);
	return vw_sysroot_read_long(sr, rel, &v) == 0 ? v : dflt;
}

static void read_vfs(struct vw_facts *f, const struct vw_sysroot *sr, size_t i)
{
	struct vw_pci_dev *d = &f->devs[i];
	long total = read_num(sr, DEVDIR "%s/sriov_totalvfs%s", d->addr, "", 0);

	if (total <= 0 || total > MAX_VFS)
		return;
	d->sriov_total = (int)total;
	d->sriov_num = (int)read_num(sr, DEVDIR "%s/sriov_numvfs%s", d->addr, "", 0);
	d->sriov_autoprobe = (int)read_num(sr, DEVDIR "%s/sriov_drivers_autoprobe%s", d->addr, "", -1);
	if (d->sriov_num < 0 || d->sriov_num > d->sriov_total)
		d->sriov_num = 0;
	d->vfs = vw_xcalloc((size_t)d->sriov_num + 1, sizeof(*d->vfs));
	for (int n = 0; n < d->sriov_num; n++) {
		char rel[96], *base;
		int v;

		snprintf(rel, sizeof(rel), DEVDIR "%s/virtfn%d", d->addr, n);
		base = vw_sysroot_link_base(sr, rel);
		v = base ? vw_facts_find_dev(f, base) : -1;
		free(base);
		if (v < 0 || (size_t)v == i || f->devs[v].vf)
			continue;
		f->devs[v].vf = true;
		f->devs[v].physfn = (int)i;
		f->devs[v].vf_index = n;
		d->vfs[d->nvfs++] = v;
	}
}

static int cmp_type(const void *a, const void *b)
{
	return strcmp(((const struct vw_mdev_type *)a)->id, ((const struct vw_mdev_type *)b)->id);
}

static void read_mdev_types(const struct vw_sysroot *sr, struct vw_pci_dev *d)
{
	char rel[96], **names = NULL;
	int n;

	snprintf(rel, sizeof(rel), DEVDIR "%s/mdev_supported_types", d->addr);
	n = vw_sysroot_list(sr, rel, &names);
	if (n <= 0) {
		vw_strv_free(names);
		return;
	}
	d->mdev_types = vw_xcalloc((size_t)n, sizeof(*d->mdev_types));
	for (int k = 0; k < n; k++) {
		struct vw_mdev_type *t = &d->mdev_types[d->nmdev_types++];
		char sub[512];

		snprintf(sub, sizeof(sub), "%s/%s", rel, names[k]);
		t->id = vw_xstrdup(names[k]);
		t->name = read_str(sr, "%s/name%s", sub, "");
		t->description = read_str(sr, "%s/description%s", sub, "");
		t->device_api = read_str(sr, "%s/device_api%s", sub, "");
		t->available = read_num(sr, "%s/available_instances%s", sub, "", -1);
	}
	qsort(d->mdev_types, d->nmdev_types, sizeof(*d->mdev_types), cmp_type);
	vw_strv_free(names);
}

/* "ID : NAME" lines (a header "ID : vGPU Name" first); kept as "ID NAME". */
static void read_vgpu_types(const struct vw_sysroot *sr, struct vw_pci_dev *d)
{
	char rel[96], *text = NULL, *line, *save = NULL;
	size_t len = 0, n = 0;

	snprintf(rel, sizeof(rel), DEVDIR "%s/nvidia/current_vgpu_type", d->addr);
	d->vgpu_current = vw_sysroot_read_line(sr, rel);
	if (!d->vgpu_current || !strcmp(d->vgpu_current, "0")) {
		free(d->vgpu_current);
		d->vgpu_current = vw_xstrdup("");
	}
	snprintf(rel, sizeof(rel), DEVDIR "%s/nvidia/creatable_vgpu_types", d->addr);
	if (vw_sysroot_read(sr, rel, &text, &len, 1u << 20, NULL) < 0)
		return;
	d->vgpu_types = vw_xcalloc(1, sizeof(char *));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *end;
		long id;

		if (!colon)
			continue;
		id = strtol(line, &end, 10);
		while (end < colon && isspace((unsigned char)*end))
			end++;
		if (end != colon || id <= 0)
			continue;	/* the header, or garbage */
		colon++;
		while (isspace((unsigned char)*colon))
			colon++;
		d->vgpu_types = vw_xreallocarray(d->vgpu_types, n + 2, sizeof(char *));
		d->vgpu_types[n++] = vw_xasprintf("%ld %s", id, colon);
		d->vgpu_types[n] = NULL;
	}
	free(text);
}

static void read_mdevs(struct vw_facts *f, const struct vw_sysroot *sr)
{
	char **names = NULL;
	int n = vw_sysroot_list(sr, "sys/bus/mdev/devices", &names);

	if (n > 0)
		f->mdevs = vw_xcalloc((size_t)n, sizeof(*f->mdevs));
	for (int k = 0; k < n; k++) {
		struct vw_mdev *m = &f->mdevs[f->nmdevs];
		char rel[128], *real, *slash;

		if (strlen(names[k]) != 36)
			continue;
		memcpy(m->uuid, names[k], 37);
		snprintf(rel, sizeof(rel), "sys/bus/mdev/devices/%s", names[k]);
		/* .../0000:41:00.0/UUID: the parent is the directory above. */
		real = vw_sysroot_realpath(sr, rel);
		m->parent = -1;
		if (real && (slash = strrchr(real, '/'))) {
			*slash = 0;
			slash = strrchr(real, '/');
			m->parent = vw_facts_find_dev(f, slash ? slash + 1 : real);
		}
		free(real);
		snprintf(rel, sizeof(rel), "sys/bus/mdev/devices/%s/mdev_type", names[k]);
		m->type = vw_sysroot_link_base(sr, rel);
		if (!m->type)
			m->type = vw_xstrdup("");
		snprintf(rel, sizeof(rel), "sys/bus/mdev/devices/%s/driver", names[k]);
		m->driver = vw_sysroot_link_base(sr, rel);
		if (!m->driver)
			m->driver = vw_xstrdup("");
		f->nmdevs++;
	}
	vw_strv_free(names);
}

static bool candidate(const struct vw_pci_dev *d)
{
	unsigned base = d->class_code >> 16;

	return d->sriov_cap || base == 0x03 || base == 0x12;
}

void vw_probe_sriov(struct vw_facts *f, const struct vw_sysroot *sr)
{
	char **parents = NULL;
	int n;

	for (size_t i = 0; i < f->ndevs; i++) {
		f->devs[i].sriov_autoprobe = -1;
		f->devs[i].physfn = -1;
		f->devs[i].vf_index = -1;
	}
	for (size_t i = 0; i < f->ndevs; i++)
		if (candidate(&f->devs[i]) && !f->devs[i].vf)
			read_vfs(f, sr, i);
	for (size_t i = 0; i < f->ndevs; i++) {
		struct vw_pci_dev *d = &f->devs[i];

		if (!d->vgpu_current && (d->vf || d->sriov_total) && (d->class_code >> 16) == 0x03 &&
		    d->vendor == 0x10de)
			read_vgpu_types(sr, d);
		if (!d->vgpu_current)
			d->vgpu_current = vw_xstrdup("");
	}
	/* mdev parents: listed by the kernel, whatever their class. */
	n = vw_sysroot_list(sr, "sys/class/mdev_bus", &parents);
	for (int k = 0; k < n; k++) {
		int i = vw_facts_find_dev(f, parents[k]);

		if (i >= 0 && !f->devs[i].mdev_types)
			read_mdev_types(sr, &f->devs[i]);
	}
	vw_strv_free(parents);
	read_mdevs(f, sr);
}

void vw_sriov_dev_done(struct vw_pci_dev *d)
{
	free(d->vfs);
	for (size_t k = 0; k < d->nmdev_types; k++) {
		free(d->mdev_types[k].id);
		free(d->mdev_types[k].name);
		free(d->mdev_types[k].description);
		free(d->mdev_types[k].device_api);
	}
	free(d->mdev_types);
	vw_strv_free(d->vgpu_types);
	free(d->vgpu_current);
}

void vw_sriov_facts_done(struct vw_facts *f)
{
	for (size_t k = 0; k < f->nmdevs; k++) {
		free(f->mdevs[k].type);
		free(f->mdevs[k].driver);
	}
	free(f->mdevs);
}
