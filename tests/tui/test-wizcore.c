/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-wizcore.c - the core modules behind the wizard: the state file,
 * the choice edits of the steps, the checks after the reboot with their
 * catalogue, and the demo host's copy and pretend reboot. */
#include "testutil.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "demo.h"
#include "facts.h"
#include "picks.h"
#include "state.h"
#include "unit.h"
#include "verify.h"

static void add_dev(struct vw_choices *c, const char *dev)
{
	c->devices = vw_xreallocarray(c->devices, c->ndevices + 2, sizeof(char *));
	c->devices[c->ndevices++] = vw_xstrdup(dev);
	c->devices[c->ndevices] = NULL;
}

static void set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = vw_xstrdup(v);
}

static void test_state_roundtrip(void **unused)
{
	struct vw_state s, t;
	struct vw_buf b = VW_BUF_INIT;
	struct vw_err err = { 0 };

	(void)unused;
	vw_state_init(&s);
	vw_state_init(&t);
	add_dev(&s.choices, "0000:09:00");
	set_str(&s.choices.vm.name, "gpu-vm");
	set_str(&s.choices.access.vnc_password, "it's\\x");
	s.choices.access.vnc = true;
	set_str(&s.step, "review");
	set_str(&s.boot_id, "b-1");
	s.applied = true;
	set_str(&s.applied_boot_id, "b-1");
	set_str(&s.journal, "20250102T030405Z");
	vw_state_format(&b, &s);
	assert_int_equal(vw_state_parse(&t, b.data, b.len, "state", &err), 0);
	assert_int_equal(t.choices.ndevices, 1);
	assert_string_equal(t.choices.devices[0], "0000:09:00");
	assert_string_equal(t.choices.vm.name, "gpu-vm");
	assert_string_equal(t.choices.access.vnc_password, "it's\\x");
	assert_true(t.choices.access.vnc);
	assert_string_equal(t.step, "review");
	assert_string_equal(t.boot_id, "b-1");
	assert_true(t.applied);
	assert_string_equal(t.applied_boot_id, "b-1");
	assert_string_equal(t.journal, "20250102T030405Z");
	vw_buf_done(&b);
	vw_state_done(&s);
	vw_state_done(&t);
}

/* A plain answers file is a state without progress; errors keep their lines. */
static void test_state_errors(void **unused)
{
	struct vw_state s;
	struct vw_err err = { 0 };
	const char *plain = "devices = {'0000:01:00.0'}\n";
	const char *bad = "devices = {}\nprogress {\n  step = 'gpu'\n  nonsense = 1\n}\n";
	const char *newer = "progress {\n  version = 99\n}\n";

	(void)unused;
	vw_state_init(&s);
	assert_int_equal(vw_state_parse(&s, plain, strlen(plain), "a.conf", &err), 0);
	assert_int_equal(s.choices.ndevices, 1);
	assert_string_equal(s.step, "");
	assert_false(s.applied);
	assert_true(vw_state_parse(&s, bad, strlen(bad), "s.conf", &err) < 0);
	assert_non_null(strstr(err.msg, "s.conf:4"));
	vw_err_clear(&err);
	assert_true(vw_state_parse(&s, newer, strlen(newer), "s.conf", &err) < 0);
	assert_non_null(strstr(err.msg, "newer"));
	vw_state_done(&s);
}

/* One parser for the whole state file (core/answers.c): the progress
 * section may stand anywhere, its keys follow the answers rules (given
 * twice is an error), lines after it are counted right, and the answers
 * loader reads a state file as it is. */
