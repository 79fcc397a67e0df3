/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-offer.c - the GPU step's offer (issue 16), its core half (picks.h):
 * what a card can be shared as, with the free capacity of the fixture
 * hosts, and the edits of the choices it makes: one way at a time, whole
 * or shared, nothing of a card left once it goes or goes whole. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "answers.h"
#include "facts.h"
#include "mig.h"
#include "picks.h"
#include "sysroot.h"
#include "vmplan.h"

struct host {
	char *root;
	struct vw_sysroot *sr;
	struct vw_facts f;
};

static bool host_open(struct host *h, const char *name)
{
	struct vw_err err = { 0 };

	h->root = tu_host(name);
	if (!h->root)
		return false;
	assert_int_equal(vw_sysroot_open(&h->sr, h->root, &err), 0);
	assert_int_equal(vw_facts_probe(&h->f, h->sr, &err), 0);
	return true;
}

static void host_close(struct host *h)
{
	vw_facts_done(&h->f);
	vw_sysroot_free(h->sr);
	free(h->root);
}

static int idx(const struct host *h, const char *addr)
{
	int i = vw_facts_find_dev(&h->f, addr);

	assert_true(i >= 0);
	return i;
}

/* The choices as one string: "devices|sriov|mdev|vgpu|mig". */
static char *keys(const struct vw_choices *c)
{
	struct vw_buf b = VW_BUF_INIT;
	char *const *v[] = { c->devices, c->sriov, c->mdevs, c->vgpus, c->migs };

	for (size_t k = 0; k < VW_ARRAY_SIZE(v); k++) {
		for (size_t i = 0; v[k] && v[k][i]; i++)
			vw_buf_printf(&b, "%s%s", i ? "," : "", v[k][i]);
		if (k + 1 < VW_ARRAY_SIZE(v))
			vw_buf_adds(&b, "|");
	}
	return b.data;
}

static void assert_keys(const struct vw_choices *c, const char *want)
{
	char *got = keys(c);

	assert_string_equal(got, want);
	free(got);
}

static void assert_valid(const struct vw_choices *c, const struct vw_facts *f)
{
	struct vw_err err = { 0 };
	struct vw_choices cp;
	struct vw_buf b = VW_BUF_INIT;

	if (vw_answers_check(c, f, &err) < 0)
		fail_msg("vw_answers_check: %s", err.msg);
	/* what the wizard saves reads back, and tidy finds no trace */
	vw_answers_format(&b, c);
	memset(&cp, 0, sizeof(cp));
	assert_int_equal(vw_answers_parse(&cp, b.data, b.len, "state.conf", &err), 0);
	assert_false(vw_choices_tidy(&cp, f, NULL));
	vw_choices_done(&cp);
	vw_buf_done(&b);
}

