/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-unit.c - the assignment unit on the fixture hosts and on hand-made
 * facts. */
#include "testutil.h"
#include "handfacts.h"
#include "facts.h"
#include "nvlink.h"
#include "unit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct vw_unit_member *member(const struct vw_unit *u, const struct vw_facts *f,
					   const char *addr)
{
	int i = vw_facts_find_dev(f, addr);

	assert_true(i >= 0);
	return vw_unit_find(u, i);
}

static bool has_issue(const struct vw_unit *u, const char *code)
{
	return vw_findings_get(&u->issues, code) != NULL;
}

static char *joined(const struct vw_unit *u, const struct vw_facts *f)
{
	char **v = vw_unit_addrs(u, f);
	struct vw_buf b = VW_BUF_INIT;

	vw_buf_adds(&b, "");
	for (size_t i = 0; v[i]; i++)
		vw_buf_printf(&b, "%s%s", i ? " " : "", v[i]);
	vw_strv_free(v);
	return vw_buf_steal(&b);
}

static void test_turing_4fn(void **state)
{
	const char *sel[] = { "0000:01:00.0" };
	struct tu_fixture h;
	struct vw_unit u;
	struct vw_err err = { 0 };
	struct vw_buf why = VW_BUF_INIT;
	char *s;

	(void)state;
	if (!tu_fixture_open(&h, "turing-4fn"))
		skip();
	assert_int_equal(vw_unit_expand(&h.f, NULL, sel, 1, NULL, &u, &err), 0);
	s = joined(&u, &h.f);
	assert_string_equal(s, "0000:01:00.0 0000:01:00.1 0000:01:00.2 0000:01:00.3");
	free(s);
	assert_int_equal(member(&u, &h.f, "0000:01:00.0")->why, VW_UNIT_CHOSEN);
	assert_int_equal(member(&u, &h.f, "0000:01:00.2")->why, VW_UNIT_FUNCTION);
	vw_unit_why_text(&why, &h.f, member(&u, &h.f, "0000:01:00.3"));
	assert_string_equal(why.data, "same slot as 0000:01:00.0");
	vw_buf_done(&why);
	assert_string_equal(vw_unit_why_name(VW_UNIT_FUNCTION), "same-slot");
	assert_int_equal(u.nbridges, 0);
	assert_int_equal(u.ngroups, 1);
	assert_int_equal(u.groups[0], 13);
	assert_false(u.ids_ambiguous);
	assert_true(vw_unit_ok(&u));
	/* An NVIDIA GPU with nothing known about NVLink: said, not blocking. */
	assert_true(has_issue(&u, "nvlink-unknown"));
	assert_false(has_issue(&u, "boot-vga"));
	vw_unit_done(&u);

	/* Choosing the audio function alone brings the GPU and the rest. */
	sel[0] = "01:00.1";
	assert_int_equal(vw_unit_expand(&h.f, NULL, sel, 1, NULL, &u, &err), 0);
	assert_int_equal(u.n, 4);
	vw_unit_done(&u);

	/* Bad input. */
	sel[0] = "0000:09:00.0";
	assert_int_equal(vw_unit_expand(&h.f, NULL, sel, 1, NULL, &u, &err), -ENOENT);
	vw_unit_done(&u);
	sel[0] = "0000:00:01.0";	/* the root port */
	assert_int_equal(vw_unit_expand(&h.f, NULL, sel, 1, NULL, &u, &err), -EINVAL);
	vw_unit_done(&u);
	sel[0] = "nonsense";
	assert_int_equal(vw_unit_expand(&h.f, NULL, sel, 1, NULL, &u, &err), -EINVAL);
	vw_unit_done(&u);
	assert_int_equal(vw_unit_expand(&h.f, NULL, sel, 0, NULL, &u, &err), -EINVAL);
	vw_unit_done(&u);
	tu_fixture_close(&h);
}

static void nvswitch_setup(struct tu_fixture *h, struct vw_nvlink *nl)
{
	struct vw_err err = { 0 };

	assert_int_equal(vw_nvlink_probe(nl, h->sr, &h->f, &err), 0);
	assert_int_equal(nl->nsets, 1);
}

