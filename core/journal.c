/* SPDX-License-Identifier: GPL-2.0-or-later */
/* journal.c - the journal: post-command kinds, the manifest format and its
 * parser, reading and writing journals, tidying after a crash (journal.h). */
#define _GNU_SOURCE
#include "journal.h"
#include "sha256.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "exec.h"

#define MANIFEST_MAGIC "vfiowiz-journal 1"

/* ---- post-command kinds ---- */

static const char *const kind_names[] = {
	[VW_POSTK_REBUILD] = "rebuild", [VW_POSTK_DEFINE] = "define",
	[VW_POSTK_ENABLE] = "enable",	[VW_POSTK_RESTART] = "restart",
	[VW_POSTK_CONFIG] = "config",	[VW_POSTK_IMAGE] = "image",
	[VW_POSTK_ONESHOT] = "oneshot", [VW_POSTK_ARGS] = "args",
	[VW_POSTK_OTHER] = "other",
};

static bool arg_is(char **argv, size_t i, const char *s)
{
	for (size_t k = 0; k < i; k++)
		if (!argv[k])
			return false;
	return argv[i] && !strcmp(argv[i], s);
}

static enum vw_post_kind kind_of_argv(char **argv)
{
	/* Tools that regenerate something from the files undo restores. */
	static const char *const rebuilds[] = {
		"update-initramfs", "update-grub", "update-grub2", "grub-mkconfig", "grub2-mkconfig",
		"dracut", "mkinitcpio", "kernelstub", "regenerate_images",
	};
	const char *base = vw_atomic_basename(argv[0]);

	for (size_t i = 0; i < VW_ARRAY_SIZE(rebuilds); i++)
		if (!strcmp(base, rebuilds[i]))
			return VW_POSTK_REBUILD;
	if (!strcmp(base, "proxmox-boot-tool") && arg_is(argv, 1, "refresh"))
		return VW_POSTK_REBUILD;
	if (!strcmp(base, "systemctl") && arg_is(argv, 1, "daemon-reload"))
		return VW_POSTK_REBUILD;
	if (!strcmp(base, "systemctl") && arg_is(argv, 1, "enable"))
		return VW_POSTK_ENABLE;
	if (!strcmp(base, "systemctl") && arg_is(argv, 1, "restart"))
		return VW_POSTK_RESTART;
	if (!strcmp(base, "virsh") && arg_is(argv, 1, "define") && argv[2] && !argv[3])
		return VW_POSTK_DEFINE;
	if (!strcmp(base, "qm") && arg_is(argv, 1, "set"))
		return VW_POSTK_CONFIG;
	if (!strcmp(base, "qemu-img") && arg_is(argv, 1, "create"))
		return VW_POSTK_IMAGE;
	if (!strcmp(base, "bootctl") && arg_is(argv, 1, "set-oneshot"))
		return VW_POSTK_ONESHOT;
	if (!strcmp(base, "grubby") && argv[1] && vw_startswith(argv[1], "--update-kernel="))
		return VW_POSTK_ARGS;
	return VW_POSTK_OTHER;
}

enum vw_post_kind vw_post_kind_of(const char *cmd)
{
	char **argv = NULL;
	enum vw_post_kind k = VW_POSTK_OTHER;

	if (vw_exec_split(cmd, &argv, NULL) > 0)
		k = kind_of_argv(argv);
	vw_strv_free(argv);
	return k;
}

/* The disk image a qemu-img create makes: the word before the size. */
char *vw_journal_image_path(const char *cmd)
{
	char **argv = NULL, *path = NULL;
	size_t n = 0;

	if (vw_exec_split(cmd, &argv, NULL) > 0) {
		while (argv[n])
			n++;
		if (n >= 4)
			path = vw_xstrdup(argv[n - 2]);
	}
	vw_strv_free(argv);
	return path;
}

/* ---- the journal ---- */

void vw_journal_done(struct vw_journal *j)
{
	free(j->id);
	for (size_t i = 0; i < j->ndirs; i++)
		free(j->dirs[i]);
	free(j->dirs);
	for (size_t i = 0; i < j->nf; i++) {
		free(j->f[i].path);
		free(j->f[i].copy);
	}
	free(j->f);
	vw_strv_free(j->post);
	for (size_t i = 0; i < j->npk; i++) {
		free(j->pk[i].cmd);
		free(j->pk[i].inverse);
	}
	free(j->pk);
	memset(j, 0, sizeof(*j));
}

/* Secret contents are hashed with the journal's key, so the manifest gives
 * nothing to test guesses against. */