/* The Z790's UHD 770 with its 7 VFs bound to i915: VFs, never whole. */
static void test_vfs(void **state)
{
	struct host h;
	struct vw_choices c;
	struct vw_offer o;
	int pf;

	(void)state;
	if (!host_open(&h, "z790-igpu-sriov"))
		skip();
	pf = idx(&h, "0000:00:02.0");
	vw_offer_build(&o, &h.f, NULL, pf);
	assert_int_equal(o.sriov_total, 7);
	assert_int_equal(o.sriov_num, 7);
	assert_int_equal(o.vfs_used, 7);
	assert_false(vw_offer_whole_ok(&o));
	assert_true(vw_offer_shareable(&o));
	assert_int_equal(o.ntypes, 0);
	assert_null(o.mig);
	assert_int_equal(vw_picks_card(&h.f, idx(&h, "0000:00:02.3")), pf);

	vw_choices_init(&c);
	assert_int_equal(vw_choices_share_vfs(&c, &h.f, NULL, &o, 0), -ENOSPC);
	assert_int_equal(vw_choices_share_vfs(&c, &h.f, NULL, &o, 8), -ENOSPC);
	assert_keys(&c, "||||");
	assert_int_equal(vw_choices_share_vfs(&c, &h.f, NULL, &o, 3), 0);
	assert_keys(&c, "0000:00:02.1|0000:00:02.0=3|||");
	assert_true(vw_choices_shared(&c, &h.f, pf));
	assert_false(vw_choices_has_gpu(&c, &h.f.devs[pf]));
	assert_valid(&c, &h.f);
	/* again with another count: one element, not two */
	assert_int_equal(vw_choices_share_vfs(&c, &h.f, NULL, &o, 5), 0);
	assert_keys(&c, "0000:00:02.1|0000:00:02.0=5|||");
	/* the other card whole beside it: the share stays */
	vw_choices_set_gpu(&c, &h.f, NULL, &h.f.devs[idx(&h, "0000:01:00.0")], true);
	assert_keys(&c, "0000:00:02.1,0000:01:00|0000:00:02.0=5|||");
	/* the card whole: nothing of the share survives */
	vw_choices_set_gpu(&c, &h.f, NULL, &h.f.devs[pf], true);
	assert_keys(&c, "0000:01:00,0000:00:02||||");
	assert_false(vw_choices_shared(&c, &h.f, pf));
	/* shared again, then not at all */
	assert_int_equal(vw_choices_share_vfs(&c, &h.f, NULL, &o, 7), 0);
	assert_keys(&c, "0000:01:00,0000:00:02.1|0000:00:02.0=7|||");
	vw_choices_set_gpu(&c, &h.f, NULL, &h.f.devs[pf], false);
	assert_keys(&c, "0000:01:00||||");

	/* A hand-made mix (the card whole and shared): tidy keeps the whole. */
	vw_choices_done(&c);
	vw_choices_init(&c);
	assert_int_equal(vw_choices_share_vfs(&c, &h.f, NULL, &o, 2), 0);
	vw_choices_set_slot(&c, &h.f.devs[idx(&h, "0000:00:02.4")], true);	/* a VF: its address */
	c.devices = vw_xreallocarray(c.devices, c.ndevices + 2, sizeof(char *));
	c.devices[c.ndevices++] = vw_xstrdup("0000:00:02");
	c.devices[c.ndevices] = NULL;
	assert_true(vw_choices_tidy(&c, &h.f, NULL));
	assert_keys(&c, "0000:00:02||||");
	vw_choices_done(&c);
	vw_offer_done(&o);
	host_close(&h);

	/* Before the VFs exist: the count alone, no device yet. */
	if (!host_open(&h, "z790-igpu-sriov-novfs"))
		skip();
	pf = idx(&h, "0000:00:02.0");
	vw_offer_build(&o, &h.f, NULL, pf);
	assert_int_equal(o.sriov_num, 0);
	assert_true(vw_offer_whole_ok(&o));
	vw_choices_init(&c);
	assert_int_equal(vw_choices_share_vfs(&c, &h.f, NULL, &o, 4), 0);
	assert_keys(&c, "|0000:00:02.0=4|||");
	assert_true(vw_choices_shared(&c, &h.f, pf));
	assert_valid(&c, &h.f);
	vw_choices_done(&c);
	vw_offer_done(&o);
	host_close(&h);
}

