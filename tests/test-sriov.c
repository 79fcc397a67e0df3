/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-sriov.c - SR-IOV virtual functions, mdev and vGPU types: facts from
 * sysfs, the groups report, and the plan (a VF is bound by our unit at
 * boot, never by early binding; a PF whose VFs are in use is refused; a VF
 * is a guest device of its own). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#include "answers.h"
#include "facts.h"
#include "pipeline.h"
#include "report.h"
#include "sysroot.h"
#include "mig.h"
#include "vmplan.h"
#include "hostplan.h"

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
	/* The VFs are made with autoprobe off, the chosen ones get vfio-pci,
	 * then the others their host driver: on a real kernel (tests/vm) nvme
	 * took the chosen VF the moment sriov_numvfs made it. */
	{
		const char *made = strstr(ch->new_data, "\techo 0 > \"$pf/sriov_drivers_autoprobe\"\n"
							"\techo \"$want\" > \"$pf/sriov_numvfs\"\n"
							"\techo \"$auto\" > \"$pf/sriov_drivers_autoprobe\"\n");
		const char *bind = strstr(ch->new_data, "for dev in");
		const char *rest = strstr(ch->new_data, "for pf in $probe; do");

		assert_non_null(made);
		assert_non_null(rest);
		assert_true(made < bind && bind < rest);
	}
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

/* After vfiowiz-sriov ran: two of the seven VFs on vfio-pci, the other five
 * unbound.  The PF is refused all the same: a VF on vfio-pci belongs to a
 * VM, and the kernel's vfio-pci does not bind a PF with VFs enabled (it
 * answers EBUSY, "Cannot bind to PF with SR-IOV enabled"); seen on the
 * real-kernel test's NVMe PF (tests/vm). */