void vw_journal_hash(const struct vw_journal *j, bool secret, const void *data, size_t len,
		      char out[HASH_LEN])
{
	struct vw_sha256 s;
	char hex[65];

	vw_sha256_init(&s);
	if (secret)
		vw_sha256_add(&s, j->key, sizeof(j->key));
	vw_sha256_add(&s, data, len);
	vw_sha256_hex(&s, hex);
	snprintf(out, HASH_LEN, "%s:%s", secret ? "keyed" : "sha256", hex);
}

/* Paths and commands go into the manifest with %XX for blanks, controls,
 * non-ASCII and '%', one token each. */
void vw_journal_escape(struct vw_buf *b, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p <= 0x20 || *p >= 0x7f || *p == '%')
			vw_buf_printf(b, "%%%02X", *p);
		else
			vw_buf_addc(b, (char)*p);
}

static char *unescape(const char *s)
{
	struct vw_buf b = VW_BUF_INIT;

	vw_buf_adds(&b, "");
	for (; *s; s++) {
		if (*s == '%' && isxdigit((unsigned char)s[1]) && isxdigit((unsigned char)s[2])) {
			char hex[3] = { s[1], s[2], 0 };
			vw_buf_addc(&b, (char)strtol(hex, NULL, 16));
			s += 2;
		} else {
			vw_buf_addc(&b, *s);
		}
	}
	return vw_buf_steal(&b);
}

char *vw_journal_manifest(const struct vw_journal *j)
{
	struct vw_buf b = VW_BUF_INIT;

	vw_buf_printf(&b, MANIFEST_MAGIC "\nid %s\n", j->id);
	for (size_t i = 0; i < j->ndirs; i++) {
		vw_buf_adds(&b, "dir ");
		vw_journal_escape(&b, j->dirs[i]);
		vw_buf_addc(&b, '\n');
	}
	for (size_t i = 0; i < j->nf; i++) {
		const struct vw_jfile *f = &j->f[i];

		vw_buf_adds(&b, "file ");
		vw_journal_escape(&b, f->path);
		vw_buf_printf(&b,
			      " existed=%d remove=%d secret=%d mode=%04o uid=%lu gid=%lu"
			      " old=%s old-size=%zu new=%s new-size=%zu copy=%s\n",
			      f->existed, f->removed, f->secret, (unsigned)f->mode,
			      (unsigned long)f->uid, (unsigned long)f->gid, f->old_hash, f->old_size,
			      f->new_hash, f->new_size, f->copy ? f->copy : "-");
	}
	for (size_t i = 0; i < j->npk; i++) {
		vw_buf_printf(&b, "post %s ", kind_names[j->pk[i].kind]);
		vw_journal_escape(&b, j->pk[i].cmd);
		vw_buf_addc(&b, ' ');
		vw_journal_escape(&b, j->pk[i].inverse ? j->pk[i].inverse : "-");
		vw_buf_addc(&b, '\n');
	}
	vw_buf_adds(&b, "end\n");
	return vw_buf_steal(&b);
}

static bool valid_hash(const char *h)
{
	const char *hex = vw_startswith(h, "sha256:") ? h + 7 : vw_startswith(h, "keyed:") ? h + 6 : NULL;

	return !strcmp(h, "-") || (hex && strlen(hex) == 64 && strspn(hex, "0123456789abcdef") == 64);
}

static int parse_field(struct vw_jfile *f, const char *key, const char *val)
{
	char *end;
	unsigned long v = strtoul(val, &end, strcmp(key, "mode") ? 10 : 8);
	bool num = *val && !*end;

	if (!strcmp(key, "old") || !strcmp(key, "new")) {
		if (!valid_hash(val))
			return -1;
		snprintf(!strcmp(key, "old") ? f->old_hash : f->new_hash, HASH_LEN, "%s", val);
	} else if (!strcmp(key, "copy")) {
		if (strcmp(val, "-") && !(vw_startswith(val, "files/") && strlen(val) == 10 &&
					  strspn(val + 6, "0123456789") == 4))
			return -1;
		f->copy = strcmp(val, "-") ? vw_xstrdup(val) : NULL;
	} else if (!num) {
		return -1;
	} else if (!strcmp(key, "existed") || !strcmp(key, "remove") || !strcmp(key, "secret")) {
		bool *b = key[0] == 'e' ? &f->existed : key[0] == 'r' ? &f->removed : &f->secret;
		*b = v != 0;
	} else if (!strcmp(key, "mode")) {
		f->mode = (mode_t)(v & 07777);
	} else if (!strcmp(key, "uid")) {
		f->uid = (uid_t)v;
	} else if (!strcmp(key, "gid")) {
		f->gid = (gid_t)v;
	} else if (!strcmp(key, "old-size") || !strcmp(key, "new-size")) {
		*(key[0] == 'o' ? &f->old_size : &f->new_size) = v;
	}
	return 0;
}