static void test_state_one_parser(void **unused)
{
	struct vw_state s, t;
	struct vw_choices c = { 0 };
	struct vw_buf b = VW_BUF_INIT, again = VW_BUF_INIT;
	struct vw_err err = { 0 };
	const char *first = "progress {\n  step = 'vm'\n  applied = true\n}\n"
			    "devices = {'0000:01:00.0'}\nsplit_nvlink = true\n";
	const char *twice = "progress {\n  step = 'vm'\n  step = 'gpu'\n}\n";
	const char *late = "progress {\n  step = 'vm'\n}\n\nbinding = nonsense\n";

	(void)unused;
	vw_state_init(&s);
	vw_state_init(&t);
	add_dev(&s.choices, "0000:18:00");
	set_str(&s.step, "review");
	set_str(&s.boot_id, "b'1");
	set_str(&s.journal, "20250102T030405Z");
	s.choices.split_nvlink = true;
	s.choices.nvlink_known = true;
	vw_strv_free(s.choices.nvlink);
	s.choices.nvlink = vw_xcalloc(3, sizeof(char *));
	s.choices.nvlink[0] = vw_xstrdup("0000:18:00.0,0000:2a:00.0/NV18");
	s.choices.nvlink[1] = vw_xstrdup("0000:9a:00.0,0000:ab:00.0");
	s.choices.nnvlink = 2;
	vw_state_format(&b, &s);
	assert_int_equal(vw_state_parse(&t, b.data, b.len, "state", &err), 0);
	assert_string_equal(t.step, "review");
	assert_string_equal(t.boot_id, "b'1");
	assert_string_equal(t.journal, "20250102T030405Z");
	assert_true(t.choices.split_nvlink);
	assert_true(t.choices.nvlink_known);
	assert_int_equal(t.choices.nnvlink, 2);
	assert_string_equal(t.choices.nvlink[0], "0000:18:00.0,0000:2a:00.0/NV18");
	assert_string_equal(t.choices.nvlink[1], "0000:9a:00.0,0000:ab:00.0");
	vw_state_format(&again, &t);
	assert_string_equal(b.data, again.data);
	/* The answers loader takes the state file as it is. */
	assert_int_equal(vw_answers_parse(&c, b.data, b.len, "state", &err), 0);
	assert_int_equal(c.ndevices, 1);
	vw_choices_done(&c);

	assert_int_equal(vw_state_parse(&t, first, strlen(first), "s.conf", &err), 0);
	assert_string_equal(t.step, "vm");
	assert_true(t.applied);
	assert_int_equal(t.choices.ndevices, 1);
	assert_true(t.choices.split_nvlink);
	assert_false(t.choices.nvlink_known);
	assert_true(vw_state_parse(&t, twice, strlen(twice), "s.conf", &err) < 0);
	assert_string_equal(err.msg, "s.conf:3: 'progress|step' is given twice (first on line 2)");
	assert_string_equal(t.step, "");
	assert_true(vw_state_parse(&t, late, strlen(late), "s.conf", &err) < 0);
	assert_non_null(strstr(err.msg, "s.conf:5: bad value 'nonsense' for 'binding'"));
	vw_buf_done(&b);
	vw_buf_done(&again);
	vw_state_done(&s);
	vw_state_done(&t);
}

static void test_state_file(void **unused)
{
	char *root = tu_mkroot(), *path;
	struct vw_sysroot *sr;
	struct vw_state s, t;
	struct vw_err err = { 0 };
	struct stat st;

	(void)unused;
	assert_int_equal(vw_sysroot_open(&sr, root, &err), 0);
	vw_state_init(&s);
	vw_state_init(&t);
	assert_int_equal(vw_state_load(&t, sr, &err), -ENOENT);
	set_str(&s.step, "vm");
	set_str(&s.choices.access.vnc_password, "secret1");
	assert_int_equal(vw_state_save(&s, sr, &err), 0);
	path = vw_xasprintf("%s/%s", root, VW_STATE_FILE);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* an existing file keeps being private, and the new one is private
	 * from its first byte: its mode is never changed once it has its name
	 * (an attribute change there would be the old chmod after rename) */
	assert_int_equal(chmod(path, 0644), 0);
	{
		char *dir = vw_xstrdup(path), buf[4096] __attribute__((aligned(8)));
		const char *base = strrchr(path, '/') + 1;
		int in = inotify_init1(IN_NONBLOCK), seen_move = 0;
		ssize_t n;

		*strrchr(dir, '/') = '\0';
		assert_true(in >= 0);
		assert_true(inotify_add_watch(in, dir, IN_ATTRIB | IN_MOVED_TO) >= 0);
		assert_int_equal(vw_state_save(&s, sr, &err), 0);
		while ((n = read(in, buf, sizeof(buf))) > 0) {
			for (char *p = buf; p < buf + n;) {
				const struct inotify_event *ev = (const struct inotify_event *)p;

				if (ev->len && !strcmp(ev->name, base)) {
					seen_move |= !!(ev->mask & IN_MOVED_TO);
					assert_false(ev->mask & IN_ATTRIB);
				}
				p += sizeof(*ev) + ev->len;
			}
		}
		assert_true(seen_move);
		close(in);
		free(dir);
	}
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(vw_state_load(&t, sr, &err), 0);
	assert_string_equal(t.step, "vm");
	assert_string_equal(t.choices.access.vnc_password, "secret1");
	/* boot ids */
	assert_false(vw_state_rebooted(&t, "x"));
	t.applied = true;
	set_str(&t.applied_boot_id, "a");
	assert_true(vw_state_rebooted(&t, "b"));
	assert_false(vw_state_rebooted(&t, "a"));
	assert_false(vw_state_rebooted(&t, ""));
	tu_write(root, "proc/sys/kernel/random/boot_id", "1234-abcd\n");
	{
		char *id = vw_boot_id(sr);

		assert_string_equal(id, "1234-abcd");
		free(id);
	}
	vw_state_done(&s);
	vw_state_done(&t);
	vw_sysroot_free(sr);
	free(path);
	tu_rmtree(root);
	free(root);
}

