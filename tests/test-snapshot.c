/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-snapshot.c - snapshots: the tar reader against hostile archives,
 * redaction, capture and replay, and that nothing from a snapshot runs. */
#define _GNU_SOURCE
#include "testutil.h"
#include "exec.h"
#include "facts.h"
#include "redact.h"
#include "snapshot.h"
#include "storage.h"
#include "sysroot.h"
#include "tarsafe.h"
#include "hostile/hostile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static struct vw_sysroot *open_root(const char *root)
{
	struct vw_sysroot *sr = NULL;
	struct vw_err err = { 0 };

	assert_int_equal(vw_sysroot_open(&sr, root, &err), 0);
	return sr;
}

static size_t count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	struct vw_buf b = VW_BUF_INIT;
	char chunk[4096];
	size_t n;

	if (!fp)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		vw_buf_add(&b, chunk, n);
	fclose(fp);
	vw_buf_adds(&b, "");
	if (len)
		*len = b.len;
	return vw_buf_steal(&b);
}

/* ---- names and links ----------------------------------------------------- */

static void test_clean_name(void **state)
{
	static const struct { const char *in, *out; } ok[] = {
		{ "etc/os-release", "etc/os-release" }, { "./etc//x/", "etc/x" }, { ".", "" },
		{ "./", "" }, { "a/./b", "a/b" }, { "..a/b..", "..a/b.." },
	};
	static const char *const bad[] = {
		"", "/etc/shadow", "../x", "a/../b", "a/..", "a/\x1b[0m", "a\nb", "a\x7f",
	};
	char *s, longname[5000];

	(void)state;
	for (size_t i = 0; i < VW_ARRAY_SIZE(ok); i++) {
		s = vw_tar_clean_name(ok[i].in, NULL);
		assert_non_null(s);
		assert_string_equal(s, ok[i].out);
		free(s);
	}
	for (size_t i = 0; i < VW_ARRAY_SIZE(bad); i++)
		assert_null(vw_tar_clean_name(bad[i], NULL));
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_null(vw_tar_clean_name(longname, NULL));
	memset(longname, 'a', 300);
	longname[300] = '\0';
	assert_null(vw_tar_clean_name(longname, NULL));	/* one component > NAME_MAX */
}

static void test_link_rule(void **state)
{
	(void)state;
	/* The kernel's own links. */
	assert_true(vw_tar_link_ok("sys/bus/pci/devices/0000:00:07.0",
				   "../../../devices/pci0000:00/0000:00:07.0"));
	assert_true(vw_tar_link_ok("sys/devices/pci0000:00/0000:00:07.0/driver",
				   "../../../bus/pci/drivers/nvidia"));
	assert_true(vw_tar_link_ok("sys/devices/pci0000:00/0000:00:07.0/iommu_group",
				   "../../../kernel/iommu_groups/5"));
	assert_true(vw_tar_link_ok("etc/os-release", "../usr/lib/os-release"));
	assert_true(vw_tar_link_ok("a/b", ".."));
	assert_true(vw_tar_link_ok("a/b", "./c/./d"));
	/* Out of the tree, absolute, or climbing back through a name. */
	assert_false(vw_tar_link_ok("etc/os-release", "../../usr/lib/os-release"));
	assert_false(vw_tar_link_ok("x", ".."));
	assert_false(vw_tar_link_ok("etc/shadow", "/etc/shadow"));
	assert_false(vw_tar_link_ok("a/c", "b/../.."));
	assert_false(vw_tar_link_ok("a/c", "b/.."));
	assert_false(vw_tar_link_ok("a/c", ""));
	assert_false(vw_tar_link_ok("a/c", "x\ny"));
	assert_false(vw_tar_link_ok("../a", "b"));
}

/* ---- the writer and the reader -------------------------------------------- */

