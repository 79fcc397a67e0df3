/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-sriov.c - SR-IOV virtual functions, mdev and vGPU types: facts from
 * sysfs, the groups report, and the plan (a VF is bound by our unit at
 * boot, never by early binding; a PF whose VFs are in use is refused; a VF
 * is a guest device of its own). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "answers.h"
#include "facts.h"
#include "pipeline.h"
#include "report.h"
#include "sysroot.h"
#include "mig.h"
#include "vmplan.h"

static const struct vw_pci_dev *dev(const struct tu_fixture *h, const char *addr)
{
	int i = vw_facts_find_dev(&h->f, addr);

	assert_true(i >= 0);
	return &h->f.devs[i];
}

static void test_facts(void **state)
{
	struct tu_fixture h;
	const struct vw_pci_dev *pf, *vf;

	(void)state;
	if (!tu_fixture_open(&h, "z790-igpu-sriov"))
		skip();
	pf = dev(&h, "0000:00:02.0");
	assert_int_equal(pf->sriov_total, 7);
	assert_int_equal(pf->sriov_num, 7);
	assert_int_equal(pf->sriov_autoprobe, 1);
	assert_int_equal(pf->nvfs, 7);
	assert_false(pf->vf);
	for (size_t k = 0; k < pf->nvfs; k++) {
		vf = &h.f.devs[pf->vfs[k]];
		assert_true(vf->vf);
		assert_ptr_equal(&h.f.devs[vf->physfn], pf);
		assert_int_equal(vf->vf_index, (int)k);
		/* A VF shares no slot with its PF or its siblings. */
		assert_false(vw_dev_same_slot(vf, pf));
		assert_true(vw_dev_same_slot(vf, vf));
		assert_int_equal(vf->role, VW_ROLE_GPU);
		assert_int_equal(vf->gpu, -1);
		assert_int_equal(vf->sriov_total, 0);
	}
	vf = dev(&h, "0000:00:02.3");
	assert_int_equal(vf->vf_index, 2);
	/* The 4090's audio still goes with its GPU: ordinary slots are untouched. */
	assert_int_equal(dev(&h, "0000:01:00.1")->role, VW_ROLE_COMPANION);
	/* Each VF in a group of its own, judged isolated. */
	for (size_t g = 0; g < h.f.ngroups; g++)
		if (h.f.groups[g].ndevs == 1 && h.f.devs[h.f.groups[g].devs[0]].vf)
			assert_int_equal(h.f.groups[g].verdict, VW_GROUP_ISOLATED);
	tu_fixture_close(&h);

	if (!tu_fixture_open(&h, "z790-igpu-sriov-novfs"))
		skip();
	pf = dev(&h, "0000:00:02.0");
	assert_int_equal(pf->sriov_total, 7);
	assert_int_equal(pf->sriov_num, 0);
	assert_int_equal(pf->nvfs, 0);
	tu_fixture_close(&h);

	/* A host without SR-IOV: nothing set, nothing allocated. */
	if (!tu_fixture_open(&h, "amd-desktop"))
		skip();
	for (size_t i = 0; i < h.f.ndevs; i++) {
		assert_false(h.f.devs[i].vf);
		assert_int_equal(h.f.devs[i].sriov_total, 0);
		assert_null(h.f.devs[i].vgpu_types);
	}
	tu_fixture_close(&h);
}

static void test_report(void **state)
{
	struct vw_buf b = VW_BUF_INIT;
	struct tu_fixture h;

	(void)state;
	if (!tu_fixture_open(&h, "z790-igpu-sriov"))
		skip();
	vw_report_groups_text(&b, &h.f, false);
	assert_non_null(strstr(b.data, "GPU, boot display, SR-IOV: 7 of 7 virtual functions enabled"));
	assert_non_null(strstr(b.data, "GPU, virtual function 3 of 0000:00:02.0"));
	vw_buf_done(&b);
	vw_report_groups_json(&b, &h.f, false);
	assert_non_null(strstr(b.data, "\"physfn\": \"0000:00:02.0\""));
	assert_non_null(strstr(b.data, "total_vfs"));
	vw_buf_done(&b);
	tu_fixture_close(&h);
}

static int plan_for(struct tu_fixture *h, const char *answers, struct vw_plan *plan, struct vw_plan_info *pi,
		    struct vw_err *err)
{
	struct vw_choices c;
	int r;