static void test_pf_vfs_on_vfio(void **state)
{
	struct tu_fixture h;
	char *copy, *cmd;
	struct vw_err err = { 0 };

	(void)state;
	h.root = tu_host("z790-igpu-sriov");
	if (!h.root)
		skip();
	copy = tu_mkroot();
	cmd = vw_xasprintf("cp -a %s/. %s/", h.root, copy);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	for (int n = 1; n <= 7; n++) {
		char rel[96];

		snprintf(rel, sizeof(rel), "sys/bus/pci/devices/0000:00:02.%d/driver", n);
		cmd = vw_xasprintf("%s/%s", copy, rel);
		assert_int_equal(unlink(cmd), 0);
		free(cmd);
		if (n == 1 || n == 3)
			tu_symlink(copy, rel, "../../../bus/pci/drivers/vfio-pci");
	}
	tu_mkdir(copy, "sys/bus/pci/drivers/vfio-pci");
	free(h.root);
	h.root = copy;
	assert_int_equal(vw_sysroot_open(&h.sr, h.root, &err), 0);
	assert_int_equal(vw_facts_probe(&h.f, h.sr, &err), 0);
	assert_string_equal(dev(&h, "0000:00:02.1")->driver, "vfio-pci");
	assert_string_equal(dev(&h, "0000:00:02.2")->driver, "");
	expect_refused(&h, "devices = {\"0000:00:02.0\"}\nallow_host_display = true\n", "2 virtual functions in use");
	tu_rmtree(copy);
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
	/* No VF chosen: autoprobe is the host's business. */
	assert_null(strstr(ch->new_data, "sriov_drivers_autoprobe"));
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

/* The mig key planned: a unit that makes the missing GPU instances at
 * boot, checked against nvidia-smi's facts; refusals say why. */
static void test_mig_plan(void **state)
{
	static const char ok[] = "mig = {\"41:00.0=3g.40gb\", \"41:00.0=3g.40gb\", \"41:00.0=1g.10gb\"}\n"
				 "mdev = {\"0000:41:00.4=nvidia-700\"}\nvm {\n name = \"ai\"\n}\n";
	struct vw_plan plan;
	struct vw_plan_info pi;
	struct vw_err err = { 0 };
	const struct vw_change *ch;
	struct vw_mig m;
	bool unused_note = false, unit_note = false, off_note = false;
	struct tu_fixture h;

	(void)state;
	if (!tu_fixture_open(&h, "a100-mig"))
		skip();
	/* The instance made already, from -lgi. */
	vw_mig_probe(&m, h.sr, &h.f);
	assert_true(m.instances_known);
	assert_int_equal(m.ninstances, 1);
	assert_int_equal(vw_mig_count(&m, 0, "3g.40gb"), 1);
	assert_int_equal(vw_mig_count(&m, 0, "1g.10gb"), 0);
	assert_int_equal(m.instances[0].id, 2);
	assert_int_equal(m.instances[0].profile, 9);
	vw_mig_done(&m);

	assert_int_equal(plan_for(&h, ok, &plan, &pi, &err), 0);
	ch = change_of(&plan, VW_MIG_SCRIPT);
	assert_non_null(ch);
	assert_int_equal(ch->mode, 0755);
	/* Once per GPU, then one call per profile with the count wanted
	 * (what exists is counted at boot, not here). */
	assert_non_null(strstr(ch->new_data, "\nmig_on 0000:41:00.0\ninstances 0000:41:00.0 3g.40gb 9 2\n"
				       "instances 0000:41:00.0 1g.10gb 19 1\n"));
	assert_null(strstr(ch->new_data, "-dgi"));
	assert_null(strstr(ch->new_data, "-dci"));
	ch = change_of(&plan, VW_MIG_UNIT);
	assert_non_null(ch);
	assert_non_null(strstr(ch->new_data, "ExecStart=/usr/local/sbin/vfiowiz-mig\n"));
	assert_non_null(strstr(ch->new_data, "Before=nvidia-vgpu-mgr.service"));
	assert_non_null(strstr(ch->new_data, "After=systemd-modules-load.service nvidia-persistenced.service\n"));
	assert_string_equal(ch->post[1], "systemctl enable vfiowiz-mig.service");
	for (size_t i = 0; i < pi.nnotes; i++) {
		unused_note = unused_note || strstr(pi.notes[i], "No vGPU of this plan uses");
		unit_note = unit_note || strstr(pi.notes[i], "stay until the next reboot");
		off_note = off_note || strstr(pi.notes[i], "MIG mode is off");
	}
	assert_false(unused_note);
	assert_true(unit_note);
	assert_false(off_note);
	/* The GPU itself stays with nvidia. */
	assert_int_equal(pi.hp.ndevs + pi.hp.nvfs, 0);
	vw_pipeline_info_done(&pi);
	vw_plan_done(&plan);

	/* Instances no vGPU of the plan uses: planned, with a note. */
	assert_int_equal(plan_for(&h, "mig = {\"41:00.0=1g.10gb\"}\n", &plan, &pi, &err), 0);
	unused_note = false;
	for (size_t i = 0; i < pi.nnotes; i++)
		unused_note = unused_note || strstr(pi.notes[i], "No vGPU of this plan uses the MIG instances on 0000:41:00.0");
	assert_true(unused_note);
	vw_pipeline_info_done(&pi);
	vw_plan_done(&plan);

	/* A MIG-backed vGPU type has room only on a free GPU instance of its
	 * profile: none for A100D-1-10C now, one once the unit made it. */
	expect_refused(&h, "mdev = {\"0000:41:00.4=nvidia-699\"}\nvm {\n name = \"ai\"\n}\n",
		       "room for 0 mediated devices of type nvidia-699, and 1");
	assert_int_equal(plan_for(&h, "mig = {\"41:00.0=1g.10gb\"}\nmdev = {\"0000:41:00.4=nvidia-699\"}\n"
				      "vm {\n name = \"ai\"\n}\n", &plan, &pi, &err), 0);
	vw_pipeline_info_done(&pi);
	vw_plan_done(&plan);
	expect_refused(&h, "mig = {\"41:00.0=1g.10gb\", \"41:00.0=1g.10gb\"}\n"
		       "mdev = {\"0000:41:00.4=nvidia-699\", \"0000:41:00.4=nvidia-699\"}\nvm {\n name = \"ai\"\n}\n",
		       "room for 1 mediated device of type nvidia-699, and 2");
	/* One 1g.10gb instance asked, a vGPU of it on each VF: the per-VF
	 * room check passes, the GPU has one instance for two vGPUs. */
	expect_refused(&h, "mig = {\"41:00.0=1g.10gb\"}\n"
		       "mdev = {\"0000:41:00.4=nvidia-699\", \"0000:41:00.5=nvidia-699\"}\nvm {\n name = \"ai\"\n}\n",
		       "0000:41:00.0: the vGPUs of MIG profile 1g.10gb asked on it: 2; its GPU instances of that profile once the MIG unit ran: 1.");
	assert_int_equal(plan_for(&h, "mig = {\"41:00.0=1g.10gb\", \"41:00.0=1g.10gb\"}\n"
				      "mdev = {\"0000:41:00.4=nvidia-699\", \"0000:41:00.5=nvidia-699\"}\n"
				      "vm {\n name = \"ai\"\n}\n", &plan, &pi, &err), 0);
	vw_pipeline_info_done(&pi);
	vw_plan_done(&plan);

	/* Refusals. */
	expect_refused(&h, "mig = {\"41:00.0=5g.50gb\"}\n", "has no MIG profile 5g.50gb; its profiles: 1g.10gb, 1g.10gb+me,");
	expect_refused(&h, "mig = {\"41:00.0=4g.40gb\"}\n",
		       "has room for 0 more GPU instances of profile 4g.40gb (0 made already), and 1 are asked for");
	/* One 3g.40gb exists and one more fits: a third does not. */
	expect_refused(&h, "mig = {\"41:00.0=3g.40gb\", \"41:00.0=3g.40gb\", \"41:00.0=3g.40gb\"}\n",
		       "room for 1 more GPU instance of profile 3g.40gb (1 made already), and 3 are asked for");
	expect_refused(&h, "mig = {\"42:00.0=1g.10gb\"}\n", "0000:42:00.0 is not an NVIDIA GPU");
	expect_refused(&h, "mig = {\"43:00.0=1g.10gb\"}\n", "no PCI device 0000:43:00.0");
	expect_refused(&h, "\nmig = {\"41:00.0=5g.50gb\"}\n", "a.conf:2: 0000:41:00.0 has no MIG profile");
	tu_fixture_close(&h);

	/* nvidia-smi not recorded: no way to tell. */
	if (!tu_fixture_open(&h, "a100-vgpu"))
		skip();
	expect_refused(&h, "mig = {\"41:00.0=1g.10gb\"}\n", "cannot tell whether 0000:41:00.0 can make MIG instances");
	tu_fixture_close(&h);
}

/* AMD MxGPU: the MI210's VF made by GIM is a GPU of its own (own slot,
 * own group), bound by our unit, with the GIM note; the PF stays. */
static void test_mxgpu(void **state)
{
	struct vw_plan plan;
	struct vw_plan_info pi;
	struct vw_err err = { 0 };
	const struct vw_pci_dev *pf, *vf;
	const struct vw_change *ch;
	bool gim = false;
	struct tu_fixture h;

	(void)state;
	if (!tu_fixture_open(&h, "mi210-gim"))
		skip();
	pf = dev(&h, "0000:41:00.0");
	vf = dev(&h, "0000:41:02.0");
	assert_string_equal(pf->driver, "gim");
	assert_int_equal(pf->sriov_total, 1);
	assert_int_equal(pf->nvfs, 1);
	assert_true(vf->vf);
	assert_ptr_equal(&h.f.devs[vf->physfn], pf);
	assert_int_equal(vf->role, VW_ROLE_GPU);
	assert_int_equal(pf->role, VW_ROLE_GPU);
	assert_false(vw_dev_same_slot(vf, pf));
	assert_int_not_equal(vf->group, pf->group);

	assert_int_equal(plan_for(&h, "devices = {\"0000:41:02.0\"}\nvm {\n name = \"rocm\"\n}\n", &plan, &pi, &err), 0);
	assert_int_equal(pi.hp.ndevs, 0);
	assert_int_equal(pi.hp.nvfs, 1);
	ch = change_of(&plan, VW_SRIOV_SCRIPT);
	assert_non_null(ch);
	assert_non_null(strstr(ch->new_data, "for dev in 0000:41:02.0; do"));
	assert_null(strstr(ch->new_data, "0000:41:00.0 >"));
	for (size_t i = 0; i < pi.nnotes; i++)
		gim = gim || strstr(pi.notes[i], "AMD's GIM host driver (gim now)");
	assert_true(gim);
	/* No kernel parameter: GIM makes its VF itself. */
	for (size_t i = 0; i < plan.n; i++)
		assert_null(strstr(plan.v[i].new_data, "max_vfs"));
	vw_pipeline_info_done(&pi);
	vw_plan_done(&plan);
	tu_fixture_close(&h);
}

/* vm { mapping = NAME } on Proxmox: mdev parents as mapping entries with
 * "mdev 1", hostpciN naming them; the same plan applied again is nothing
 * new; libvirt and bad IDs refused. */
static void test_pve_mapping(void **state)
{
	static const char answers[] = "mdev = {\"0000:41:00.4=nvidia-701\", \"0000:41:00.5=nvidia-701\"}\n"
				      "vm {\n target = proxmox\n name = \"ai\"\n guest_os = linux\n mapping = \"vgpu\"\n}\n";
	static const char *const bad[] = { "vm {\n mapping = \"1gpu\"\n}\n", "vm {\n mapping = \"a\"\n}\n",
					   "vm {\n mapping = \"gpu.1\"\n}\n", "vm {\n mapping = \"gpu 1\"\n}\n" };
	struct vw_plan plan;
	struct vw_plan_info pi;
	struct vw_err err = { 0 };
	const struct vw_change *ch;
	struct vw_choices c;
	struct vw_buf b = VW_BUF_INIT;
	struct tu_fixture h;

	(void)state;
	if (!tu_fixture_open(&h, "a100-vgpu"))
		skip();
	assert_int_equal(plan_for(&h, answers, &plan, &pi, &err), 0);
	ch = change_of(&plan, "etc/pve/mapping/pci.cfg");
	assert_non_null(ch);
	assert_string_equal(ch->new_data,
			    "vgpu\n\tmap id=10de:20b5,iommugroup=24,node=NODE,path=0000:41:00.4,subsystem-id=10de:1533\n\tmdev 1\n"
			    "\nvgpu-2\n\tmap id=10de:20b5,iommugroup=25,node=NODE,path=0000:41:00.5,subsystem-id=10de:1533\n\tmdev 1\n");
	ch = change_of(&plan, "etc/pve/qemu-server/100.conf");
	assert_non_null(ch);
	assert_non_null(strstr(ch->new_data, "hostpci0: mapping=vgpu,mdev=nvidia-701,pcie=1\n"
					     "hostpci1: mapping=vgpu-2,mdev=nvidia-701,pcie=1\n"));
	/* No raw address left in the VM. */
	assert_null(strstr(ch->new_data, "hostpci0: 0000"));
	vw_pipeline_info_done(&pi);
	vw_plan_done(&plan);
	tu_fixture_close(&h);

	/* libvirt has no mapping; bad IDs are refused with the key. */
	if (!tu_fixture_open(&h, "a100-vgpu"))
		skip();
	expect_refused(&h, "mdev = {\"0000:41:00.4=nvidia-701\"}\nvm {\n name = \"ai\"\n mapping = \"vgpu\"\n}\n",
		       "a.conf:4: 'vm|mapping' names a Proxmox VE cluster resource mapping: libvirt has none");
	tu_fixture_close(&h);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		vw_choices_init(&c);
		assert_int_not_equal(vw_answers_parse(&c, bad[i], strlen(bad[i]), "t.conf", &err), 0);
		assert_non_null(strstr(err.msg, "'vm|mapping'"));
		vw_choices_done(&c);
	}
	/* Written back as read. */
	vw_choices_init(&c);
	assert_int_equal(vw_answers_parse(&c, answers, strlen(answers), "t.conf", &err), 0);
	vw_answers_format(&b, &c);
	assert_non_null(strstr(b.data, "  mapping = 'vgpu'\n"));
	vw_buf_done(&b);
	vw_choices_done(&c);
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
		cmocka_unit_test(test_pf_vfs_on_vfio),
		cmocka_unit_test(test_mdev),
		cmocka_unit_test(test_numvfs),
		cmocka_unit_test(test_vendor_vgpu),
		cmocka_unit_test(test_mig),
		cmocka_unit_test(test_mig_key),
		cmocka_unit_test(test_mig_plan),
		cmocka_unit_test(test_mxgpu),
		cmocka_unit_test(test_pve_mapping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