/* The A100's mdev types on its 4 VFs, and the L40's vendor-specific types. */
static void test_types(void **state)
{
	struct host h;
	struct vw_choices c;
	struct vw_offer o;
	int pf;
	size_t k10 = SIZE_MAX;

	(void)state;
	if (!host_open(&h, "a100-vgpu"))
		skip();
	pf = idx(&h, "0000:41:00.0");
	vw_offer_build(&o, &h.f, NULL, pf);
	assert_false(vw_offer_whole_ok(&o));	/* its VFs are nvidia's */
	assert_true(o.vf_model);		/* no bare VFs for NVIDIA */
	assert_int_equal(o.ntypes, 7);
	for (size_t k = 0; k < o.ntypes; k++) {
		assert_false(o.types[k].vgpu);
		assert_int_equal(o.types[k].free, 4);	/* one per VF, 4 VFs */
		assert_int_equal(o.types[k].total, 4);
		if (!strcmp(o.types[k].id, "nvidia-701"))
			k10 = k;
	}
	assert_true(k10 < o.ntypes);
	assert_string_equal(o.types[k10].name, "GRID A100D-10C");
	vw_choices_init(&c);
	assert_int_equal(vw_choices_share_type(&c, &h.f, NULL, &o, k10), 0);
	assert_keys(&c, "||0000:41:00.4=nvidia-701||");
	assert_true(vw_choices_shared(&c, &h.f, pf));
	assert_valid(&c, &h.f);
	assert_int_equal(vw_choices_share_type(&c, &h.f, NULL, &o, 0), 0);
	assert_keys(&c, "||0000:41:00.4=nvidia-699||");
	/* no free instance: refused, nothing changed */
	o.types[k10].free = 0;
	assert_int_equal(vw_choices_share_type(&c, &h.f, NULL, &o, k10), -ENOSPC);
	assert_keys(&c, "||0000:41:00.4=nvidia-699||");
	assert_int_equal(vw_choices_share_type(&c, &h.f, NULL, &o, o.ntypes), -ENOSPC);
	/* the whole card (hand-made): the mdev goes */
	vw_choices_set_slot(&c, &h.f.devs[pf], true);
	assert_true(vw_choices_tidy(&c, &h.f, NULL));
	assert_keys(&c, "0000:41:00||||");
	vw_choices_done(&c);
	vw_offer_done(&o);
	host_close(&h);

	if (!host_open(&h, "l40-vgpu"))
		skip();
	pf = idx(&h, "0000:41:00.0");
	vw_offer_build(&o, &h.f, NULL, pf);
	assert_int_equal(o.ntypes, 6);
	for (size_t k = 0; k < o.ntypes; k++) {
		assert_true(o.types[k].vgpu);
		assert_int_equal(o.types[k].free, 3);	/* 41:00.7 holds an L40-16C */
		assert_int_equal(o.types[k].total, 4);
	}
	assert_string_equal(o.types[0].id, "1001");
	assert_string_equal(o.types[0].name, "NVIDIA L40-4C");
	vw_choices_init(&c);
	assert_int_equal(vw_choices_share_type(&c, &h.f, NULL, &o, 3), 0);
	assert_keys(&c, "|||0000:41:00.4=1004|");
	assert_valid(&c, &h.f);
	vw_choices_set_gpu(&c, &h.f, NULL, &h.f.devs[pf], false);
	assert_keys(&c, "||||");
	vw_choices_done(&c);
	vw_offer_done(&o);
	host_close(&h);
}

/* The A100 in MIG mode: profiles from nvidia-smi, the free ones choosable;
 * its two VFs (on nvidia, so the whole GPU is not offered) list MIG-backed
 * vGPU types, and a profile brings its type along even where no instance
 * exists yet (the MIG unit makes it at boot). */