static void test_write_read(void **state)
{
	char *jail = tu_mkroot(), *arch = vw_xasprintf("%s/a.tar.gz", jail);
	char *dest = vw_xasprintf("%s/dest", jail), *s, *longname;
	struct vw_tar_writer *w;
	struct vw_tar_stats st;
	struct vw_err err = { 0 };
	struct stat sb;
	int fd, dfd;
	char big[3000];

	(void)state;
	memset(big, 'x', sizeof(big));
	longname = vw_xasprintf("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/"
				"0000:03:00.0/0000:04:00.0/%0120d", 7);
	fd = open(arch, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	w = vw_tar_writer_new(fd, 1700000000);
	assert_int_equal(vw_tar_add_dir(w, "etc", 0755, &err), 0);
	assert_int_equal(vw_tar_add_file(w, "etc/hello", 0644, "hi\n", 3, &err), 0);
	assert_int_equal(vw_tar_add_file(w, "etc/big", 0755, big, sizeof(big), &err), 0);
	assert_int_equal(vw_tar_add_file(w, "etc/empty", 0644, "", 0, &err), 0);
	assert_int_equal(vw_tar_add_symlink(w, "etc/link", "hello", &err), 0);
	assert_int_equal(vw_tar_add_file(w, longname, 0644, "deep\n", 5, &err), 0);
	/* The writer refuses what the reader would. */
	assert_true(vw_tar_add_symlink(w, "etc/bad", "/etc/shadow", &err) < 0);
	assert_true(vw_tar_add_file(w, "../x", 0644, "", 0, &err) < 0);
	assert_int_equal(vw_tar_writer_finish(w, &err), 0);
	close(fd);

	/* GNU tar reads what we write, when it is there. */
	if (access("/usr/bin/tar", X_OK) == 0 || access("/bin/tar", X_OK) == 0) {
		char *cmd = vw_xasprintf("tar -tzf '%s' >/dev/null 2>&1", arch);
		assert_int_equal(system(cmd), 0);
		free(cmd);
	}

	assert_int_equal(mkdir(dest, 0700), 0);
	dfd = open(dest, O_RDONLY | O_DIRECTORY);
	fd = open(arch, O_RDONLY);
	assert_int_equal(vw_tar_extract_fd(fd, dfd, NULL, &st, &err), 0);
	close(fd);
	close(dfd);
	assert_true(st.compressed);
	assert_int_equal(st.files, 4);
	assert_int_equal(st.symlinks, 1);
	assert_int_equal(st.bytes, 3 + sizeof(big) + 5);
	s = vw_xasprintf("%s/etc/hello", dest);
	free(slurp(s, NULL));
	assert_int_equal(stat(s, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);	/* never executable */
	free(s);
	s = vw_xasprintf("%s/etc/big", dest);
	assert_int_equal(stat(s, &sb), 0);
	assert_int_equal(sb.st_mode & 0111, 0);
	assert_int_equal(sb.st_size, sizeof(big));
	free(s);
	s = vw_xasprintf("%s/%s", dest, longname);
	{
		char *c = slurp(s, NULL);
		assert_non_null(c);
		assert_string_equal(c, "deep\n");
		free(c);
	}
	free(s);
	s = vw_xasprintf("%s/etc/link", dest);
	assert_int_equal(lstat(s, &sb), 0);
	assert_true(S_ISLNK(sb.st_mode));
	free(s);

	free(longname);
	free(arch);
	free(dest);
	tu_rmtree(jail);
	free(jail);
}

/* Every hostile archive is refused with the expected reason, and nothing
 * is left in the temporary folder or outside it. */
static void test_hostile(void **state)
{
	char *jail = tu_mkroot(), *tmp = vw_xasprintf("%s/tmp", jail);
	char *tag = vw_xasprintf("%s/outside", jail), *old = getenv("TMPDIR");
	char *oldtmp = old ? vw_xstrdup(old) : NULL;

	(void)state;
	assert_int_equal(mkdir(tmp, 0700), 0);
	setenv("TMPDIR", tmp, 1);
	for (size_t i = 0; i < hostile_ncases; i++) {
		const struct hostile_case *hc = &hostile_cases[i];
		char *arch = vw_xasprintf("%s/%s.tar.gz", jail, hc->name), *dir = NULL;
		struct vw_err err = { 0 };
		int r;

		assert_int_equal(hostile_write(hc->name, arch, tag), 0);
		r = vw_snapshot_import(arch, NULL, &dir, NULL, &err);
		if (r == 0 || !strstr(err.msg, hc->expect))
			fail_msg("%s: r=%d, message '%s' lacks '%s'", hc->name, r, err.msg, hc->expect);
		assert_null(dir);
		/* The message never carries raw control bytes. */
		for (const char *p = err.msg; *p; p++)
			assert_true((unsigned char)*p >= 0x20);
		/* Nothing left behind, nothing outside. */
		assert_int_equal(count_entries(tmp), 0);
		assert_int_not_equal(access(tag, F_OK), 0);
		free(arch);
		arch = vw_xasprintf("%s-abs", tag);
		assert_int_not_equal(access(arch, F_OK), 0);
		free(arch);
		arch = vw_xasprintf("%s/escape", jail);
		assert_int_not_equal(access(arch, F_OK), 0);
		free(arch);
	}
	/* Only the archives, tmp and nothing else in the jail. */
	assert_int_equal(count_entries(jail), hostile_ncases + 1);
	if (oldtmp)
		setenv("TMPDIR", oldtmp, 1);
	else
		unsetenv("TMPDIR");
	free(oldtmp);
	free(tag);
	free(tmp);
	tu_rmtree(jail);
	free(jail);
}

/* A tree deeper than PATH_MAX (made here, as an older reader let a
 * snapshot make it) is removed all the same: by dirfds, not paths. */
static void test_remove_deep(void **state)
{
	char *jail = tu_mkroot(), *top = vw_xasprintf("%s/deep", jail), comp[201];
	int fd;

	(void)state;
	memset(comp, 'x', 200);
	comp[200] = '\0';
	assert_int_equal(mkdir(top, 0700), 0);
	fd = open(top, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	for (int i = 0; i < 40; i++) {	/* 8 KiB of path */
		int nfd;

		assert_int_equal(mkdirat(fd, comp, 0700), 0);
		nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY);
		assert_true(nfd >= 0);
		if (i == 20) {
			int f = openat(nfd, "file", O_WRONLY | O_CREAT, 0600);

			assert_true(f >= 0);
			close(f);
			assert_int_equal(symlinkat("/etc", nfd, "link"), 0);
		}
		close(fd);
		fd = nfd;
	}
	close(fd);
	assert_int_equal(vw_snapshot_remove(top), 0);
	assert_int_not_equal(access(top, F_OK), 0);
	assert_int_equal(access("/etc", F_OK), 0);
	free(top);
	tu_rmtree(jail);
	free(jail);
}

/* SIGTERM during an import: the extraction stops, nothing is left in
 * TMPDIR, and the process still dies of the signal.  The child extracts a
 * marker, then 120 MiB; the signal is sent as soon as the marker exists
 * (no sleep: the parent watches for it). */
static void test_import_signal(void **state)
{
	static char zeros[1 << 20];
	char *jail = tu_mkroot(), *tmp = vw_xasprintf("%s/tmp", jail);
	char *arch = vw_xasprintf("%s/big.tar.gz", jail);
	struct htar *t;
	bool sent = false;
	pid_t pid;
	int st;

	(void)state;
	assert_int_equal(mkdir(tmp, 0700), 0);
	t = htar_open(arch, true);
	assert_non_null(t);
	htar_entry(t, "sys/", '5', 0, NULL, NULL, 0);
	htar_entry(t, "sys/marker", '0', 2, NULL, "m\n", 2);
	for (int f = 0; f < 2; f++) {
		htar_entry(t, f ? "sys/big1" : "sys/big0", '0', (uint64_t)60 << 20, NULL, zeros, sizeof(zeros));
		for (int k = 1; k < 60; k++)
			htar_raw(t, zeros, sizeof(zeros));
	}
	assert_int_equal(htar_close(t, true), 0);

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct vw_err err = { 0 };
		char *dir = NULL;

		setenv("TMPDIR", tmp, 1);
		_exit(vw_snapshot_import(arch, NULL, &dir, NULL, &err) == 0 ? 0 : 3);
	}
	while (!sent) {
		DIR *d = opendir(tmp);
		struct dirent *de;

		assert_int_equal(waitpid(pid, &st, WNOHANG), 0);	/* still importing */
		while (d && !sent && (de = readdir(d))) {
			char *m = vw_xasprintf("%s/%s/sys/marker", tmp, de->d_name);

			if (de->d_name[0] != '.' && access(m, F_OK) == 0)
				sent = kill(pid, SIGTERM) == 0;
			free(m);
		}
		if (d)
			closedir(d);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGTERM);
	assert_int_equal(count_entries(tmp), 0);
	free(arch);
	free(tmp);
	tu_rmtree(jail);
	free(jail);
}

/* Limits are enforced as given, before the bytes are written. */
static void test_limits(void **state)
{
	char *jail = tu_mkroot(), *arch = vw_xasprintf("%s/a.tar", jail);
	char *dest = vw_xasprintf("%s/d", jail), *data;
	struct vw_tar_limits lim = { .max_total = 1 << 20, .max_file = 1 << 20,
				     .max_stream = 64 << 20, .max_entries = 1000 };
	struct vw_err err = { 0 };
	struct htar *t;
	size_t len;
	int dfd;

	(void)state;
	/* 3 files of 512 KiB: the third crosses 1 MiB in all. */
	t = htar_open(arch, false);
	{
		char *blob = vw_xcalloc(1, 512 << 10);
		for (int i = 0; i < 3; i++) {
			char name[16];
			snprintf(name, sizeof(name), "f%d", i);
			htar_entry(t, name, '0', 512 << 10, NULL, blob, 512 << 10);
		}
		free(blob);
	}
	htar_close(t, true);
	data = slurp(arch, &len);
	assert_int_equal(mkdir(dest, 0700), 0);
	dfd = open(dest, O_RDONLY | O_DIRECTORY);
	assert_true(vw_tar_extract_mem(data, len, dfd, &lim, NULL, &err) < 0);
	assert_non_null(strstr(err.msg, "more than 1 MiB"));
	free(data);
	close(dfd);
	tu_rmtree(dest);

	/* 1001 entries, made of implicit directories: they count too. */
	t = htar_open(arch, false);
	for (int i = 0; i < 600; i++) {
		char name[32];
		snprintf(name, sizeof(name), "d%d/f", i);
		htar_entry(t, name, '0', 0, NULL, NULL, 0);
	}
	htar_close(t, true);
	data = slurp(arch, &len);
	assert_int_equal(mkdir(dest, 0700), 0);
	dfd = open(dest, O_RDONLY | O_DIRECTORY);
	assert_true(vw_tar_extract_mem(data, len, dfd, &lim, NULL, &err) < 0);
	assert_non_null(strstr(err.msg, "more than 1000 entries"));
	free(data);
	close(dfd);
	tu_rmtree(dest);

	/* The decompressed stream: 4 MiB of directory headers, 1 MiB allowed. */
	lim.max_stream = 1 << 20;
	lim.max_entries = 1 << 20;
	t = htar_open(arch, true);
	for (int i = 0; i < 8192; i++)
		htar_entry(t, "d/", '5', 0, NULL, NULL, 0);
	htar_close(t, true);
	data = slurp(arch, &len);
	assert_true(len < 100000);
	assert_int_equal(mkdir(dest, 0700), 0);
	dfd = open(dest, O_RDONLY | O_DIRECTORY);
	assert_true(vw_tar_extract_mem(data, len, dfd, &lim, NULL, &err) < 0);
	assert_non_null(strstr(err.msg, "gzip bomb"));
	free(data);
	close(dfd);

	free(arch);
	free(dest);
	tu_rmtree(jail);
	free(jail);
}

/* An archive over a limit, or with a bad entry anywhere, is refused before
 * anything is made: a hostile archive costs the reading, not a tree to
 * create and remove (issue: 180,000 folders took 450 s). */
static void test_refused_before_extracting(void **state)
{
	char *jail = tu_mkroot(), *arch = vw_xasprintf("%s/a.tar", jail);
	char *dest = vw_xasprintf("%s/d", jail), *data, *dir = NULL;
	struct vw_tar_limits lim = { .max_total = 1 << 20, .max_file = 1 << 20,
				     .max_stream = 64 << 20, .max_entries = 1000 };
	struct vw_err err = { 0 };
	struct htar *t;
	size_t len;
	int dfd, fd;

	(void)state;
	assert_int_equal(mkdir(dest, 0700), 0);
	dfd = open(dest, O_RDONLY | O_DIRECTORY);

	/* 1001 folders: one too many, from memory and from a file. */
	t = htar_open(arch, true);
	for (int i = 0; i <= 1000; i++) {
		char name[32];

		snprintf(name, sizeof(name), "sys/d%d/", i);
		htar_entry(t, name, '5', 0, NULL, NULL, 0);
	}
	htar_close(t, true);
	data = slurp(arch, &len);
	assert_int_equal(vw_tar_extract_mem(data, len, dfd, &lim, NULL, &err), -EFBIG);
	assert_non_null(strstr(err.msg, "more than 1000 entries"));
	assert_int_equal(count_entries(dest), 0);
	free(data);
	fd = open(arch, O_RDONLY);
	assert_int_equal(vw_tar_extract_fd(fd, dfd, &lim, NULL, &err), -EFBIG);
	assert_int_equal(count_entries(dest), 0);
	close(fd);

	/* 600 files, each in a folder of its own that no entry gives: the
	 * folders count as the extraction would make them. */
	t = htar_open(arch, true);
	for (int i = 0; i < 600; i++) {
		char name[32];

		snprintf(name, sizeof(name), "d%d/f", i);
		htar_entry(t, name, '0', 0, NULL, NULL, 0);
	}
	htar_close(t, true);
	fd = open(arch, O_RDONLY);
	assert_int_equal(vw_tar_extract_fd(fd, dfd, &lim, NULL, &err), -EFBIG);
	assert_int_equal(count_entries(dest), 0);
	close(fd);

	/* 1000 are fine, and all made. */
	t = htar_open(arch, true);
	for (int i = 0; i < 1000; i++) {
		char name[32];

		snprintf(name, sizeof(name), "d%d/", i);
		htar_entry(t, name, '5', 0, NULL, NULL, 0);
	}
	htar_close(t, true);
	fd = open(arch, O_RDONLY);
	assert_int_equal(vw_tar_extract_fd(fd, dfd, &lim, NULL, &err), 0);
	assert_int_equal(count_entries(dest), 1000);
	close(fd);
	tu_rmtree(dest);
	assert_int_equal(mkdir(dest, 0700), 0);
	close(dfd);
	dfd = open(dest, O_RDONLY | O_DIRECTORY);

	/* Good entries, then a name that climbs out, a link that leaves and a
	 * device node: none of the good ones is made first. */
	for (int k = 0; k < 3; k++) {
		t = htar_open(arch, false);
		htar_entry(t, "etc/", '5', 0, NULL, NULL, 0);
		htar_entry(t, "etc/hostname", '0', 2, NULL, "h\n", 2);
		if (k == 0)
			htar_entry(t, "etc/../../x", '0', 0, NULL, NULL, 0);
		else if (k == 1)
			htar_entry(t, "etc/l", '2', 0, "../../x", NULL, 0);
		else
			htar_entry(t, "etc/null", '3', 0, NULL, NULL, 0);
		htar_close(t, true);
		fd = open(arch, O_RDONLY);
		assert_true(vw_tar_extract_fd(fd, dfd, &lim, NULL, &err) < 0);
		assert_int_equal(count_entries(dest), 0);
		close(fd);
	}

	/* The default cap, through the import that `--sysroot FILE` uses. */
	t = htar_open(arch, true);
	for (int i = 0; i <= VW_TAR_ENTRIES_MAX; i++) {
		char name[32];

		snprintf(name, sizeof(name), "sys/%d/", i);
		htar_entry(t, name, '5', 0, NULL, NULL, 0);
	}
	htar_close(t, true);
	assert_int_equal(vw_snapshot_import(arch, NULL, &dir, NULL, &err), -EFBIG);
	assert_null(dir);
	{
		char *want = vw_xasprintf("more than %d entries", VW_TAR_ENTRIES_MAX);

		assert_non_null(strstr(err.msg, want));
		free(want);
	}

	close(dfd);
	free(arch);
	free(dest);
	tu_rmtree(jail);
	free(jail);
}

/* ---- nothing from a snapshot is ever executed ----------------------------- */

static void test_payloads_never_run(void **state)
{
	char *jail = tu_mkroot(), *arch = vw_xasprintf("%s/payloads.tar.gz", jail);
	char *marker = vw_xasprintf("%s/marker", jail), *dir = NULL, *path, *oldpath;
	const char *const *cmds[] = {
		(const char *const[]){ "nvidia-smi", "topo", "-m", NULL },
		(const char *const[]){ "dmesg", NULL },
		(const char *const[]){ "update-initramfs", "-u", "-k", "all", NULL },
		(const char *const[]){ "update-initramfs", NULL },
		(const char *const[]){ "update-grub", NULL },
		(const char *const[]){ "proxmox-boot-tool", "refresh", NULL },
		(const char *const[]){ "sh", "-c", "true", NULL },
	};
	struct vw_err err = { 0 };
	struct vw_sysroot *sr;
	struct vw_facts f;
	struct vw_snapshot snap;
	char *bins[] = { "usr/sbin/update-initramfs", "usr/sbin/update-grub", "usr/bin/nvidia-smi",
			 "usr/bin/dmesg", "bin/sh", "usr/sbin/proxmox-boot-tool",
			 ".vfiowiz/cmd/nvidia-smi_topo_-m", ".vfiowiz/cmd/dmesg" };

	(void)state;
	assert_int_equal(hostile_write_payloads(arch, marker), 0);
	assert_int_equal(vw_snapshot_import(arch, NULL, &dir, NULL, &err), 0);

	/* The payloads are plain files of mode 0600. */
	for (size_t i = 0; i < VW_ARRAY_SIZE(bins); i++) {
		struct stat sb;

		path = vw_xasprintf("%s/%s", dir, bins[i]);
		assert_int_equal(stat(path, &sb), 0);
		assert_int_equal(sb.st_mode & 0111, 0);
		/* Worst case for the test: make them executable, as a careless
		 * hand might, and put them first on PATH. */
		chmod(path, 0755);
		free(path);
	}
	/* Control: the payload does create the marker when run. */
	path = vw_xasprintf("%s/usr/sbin/update-initramfs", dir);
	{
		char *cmd = vw_xasprintf("'%s'", path);
		assert_int_equal(system(cmd), 0);
		free(cmd);
	}
	free(path);
	assert_int_equal(access(marker, F_OK), 0);
	assert_int_equal(unlink(marker), 0);

	oldpath = vw_xstrdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	path = vw_xasprintf("%s/usr/sbin:%s/usr/bin:%s/bin:%s/.vfiowiz/cmd:%s", dir, dir, dir, dir, oldpath);
	setenv("PATH", path, 1);
	free(path);

	sr = open_root(dir);
	for (size_t i = 0; i < VW_ARRAY_SIZE(cmds); i++) {
		struct vw_exec_result res;

		vw_exec_run(sr, cmds[i], &res, &err);
		assert_true(res.source == VW_EXEC_RECORDED || res.source == VW_EXEC_NONE);
		vw_exec_result_done(&res);
	}
	assert_int_equal(vw_facts_probe(&f, sr, &err), 0);
	vw_facts_done(&f);
	assert_int_equal(vw_snapshot_collect(sr, NULL, &snap, &err), 0);
	vw_snapshot_done(&snap);
	vw_sysroot_free(sr);

	/* The CLI replaying the archive itself. */
	{
		const char *b = getenv("top_builddir");
		char *bin = b ? vw_xasprintf("%s/vfiowiz", b) : NULL;

		if (bin && access(bin, X_OK) == 0) {
			char *cmd = vw_xasprintf("'%s' --sysroot '%s' check >/dev/null 2>&1; "
						 "'%s' --sysroot '%s' snapshot --list >/dev/null 2>&1",
						 bin, arch, bin, arch);
			int st = system(cmd);
			assert_true(WIFEXITED(st));
			free(cmd);
		}
		free(bin);
	}
	setenv("PATH", oldpath, 1);
	free(oldpath);
	assert_int_not_equal(access(marker, F_OK), 0);

	vw_snapshot_remove(dir);
	free(dir);
	free(marker);
	free(arch);
	tu_rmtree(jail);
	free(jail);
}

/* ---- redaction ----------------------------------------------------------- */

static void test_redact(void **state)
{
	struct vw_redact *r = vw_redact_new();
	const char *in =
		"root=UUID=6f1a3c2e-8b4d-4e0a-9c57-2d1e0b9f4a61 ro quiet\n"
		"again 6F1A3C2E-8B4D-4E0A-9C57-2D1E0B9F4A61 and EFI 8be4df61-93ca-11d2-aa0d-00e098032b8c\n"
		"boot UUID=ABCD-1234\n"
		"mac 52:54:00:12:34:56 52-54-00-12-34-56 ff:ff:ff:ff:ff:ff MAC(525400abcdef,0)\n"
		"ip 10.1.2.3/24 gw 10.1.2.3 lo 127.0.0.1 mask 255.255.255.0 ver 1.2.03.4 "
		"dev 0000:00:06.0 drv 580.159.04\n"
		"v6 fe80::1234:5678 ::1 2001:0db8:0000:0000:0000:ff00:0042:8329 time 12:34:56\n"
		"    Serial Number                         : 1654922001234\n"
		"    Board Part Number                     : 692-2G530-0200-000\n"
		"vnc_password = \"hunter2\"\n<graphics type='vnc' passwd='s3cret'/>\n"
		"<serial>WD-12345</serial> <serial type='pty'>\n"
		"hello myhost and MyHost.example.com, myhostname, alice /home/alice/vm.qcow2\n"
		"nvidia nvidia-smi alice2\n"
		"alice_password=pw Alice\n"
		"url ssh-rsa%20AAAA%20alice%40MyHost.example.com%0A\n"
		"<entry name='serial'>DELL7Q</entry><entry name=\"asset\">A-0042</entry><entry name='family'>X</entry>\n";
	char *out;
	size_t len;

	(void)state;
	vw_redact_protect(r, "nvidia");
	assert_true(vw_redact_add_name(r, VW_RED_HOST, "myhost"));
	assert_true(vw_redact_add_name(r, VW_RED_HOST, "myhost.example.com"));
	assert_true(vw_redact_add_name(r, VW_RED_USER, "alice"));
	assert_false(vw_redact_add_name(r, VW_RED_USER, "nvidia"));
	assert_false(vw_redact_add_name(r, VW_RED_USER, "vm"));
	out = vw_redact_text(r, in, strlen(in), &len, NULL);
	assert_int_equal(strlen(out), len);
	/* Same value, same placeholder, shape kept. */
	assert_non_null(strstr(out, "root=UUID=00000000-0000-0000-0000-000000000001 ro"));
	assert_non_null(strstr(out, "again 00000000-0000-0000-0000-000000000001 and"));
	assert_non_null(strstr(out, "8be4df61-93ca-11d2-aa0d-00e098032b8c"));
	assert_non_null(strstr(out, "UUID=0000-0002"));
	assert_non_null(strstr(out, "mac 02:00:00:00:00:01 02-00-00-00-00-01 ff:ff:ff:ff:ff:ff MAC(020000000002,0)"));
	assert_non_null(strstr(out, "ip 192.0.2.1/24 gw 192.0.2.1 lo 127.0.0.1 mask 255.255.255.0 ver 1.2.03.4"));
	assert_non_null(strstr(out, "dev 0000:00:06.0 drv 580.159.04"));
	assert_non_null(strstr(out, "v6 2001:db8::1 ::1 2001:db8::2 time 12:34:56"));
	assert_non_null(strstr(out, ": SERIAL1\n"));
	assert_non_null(strstr(out, "692-2G530-0200-000"));
	assert_non_null(strstr(out, "vnc_password = \"REDACTED\""));
	assert_non_null(strstr(out, "passwd='REDACTED'"));
	assert_non_null(strstr(out, "<serial>SERIAL2</serial> <serial type='pty'>"));
	assert_non_null(strstr(out, "hello host1 and host1.domain1.example, myhostname, user1 /home/user1/vm.qcow2"));
	assert_non_null(strstr(out, "nvidia nvidia-smi alice2"));
	assert_non_null(strstr(out, "user1_password=REDACTED user1\n"));
	assert_non_null(strstr(out, "url ssh-rsa%20AAAA%20user1%40host1.domain1.example%0A\n"));
	assert_non_null(strstr(out, "<entry name='serial'>SERIAL3</entry><entry name=\"asset\">SERIAL4</entry><entry name='family'>X</entry>"));
	assert_null(strstr(out, "hunter2"));
	assert_null(strstr(out, "1654922001234"));
	assert_int_equal(vw_redact_count(r, VW_RED_UUID), 2);
	assert_int_equal(vw_redact_count(r, VW_RED_MAC), 2);
	assert_int_equal(vw_redact_count(r, VW_RED_SECRET), 3);
	free(out);
	{
		struct vw_buf b = VW_BUF_INIT;
		vw_redact_summary(r, &b);
		assert_non_null(strstr(b.data, "2 UUIDs"));
		vw_buf_done(&b);
	}
	/* Bytes with NULs and a truncated token at the end. */
	out = vw_redact_text(r, "a\0b 52:54:00:12:34", 18, &len, NULL);
	assert_int_equal(len, 18);
	free(out);
	out = vw_redact_id_lines(r, "ABCD-1234\n1111-2222\n", 20, &len);
	assert_string_equal(out, "0000-0002\n0000-0003\n");
	free(out);
	vw_redact_free(r);
}

/* ---- capture and replay -------------------------------------------------- */

/* A small host: one GPU behind a root port, links as the kernel makes them,
 * identifiers to redact, recorded commands. */
static void small_host(const char *root)
{
	static const char *const attrs[][2] = {
		{ "vendor", "0x10de\n" }, { "device", "0x2204\n" }, { "class", "0x030000\n" },
		{ "subsystem_vendor", "0x1458\n" }, { "subsystem_device", "0x403b\n" },
		{ "revision", "0xa1\n" }, { "numa_node", "-1\n" }, { "boot_vga", "0\n" },
		{ "reset_method", "bus\n" },
	};
	unsigned char cfg[4096];

	tu_write(root, "proc/cpuinfo", "vendor_id\t: GenuineIntel\nflags\t\t: fpu vmx\n");
	tu_write(root, "proc/sys/kernel/osrelease", "6.1.0-18-amd64\n");
	tu_write(root, "proc/sys/kernel/hostname", "gpubox\n");
	tu_write(root, "etc/hostname", "gpubox.corp-acme.example\n");
	tu_write(root, "proc/version", "Linux version 6.1.0-18-amd64 (alice@gpubox) #1 SMP\n");
	tu_write(root, "proc/cmdline", "BOOT_IMAGE=/vmlinuz root=UUID=6f1a3c2e-8b4d-4e0a-9c57-2d1e0b9f4a61 "
				       "ro quiet intel_iommu=on\n");
	tu_write(root, "proc/modules", "nvidia 100 0 - Live 0x0\nvfio_pci 10 0 - Live 0x0\n");
	tu_write(root, "sys/firmware/acpi/tables/DMAR", "DMAR");
	tu_mkdir(root, "sys/firmware/efi/efivars");
	tu_write(root, "etc/os-release", "ID=debian\nVERSION_CODENAME=bookworm\n");
	tu_write(root, "etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n");
	tu_write(root, "etc/modprobe.d/gpu.conf", "options vfio-pci ids=10de:2204\n");
	tu_mkdir(root, "etc/initramfs-tools");
	tu_write(root, "usr/sbin/mkinitramfs", "#!/bin/sh\n");
	tu_mkdir(root, "home/alice");
	tu_write(root, "etc/pve/qemu-server/100.conf", "net0: virtio=52:54:00:AA:BB:CC,bridge=vmbr0\n"
						       "name: alice-win\n");
	tu_write(root, "var/lib/vfiowiz/state.conf", "step = \"verify\"\nvnc_password = \"hunter2\"\n"
						    "access {\n  ssh_user = \"bobsmith\"\n  ssh_host = 'jumpbox.corp-acme.example'\n}\n");
	/* Planted values the redaction must find (issue 14 item 7). */
	tu_write(root, "etc/pve/qemu-server/101.conf",
		 "sshkeys: ssh-ed25519%20AAAAC3NzaC1lZDI1NTE5AAAAIKEYMATERIAL%20carol%40laptop.corp-acme.example%0A\n"
		 "name: win\n");
	tu_write(root, "etc/pve/corosync.conf",
		 "nodelist {\n  node {\n    name: pvenorth\n    nodeid: 1\n    ring0_addr: 10.9.8.7\n  }\n"
		 "  node {\n    name: pvesouth\n    nodeid: 2\n  }\n}\ntotem {\n  cluster_name: acmecluster\n"
		 "  version: 2\n}\n");
	tu_write(root, "etc/libvirt/qemu/win.xml",
		 "<domain type='kvm'><name>win</name><sysinfo type='smbios'><system>"
		 "<entry name='manufacturer'>Dell Inc.</entry><entry name='serial'>DELLSVC7Q</entry>"
		 "<entry name=\"asset\">ASSET-0042</entry></system></sysinfo>"
		 "<description>pvenorth acmecluster</description></domain>\n");
	tu_symlink(root, "dev/disk/by-id/nvme-Samsung_SSD_970_EVO_Plus_1TB_S4EWNX0R654321B", "../../nvme0n1");
	tu_symlink(root, "dev/disk/by-id/nvme-Samsung_SSD_970_EVO_Plus_1TB_S4EWNX0R654321B-part1",
		   "../../nvme0n1p1");
	tu_symlink(root, "dev/disk/by-id/nvme-eui.0025385b71b0c1d2", "../../nvme0n1");
	tu_symlink(root, "dev/disk/by-id/wwn-0x5002538e40a1b2c3", "../../sda");
	tu_symlink(root, "dev/disk/by-id/wwn-0x5002538e40a1b2c3-part2", "../../sda2");
	tu_symlink(root, "dev/disk/by-id/virtio-VIRTSER123", "../../vda");
	tu_symlink(root, "dev/disk/by-id/usb-SanDisk_Ultra_4C530001230915109433-0:0", "../../sdb");
	tu_write(root, "var/lib/vfiowiz/journal/20250101T000000Z/manifest", "file etc/x\n");
	tu_write(root, "var/lib/vfiowiz/journal/20250101T000000Z/files/0001", "SECRET ORIGINAL\n");
	tu_write(root, ".vfiowiz/cmd/nvidia-smi_-q", "GPU 00000000:01:00.0\n    Serial Number : 1654922001234\n"
						    "    GPU UUID : GPU-12345678-1234-1234-1234-123456789abc\n");
	tu_write(root, ".vfiowiz/cmd/dmesg", "[0.1] DMAR: IOMMU enabled\n");
	tu_write(root, ".vfiowiz/cmd/efibootmgr_-v", "Boot0001* debian HD(1,GPT,6f1a3c2e-8b4d-4e0a-9c57-2d1e0b9f4a61,0x800,0x100000)\n");
	tu_write(root, ".vfiowiz/cmd/efibootmgr_-v.rc", "0\n");

	for (const char *const *d = (const char *const[]){ "0000:00:01.0", "0000:01:00.0", NULL }; *d; d++) {
		bool gpu = !strcmp(*d, "0000:01:00.0");
		char *dir = gpu ? vw_xstrdup("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0")
				: vw_xstrdup("sys/devices/pci0000:00/0000:00:01.0");
		char *p, *t;

		for (size_t i = 0; i < VW_ARRAY_SIZE(attrs); i++) {
			p = vw_xasprintf("%s/%s", dir, attrs[i][0]);
			tu_write(root, p, gpu ? attrs[i][1] : !strcmp(attrs[i][0], "class") ? "0x060400\n"
					  : !strcmp(attrs[i][0], "device") ? "0x1901\n"
					  : !strcmp(attrs[i][0], "vendor") ? "0x8086\n" : attrs[i][1]);
			free(p);
		}
		memset(cfg, 0, sizeof(cfg));
		cfg[0] = gpu ? 0xde : 0x86, cfg[1] = gpu ? 0x10 : 0x80;
		/* A Device Serial Number capability at 0x100. */
		cfg[0x100] = 0x03, cfg[0x101] = 0x00, cfg[0x102] = 0x01, cfg[0x103] = 0x00;
		memcpy(cfg + 0x104, "SERIAL!!", 8);
		p = vw_xasprintf("%s/config", dir);
		tu_write_bytes(root, p, cfg, sizeof(cfg));
		free(p);
		p = vw_xasprintf("sys/bus/pci/devices/%s", *d);
		t = vw_xasprintf("../../../devices/pci0000:00/%s%s", gpu ? "0000:00:01.0/" : "", *d);
		tu_symlink(root, p, t);
		free(p);
		free(t);
		p = vw_xasprintf("%s/iommu_group", dir);
		t = vw_xasprintf("%s/kernel/iommu_groups/%d", gpu ? "../../../.." : "../../..", gpu ? 2 : 1);
		tu_symlink(root, p, t);
		free(t);
		free(p);
		p = vw_xasprintf("%s/driver", dir);
		t = vw_xasprintf("%s/bus/pci/drivers/%s", gpu ? "../../../.." : "../../..",
				 gpu ? "nvidia" : "pcieport");
		tu_symlink(root, p, t);
		free(t);
		free(p);
		p = vw_xasprintf("sys/kernel/iommu_groups/%d/devices/%s", gpu ? 2 : 1, *d);
		t = vw_xasprintf("../../../../devices/pci0000:00/%s%s", gpu ? "0000:00:01.0/" : "", *d);
		tu_symlink(root, p, t);
		free(t);
		free(p);
		free(dir);
	}
	tu_mkdir(root, "sys/bus/pci/drivers/nvidia");
	tu_mkdir(root, "sys/class/iommu/dmar0");

	/* A SATA disk with two partitions, its serial in its by-id name. */
	{
		const char *dev = "sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0";
		char *p;

		tu_symlink(root, "sys/block/sda",
			   "../devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda");
		p = vw_xasprintf("%s/block/sda/size", dev), tu_write(root, p, "1953525168\n"), free(p);
		p = vw_xasprintf("%s/block/sda/removable", dev), tu_write(root, p, "0\n"), free(p);
		p = vw_xasprintf("%s/block/sda/queue/rotational", dev), tu_write(root, p, "0\n"), free(p);
		p = vw_xasprintf("%s/block/sda/device", dev), tu_symlink(root, p, "../../../0:0:0:0"), free(p);
		p = vw_xasprintf("%s/model", dev), tu_write(root, p, "Samsung SSD 860\n"), free(p);
		p = vw_xasprintf("%s/serial", dev), tu_write(root, p, "S3Z9NB0K123456X\n"), free(p);
		for (int i = 1; i <= 2; i++) {
			p = vw_xasprintf("%s/block/sda/sda%d/partition", dev, i);
			tu_write(root, p, i == 1 ? "1\n" : "2\n");
			free(p);
			p = vw_xasprintf("%s/block/sda/sda%d/size", dev, i);
			tu_write(root, p, "1048576\n");
			free(p);
			p = vw_xasprintf("%s/block/sda/sda%d/start", dev, i);
			tu_write(root, p, i == 1 ? "2048\n" : "1050624\n");
			free(p);
		}
		tu_symlink(root, "dev/disk/by-id/ata-Samsung_SSD_860_EVO_1TB_S3Z9NB0K123456X", "../../sda");
		tu_write(root, "proc/mounts", "/dev/sda2 / ext4 rw 0 0\n/dev/sda1 /boot/efi vfat rw 0 0\n");
	}
}

static struct vw_snap_entry *find(struct vw_snapshot *s, const char *path)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].path, path))
			return &s->v[i];
	return NULL;
}