	memset(&c, 0, sizeof(c));
	assert_int_equal(vw_answers_parse(&c, answers, strlen(answers), "a.conf", err), 0);
	vw_plan_init(plan);
	memset(pi, 0, sizeof(*pi));
	r = vw_pipeline_build(plan, h->sr, &h->f, &c, pi, err);
	vw_choices_done(&c);
	return r;
}

/* For tests/validate-libvirt.sh (virt-xml-validate, virsh define). */
static void keep_domain(const char *name, const struct vw_change *c)
{
	const char *b = getenv("top_builddir");
	char *dir;

	if (!b)
		return;
	dir = vw_xasprintf("%s/tests/out/vm-domains", b);
	tu_write_bytes(dir, name, c->new_data, c->new_len);
	free(dir);
}

static const struct vw_change *change_of(const struct vw_plan *p, const char *path)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].path, path))
			return &p->v[i];
	return NULL;
}

/* The answers must be refused, with a message that says why. */
static void expect_refused(struct tu_fixture *h, const char *answers, const char *why)
{
	struct vw_plan plan;
	struct vw_plan_info pi;
	struct vw_err err = { 0 };

	assert_int_not_equal(plan_for(h, answers, &plan, &pi, &err), 0);
	if (!strstr(err.msg, why))
		fail_msg("refused with \"%s\", not \"%s\"", err.msg, why);
	vw_pipeline_info_done(&pi);
	vw_plan_done(&plan);
}

static void test_plan_vf(void **state)
{
	struct vw_plan plan;
	struct vw_plan_info pi;
	struct vw_err err = { 0 };
	const struct vw_change *ch;
	struct tu_fixture h;

	(void)state;
	if (!tu_fixture_open(&h, "z790-igpu-sriov"))
		skip();
	assert_int_equal(plan_for(&h, "devices = {\"0000:00:02.1\", \"0000:00:02.3\"}\n"
				      "vm {\n name = \"w\"\n}\n", &plan, &pi, &err), 0);
	/* No early binding at all: the VFs do not exist then. */
	assert_int_equal(pi.hp.ndevs, 0);
	assert_int_equal(pi.hp.nvfs, 2);
	assert_null(change_of(&plan, "etc/modprobe.d/vfiowiz.conf"));
	assert_null(change_of(&plan, "etc/initramfs-tools/modules"));
	ch = change_of(&plan, VW_SRIOV_SCRIPT);
	assert_non_null(ch);
	assert_non_null(strstr(ch->new_data, "pf=/sys/bus/pci/devices/0000:00:02.0\nwant=7\n"));
	assert_non_null(strstr(ch->new_data, "for dev in 0000:00:02.1 0000:00:02.3; do"));
	/* The PF is never handed over. */
	assert_null(strstr(ch->new_data, "0000:00:02.0 "));
	assert_non_null(change_of(&plan, VW_SRIOV_UNIT));
	/* Each VF is a device of its own in the guest, not functions of one. */
	ch = change_of(&plan, VW_LIBVIRT_DIR "/w.xml");
	assert_non_null(ch);
	assert_null(strstr(ch->new_data, "multifunction"));
	assert_non_null(strstr(ch->new_data, "function=\"0x1\""));
	assert_non_null(strstr(ch->new_data, "function=\"0x3\""));
	keep_domain("sriov-vfs.xml", ch);
	vw_pipeline_info_done(&pi);
	vw_plan_done(&plan);

	/* The PF, with its seven VFs on i915: refused, whatever the opt-ins. */
	expect_refused(&h, "devices = {\"0000:00:02.0\"}\nallow_host_display = true\n", "7 virtual functions in use");
	tu_fixture_close(&h);
}