static void test_mig(void **state)
{
	struct host h;
	struct vw_choices c;
	struct vw_offer o;
	struct vw_mig m;
	int pf;

	(void)state;
	if (!host_open(&h, "a100-mig"))
		skip();
	pf = idx(&h, "0000:41:00.0");
	vw_mig_probe(&m, h.sr, &h.f);
	vw_offer_build(&o, &h.f, &m, pf);
	assert_non_null(o.mig);
	assert_true(vw_offer_shareable(&o));
	assert_false(vw_offer_whole_ok(&o));
	assert_int_equal(o.vfs_used, 2);
	assert_int_equal(o.nprofiles, 7);
	assert_string_equal(m.profiles[o.profiles[5]].name, "4g.40gb");
	vw_choices_init(&c);
	assert_int_equal(vw_choices_share_mig(&c, &h.f, NULL, &o, &m, 5), -ENOSPC);	/* 0 of 1 free */
	assert_keys(&c, "||||");
	assert_int_equal(vw_choices_share_mig(&c, &h.f, NULL, &o, &m, 0), 0);
	/* GRID A100D-1-10C has no free instance now: the one made at boot */
	assert_keys(&c, "||0000:41:00.4=nvidia-699||0000:41:00.0=1g.10gb");
	assert_valid(&c, &h.f);
	assert_true(vw_choices_shared(&c, &h.f, pf));
	/* 3g.40gb: an instance is free now, and its type on the first VF */
	assert_int_equal(vw_choices_share_mig(&c, &h.f, NULL, &o, &m, 4), 0);
	assert_keys(&c, "||0000:41:00.4=nvidia-700||0000:41:00.0=3g.40gb");
	assert_valid(&c, &h.f);
	vw_choices_set_gpu(&c, &h.f, NULL, &h.f.devs[pf], true);
	assert_keys(&c, "0000:41:00||||");
	vw_choices_done(&c);

	/* A pending mode: shown, nothing choosable. */
	m.gpus[0].current = 0;
	m.gpus[0].pending = 1;
	vw_offer_done(&o);
	vw_offer_build(&o, &h.f, &m, pf);
	assert_non_null(o.mig);
	vw_choices_init(&c);
	assert_int_equal(vw_choices_share_mig(&c, &h.f, NULL, &o, &m, 0), -ENOSPC);
	assert_keys(&c, "||||");
	vw_choices_done(&c);
	vw_offer_done(&o);
	vw_mig_done(&m);
	host_close(&h);
}

/* AMD MxGPU: the MI210 on AMD's GIM host driver makes its one VF itself
 * (no host driver on it): a non-NVIDIA SR-IOV PF, so the VF count is
 * offered (at most sriov_totalvfs, 1), the VF that exists goes to the VM,
 * and the whole GPU may go too (nothing of it is in use on the host). */
static void test_mxgpu(void **state)
{
	struct host h;
	struct vw_choices c;
	struct vw_offer o;
	int pf, vf;

	(void)state;
	if (!host_open(&h, "mi210-gim"))
		skip();
	pf = idx(&h, "0000:41:00.0");
	vf = idx(&h, "0000:41:02.0");
	vw_offer_build(&o, &h.f, NULL, pf);
	assert_false(o.vf_model);
	assert_int_equal(o.sriov_total, 1);
	assert_int_equal(o.sriov_num, 1);
	assert_int_equal(o.vfs_used, 0);
	assert_int_equal(o.ntypes, 0);
	assert_null(o.mig);
	assert_true(vw_offer_shareable(&o));
	assert_true(vw_offer_whole_ok(&o));
	assert_int_equal(vw_picks_card(&h.f, vf), pf);

	vw_choices_init(&c);
	assert_int_equal(vw_choices_share_vfs(&c, &h.f, NULL, &o, 2), -ENOSPC);
	assert_keys(&c, "||||");
	assert_int_equal(vw_choices_share_vfs(&c, &h.f, NULL, &o, 1), 0);
	assert_keys(&c, "0000:41:02.0|0000:41:00.0=1|||");
	assert_true(vw_choices_shared(&c, &h.f, pf));
	assert_true(vw_choices_shared(&c, &h.f, vf));
	assert_false(vw_choices_has_gpu(&c, &h.f.devs[pf]));
	assert_valid(&c, &h.f);
	/* whole instead: the VF and the count go */
	vw_choices_set_gpu(&c, &h.f, NULL, &h.f.devs[pf], true);
	assert_keys(&c, "0000:41:00||||");
	assert_false(vw_choices_shared(&c, &h.f, pf));
	assert_valid(&c, &h.f);
	vw_choices_set_gpu(&c, &h.f, NULL, &h.f.devs[pf], false);
	assert_keys(&c, "||||");
	vw_choices_done(&c);
	vw_offer_done(&o);
	host_close(&h);
}

