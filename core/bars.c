/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bars.c - BARs from sysfs and the kernel log (bars.h). */
#include "bars.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"

#define RESOURCE_MAX 4096

void vw_bars_read(const struct vw_sysroot *sr, struct vw_pci_dev *d)
{
	char rel[96], *text = NULL, *line, *save = NULL;

	memset(d->bars, 0, sizeof(d->bars));
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/resource", d->addr);
	if (vw_sysroot_read(sr, rel, &text, NULL, RESOURCE_MAX, NULL) < 0)
		return;
	line = strtok_r(text, "\n", &save);
	for (int i = 0; line && i < VW_NBARS; i++, line = strtok_r(NULL, "\n", &save)) {
		unsigned long long s, e, fl;
		struct vw_bar *b = &d->bars[i];
		char *v;

		if (sscanf(line, "%llx %llx %llx", &s, &e, &fl) != 3 || e < s || !(fl & (VW_RES_MEM | VW_RES_IO)))
			continue;
		b->start = s;
		b->size = e - s + 1;
		b->flags = (unsigned long)fl;
		/* Resizable BAR is a GPU's matter: one open less per BAR elsewhere
		 * (a 1000-function host would pay 6000). */
		if (!vw_dev_is_display(d) || !(fl & VW_RES_MEM_64))
			continue;
		snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/resource%d_resize", d->addr, i);
		if ((v = vw_sysroot_read_line(sr, rel))) {
			b->resizable = strtoull(v, NULL, 16);
			free(v);
		}
	}
	free(text);
}

/* "pci 0000:41:00.0: BAR 1 [mem size 0x4000000000 64bit pref]: can't assign; no space"
 * (6.x) and "pci 0000:41:00.0: BAR 1: no space for [mem ...]" (5.x). */
static void log_line(struct vw_facts *f, const char *s)
{
	const char *p = strstr(s, "pci ");
	char addr[16];
	unsigned bar;
	int idx;

	if (!p || !(strstr(s, "can't assign") || strstr(s, "failed to assign") || strstr(s, "no space for")))
		return;
	if (sscanf(p, "pci %12[0-9a-f:.]: BAR %u", addr, &bar) != 2 || bar >= VW_NBARS)
		return;
	if ((idx = vw_facts_find_dev(f, addr)) >= 0)
		f->devs[idx].bars[bar].log_failed = true;
}

void vw_bars_kernel_log(struct vw_facts *f, const struct vw_sysroot *sr)
{
	const char *argv[] = { "dmesg", NULL };
	struct vw_exec_result res;
	char *line, *save = NULL;

	if (vw_exec_run(sr, argv, &res, NULL) == 0 && res.status == 0)
		for (line = strtok_r(res.output, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			log_line(f, line);
	vw_exec_result_done(&res);
}

bool vw_bar_is64(const struct vw_bar *b)
{
	return b->size && (b->flags & VW_RES_MEM) && (b->flags & VW_RES_MEM_64);
}

bool vw_bar_unassigned(const struct vw_bar *b)
{
	return b->size && (b->flags & VW_RES_MEM) &&
	       ((b->flags & VW_RES_UNSET) || b->start == 0 || b->log_failed);
}

uint64_t vw_bar_resize_max(const struct vw_bar *b)
{
	for (int n = 43; n >= 0; n--)
		if (b->resizable & ((uint64_t)1 << n))
			return (uint64_t)1 << (n + 20);
	return 0;
}

uint64_t vw_bars_sum64(const struct vw_facts *f, const int *devs, size_t n)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < VW_NBARS; b++)
			if (vw_bar_is64(&f->devs[devs[i]].bars[b]))
				sum += f->devs[devs[i]].bars[b].size;
	return sum;
}

uint64_t vw_bars_max(const struct vw_facts *f, const int *devs, size_t n)
{
	uint64_t max = 0;

	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < VW_NBARS; b++)
			if ((f->devs[devs[i]].bars[b].flags & VW_RES_MEM) && f->devs[devs[i]].bars[b].size > max)
				max = f->devs[devs[i]].bars[b].size;
	return max;
}

uint64_t vw_bars_mmio_mb(uint64_t sum64)
{
	uint64_t want = sum64 + sum64 / 4, w = VW_GIB;

	if (want <= VW_OVMF_DEFAULT_MMIO64)
		return 0;
	while (w < want && w < ((uint64_t)1 << 56))
		w <<= 1;
	return w >> 20;
}

const char *vw_size_text(char *buf, size_t n, uint64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	uint64_t div = 1;
	size_t u = 0;

	while (u + 1 < VW_ARRAY_SIZE(units) && bytes / div >= 1024) {
		div *= 1024;
		u++;
	}
	if (bytes % div == 0)
		snprintf(buf, n, "%" PRIu64 " %s", bytes / div, units[u]);
	else
		snprintf(buf, n, "%.2f %s", (double)bytes / (double)div, units[u]);
	return buf;
}