static void test_picks_slots(void **unused)
{
	struct vw_choices c;
	struct vw_pci_dev d = { .addr = "0000:09:00.1", .domain = 0, .bus = 9, .dev = 0, .func = 1 };
	struct vw_pci_dev o = { .addr = "0000:0a:00.0", .domain = 0, .bus = 10, .dev = 0, .func = 0 };

	(void)unused;
	vw_choices_init(&c);
	assert_false(vw_choices_has_dev(&c, &d));
	vw_choices_set_slot(&c, &d, true);
	assert_int_equal(c.ndevices, 1);
	assert_string_equal(c.devices[0], "0000:09:00");
	assert_true(vw_choices_has_dev(&c, &d));
	assert_false(vw_choices_has_dev(&c, &o));
	vw_choices_set_slot(&c, &d, true);	/* once */
	assert_int_equal(c.ndevices, 1);
	add_dev(&c, "0000:09:00.0");
	add_dev(&c, "0000:0a:00.0");
	vw_choices_set_slot(&c, &d, false);	/* the slot and its functions go */
	assert_int_equal(c.ndevices, 1);
	assert_string_equal(c.devices[0], "0000:0a:00.0");
	assert_null(c.devices[1]);
	vw_choices_done(&c);
}

static void test_catalogue(void **unused)
{
	size_t n;
	const struct vw_trouble *t = vw_trouble_list(&n);
	static const char *const needed[] = {
		"host-driver-bound", "group-conflict", "initramfs-no-vfio", "iommu-off", "black-screen",
		"gpu-missing-guest", "code-43",
	};

	(void)unused;
	assert_true(n >= VW_ARRAY_SIZE(needed));
	for (size_t i = 0; i < VW_ARRAY_SIZE(needed); i++) {
		const struct vw_trouble *e = vw_trouble_get(needed[i]);

		assert_non_null(e);
		assert_true(*e->title && *e->symptom && *e->cause && *e->fix);
	}
	for (size_t i = 0; i < n; i++)
		assert_ptr_equal(vw_trouble_get(t[i].code), &t[i]);
	assert_null(vw_trouble_get("no-such-thing"));
	assert_null(vw_trouble_get(NULL));
}

static const struct vw_verify_check *check_of(const struct vw_verify *v, const char *code)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i].code, code))
			return &v->v[i];
	return NULL;
}

/* The whole demo story: copy, verify before (fails, diagnosed), pretend to
 * reboot, verify after (passes), remove. */
