/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-nvlink.c - nvidia-smi parsers, NVLink sets, the state form. */
#include "testutil.h"
#include "handfacts.h"
#include "facts.h"
#include "nvlink.h"
#include "sysroot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `nvidia-smi topo -m` on the captured two-H200 guest, byte for byte. */
static const char h200_topo[] =
	"\t\x1b[4mGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m\n"
	"GPU0\t X \tNV18\t0-31\t0\t\tN/A\n"
	"GPU1\tNV18\t X \t0-31\t0\t\tN/A\n"
	"\n"
	"Legend:\n"
	"\n"
	"  X    = Self\n"
	"  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
	"  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node\n"
	"  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
	"  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n"
	"  PIX  = Connection traversing at most a single PCIe bridge\n"
	"  NV#  = Connection traversing a bonded set of # NVLinks\n";

static const char h200_p2p[] =
	" \t\x1b[4mGPU0\tGPU1\t\x1b[0m\n"
	" GPU0\tX\tOK\t\n"
	" GPU1\tOK\tX\t\n"
	"\n"
	"Legend:\n"
	"\n"
	"  X    = Self\n"
	"  OK   = Status Ok\n"
	"  CNS  = Chipset not supported\n"
	"  NS   = Not supported\n"
	"  U    = Unknown\n";

/* Four PCIe GPUs, two NVLink bridges, NIC columns, an older driver's
 * layout (mlx5 names, no GPU NUMA ID), CRLF line ends. */
static const char pairs_topo[] =
	"\tGPU0\tGPU1\tGPU2\tGPU3\tmlx5_0\tCPU Affinity\tNUMA Affinity\r\n"
	"GPU0\t X \tNV4\tSYS\tSYS\tPHB\t0-11\t0\r\n"
	"GPU1\tNV4\t X \tSYS\tSYS\tPHB\t0-11\t0\r\n"
	"GPU2\tSYS\tSYS\t X \tNV2\tSYS\t12-23\t1\r\n"
	"GPU3\tSYS\tSYS\tNV2\t X \tSYS\t12-23\t1\r\n"
	"mlx5_0\tPHB\tPHB\tSYS\tSYS\t X \r\n"
	"\r\n"
	"Legend:\r\n";

static void test_topo_h200(void **state)
{
	struct vw_nvlink_topo t;
	struct vw_err err = { 0 };

	(void)state;
	assert_int_equal(vw_nvlink_parse_topo(h200_topo, sizeof(h200_topo) - 1, &t, &err), 0);
	assert_int_equal(t.ngpus, 2);
	assert_int_equal(t.nnics, 0);
	assert_int_equal(t.gpu[0], 0);
	assert_int_equal(t.gpu[1], 1);
	assert_int_equal(vw_nvlink_topo_cell(&t, 0, 0)->kind, VW_LINK_SELF);
	assert_int_equal(vw_nvlink_topo_cell(&t, 0, 1)->kind, VW_LINK_NVLINK);
	assert_int_equal(vw_nvlink_topo_cell(&t, 0, 1)->links, 18);
	assert_int_equal(vw_nvlink_topo_cell(&t, 1, 0)->links, 18);
	assert_string_equal(vw_topo_cell_name(vw_nvlink_topo_cell(&t, 1, 0)), "NV18");
	assert_string_equal(t.cpu_affinity[0], "0-31");
	assert_string_equal(t.numa_affinity[1], "0");
	assert_int_equal(vw_nvlink_topo_pos(&t, 1), 1);
	assert_int_equal(vw_nvlink_topo_pos(&t, 7), -1);
	vw_nvlink_topo_done(&t);
}

static void test_topo_pairs(void **state)
{
	struct vw_nvlink_topo t;
	struct vw_err err = { 0 };

	(void)state;
	assert_int_equal(vw_nvlink_parse_topo(pairs_topo, sizeof(pairs_topo) - 1, &t, &err), 0);
	assert_int_equal(t.ngpus, 4);
	assert_int_equal(t.nnics, 1);
	assert_int_equal(vw_nvlink_topo_cell(&t, 0, 1)->links, 4);
	assert_int_equal(vw_nvlink_topo_cell(&t, 0, 2)->kind, VW_LINK_SYS);
	assert_int_equal(vw_nvlink_topo_cell(&t, 2, 3)->links, 2);
	assert_string_equal(t.cpu_affinity[2], "12-23");
	assert_string_equal(t.numa_affinity[3], "1");
	vw_nvlink_topo_done(&t);
}

