/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-ansible.c - plans as Ansible playbooks (core/ansible.h): the YAML
 * quoting of contents, paths and commands, secrets, contents YAML cannot
 * hold, and the guard's checksums.
 *
 * It also leaves, in $top_builddir/tests/out/ansible/, an edge-case
 * playbook with the trees before and after (edge.yml, edge.before/,
 * edge.after/): tests/ansible.sh reads the playbook back with Ansible's own
 * YAML loader and, where Ansible is installed, runs it under a copy of
 * edge.before/ and compares the result with edge.after/ byte for byte. */
#define _GNU_SOURCE
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ansible.h"
#include "plan.h"

#define PASSWORD "pa$$w{0}"	/* a '$' and braces: nothing may expand it */

/* The edge cases: path, contents, mode, flags, post-commands. */
struct edge {
	const char *path;
	const char *data;
	size_t len;
	mode_t mode;
	unsigned flags;
	const char *post[3];
};

#define S(s) s, sizeof(s) - 1
static const struct edge edges[] = {
	{ "etc/a.conf", S("one\ntwo\n"), 0644, 0, { "update-initramfs -u -k all" } },
	{ "etc/b.conf", S("no newline at the end"), 0644, 0, { "update-initramfs -u -k all", "update-grub" } },
	{ "etc/c.conf", S("  leading spaces\n\tand a tab\ntrailing  \n\n\n"), 0644, 0, { 0 } },
	{ "etc/d.conf", S(""), 0640, 0, { 0 } },
	{ "etc/e.conf", S("\n"), 0644, 0, { 0 } },
	{ "etc/f.sh", S("#!/bin/sh\necho \"${#x} {{ y }} {% z %} {# c #}\" '\\' \\\\\n"), 0755, 0,
	  { "sh -c 'echo \"{{ x }}\"'" } },
	{ "etc/g.conf", S("\n\n  starts with empty lines\n"), 0644, 0, { 0 } },
	{ "etc/h.yaml", S("# a comment\n---\n...\n- item: x\n\"quoted\": 'q' # not a comment\n|\n>-\n"),
	  0644, 0, { 0 } },
	{ "etc/i.conf", S("caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80 \xc2\xa0nbsp\n"), 0600, 0, { 0 } },
	{ "etc/dir {{ x }}/j.conf", S("in a directory whose name has a Jinja delimiter\n"), 0644, 0, { 0 } },
	{ "etc/k.bin", S("\x00\x01" "binary\r\n\xff"), 0644, 0, { 0 } },
	{ "etc/l.conf", S("abc\n   "), 0644, 0, { 0 } },
	{ "etc/m.conf", S("   \n\t\n"), 0644, 0, { 0 } },
	{ "etc/n.conf", S("\tstarts with a tab: and a colon\n- dash\n"), 0644, 0, { 0 } },
	{ "etc/vfiowiz/vm.xml", S("<graphics passwd=\"" PASSWORD "\"/>\n<!-- " PASSWORD " -->\n"), 0644,
	  VW_CHANGE_SECRET, { "virsh define /etc/vfiowiz/vm.xml" } },
};
#undef S

/* What sits on the host before: an existing file edited (mode kept), one
 * removed, and one the plan leaves alone. */
static void before(const char *root)
{
	char *p;

	tu_write(root, "etc/existing.conf", "old line\n");
	p = vw_xasprintf("%s/etc/existing.conf", root);
	assert_int_equal(chmod(p, 0640), 0);
	free(p);
	tu_write(root, "etc/gone.conf", "removed by the plan\n");
	tu_write(root, "etc/untouched.conf", "left alone\n");
}

static void build_plan(const char *root, struct vw_plan *plan, bool binary)
{
	struct vw_sysroot *sr = NULL;
	struct vw_err err = { 0 };

	assert_int_equal(vw_sysroot_open(&sr, root, &err), 0);
	vw_plan_init(plan);
	for (size_t i = 0; i < VW_ARRAY_SIZE(edges); i++) {
		const struct edge *e = &edges[i];
		struct vw_file_spec spec = { .path = e->path, .data = e->data, .len = e->len,
					     .mode = e->mode, .why = "an edge case", .flags = e->flags };

		if (!binary && strstr(e->path, ".bin"))
			continue;
		assert_int_equal(vw_plan_add(plan, sr, &spec, &err), 1);
		for (size_t k = 0; e->post[k]; k++)
			assert_int_equal(vw_plan_add_post(plan, e->post[k]), 0);
	}
	assert_int_equal(vw_plan_add_file(plan, sr, "etc/existing.conf", "new line\n", 9, 0644,
					  "an existing file, edited", &err), 1);
	assert_int_equal(vw_plan_add_post(plan, "update-grub"), 0);
	assert_int_equal(vw_plan_remove_file(plan, sr, "etc/gone.conf", "a removal", &err), 1);
	vw_sysroot_free(sr);
}