static void test_nvswitch_whole(void **state)
{
	const char *sel[] = { "0000:18:00.0" };
	struct tu_fixture h;
	struct vw_nvlink nl;
	struct vw_unit u;
	struct vw_err err = { 0 };
	size_t gpus = 0, switches = 0;
	char *s;

	(void)state;
	if (!tu_fixture_open(&h, "nvswitch-8gpu"))
		skip();
	nvswitch_setup(&h, &nl);
	assert_int_equal(vw_unit_expand(&h.f, &nl, sel, 1, NULL, &u, &err), 0);
	assert_int_equal(u.n, 12);
	for (size_t i = 0; i < u.n; i++) {
		gpus += u.m[i].why == VW_UNIT_NVLINK_PEER;
		switches += u.m[i].why == VW_UNIT_NVSWITCH;
	}
	assert_int_equal(gpus, 7);
	assert_int_equal(switches, 4);
	assert_int_equal(member(&u, &h.f, "0000:db:00.0")->why, VW_UNIT_NVLINK_PEER);
	assert_int_equal(member(&u, &h.f, "0000:06:00.0")->why, VW_UNIT_NVSWITCH);
	/* The NICs beside the GPUs are in groups of their own: they stay. */
	assert_null(member(&u, &h.f, "0000:19:00.0"));
	s = joined(&u, &h.f);
	assert_string_equal(s, "0000:06:00.0 0000:07:00.0 0000:08:00.0 0000:09:00.0 "
			       "0000:18:00.0 0000:2a:00.0 0000:3a:00.0 0000:5d:00.0 "
			       "0000:9a:00.0 0000:ab:00.0 0000:ba:00.0 0000:db:00.0");
	free(s);
	assert_false(u.nvlink_split);
	assert_true(vw_unit_ok(&u));
	/* The GPU numbers were matched by order (no bus ids recorded). */
	assert_true(has_issue(&u, "nvlink-guessed"));
	assert_true(u.ids_ambiguous == false);
	vw_unit_done(&u);
	vw_nvlink_done(&nl);
	tu_fixture_close(&h);
}

static void test_nvswitch_split(void **state)
{
	const char *sel[] = { "0000:18:00.0" };
	const char *keep[] = { "0000:ab:00.0", NULL };
	struct vw_unit_opts opts = { .keep_out = keep };
	struct tu_fixture h;
	struct vw_nvlink nl;
	struct vw_unit u;
	struct vw_err err = { 0 };
	const struct vw_finding *x;

	(void)state;
	if (!tu_fixture_open(&h, "nvswitch-8gpu"))
		skip();
	nvswitch_setup(&h, &nl);

	/* Keeping one GPU out splits the set: refused, with the reason. */
	assert_int_equal(vw_unit_expand(&h.f, &nl, sel, 1, &opts, &u, &err), 0);
	assert_false(vw_unit_ok(&u));
	assert_true(u.nvlink_split);
	x = vw_findings_get(&u.issues, "nvlink-split");
	assert_non_null(x);
	assert_int_equal(x->sev, VW_SEV_BLOCKER);
	assert_non_null(strstr(x->msg, "0000:ab:00.0"));
	assert_non_null(strstr(x->msg, "IOMMU"));
	assert_null(member(&u, &h.f, "0000:ab:00.0"));
	assert_int_equal(u.n, 11);
	vw_unit_done(&u);

	/* With the explicit choice: only the chosen GPU, the rest left out. */
	opts.allow_split_nvlink = true;
	assert_int_equal(vw_unit_expand(&h.f, &nl, sel, 1, &opts, &u, &err), 0);
	assert_true(vw_unit_ok(&u));
	assert_int_equal(u.n, 1);
	assert_int_equal(u.nleft_out, 11);
	x = vw_findings_get(&u.issues, "nvlink-split-allowed");
	assert_non_null(x);
	assert_int_equal(x->sev, VW_SEV_WARN);
	vw_unit_done(&u);

	/* Chosen and kept out at once. */
	keep[0] = "0000:18:00.0";
	opts.allow_split_nvlink = false;
	assert_int_equal(vw_unit_expand(&h.f, &nl, sel, 1, &opts, &u, &err), 0);
	assert_true(has_issue(&u, "kept-out"));
	assert_false(vw_unit_ok(&u));
	vw_unit_done(&u);

	/* The NVLink sets from the state file give the same unit. */
	{
		char *state_str = vw_nvlink_to_string(&nl);
		struct vw_nvlink restored;

		assert_int_equal(vw_nvlink_from_string(&restored, state_str, &err), 0);
		assert_int_equal(vw_unit_expand(&h.f, &restored, sel, 1, NULL, &u, &err), 0);
		assert_int_equal(u.n, 12);
		assert_false(has_issue(&u, "nvlink-guessed"));
		vw_unit_done(&u);
		vw_nvlink_done(&restored);
		free(state_str);
	}
	vw_nvlink_done(&nl);
	tu_fixture_close(&h);
}