/* Facts that the screens and the plan depend on must be the same. */
static void same_facts(const struct vw_facts *a, const struct vw_facts *b)
{
	assert_int_equal(a->ndevs, b->ndevs);
	for (size_t i = 0; i < a->ndevs; i++) {
		const struct vw_pci_dev *x = &a->devs[i], *y = &b->devs[i];

		assert_string_equal(x->addr, y->addr);
		assert_int_equal(x->vendor, y->vendor);
		assert_int_equal(x->device, y->device);
		assert_int_equal(x->class_code, y->class_code);
		assert_int_equal(x->subvendor, y->subvendor);
		assert_string_equal(x->driver, y->driver);
		assert_int_equal(x->group, y->group);
		assert_int_equal(x->parent, y->parent);
		assert_int_equal(x->numa_node, y->numa_node);
		assert_int_equal(x->boot_vga, y->boot_vga);
		assert_string_equal(x->reset_method, y->reset_method);
		assert_int_equal(x->pcie_type, y->pcie_type);
		assert_int_equal(x->has_acs, y->has_acs);
		assert_int_equal(x->acs_ctrl, y->acs_ctrl);
		assert_int_equal(x->role, y->role);
		assert_int_equal(x->config_full, y->config_full);
	}
	assert_int_equal(a->ngroups, b->ngroups);
	for (size_t i = 0; i < a->ngroups; i++) {
		assert_int_equal(a->groups[i].id, b->groups[i].id);
		assert_int_equal(a->groups[i].ndevs, b->groups[i].ndevs);
		assert_int_equal(a->groups[i].verdict, b->groups[i].verdict);
		assert_string_equal(a->groups[i].type, b->groups[i].type);
	}
	assert_int_equal(a->cpu.vendor, b->cpu.vendor);
	assert_int_equal(a->cpu.vmx, b->cpu.vmx);
	assert_int_equal(a->cpu.svm, b->cpu.svm);
	assert_int_equal(a->cpu.hypervisor, b->cpu.hypervisor);
	assert_string_equal(a->cpu.hypervisor_name, b->cpu.hypervisor_name);
	assert_int_equal(a->container.inside, b->container.inside);
	assert_int_equal(a->fw.efi, b->fw.efi);
	assert_int_equal(a->fw.dmar, b->fw.dmar);
	assert_int_equal(a->fw.ivrs, b->fw.ivrs);
	assert_string_equal(a->kernel.release, b->kernel.release);
	assert_int_equal(a->kernel.nparams, b->kernel.nparams);
	assert_int_equal(a->kernel.config_found, b->kernel.config_found);
	assert_int_equal(a->kernel.intel_default_on, b->kernel.intel_default_on);
	assert_int_equal(a->kernel.acs_override_support, b->kernel.acs_override_support);
	assert_int_equal(a->iommu.nunits, b->iommu.nunits);
	assert_int_equal(a->iommu.ngroups, b->iommu.ngroups);
	assert_int_equal(a->iommu.irq_remap, b->iommu.irq_remap);
	assert_int_equal(a->iommu.cmdline_on, b->iommu.cmdline_on);
	assert_string_equal(a->distro.id, b->distro.id);
	assert_int_equal(a->distro.proxmox, b->distro.proxmox);
	assert_int_equal(a->distro.bootloader, b->distro.bootloader);
	assert_int_equal(a->distro.initramfs, b->distro.initramfs);
	assert_int_equal(a->distro.driverctl, b->distro.driverctl);
	/* What the host needs survives the snapshot. */
	assert_int_equal(a->over_ssh, b->over_ssh);
	for (size_t i = 0; i < a->ndevs; i++) {
		if (a->devs[i].host_role != b->devs[i].host_role)
			fail_msg("%s: host role %u, %u in the snapshot (%s)", a->devs[i].addr,
				 a->devs[i].host_role, b->devs[i].host_role, a->devs[i].host_role_why);
		assert_string_equal(a->devs[i].host_role_why, b->devs[i].host_role_why);
	}
}

