/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-guest.c - guest-check on the captured H200 guest and on hand-made
 * guests with recorded nvidia-smi outputs. */
#include "testutil.h"
#include "handfacts.h"
#include "guest.h"
#include "report.h"
#include "sysroot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool has(const struct vw_guest *g, const char *code, enum vw_severity sev)
{
	const struct vw_finding *x = vw_findings_get(&g->findings, code);

	return x && x->sev == sev;
}

/* The capture (tests/out/hosts/h200x2-nvlink-guest): both GPUs, NV18, P2P OK, exit 0. */
static void test_h200_capture(void **state)
{
	const char *b = getenv("top_builddir");
	char *root = b ? vw_xasprintf("%s/tests/out/hosts/h200x2-nvlink-guest", b) : NULL;
	struct vw_sysroot *sr = NULL;
	struct vw_facts f;
	struct vw_guest g;
	struct vw_err err = { 0 };

	(void)state;
	if (!root || access(root, R_OK) != 0) {
		free(root);
		skip();
	}
	assert_int_equal(vw_sysroot_open(&sr, root, &err), 0);
	assert_int_equal(vw_facts_probe(&f, sr, &err), 0);
	assert_int_equal(vw_guest_check(&g, sr, &f, &err), 0);
	assert_int_equal(g.ngpus, 2);
	assert_int_equal(g.nnvidia, 2);
	assert_true(g.topo_known);
	assert_int_equal(vw_nvlink_topo_cell(&g.topo, 0, 1)->links, 18);
	assert_true(g.p2p_known);
	assert_true(vw_p2p_all_ok(&g.p2p));
	assert_true(g.links_known);
	assert_int_equal(g.gpus[1].links->nactive, 18);
	assert_true(g.order_guessed);
	assert_int_equal(g.gpus[0].index, 0);
	assert_true(has(&g, "in-vm", VW_SEV_OK));
	assert_true(has(&g, "no-iommu", VW_SEV_INFO));
	assert_true(has(&g, "nvlink-topo", VW_SEV_OK));
	assert_true(has(&g, "p2p", VW_SEV_OK));
	assert_int_equal(g.exit_code, VW_GUEST_OK);
	vw_guest_done(&g);
	vw_facts_done(&f);
	vw_sysroot_free(sr);
	free(root);
}

struct guest {
	char *root;
	struct vw_sysroot *sr;
	struct vw_facts f;
	struct vw_guest g;
};

static void record(const char *root, const char *key, const char *text)
{
	char *rel = vw_xasprintf(".vfiowiz/cmd/%s", key);

	tu_write(root, rel, text);
	free(rel);
}

static void guest_start(struct guest *t)
{
	struct vw_err err = { 0 };

	memset(t, 0, sizeof(*t));
	t->root = tu_mkroot();
	assert_int_equal(vw_sysroot_open(&t->sr, t->root, &err), 0);
	t->f.cpu.hypervisor = true;
	t->f.cpu.hypervisor_name = "QEMU";
}

static void guest_run(struct guest *t)
{
	struct vw_err err = { 0 };

	hf_roles(&t->f);
	assert_int_equal(vw_guest_check(&t->g, t->sr, &t->f, &err), 0);
}

static void guest_end(struct guest *t)
{
	vw_guest_done(&t->g);
	hf_free(&t->f);
	vw_sysroot_free(t->sr);
	tu_rmtree(t->root);
	free(t->root);
}

#define IDS "nvidia-smi_--query-gpu_index_pci.bus_id_--format_csv_noheader"

static const char topo4[] =
	"\t\x1b[4mGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m\n"
	"GPU0\t X \tNV4\tNV4\tSYS\t0-15\t0\t\tN/A\n"
	"GPU1\tNV4\t X \tNV4\tSYS\t0-15\t0\t\tN/A\n"
	"GPU2\tNV4\tNV4\t X \tSYS\t0-15\t0\t\tN/A\n"
	"GPU3\tSYS\tSYS\tSYS\t X \t0-15\t0\t\tN/A\n";