static void test_identical_shared(void **state)
{
	const char *sel[] = { "0000:03:00.0" };
	struct tu_fixture h;
	struct vw_unit u;
	struct vw_err err = { 0 };
	const struct vw_unit_member *m;
	char *s;

	(void)state;
	if (!tu_fixture_open(&h, "identical-gpus-shared"))
		skip();
	assert_int_equal(vw_unit_expand(&h.f, NULL, sel, 1, NULL, &u, &err), 0);
	s = joined(&u, &h.f);
	assert_string_equal(s, "0000:03:00.0 0000:03:00.1 0000:04:00.0 0000:04:00.1");
	free(s);
	m = member(&u, &h.f, "0000:04:00.0");
	assert_int_equal(m->why, VW_UNIT_GROUP);
	assert_string_equal(h.f.devs[m->via].addr, "0000:03:00.0");
	/* The second GPU coming along is said. */
	assert_true(has_issue(&u, "group-other"));
	/* Root port and switch ports of group 1 stay with the host. */
	assert_int_equal(u.nbridges, 4);
	assert_string_equal(h.f.devs[u.bridges[0]].addr, "0000:00:01.0");
	assert_int_equal(u.nforced, 2);
	assert_true(vw_unit_ok(&u));
	vw_unit_done(&u);
	tu_fixture_close(&h);
}

static void test_rootport_excluded(void **state)
{
	const char *sel[] = { "0000:01:00.0" };
	struct tu_fixture h;
	struct vw_unit u;
	struct vw_err err = { 0 };
	char *s;

	(void)state;
	if (!tu_fixture_open(&h, "intel-desktop-rootport"))
		skip();
	assert_int_equal(vw_unit_expand(&h.f, NULL, sel, 1, NULL, &u, &err), 0);
	s = joined(&u, &h.f);
	assert_string_equal(s, "0000:01:00.0 0000:01:00.1");
	free(s);
	assert_int_equal(u.nbridges, 1);
	assert_string_equal(h.f.devs[u.bridges[0]].addr, "0000:00:01.0");
	assert_null(member(&u, &h.f, "0000:00:01.0"));
	assert_int_equal(u.issues.n, 1);	/* nvlink-unknown only */
	vw_unit_done(&u);
	tu_fixture_close(&h);
}

/* Host-critical devices dragged in by a group, on hand-made facts. */
static void test_group_warnings(void **state)
{
	struct vw_facts f = { 0 };
	const char *sel[] = { "0000:01:00.0" };
	const char *storage[] = { "0000:00:17.0", NULL };
	struct vw_unit_opts opts = { .host_storage = storage };
	struct vw_unit u;
	struct vw_err err = { 0 };
	const struct vw_finding *x;

	(void)state;
	hf_add(&f, "0000:00:01.0", 0x8086, 0x1901, 0x060400, "pcieport", 7);
	hf_add(&f, "0000:00:14.0", 0x8086, 0xa36d, 0x0c0330, "xhci_hcd", 7);
	hf_add(&f, "0000:00:17.0", 0x8086, 0xa352, 0x010601, "ahci", 7);
	hf_add(&f, "0000:00:1f.6", 0x8086, 0x15bc, 0x020000, "e1000e", 7);
	hf_add(&f, "0000:01:00.0", 0x1002, 0x73bf, 0x030000, "amdgpu", 7)->boot_vga = 1;
	hf_add(&f, "0000:01:00.1", 0x1002, 0xab28, 0x040300, "snd_hda_intel", 7);
	hf_add(&f, "0000:02:00.0", 0x1b21, 0x1242, 0x0c0330, "xhci_hcd", -1);
	hf_roles(&f);
	assert_int_equal(vw_unit_expand(&f, NULL, sel, 1, &opts, &u, &err), 0);
	assert_int_equal(u.n, 5);
	assert_int_equal(u.nbridges, 1);
	assert_true(has_issue(&u, "group-usb"));
	assert_true(has_issue(&u, "group-network"));
	assert_true(has_issue(&u, "host-storage"));
	assert_false(has_issue(&u, "group-storage"));	/* host-storage says more */
	assert_true(has_issue(&u, "boot-vga"));
	assert_false(has_issue(&u, "nvlink-unknown"));	/* not NVIDIA */
	x = vw_findings_get(&u.issues, "group-usb");
	assert_non_null(strstr(x->msg, "0000:00:14.0"));
	assert_true(u.boot_display);
	assert_true(u.only_display);
	/* The host's disks are refused without the explicit opt-in. */
	assert_int_equal(vw_findings_get(&u.issues, "host-storage")->sev, VW_SEV_BLOCKER);
	assert_false(vw_unit_ok(&u));
	vw_unit_done(&u);
	opts.allow_host_storage = true;
	assert_int_equal(vw_unit_expand(&f, NULL, sel, 1, &opts, &u, &err), 0);
	assert_false(has_issue(&u, "host-storage"));
	assert_true(has_issue(&u, "host-storage-allowed"));
	assert_true(vw_unit_ok(&u));
	vw_unit_done(&u);
	opts.allow_host_storage = false;

	/* Keeping the network card: the group cannot be split. */
	{
		const char *keep[] = { "0000:00:1f.6", NULL };

		opts.keep_out = keep;
		assert_int_equal(vw_unit_expand(&f, NULL, sel, 1, &opts, &u, &err), 0);
		x = vw_findings_get(&u.issues, "kept-out");
		assert_non_null(x);
		assert_non_null(strstr(x->msg, "IOMMU group 7"));
		assert_false(vw_unit_ok(&u));
		vw_unit_done(&u);
	}

	/* A device in no group. */
	sel[0] = "0000:02:00.0";
	opts.keep_out = NULL;
	assert_int_equal(vw_unit_expand(&f, NULL, sel, 1, &opts, &u, &err), 0);
	assert_int_equal(u.n, 1);
	assert_true(has_issue(&u, "no-group"));
	assert_true(u.no_group);
	vw_unit_done(&u);
	hf_free(&f);
}