static int parse_file_line(struct vw_journal *j, char *rest)
{
	struct vw_jfile f = { 0 };
	char *save = NULL, *tok = strtok_r(rest, " ", &save), *p;

	if (!tok)
		return -1;
	p = unescape(tok);
	f.path = vw_change_normpath(p, NULL);
	free(p);
	if (!f.path)
		return -1;
	strcpy(f.old_hash, "-");
	strcpy(f.new_hash, "-");
	while ((tok = strtok_r(NULL, " ", &save))) {
		char *eq = strchr(tok, '=');
		if (!eq || (*eq = '\0', parse_field(&f, tok, eq + 1) < 0)) {
			free(f.path);
			free(f.copy);
			return -1;
		}
	}
	if (f.existed != (f.copy != NULL)) {
		free(f.path);
		free(f.copy);
		return -1;
	}
	j->f = vw_xreallocarray(j->f, j->nf + 1, sizeof(*j->f));
	j->f[j->nf++] = f;
	return 0;
}

void vw_journal_add_post(struct vw_journal *j, char *cmd, enum vw_post_kind kind, char *inverse)
{
	j->post = vw_xreallocarray(j->post, j->npk + 2, sizeof(char *));
	j->post[j->npk] = vw_xstrdup(cmd);
	j->post[j->npk + 1] = NULL;
	j->pk = vw_xreallocarray(j->pk, j->npk + 1, sizeof(*j->pk));
	j->pk[j->npk++] = (struct vw_jpost){ cmd, kind, inverse };
}

/* "post KIND CMD INVERSE"; a journal from before kinds has "post CMD":
 * then only rebuilds run again. */
static int parse_post(struct vw_journal *j, char *arg)
{
	char *save = NULL, *a = strtok_r(arg, " ", &save), *b = strtok_r(NULL, " ", &save);
	char *c = strtok_r(NULL, " ", &save), *cmd;
	enum vw_post_kind k;

	if (!a || (b && !c) || strtok_r(NULL, " ", &save))
		return -1;
	if (!b) {
		cmd = unescape(a);
		k = vw_post_kind_of(cmd);
		vw_journal_add_post(j, cmd, k, k == VW_POSTK_REBUILD ? vw_xstrdup(cmd) : NULL);
		return 0;
	}
	for (k = 0; k < VW_ARRAY_SIZE(kind_names) && strcmp(kind_names[k], a); k++)
		;
	if (k == VW_ARRAY_SIZE(kind_names))
		return -1;
	vw_journal_add_post(j, unescape(b), k, strcmp(c, "-") ? unescape(c) : NULL);
	return 0;
}

static int parse_line(struct vw_journal *j, char *line)
{
	char *sp = strchr(line, ' '), *arg;

	if (!strcmp(line, "end"))
		return j->complete = true, 0;
	if (!sp)
		return -1;
	*sp = '\0';
	arg = sp + 1;
	if (!strcmp(line, "id"))
		return 0;
	if (!strcmp(line, "file"))
		return parse_file_line(j, arg);
	if (!strcmp(line, "dir")) {
		char *p = unescape(arg), *d = vw_change_normpath(p, NULL);
		free(p);
		if (!d)
			return -1;
		j->dirs = vw_xreallocarray(j->dirs, j->ndirs + 1, sizeof(char *));
		j->dirs[j->ndirs++] = d;
		return 0;
	}
	if (!strcmp(line, "post"))
		return parse_post(j, arg);
	return -1;
}

bool vw_journal_valid_id(const char *id)
{
	size_t n = strlen(id);

	return (n == 16 || (n == 20 && id[16] == '-' && strspn(id + 17, "0123456789") == 3)) &&
	       strspn(id, "0123456789") == 8 && id[8] == 'T' && strspn(id + 9, "0123456789") == 6 &&
	       id[15] == 'Z';
}

char *vw_journal_path(const char *id, const char *name)
{
	return vw_xasprintf(VW_APPLY_JOURNAL_DIR "/%s%s%s", id, name ? "/" : "", name ? name : "");
}