/* The MI210 after an apply that gave its VF: the VF is on vfio-pci.  The
 * plan refuses the PF whole while a VF of it has a driver (sriov_plan.c
 * check_pfs), so the offer does too; the VF stays offered. */
static void test_mxgpu_applied(void **state)
{
	const char *top = getenv("top_builddir");
	struct vw_err err = { 0 };
	struct vw_choices c;
	struct vw_offer o;
	struct host h;
	char *cmd;
	int pf;

	(void)state;
	h.root = tu_mkroot();
	cmd = vw_xasprintf("cp -a '%s/tests/out/hosts/mi210-gim/.' '%s'", top ? top : ".", h.root);
	if (!top || system(cmd) != 0)
		skip();
	free(cmd);
	tu_symlink(h.root, "sys/devices/pci0000:40/0000:40:01.1/0000:41:02.0/driver",
		   "../../../../bus/pci/drivers/vfio-pci");
	assert_int_equal(vw_sysroot_open(&h.sr, h.root, &err), 0);
	assert_int_equal(vw_facts_probe(&h.f, h.sr, &err), 0);
	assert_string_equal(h.f.devs[idx(&h, "0000:41:02.0")].driver, "vfio-pci");
	pf = idx(&h, "0000:41:00.0");
	vw_offer_build(&o, &h.f, NULL, pf);
	assert_int_equal(o.vfs_used, 1);
	assert_false(vw_offer_whole_ok(&o));
	assert_true(vw_offer_shareable(&o));
	vw_choices_init(&c);
	assert_int_equal(vw_choices_share_vfs(&c, &h.f, NULL, &o, 1), 0);
	assert_keys(&c, "0000:41:02.0|0000:41:00.0=1|||");
	assert_valid(&c, &h.f);
	vw_choices_done(&c);
	vw_offer_done(&o);
	vw_facts_done(&h.f);
	vw_sysroot_free(h.sr);
	tu_rmtree(h.root);
	free(h.root);
}

/* After an apply: the A100's mdev of an earlier run exists on 41:00.4 (its
 * VF holds one vGPU: no instance available there now).  Choosing the same
 * type again keeps that parent (the plan changes nothing), not the first
 * VF with room; an mdev that is not ours (another UUID) does not count. */