static void test_demo_verify(void **unused)
{
	char *src = tu_host("demo"), *dir = NULL;
	struct vw_sysroot *sr;
	struct vw_facts f;
	struct vw_choices c;
	struct vw_verify v;
	struct vw_err err = { 0 };
	const struct vw_verify_check *k;

	(void)unused;
	if (!src)
		skip();
	assert_int_equal(vw_demo_copy(src, &dir, &err), 0);
	assert_int_equal(vw_sysroot_open(&sr, dir, &err), 0);
	assert_int_equal(vw_facts_probe(&f, sr, &err), 0);
	vw_choices_init(&c);
	add_dev(&c, "0000:09:00");

	vw_verify_run(&v, sr, &f, &c);
	assert_false(vw_verify_ok(&v));
	k = check_of(&v, "vfio-bound");
	assert_non_null(k);
	assert_int_equal(k->state, VW_CHECK_FAIL);
	assert_string_equal(k->diag, "host-driver-bound");
	assert_non_null(strstr(k->detail, "0000:09:00.0 is bound to nvidia"));
	k = check_of(&v, "initramfs-vfio");
	assert_int_equal(k->state, VW_CHECK_FAIL);
	assert_string_equal(k->diag, "initramfs-no-vfio");
	assert_non_null(strstr(k->detail, "update-initramfs -u -k all"));
	k = check_of(&v, "host-display");
	assert_int_equal(k->state, VW_CHECK_OK);
	assert_int_equal(check_of(&v, "iommu")->state, VW_CHECK_OK);
	vw_verify_done(&v);

	assert_int_equal(vw_demo_reboot(sr, &f, &c, &err), 0);
	vw_facts_done(&f);
	assert_int_equal(vw_facts_probe(&f, sr, &err), 0);
	vw_verify_run(&v, sr, &f, &c);
	for (size_t i = 0; i < v.n; i++)
		assert_int_equal(v.v[i].state, VW_CHECK_OK);
	assert_true(vw_verify_ok(&v));
	vw_verify_done(&v);

	/* both cards, the boot display too, without the opt-in: black screen */
	vw_choices_done(&c);
	vw_choices_init(&c);
	add_dev(&c, "0000:05:00");
	add_dev(&c, "0000:09:00");
	assert_int_equal(vw_demo_reboot(sr, &f, &c, &err), 0);
	vw_facts_done(&f);
	assert_int_equal(vw_facts_probe(&f, sr, &err), 0);
	vw_verify_run(&v, sr, &f, &c);
	k = check_of(&v, "host-display");
	assert_int_equal(k->state, VW_CHECK_FAIL);
	assert_string_equal(k->diag, "black-screen");
	vw_verify_done(&v);
	c.allow_host_display = true;
	vw_verify_run(&v, sr, &f, &c);
	assert_int_equal(check_of(&v, "host-display")->state, VW_CHECK_OK);
	vw_verify_done(&v);

	vw_facts_done(&f);
	vw_choices_done(&c);
	vw_sysroot_free(sr);
	assert_int_equal(vw_demo_remove(dir, &err), 0);
	assert_int_not_equal(access(dir, F_OK), 0);
	free(dir);
	free(src);
}

/* The copy in the background equals the tree; ending it removes it. */
static void test_demo_background(void **unused)
{
	char *src = tu_host("demo"), *a, *b, *cmd;
	struct vw_demo d;
	struct vw_err err = { 0 };

	(void)unused;
	if (!src)
		skip();
	assert_int_equal(vw_demo_start(&d, src, &err), 0);
	assert_int_equal(vw_demo_wait(&d, &err), 0);
	assert_true(d.ready);
	a = vw_xstrdup(d.dir);
	b = vw_xasprintf("%s/sys/bus/pci/devices/0000:09:00.0/vendor", a);
	assert_int_equal(access(b, R_OK), 0);
	cmd = vw_xasprintf("diff -r --no-dereference '%s/.' '%s' >/dev/null 2>&1", src, a);
	assert_int_equal(system(cmd), 0);
	vw_demo_end(&d);
	assert_int_not_equal(access(a, F_OK), 0);
	/* ended while still copying: nothing left either */
	assert_int_equal(vw_demo_start(&d, src, &err), 0);
	free(a);
	a = vw_xstrdup(d.dir);
	vw_demo_end(&d);
	assert_int_not_equal(access(a, F_OK), 0);
	free(a);
	free(b);
	free(cmd);
	free(src);
}

/* id: tokens aimed at the RX 6400 of the demo: its functions and the
 * chipset ports without ACS above it, not the GPP bridge with ACS. */
static void test_acs_ids(void **unused)
{
	char *src = tu_host("demo");
	struct vw_sysroot *sr;
	struct vw_facts f;
	struct vw_unit u;
	struct vw_acs_override ov;
	struct vw_buf b = VW_BUF_INIT;
	struct vw_err err = { 0 };
	int idx;

	(void)unused;
	if (!src)
		skip();
	assert_int_equal(vw_sysroot_open(&sr, src, &err), 0);
	assert_int_equal(vw_facts_probe(&f, sr, &err), 0);
	idx = vw_facts_find_dev(&f, "0000:05:00.0");
	assert_true(idx >= 0);
	vw_unit_build_idx(&u, &f, &idx, 1);
	memset(&ov, 0, sizeof(ov));
	vw_picks_acs_ids(&f, &u, &ov);
	vw_acs_format(&ov, &b);
	assert_non_null(strstr(b.data, "id:1002:743f"));
	assert_non_null(strstr(b.data, "id:1002:ab28"));
	assert_non_null(strstr(b.data, "id:1022:57a3"));	/* the downstream port */
	assert_null(strstr(b.data, "id:8086:1539"));	/* the NIC came only through the group */
	assert_true(vw_picks_gpu_slot(&f, &f.devs[idx]));
	assert_false(vw_picks_gpu_slot(&f, &f.devs[vw_facts_find_dev(&f, "0000:04:00.0")]));
	vw_buf_done(&b);
	vw_unit_done(&u);
	vw_facts_done(&f);
	vw_sysroot_free(sr);
	free(src);
}