/* "post-state": "PATH HASH" lines, the bytes qm set left in a file. */
static void read_post_state(const struct vw_sysroot *sr, struct vw_journal *j)
{
	char *path = vw_journal_path(j->id, "post-state"), *text, *save = NULL, *line;

	for (size_t i = 0; i < j->nf; i++)
		strcpy(j->f[i].post_hash, "-");
	if (vw_sysroot_read(sr, path, &text, NULL, 1 << 16, NULL) < 0) {
		free(path);
		return;
	}
	free(path);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' '), *p;

		if (!sp || !valid_hash(sp + 1))
			continue;
		*sp = '\0';
		p = unescape(line);
		for (size_t i = 0; i < j->nf; i++)
			if (!strcmp(j->f[i].path, p))
				snprintf(j->f[i].post_hash, HASH_LEN, "%s", sp + 1);
		free(p);
	}
	free(text);
}

/* Read a journal's manifest.  A missing or cut-short manifest gives 0 with
 * complete == false; a malformed one -EINVAL. */
int vw_journal_read(const struct vw_sysroot *sr, const char *id, struct vw_journal *j,
			struct vw_err *err)
{
	char *path = vw_journal_path(id, "manifest"), *text, *save = NULL, *line;
	int r = vw_sysroot_read(sr, path, &text, NULL, VW_PLAN_MAX_FILE, err);

	memset(j, 0, sizeof(*j));
	j->id = vw_xstrdup(id);
	free(path);
	if (r == -ENOENT) {
		vw_err_clear(err);
		return 0;
	}
	if (r < 0)
		return r;
	line = strtok_r(text, "\n", &save);
	if (!line || strcmp(line, MANIFEST_MAGIC))
		r = -1;
	while (r == 0 && (line = strtok_r(NULL, "\n", &save)) && !j->complete)
		r = parse_line(j, line);
	free(text);
	if (r < 0 || line) {
		j->complete = false;
		return vw_err_set(err, -EINVAL, _("the manifest of journal %s is damaged"), id);
	}
	read_post_state(sr, j);
	return 0;
}

int vw_journal_read_key(const struct vw_sysroot *sr, struct vw_journal *j, struct vw_err *err)
{
	char *path = vw_journal_path(j->id, "key"), *buf;
	size_t len;
	int r = vw_sysroot_read(sr, path, &buf, &len, 64, err);

	free(path);
	if (r < 0)
		return r;
	if (len != sizeof(j->key)) {
		free(buf);
		return vw_err_set(err, -EINVAL, _("the key of journal %s is damaged"), j->id);
	}
	memcpy(j->key, buf, len);
	j->has_key = true;
	free(buf);
	return 0;
}

/* A fresh journal directory named after the current UTC time. */
int vw_journal_mkdir(const struct vw_sysroot *sr, struct vw_journal *j, int *jfd,
			 struct vw_err *err)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int rfd, r = vw_atomic_mkdir_p(sr, VW_APPLY_STATE_DIR, 0755, err);

	if (r == 0)
		r = vw_atomic_mkdir_p(sr, VW_APPLY_JOURNAL_DIR, 0700, err);
	if (r < 0)
		return r;
	rfd = vw_atomic_open_dir(sr, VW_APPLY_JOURNAL_DIR);
	if (rfd < 0)
		return vw_atomic_fs_err(err, rfd, VW_APPLY_JOURNAL_DIR);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime_r(&now, &tm));
	r = -EEXIST;
	for (int n = 0; n < 1000 && r == -EEXIST; n++) {
		free(j->id);
		j->id = n ? vw_xasprintf("%s-%03d", stamp, n) : vw_xstrdup(stamp);
		r = mkdirat(rfd, j->id, 0700) < 0 ? -errno : 0;
	}
	if (r == 0 && fsync(rfd) < 0)
		r = -errno;
	close(rfd);
	if (r < 0)
		return vw_atomic_fs_err(err, r, VW_APPLY_JOURNAL_DIR);
	*jfd = -1;
	char *rel = vw_journal_path(j->id, NULL);
	*jfd = vw_atomic_open_dir(sr, rel);
	free(rel);
	if (*jfd < 0)
		return vw_atomic_fs_err(err, *jfd, VW_APPLY_JOURNAL_DIR);
	if (mkdirat(*jfd, "files", 0700) < 0)
		return vw_atomic_fs_err(err, -errno, VW_APPLY_JOURNAL_DIR);
	return 0;
}