/* Two NVLink pairs: the unit follows one set only; peers on a shared
 * group drag their own set in. */
/* Host roles from the facts probe: each a blocker naming the device and
 * what the host loses, a warning with its opt-in. */
static void test_host_roles(void **state)
{
	struct vw_facts f = { 0 };
	struct vw_pci_dev *d;
	struct vw_unit u;
	struct vw_err err = { 0 };
	const struct vw_finding *x;
	const char *sel[] = { "0000:03:00.0" };
	struct vw_unit_opts opts = { 0 };
	static const struct {
		const char *addr, *code, *why;
		unsigned role;
	} cases[] = {
		{ "0000:03:00.0", "host-storage", "/, /boot/efi (nvme0n1)", VW_HOST_STORAGE },
		{ "0000:04:00.0", "host-network", "the default route (enp4s0)", VW_HOST_NETWORK },
		{ "0000:05:00.0", "host-input", "keyboard on usb1", VW_HOST_INPUT },
	};

	(void)state;
	hf_add(&f, "0000:01:00.0", 0x10de, 0x2204, 0x030000, "nvidia", 1);
	d = hf_add(&f, "0000:03:00.0", 0x144d, 0xa808, 0x010802, "nvme", 3);
	d = hf_add(&f, "0000:04:00.0", 0x8086, 0x1533, 0x020000, "igb", 4);
	d = hf_add(&f, "0000:05:00.0", 0x1b21, 0x1242, 0x0c0330, "xhci_hcd", 5);
	(void)d;
	for (size_t i = 0; i < VW_ARRAY_SIZE(cases); i++) {
		d = &f.devs[vw_facts_find_dev(&f, cases[i].addr)];
		d->host_role = cases[i].role;
		d->host_role_why = vw_xstrdup(cases[i].why);
	}
	hf_roles(&f);

	/* The GPU alone: nothing of the host's. */
	sel[0] = "0000:01:00.0";
	assert_int_equal(vw_unit_expand(&f, NULL, sel, 1, &opts, &u, &err), 0);
	assert_true(vw_unit_ok(&u));
	assert_int_equal(u.host_roles, 0);
	vw_unit_done(&u);

	for (size_t i = 0; i < VW_ARRAY_SIZE(cases); i++) {
		char allowed[64];

		sel[0] = cases[i].addr;
		memset(&opts, 0, sizeof(opts));
		assert_int_equal(vw_unit_expand(&f, NULL, sel, 1, &opts, &u, &err), 0);
		x = vw_findings_get(&u.issues, cases[i].code);
		assert_non_null(x);
		assert_int_equal(x->sev, VW_SEV_BLOCKER);
		assert_non_null(strstr(x->msg, cases[i].addr));
		assert_non_null(strstr(x->msg, cases[i].why));
		assert_non_null(strstr(x->remedy, "allow_host_"));
		assert_false(vw_unit_ok(&u));
		assert_int_equal(u.host_roles, cases[i].role);
		vw_unit_done(&u);

		opts.allow_host_storage = cases[i].role == VW_HOST_STORAGE;
		opts.allow_host_network = cases[i].role == VW_HOST_NETWORK;
		opts.allow_host_input = cases[i].role == VW_HOST_INPUT;
		assert_int_equal(vw_unit_expand(&f, NULL, sel, 1, &opts, &u, &err), 0);
		assert_false(has_issue(&u, cases[i].code));
		snprintf(allowed, sizeof(allowed), "%s-allowed", cases[i].code);
		x = vw_findings_get(&u.issues, allowed);
		assert_non_null(x);
		assert_int_equal(x->sev, VW_SEV_WARN);
		assert_non_null(strstr(x->msg, cases[i].why));
		assert_true(vw_unit_ok(&u));
		vw_unit_done(&u);
	}

	/* The opt-in of another role does not help. */
	sel[0] = "0000:04:00.0";
	memset(&opts, 0, sizeof(opts));
	opts.allow_host_storage = opts.allow_host_input = true;
	assert_int_equal(vw_unit_expand(&f, NULL, sel, 1, &opts, &u, &err), 0);
	assert_false(vw_unit_ok(&u));
	vw_unit_done(&u);

	/* Through the choices: the answers' keys. */
	{
		struct vw_choices c;
		char *devs[] = { "0000:03:00", NULL }, **own;

		vw_choices_init(&c);
		own = c.devices;
		c.devices = devs;
		c.ndevices = 1;
		assert_int_equal(vw_unit_build(&u, &f, &c, &err), 0);
		assert_true(has_issue(&u, "host-storage"));
		vw_unit_done(&u);
		c.allow_host_storage = true;
		assert_int_equal(vw_unit_build(&u, &f, &c, &err), 0);
		assert_true(has_issue(&u, "host-storage-allowed"));
		assert_true(vw_unit_ok(&u));
		vw_unit_done(&u);
		c.devices = own;
		c.ndevices = 0;
		vw_choices_done(&c);
	}
	for (size_t i = 0; i < f.ndevs; i++)
		free(f.devs[i].host_role_why);
	hf_free(&f);
}