static void test_topo_single_and_errors(void **state)
{
	static const char single[] = "\tGPU0\tCPU Affinity\tNUMA Affinity\n"
				     "GPU0\t X \t0-7\tN/A\n";
	static const char *const bad[] = {
		"",
		"No devices were found\n",
		"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
		"Make sure that the latest NVIDIA driver is installed and running.\n",
		"\tGPU0\tGPU1\nGPU0\t X \n",			/* short row */
		"\tGPU0\tGPU1\nGPU0\t X \tNV1\n",		/* no row for GPU1 */
		"\tGPU0\tGPU0\nGPU0\t X \tX\n",			/* a column twice */
		"\tGPU0\nGPU0\tX\nGPU0\tX\n",			/* a row twice */
		"\tNIC0\nNIC0\tX\n",				/* no GPU at all */
	};
	struct vw_nvlink_topo t;
	struct vw_err err = { 0 };

	(void)state;
	assert_int_equal(vw_nvlink_parse_topo(single, sizeof(single) - 1, &t, &err), 0);
	assert_int_equal(t.ngpus, 1);
	assert_int_equal(vw_nvlink_topo_cell(&t, 0, 0)->kind, VW_LINK_SELF);
	assert_string_equal(t.cpu_affinity[0], "0-7");
	vw_nvlink_topo_done(&t);
	for (size_t i = 0; i < VW_ARRAY_SIZE(bad); i++) {
		vw_err_clear(&err);
		assert_int_equal(vw_nvlink_parse_topo(bad[i], strlen(bad[i]), &t, &err), -EINVAL);
		assert_true(err.msg[0] != '\0');
		vw_nvlink_topo_done(&t);
	}
	/* nvidia-smi's own complaint is quoted. */
	assert_int_equal(vw_nvlink_parse_topo(bad[1], strlen(bad[1]), &t, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "No devices were found"));
	vw_nvlink_topo_done(&t);
}

/* Garbage never crashes (run under ASan in CI): every prefix of the real
 * text, random byte flips, and random bytes. */
static void test_topo_garbage(void **state)
{
	char buf[sizeof(h200_topo)];
	unsigned seed = 12345;
	struct vw_nvlink_topo t;
	struct vw_p2p p;
	struct vw_nvlink_status s;
	struct vw_err err;

	(void)state;
	for (size_t len = 0; len < sizeof(h200_topo); len++) {
		vw_nvlink_parse_topo(h200_topo, len, &t, &err);
		vw_nvlink_topo_done(&t);
	}
	for (int round = 0; round < 3000; round++) {
		size_t len = sizeof(h200_topo) - 1;

		memcpy(buf, h200_topo, len);
		for (int k = 0; k < 1 + round % 8; k++) {
			seed = seed * 1103515245 + 12345;
			buf[(seed >> 8) % len] = (char)(seed >> 20);
		}
		if (vw_nvlink_parse_topo(buf, len, &t, &err) == 0) {
			assert_true(t.ngpus >= 1);
			for (size_t i = 0; i < t.ngpus * t.ngpus; i++)
				assert_true(t.cell[i].kind <= VW_LINK_SOC);
		}
		vw_nvlink_topo_done(&t);
		vw_nvlink_parse_p2p(buf, len, &p, &err);
		vw_p2p_done(&p);
		vw_nvlink_parse_status(buf, len, &s, &err);
		vw_nvlink_status_done(&s);
	}
	for (int round = 0; round < 500; round++) {
		for (size_t i = 0; i < sizeof(buf); i++) {
			seed = seed * 1103515245 + 12345;
			buf[i] = "GPU0123\t \nNVX\x1b[m"[(seed >> 16) % 16];
		}
		vw_nvlink_parse_topo(buf, sizeof(buf), &t, &err);
		vw_nvlink_topo_done(&t);
	}
}