static void test_mdev(void **state)
{
	static const char libvirt[] = "mdev = {\"0000:41:00.4=nvidia-701\", \"0000:41:00.5=nvidia-701\"}\n"
				      "vm {\n name = \"ai\"\n guest_os = linux\n}\n";
	struct vw_plan plan, again;
	struct vw_plan_info pi;
	struct vw_err err = { 0 };
	struct vw_choices c;
	const struct vw_change *ch, *ch2;
	char uuid[37], path[128];
	struct vw_buf b = VW_BUF_INIT;
	struct tu_fixture h;

	(void)state;
	if (!tu_fixture_open(&h, "a100-vgpu"))
		skip();
	assert_int_equal(dev(&h, "0000:41:00.4")->nmdev_types, 7);
	assert_string_equal(dev(&h, "0000:41:00.4")->mdev_types[2].id, "nvidia-701");
	assert_string_equal(dev(&h, "0000:41:00.4")->mdev_types[2].name, "GRID A100D-10C");
	assert_int_equal(dev(&h, "0000:41:00.4")->mdev_types[2].available, 1);

	/* libvirt: one mdevctl definition each, the domain names them by UUID. */
	assert_int_equal(plan_for(&h, libvirt, &plan, &pi, &err), 0);
	memset(&c, 0, sizeof(c));
	assert_int_equal(vw_answers_parse(&c, libvirt, strlen(libvirt), "a.conf", &err), 0);
	vw_mdev_uuid(&c, 0, uuid);
	assert_int_equal(strlen(uuid), 36);
	assert_int_equal(uuid[14], '5');
	snprintf(path, sizeof(path), "etc/mdevctl.d/0000:41:00.4/%s", uuid);
	ch = change_of(&plan, path);
	assert_non_null(ch);
	assert_string_equal(ch->new_data, "{\n  \"mdev_type\": \"nvidia-701\",\n  \"start\": \"auto\",\n  \"attrs\": []\n}\n");
	ch = change_of(&plan, VW_LIBVIRT_DIR "/ai.xml");
	assert_non_null(ch);
	assert_non_null(strstr(ch->new_data, "type=\"mdev\" model=\"vfio-pci\""));
	assert_non_null(strstr(ch->new_data, uuid));
	keep_domain("mdev-vgpu.xml", ch);
	/* No PCI function of the GPU is bound: the VFs stay with nvidia. */
	assert_int_equal(pi.hp.ndevs + pi.hp.nvfs, 0);
	assert_null(change_of(&plan, "etc/modprobe.d/vfiowiz.conf"));
	/* Planned twice: the same UUIDs, the same bytes. */
	{
		struct vw_plan_info pi2;

		assert_int_equal(plan_for(&h, libvirt, &again, &pi2, &err), 0);
		ch2 = change_of(&again, VW_LIBVIRT_DIR "/ai.xml");
		assert_non_null(ch2);
		assert_string_equal(ch->new_data, ch2->new_data);
		vw_pipeline_info_done(&pi2);
		vw_plan_done(&again);
	}
	/* The answers file keeps them. */
	vw_answers_format(&b, &c);
	assert_non_null(strstr(b.data, "mdev = {'0000:41:00.4=nvidia-701', '0000:41:00.5=nvidia-701'}"));
	vw_buf_done(&b);
	vw_choices_done(&c);
	vw_pipeline_info_done(&pi);
	vw_plan_done(&plan);

	/* Refusals: an unknown type, more than the VF has room for, bad syntax. */
	expect_refused(&h, "mdev = {\"0000:41:00.4=nvidia-999\"}\nvm {\n name = \"ai\"\n}\n", "offers no mediated device type nvidia-999");
	expect_refused(&h, "mdev = {\"0000:41:00.4=nvidia-701\", \"0000:41:00.4=nvidia-701\"}\n"
		       "vm {\n name = \"ai\"\n}\n", "room for 1 mediated device of type nvidia-701, and 2");
	memset(&c, 0, sizeof(c));
	{
		static const char bad[] = "mdev = {\"0000:41:00.4\"}\n";

		assert_int_not_equal(vw_answers_parse(&c, bad, strlen(bad), "a.conf", &err), 0);
	}
	assert_non_null(strstr(err.msg, "expected PARENT=TYPE"));
	vw_choices_done(&c);
	tu_fixture_close(&h);
}