static void test_rerun(void **state)
{
	static const char vf4[] = "sys/devices/pci0000:40/0000:40:01.1/0000:41:00.4";
	const char *top = getenv("top_builddir");
	struct vw_choices c, first;
	struct vw_err err = { 0 };
	struct vw_offer o;
	struct host h;
	char uuid[37], *tmp, *cmd, *rel;
	size_t k10 = SIZE_MAX;

	(void)state;
	tmp = tu_mkroot();
	cmd = vw_xasprintf("cp -a '%s/tests/out/hosts/a100-vgpu/.' '%s'", top ? top : ".", tmp);
	if (!top || system(cmd) != 0)
		skip();
	free(cmd);
	/* the UUID the first run's plan gave its mdev */
	vw_choices_init(&first);
	free(first.vm.name);
	first.vm.name = vw_xstrdup("ai");
	first.mdevs = vw_xreallocarray(first.mdevs, 2, sizeof(char *));
	first.mdevs[first.nmdevs++] = vw_xstrdup("0000:41:00.4=nvidia-701");
	first.mdevs[first.nmdevs] = NULL;
	vw_mdev_uuid(&first, 0, uuid);
	for (int t = 699; t <= 705; t++) {
		rel = vw_xasprintf("%s/mdev_supported_types/nvidia-%d/available_instances", vf4, t);
		tu_write(tmp, rel, "0\n");
		free(rel);
	}
	rel = vw_xasprintf("%s/%s/mdev_type", vf4, uuid);
	tu_symlink(tmp, rel, "../mdev_supported_types/nvidia-701");	/* its directory too */
	free(rel);
	rel = vw_xasprintf("sys/bus/mdev/devices/%s", uuid);
	cmd = vw_xasprintf("../../../devices/pci0000:40/0000:40:01.1/0000:41:00.4/%s", uuid);
	tu_symlink(tmp, rel, cmd);
	free(cmd);
	free(rel);

	h.root = tmp;
	assert_int_equal(vw_sysroot_open(&h.sr, h.root, &err), 0);
	assert_int_equal(vw_facts_probe(&h.f, h.sr, &err), 0);
	assert_int_equal(h.f.nmdevs, 1);
	assert_int_equal(h.f.mdevs[0].parent, idx(&h, "0000:41:00.4"));
	assert_string_equal(h.f.mdevs[0].type, "nvidia-701");
	vw_offer_build(&o, &h.f, NULL, idx(&h, "0000:41:00.0"));
	for (size_t k = 0; k < o.ntypes; k++)
		if (!strcmp(o.types[k].id, "nvidia-701"))
			k10 = k;
	assert_true(k10 < o.ntypes);
	assert_int_equal(o.types[k10].free, 3);
	assert_int_equal(o.types[k10].total, 4);

	/* the same VM: ours, kept where it is */
	vw_choices_init(&c);
	free(c.vm.name);
	c.vm.name = vw_xstrdup("ai");
	assert_int_equal(vw_choices_share_type(&c, &h.f, NULL, &o, k10), 0);
	assert_keys(&c, "||0000:41:00.4=nvidia-701||");
	assert_valid(&c, &h.f);
	/* again (another way first, then this type): still there */
	assert_int_equal(vw_choices_share_type(&c, &h.f, NULL, &o, 0), 0);
	assert_keys(&c, "||0000:41:00.5=nvidia-699||");
	assert_int_equal(vw_choices_share_type(&c, &h.f, NULL, &o, k10), 0);
	assert_keys(&c, "||0000:41:00.4=nvidia-701||");
	vw_choices_done(&c);
	/* another VM: that mdev is not ours, the first VF with room */
	vw_choices_init(&c);
	free(c.vm.name);
	c.vm.name = vw_xstrdup("other");
	assert_int_equal(vw_choices_share_type(&c, &h.f, NULL, &o, k10), 0);
	assert_keys(&c, "||0000:41:00.5=nvidia-701||");
	assert_valid(&c, &h.f);
	vw_choices_done(&c);
	vw_choices_done(&first);
	vw_offer_done(&o);
	vw_facts_done(&h.f);
	vw_sysroot_free(h.sr);
	tu_rmtree(tmp);
	free(tmp);
}

/* MIG-backed vGPU types are found by their name: "-1-10C" for 1g.10gb. */
static void test_mig_type(void **state)
{
	struct vw_offer_type t[4] = {
		{ .id = "nvidia-699", .name = "GRID A100D-4C", .free = 4 },
		{ .id = "nvidia-720", .name = "GRID A100D-1-10C", .free = 0 },
		{ .id = "nvidia-721", .name = "GRID A100-1-10C", .free = 2 },
		{ .id = "nvidia-730", .name = "GRID A100-3-40C", .free = 1 },
	};
	struct vw_offer o = { .types = t, .ntypes = 4 };

	(void)state;
	assert_int_equal(vw_offer_mig_type(&o, "1g.10gb"), 2);	/* the first with room */
	assert_int_equal(vw_offer_mig_type(&o, "3g.40gb"), 3);
	assert_int_equal(vw_offer_mig_type(&o, "1g.10gb+me"), -1);
	assert_int_equal(vw_offer_mig_type(&o, "2g.20gb"), -1);
	assert_int_equal(vw_offer_mig_type(&o, "1g.1gb"), -1);	/* not "-1-10C" */
	assert_int_equal(vw_offer_mig_type(&o, "junk"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vfs),
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_mig),
		cmocka_unit_test(test_mig_type),
		cmocka_unit_test(test_mxgpu),
		cmocka_unit_test(test_mxgpu_applied),
		cmocka_unit_test(test_rerun),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