static char *playbook(const struct vw_plan *plan, const struct vw_ansible_opts *o,
		      struct vw_ansible_files *files, int *rc, struct vw_err *err)
{
	struct vw_buf out = VW_BUF_INIT;

	*rc = vw_ansible_playbook(&out, plan, o, files, err);
	return vw_buf_steal(&out);
}

static void test_text_ok(void **state)
{
	(void)state;
	assert_true(vw_ansible_text_ok("", 0));
	assert_true(vw_ansible_text_ok("a\tb\n", 4));
	assert_true(vw_ansible_text_ok("caf\xc3\xa9 \xf0\x9f\x98\x80", 10));
	assert_true(vw_ansible_text_ok("\xc2\xa0", 2));
	assert_false(vw_ansible_text_ok("a\r\n", 3));		/* CR: YAML makes it LF */
	assert_false(vw_ansible_text_ok("a\0b", 3));
	assert_false(vw_ansible_text_ok("\x7f", 1));
	assert_false(vw_ansible_text_ok("\x1b[0m", 4));
	assert_false(vw_ansible_text_ok("\xc3", 1));		/* truncated */
	assert_false(vw_ansible_text_ok("\xc0\xaf", 2));	/* overlong */
	assert_false(vw_ansible_text_ok("\xed\xa0\x80", 3));	/* surrogate */
	assert_false(vw_ansible_text_ok("\xf4\x90\x80\x80", 4));	/* > U+10FFFF */
	assert_false(vw_ansible_text_ok("\xc2\x85", 2));	/* NEL: a line break */
	assert_false(vw_ansible_text_ok("\xe2\x80\xa8", 3));	/* U+2028 */
	assert_false(vw_ansible_text_ok("\xef\xbb\xbf", 3));	/* BOM */
	assert_false(vw_ansible_text_ok("\xc2\x9b", 2));	/* C1 control */
}