static void test_p2p(void **state)
{
	static const char partial[] = "\tGPU0\tGPU1\tGPU2\n"
				      "GPU0\tX\tOK\tNS\n"
				      "GPU1\tOK\tX\tCNS\n"
				      "GPU2\tNS\tCNS\tX\n";
	struct vw_p2p p;
	struct vw_err err = { 0 };

	(void)state;
	assert_int_equal(vw_nvlink_parse_p2p(h200_p2p, sizeof(h200_p2p) - 1, &p, &err), 0);
	assert_int_equal(p.ngpus, 2);
	assert_int_equal(p.st[0], VW_P2P_SELF);
	assert_int_equal(p.st[1], VW_P2P_OK);
	assert_true(vw_p2p_all_ok(&p));
	vw_p2p_done(&p);
	assert_int_equal(vw_nvlink_parse_p2p(partial, sizeof(partial) - 1, &p, &err), 0);
	assert_false(vw_p2p_all_ok(&p));
	assert_int_equal(p.st[0 * 3 + 2], VW_P2P_NS);
	assert_int_equal(p.st[1 * 3 + 2], VW_P2P_CNS);
	assert_string_equal(vw_p2p_name(p.st[5]), "CNS");
	vw_p2p_done(&p);
	assert_int_equal(vw_nvlink_parse_p2p("oops\n", 5, &p, &err), -EINVAL);
	vw_p2p_done(&p);
}

static void test_status(void **state)
{
	struct vw_buf b = VW_BUF_INIT;
	struct vw_nvlink_status s;
	struct vw_err err = { 0 };

	(void)state;
	for (int g = 0; g < 2; g++) {
		vw_buf_printf(&b, "GPU %d: NVIDIA H200 (UUID: GPU-REDACTED)\n", g);
		for (int l = 0; l < 18; l++)
			vw_buf_printf(&b, "\t Link %d: %s\n", l, g == 1 && l >= 16 ? "<inactive>" : "26.562 GB/s");
	}
	vw_buf_adds(&b, "GPU 2: NVIDIA A10 (UUID: GPU-X)\n"
			"\t NVML: Unable to retrieve NVLink information as all links are inActive\n");
	assert_int_equal(vw_nvlink_parse_status(b.data, b.len, &s, &err), 0);
	assert_int_equal(s.ngpus, 3);
	assert_string_equal(s.gpus[0].name, "NVIDIA H200");
	assert_int_equal(s.gpus[0].nlinks, 18);
	assert_int_equal(s.gpus[0].nactive, 18);
	assert_true(s.gpus[0].gbps[3] > 26.561 && s.gpus[0].gbps[3] < 26.563);
	assert_int_equal(s.gpus[1].nactive, 16);
	assert_true(s.gpus[1].gbps[17] < 0);
	assert_true(vw_nvlink_links_min_speed(&s.gpus[1]) > 26.5);
	assert_int_equal(s.gpus[2].gpu, 2);
	assert_int_equal(s.gpus[2].nlinks, 0);
	assert_true(s.gpus[2].all_inactive);
	vw_nvlink_status_done(&s);
	vw_buf_done(&b);
	assert_int_equal(vw_nvlink_parse_status("NVIDIA-SMI has failed\n", 22, &s, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "NVIDIA-SMI has failed"));
	vw_nvlink_status_done(&s);
}