/* Four GPUs: one lost its NVLinks, P2P partly NS: degraded (1). */
static void test_degraded(void **state)
{
	struct guest t;
	struct vw_buf links = VW_BUF_INIT, out = VW_BUF_INIT;

	(void)state;
	guest_start(&t);
	hf_add(&t.f, "0000:00:02.0", 0x1234, 0x1111, 0x030000, "bochs-drm", -1);
	hf_add(&t.f, "0000:05:00.0", 0x10de, 0x2330, 0x030200, "nvidia", -1);
	hf_add(&t.f, "0000:06:00.0", 0x10de, 0x2330, 0x030200, "nvidia", -1);
	hf_add(&t.f, "0000:07:00.0", 0x10de, 0x2330, 0x030200, "nvidia", -1);
	hf_add(&t.f, "0000:08:00.0", 0x10de, 0x2330, 0x030200, "nvidia", -1);
	record(t.root, IDS, "0, 00000000:05:00.0\n1, 00000000:06:00.0\n2, 00000000:07:00.0\n3, 00000000:08:00.0\n");
	record(t.root, "nvidia-smi_topo_-m", topo4);
	record(t.root, "nvidia-smi_topo_-p2p_rw",
	       "\tGPU0\tGPU1\tGPU2\tGPU3\nGPU0\tX\tOK\tOK\tNS\nGPU1\tOK\tX\tOK\tNS\n"
	       "GPU2\tOK\tOK\tX\tNS\nGPU3\tNS\tNS\tNS\tX\n");
	for (int gpu = 0; gpu < 4; gpu++) {
		vw_buf_printf(&links, "GPU %d: NVIDIA H100 80GB HBM3 (UUID: GPU-%d)\n", gpu, gpu);
		for (int l = 0; l < 4; l++)
			vw_buf_printf(&links, "\t Link %d: %s\n", l, gpu == 3 ? "<inactive>" : "26.562 GB/s");
	}
	record(t.root, "nvidia-smi_nvlink_-s", links.data);
	tu_write(t.root, "sys/module/nvidia/version", "550.54.15\n");
	guest_run(&t);
	assert_int_equal(t.g.ngpus, 4);
	assert_int_equal(t.g.nemulated, 1);
	assert_false(t.g.order_guessed);
	assert_string_equal(t.g.nvidia_version, "550.54.15");
	assert_true(has(&t.g, "nvlink-partial", VW_SEV_WARN));
	assert_true(has(&t.g, "nvlink-down", VW_SEV_WARN));
	assert_true(has(&t.g, "p2p", VW_SEV_WARN));
	assert_true(has(&t.g, "emulated-display", VW_SEV_INFO));
	assert_true(has(&t.g, "in-vm", VW_SEV_OK));
	assert_int_equal(t.g.exit_code, VW_GUEST_DEGRADED);
	assert_non_null(strstr(vw_findings_get(&t.g.findings, "p2p")->msg,
			       "GPU0 (0000:05:00.0) -> GPU3 (0000:08:00.0): NS (not supported)"));

	vw_guest_report_text(&out, &t.g, &t.f);
	assert_non_null(strstr(out.data, "GPUs: 4, NVIDIA driver 550.54.15\n"));
	assert_non_null(strstr(out.data, "  GPU3  SYS    SYS    SYS    X\n"));
	assert_non_null(strstr(out.data, "Degraded"));
	vw_buf_done(&out);
	vw_guest_report_json(&out, &t.g, &t.f);
	assert_non_null(strstr(out.data, "\"status\": \"degraded\""));
	assert_non_null(strstr(out.data, "\"emulated_displays\": [\n    \"0000:00:02.0\"\n  ]"));
	vw_buf_done(&out);
	vw_buf_done(&links);
	guest_end(&t);
}

/* No GPU at all, and a GPU without its driver: 2. */
static void test_no_gpu(void **state)
{
	struct guest t;
	struct vw_buf out = VW_BUF_INIT;

	(void)state;
	guest_start(&t);
	hf_add(&t.f, "0000:00:01.0", 0x1af4, 0x1050, 0x030000, "virtio-pci", -1);
	guest_run(&t);
	assert_int_equal(t.g.ngpus, 0);
	assert_true(has(&t.g, "no-gpu", VW_SEV_BLOCKER));
	assert_int_equal(t.g.exit_code, VW_GUEST_NO_GPU);
	vw_guest_report_json(&out, &t.g, &t.f);
	assert_non_null(strstr(out.data, "\"exit\": 2"));
	assert_non_null(strstr(out.data, "\"nvlink_pairs\": null"));
	vw_buf_done(&out);
	guest_end(&t);

	guest_start(&t);
	hf_add(&t.f, "0000:01:00.0", 0x10de, 0x2204, 0x030000, "", 3);
	hf_add(&t.f, "0000:01:00.1", 0x10de, 0x1aef, 0x040300, "snd_hda_intel", 3);
	guest_run(&t);
	assert_int_equal(t.g.ngpus, 1);
	assert_true(has(&t.g, "gpu-no-driver", VW_SEV_BLOCKER));
	assert_true(has(&t.g, "viommu", VW_SEV_INFO));
	assert_int_equal(t.g.exit_code, VW_GUEST_NO_GPU);
	guest_end(&t);
}