/* Snapshot root, write it, import it, probe both: the same facts. */
static void roundtrip(const char *root, const char *jail, struct vw_snapshot *keep)
{
	struct vw_snapshot_opts o = { .now = 1700000000 };
	struct vw_snapshot snap;
	struct vw_sysroot *sr = open_root(root), *sr2;
	struct vw_facts f1, f2;
	struct vw_err err = { 0 };
	char *arch = vw_xasprintf("%s/snap.tar.gz", jail), *dir = NULL;
	struct stat sb;

	assert_int_equal(vw_snapshot_collect(sr, &o, &snap, &err), 0);
	assert_int_equal(vw_snapshot_write(&snap, arch, &err), 0);
	assert_int_equal(stat(arch, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
	if (vw_snapshot_import(arch, NULL, &dir, NULL, &err) < 0)
		fail_msg("import of the snapshot of %s: %s", root, err.msg);
	assert_int_equal(vw_facts_probe(&f1, sr, &err), 0);
	sr2 = open_root(dir);
	assert_int_equal(vw_facts_probe(&f2, sr2, &err), 0);
	same_facts(&f1, &f2);
	vw_facts_done(&f1);
	vw_facts_done(&f2);
	{
		struct vw_storage s1, s2;

		vw_storage_list(sr, &s1, &err);
		vw_storage_list(sr2, &s2, &err);
		assert_int_equal(s1.ndisks, s2.ndisks);
		for (size_t i = 0; i < s1.ndisks; i++) {
			assert_string_equal(s1.disks[i].name, s2.disks[i].name);
			assert_true(s1.disks[i].size == s2.disks[i].size);
			assert_int_equal(s1.disks[i].nparts, s2.disks[i].nparts);
			assert_string_equal(s1.disks[i].pci, s2.disks[i].pci);
			assert_int_equal(s1.disks[i].usable, s2.disks[i].usable);
			assert_int_equal(!*s1.disks[i].by_id, !*s2.disks[i].by_id);
		}
		vw_storage_done(&s1);
		vw_storage_done(&s2);
	}

	/* A snapshot of the replay holds the same files. */
	{
		struct vw_snapshot again;

		assert_int_equal(vw_snapshot_collect(sr2, &o, &again, &err), 0);
		for (size_t i = 0; i < snap.n; i++) {
			struct vw_snap_entry *e = find(&again, snap.v[i].path);

			if (!e)
				fail_msg("%s: missing from the snapshot of the replay", snap.v[i].path);
			if (e->type == VW_SNAP_FILE && strcmp(e->path, ".vfiowiz/snapshot") &&
			    (e->len != snap.v[i].len || memcmp(e->data, snap.v[i].data, e->len)))
				fail_msg("%s differs in the replay: '%.*s' vs '%.*s'", e->path, (int)e->len, e->data,
					 (int)snap.v[i].len, snap.v[i].data);
		}
		vw_snapshot_done(&again);
	}
	vw_sysroot_free(sr2);
	vw_sysroot_free(sr);
	vw_snapshot_remove(dir);
	free(dir);
	unlink(arch);
	free(arch);
	if (keep)
		*keep = snap;
	else
		vw_snapshot_done(&snap);
}

static void test_capture(void **state)
{
	char *root = tu_mkroot(), *jail = tu_mkroot();
	struct vw_snapshot snap;
	struct vw_snap_entry *e;
	struct vw_buf list = VW_BUF_INIT;

	(void)state;
	small_host(root);
	roundtrip(root, jail, &snap);

	/* Kernel layout kept. */
	e = find(&snap, "sys/bus/pci/devices/0000:01:00.0");
	assert_non_null(e);
	assert_int_equal(e->type, VW_SNAP_LINK);
	assert_string_equal(e->data, "../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0");
	e = find(&snap, "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/driver");
	assert_non_null(e);
	assert_string_equal(e->data, "../../../../bus/pci/drivers/nvidia");
	/* Link targets kept as they were: present, or dangling. */
	assert_non_null(find(&snap, "sys/bus/pci/drivers/nvidia"));
	assert_null(find(&snap, "sys/bus/pci/drivers/pcieport"));
	/* Config space whole, the serial number zeroed. */
	e = find(&snap, "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/config");
	assert_non_null(e);
	assert_int_equal(e->len, 4096);
	assert_int_equal(e->data[0x100], 0x03);
	for (int i = 0x104; i < 0x10c; i++)
		assert_int_equal(e->data[i], 0);
	/* Markers: empty files; ACPI table 0400. */
	e = find(&snap, "usr/sbin/mkinitramfs");
	assert_non_null(e);
	assert_int_equal(e->len, 0);
	assert_int_equal(find(&snap, "sys/firmware/acpi/tables/DMAR")->mode, 0400);
	/* Redacted, consistently. */
	e = find(&snap, "proc/cmdline");
	assert_non_null(strstr(e->data, "root=UUID=00000000-0000-0000-0000-000000000001 "));
	e = find(&snap, ".vfiowiz/cmd/efibootmgr_-v");
	assert_non_null(strstr(e->data, "GPT,00000000-0000-0000-0000-000000000001,"));
	assert_string_equal(find(&snap, "etc/hostname")->data, "host1.domain1.example\n");
	assert_string_equal(find(&snap, "proc/sys/kernel/hostname")->data, "host1\n");
	assert_non_null(strstr(find(&snap, "proc/version")->data, "(user1@host1)"));
	e = find(&snap, "etc/pve/qemu-server/100.conf");
	assert_non_null(strstr(e->data, "virtio=02:00:00:00:00:01,"));
	assert_non_null(strstr(e->data, "name: user1-win"));
	e = find(&snap, ".vfiowiz/cmd/nvidia-smi_-q");
	assert_null(strstr(e->data, "1654922001234"));
	assert_null(strstr(e->data, "12345678-1234"));
	assert_non_null(strstr(e->data, "GPU 00000000:01:00.0"));
	assert_non_null(find(&snap, ".vfiowiz/cmd/nvidia-smi_-q.rc"));
	e = find(&snap, "var/lib/vfiowiz/state.conf");
	assert_int_equal(e->mode, 0600);
	assert_null(strstr(e->data, "hunter2"));
	assert_non_null(find(&snap, "var/lib/vfiowiz/journal/20250101T000000Z/manifest"));
	assert_null(find(&snap, "var/lib/vfiowiz/journal/20250101T000000Z/files/0001"));
	assert_null(find(&snap, "home/alice"));
	/* Module names are never taken for names. */
	assert_non_null(strstr(find(&snap, "proc/modules")->data, "nvidia"));
	e = find(&snap, ".vfiowiz/snapshot");
	assert_non_null(strstr(e->data, "format=1\n"));
	assert_non_null(strstr(e->data, "created=2023-11-14T22:13:20Z\n"));

	/* Disks: layout kept, serial redacted in the file and the by-id name. */
	e = find(&snap, "sys/block/sda");
	assert_non_null(e);
	assert_int_equal(e->type, VW_SNAP_LINK);
	assert_string_equal(find(&snap, "sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/"
				       "0:0:0:0/serial")->data, "SERIAL1\n");
	e = find(&snap, "dev/disk/by-id/ata-Samsung_SSD_860_EVO_1TB_SERIAL1");
	assert_non_null(e);
	assert_string_equal(e->data, "../../sda");

	/* Planted values (issue 14 item 7): links kept, under redacted names. */
	assert_non_null(find(&snap, "dev/disk/by-id/nvme-Samsung_SSD_970_EVO_Plus_1TB_SERIAL2"));
	assert_non_null(find(&snap, "dev/disk/by-id/nvme-Samsung_SSD_970_EVO_Plus_1TB_SERIAL2-part1"));
	e = find(&snap, "etc/pve/qemu-server/101.conf");
	assert_non_null(strstr(e->data, "sshkeys: REDACTED\nname: win\n"));
	e = find(&snap, "etc/hostname");
	assert_null(strstr(e->data, "corp-acme"));
	assert_non_null(strstr(find(&snap, "etc/libvirt/qemu/win.xml")->data, "<entry name='manufacturer'>Dell Inc.</entry>"));
	{
		static const char *const planted[] = {
			"S4EWNX0R654321B", "0025385b71b0c1d2", "5002538e40a1b2c3", "VIRTSER123",
			"4C530001230915109433", "bobsmith", "jumpbox", "corp-acme", "carol", "KEYMATERIAL",
			"pvenorth", "pvesouth", "acmecluster", "DELLSVC7Q", "ASSET-0042",
		};

		for (size_t i = 0; i < snap.n; i++) {
			e = &snap.v[i];
			for (size_t k = 0; k < VW_ARRAY_SIZE(planted); k++) {
				if (strstr(e->path, planted[k]) ||
				    (e->type != VW_SNAP_DIR && memmem(e->data, e->len, planted[k], strlen(planted[k]))))
					fail_msg("%s still holds %s", e->path, planted[k]);
			}
		}
	}

	/* Nothing in the whole snapshot still says who or where. */
	for (size_t i = 0; i < snap.n; i++) {
		e = &snap.v[i];
		if (e->type != VW_SNAP_FILE)
			continue;
		assert_null(memmem(e->data, e->len, "gpubox", 6));
		assert_null(memmem(e->data, e->len, "alice", 5));
		assert_null(memmem(e->data, e->len, "hunter2", 7));
		assert_null(memmem(e->data, e->len, "SERIAL!!", 8));
		assert_null(memmem(e->data, e->len, "6f1a3c2e", 8));
		assert_null(memmem(e->data, e->len, "52:54:00", 8));
		assert_null(memmem(e->data, e->len, "S3Z9NB0K", 8));
		assert_null(strstr(e->path, "S3Z9NB0K"));
	}

	vw_snapshot_listing(&snap, false, &list);
	assert_non_null(strstr(list.data, "PCI: 2 functions"));
	assert_non_null(strstr(list.data, "/etc/default/grub"));
	assert_non_null(strstr(list.data, "/.vfiowiz/cmd/nvidia-smi_-q"));
	assert_non_null(strstr(list.data, "Redacted: "));
	vw_buf_done(&list);
	vw_snapshot_listing(&snap, true, &list);
	assert_non_null(strstr(list.data, "/sys/bus/pci/devices/0000:01:00.0 -> ../../../devices/"));
	vw_buf_done(&list);
	vw_snapshot_done(&snap);

	tu_rmtree(root);
	free(root);
	tu_rmtree(jail);
	free(jail);
}

/* The fixture hosts and the captured H200 guest survive the trip. */
static void test_fixture_roundtrips(void **state)
{
	char *jail = tu_mkroot(), *cap, *dir = NULL, *hosts = tu_host("");
	struct vw_err err = { 0 };
	size_t done = 0;

	(void)state;
	/* Every fixture host built by tests/out/hosts.stamp. */
	if (hosts) {
		DIR *d = opendir(hosts);
		struct dirent *de;

		while (d && (de = readdir(d))) {
			char *root;

			if (de->d_name[0] == '.')
				continue;
			root = vw_xasprintf("%s/%s", hosts, de->d_name);
			roundtrip(root, jail, NULL);
			free(root);
			done++;
		}
		if (d)
			closedir(d);
		free(hosts);
	}
	cap = vw_xasprintf("%s/tests/hosts/h200x2-nvlink-guest.tar.gz", VW_SRCDIR);
	if (access(cap, R_OK) == 0) {
		struct vw_sysroot *sr;
		struct vw_facts f;
		int h200 = 0;

		/* Made by GNU tar on the captured machine. */
		if (vw_snapshot_import(cap, NULL, &dir, NULL, &err) < 0)
			fail_msg("%s", err.msg);
		sr = open_root(dir);
		assert_int_equal(vw_facts_probe(&f, sr, &err), 0);
		for (size_t i = 0; i < f.ndevs; i++)
			h200 += f.devs[i].vendor == 0x10de && f.devs[i].device == 0x2335 &&
				!strcmp(f.devs[i].driver, "nvidia");
		assert_int_equal(h200, 2);
		assert_true(f.cpu.hypervisor);
		vw_facts_done(&f);
		vw_sysroot_free(sr);
		roundtrip(dir, jail, NULL);
		vw_snapshot_remove(dir);
		free(dir);
		done++;
	}
	free(cap);
	if (!done)
		print_message("no fixture host found: only the built-in host was tested\n");
	tu_rmtree(jail);
	free(jail);
}

/* Output files: 0600, never through a link, never over a folder. */
static void test_write_refusals(void **state)
{
	char *jail = tu_mkroot(), *p, *target;
	struct vw_snapshot snap = { 0 };
	struct vw_err err = { 0 };

	(void)state;
	p = vw_xasprintf("%s/link.tar.gz", jail);
	target = vw_xasprintf("%s/elsewhere", jail);
	assert_int_equal(symlink(target, p), 0);
	assert_true(vw_snapshot_write(&snap, p, &err) < 0);
	assert_non_null(strstr(err.msg, "symbolic link"));
	assert_int_not_equal(access(target, F_OK), 0);
	free(p);
	p = vw_xasprintf("%s/dir.tar.gz", jail);
	assert_int_equal(mkdir(p, 0700), 0);
	assert_true(vw_snapshot_write(&snap, p, &err) < 0);
	free(p);
	/* Only the link and the folder: no temporary file left. */
	assert_int_equal(count_entries(jail), 2);
	free(target);
	tu_rmtree(jail);
	free(jail);
}

/* The command line: --list writes nothing, --yes writes 0600, and the
 * archive replays with --sysroot. */
static void test_cli(void **state)
{
	const char *b = getenv("top_builddir");
	char *bin = b ? vw_xasprintf("%s/vfiowiz", b) : NULL, *root, *jail, *cmd, *out;
	struct stat sb;

	(void)state;
	if (!bin || access(bin, X_OK) != 0) {
		free(bin);
		skip();
	}
	root = tu_mkroot();
	jail = tu_mkroot();
	small_host(root);
	out = vw_xasprintf("%s/s.tar.gz", jail);
	cmd = vw_xasprintf("cd '%s' && '%s' --sysroot '%s' snapshot --list >list.txt 2>&1", jail, bin, root);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	assert_int_equal(count_entries(jail), 1);
	cmd = vw_xasprintf("'%s' --sysroot '%s' snapshot -o '%s' </dev/null >/dev/null 2>&1", bin, root, out);
	assert_int_not_equal(system(cmd), 0);	/* no terminal, no --yes */
	free(cmd);
	assert_int_not_equal(access(out, F_OK), 0);
	cmd = vw_xasprintf("'%s' --sysroot '%s' snapshot -o '%s' --yes >/dev/null 2>&1", bin, root, out);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	assert_int_equal(stat(out, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
	cmd = vw_xasprintf("'%s' --sysroot '%s' groups --json >/dev/null 2>&1", bin, out);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	cmd = vw_xasprintf("TMPDIR='%s' '%s' --sysroot '%s' check >/dev/null 2>&1", jail, bin, out);
	{
		int st = system(cmd);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) != 3);
	}
	free(cmd);
	/* The private copy is gone when the program ends, also when it is
	 * killed: SIGPIPE under `| head`. */
	assert_int_equal(count_entries(jail), 2);
	cmd = vw_xasprintf("TMPDIR='%s' '%s' --sysroot '%s' snapshot --list 2>/dev/null | head -c 1 >/dev/null",
			   jail, bin, out);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	for (int i = 0; i < 500 && count_entries(jail) != 2; i++)
		usleep(10000);	/* the reaper runs when the program is gone */
	assert_int_equal(count_entries(jail), 2);
	free(out);
	free(bin);
	tu_rmtree(root);
	free(root);
	tu_rmtree(jail);
	free(jail);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_name),
		cmocka_unit_test(test_link_rule),
		cmocka_unit_test(test_write_read),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_remove_deep),
		cmocka_unit_test(test_import_signal),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_refused_before_extracting),
		cmocka_unit_test(test_payloads_never_run),
		cmocka_unit_test(test_redact),
		cmocka_unit_test(test_capture),
		cmocka_unit_test(test_fixture_roundtrips),
		cmocka_unit_test(test_write_refusals),
		cmocka_unit_test(test_cli),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