static void test_busids(void **state)
{
	/* As the two-H200 device machine printed it, then an uppercase bus. */
	static const char ok[] = "0, 00000000:00:06.0\n1, 00000000:3B:00.0\n";
	static const char *const bad[] = {
		"", "0 00000000:00:06.0\n", "x, 0000:00:06.0\n", "0, 0000:00:06\n",
		"0, 0000:00:06.0\n0, 0000:00:07.0\n", "-1, 0000:00:06.0\n",
	};
	struct vw_gpu_busid *m;
	size_t n;
	struct vw_err err = { 0 };
	char out[16];

	(void)state;
	assert_int_equal(vw_nvlink_parse_busids(ok, sizeof(ok) - 1, &m, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(m[1].gpu, 1);
	assert_string_equal(m[0].addr, "0000:00:06.0");
	assert_string_equal(m[1].addr, "0000:3b:00.0");
	free(m);
	for (size_t i = 0; i < VW_ARRAY_SIZE(bad); i++) {
		assert_int_equal(vw_nvlink_parse_busids(bad[i], strlen(bad[i]), &m, &n, &err), -EINVAL);
		assert_null(m);
	}
	assert_int_equal(vw_pci_addr_normalize("3b:00.1", out), 0);
	assert_string_equal(out, "0000:3b:00.1");
	assert_int_equal(vw_pci_addr_normalize("10000:01:1f.7", out), 0);
	assert_string_equal(out, "10000:01:1f.7");
	assert_int_equal(vw_pci_addr_normalize("00010000:E0:06.0", out), 0);
	assert_string_equal(out, "10000:e0:06.0");
	assert_int_equal(vw_pci_addr_normalize("ffffffff:ff:1f.7", out), -EINVAL);
	assert_int_equal(vw_pci_addr_normalize("0000:01:20.0", out), -EINVAL);
	assert_int_equal(vw_pci_addr_normalize("0000:01:00.8", out), -EINVAL);
	assert_int_equal(vw_pci_addr_normalize("0000:01:00", out), -EINVAL);
	assert_int_equal(vw_pci_addr_normalize("zz:00.0", out), -EINVAL);
}

/* ---- sets, from hand-made facts --------------------------------------- */

static void test_build_sets(void **state)
{
	struct vw_facts f = { 0 };
	struct vw_nvlink_topo t;
	struct vw_nvlink nl = { 0 };
	struct vw_err err = { 0 };
	struct vw_gpu_busid map[] = {
		{ 0, "0000:81:00.0" }, { 1, "0000:82:00.0" }, { 2, "0000:01:00.0" }, { 3, "0000:02:00.0" },
	};
	char *s;

	(void)state;
	hf_add(&f, "0000:01:00.0", 0x10de, 0x2335, 0x030000, "nvidia", -1);
	hf_add(&f, "0000:02:00.0", 0x10de, 0x2335, 0x030000, "nvidia", -1);
	hf_add(&f, "0000:81:00.0", 0x10de, 0x2335, 0x030000, "nvidia", -1);
	hf_add(&f, "0000:82:00.0", 0x10de, 0x2335, 0x030000, "nvidia", -1);
	assert_int_equal(vw_nvlink_parse_topo(pairs_topo, sizeof(pairs_topo) - 1, &t, &err), 0);

	/* By bus id: GPU0/1 are 81/82, GPU2/3 are 01/02. */
	assert_int_equal(vw_nvlink_build(&nl, &t, map, 4, &f, &err), 0);
	assert_false(nl.order_guessed);
	assert_int_equal(nl.nsets, 2);
	assert_int_equal(nl.sets[0].n, 2);
	assert_string_equal(nl.sets[0].addrs[0], "0000:01:00.0");
	assert_string_equal(nl.sets[0].addrs[1], "0000:02:00.0");
	assert_int_equal(nl.sets[0].links, 2);
	assert_int_equal(nl.sets[1].links, 4);
	assert_ptr_equal(vw_nvlink_set_of(&nl, "0000:82:00.0"), &nl.sets[1]);
	assert_null(vw_nvlink_set_of(&nl, "0000:03:00.0"));
	s = vw_nvlink_to_string(&nl);
	assert_string_equal(s, "0000:01:00.0,0000:02:00.0/NV2 0000:81:00.0,0000:82:00.0/NV4");
	vw_nvlink_done(&nl);

	/* Restored from the state file: the same sets. */
	assert_int_equal(vw_nvlink_from_string(&nl, s, &err), 0);
	assert_int_equal(nl.source, VW_NVLINK_STATE);
	assert_int_equal(nl.nsets, 2);
	assert_int_equal(nl.sets[1].links, 4);
	{
		char *again = vw_nvlink_to_string(&nl);

		assert_string_equal(again, s);
		free(again);
	}
	vw_nvlink_done(&nl);
	free(s);

	/* Without bus ids: by address order, and said so. */
	assert_int_equal(vw_nvlink_build(&nl, &t, NULL, 0, &f, &err), 0);
	assert_true(nl.order_guessed);
	assert_int_equal(nl.nnotes, 1);
	assert_string_equal(nl.sets[0].addrs[0], "0000:01:00.0");
	assert_int_equal(nl.sets[0].links, 4);
	vw_nvlink_done(&nl);

	/* A bus id missing for a GPU of the matrix. */
	assert_int_equal(vw_nvlink_build(&nl, &t, map, 3, &f, &err), -EINVAL);
	vw_nvlink_done(&nl);

	/* NVSwitches join, and merge the sets. */
	hf_add(&f, "0000:c0:00.0", 0x10de, 0x2335, 0x068000, "nvidia-nvswitch", -1);
	assert_int_equal(vw_nvlink_build(&nl, &t, map, 4, &f, &err), 0);
	assert_int_equal(nl.nsets, 1);
	assert_int_equal(nl.sets[0].n, 5);
	assert_string_equal(nl.sets[0].addrs[4], "0000:c0:00.0");
	assert_int_equal(nl.sets[0].links, 2);
	vw_nvlink_done(&nl);
	vw_nvlink_topo_done(&t);
	hf_free(&f);
}

/* An empty matrix (no GPU column) on a host without NVIDIA GPUs: no set,
 * and no memcpy/qsort from NULL (UBSan in the sanitizer build). */
static void test_build_empty(void **state)
{
	struct vw_facts f = { 0 };
	struct vw_nvlink_topo t;
	struct vw_nvlink nl = { 0 };
	struct vw_err err = { 0 };

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_int_equal(vw_nvlink_build(&nl, &t, NULL, 0, &f, &err), 0);
	assert_int_equal(nl.nsets, 0);
	vw_nvlink_done(&nl);
	/* With an NVSwitch: one set of the switch alone, sorted without fault. */
	hf_add(&f, "0000:c0:00.0", 0x10de, 0x22a3, 0x068000, "nvidia-nvswitch", -1);
	assert_int_equal(vw_nvlink_build(&nl, &t, NULL, 0, &f, &err), 0);
	assert_int_equal(nl.nsets, 1);
	assert_int_equal(nl.sets[0].n, 1);
	vw_nvlink_done(&nl);
	hf_free(&f);
}

static void test_state_errors(void **state)
{
	static const char *const bad[] = {
		"0000:01:00.0", "0000:01:00.0,zz", "0000:01:00.0,0000:02:00.0/NV",
		"0000:01:00.0,0000:02:00.0/XX4", "0000:01:00.0,0000:02:00.0 0000:02:00.0,0000:03:00.0",
		"0000:01:00.0,0000:02:00.0/NV0",
	};
	struct vw_nvlink nl;
	struct vw_err err = { 0 };
	char *s;

	(void)state;
	assert_int_equal(vw_nvlink_from_string(&nl, "", &err), 0);
	assert_int_equal(nl.nsets, 0);
	s = vw_nvlink_to_string(&nl);
	assert_string_equal(s, "");
	free(s);
	vw_nvlink_done(&nl);
	assert_int_equal(vw_nvlink_from_string(&nl, " 02:00.0,01:00.0 ", &err), 0);
	assert_string_equal(nl.sets[0].addrs[0], "0000:01:00.0");
	assert_int_equal(nl.sets[0].links, 0);
	vw_nvlink_done(&nl);
	for (size_t i = 0; i < VW_ARRAY_SIZE(bad); i++) {
		assert_int_equal(vw_nvlink_from_string(&nl, bad[i], &err), -EINVAL);
		assert_int_equal(nl.nsets, 0);
	}
}

/* ---- the probe: recorded outputs in a scratch sysroot ------------------ */

static void test_probe_recorded(void **state)
{
	char *root = tu_mkroot();
	struct vw_sysroot *sr = NULL;
	struct vw_facts f = { 0 };
	struct vw_nvlink nl;
	struct vw_err err = { 0 };

	(void)state;
	hf_add(&f, "0000:00:06.0", 0x10de, 0x2335, 0x030200, "nvidia", -1);
	hf_add(&f, "0000:00:07.0", 0x10de, 0x2335, 0x030200, "nvidia", -1);
	assert_int_equal(vw_sysroot_open(&sr, root, &err), 0);

	/* Nothing recorded: nothing known, and why. */
	assert_int_equal(vw_nvlink_probe(&nl, sr, &f, &err), 0);
	assert_int_equal(nl.source, VW_NVLINK_NONE);
	assert_int_equal(nl.nsets, 0);
	assert_true(nl.nnotes >= 1);
	vw_nvlink_done(&nl);

	tu_write(root, ".vfiowiz/cmd/nvidia-smi_topo_-m", h200_topo);
	tu_write(root, ".vfiowiz/cmd/nvidia-smi_--query-gpu_index_pci.bus_id_--format_csv_noheader",
		 "0, 00000000:00:07.0\n1, 00000000:00:06.0\n");
	assert_int_equal(vw_nvlink_probe(&nl, sr, &f, &err), 0);
	assert_int_equal(nl.source, VW_NVLINK_RECORDED);
	assert_false(nl.order_guessed);
	assert_int_equal(nl.nsets, 1);
	assert_int_equal(nl.sets[0].links, 18);
	assert_string_equal(nl.sets[0].addrs[0], "0000:00:06.0");
	vw_nvlink_done(&nl);

	/* nvidia-smi failing (GPUs already on vfio-pci): with an NVSwitch on
	 * the host, everything NVIDIA is one inferred set. */
	tu_write(root, ".vfiowiz/cmd/nvidia-smi_topo_-m", "No devices were found\n");
	tu_write(root, ".vfiowiz/cmd/nvidia-smi_topo_-m.rc", "6\n");
	hf_add(&f, "0000:10:00.0", 0x10de, 0x2335, 0x068000, "", -1);
	assert_int_equal(vw_nvlink_probe(&nl, sr, &f, &err), 0);
	assert_int_equal(nl.source, VW_NVLINK_INFERRED);
	assert_int_equal(nl.nsets, 1);
	assert_int_equal(nl.sets[0].n, 3);
	assert_true(nl.nnotes >= 2);
	vw_nvlink_done(&nl);

	vw_sysroot_free(sr);
	hf_free(&f);
	tu_rmtree(root);
	free(root);
}

/* The nvswitch-8gpu fixture: its recorded topo -m, NIC columns, escapes. */
static void test_probe_nvswitch_host(void **state)
{
	char *root = tu_host("nvswitch-8gpu");
	struct vw_sysroot *sr = NULL;
	struct vw_facts f;
	struct vw_nvlink nl;
	struct vw_err err = { 0 };
	char *s;

	(void)state;
	if (!root)
		skip();
	assert_int_equal(vw_sysroot_open(&sr, root, &err), 0);
	assert_int_equal(vw_facts_probe(&f, sr, &err), 0);
	assert_int_equal(vw_nvlink_probe(&nl, sr, &f, &err), 0);
	assert_int_equal(nl.source, VW_NVLINK_RECORDED);
	assert_int_equal(nl.nsets, 1);
	assert_int_equal(nl.sets[0].n, 12);
	assert_int_equal(nl.sets[0].links, 18);
	s = vw_nvlink_to_string(&nl);
	assert_string_equal(s, "0000:06:00.0,0000:07:00.0,0000:08:00.0,0000:09:00.0,"
			       "0000:18:00.0,0000:2a:00.0,0000:3a:00.0,0000:5d:00.0,"
			       "0000:9a:00.0,0000:ab:00.0,0000:ba:00.0,0000:db:00.0/NV18");
	free(s);
	vw_nvlink_done(&nl);
	vw_facts_done(&f);
	vw_sysroot_free(sr);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topo_h200),
		cmocka_unit_test(test_topo_pairs),
		cmocka_unit_test(test_topo_single_and_errors),
		cmocka_unit_test(test_topo_garbage),
		cmocka_unit_test(test_p2p),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_busids),
		cmocka_unit_test(test_build_sets),
		cmocka_unit_test(test_build_empty),
		cmocka_unit_test(test_state_errors),
		cmocka_unit_test(test_probe_recorded),
		cmocka_unit_test(test_probe_nvswitch_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