/* Issue 13 item 1: a choice made for a group belongs to the card whose
 * group forced it.  Tick the AMD boot display, give its group (NIC, SATA,
 * USB) and take the host display, blacklist amdgpu; untick the AMD card and
 * tick the NVIDIA one: nothing of the AMD card's choices is left. */
static void test_picks_group_belongs_to_card(void **unused)
{
	char *src = tu_host("demo");
	struct vw_sysroot *sr;
	struct vw_facts f;
	struct vw_choices c, fresh;
	struct vw_unit u;
	struct vw_err err = { 0 };
	const struct vw_pci_dev *amd, *nv;

	(void)unused;
	if (!src)
		skip();
	assert_int_equal(vw_sysroot_open(&sr, src, &err), 0);
	assert_int_equal(vw_facts_probe(&f, sr, &err), 0);
	amd = &f.devs[vw_facts_find_dev(&f, "0000:05:00.0")];
	nv = &f.devs[vw_facts_find_dev(&f, "0000:09:00.0")];
	vw_choices_init(&c);
	vw_choices_set_gpu(&c, &f, NULL, amd, true);
	vw_choices_gpu_unit(&u, &c, &f, NULL);
	assert_true(u.nforced > 0);
	vw_choices_give_group(&c, &f, &u, true);
	vw_unit_done(&u);
	c.allow_host_display = true;
	c.blacklist = vw_xreallocarray(c.blacklist, 2, sizeof(char *));
	c.blacklist[0] = vw_xstrdup("amdgpu");
	c.blacklist[1] = NULL;
	c.nblacklist = 1;
	assert_true(vw_choices_has_dev(&c, &f.devs[vw_facts_find_dev(&f, "0000:04:00.0")]));
	assert_false(vw_choices_tidy(&c, &f, NULL));	/* all of it belongs to the AMD card */
	assert_int_equal(c.nblacklist, 1);

	vw_choices_set_gpu(&c, &f, NULL, amd, false);
	vw_choices_set_gpu(&c, &f, NULL, nv, true);
	assert_int_equal(c.ndevices, 1);
	assert_string_equal(c.devices[0], "0000:09:00");
	assert_false(c.allow_host_display);
	assert_int_equal(c.nblacklist, 0);
	assert_false(c.acs_ids);
	/* The same as choosing the NVIDIA card straight away. */
	vw_choices_init(&fresh);
	vw_choices_set_gpu(&fresh, &f, NULL, nv, true);
	assert_int_equal(fresh.ndevices, c.ndevices);
	assert_string_equal(fresh.devices[0], c.devices[0]);
	assert_int_equal(fresh.allow_host_display, c.allow_host_display);

	/* A hand-written file naming the card by a function: adopted as ticked. */
	vw_choices_done(&c);
	vw_choices_init(&c);
	add_dev(&c, "0000:09:00.0");
	assert_false(vw_choices_has_gpu(&c, nv));
	assert_true(vw_choices_adopt_gpus(&c, &f, NULL));
	assert_true(vw_choices_has_gpu(&c, nv));
	assert_int_equal(c.ndevices, 1);
	vw_choices_done(&fresh);
	vw_choices_done(&c);
	vw_facts_done(&f);
	vw_sysroot_free(sr);
	free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_roundtrip),
		cmocka_unit_test(test_state_one_parser),
		cmocka_unit_test(test_state_errors),
		cmocka_unit_test(test_state_file),
		cmocka_unit_test(test_picks_slots),
		cmocka_unit_test(test_catalogue),
		cmocka_unit_test(test_demo_verify),
		cmocka_unit_test(test_demo_background),
		cmocka_unit_test(test_acs_ids),
		cmocka_unit_test(test_picks_group_belongs_to_card),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
