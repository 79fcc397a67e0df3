/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-apply.c - plan, apply, journal, undo and exec, for real, in temporary
 * sysroots.  Tests run as root in CI, so "read-only" is made with an
 * immutable file, a read-only bind mount (private mount namespace) and a
 * path through a regular file; the first two skip where not permitted. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apply.h"
#include "plan.h"
#include "exec.h"

struct fx {
	char root[64];
	char pristine[80];
	struct vw_sysroot *sr;
	struct vw_plan plan;
	struct vw_err err;
};

static char *at(const struct fx *f, const char *rel)
{
	return vw_xasprintf("%s/%s", f->root, rel);
}

static void mkparents(char *path)
{
	for (char *s = path + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(path, 0755);
			*s = '/';
		}
}

static void put(const struct fx *f, const char *rel, const char *data, mode_t mode)
{
	char *p = at(f, rel);
	FILE *fp;

	mkparents(p);
	fp = fopen(p, "w");
	assert_non_null(fp);
	assert_int_equal(fwrite(data, 1, strlen(data), fp), strlen(data));
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(chmod(p, mode), 0);
	free(p);
}

/* Contents of rel, or NULL when missing (caller frees). */
static char *get(const struct fx *f, const char *rel)
{
	char *buf = NULL;
	size_t len;

	if (vw_sysroot_read(f->sr, rel, &buf, &len, 1 << 24, NULL) < 0)
		return NULL;
	return buf;
}

static mode_t mode_of(const struct fx *f, const char *rel)
{
	char *p = at(f, rel);
	struct stat st;
	int r = lstat(p, &st);

	free(p);
	return r == 0 ? st.st_mode & 07777 : (mode_t)-1;
}

static bool exists(const struct fx *f, const char *rel)
{
	return mode_of(f, rel) != (mode_t)-1;
}

static int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static int setup(void **state)
{
	struct fx *f = vw_xcalloc(1, sizeof(*f));

	snprintf(f->root, sizeof(f->root), "/tmp/vw-apply-XXXXXX");
	assert_non_null(mkdtemp(f->root));
	snprintf(f->pristine, sizeof(f->pristine), "%s.orig", f->root);
	put(f, "etc/default/grub", "GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n", 0640);
	put(f, "etc/old.conf", "old\n", 0644);
	put(f, "etc/hosts", "127.0.0.1 localhost\n", 0644);
	assert_int_equal(vw_sysroot_open(&f->sr, f->root, &f->err), 0);
	vw_plan_init(&f->plan);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	vw_plan_done(&f->plan);
	vw_sysroot_free(f->sr);
	sh("chattr -R -i '%s' 2>/dev/null; rm -rf '%s' '%s' '%s.outside'", f->root, f->root,
	   f->pristine, f->root);
	free(f);
	return 0;
}

static const char *const update_grub[] = { "update-grub", NULL };
static const char *const update_initramfs[] = { "update-initramfs -u -k all", "update-grub", NULL };

#define GRUB_NEW "GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet intel_iommu=on\"\n"
#define VFIO_CONF "options vfio-pci ids=10de:2204,10de:1aef\n"

/* The plan most tests use: edit, create (in new directories), remove. */
static void make_plan(struct fx *f)
{
	struct vw_file_spec grub = { .path = "etc/default/grub", .data = GRUB_NEW,
				     .len = strlen(GRUB_NEW), .why = "kernel parameters",
				     .post = update_grub };
	struct vw_file_spec conf = { .path = "/etc/modprobe.d/sub/vfiowiz.conf", .data = VFIO_CONF,
				     .len = strlen(VFIO_CONF), .mode = 0644, .why = "bind",
				     .post = update_initramfs };

	vw_plan_done(&f->plan);
	vw_plan_init(&f->plan);
	assert_int_equal(vw_plan_add(&f->plan, f->sr, &grub, &f->err), 1);
	assert_int_equal(vw_plan_add(&f->plan, f->sr, &conf, &f->err), 1);
	assert_int_equal(vw_plan_remove_file(&f->plan, f->sr, "etc/old.conf", "cleanup", &f->err), 1);
	assert_int_equal(f->plan.n, 3);
}

/* Our state directory is expected to remain; the rest must come back. */
static void snapshot(struct fx *f)
{
	assert_int_equal(sh("mkdir -p '%s/var/lib/vfiowiz'", f->root), 0);
	assert_int_equal(sh("cp -a '%s' '%s'", f->root, f->pristine), 0);
}

static void test_plan_basics(void **state)
{
	struct fx *f = *state;
	char *data;
	size_t len;

	make_plan(f);
	/* Post-commands are deduplicated, in order of first appearance. */
	assert_int_equal(f->plan.npost, 2);
	assert_string_equal(f->plan.post_cmds[0], "update-grub");
	assert_string_equal(f->plan.post_cmds[1], "update-initramfs -u -k all");
	assert_true(f->plan.v[0].old_exists);
	assert_false(f->plan.v[1].old_exists);
	assert_string_equal(f->plan.v[1].path, "etc/modprobe.d/sub/vfiowiz.conf");
	/* The plan reads back what it will write. */
	assert_int_equal(vw_plan_read(&f->plan, f->sr, "etc/default/grub", &data, &len, &f->err), 0);
	assert_string_equal(data, GRUB_NEW);
	free(data);
	assert_int_equal(vw_plan_read(&f->plan, f->sr, "etc/old.conf", &data, &len, &f->err),
			 -ENOENT);
	/* Same bytes as on disk: dropped, and so is a post-command added after. */
	assert_int_equal(vw_plan_add_file(&f->plan, f->sr, "etc/hosts", "127.0.0.1 localhost\n", 20,
					  0644, "x", &f->err), 0);
	assert_int_equal(vw_plan_add_post(&f->plan, "reboot-now"), 0);
	assert_int_equal(f->plan.npost, 2);
	/* Setting a planned file back to its old bytes removes the change. */
	data = "GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n";
	assert_int_equal(vw_plan_add_file(&f->plan, f->sr, "etc/default/grub", data, strlen(data),
					  0644, "x", &f->err), 0);
	assert_int_equal(f->plan.n, 2);
	assert_int_equal(f->plan.npost, 2);
	/* Bad names are refused. */
	assert_true(vw_plan_add_file(&f->plan, f->sr, "etc/../x", "a", 1, 0644, "x", &f->err) < 0);
	assert_true(vw_plan_add_file(&f->plan, f->sr, "etc//x", "a", 1, 0644, "x", &f->err) < 0);
	assert_true(vw_plan_add_file(&f->plan, f->sr, "/", "a", 1, 0644, "x", &f->err) < 0);
	assert_int_equal(vw_plan_add_post(&f->plan, "unbalanced 'quote"), -EINVAL);
}