/* Two NVIDIA GPUs and no nvidia-smi output recorded: not checked, said,
 * degraded (it could not be verified). */
static void test_no_smi(void **state)
{
	struct guest t;

	(void)state;
	guest_start(&t);
	t.f.cpu.hypervisor = false;
	hf_add(&t.f, "0000:01:00.0", 0x10de, 0x2204, 0x030000, "nvidia", -1);
	hf_add(&t.f, "0000:02:00.0", 0x10de, 0x2204, 0x030000, "nvidia", -1);
	guest_run(&t);
	assert_true(has(&t.g, "not-a-vm", VW_SEV_INFO));
	assert_true(has(&t.g, "gpu-order-guessed", VW_SEV_INFO));
	assert_true(has(&t.g, "nvlink-unknown", VW_SEV_WARN));
	assert_true(has(&t.g, "p2p", VW_SEV_WARN));
	assert_int_equal(t.g.exit_code, VW_GUEST_DEGRADED);
	guest_end(&t);

	/* The driver version from /proc when sysfs has none (as printed on
	 * the two-H200 device machine). */
	guest_start(&t);
	hf_add(&t.f, "0000:00:06.0", 0x10de, 0x2335, 0x030200, "nvidia", -1);
	tu_write(t.root, "proc/driver/nvidia/version",
		 "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)  \n"
		 "GCC version:  gcc version 14.3.0 (GCC) \n");
	record(t.root, IDS, "0, 00000000:00:06.0\n");
	guest_run(&t);
	assert_string_equal(t.g.nvidia_version, "580.159.04");
	assert_false(t.g.order_guessed);
	assert_int_equal(t.g.gpus[0].index, 0);
	assert_int_equal(t.g.exit_code, VW_GUEST_OK);
	guest_end(&t);

	/* One AMD GPU: nothing to ask nvidia-smi, all good. */
	guest_start(&t);
	hf_add(&t.f, "0000:01:00.0", 0x1002, 0x73bf, 0x030000, "amdgpu", -1);
	guest_run(&t);
	assert_int_equal(t.g.exit_code, VW_GUEST_OK);
	/* in-vm, hypervisor (hand-made facts: the CPU flag, no DMI), gpu,
	 * no-iommu */
	assert_int_equal(t.g.findings.n, 4);
	assert_true(has(&t.g, "hypervisor", VW_SEV_INFO));
	guest_end(&t);
}

/* The report tags findings as `vfiowiz check` does: one table of tags
 * (core/report.h). */
static void test_severity_tags(void **state)
{
	struct guest t;
	struct vw_buf out = VW_BUF_INIT, want = VW_BUF_INIT;

	(void)state;
	assert_string_equal(vw_severity_tag(VW_SEV_OK), " OK ");
	assert_string_equal(vw_severity_tag(VW_SEV_INFO), "INFO");
	assert_string_equal(vw_severity_tag(VW_SEV_WARN), "WARN");
	assert_string_equal(vw_severity_tag(VW_SEV_FIXABLE), "FIX ");
	assert_string_equal(vw_severity_tag(VW_SEV_BLOCKER), "STOP");
	guest_start(&t);
	hf_add(&t.f, "0000:00:01.0", 0x1af4, 0x1050, 0x030000, "virtio-pci", -1);
	guest_run(&t);
	vw_guest_report_text(&out, &t.g, &t.f);
	vw_buf_printf(&want, "[%s] ", vw_severity_tag(VW_SEV_BLOCKER));
	assert_non_null(strstr(out.data, want.data));
	vw_buf_done(&want);
	vw_buf_done(&out);
	guest_end(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_h200_capture),
		cmocka_unit_test(test_degraded),
		cmocka_unit_test(test_no_gpu),
		cmocka_unit_test(test_no_smi),
		cmocka_unit_test(test_severity_tags),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