static void test_sets_transitive(void **state)
{
	struct vw_facts f = { 0 };
	struct vw_nvlink nl;
	const char *sel[] = { "0000:01:00.0" };
	struct vw_unit u;
	struct vw_err err = { 0 };
	char *s;

	(void)state;
	hf_add(&f, "0000:01:00.0", 0x10de, 0x2204, 0x030000, "nvidia", 1);
	hf_add(&f, "0000:02:00.0", 0x10de, 0x2204, 0x030000, "nvidia", 2);
	hf_add(&f, "0000:03:00.0", 0x10de, 0x2204, 0x030000, "nvidia", 2);
	hf_add(&f, "0000:04:00.0", 0x10de, 0x2204, 0x030000, "nvidia", 4);
	hf_add(&f, "0000:05:00.0", 0x10de, 0x2204, 0x030000, "nvidia", 5);
	assert_int_equal(vw_nvlink_from_string(&nl, "0000:01:00.0,0000:02:00.0/NV4 0000:03:00.0,0000:04:00.0/NV4", &err), 0);
	assert_int_equal(vw_unit_expand(&f, &nl, sel, 1, NULL, &u, &err), 0);
	s = joined(&u, &f);
	/* 01 -> NVLink 02 -> group 03 -> NVLink 04; 05 stays. */
	assert_string_equal(s, "0000:01:00.0 0000:02:00.0 0000:03:00.0 0000:04:00.0");
	free(s);
	assert_true(u.ids_ambiguous);
	assert_int_equal(vw_unit_binding(&u, VW_BIND_AUTO), VW_BIND_ADDRESS);
	vw_unit_done(&u);

	/* A saved member that is not on the host any more. */
	vw_nvlink_done(&nl);
	assert_int_equal(vw_nvlink_from_string(&nl, "0000:05:00.0,0000:65:00.0", &err), 0);
	sel[0] = "0000:05:00.0";
	assert_int_equal(vw_unit_expand(&f, &nl, sel, 1, NULL, &u, &err), 0);
	assert_int_equal(u.n, 1);
	assert_true(has_issue(&u, "nvlink-missing"));
	assert_false(u.nvlink_split);
	vw_unit_done(&u);
	vw_nvlink_done(&nl);

	/* The index-based builder (answers, verify) gives the same closure. */
	{
		int idx[] = { 0 };

		vw_unit_build_idx(&u, &f, idx, 1);
		assert_int_equal(u.n, 1);	/* no NVLink known */
		vw_unit_done(&u);
	}
	hf_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_turing_4fn),
		cmocka_unit_test(test_nvswitch_whole),
		cmocka_unit_test(test_nvswitch_split),
		cmocka_unit_test(test_identical_shared),
		cmocka_unit_test(test_rootport_excluded),
		cmocka_unit_test(test_group_warnings),
		cmocka_unit_test(test_host_roles),
		cmocka_unit_test(test_sets_transitive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