static void test_quoting(void **state)
{
	struct vw_plan plan;
	struct vw_ansible_opts o = { .secret = PASSWORD, .source = "edge \"answers\".conf" };
	struct vw_err err = { 0 };
	char *root = tu_mkroot(), *y;
	int rc;

	(void)state;
	before(root);
	build_plan(root, &plan, false);
	y = playbook(&plan, &o, NULL, &rc, &err);
	assert_int_equal(rc, 0);
	/* clip, strip, keep; the explicit indentation indicator */
	assert_non_null(strstr(y, "      content: !unsafe |2\n        one\n        two\n    notify:\n"));
	assert_non_null(strstr(y, "      content: !unsafe |2-\n        no newline at the end\n"));
	/* "+": no blank line may follow (it would be content) */
	assert_non_null(strstr(y, "      content: !unsafe |2+\n          leading spaces\n        \tand a tab\n"
				  "        trailing  \n\n\n  # an edge case\n"));
	assert_non_null(strstr(y, "      content: \"\"\n"));
	assert_non_null(strstr(y, "      content: !unsafe |2+\n\n  # an edge case\n"));
	assert_non_null(strstr(y, "      content: !unsafe |2\n\n\n          starts with empty lines\n"));
	/* Jinja and YAML look-alikes are content */
	assert_non_null(strstr(y, "        echo \"${#x} {{ y }} {% z %} {# c #}\" '\\' \\\\\n"));
	assert_non_null(strstr(y, "        ---\n        ...\n        - item: x\n"));
	/* modes: new files theirs, edited files keep their own (no mode) */
	assert_non_null(strstr(y, "dest: \"{{ vfiowiz_root }}/etc/d.conf\"\n      mode: \"0640\"\n"));
	assert_non_null(strstr(y, "dest: \"{{ vfiowiz_root }}/etc/existing.conf\"\n      backup:"));
	/* parents of new files first */
	assert_non_null(strstr(y, "  - name: Make the directories of new files\n"));
	assert_non_null(strstr(y, "      - \"/etc\"\n      - !unsafe \"/etc/dir {{ x }}\"\n"
				  "      - \"/etc/vfiowiz\"\n\n"));
	/* a destination with a Jinja delimiter goes through an unsafe variable */
	assert_non_null(strstr(y, "dest: \"{{ vfiowiz_root ~ vfiowiz_path }}\"\n"));
	assert_non_null(strstr(y, "    vars:\n      vfiowiz_path: !unsafe \"/etc/dir {{ x }}/j.conf\"\n"));
	assert_non_null(strstr(y, "  - name: !unsafe \"Write /etc/dir {{ x }}/j.conf\"\n"));
	/* command words: split like vw_exec_split, unsafe where needed */
	assert_non_null(strstr(y, "        - \"sh\"\n        - \"-c\"\n        - !unsafe \"echo \\\"{{ x }}\\\"\"\n"));
	/* removals */
	assert_non_null(strstr(y, "    ansible.builtin.file:\n      path: \"{{ vfiowiz_root }}/etc/gone.conf\"\n"
				  "      state: absent\n"));
	/* the source's name, quoted, in the header */
	assert_non_null(strstr(y, " from \"edge \\\"answers\\\".conf\": "));
	/* the secret: not in the playbook, prompted for, no_log, 0600 */
	assert_null(strstr(y, PASSWORD));
	assert_non_null(strstr(y, "  vars_prompt:\n    - name: vfiowiz_vnc_password\n"));
	assert_non_null(strstr(y, "      mode: \"0600\"\n      backup: \"{{ vfiowiz_backup | bool }}\"\n"
				  "      content: \"{{ vfiowiz_secret_14 | join(vfiowiz_vnc_password) }}\"\n"
				  "    vars:\n      vfiowiz_secret_14:\n"
				  "        - !unsafe |2-\n          <graphics passwd=\"\n"
				  "        - !unsafe |2-\n          \"/>\n          <!-- \n"
				  "        - !unsafe |2\n           -->\n"
				  "    no_log: true\n"));
	assert_non_null(strstr(y, "    # the password away): /etc/vfiowiz/vm.xml\n"));
	/* handlers in plan order, each notified by its files */
	assert_non_null(strstr(y, "  - name: \"Run update-initramfs -u -k all\"\n    listen: vfiowiz post 1\n"));
	assert_non_null(strstr(y, "  - name: \"Run update-grub\"\n    listen: vfiowiz post 2\n"));
	assert_non_null(strstr(y, "    notify:\n      - vfiowiz post 1\n      - vfiowiz post 2\n"));
	assert_non_null(strstr(y, "  - name: !unsafe \"Run sh -c 'echo \\\"{{ x }}\\\"'\"\n"));
	/* the guard: SHA-256 of the old and new bytes */
	assert_non_null(strstr(y, "      - path: \"/etc/existing.conf\"\n"
				  "        before: \"9e9894bfcaf8d63b9898e90db0fe05f5a0388d45bcf60a0a208ad31153072142\"\n"
				  "        after: \"061da4619a30ed06f2d1daf4c9ffe3225753d02d9c73b20dcc85f92c2951fdc9\"\n"));
	assert_non_null(strstr(y, "      - path: \"/etc/gone.conf\"\n        before: \""));
	assert_non_null(strstr(y, "        after: absent\n"));
	assert_non_null(strstr(y, "      - path: \"/etc/a.conf\"\n        before: absent\n"));
	free(y);
	vw_plan_done(&plan);
	tu_rmtree(root);
	free(root);
}

static void test_sha256(void **state)
{
	struct vw_plan plan;
	struct vw_sysroot *sr = NULL;
	struct vw_err err = { 0 };
	char *root = tu_mkroot(), *y;
	int rc;

	(void)state;
	assert_int_equal(vw_sysroot_open(&sr, root, &err), 0);
	vw_plan_init(&plan);
	assert_int_equal(vw_plan_add_file(&plan, sr, "etc/x", "abc", 3, 0644, "x", &err), 1);
	y = playbook(&plan, NULL, NULL, &rc, &err);
	assert_int_equal(rc, 0);
	/* sha256("abc"), FIPS 180-2 appendix B.1 */
	assert_non_null(strstr(y, "after: \"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\"\n"));
	assert_null(strstr(y, "vars_prompt"));
	assert_null(strstr(y, "handlers:"));
	free(y);
	vw_plan_done(&plan);
	vw_sysroot_free(sr);
	tu_rmtree(root);
	free(root);
}