static void test_apply_then_plan_again(void **state)
{
	struct fx *f = *state;
	struct vw_apply_result res;
	char *s;

	make_plan(f);
	assert_int_equal(vw_apply_plan(f->sr, &f->plan, NULL, &res, &f->err), 0);
	assert_non_null(res.journal_id);
	assert_int_equal(res.written, 3);
	/* Under a sysroot post-commands are only listed. */
	assert_int_equal(res.npost, 2);
	assert_int_equal(res.post[0].state, VW_POST_WOULD_RUN);
	vw_apply_result_done(&res);
	s = get(f, "etc/default/grub");
	assert_string_equal(s, GRUB_NEW);
	free(s);
	s = get(f, "etc/modprobe.d/sub/vfiowiz.conf");
	assert_string_equal(s, VFIO_CONF);
	free(s);
	assert_false(exists(f, "etc/old.conf"));
	assert_int_equal(mode_of(f, "etc/default/grub"), 0640);
	assert_int_equal(mode_of(f, "etc/modprobe.d/sub/vfiowiz.conf"), 0644);
	assert_int_equal(mode_of(f, "etc/modprobe.d"), 0755);
	/* The same plan again: nothing left to do, nothing to run. */
	{
		struct vw_file_spec grub = { .path = "etc/default/grub", .data = GRUB_NEW,
					     .len = strlen(GRUB_NEW), .post = update_grub };
		vw_plan_done(&f->plan);
		vw_plan_init(&f->plan);
		assert_int_equal(vw_plan_add(&f->plan, f->sr, &grub, &f->err), 0);
		assert_int_equal(vw_plan_add_file(&f->plan, f->sr, "etc/modprobe.d/sub/vfiowiz.conf",
						  VFIO_CONF, strlen(VFIO_CONF), 0644, "b", &f->err), 0);
		assert_int_equal(vw_plan_remove_file(&f->plan, f->sr, "etc/old.conf", "c", &f->err),
				 0);
		assert_int_equal(f->plan.n, 0);
		assert_int_equal(f->plan.npost, 0);
	}
	/* An empty plan applies to nothing and journals nothing. */
	assert_int_equal(vw_apply_plan(f->sr, &f->plan, NULL, &res, &f->err), 0);
	assert_null(res.journal_id);
	vw_apply_result_done(&res);
}

static void test_apply_undo_diff_clean(void **state)
{
	struct fx *f = *state;
	struct vw_apply_result res;
	struct vw_undo_result ur;
	struct vw_journal_info *l;
	int n;

	snapshot(f);
	make_plan(f);
	assert_int_equal(vw_apply_plan(f->sr, &f->plan, NULL, &res, &f->err), 0);
	vw_apply_result_done(&res);
	n = vw_undo_list(f->sr, &l, &f->err);
	assert_int_equal(n, 1);
	assert_int_equal(l[0].state, VW_JOURNAL_APPLIED);
	assert_int_equal(l[0].nfiles, 3);
	assert_true(l[0].time > 0);
	vw_undo_list_free(l, (size_t)n);

	assert_int_equal(vw_undo(f->sr, NULL, &ur, &f->err), 0);
	assert_int_equal(ur.restored, 2);
	assert_int_equal(ur.removed, 1);
	assert_string_equal(ur.post[0], "update-grub");
	assert_string_equal(ur.post[1], "update-initramfs -u -k all");
	assert_null(ur.post[2]);
	vw_undo_result_done(&ur);
	/* Byte for byte, directories included; our state directory aside. */
	assert_int_equal(sh("diff -r -x vfiowiz '%s' '%s'", f->pristine, f->root), 0);
	assert_int_equal(mode_of(f, "etc/default/grub"), 0640);
	assert_false(exists(f, "etc/modprobe.d"));

	n = vw_undo_list(f->sr, &l, &f->err);
	assert_int_equal(l[0].state, VW_JOURNAL_UNDONE);
	vw_undo_list_free(l, (size_t)n);
	assert_int_equal(vw_undo(f->sr, NULL, &ur, &f->err), -ENOENT);
	vw_undo_result_done(&ur);
}

static void test_undo_refuses_later_edit(void **state)
{
	struct fx *f = *state;
	struct vw_apply_result res;
	struct vw_undo_result ur;
	char *s;

	make_plan(f);
	assert_int_equal(vw_apply_plan(f->sr, &f->plan, NULL, &res, &f->err), 0);
	vw_apply_result_done(&res);
	put(f, "etc/default/grub", "edited by hand\n", 0640);
	assert_int_equal(vw_undo(f->sr, NULL, &ur, &f->err), -ESTALE);
	assert_non_null(strstr(f->err.msg, "/etc/default/grub"));
	vw_undo_result_done(&ur);
	/* Nothing was touched. */
	assert_true(exists(f, "etc/modprobe.d/sub/vfiowiz.conf"));
	s = get(f, "etc/default/grub");
	assert_string_equal(s, "edited by hand\n");
	free(s);
}