int vw_journal_put(int jfd, const struct vw_journal *j, const char *name, const void *data,
		       size_t len, struct vw_err *err)
{
	const struct vw_wspec w = { .mode = 0600 };
	char *path = vw_journal_path(j->id, name);
	int r = vw_atomic_write_in(jfd, path, name, data, len, &w, err);

	free(path);
	return r;
}

/* A journal that could not be completed describes nothing: remove it. */
void vw_journal_discard(int jfd, const struct vw_sysroot *sr, const char *id)
{
	static const char *const names[] = { "manifest", "key", "files" };
	int ffd = openat(jfd, "files", O_RDONLY | O_DIRECTORY | O_CLOEXEC), rfd;

	if (ffd >= 0) {
		DIR *d = fdopendir(ffd);
		struct dirent *de;

		while (d && (de = readdir(d)))
			if (de->d_name[0] != '.')
				unlinkat(ffd, de->d_name, 0);
		if (d)
			closedir(d);
		else
			close(ffd);
	}
	vw_atomic_clean_temps(jfd);
	for (size_t i = 0; i < VW_ARRAY_SIZE(names); i++)
		unlinkat(jfd, names[i], i == 2 ? AT_REMOVEDIR : 0);
	rfd = vw_atomic_open_dir(sr, VW_APPLY_JOURNAL_DIR);
	if (rfd >= 0) {
		unlinkat(rfd, id, AT_REMOVEDIR);
		close(rfd);
	}
}

bool vw_journal_marker(const struct vw_sysroot *sr, const char *id, const char *name, char *first,
		   size_t size)
{
	char *path = vw_journal_path(id, name), *text;
	bool ok = vw_sysroot_read(sr, path, &text, NULL, 4096, NULL) == 0;

	free(path);
	if (ok && first) {
		snprintf(first, size, "%s", text);
		first[strcspn(first, " \n")] = '\0';
	}
	if (ok)
		free(text);
	return ok;
}

enum vw_journal_state vw_journal_read_state(const struct vw_sysroot *sr, const struct vw_journal *j)
{
	char status[32] = "";

	if (vw_journal_marker(sr, j->id, "undone", NULL, 0))
		return VW_JOURNAL_UNDONE;
	if (!j->complete)
		return VW_JOURNAL_EMPTY;
	if (!vw_journal_marker(sr, j->id, "status", status, sizeof(status)))
		return VW_JOURNAL_INTERRUPTED;
	return !strcmp(status, "applied") ? VW_JOURNAL_APPLIED : VW_JOURNAL_PARTIAL;
}

time_t vw_journal_time(const char *id)
{
	struct tm tm = { 0 };

	if (sscanf(id, "%4d%2d%2dT%2d%2d%2dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
		   &tm.tm_min, &tm.tm_sec) != 6)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return timegm(&tm);
}

bool vw_journal_exists(const struct vw_sysroot *sr, const char *id)
{
	char *rel = vw_journal_path(id, NULL);
	bool ok = vw_sysroot_is_dir(sr, rel);

	free(rel);
	return ok;
}

/* Remove temporary files in a journal and its files/; count them. */
static size_t tidy_temps(int jfd)
{
	size_t n = 0;

	for (int pass = 0; pass < 2; pass++) {
		int dfd = pass ? openat(jfd, "files", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : dup(jfd);
		DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
		struct dirent *de;

		if (!d) {
			if (dfd >= 0)
				close(dfd);
			continue;
		}
		while ((de = readdir(d)))
			if (vw_atomic_is_temp(de->d_name) && unlinkat(dirfd(d), de->d_name, 0) == 0)
				n++;
		closedir(d);
	}
	return n;
}

void vw_journal_tidy(const struct vw_sysroot *sr, struct vw_tidy *t)
{
	char **names;
	int n = vw_sysroot_list(sr, VW_APPLY_JOURNAL_DIR, &names);

	memset(t, 0, sizeof(*t));
	if (n < 0)
		return;
	for (int i = 0; i < n; i++) {
		char *rel = vw_journal_path(names[i], NULL), *man = vw_journal_path(names[i], "manifest");
		int jfd = vw_journal_valid_id(names[i]) ? vw_atomic_open_dir(sr, rel) : -1;

		if (jfd >= 0) {
			t->temps += tidy_temps(jfd);
			/* No manifest: killed before any target was touched. */
			if (!vw_sysroot_exists(sr, man)) {
				vw_journal_discard(jfd, sr, names[i]);
				t->journals += !vw_journal_exists(sr, names[i]);
			}
			close(jfd);
		}
		free(rel);
		free(man);
	}
	vw_strv_free(names);
}