/* sriov_numvfs: the VFs made at every boot before any is chosen. */
static void test_numvfs(void **state)
{
	struct vw_plan plan;
	struct vw_plan_info pi;
	struct vw_err err = { 0 };
	const struct vw_change *ch;
	struct tu_fixture h;

	(void)state;
	if (!tu_fixture_open(&h, "z790-igpu-sriov-novfs"))
		skip();
	assert_int_equal(plan_for(&h, "sriov_numvfs = {\"0000:00:02.0=4\"}\n", &plan, &pi, &err), 0);
	ch = change_of(&plan, VW_SRIOV_SCRIPT);
	assert_non_null(ch);
	assert_non_null(strstr(ch->new_data, "pf=/sys/bus/pci/devices/0000:00:02.0\nwant=4\n"));
	/* Nothing to bind yet, and nothing bound early. */
	assert_null(strstr(ch->new_data, "for dev in"));
	assert_null(strstr(ch->new_data, "modprobe vfio-pci"));
	assert_null(change_of(&plan, "etc/modprobe.d/vfiowiz.conf"));
	assert_non_null(change_of(&plan, VW_SRIOV_UNIT));
	/* The running command line asks i915 for 7 already: no smaller count
	 * of ours after it. */
	for (size_t i = 0; i < plan.n; i++)
		assert_null(strstr(plan.v[i].new_data, "i915.max_vfs=4"));
	vw_pipeline_info_done(&pi);
	vw_plan_done(&plan);

	expect_refused(&h, "sriov_numvfs = {\"0000:00:02.0=8\"}\n", "at most 7 virtual functions, not 8");
	expect_refused(&h, "sriov_numvfs = {\"0000:01:00.0=2\"}\n", "cannot make SR-IOV virtual functions");
	tu_fixture_close(&h);
}

/* vgpu: NVIDIA's vendor-specific model, a VF with a type written at boot. */
static void test_vendor_vgpu(void **state)
{
	static const char answers[] = "vgpu = {\"0000:41:00.4=1004\", \"0000:41:00.5=1002\"}\n"
				      "vm {\n name = \"ai\"\n guest_os = linux\n}\n";
	struct vw_plan plan;
	struct vw_plan_info pi;
	struct vw_err err = { 0 };
	const struct vw_change *ch;
	const struct vw_pci_dev *vf;
	struct tu_fixture h;

	(void)state;
	if (!tu_fixture_open(&h, "l40-vgpu"))
		skip();
	vf = dev(&h, "0000:41:00.4");
	assert_non_null(vf->vgpu_types);
	assert_string_equal(vf->vgpu_types[0], "1001 NVIDIA L40-4C");
	assert_null(vf->vgpu_types[6]);
	assert_string_equal(vf->vgpu_current, "");
	assert_string_equal(dev(&h, "0000:41:00.7")->vgpu_current, "1004");

	assert_int_equal(plan_for(&h, answers, &plan, &pi, &err), 0);
	/* Nothing goes to vfio-pci: nvidia is the VFs' VFIO driver. */
	assert_int_equal(pi.hp.ndevs + pi.hp.nvfs, 0);
	ch = change_of(&plan, VW_SRIOV_SCRIPT);
	assert_non_null(ch);
	assert_non_null(strstr(ch->new_data, "vf=/sys/bus/pci/devices/0000:41:00.4\n"));
	assert_non_null(strstr(ch->new_data, "= 1004 ] || echo 1004 > \"$vf/nvidia/current_vgpu_type\""));
	assert_non_null(strstr(ch->new_data, "= 1002 ] || echo 1002 >"));
	assert_null(strstr(ch->new_data, "driver_override"));
	ch = change_of(&plan, VW_LIBVIRT_DIR "/ai.xml");
	assert_non_null(ch);
	assert_non_null(strstr(ch->new_data, "<hostdev mode=\"subsystem\" type=\"pci\" managed=\"no\">"));
	assert_non_null(strstr(ch->new_data, "bus=\"0x41\" slot=\"0x00\" function=\"0x5\""));
	keep_domain("vendor-vgpu.xml", ch);
	vw_pipeline_info_done(&pi);
	vw_plan_done(&plan);

	/* A type the VF does not list, a VF twice, and Proxmox: refused. */
	expect_refused(&h, "vgpu = {\"0000:41:00.4=1234\"}\n", "cannot take vGPU type 1234");
	expect_refused(&h, "vgpu = {\"0000:41:00.4=1004\", \"0000:41:00.4=1002\"}\n", "given twice");
	expect_refused(&h, "vgpu = {\"0000:41:00.4=1004\"}\nvm {\n target = proxmox\n vmid = 100\n}\n", "libvirt only");
	tu_fixture_close(&h);
}

