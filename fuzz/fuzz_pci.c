/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_pci.c - the probes on a fuzzed sysfs: one PCI function behind a
 * bridge whose attribute files, links and config space come from the input
 * (fields split at '\x01', see the table), plus /proc/cpuinfo and the
 * command line; then findings, reports and the ACS model run over the
 * facts.  Links are kept to what a snapshot import lets through (relative,
 * inside the tree): libpci follows links itself, outside the sysroot's
 * RESOLVE_IN_ROOT. */
#define _GNU_SOURCE
#include "acs.h"
#include "facts.h"
#include "findings.h"
#include "report.h"
#include "tarsafe.h"
#include "fuzzutil.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define DEV "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"
#define BR "sys/devices/pci0000:00/0000:00:01.0"

enum { F_VENDOR, F_DEVICE, F_CLASS, F_SUBV, F_SUBD, F_REV, F_NUMA, F_BOOTVGA, F_RESET,
       F_DRIVER, F_GROUP, F_BUSLINK, F_GROUPNAME, F_GROUPTYPE, F_CPUINFO, F_CMDLINE, F_CONFIG,
       F_N };

static const char *const attr[] = {
	[F_VENDOR] = "vendor", [F_DEVICE] = "device", [F_CLASS] = "class",
	[F_SUBV] = "subsystem_vendor", [F_SUBD] = "subsystem_device", [F_REV] = "revision",
	[F_NUMA] = "numa_node", [F_BOOTVGA] = "boot_vga", [F_RESET] = "reset_method",
};

static void link_or_default(const char *root, const char *rel, const char *target, const char *def)
{
	fu_symlink(root, rel, *target && vw_tar_link_ok(rel, target) ? target : def);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len[F_N];
	char **f = fu_fields(data, size, F_N, len), *root = fu_mkdtemp(), *p;
	struct vw_sysroot *sr = NULL;
	struct vw_err err = { 0 };
	struct vw_facts facts;
	struct vw_findings fs;
	struct vw_buf out = VW_BUF_INIT;
	struct vw_acs_override ov = { .downstream = true, .multifunction = true };
	struct vw_acs_preview pv;

	/* The bridge: well formed. */
	fu_write(root, BR "/vendor", "0x8086\n", 7);
	fu_write(root, BR "/device", "0x1901\n", 7);
	fu_write(root, BR "/class", "0x060400\n", 9);
	fu_symlink(root, "sys/bus/pci/devices/0000:00:01.0", "../../../devices/pci0000:00/0000:00:01.0");
	fu_symlink(root, BR "/iommu_group", "../../../kernel/iommu_groups/1");
	fu_write(root, "sys/kernel/iommu_groups/1/type", "DMA\n", 4);
	fu_symlink(root, "sys/kernel/iommu_groups/1/devices/0000:00:01.0",
		   "../../../../devices/pci0000:00/0000:00:01.0");
	fu_write(root, "sys/firmware/acpi/tables/DMAR", "DMAR", 4);

	/* The fuzzed function. */
	for (size_t i = 0; i <= F_RESET; i++) {
		if (!f[i])
			continue;
		p = vw_xasprintf(DEV "/%s", attr[i]);
		fu_write(root, p, f[i], len[i]);
		free(p);
	}
	if (f[F_CONFIG])
		fu_write(root, DEV "/config", f[F_CONFIG], len[F_CONFIG] > 4096 ? 4096 : len[F_CONFIG]);
	link_or_default(root, "sys/bus/pci/devices/0000:01:00.0", f[F_BUSLINK] ? f[F_BUSLINK] : "",
			"../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0");
	if (f[F_DRIVER])
		link_or_default(root, DEV "/driver", f[F_DRIVER], "../../../../bus/pci/drivers/nvidia");
	if (f[F_GROUP])
		link_or_default(root, DEV "/iommu_group", f[F_GROUP], "../../../../kernel/iommu_groups/2");
	if (f[F_GROUPNAME] && *f[F_GROUPNAME] && !strchr(f[F_GROUPNAME], '/') &&
	    strcmp(f[F_GROUPNAME], ".") && strcmp(f[F_GROUPNAME], "..") && len[F_GROUPNAME] < 200) {
		p = vw_xasprintf("sys/kernel/iommu_groups/%s/type", f[F_GROUPNAME]);
		fu_write(root, p, f[F_GROUPTYPE] ? f[F_GROUPTYPE] : "", f[F_GROUPTYPE] ? len[F_GROUPTYPE] : 0);
		free(p);
	}
	if (f[F_CPUINFO])
		fu_write(root, "proc/cpuinfo", f[F_CPUINFO], len[F_CPUINFO]);
	if (f[F_CMDLINE])
		fu_write(root, "proc/cmdline", f[F_CMDLINE], len[F_CMDLINE]);

	FU_CHECK(vw_sysroot_open(&sr, root, &err) == 0);
	if (vw_facts_probe(&facts, sr, &err) == 0) {
		for (size_t i = 0; i < facts.ndevs; i++) {
			FU_CHECK(facts.devs[i].parent < (int)facts.ndevs);
			FU_CHECK(facts.devs[i].driver && facts.devs[i].note);
		}
		vw_findings_eval(&facts, &fs);
		vw_report_check_text(&out, &facts, &fs);
		vw_report_check_json(&out, &facts, &fs);
		vw_report_groups_text(&out, &facts, true);
		vw_report_groups_json(&out, &facts, true);
		vw_acs_simulate(&facts, &ov, &pv);
		vw_acs_preview_done(&pv);
		vw_findings_done(&fs);
	}
	vw_facts_done(&facts);
	vw_buf_done(&out);
	vw_sysroot_free(sr);
	fu_rmtree(root);
	free(root);
	fu_fields_free(f, F_N);
	return 0;
}