static void test_refusals(void **state)
{
	struct vw_plan plan;
	struct vw_sysroot *sr = NULL;
	struct vw_ansible_opts o = { .secret = PASSWORD };
	struct vw_ansible_files files = { 0 };
	struct vw_err err = { 0 };
	char *root = tu_mkroot(), *y;
	int rc;

	(void)state;
	before(root);
	/* bytes YAML cannot hold: refused without files/, else listed */
	build_plan(root, &plan, true);
	y = playbook(&plan, &o, NULL, &rc, &err);
	assert_true(rc < 0);
	assert_non_null(strstr(err.msg, "/etc/k.bin"));
	assert_non_null(strstr(err.msg, "-o FILE"));
	free(y);
	o.allow_files = true;
	y = playbook(&plan, &o, &files, &rc, &err);
	assert_int_equal(rc, 0);
	assert_int_equal(files.n, 1);
	assert_string_equal(files.v[0].path, "etc/k.bin");
	assert_int_equal(files.v[0].len, 11);
	assert_non_null(strstr(y, "    src: \"files/etc/k.bin\"\n"));
	vw_ansible_files_done(&files);
	free(y);

	/* a secret file without the answers' password would carry a secret */
	o.secret = "other";
	y = playbook(&plan, &o, &files, &rc, &err);
	assert_true(rc < 0);
	assert_non_null(strstr(err.msg, "/etc/vfiowiz/vm.xml"));
	free(y);
	o.secret = NULL;
	y = playbook(&plan, &o, &files, &rc, &err);
	assert_true(rc < 0);
	free(y);
	vw_plan_done(&plan);

	/* a secret file that Ansible would read as data once joined */
	assert_int_equal(vw_sysroot_open(&sr, root, &err), 0);
	vw_plan_init(&plan);
	assert_int_equal(vw_plan_add(&plan, sr,
				     &(struct vw_file_spec){ .path = "etc/s.json", .data = "{\"pw\": \"x\"}\n",
							     .len = 12, .why = "x", .flags = VW_CHANGE_SECRET },
				     &err), 1);
	o.secret = "x";
	y = playbook(&plan, &o, &files, &rc, &err);
	assert_true(rc < 0);
	free(y);
	vw_plan_done(&plan);

	/* an empty plan is an empty play */
	vw_plan_init(&plan);
	y = playbook(&plan, &o, &files, &rc, &err);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(y, "  tasks: []\n"));
	assert_non_null(strstr(y, "vfiowiz_files: []\n"));
	free(y);
	vw_plan_done(&plan);
	vw_sysroot_free(sr);
	tu_rmtree(root);
	free(root);
}

/* ---- the edge-case playbook for tests/ansible.sh ---- */

static void rmrf(const char *path)
{
	if (access(path, F_OK) == 0)
		tu_rmtree(path);
}

static void test_write_edge(void **state)
{
	const char *top = getenv("top_builddir");
	struct vw_plan plan;
	struct vw_ansible_opts o = { .secret = PASSWORD, .allow_files = true, .source = "edge" };
	struct vw_ansible_files files = { 0 };
	struct vw_err err = { 0 };
	char *dir, *b, *a, *y, *p;
	FILE *fp;
	int rc;

	(void)state;
	if (!top || !*top)
		skip();
	dir = vw_xasprintf("%s/tests/out/ansible", top);
	b = vw_xasprintf("%s/edge.before", dir);
	a = vw_xasprintf("%s/edge.after", dir);
	rmrf(b);
	rmrf(a);
	p = vw_xasprintf("%s/files", dir);
	rmrf(p);
	free(p);
	before(b);
	before(a);
	build_plan(b, &plan, true);
	y = playbook(&plan, &o, &files, &rc, &err);
	assert_int_equal(rc, 0);
	p = vw_xasprintf("%s/edge.yml", dir);
	fp = fopen(p, "w");
	assert_non_null(fp);
	fputs(y, fp);
	assert_int_equal(fclose(fp), 0);
	free(p);
	for (size_t i = 0; i < files.n; i++) {
		p = vw_xasprintf("files/%s", files.v[i].path);
		tu_write_bytes(dir, p, files.v[i].data, files.v[i].len);
		free(p);
	}
	/* The tree after: the planned bytes; new files with their mode (0600
	 * when secret), edited ones keep theirs; removals gone. */
	for (size_t i = 0; i < plan.n; i++) {
		const struct vw_change *c = &plan.v[i];

		p = vw_xasprintf("%s/%s", a, c->path);
		if (c->remove) {
			assert_int_equal(unlink(p), 0);
		} else {
			tu_write_bytes(a, c->path, c->new_data, c->new_len);
			if (!c->old_exists || c->secret)
				assert_int_equal(chmod(p, c->secret ? 0600 : c->mode), 0);
		}
		free(p);
	}
	/* The password, for the run (the playbook asks for it). */
	tu_write(dir, "edge.password", PASSWORD);
	vw_ansible_files_done(&files);
	vw_plan_done(&plan);
	free(y);
	free(a);
	free(b);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_ok),
		cmocka_unit_test(test_quoting),
		cmocka_unit_test(test_sha256),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_write_edge),
	};

	umask(022);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