/* MIG: the recorded nvidia-smi outputs of a100-mig, and garbage. */
static void test_mig(void **state)
{
	static const char garbage[] = "0, zz, Enabled\n| 0 MIG 1g.10gb 19 9/7 9.5 |\n"
				      "| -1 MIG x 1 1/1 1 |\n|   0  MIG 1g.10gb\n\x01\xff";
	struct vw_findings fs = { 0 };
	struct vw_mig m;
	struct tu_fixture h;

	(void)state;
	if (!tu_fixture_open(&h, "a100-mig"))
		skip();
	vw_mig_probe(&m, h.sr, &h.f);
	assert_true(m.known);
	assert_int_equal(m.ngpus, 1);
	assert_string_equal(m.gpus[0].addr, "0000:41:00.0");
	assert_int_equal(m.gpus[0].dev, vw_facts_find_dev(&h.f, "0000:41:00.0"));
	assert_int_equal(m.gpus[0].current, 1);
	assert_int_equal(m.nprofiles, 7);
	assert_string_equal(m.profiles[0].name, "1g.10gb");
	assert_int_equal(m.profiles[0].id, 19);
	assert_int_equal(m.profiles[0].free, 4);
	assert_int_equal(m.profiles[0].total, 7);
	assert_string_equal(m.profiles[6].name, "7g.80gb");
	assert_int_equal(m.profiles[6].id, 0);
	vw_mig_findings(&m, &h.f, &fs);
	assert_non_null(vw_findings_get(&fs, "gpu-mig"));
	assert_non_null(strstr(vw_findings_get(&fs, "gpu-mig")->msg, "3g.40gb (id 9): 1 of 2 free"));
	assert_null(vw_findings_get(&fs, "gpu-mig-pending"));
	vw_findings_done(&fs);
	vw_mig_done(&m);
	tu_fixture_close(&h);

	/* Nothing from garbage: an impossible free/total or GPU is no profile. */
	memset(&m, 0, sizeof(m));
	vw_mig_parse(&m, NULL, garbage, sizeof(garbage) - 1, garbage, sizeof(garbage) - 1);
	assert_int_equal(m.ngpus, 0);
	assert_int_equal(m.nprofiles, 0);
	vw_mig_done(&m);

	/* A host without an NVIDIA GPU on nvidia runs nothing. */
	if (!tu_fixture_open(&h, "z790-igpu-sriov"))
		skip();
	vw_mig_probe(&m, h.sr, &h.f);
	assert_false(m.known);
	assert_int_equal(m.nnotes, 0);
	vw_mig_done(&m);
	tu_fixture_close(&h);
}

/* The mig key: canonical GPU=PROFILE elements, duplicates kept (two
 * instances), written back as read; anything else refused with its line. */
static void test_mig_key(void **state)
{
	static const char ok[] = "mig = {\"41:00.0=1g.10gb\", \"0000:41:00.0=1g.10gb\", \"0000:41:00.0=1g.20gb+me\"}\n";
	static const char *const bad[] = {
		"mig = {\"0000:41:00.0\"}\n", "mig = {\"0000:41:00.0=19\"}\n",
		"mig = {\"0000:41:00.0=1g.10\"}\n", "mig = {\"0000:41:00.0=1g.10gb+\"}\n",
		"mig = {\"0000:41:00.0=1g.10gb;reboot\"}\n", "mig = {\"zz=1g.10gb\"}\n",
	};
	struct vw_choices c;
	struct vw_err err = { 0 };
	struct vw_buf b = { 0 };

	(void)state;
	vw_choices_init(&c);
	assert_int_equal(vw_answers_parse(&c, ok, sizeof(ok) - 1, "t.conf", &err), 0);
	assert_int_equal(c.nmigs, 3);
	assert_string_equal(c.migs[0], "0000:41:00.0=1g.10gb");
	assert_string_equal(c.migs[1], "0000:41:00.0=1g.10gb");
	assert_string_equal(c.migs[2], "0000:41:00.0=1g.20gb+me");
	assert_int_equal(c.mig_line, 1);
	vw_answers_format(&b, &c);
	vw_choices_done(&c);
	vw_choices_init(&c);
	assert_int_equal(vw_answers_parse(&c, b.data, b.len, "back.conf", &err), 0);
	assert_int_equal(c.nmigs, 3);
	assert_string_equal(c.migs[2], "0000:41:00.0=1g.20gb+me");
	vw_buf_done(&b);
	vw_choices_done(&c);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		vw_choices_init(&c);
		assert_int_not_equal(vw_answers_parse(&c, bad[i], strlen(bad[i]), "t.conf", &err), 0);
		assert_non_null(strstr(err.msg, "'mig'"));
		vw_choices_done(&c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_facts),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_plan_vf),
		cmocka_unit_test(test_mdev),
		cmocka_unit_test(test_numvfs),
		cmocka_unit_test(test_vendor_vgpu),
		cmocka_unit_test(test_mig),
		cmocka_unit_test(test_mig_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