/* Apply A, then B over the same file: undoing A first would put back
 * A's old bytes under B and lose B, and B's undo could then only restore
 * A's changes; refused even with --force-file, naming B.  Undone in order
 * (B, then A), the tree is the original byte for byte. */
static void test_undo_out_of_order(void **state)
{
	struct fx *f = *state;
	const char *b_grub = "GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet intel_iommu=on iommu=pt\"\n";
	struct vw_file_spec grub = { .path = "etc/default/grub", .data = b_grub,
				     .len = strlen(b_grub), .why = "B", .post = update_grub };
	const char *const force[] = { "/etc/default/grub", NULL };
	struct vw_undo_opts o = { .force = force };
	struct vw_apply_result res;
	struct vw_undo_result ur;
	char *a_id, *b_id, *s;

	snapshot(f);
	make_plan(f);
	assert_int_equal(vw_apply_plan(f->sr, &f->plan, NULL, &res, &f->err), 0);
	a_id = vw_xstrdup(res.journal_id);
	vw_apply_result_done(&res);
	vw_plan_done(&f->plan);
	vw_plan_init(&f->plan);
	assert_int_equal(vw_plan_add(&f->plan, f->sr, &grub, &f->err), 1);
	assert_int_equal(vw_apply_plan(f->sr, &f->plan, NULL, &res, &f->err), 0);
	b_id = vw_xstrdup(res.journal_id);
	vw_apply_result_done(&res);
	assert_string_not_equal(a_id, b_id);

	assert_int_equal(vw_undo_opts(f->sr, a_id, &o, &ur, &f->err), -EBUSY);
	assert_non_null(strstr(f->err.msg, b_id));
	assert_non_null(strstr(f->err.msg, "/etc/default/grub"));
	vw_undo_result_done(&ur);
	s = get(f, "etc/default/grub");
	assert_string_equal(s, b_grub);
	free(s);
	assert_true(exists(f, "etc/modprobe.d/sub/vfiowiz.conf"));

	assert_int_equal(vw_undo(f->sr, NULL, &ur, &f->err), 0);
	assert_string_equal(ur.journal_id, b_id);
	assert_string_equal(ur.post[0], "update-grub");
	assert_null(ur.post[1]);
	vw_undo_result_done(&ur);
	s = get(f, "etc/default/grub");
	assert_string_equal(s, GRUB_NEW);
	free(s);
	assert_int_equal(vw_undo(f->sr, NULL, &ur, &f->err), 0);
	assert_string_equal(ur.journal_id, a_id);
	assert_string_equal(ur.post[0], "update-grub");
	assert_string_equal(ur.post[1], "update-initramfs -u -k all");
	assert_null(ur.post[2]);
	vw_undo_result_done(&ur);
	assert_int_equal(sh("diff -r -x vfiowiz '%s' '%s'", f->pristine, f->root), 0);
	free(a_id);
	free(b_id);
}

static void test_stale_refused(void **state)
{
	struct fx *f = *state;
	struct vw_apply_result res;

	make_plan(f);
	put(f, "etc/old.conf", "changed meanwhile\n", 0644);
	assert_int_equal(vw_apply_plan(f->sr, &f->plan, NULL, &res, &f->err), -ESTALE);
	assert_non_null(strstr(f->err.msg, "/etc/old.conf"));
	assert_int_equal(res.items[2].state, VW_ITEM_FAILED);
	assert_int_equal(res.items[0].state, VW_ITEM_PENDING);
	assert_int_equal(res.written, 0);
	assert_null(res.journal_id);
	vw_apply_result_done(&res);
	/* Nothing at all was written. */
	assert_false(exists(f, "etc/modprobe.d"));
	assert_false(exists(f, "var/lib/vfiowiz/journal"));
	/* A file that appeared since the plan is stale too. */
	make_plan(f);
	put(f, "etc/modprobe.d/sub/vfiowiz.conf", "someone else's\n", 0644);
	assert_int_equal(vw_apply_plan(f->sr, &f->plan, NULL, &res, &f->err), -ESTALE);
	vw_apply_result_done(&res);
}

static void test_symlinks(void **state)
{
	struct fx *f = *state;
	struct vw_apply_result res;
	char outside[128], *p, *s;

	snprintf(outside, sizeof(outside), "%s.outside", f->root);
	mkdir(outside, 0755);
	sh("echo keep > '%s/target'", outside);
	/* Absolute links mean the host's files outside the sysroot. */
	p = at(f, "etc/evil");
	s = vw_xasprintf("%s/target", outside);
	assert_int_equal(symlink(s, p), 0);
	free(s);
	free(p);
	p = at(f, "etc/evildir");
	assert_int_equal(symlink(outside, p), 0);
	free(p);
	/* A relative link that stays inside is written through. */
	put(f, "usr/share/real.conf", "real\n", 0600);
	p = at(f, "etc/inside.conf");
	assert_int_equal(symlink("../usr/share/real.conf", p), 0);
	free(p);

	assert_true(vw_plan_add_file(&f->plan, f->sr, "etc/evil", "x\n", 2, 0644, "x", &f->err) >= 0);
	assert_int_equal(vw_apply_plan(f->sr, &f->plan, NULL, &res, &f->err), -EXDEV);
	assert_non_null(strstr(f->err.msg, "/etc/evil"));
	vw_apply_result_done(&res);

	vw_plan_done(&f->plan);
	vw_plan_init(&f->plan);
	assert_true(vw_plan_add_file(&f->plan, f->sr, "etc/evildir/x", "x\n", 2, 0644, "x", &f->err) >= 0);
	assert_int_equal(vw_apply_plan(f->sr, &f->plan, NULL, &res, &f->err), -EXDEV);
	vw_apply_result_done(&res);
	assert_int_equal(sh("test \"$(cat '%s/target')\" = keep && test ! -e '%s/x'", outside,
			    outside), 0);

	vw_plan_done(&f->plan);
	vw_plan_init(&f->plan);
	assert_int_equal(vw_plan_add_file(&f->plan, f->sr, "etc/inside.conf", "new\n", 4, 0644, "x",
					  &f->err), 1);
	assert_int_equal(vw_apply_plan(f->sr, &f->plan, NULL, &res, &f->err), 0);
	vw_apply_result_done(&res);
	s = get(f, "usr/share/real.conf");
	assert_string_equal(s, "new\n");
	free(s);
	assert_int_equal(mode_of(f, "usr/share/real.conf"), 0600);
	p = at(f, "etc/inside.conf");
	struct stat st;
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	free(p);
}

static void test_not_regular(void **state)
{
	struct fx *f = *state;
	struct vw_apply_result res;

	/* Planned while missing; a directory appears in its place. */
	assert_int_equal(vw_plan_add_file(&f->plan, f->sr, "etc/thing", "x\n", 2, 0644, "x", &f->err), 1);
	put(f, "etc/thing/inner", "", 0644);
	assert_true(vw_apply_plan(f->sr, &f->plan, NULL, &res, &f->err) < 0);
	assert_non_null(strstr(f->err.msg, "/etc/thing"));
	vw_apply_result_done(&res);
}

static void test_path_through_file(void **state)
{
	struct fx *f = *state;
	struct vw_apply_result res;

	assert_int_equal(vw_plan_add_file(&f->plan, f->sr, "etc/sub/x.conf", "x\n", 2, 0644, "x",
					  &f->err), 1);
	put(f, "etc/sub", "I am a file\n", 0644);
	assert_int_equal(vw_apply_plan(f->sr, &f->plan, NULL, &res, &f->err), -ENOTDIR);
	assert_non_null(strstr(f->err.msg, "not a directory"));
	vw_apply_result_done(&res);
	assert_false(exists(f, "var/lib/vfiowiz/journal"));
}

static void test_immutable(void **state)
{
	struct fx *f = *state;
	struct vw_apply_result res;
	char *p = at(f, "etc/hosts"), *s;
	int fd = open(p, O_RDONLY), flags = 0, r;

	free(p);
	assert_true(fd >= 0);
	r = ioctl(fd, FS_IOC_GETFLAGS, &flags);
	flags |= FS_IMMUTABLE_FL;
	if (r < 0 || ioctl(fd, FS_IOC_SETFLAGS, &flags) < 0) {
		close(fd);
		print_message("immutable files not supported here; skipped\n");
		skip();
	}
	assert_int_equal(vw_plan_add_file(&f->plan, f->sr, "etc/hosts", "x\n", 2, 0644, "x", &f->err), 1);
	r = vw_apply_plan(f->sr, &f->plan, NULL, &res, &f->err);
	flags &= ~FS_IMMUTABLE_FL;
	ioctl(fd, FS_IOC_SETFLAGS, &flags);
	close(fd);
	assert_int_equal(r, -EPERM);
	assert_non_null(strstr(f->err.msg, "/etc/hosts"));
	assert_non_null(strstr(f->err.msg, "immutable"));
	vw_apply_result_done(&res);
	s = get(f, "etc/hosts");
	assert_string_equal(s, "127.0.0.1 localhost\n");
	free(s);
}

/* In a child with a private mount namespace, etc/ is bound read-only. */
static int readonly_child(struct fx *f)
{
	struct vw_apply_result res;
	char *etc = at(f, "etc");

	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount(etc, etc, NULL, MS_BIND, NULL) < 0 ||
	    mount(NULL, etc, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL) < 0)
		return 77;
	/* Descriptors opened before unshare() still see the old mounts. */
	vw_sysroot_free(f->sr);
	if (vw_sysroot_open(&f->sr, f->root, &f->err) < 0)
		return 3;
	if (vw_apply_plan(f->sr, &f->plan, NULL, &res, &f->err) != -EROFS) {
		print_message("%s\n", f->err.msg);
		return 1;
	}
	if (!strstr(f->err.msg, "read-only") || !strstr(f->err.msg, "/etc/"))
		return 2;
	vw_apply_result_done(&res);
	return 0;
}

static void test_readonly_mount(void **state)
{
	struct fx *f = *state;
	int st;
	pid_t pid;

	make_plan(f);
	pid = fork();
	if (pid == 0)
		_exit(readonly_child(f));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (WEXITSTATUS(st) == 77) {
		print_message("no mount namespaces here; skipped\n");
		skip();
	}
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_false(exists(f, "var/lib/vfiowiz/journal"));
}

/* A write that fails half-way (a tiny tmpfs fills up): what was written
 * stays, is reported, and undo reverts it. */
static int partial_child(struct fx *f)
{
	struct vw_apply_result res;
	struct vw_undo_result ur;
	char *small = at(f, "etc/small"), *big = vw_xmalloc(1 << 20);
	int r;

	mkdir(small, 0755);
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", small, "tmpfs", 0, "size=64k") < 0)
		return 77;
	vw_sysroot_free(f->sr);
	if (vw_sysroot_open(&f->sr, f->root, &f->err) < 0)
		return 5;
	memset(big, 'x', 1 << 20);
	vw_plan_add_file(&f->plan, f->sr, "etc/hosts", "new hosts\n", 10, 0644, "a", &f->err);
	vw_plan_add_post(&f->plan, "update-grub");
	vw_plan_add_file(&f->plan, f->sr, "etc/small/big", big, 1 << 20, 0644, "b", &f->err);
	vw_plan_add_file(&f->plan, f->sr, "etc/zzz", "never\n", 6, 0644, "c", &f->err);
	r = vw_apply_plan(f->sr, &f->plan, NULL, &res, &f->err);
	if (r != -ENOSPC || res.written != 1 || res.items[0].state != VW_ITEM_WRITTEN ||
	    res.items[1].state != VW_ITEM_FAILED || res.items[2].state != VW_ITEM_PENDING ||
	    !strstr(f->err.msg, res.journal_id) || !strstr(f->err.msg, "/etc/small/big") ||
	    res.post[0].state != VW_POST_NOT_RUN) {
		print_message("r=%d written=%zu: %s\n", r, res.written, f->err.msg);
		return 1;
	}
	vw_apply_result_done(&res);
	if (vw_undo(f->sr, NULL, &ur, &f->err) != 0 || ur.restored != 1)
		return 2;
	vw_undo_result_done(&ur);
	char *s = get(f, "etc/hosts");
	r = strcmp(s, "127.0.0.1 localhost\n") ? 3 : 0;
	free(s);
	/* No temporary file was left in the full file system. */
	if (r == 0 && sh("test -z \"$(ls -A '%s')\"", small) != 0)
		r = 4;
	umount(small);
	free(small);
	free(big);
	return r;
}

static void test_partial_failure(void **state)
{
	struct fx *f = *state;
	int st;
	pid_t pid = fork();

	if (pid == 0)
		_exit(partial_child(f));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (WEXITSTATUS(st) == 77) {
		print_message("no mount namespaces here; skipped\n");
		skip();
	}
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_lock_held(void **state)
{
	struct fx *f = *state;
	struct vw_apply_result res;
	int go[2], done[2], st;
	char c, pidtext[32];
	pid_t pid;

	make_plan(f);
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(done), 0);
	pid = fork();
	if (pid == 0) {
		int fd = vw_apply_lock(f->sr, NULL);
		c = fd >= 0 ? 'y' : 'n';
		if (write(go[1], &c, 1) != 1 || read(done[0], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	assert_int_equal(read(go[0], &c, 1), 1);
	assert_int_equal(c, 'y');
	assert_int_equal(vw_apply_plan(f->sr, &f->plan, NULL, &res, &f->err), -EBUSY);
	snprintf(pidtext, sizeof(pidtext), "pid %ld", (long)pid);
	assert_non_null(strstr(f->err.msg, pidtext));
	assert_int_equal(res.written, 0);
	vw_apply_result_done(&res);
	assert_int_equal(write(done[1], "x", 1), 1);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	/* Released with its holder. */
	assert_int_equal(vw_apply_plan(f->sr, &f->plan, NULL, &res, &f->err), 0);
	vw_apply_result_done(&res);
	close(go[0]), close(go[1]), close(done[0]), close(done[1]);
}

static bool file_has(const char *path, const char *needle)
{
	FILE *fp = fopen(path, "r");
	char buf[65536];
	size_t n;

	if (!fp)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	return strstr(buf, needle) != NULL;
}

static void test_secret(void **state)
{
	struct fx *f = *state;
	struct vw_apply_result res;
	struct vw_undo_result ur;
	struct vw_file_spec s1 = { .path = "etc/libvirt/vm.xml", .data = "<graphics passwd='Hunter2x'/>\n",
				   .len = 30, .mode = 0644, .flags = VW_CHANGE_SECRET };
	struct vw_file_spec s2 = { .path = "etc/vnc.pass", .data = "NewSecret9\n", .len = 11,
				   .flags = VW_CHANGE_SECRET };
	char *manifest, *copy;

	put(f, "etc/vnc.pass", "OldSecret7\n", 0644);
	snapshot(f);
	assert_int_equal(vw_plan_add(&f->plan, f->sr, &s1, &f->err), 1);
	assert_int_equal(vw_plan_add(&f->plan, f->sr, &s2, &f->err), 1);
	assert_int_equal(vw_apply_plan(f->sr, &f->plan, NULL, &res, &f->err), 0);
	assert_int_equal(mode_of(f, "etc/libvirt/vm.xml"), 0600);
	assert_int_equal(mode_of(f, "etc/vnc.pass"), 0600);
	manifest = vw_xasprintf("%s/var/lib/vfiowiz/journal/%s/manifest", f->root, res.journal_id);
	copy = vw_xasprintf("var/lib/vfiowiz/journal/%s/files/0001", res.journal_id);
	assert_true(file_has(manifest, "keyed:"));
	assert_false(file_has(manifest, "Hunter2x"));
	assert_false(file_has(manifest, "Secret"));
	/* Nor a plain hash someone could test guesses against. */
	assert_false(file_has(manifest, "sha256:"));
	assert_int_equal(mode_of(f, copy), 0600);
	assert_int_equal(sh("test \"$(stat -c %%a '%s/var/lib/vfiowiz/journal/%s')\" = 700", f->root,
			    res.journal_id), 0);
	free(manifest);
	free(copy);
	vw_apply_result_done(&res);
	assert_int_equal(vw_undo(f->sr, NULL, &ur, &f->err), 0);
	vw_undo_result_done(&ur);
	assert_int_equal(sh("diff -r -x vfiowiz '%s' '%s'", f->pristine, f->root), 0);
	assert_int_equal(mode_of(f, "etc/vnc.pass"), 0644);
}

static void test_dry_and_accept(void **state)
{
	struct fx *f = *state;
	struct vw_apply_result res;
	bool acc[3] = { false, true, false };
	struct vw_apply_opts dry = { .dry = true }, some = { .accept = acc };
	struct vw_journal_info *l;
	int n;

	make_plan(f);
	assert_int_equal(vw_apply_plan(f->sr, &f->plan, &dry, &res, &f->err), 0);
	assert_int_equal(res.written, 0);
	assert_int_equal(res.items[0].state, VW_ITEM_PENDING);
	assert_int_equal(res.post[0].state, VW_POST_WOULD_RUN);
	vw_apply_result_done(&res);
	/* A dry run writes nothing at all, not even the lock. */
	assert_false(exists(f, "var"));
	assert_false(exists(f, "etc/modprobe.d"));

	assert_int_equal(vw_apply_plan(f->sr, &f->plan, &some, &res, &f->err), 0);
	assert_int_equal(res.written, 1);
	assert_int_equal(res.items[0].state, VW_ITEM_SKIPPED);
	assert_int_equal(res.items[1].state, VW_ITEM_WRITTEN);
	assert_int_equal(res.npost, 2);	/* the accepted change's commands only */
	assert_string_equal(res.post[0].cmd, "update-initramfs -u -k all");
	vw_apply_result_done(&res);
	assert_true(exists(f, "etc/old.conf"));
	n = vw_undo_list(f->sr, &l, &f->err);
	assert_int_equal(n, 1);
	assert_int_equal(l[0].nfiles, 1);
	vw_undo_list_free(l, (size_t)n);
}

static void test_write_atomic(void **state)
{
	struct fx *f = *state;
	char *s;

	assert_int_equal(vw_write_atomic(f->sr, "var/lib/x/state", "s=1\n", 4, 0600, &f->err), 0);
	assert_int_equal(mode_of(f, "var/lib/x/state"), 0600);
	assert_int_equal(vw_write_atomic(f->sr, "etc/default/grub", "g\n", 2, 0644, &f->err), 0);
	assert_int_equal(mode_of(f, "etc/default/grub"), 0640);
	s = get(f, "etc/default/grub");
	assert_string_equal(s, "g\n");
	free(s);
	assert_int_equal(sh("test -z \"$(ls -A '%s/etc/default' | grep -v '^grub$')\"", f->root), 0);
}

static void test_exec_recorded(void **state)
{
	struct fx *f = *state;
	const char *topo[] = { "nvidia-smi", "topo", "-m", NULL };
	const char *odd[] = { "echo", "a b", "c/d", NULL };
	const char *missing[] = { "lspci", "-nn", NULL };
	struct vw_exec_result res;
	struct vw_exec_opts dry = { .dry = true };
	char *key;

	key = vw_exec_key(topo);
	assert_string_equal(key, "nvidia-smi_topo_-m");
	free(key);
	key = vw_exec_key(odd);
	assert_string_equal(key, "echo_a_b_c_d");
	free(key);
	put(f, ".vfiowiz/cmd/nvidia-smi_topo_-m", "GPU0 X NV18\n", 0644);
	put(f, ".vfiowiz/cmd/nvidia-smi_topo_-m.rc", "3\n", 0644);
	assert_int_equal(vw_exec_run(f->sr, topo, &res, &f->err), 0);
	assert_int_equal(res.source, VW_EXEC_RECORDED);
	assert_int_equal(res.status, 3);
	assert_string_equal(res.output, "GPU0 X NV18\n");
	vw_exec_result_done(&res);
	assert_int_equal(vw_exec_run(f->sr, missing, &res, &f->err), -ENOENT);
	assert_non_null(strstr(f->err.msg, "not recorded"));
	assert_string_equal(res.output, "");
	vw_exec_result_done(&res);
	assert_int_equal(vw_exec_run_opts(f->sr, missing, &dry, &res, &f->err), 0);
	assert_int_equal(res.source, VW_EXEC_LISTED);
	vw_exec_result_done(&res);
	put(f, ".vfiowiz/cmd/lspci_-nn.rc", "lots\n", 0644);
	put(f, ".vfiowiz/cmd/lspci_-nn", "", 0644);
	assert_int_equal(vw_exec_run(f->sr, missing, &res, &f->err), -EINVAL);
	vw_exec_result_done(&res);
}

/* Every post-command is journaled with its kind and the command that takes
 * it back; undo lists them in the order they run and never creates a disk
 * image again nor removes it. */
static void test_post_kinds(void **state)
{
	struct fx *f = *state;
	static const char *const unit_post[] = {
		"systemctl daemon-reload", "systemctl enable vw.service", "systemctl restart vw.service", NULL,
	};
	static const char *const old_post[] = { "virsh define /etc/libvirt/qemu/old.xml", NULL };
	static const char *const new_post[] = {
		"qemu-img create -f qcow2 /var/lib/libvirt/images/new.qcow2 64G",
		"virsh define /etc/libvirt/qemu/new.xml", NULL,
	};
	static const char *const host_post[] = {
		"bootctl set-oneshot vfiowiz-test.conf",
		"grubby --update-kernel=ALL --remove-args=\"a=1\" --args=\"iommu=pt\"",
		"qm set 100 --scsi0 local-lvm:64", "frobnicate --now",
		"systemctl restart existing.service", "update-grub", NULL,
	};
	static const char *const want[] = {
		/* before the restore, reverse order */
		"grubby --update-kernel=ALL --remove-args=iommu=pt --args=a=1",
		"bootctl set-oneshot ''", "virsh undefine --nvram newvm",
		"systemctl stop vw.service", "systemctl disable vw.service",
		/* after: rebuilds, then what reads restored files */
		"systemctl daemon-reload", "update-grub",
		"virsh define /etc/libvirt/qemu/old.xml", "systemctl restart existing.service", NULL,
	};
	const char *newxml = "<domain type='kvm'>\n  <name>newvm</name>\n</domain>\n";
	struct vw_file_spec specs[] = {
		{ .path = "etc/systemd/system/vw.service", .data = "[Unit]\n", .len = 7, .post = unit_post },
		{ .path = "etc/libvirt/qemu/old.xml", .data = "<domain><name>old</name></domain>\n",
		  .len = 34, .post = old_post },
		{ .path = "etc/libvirt/qemu/new.xml", .data = newxml, .len = strlen(newxml),
		  .post = new_post },
		{ .path = "etc/hosts", .data = "::1 localhost\n", .len = 14, .post = host_post },
	};
	struct vw_apply_result res;
	struct vw_undo_result ur;
	char *man;
	size_t k;

	put(f, "etc/libvirt/qemu/old.xml", "<domain><name>old</name><memory/></domain>\n", 0600);
	for (size_t i = 0; i < VW_ARRAY_SIZE(specs); i++)
		assert_int_equal(vw_plan_add(&f->plan, f->sr, &specs[i], &f->err), 1);
	assert_int_equal(vw_apply_plan(f->sr, &f->plan, NULL, &res, &f->err), 0);
	man = vw_xasprintf("var/lib/vfiowiz/journal/%s/manifest", res.journal_id);
	vw_apply_result_done(&res);
	{
		char *text = get(f, man);

		assert_non_null(strstr(text, "\npost enable systemctl%20enable%20vw.service "
					     "systemctl%20disable%20vw.service\n"));
		assert_non_null(strstr(text, "\npost image qemu-img%20create"));
		assert_non_null(strstr(text, "qcow2%2064G -\n"));
		free(text);
	}
	free(man);
	assert_int_equal(vw_undo(f->sr, NULL, &ur, &f->err), 0);
	for (k = 0; want[k]; k++) {
		assert_non_null(ur.post[k]);
		assert_string_equal(ur.post[k], want[k]);
		assert_true(k < ur.nruns);
		assert_string_equal(ur.runs[k].cmd, want[k]);
		/* Under a sysroot nothing runs. */
		assert_int_equal(ur.runs[k].state, VW_POST_WOULD_RUN);
	}
	assert_null(ur.post[k]);
	assert_int_equal(ur.nruns, k);
	assert_string_equal(ur.images[0], "/var/lib/libvirt/images/new.qcow2");
	assert_null(ur.images[1]);
	assert_string_equal(ur.kept[0], "qemu-img create -f qcow2 /var/lib/libvirt/images/new.qcow2 64G");
	assert_string_equal(ur.kept[1], "qm set 100 --scsi0 local-lvm:64");
	assert_string_equal(ur.kept[2], "frobnicate --now");
	assert_null(ur.kept[3]);
	vw_undo_result_done(&ur);
}

/* A journal written before kinds ("post CMD"): only rebuilds run again. */
static void test_post_old_journal(void **state)
{
	struct fx *f = *state;
	const char *man = "vfiowiz-journal 1\nid 20240101T000000Z\n"
			  "post update-grub\npost virsh%20define%20/etc/x.xml\n"
			  "post qemu-img%20create%20-f%20qcow2%20/x.qcow2%2064G\nend\n";
	struct vw_undo_result ur;

	put(f, "var/lib/vfiowiz/journal/20240101T000000Z/manifest", man, 0600);
	put(f, "var/lib/vfiowiz/journal/20240101T000000Z/status", "applied 0\n", 0600);
	assert_int_equal(vw_undo(f->sr, NULL, &ur, &f->err), 0);
	assert_string_equal(ur.post[0], "update-grub");
	assert_null(ur.post[1]);
	assert_string_equal(ur.images[0], "/x.qcow2");
	vw_undo_result_done(&ur);
}

/* A killed apply leaves temporary files in its journal and, killed before
 * its manifest, a journal describing nothing: the next apply removes and
 * counts them; journals with a manifest stay. */
static void test_journal_tidy(void **state)
{
	struct fx *f = *state;
	struct vw_apply_result res;
	struct vw_journal_info *l;
	char *jdir;
	int n;

	make_plan(f);
	assert_int_equal(vw_apply_plan(f->sr, &f->plan, NULL, &res, &f->err), 0);
	assert_int_equal(res.tidy.temps + res.tidy.journals, 0);
	jdir = vw_xasprintf("var/lib/vfiowiz/journal/%s", res.journal_id);
	vw_apply_result_done(&res);
	{
		char *a = vw_xasprintf("%s/.vfiowiz-0123abcd.tmp", jdir);
		char *b = vw_xasprintf("%s/files/.vfiowiz-89abcdef.tmp", jdir);

		put(f, a, "half a manifest", 0600);
		put(f, b, "half a copy", 0600);
		free(a);
		free(b);
	}
	put(f, "var/lib/vfiowiz/journal/20200101T000000Z/files/0001", "old", 0600);
	put(f, "var/lib/vfiowiz/journal/20200101T000000Z/.vfiowiz-00000000.tmp", "x", 0600);
	assert_int_equal(vw_plan_add_file(&f->plan, f->sr, "etc/hosts", "x\n", 2, 0644, "x", &f->err), 1);
	{
		bool acc[4] = { false, false, false, true };
		struct vw_apply_opts o = { .accept = acc };

		assert_int_equal(f->plan.n, 4);
		assert_int_equal(vw_apply_plan(f->sr, &f->plan, &o, &res, &f->err), 0);
	}
	assert_int_equal(res.tidy.temps, 3);
	assert_int_equal(res.tidy.journals, 1);
	vw_apply_result_done(&res);
	assert_false(exists(f, "var/lib/vfiowiz/journal/20200101T000000Z"));
	assert_true(exists(f, jdir));
	n = vw_undo_list(f->sr, &l, &f->err);
	assert_int_equal(n, 2);
	vw_undo_list_free(l, (size_t)n);
	assert_int_equal(sh("test -z \"$(find '%s/var/lib/vfiowiz' -name '.vfiowiz-*')\"", f->root), 0);
	free(jdir);
}

/* The journal's status cannot be written (its file system is full: a tmpfs
 * with no inode left for it): the apply fails, says why, runs nothing. */
static int status_child(struct fx *f)
{
	struct vw_apply_result res;
	char *jroot = at(f, "var/lib/vfiowiz/journal"), opts[64];
	int r;

	mkparents(jroot);
	mkdir(jroot, 0700);
	/* Root, the journal, files/, one copy, the manifest: 5 inodes. */
	snprintf(opts, sizeof(opts), "size=1m,nr_inodes=5,mode=0700");
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", jroot, "tmpfs", 0, opts) < 0)
		return 77;
	vw_sysroot_free(f->sr);
	if (vw_sysroot_open(&f->sr, f->root, &f->err) < 0)
		return 5;
	vw_plan_add_file(&f->plan, f->sr, "etc/hosts", "new hosts\n", 10, 0644, "a", &f->err);
	vw_plan_add_post(&f->plan, "update-grub");
	r = vw_apply_plan(f->sr, &f->plan, NULL, &res, &f->err);
	if (r != -ENOSPC || res.written != 1 || res.post[0].state != VW_POST_NOT_RUN ||
	    !strstr(f->err.msg, "could not record") || !strstr(f->err.msg, res.journal_id)) {
		print_message("r=%d written=%zu: %s\n", r, res.written, f->err.msg);
		return 1;
	}
	vw_apply_result_done(&res);
	umount(jroot);
	free(jroot);
	return 0;
}

static void test_status_enospc(void **state)
{
	struct fx *f = *state;
	int st;
	pid_t pid = fork();

	if (pid == 0)
		_exit(status_child(f));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (WEXITSTATUS(st) == 77) {
		print_message("no mount namespaces here; skipped\n");
		skip();
	}
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* As a user who is not root, giving a file its owner back fails with EPERM:
 * the message says so, not "immutable? see lsattr". */
static int owner_child(struct fx *f)
{
	struct vw_err err = { 0 };
	struct vw_sysroot *sr;
	int r;

	if (setgid(65534) < 0 || setuid(65534) < 0)
		return 77;
	if (vw_sysroot_open(&sr, f->root, &err) < 0)
		return 5;
	r = vw_write_atomic(sr, "home/nobody/root-owned.conf", "x\n", 2, 0644, &err);
	vw_sysroot_free(sr);
	if (r != -EPERM || !strstr(err.msg, "only root can") || strstr(err.msg, "lsattr")) {
		print_message("r=%d: %s\n", r, err.msg);
		return 1;
	}
	return 0;
}

static void test_owner_not_root(void **state)
{
	struct fx *f = *state;
	char *dir = at(f, "home/nobody");
	int st;
	pid_t pid;

	if (geteuid() != 0) {
		print_message("needs root to make a user that is not; skipped\n");
		skip();
	}
	put(f, "home/nobody/root-owned.conf", "old\n", 0644);
	assert_int_equal(chmod(f->root, 0755), 0);
	assert_int_equal(chown(dir, 65534, 65534), 0);
	pid = fork();
	if (pid == 0)
		_exit(owner_child(f));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (WEXITSTATUS(st) == 77) {
		print_message("cannot become nobody; skipped\n");
		skip();
	}
	assert_int_equal(WEXITSTATUS(st), 0);
	free(dir);
}

static void test_exec_host(void **state)
{
	const char *both[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	const char *slow[] = { "sleep", "5", NULL };
	const char *quiet[] = { "sh", "-c", "exec >/dev/null 2>&1; sleep 5", NULL };
	const char *lots[] = { "sh", "-c", "yes | head -c 100000", NULL };
	const char *nope[] = { "vw-no-such-program-here", NULL };
	struct vw_exec_opts quick = { .timeout_ms = 300 }, small = { .max_output = 1000 };
	struct vw_exec_result res;
	struct vw_sysroot *host;
	struct vw_err err;

	(void)state;
	assert_int_equal(vw_sysroot_open(&host, "/", &err), 0);
	assert_true(vw_sysroot_is_host(host));
	assert_int_equal(vw_exec_run(host, both, &res, &err), 0);
	assert_int_equal(res.source, VW_EXEC_RAN);
	assert_int_equal(res.status, 3);
	assert_non_null(strstr(res.output, "out\n"));
	assert_non_null(strstr(res.output, "err\n"));
	vw_exec_result_done(&res);
	assert_int_equal(vw_exec_run_opts(host, slow, &quick, &res, &err), -ETIMEDOUT);
	assert_true(res.timed_out);
	assert_int_equal(res.status, 128 + 9);
	vw_exec_result_done(&res);
	/* Closing its output does not end the wait: the exit does. */
	assert_int_equal(vw_exec_run_opts(host, quiet, &quick, &res, &err), -ETIMEDOUT);
	vw_exec_result_done(&res);
	assert_int_equal(vw_exec_run_opts(host, lots, &small, &res, &err), 0);
	assert_true(res.truncated);
	assert_int_equal(res.len, 1000);
	vw_exec_result_done(&res);
	assert_int_equal(vw_exec_run(host, nope, &res, &err), -ENOENT);
	vw_exec_result_done(&res);
	vw_sysroot_free(host);
}

static void test_exec_split(void **state)
{
	char **v, *j;

	(void)state;
	assert_int_equal(vw_exec_split("  update-initramfs -u  -k all ", &v, NULL), 4);
	assert_string_equal(v[0], "update-initramfs");
	assert_string_equal(v[3], "all");
	assert_null(v[4]);
	vw_strv_free(v);
	assert_int_equal(vw_exec_split("virsh define '/etc/my vm.xml' \"a\\\"b\" c\\ d", &v, NULL), 5);
	assert_string_equal(v[2], "/etc/my vm.xml");
	assert_string_equal(v[3], "a\"b");
	assert_string_equal(v[4], "c d");
	j = vw_exec_join((const char *const *)v);
	assert_string_equal(j, "virsh define '/etc/my vm.xml' 'a\"b' 'c d'");
	free(j);
	vw_strv_free(v);
	assert_int_equal(vw_exec_split("echo 'open", &v, NULL), -EINVAL);
	assert_null(v);
	assert_int_equal(vw_exec_split("   ", &v, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_plan_basics, setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply_then_plan_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply_undo_diff_clean, setup, teardown),
		cmocka_unit_test_setup_teardown(test_undo_refuses_later_edit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_undo_out_of_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlinks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_regular, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_through_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_immutable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readonly_mount, setup, teardown),
		cmocka_unit_test_setup_teardown(test_partial_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_held, setup, teardown),
		cmocka_unit_test_setup_teardown(test_secret, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dry_and_accept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_atomic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_recorded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_post_kinds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_post_old_journal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_tidy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_status_enospc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_owner_not_root, setup, teardown),
		cmocka_unit_test(test_exec_host),
		cmocka_unit_test(test_exec_split),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
