/* SPDX-License-Identifier: GPL-2.0-or-later */
/* answers.c - the answers/state file, through libconfuse.
 *
 * libconfuse checks the syntax, the key names and the types; the validate
 * callbacks below check values, record the line of every key and refuse a
 * key given twice.  Messages carry "file:line:", which libconfuse does not
 * keep inside sections, so the parse runs with a context of its own. */
#include "answers.h"
#include "text.h"

#include <arpa/inet.h>
#include <confuse.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic.h"
#include "mig.h"
#include "nvlink.h"

struct seen {
	const char *path;	/* "vm|storage|type" */
	int line;
	/* Lists: libconfuse validates after each element and once more at
	 * the end (sizes 1, 2, ..., n, n); a call after that end starts a
	 * second assignment. */
	unsigned last_size;
	bool closed;
};

struct parse_ctx {
	const char *name;
	struct vw_err *err;
	bool failed;
	struct seen seen[64];
	size_t nseen;
};

/* libconfuse's error callback gets no user pointer; parses do not nest. */
static _Thread_local struct parse_ctx *ctx;

static void VW_PRINTF(2, 0) vfail_at(int line, const char *fmt, va_list ap)
{
	char msg[768];

	if (!ctx || ctx->failed)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	ctx->failed = true;
	if (line > 0)
		vw_err_set(ctx->err, -EINVAL, "%s:%d: %s", ctx->name, line, msg);
	else
		vw_err_set(ctx->err, -EINVAL, "%s: %s", ctx->name, msg);
}

static int VW_PRINTF(2, 3) fail_at(int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail_at(line, fmt, ap);
	va_end(ap);
	return -1;
}

static void errfunc(cfg_t *cfg, const char *fmt, va_list ap)
{
	vfail_at(cfg ? cfg->line : 0, fmt, ap);
}

/* ---- value checks ------------------------------------------------------ */

/* In enum order (core/backends.h), "auto" standing for the UNKNOWN value. */
#define WORD_(e, sym, name, label) name,
static const char *const bootloaders[] = { "auto", VW_BOOTLOADERS(WORD_) NULL };
static const char *const initramfs_tools[] = { "auto", VW_INITRAMFS_TOOLS(WORD_) NULL };
#undef WORD_
static const char *const bindings[] = { "auto", "ids", "address", "cmdline", NULL };
static const char *const gpu_modes[] = { "static", "dynamic", NULL };
static const char *const lg_modes[] = { "none", "ivshmem", "kvmfr", NULL };
/* In enum order, whatever the detection order of core/backends.h. */
#define TARGET_WORD_(e, sym, name, value) [VW_VM_##e] = name,
static const char *const targets[VW_VM_TARGET_COUNT + 1] = { VW_VM_TARGETS(TARGET_WORD_) };
#undef TARGET_WORD_
static const char *const guests[] = { "windows", "linux", NULL };
static const char *const storages[] = { "qcow2", "image", "disk", NULL };

static int word_index(const char *const *words, const char *s)
{
	for (int i = 0; words[i]; i++)
		if (!strcmp(words[i], s))
			return i;
	return -1;
}

static char *join_words(const char *const *words)
{
	struct vw_buf b = VW_BUF_INIT;

	for (size_t i = 0; words[i]; i++) {
		if (i)
			vw_buf_adds(&b, "|");
		vw_buf_adds(&b, words[i]);
	}
	return vw_buf_steal(&b);
}

/* Record the line of a key and refuse a second occurrence. */
static int seen_once(const char *path, int line)
{
	for (size_t i = 0; i < ctx->nseen; i++)
		if (!strcmp(ctx->seen[i].path, path))
			return fail_at(line, _("'%s' is given twice (first on line %d)"), path,
				       ctx->seen[i].line);
	if (ctx->nseen < VW_ARRAY_SIZE(ctx->seen))
		ctx->seen[ctx->nseen++] = (struct seen){ path, line, 0, false };
	return 0;
}

/* The same for list options (see struct seen). */
static int list_seen_once(const char *path, int line, unsigned size)
{
	for (size_t i = 0; i < ctx->nseen; i++) {
		struct seen *x = &ctx->seen[i];

		if (strcmp(x->path, path))
			continue;
		if (x->closed)
			return fail_at(line, _("'%s' is given twice (first on line %d)"), path, x->line);
		x->closed = size == x->last_size;
		x->last_size = size;
		return 0;
	}
	if (ctx->nseen < VW_ARRAY_SIZE(ctx->seen))
		ctx->seen[ctx->nseen++] = (struct seen){ path, line, size, false };
	return 0;
}

static int seen_line(const char *path)
{
	for (size_t i = 0; ctx && i < ctx->nseen; i++)
		if (!strcmp(ctx->seen[i].path, path))
			return ctx->seen[i].line;
	return 0;
}

/* "0000:01:00.0", "01:00.0", "0000:01:00" or "01:00" -> canonical
 * "0000:01:00.0" / "0000:01:00" in out; false when malformed. */
static bool parse_device(const char *s, char *out, size_t outsz)
{
	unsigned dom = 0, bus, dev, fn;
	int n = 0, colons = 0;
	bool func;

	for (const char *p = s; *p; p++) {
		if (*p == ':')
			colons++;
		else if (*p != '.' && !isxdigit((unsigned char)*p))
			return false;
	}
	func = strchr(s, '.') != NULL;
	if (colons == 2 && func)
		n = sscanf(s, "%4x:%2x:%2x.%1x", &dom, &bus, &dev, &fn) == 4;
	else if (colons == 1 && func)
		n = sscanf(s, "%2x:%2x.%1x", &bus, &dev, &fn) == 3;
	else if (colons == 2)
		n = sscanf(s, "%4x:%2x:%2x", &dom, &bus, &dev) == 3;
	else if (colons == 1)
		n = sscanf(s, "%2x:%2x", &bus, &dev) == 2;
	if (!n || dev > 0x1f || (func && fn > 7) || strlen(s) > 12)
		return false;
	if (func)
		snprintf(out, outsz, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	else
		snprintf(out, outsz, "%04x:%02x:%02x", dom, bus, dev);
	return true;
}

static bool module_name_ok(const char *s)
{
	if (!*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

/* Names that end up in file names and command lines: a safe set only. */
static bool plain_name_ok(const char *s, size_t max, const char *extra)
{
	if (strlen(s) > max || *s == '-' || *s == '.')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return false;
	return true;
}

static bool allow_ok(const char *s)
{
	unsigned char buf[16];
	char addr[64];
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : strlen(s);
	bool v6;

	if (n == 0 || n >= sizeof(addr))
		return false;
	memcpy(addr, s, n);
	addr[n] = '\0';
	v6 = strchr(addr, ':') != NULL;
	if (inet_pton(v6 ? AF_INET6 : AF_INET, addr, buf) != 1)
		return false;
	if (slash) {
		char *end;
		long bits = strtol(slash + 1, &end, 10);

		if (!slash[1] || *end || bits < 0 || bits > (v6 ? 128 : 32))
			return false;
	}
	return true;
}

/* ---- validate callbacks ------------------------------------------------ */

static const char *opt_str(cfg_opt_t *opt)
{
	const char *s = cfg_opt_getnstr(opt, 0);
	return s ? s : "";
}

/* Every string of the answers ends up in XML, a script, a command line or a
 * configuration file: valid UTF-8 without control characters (text.h), or
 * a clear error at its line, before anything else looks at it. */
static int text_check(cfg_t *cfg, cfg_opt_t *opt, const char *path)
{
	if (opt->type != CFGT_STR)
		return 0;
	for (unsigned i = 0; i < cfg_opt_size(opt); i++) {
		const char *v = cfg_opt_getnstr(opt, i);

		if (v && !vw_text_ok(v))
			return fail_at(cfg->line, _("'%s' holds a control character or bytes that are not UTF-8"),
				       path);
	}
	return 0;
}

#define KEY_CB(fn, path, body)                                             \
	static int fn(cfg_t *cfg, cfg_opt_t *opt)                         \
	{                                                                  \
		if (seen_once(path, cfg->line) < 0)                        \
			return -1;                                         \
		if (text_check(cfg, opt, path) < 0)                        \
			return -1;                                         \
		body                                                       \
		return 0;                                                  \
	}

static int check_word(cfg_t *cfg, cfg_opt_t *opt, const char *path, const char *const *words)
{
	const char *v = opt_str(opt);

	if (seen_once(path, cfg->line) < 0)
		return -1;
	if (text_check(cfg, opt, path) < 0)
		return -1;
	if (word_index(words, v) < 0) {
		char *w = join_words(words);

		fail_at(cfg->line, _("bad value '%s' for '%s' (expected %s)"), v, path, w);
		free(w);
		return -1;
	}
	return 0;
}

#define WORD_CB(fn, path, words) \
	static int fn(cfg_t *cfg, cfg_opt_t *opt) { return check_word(cfg, opt, path, words); }

WORD_CB(v_bootloader, "bootloader", bootloaders)
WORD_CB(v_initramfs, "initramfs", initramfs_tools)
WORD_CB(v_binding, "binding", bindings)
WORD_CB(v_gpu_mode, "gpu_mode", gpu_modes)
WORD_CB(v_looking_glass, "vm|looking_glass", lg_modes)
WORD_CB(v_target, "vm|target", targets)
WORD_CB(v_guest, "vm|guest_os", guests)
WORD_CB(v_storage_type, "vm|storage|type", storages)

static int v_devices(cfg_t *cfg, cfg_opt_t *opt)
{
	char canon[16];

	if (list_seen_once("devices", cfg->line, cfg_opt_size(opt)) < 0)
		return -1;
	if (text_check(cfg, opt, "devices") < 0)
		return -1;
	for (unsigned i = 0; i < cfg_opt_size(opt); i++) {
		const char *d = cfg_opt_getnstr(opt, i);

		if (!d || !parse_device(d, canon, sizeof(canon)))
			return fail_at(cfg->line,
				       _("bad PCI address '%s' in 'devices' (expected 0000:01:00.0, or 0000:01:00 for every function of a slot)"),
				       d ? d : "");
	}
	return 0;
}

static int v_keep_out(cfg_t *cfg, cfg_opt_t *opt)
{
	char canon[16];

	if (list_seen_once("keep_out", cfg->line, cfg_opt_size(opt)) < 0)
		return -1;
	if (text_check(cfg, opt, "keep_out") < 0)
		return -1;
	for (unsigned i = 0; i < cfg_opt_size(opt); i++) {
		const char *d = cfg_opt_getnstr(opt, i);

		if (!d || !parse_device(d, canon, sizeof(canon)))
			return fail_at(cfg->line, _("bad PCI address '%s' in 'keep_out' (expected 0000:01:00.0, or 0000:01:00 for every function of a slot)"),
				       d ? d : "");
	}
	return 0;
}

/* One NVLink set an element, in the state form of nvlink.h; together they
 * must read as sets (no address in two). */
static int v_nvlink(cfg_t *cfg, cfg_opt_t *opt)
{
	struct vw_buf all = VW_BUF_INIT;
	struct vw_nvlink nl;
	struct vw_err e = { 0 };
	int r = 0;

	if (list_seen_once("nvlink", cfg->line, cfg_opt_size(opt)) < 0)
		return -1;
	if (text_check(cfg, opt, "nvlink") < 0)
		return -1;
	for (unsigned i = 0; i < cfg_opt_size(opt); i++) {
		const char *s = cfg_opt_getnstr(opt, i);

		/* One set: no blank inside (blanks separate sets). */
		if (s && strpbrk(s, " \t\n")) {
			vw_buf_done(&all);
			return fail_at(cfg->line, "'nvlink': %s", s);
		}
		vw_buf_printf(&all, "%s%s", i ? " " : "", s ? s : "");
	}
	if (vw_nvlink_from_string(&nl, all.data ? all.data : "", &e) < 0)
		r = fail_at(cfg->line, "'nvlink': %s", e.msg);
	else
		vw_nvlink_done(&nl);
	vw_buf_done(&all);
	return r;
}

static int v_acs(cfg_t *cfg, cfg_opt_t *opt)
{
	struct vw_err e = { 0 };
	struct vw_acs_override ov;
	char *spec = vw_xstrdup(opt_str(opt)), *tok, *save = NULL;
	struct vw_buf rest = VW_BUF_INIT;
	int r = 0;

	if (seen_once("acs_override", cfg->line) < 0 || text_check(cfg, opt, "acs_override") < 0) {
		free(spec);
		return -1;
	}
	/* "ids" is ours (derive id: tokens from the devices); the rest is the
	 * kernel parameter's own syntax. */
	for (tok = strtok_r(spec, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "ids") || !strcmp(tok, "none"))
			continue;
		if (rest.len)
			vw_buf_addc(&rest, ',');
		vw_buf_adds(&rest, tok);
	}
	if (rest.len && vw_acs_parse(rest.data, &ov, &e) < 0)
		r = fail_at(cfg->line, _("bad value '%s' for 'acs_override' (expected none, downstream, multifunction, ids or id:VVVV:DDDD, separated by commas)"),
			    opt_str(opt));
	vw_buf_done(&rest);
	free(spec);
	return r;
}

bool vw_mdev_split(const char *s, char parent[16], const char **type)
{
	const char *eq = s ? strchr(s, '=') : NULL;
	char addr[32];

	if (!eq || (size_t)(eq - s) >= sizeof(addr) || !eq[1] || strlen(eq + 1) > 64)
		return false;
	memcpy(addr, s, (size_t)(eq - s));
	addr[eq - s] = 0;
	if (!parse_device(addr, parent, 16) || !strchr(parent, '.'))
		return false;
	for (const char *t = eq + 1; *t; t++)
		if (!isalnum((unsigned char)*t) && !strchr("_.-", *t))
			return false;
	*type = eq + 1;
	return true;
}

bool vw_sriov_split(const char *s, char pf[16], int *count)
{
	const char *eq = s ? strchr(s, '=') : NULL;
	char addr[32], *end;
	long n;

	if (!eq || (size_t)(eq - s) >= sizeof(addr))
		return false;
	memcpy(addr, s, (size_t)(eq - s));
	addr[eq - s] = 0;
	if (!parse_device(addr, pf, 16) || !strchr(pf, '.'))
		return false;
	errno = 0;
	n = strtol(eq + 1, &end, 10);
	if (errno || end == eq + 1 || *end || n < 1 || n > 4096)
		return false;
	*count = (int)n;
	return true;
}

bool vw_mig_split(const char *s, char gpu[16], const char **profile)
{
	const char *eq = s ? strchr(s, '=') : NULL, *t;
	char addr[32];

	if (!eq || (size_t)(eq - s) >= sizeof(addr) || strlen(eq + 1) > 31)
		return false;
	memcpy(addr, s, (size_t)(eq - s));
	addr[eq - s] = 0;
	if (!parse_device(addr, gpu, 16) || !strchr(gpu, '.'))
		return false;
	/* nvidia-smi's profile names: 1g.10gb, 3g.71gb, 1g.10gb+me, 1g.20gb+gfx */
	t = eq + 1;
	if (!isdigit((unsigned char)*t))
		return false;
	t += strspn(t, "0123456789");
	if (strncmp(t, "g.", 2) || !isdigit((unsigned char)t[2]))
		return false;
	t += 2 + strspn(t + 2, "0123456789");
	if (strncmp(t, "gb", 2))
		return false;
	for (t += 2; *t == '+' && islower((unsigned char)t[1]); )
		for (t++; islower((unsigned char)*t); t++)
			;
	if (*t)
		return false;
	*profile = eq + 1;
	return true;
}

static int v_mig(cfg_t *cfg, cfg_opt_t *opt)
{
	if (list_seen_once("mig", cfg->line, cfg_opt_size(opt)) < 0)
		return -1;
	for (unsigned i = 0; i < cfg_opt_size(opt); i++) {
		const char *m = cfg_opt_getnstr(opt, i), *profile;
		char gpu[16];

		if (!vw_mig_split(m, gpu, &profile))
			return fail_at(cfg->line, _("bad element '%s' in 'mig' (expected GPU=PROFILE, e.g. 0000:41:00.0=1g.10gb)"),
				       m ? m : "");
	}
	return 0;
}

static int v_sriov(cfg_t *cfg, cfg_opt_t *opt)
{
	if (list_seen_once("sriov_numvfs", cfg->line, cfg_opt_size(opt)) < 0)
		return -1;
	for (unsigned i = 0; i < cfg_opt_size(opt); i++) {
		const char *m = cfg_opt_getnstr(opt, i);
		char pf[16];
		int n;

		if (!vw_sriov_split(m, pf, &n))
			return fail_at(cfg->line, _("bad element '%s' in 'sriov_numvfs' (expected PF=COUNT, e.g. 0000:00:02.0=7)"),
				       m ? m : "");
	}
	return 0;
}

static int v_vgpu(cfg_t *cfg, cfg_opt_t *opt)
{
	if (list_seen_once("vgpu", cfg->line, cfg_opt_size(opt)) < 0)
		return -1;
	for (unsigned i = 0; i < cfg_opt_size(opt); i++) {
		const char *m = cfg_opt_getnstr(opt, i), *type;
		char vf[16];

		if (!vw_mdev_split(m, vf, &type) || strspn(type, "0123456789") != strlen(type))
			return fail_at(cfg->line, _("bad element '%s' in 'vgpu' (expected VF=TYPE-ID, e.g. 0000:41:00.4=557)"),
				       m ? m : "");
	}
	return 0;
}

static int v_mdev(cfg_t *cfg, cfg_opt_t *opt)
{
	if (list_seen_once("mdev", cfg->line, cfg_opt_size(opt)) < 0)
		return -1;
	for (unsigned i = 0; i < cfg_opt_size(opt); i++) {
		const char *m = cfg_opt_getnstr(opt, i), *type;
		char parent[16];

		if (!vw_mdev_split(m, parent, &type))
			return fail_at(cfg->line, _("bad element '%s' in 'mdev' (expected PARENT=TYPE, e.g. 0000:41:00.4=nvidia-558)"),
				       m ? m : "");
	}
	return 0;
}

static int v_blacklist(cfg_t *cfg, cfg_opt_t *opt)
{
	if (list_seen_once("blacklist", cfg->line, cfg_opt_size(opt)) < 0)
		return -1;
	if (text_check(cfg, opt, "blacklist") < 0)
		return -1;
	for (unsigned i = 0; i < cfg_opt_size(opt); i++) {
		const char *m = cfg_opt_getnstr(opt, i);

		if (!m || !module_name_ok(m))
			return fail_at(cfg->line, _("bad module name '%s' in 'blacklist'"), m ? m : "");
	}
	return 0;
}

static int v_allow(cfg_t *cfg, cfg_opt_t *opt)
{
	if (list_seen_once("access|allow", cfg->line, cfg_opt_size(opt)) < 0)
		return -1;
	if (text_check(cfg, opt, "access|allow") < 0)
		return -1;
	for (unsigned i = 0; i < cfg_opt_size(opt); i++) {
		const char *a = cfg_opt_getnstr(opt, i);

		if (!a || !allow_ok(a))
			return fail_at(cfg->line,
				       _("bad address '%s' in 'access|allow' (expected 192.0.2.10, 198.51.100.0/24 or an IPv6 address)"),
				       a ? a : "");
	}
	return 0;
}

static int range_check(cfg_t *cfg, cfg_opt_t *opt, const char *path, long lo, long hi)
{
	long v = cfg_opt_getnint(opt, 0);

	if (seen_once(path, cfg->line) < 0)
		return -1;
	if (v < lo || v > hi)
		return fail_at(cfg->line, _("'%s' = %ld is out of range (%ld to %ld)"), path, v, lo, hi);
	return 0;
}

#define RANGE_CB(fn, path, lo, hi) \
	static int fn(cfg_t *cfg, cfg_opt_t *opt) { return range_check(cfg, opt, path, lo, hi); }

RANGE_CB(v_vmid, "vm|vmid", 0, 999999999)
RANGE_CB(v_memory, "vm|memory_mib", 256, 16L << 20)
RANGE_CB(v_vcpus, "vm|vcpus", 1, 1024)
RANGE_CB(v_size, "vm|storage|size_gib", 0, 1L << 20)
RANGE_CB(v_rdp_port, "access|rdp_port", 1, 65535)

static int name_check(cfg_t *cfg, cfg_opt_t *opt, const char *path, size_t max, const char *extra)
{
	const char *v = opt_str(opt);

	if (seen_once(path, cfg->line) < 0)
		return -1;
	if (text_check(cfg, opt, path) < 0)
		return -1;
	if (plain_name_ok(v, max, extra))
		return 0;
	if (strchr(extra, '+'))
		return fail_at(cfg->line, _("bad value '%s' for '%s' (letters, digits, '.', '_', '-' and '+' only, at most %zu)"),
			       v, path, max);
	if (strchr(extra, ':'))
		return fail_at(cfg->line, _("bad value '%s' for '%s' (a host name or an address, at most %zu)"),
			       v, path, max);
	return fail_at(cfg->line, _("bad value '%s' for '%s' (letters, digits, '.', '_' and '-' only, at most %zu)"),
		       v, path, max);
}

#define NAME_CB(fn, path, max, extra) \
	static int fn(cfg_t *cfg, cfg_opt_t *opt) { return name_check(cfg, opt, path, max, extra); }

/* vm|name becomes a libvirt domain name and a file name (vmplan.h). */
NAME_CB(v_vm_name, "vm|name", 64, "._+-")
NAME_CB(v_ssh_user, "access|ssh_user", 32, "._-")
NAME_CB(v_ssh_host, "access|ssh_host", 253, "._-:")

/* vm|mapping: a Proxmox ID (pve-configid: a letter, then letters, digits,
 * '_' or '-'), also the section header in /etc/pve/mapping/pci.cfg. */
static int v_mapping(cfg_t *cfg, cfg_opt_t *opt)
{
	const char *v = opt_str(opt);

	if (seen_once("vm|mapping", cfg->line) < 0)
		return -1;
	if (*v && (!isalpha((unsigned char)v[0]) || strlen(v) < 2 || strlen(v) > 64 ||
		   strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != strlen(v)))
		return fail_at(cfg->line, _("bad value '%s' for 'vm|mapping' (a Proxmox mapping ID: a letter, then letters, digits, '_' or '-', 2 to 64 in all)"),
			       v);
	return 0;
}

/* "WIDTHxHEIGHT", each 320 to 16384. */
static bool parse_resolution(const char *s, long *w, long *h)
{
	char *end;

	*w = strtol(s, &end, 10);
	if (end == s || *end != 'x' || *s == '-' || *s == '+')
		return false;
	s = end + 1;
	*h = strtol(s, &end, 10);
	if (end == s || *end || *s == '-' || *s == '+')
		return false;
	return *w >= 320 && *w <= 16384 && *h >= 200 && *h <= 16384;
}

static int v_lg_resolution(cfg_t *cfg, cfg_opt_t *opt)
{
	const char *v = opt_str(opt);
	long w, h;

	if (seen_once("vm|looking_glass_resolution", cfg->line) < 0)
		return -1;
	if (!parse_resolution(v, &w, &h))
		return fail_at(cfg->line, _("bad value '%s' for 'vm|looking_glass_resolution' (expected WIDTHxHEIGHT, such as 2560x1440)"),
			       v);
	return 0;
}

static int v_storage_path(cfg_t *cfg, cfg_opt_t *opt)
{
	const char *v = opt_str(opt);

	if (seen_once("vm|storage|path", cfg->line) < 0)
		return -1;
	if (text_check(cfg, opt, "vm|storage|path") < 0)
		return -1;
	if (*v && (v[0] != '/' || strstr(v, "/../") || strpbrk(v, "\n\r\t")))
		return fail_at(cfg->line, _("bad value '%s' for 'vm|storage|path' (an absolute path)"), v);
	return 0;
}

/* An ISO: an absolute path, or a Proxmox volume STORAGE:iso/NAME. */
static int v_iso(cfg_t *cfg, cfg_opt_t *opt)
{
	const char *v = opt_str(opt), *colon = strchr(v, ':');
	bool volume = colon && colon > v && strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
					       (size_t)(colon - v) &&
		      vw_startswith(colon + 1, "iso/") && colon[5] && !strchr(colon + 5, '/');

	if (*v && ((v[0] != '/' && !volume) || strstr(v, "/../") || strpbrk(v, "\n\r\t,")))
		return fail_at(cfg->line, _("bad value '%s' for 'vm|%s' (an absolute path, or a Proxmox volume like local:iso/NAME.iso)"),
			       v, opt->name);
	return 0;
}

static int v_vnc_password(cfg_t *cfg, cfg_opt_t *opt)
{
	const char *v = opt_str(opt);

	if (seen_once("access|vnc_password", cfg->line) < 0)
		return -1;
	if (text_check(cfg, opt, "access|vnc_password") < 0)
		return -1;
	/* libvirt rejects VNC passwords over 8 characters at define time. */
	if (strlen(v) > 8)
		return fail_at(cfg->line, _("'access|vnc_password' is longer than 8 characters (VNC cannot use more)"));
	for (const char *p = v; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return fail_at(cfg->line, _("'access|vnc_password' holds a control character"));
	return 0;
}

KEY_CB(v_iommu_pt, "iommu_pt", )
KEY_CB(v_split_nvlink, "split_nvlink", )
KEY_CB(v_progress, "progress", )
KEY_CB(v_pg_version, "progress|version", )
KEY_CB(v_pg_step, "progress|step", )
KEY_CB(v_pg_boot_id, "progress|boot_id", )
KEY_CB(v_pg_applied, "progress|applied", )
KEY_CB(v_pg_applied_boot_id, "progress|applied_boot_id", )
KEY_CB(v_pg_journal, "progress|journal", )
KEY_CB(v_allow_display, "allow_host_display", )
KEY_CB(v_allow_storage, "allow_host_storage", )
KEY_CB(v_allow_network, "allow_host_network", )
KEY_CB(v_allow_input, "allow_host_input", )
KEY_CB(v_test_boot, "test_boot", )
KEY_CB(v_vm, "vm", )
KEY_CB(v_existing, "vm|existing", )
KEY_CB(v_hide_kvm, "vm|hide_kvm", )
KEY_CB(v_storage, "vm|storage", )
KEY_CB(v_access, "access", )
KEY_CB(v_vnc, "access|vnc", )
KEY_CB(v_rdp, "access|rdp", )
KEY_CB(v_xrdp, "access|xrdp", )

/* ---- the schema ---------------------------------------------------------- */

static cfg_opt_t storage_opts[] = {
	CFG_STR("type", "qcow2", CFGF_NONE),
	CFG_STR("path", "", CFGF_NONE),
	CFG_INT("size_gib", 0, CFGF_NONE),
	CFG_END(),
};

static cfg_opt_t vm_opts[] = {
	CFG_STR("target", "libvirt", CFGF_NONE),
	CFG_STR("name", "", CFGF_NONE),
	CFG_BOOL("existing", cfg_false, CFGF_NONE),
	CFG_INT("vmid", 0, CFGF_NONE),
	CFG_INT("memory_mib", 8192, CFGF_NONE),
	CFG_INT("vcpus", 4, CFGF_NONE),
	CFG_STR("guest_os", "windows", CFGF_NONE),
	CFG_BOOL("hide_kvm", cfg_true, CFGF_NONE),
	CFG_SEC("storage", storage_opts, CFGF_NONE),
	CFG_STR("install_iso", "", CFGF_NONE),
	CFG_STR("virtio_iso", "", CFGF_NONE),
	CFG_STR("looking_glass", "none", CFGF_NONE),
	CFG_STR("looking_glass_resolution", "1920x1080", CFGF_NONE),
	CFG_STR("mapping", "", CFGF_NONE),
	CFG_END(),
};

static cfg_opt_t access_opts[] = {
	CFG_BOOL("vnc", cfg_false, CFGF_NONE),
	CFG_STR("vnc_password", "", CFGF_NONE),
	CFG_BOOL("rdp", cfg_false, CFGF_NONE),
	CFG_INT("rdp_port", 3389, CFGF_NONE),
	CFG_BOOL("xrdp", cfg_false, CFGF_NONE),
	CFG_STR_LIST("allow", "{}", CFGF_NONE),
	CFG_STR("ssh_user", "", CFGF_NONE),
	CFG_STR("ssh_host", "", CFGF_NONE),
	CFG_END(),
};

/* The wizard's progress (state.h); its writer is vw_answers_format_progress(). */
static cfg_opt_t progress_opts[] = {
	CFG_INT("version", 1, CFGF_NONE),
	CFG_STR("step", "", CFGF_NONE),
	CFG_STR("boot_id", "", CFGF_NONE),
	CFG_BOOL("applied", cfg_false, CFGF_NONE),
	CFG_STR("applied_boot_id", "", CFGF_NONE),
	CFG_STR("journal", "", CFGF_NONE),
	CFG_END(),
};

static cfg_opt_t root_opts[] = {
	CFG_STR_LIST("devices", "{}", CFGF_NONE),
	CFG_STR_LIST("keep_out", "{}", CFGF_NONE),
	CFG_BOOL("split_nvlink", cfg_false, CFGF_NONE),
	CFG_STR_LIST("nvlink", "{}", CFGF_NONE),
	CFG_STR("bootloader", "auto", CFGF_NONE),
	CFG_STR("initramfs", "auto", CFGF_NONE),
	CFG_STR("binding", "auto", CFGF_NONE),
	CFG_BOOL("iommu_pt", cfg_true, CFGF_NONE),
	CFG_STR("acs_override", "none", CFGF_NONE),
	CFG_BOOL("allow_host_display", cfg_false, CFGF_NONE),
	CFG_STR("gpu_mode", "static", CFGF_NONE),
	CFG_BOOL("allow_host_storage", cfg_false, CFGF_NONE),
	CFG_BOOL("allow_host_network", cfg_false, CFGF_NONE),
	CFG_BOOL("allow_host_input", cfg_false, CFGF_NONE),
	CFG_STR_LIST("blacklist", "{}", CFGF_NONE),
	CFG_STR_LIST("mdev", "{}", CFGF_NONE),
	CFG_STR_LIST("sriov_numvfs", "{}", CFGF_NONE),
	CFG_STR_LIST("vgpu", "{}", CFGF_NONE),
	CFG_STR_LIST("mig", "{}", CFGF_NONE),
	CFG_BOOL("test_boot", cfg_false, CFGF_NONE),
	CFG_SEC("vm", vm_opts, CFGF_NONE),
	CFG_SEC("access", access_opts, CFGF_NONE),
	CFG_SEC("progress", progress_opts, CFGF_NONE),
	CFG_END(),
};

static const struct {
	const char *path;
	cfg_validate_callback_t fn;
} validators[] = {
	{ "devices", v_devices },
	{ "keep_out", v_keep_out },
	{ "split_nvlink", v_split_nvlink },
	{ "nvlink", v_nvlink },
	{ "bootloader", v_bootloader },
	{ "initramfs", v_initramfs },
	{ "binding", v_binding },
	{ "iommu_pt", v_iommu_pt },
	{ "acs_override", v_acs },
	{ "allow_host_display", v_allow_display },
	{ "gpu_mode", v_gpu_mode },
	{ "allow_host_storage", v_allow_storage },
	{ "allow_host_network", v_allow_network },
	{ "allow_host_input", v_allow_input },
	{ "blacklist", v_blacklist },
	{ "mdev", v_mdev },
	{ "sriov_numvfs", v_sriov },
	{ "vgpu", v_vgpu },
	{ "mig", v_mig },
	{ "test_boot", v_test_boot },
	{ "vm", v_vm },
	{ "vm|target", v_target },
	{ "vm|name", v_vm_name },
	{ "vm|existing", v_existing },
	{ "vm|vmid", v_vmid },
	{ "vm|memory_mib", v_memory },
	{ "vm|vcpus", v_vcpus },
	{ "vm|guest_os", v_guest },
	{ "vm|hide_kvm", v_hide_kvm },
	{ "vm|storage", v_storage },
	{ "vm|storage|type", v_storage_type },
	{ "vm|storage|path", v_storage_path },
	{ "vm|install_iso", v_iso },
	{ "vm|virtio_iso", v_iso },
	{ "vm|storage|size_gib", v_size },
	{ "vm|looking_glass", v_looking_glass },
	{ "vm|looking_glass_resolution", v_lg_resolution },
	{ "vm|mapping", v_mapping },
	{ "access", v_access },
	{ "access|vnc", v_vnc },
	{ "access|vnc_password", v_vnc_password },
	{ "access|rdp", v_rdp },
	{ "access|rdp_port", v_rdp_port },
	{ "access|xrdp", v_xrdp },
	{ "access|allow", v_allow },
	{ "access|ssh_user", v_ssh_user },
	{ "access|ssh_host", v_ssh_host },
	{ "progress", v_progress },
	{ "progress|version", v_pg_version },
	{ "progress|step", v_pg_step },
	{ "progress|boot_id", v_pg_boot_id },
	{ "progress|applied", v_pg_applied },
	{ "progress|applied_boot_id", v_pg_applied_boot_id },
	{ "progress|journal", v_pg_journal },
};

/* ---- choices -------------------------------------------------------------- */

void vw_choices_init(struct vw_choices *c)
{
	memset(c, 0, sizeof(*c));
	c->devices = vw_xcalloc(1, sizeof(char *));
	c->keep_out = vw_xcalloc(1, sizeof(char *));
	c->nvlink = vw_xcalloc(1, sizeof(char *));
	c->blacklist = vw_xcalloc(1, sizeof(char *));
	c->mdevs = vw_xcalloc(1, sizeof(char *));
	c->sriov = vw_xcalloc(1, sizeof(char *));
	c->vgpus = vw_xcalloc(1, sizeof(char *));
	c->migs = vw_xcalloc(1, sizeof(char *));
	c->iommu_pt = true;
	c->vm.name = vw_xstrdup("");
	c->vm.memory_mib = 8192;
	c->vm.vcpus = 4;
	c->vm.hide_kvm = true;
	c->vm.storage_path = vw_xstrdup("");
	c->vm.install_iso = vw_xstrdup("");
	c->vm.virtio_iso = vw_xstrdup("");
	c->vm.mapping = vw_xstrdup("");
	c->vm.lg_width = 1920;
	c->vm.lg_height = 1080;
	c->access.vnc_password = vw_xstrdup("");
	c->access.rdp_port = 3389;
	c->access.allow = vw_xcalloc(1, sizeof(char *));
	c->access.ssh_user = vw_xstrdup("");
	c->access.ssh_host = vw_xstrdup("");
	c->source = vw_xstrdup("");
}

static void wipe_free(char *s)
{
	if (s) {
		/* The password may sit here: do not leave it in freed memory. */
		volatile char *p = s;
		while (*p)
			*p++ = 0;
	}
	free(s);
}

void vw_choices_done(struct vw_choices *c)
{
	vw_strv_free(c->devices);
	vw_strv_free(c->keep_out);
	vw_strv_free(c->nvlink);
	vw_strv_free(c->blacklist);
	vw_strv_free(c->mdevs);
	vw_strv_free(c->sriov);
	vw_strv_free(c->vgpus);
	vw_strv_free(c->migs);
	free(c->vm.name);
	free(c->vm.storage_path);
	free(c->vm.install_iso);
	free(c->vm.virtio_iso);
	free(c->vm.mapping);
	wipe_free(c->access.vnc_password);
	vw_strv_free(c->access.allow);
	free(c->access.ssh_user);
	free(c->access.ssh_host);
	free(c->source);
	memset(c, 0, sizeof(*c));
}

static char **str_list(cfg_t *cfg, const char *name, size_t *n, bool canon_dev)
{
	unsigned cnt = cfg_size(cfg, name);
	char **v = vw_xcalloc(cnt + 1, sizeof(char *));
	size_t k = 0;

	for (unsigned i = 0; i < cnt; i++) {
		const char *s = cfg_getnstr(cfg, name, i);
		char canon[16];
		bool dup = false;

		if (!s)
			continue;
		if (canon_dev && parse_device(s, canon, sizeof(canon)))
			s = canon;
		for (size_t j = 0; j < k; j++)
			dup = dup || !strcmp(v[j], s);
		if (!dup)
			v[k++] = vw_xstrdup(s);
	}
	*n = k;
	return v;
}

/* Canonical "PARENT=TYPE" elements, duplicates kept (two of a type). */
static char **mdev_list(cfg_t *cfg, size_t *n)
{
	unsigned cnt = cfg_size(cfg, "mdev");
	char **v = vw_xcalloc(cnt + 1, sizeof(char *));
	size_t k = 0;

	for (unsigned i = 0; i < cnt; i++) {
		const char *s = cfg_getnstr(cfg, "mdev", i), *type;
		char parent[16];

		if (vw_mdev_split(s, parent, &type))
			v[k++] = vw_xasprintf("%s=%s", parent, type);
	}
	*n = k;
	return v;
}

/* Canonical "GPU=PROFILE" elements, duplicates kept (two instances). */
static char **mig_list(cfg_t *cfg, size_t *n)
{
	unsigned cnt = cfg_size(cfg, "mig");
	char **v = vw_xcalloc(cnt + 1, sizeof(char *));
	size_t k = 0;

	for (unsigned i = 0; i < cnt; i++) {
		const char *s = cfg_getnstr(cfg, "mig", i), *profile;
		char gpu[16];

		if (vw_mig_split(s, gpu, &profile))
			v[k++] = vw_xasprintf("%s=%s", gpu, profile);
	}
	*n = k;
	return v;
}

/* Canonical "PF=N" elements; a PF given twice keeps its last count. */
static char **sriov_list(cfg_t *cfg, size_t *n)
{
	unsigned cnt = cfg_size(cfg, "sriov_numvfs");
	char **v = vw_xcalloc(cnt + 1, sizeof(char *));
	size_t k = 0;

	for (unsigned i = 0; i < cnt; i++) {
		char pf[16];
		int num;
		size_t j;

		if (!vw_sriov_split(cfg_getnstr(cfg, "sriov_numvfs", i), pf, &num))
			continue;
		for (j = 0; j < k && strncmp(v[j], pf, strlen(pf)); j++)
			;
		if (j < k)
			free(v[j]);
		v[j] = vw_xasprintf("%s=%d", pf, num);
		k += j == k;
	}
	*n = k;
	return v;
}

static int enum_of(const char *const *words, const char *s)
{
	int i = word_index(words, s);
	return i < 0 ? 0 : i;
}


static void fill(struct vw_choices *c, cfg_t *cfg, const char *name)
{
	cfg_t *vm = cfg_getsec(cfg, "vm"), *st = cfg_getsec(vm, "storage");
	cfg_t *ac = cfg_getsec(cfg, "access");
	char *spec = vw_xstrdup(cfg_getstr(cfg, "acs_override")), *tok, *save = NULL;
	struct vw_buf rest = VW_BUF_INIT;

	vw_strv_free(c->devices);
	c->devices = str_list(cfg, "devices", &c->ndevices, true);
	vw_strv_free(c->keep_out);
	c->keep_out = str_list(cfg, "keep_out", &c->nkeep_out, true);
	c->split_nvlink = cfg_getbool(cfg, "split_nvlink");
	vw_strv_free(c->nvlink);
	c->nvlink = str_list(cfg, "nvlink", &c->nnvlink, false);
	/* "nvlink = {}" (none) is not the same as no key (ask nvidia-smi). */
	c->nvlink_known = (cfg_getopt(cfg, "nvlink")->flags & CFGF_MODIFIED) != 0;
	c->bootloader = (enum vw_bootloader)enum_of(bootloaders, cfg_getstr(cfg, "bootloader"));
	c->initramfs = (enum vw_initramfs)enum_of(initramfs_tools, cfg_getstr(cfg, "initramfs"));
	c->binding = (enum vw_binding)enum_of(bindings, cfg_getstr(cfg, "binding"));
	c->iommu_pt = cfg_getbool(cfg, "iommu_pt");
	for (tok = strtok_r(spec, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "ids")) {
			c->acs_ids = true;
		} else if (strcmp(tok, "none")) {
			if (rest.len)
				vw_buf_addc(&rest, ',');
			vw_buf_adds(&rest, tok);
		}
	}
	memset(&c->acs, 0, sizeof(c->acs));
	if (rest.len)
		vw_acs_parse(rest.data, &c->acs, NULL);	/* validated already */
	vw_buf_done(&rest);
	free(spec);
	c->allow_host_display = cfg_getbool(cfg, "allow_host_display");
	c->gpu_mode = (enum vw_gpu_mode)enum_of(gpu_modes, cfg_getstr(cfg, "gpu_mode"));
	c->allow_host_storage = cfg_getbool(cfg, "allow_host_storage");
	c->allow_host_network = cfg_getbool(cfg, "allow_host_network");
	c->allow_host_input = cfg_getbool(cfg, "allow_host_input");
	vw_strv_free(c->blacklist);
	c->blacklist = str_list(cfg, "blacklist", &c->nblacklist, false);
	vw_strv_free(c->mdevs);
	c->mdevs = mdev_list(cfg, &c->nmdevs);
	vw_strv_free(c->sriov);
	c->sriov = sriov_list(cfg, &c->nsriov);
	vw_strv_free(c->vgpus);
	c->vgpus = str_list(cfg, "vgpu", &c->nvgpus, false);
	vw_strv_free(c->migs);
	c->migs = mig_list(cfg, &c->nmigs);
	c->test_boot = cfg_getbool(cfg, "test_boot");

	c->vm.target = (enum vw_vm_target)enum_of(targets, cfg_getstr(vm, "target"));
	free(c->vm.name);
	c->vm.name = vw_xstrdup(cfg_getstr(vm, "name"));
	c->vm.existing = cfg_getbool(vm, "existing");
	c->vm.vmid = cfg_getint(vm, "vmid");
	c->vm.memory_mib = cfg_getint(vm, "memory_mib");
	c->vm.vcpus = cfg_getint(vm, "vcpus");
	c->vm.guest_os = (enum vw_guest_os)enum_of(guests, cfg_getstr(vm, "guest_os"));
	c->vm.hide_kvm = cfg_getbool(vm, "hide_kvm");
	c->vm.storage_type = (enum vw_storage_type)enum_of(storages, cfg_getstr(st, "type"));
	free(c->vm.storage_path);
	c->vm.storage_path = vw_xstrdup(cfg_getstr(st, "path"));
	c->vm.storage_size_gib = cfg_getint(st, "size_gib");
	free(c->vm.install_iso);
	c->vm.install_iso = vw_xstrdup(cfg_getstr(vm, "install_iso"));
	free(c->vm.virtio_iso);
	c->vm.virtio_iso = vw_xstrdup(cfg_getstr(vm, "virtio_iso"));
	free(c->vm.mapping);
	c->vm.mapping = vw_xstrdup(cfg_getstr(vm, "mapping"));
	c->vm.looking_glass = (enum vw_looking_glass)enum_of(lg_modes, cfg_getstr(vm, "looking_glass"));
	if (!parse_resolution(cfg_getstr(vm, "looking_glass_resolution"), &c->vm.lg_width, &c->vm.lg_height)) {
		c->vm.lg_width = 1920;	/* validated already: not reached */
		c->vm.lg_height = 1080;
	}

	c->access.vnc = cfg_getbool(ac, "vnc");
	wipe_free(c->access.vnc_password);
	c->access.vnc_password = vw_xstrdup(cfg_getstr(ac, "vnc_password"));
	c->access.rdp = cfg_getbool(ac, "rdp");
	c->access.rdp_port = cfg_getint(ac, "rdp_port");
	c->access.xrdp = cfg_getbool(ac, "xrdp");
	vw_strv_free(c->access.allow);
	c->access.allow = str_list(ac, "allow", &c->access.nallow, false);
	free(c->access.ssh_user);
	c->access.ssh_user = vw_xstrdup(cfg_getstr(ac, "ssh_user"));
	free(c->access.ssh_host);
	c->access.ssh_host = vw_xstrdup(cfg_getstr(ac, "ssh_host"));

	free(c->source);
	c->source = vw_xstrdup(name);
	c->devices_line = seen_line("devices");
	c->acs_line = seen_line("acs_override");
	c->blacklist_line = seen_line("blacklist");
	c->mdev_line = seen_line("mdev");
	c->sriov_line = seen_line("sriov_numvfs");
	c->vgpu_line = seen_line("vgpu");
	c->mig_line = seen_line("mig");
	c->bootloader_line = seen_line("bootloader");
	c->initramfs_line = seen_line("initramfs");
	c->binding_line = seen_line("binding");
	c->nvlink_line = seen_line("nvlink");
	c->gpu_mode_line = seen_line("gpu_mode");
	c->looking_glass_line = seen_line("vm|looking_glass");
	c->mapping_line = seen_line("vm|mapping");
}

void vw_progress_init(struct vw_progress *p)
{
	memset(p, 0, sizeof(*p));
	p->version = 1;
	p->step = vw_xstrdup("");
	p->boot_id = vw_xstrdup("");
	p->applied_boot_id = vw_xstrdup("");
	p->journal = vw_xstrdup("");
}

void vw_progress_done(struct vw_progress *p)
{
	free(p->step);
	free(p->boot_id);
	free(p->applied_boot_id);
	free(p->journal);
	memset(p, 0, sizeof(*p));
}

static void fill_progress(struct vw_progress *p, cfg_t *cfg)
{
	cfg_t *pg = cfg_getsec(cfg, "progress");

	vw_progress_done(p);
	vw_progress_init(p);
	p->present = seen_line("progress") > 0;
	p->version = cfg_getint(pg, "version");
	free(p->step);
	p->step = vw_xstrdup(cfg_getstr(pg, "step"));
	free(p->boot_id);
	p->boot_id = vw_xstrdup(cfg_getstr(pg, "boot_id"));
	p->applied = cfg_getbool(pg, "applied");
	free(p->applied_boot_id);
	p->applied_boot_id = vw_xstrdup(cfg_getstr(pg, "applied_boot_id"));
	free(p->journal);
	p->journal = vw_xstrdup(cfg_getstr(pg, "journal"));
}

char *vw_choices_where(const struct vw_choices *c, int line, char *buf, size_t size)
{
	if (!c->source || !*c->source)
		snprintf(buf, size, "%s", "");
	else if (line > 0)
		snprintf(buf, size, "%s:%d: ", c->source, line);
	else
		snprintf(buf, size, "%s: ", c->source);
	return buf;
}

/* libconfuse 3.3 counts the newline that ends a comment ("#", "//" or
 * "/ * * /") twice, so every message after a comment named the wrong line.
 * Comments are blanked out before parsing (their newlines kept), which also
 * works with versions that count right.  Quotes are followed as libconfuse
 * reads them: "..." and '...' with backslash escapes. */
static char *blank_line_comments(const char *text, size_t len, int *unclosed)
{
	char *out = vw_xstrndup(text, len);
	char q = 0;
	int line = 1, open[64], depth = 0;

	*unclosed = 0;
	for (size_t i = 0; i < len; i++) {
		char ch = out[i];

		if (ch == '\n')
			line++;
		if (q) {
			if (ch == '\\' && i + 1 < len)
				i++;
			else if (ch == q)
				q = 0;
		} else if (ch == '"' || ch == '\'') {
			q = ch;
		} else if (ch == '{') {
			if (depth < (int)VW_ARRAY_SIZE(open))
				open[depth] = line;
			depth++;
		} else if (ch == '}') {
			depth -= depth > 0;
		} else if (ch == '/' && i + 1 < len && out[i + 1] == '*') {
			char *end = strstr(out + i + 2, "*/");
			size_t stop = end ? (size_t)(end - out) + 2 : len;

			for (; i < stop; i++) {
				if (out[i] == '\n')
					line++;
				else
					out[i] = ' ';
			}
			i--;
		} else if (ch == '#' || (ch == '/' && i + 1 < len && out[i + 1] == '/')) {
			while (i < len && out[i] != '\n')
				out[i++] = ' ';
			i--;	/* the newline is counted on the next turn */
		}
	}
	/* libconfuse takes the end of the file as the end of an open section:
	 * a brace never closed is reported here, at its line. */
	if (depth > 0 && !q)
		*unclosed = open[depth <= (int)VW_ARRAY_SIZE(open) ? depth - 1 : (int)VW_ARRAY_SIZE(open) - 1];
	return out;
}

int vw_answers_parse(struct vw_choices *c, const char *text, size_t len, const char *name,
		     struct vw_err *err)
{
	return vw_answers_parse_progress(c, NULL, text, len, name, err);
}

int vw_answers_parse_progress(struct vw_choices *c, struct vw_progress *p, const char *text,
			      size_t len, const char *name, struct vw_err *err)
{
	struct parse_ctx pc = { .name = name && *name ? name : "answers", .err = err };
	struct vw_err local = { 0 };
	cfg_t *cfg;
	char *copy;
	int r, unclosed;

	if (!pc.err)
		pc.err = &local;
	if (c->devices)
		vw_choices_done(c);
	vw_choices_init(c);
	if (p) {
		vw_progress_done(p);
		vw_progress_init(p);
	}
	if (memchr(text, '\0', len))
		return vw_err_set(err, -EINVAL, _("%s: not a text file (it holds a NUL byte)"), pc.name);
	copy = blank_line_comments(text, len, &unclosed);
	cfg = cfg_init(root_opts, CFGF_NONE);
	if (!cfg) {
		free(copy);
		return vw_err_set(err, -ENOMEM, _("%s: cannot set up the parser"), pc.name);
	}
	cfg_set_error_function(cfg, errfunc);
	for (size_t i = 0; i < VW_ARRAY_SIZE(validators); i++)
		cfg_set_validate_func(cfg, validators[i].path, validators[i].fn);
	ctx = &pc;
	r = cfg_parse_buf(cfg, copy);
	if (r == CFG_SUCCESS && !pc.failed && unclosed) {
		/* libconfuse took the end of the file as the end of a section. */
		fail_at(unclosed, _("this '{' is never closed"));
		r = CFG_PARSE_ERROR;
	}
	if (r == CFG_SUCCESS && !pc.failed) {
		fill(c, cfg, pc.name);
		if (p)
			fill_progress(p, cfg);
	}
	ctx = NULL;
	cfg_free(cfg);
	/* The text may hold the VNC password. */
	memset(copy, 0, len);
	free(copy);
	if (r != CFG_SUCCESS || pc.failed) {
		if (!pc.failed)
			vw_err_set(pc.err, -EINVAL, _("%s: cannot parse the file"), pc.name);
		return -EINVAL;
	}
	return 0;
}

static int load_fd(struct vw_choices *c, int fd, const char *name, struct vw_err *err)
{
	struct vw_buf b = VW_BUF_INIT;
	char chunk[8192];
	ssize_t n;
	int r;

	while ((n = read(fd, chunk, sizeof(chunk))) > 0) {
		vw_buf_add(&b, chunk, (size_t)n);
		if (b.len > VW_ANSWERS_MAX) {
			vw_buf_done(&b);
			return vw_err_set(err, -EFBIG, _("%s: larger than %u bytes"), name, VW_ANSWERS_MAX);
		}
	}
	if (n < 0) {
		r = -errno;
		vw_buf_done(&b);
		return vw_err_set(err, r, _("cannot read %s: %s"), name, strerror(-r));
	}
	r = vw_answers_parse(c, b.data ? b.data : "", b.len, name, err);
	if (b.data)
		memset(b.data, 0, b.len);
	vw_buf_done(&b);
	return r;
}

int vw_answers_load(struct vw_choices *c, const char *path, struct vw_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY), r;

	if (fd < 0) {
		r = -errno;
		if (!c->devices)
			vw_choices_init(c);
		return vw_err_set(err, r, _("cannot open the answers file %s: %s"), path, strerror(-r));
	}
	r = load_fd(c, fd, path, err);
	close(fd);
	return r;
}

int vw_answers_load_sr(struct vw_choices *c, const struct vw_sysroot *sr, const char *rel,
		       struct vw_err *err)
{
	int fd = vw_sysroot_openat(sr, rel, O_RDONLY | O_CLOEXEC | O_NOCTTY, 0), r;
	char *name = vw_xasprintf("/%s", *rel == '/' ? rel + 1 : rel);

	if (fd < 0) {
		if (!c->devices)
			vw_choices_init(c);
		r = vw_err_set(err, fd, _("cannot open %s: %s"), name, strerror(-fd));
		free(name);
		return r;
	}
	r = load_fd(c, fd, name, err);
	close(fd);
	free(name);
	return r;
}

/* ---- devices against a host ----------------------------------------------- */

static int dev_error(const struct vw_choices *c, struct vw_err *err, const char *fmt, const char *dev)
{
	char msg[512];

	snprintf(msg, sizeof(msg), fmt, dev);
	if (*c->source && c->devices_line > 0)
		return vw_err_set(err, -ENODEV, "%s:%d: %s", c->source, c->devices_line, msg);
	if (*c->source)
		return vw_err_set(err, -ENODEV, "%s: %s", c->source, msg);
	return vw_err_set(err, -ENODEV, "%s", msg);
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int vw_answers_devices(const struct vw_choices *c, const struct vw_facts *f, int **idx,
		       size_t *n, struct vw_err *err)
{
	int *v = NULL;
	size_t k = 0;

	*idx = NULL;
	*n = 0;
	for (size_t i = 0; i < c->ndevices; i++) {
		char canon[16];
		const char *want = c->devices[i];
		bool slot, found = false;

		if (!parse_device(want, canon, sizeof(canon))) {
			free(v);
			return dev_error(c, err, _("bad PCI address '%s'"), want);
		}
		slot = !strchr(canon, '.');
		for (size_t d = 0; d < f->ndevs; d++) {
			const char *addr = f->devs[d].addr;
			/* A slot means its functions, never the VFs that happen
			 * to share its address (they are chosen one by one). */
			bool hit = slot ? (!strncmp(addr, canon, strlen(canon)) && addr[strlen(canon)] == '.' &&
					   !f->devs[d].vf)
					: !strcmp(addr, canon);
			bool dup = false;

			if (!hit)
				continue;
			found = true;
			for (size_t j = 0; j < k; j++)
				dup = dup || v[j] == (int)d;
			if (!dup) {
				v = vw_xreallocarray(v, k + 1, sizeof(*v));
				v[k++] = (int)d;
			}
		}
		if (!found) {
			free(v);
			return dev_error(c, err, slot ? _("no PCI slot %s on this host") :
						  _("no PCI device %s on this host"), canon);
		}
	}
	if (k)
		qsort(v, k, sizeof(*v), cmp_int);
	*idx = v;
	*n = k;
	return 0;
}

/* GPU instances of the type's profile the mig key asks on the GPU of
 * parent (itself or its PF): a MIG-backed type has room only on a free
 * instance, and the MIG unit makes them at boot, before mdevctl. */
static long mig_room(const struct vw_choices *c, const struct vw_facts *f, int parent,
		     const struct vw_mdev_type *t)
{
	int gpu = f->devs[parent].vf ? f->devs[parent].physfn : parent;
	char profile[32];
	long n = 0;

	if (!t->name || !vw_mig_profile_of_type(t->name, profile))
		return 0;
	for (size_t i = 0; i < c->nmigs; i++) {
		const char *p;
		char addr[16];

		n += vw_mig_split(c->migs[i], addr, &p) && !strcmp(p, profile) &&
		     vw_facts_find_dev(f, addr) == gpu;
	}
	/* A VF holds one vGPU. */
	return f->devs[parent].vf && n > 1 ? 1 : n;
}

/* Every mdev element names a function of this host that offers its type. */
static int check_mdevs(const struct vw_choices *c, const struct vw_facts *f, struct vw_err *err)
{
	char where[300];

	vw_choices_where(c, c->mdev_line, where, sizeof(where));
	for (size_t i = 0; i < c->nmdevs; i++) {
		const char *type;
		char parent[16];
		int d;
		bool offered = false;

		if (!vw_mdev_split(c->mdevs[i], parent, &type))
			return vw_err_set(err, -EINVAL, _("%sbad element '%s' in 'mdev' (expected PARENT=TYPE, e.g. 0000:41:00.4=nvidia-558)"),
					  where, c->mdevs[i]);
		d = vw_facts_find_dev(f, parent);
		if (d < 0)
			return vw_err_set(err, -ENODEV, _("%sno PCI device %s on this host"), where, parent);
		for (size_t k = 0; k < f->devs[d].nmdev_types && !offered; k++)
			offered = !strcmp(f->devs[d].mdev_types[k].id, type);
		if (!offered)
			return vw_err_set(err, -ENODEV,
					  _("%s%s offers no mediated device type %s (see its mdev_types in 'vfiowiz groups --json')"),
					  where, parent, type);
	}
	/* Room: what is free now plus the mdevs of that type that exist
	 * already (ours from an earlier apply) must cover the asks. */
	for (size_t i = 0; i < c->nmdevs; i++) {
		const struct vw_pci_dev *d;
		const struct vw_mdev_type *t = NULL;
		const char *type;
		char parent[16];
		long asked = 0, room;
		int di;

		vw_mdev_split(c->mdevs[i], parent, &type);
		di = vw_facts_find_dev(f, parent);
		d = &f->devs[di];
		for (size_t k = 0; k < d->nmdev_types && !t; k++)
			if (!strcmp(d->mdev_types[k].id, type))
				t = &d->mdev_types[k];
		if (t->available < 0)
			continue;
		for (size_t j = 0; j < c->nmdevs; j++)
			asked += !strcmp(c->mdevs[j], c->mdevs[i]);
		/* The instances the mig key asks are there at boot: some of
		 * the free ones may be among them. */
		room = t->available > mig_room(c, f, di, t) ? t->available : mig_room(c, f, di, t);
		for (size_t m = 0; m < f->nmdevs; m++)
			room += f->mdevs[m].parent == di && !strcmp(f->mdevs[m].type, type);
		if (asked > room)
			return vw_err_set(err, -ENOSPC,
					  ngettext("%s%s has room for %ld mediated device of type %s, and %ld are asked for",
						   "%s%s has room for %ld mediated devices of type %s, and %ld are asked for",
						   (unsigned long)room),
					  where, parent, room, type, asked);
	}
	return 0;
}

/* Every sriov_numvfs element names an SR-IOV PF of this host that can
 * make that many. */
int vw_answers_check_sriov(const struct vw_choices *c, const struct vw_facts *f, struct vw_err *err)
{
	char where[300];

	vw_choices_where(c, c->sriov_line, where, sizeof(where));
	for (size_t i = 0; i < c->nsriov; i++) {
		char pf[16];
		int n, d;

		if (!vw_sriov_split(c->sriov[i], pf, &n))
			continue;
		d = vw_facts_find_dev(f, pf);
		if (d < 0)
			return vw_err_set(err, -ENODEV, _("%sno PCI device %s on this host"), where, pf);
		if (f->devs[d].sriov_total <= 0)
			return vw_err_set(err, -ENODEV, _("%s%s cannot make SR-IOV virtual functions (no sriov_totalvfs: its driver does not offer them)"),
					  where, pf);
		if (n > f->devs[d].sriov_total)
			return vw_err_set(err, -ERANGE, _("%s%s can make at most %d virtual functions, not %d"),
					  where, pf, f->devs[d].sriov_total, n);
	}
	return 0;
}

/* Every vgpu element names a VF of this host that can take that type now. */
static int check_vgpus(const struct vw_choices *c, const struct vw_facts *f, struct vw_err *err)
{
	char where[300];

	vw_choices_where(c, c->vgpu_line, where, sizeof(where));
	for (size_t i = 0; i < c->nvgpus; i++) {
		const char *type;
		char vf[16];
		bool ok = false;
		int d;

		if (!vw_mdev_split(c->vgpus[i], vf, &type))
			continue;
		d = vw_facts_find_dev(f, vf);
		if (d < 0)
			return vw_err_set(err, -ENODEV, _("%sno PCI device %s on this host"), where, vf);
		if (!f->devs[d].vgpu_types)
			return vw_err_set(err, -ENODEV, _("%s%s lists no NVIDIA vGPU types (no nvidia/creatable_vgpu_types: not a VF of a GPU under NVIDIA's vGPU host driver)"),
					  where, vf);
		for (size_t k = 0; f->devs[d].vgpu_types[k] && !ok; k++) {
			const char *t = f->devs[d].vgpu_types[k];

			ok = !strncmp(t, type, strlen(type)) && t[strlen(type)] == ' ';
		}
		/* The type it has already counts as creatable. */
		ok = ok || !strcmp(f->devs[d].vgpu_current, type);
		if (!ok)
			return vw_err_set(err, -ENODEV, _("%s%s cannot take vGPU type %s now (see its vgpu_types in 'vfiowiz groups --json')"),
					  where, vf, type);
		for (size_t j = 0; j < i; j++)
			if (!strncmp(c->vgpus[j], vf, strlen(vf)) && c->vgpus[j][strlen(vf)] == '=')
				return vw_err_set(err, -EINVAL, _("%s%s is given twice in 'vgpu': a VF holds one vGPU"), where, vf);
	}
	return 0;
}

int vw_answers_check(const struct vw_choices *c, const struct vw_facts *f, struct vw_err *err)
{
	int *idx;
	size_t n;
	int r = vw_answers_devices(c, f, &idx, &n, err);

	free(idx);
	if (r == 0)
		r = check_mdevs(c, f, err);
	if (r == 0)
		r = check_vgpus(c, f, err);
	return r < 0 ? r : vw_answers_check_sriov(c, f, err);
}

/* ---- writing --------------------------------------------------------------- */

/* Single quotes: libconfuse expands ${VAR} inside double quotes only. */
static void put_str(struct vw_buf *b, const char *s)
{
	vw_buf_addc(b, '\'');
	for (; *s; s++) {
		if (*s == '\'' || *s == '\\')
			vw_buf_addc(b, '\\');
		vw_buf_addc(b, *s);
	}
	vw_buf_addc(b, '\'');
}

static void put_list(struct vw_buf *b, char *const *v)
{
	vw_buf_addc(b, '{');
	for (size_t i = 0; v && v[i]; i++) {
		if (i)
			vw_buf_adds(b, ", ");
		put_str(b, v[i]);
	}
	vw_buf_adds(b, "}\n");
}

static const char *yesno(bool v)
{
	return v ? "true" : "false";
}

void vw_answers_format(struct vw_buf *b, const struct vw_choices *c)
{
	struct vw_buf acs = VW_BUF_INIT;

	vw_buf_adds(b, "# vfiowiz answers (docs/answers.example.conf describes every key)\n");
	vw_buf_adds(b, "devices = ");
	put_list(b, c->devices);
	vw_buf_adds(b, "keep_out = ");
	put_list(b, c->keep_out);
	vw_buf_printf(b, "split_nvlink = %s\n", yesno(c->split_nvlink));
	/* Left out when unknown: the plan then asks nvidia-smi. */
	if (c->nvlink_known) {
		vw_buf_adds(b, "nvlink = ");
		put_list(b, c->nvlink);
	}
	vw_buf_printf(b, "bootloader = %s\n", bootloaders[c->bootloader < VW_BL_COUNT ? c->bootloader : 0]);
	vw_buf_printf(b, "initramfs = %s\n", initramfs_tools[c->initramfs < VW_IRFS_COUNT ? c->initramfs : 0]);
	vw_buf_printf(b, "binding = %s\n", vw_binding_name(c->binding));
	vw_buf_printf(b, "iommu_pt = %s\n", yesno(c->iommu_pt));
	vw_acs_format(&c->acs, &acs);
	if (c->acs_ids) {
		if (acs.len)
			vw_buf_addc(&acs, ',');
		vw_buf_adds(&acs, "ids");
	}
	vw_buf_adds(b, "acs_override = ");
	put_str(b, acs.len ? acs.data : "none");
	vw_buf_addc(b, '\n');
	vw_buf_done(&acs);
	vw_buf_printf(b, "allow_host_display = %s\n", yesno(c->allow_host_display));
	vw_buf_printf(b, "gpu_mode = %s\n", vw_gpu_mode_name(c->gpu_mode));
	vw_buf_printf(b, "allow_host_storage = %s\n", yesno(c->allow_host_storage));
	vw_buf_printf(b, "allow_host_network = %s\n", yesno(c->allow_host_network));
	vw_buf_printf(b, "allow_host_input = %s\n", yesno(c->allow_host_input));
	vw_buf_adds(b, "blacklist = ");
	put_list(b, c->blacklist);
	vw_buf_adds(b, "mdev = ");
	put_list(b, c->mdevs);
	vw_buf_adds(b, "sriov_numvfs = ");
	put_list(b, c->sriov);
	vw_buf_adds(b, "vgpu = ");
	put_list(b, c->vgpus);
	vw_buf_adds(b, "mig = ");
	put_list(b, c->migs);
	vw_buf_printf(b, "test_boot = %s\n", yesno(c->test_boot));

	vw_buf_adds(b, "vm {\n");
	vw_buf_printf(b, "  target = %s\n", targets[(unsigned)c->vm.target < VW_VM_TARGET_COUNT ? c->vm.target : 0]);
	vw_buf_adds(b, "  name = ");
	put_str(b, c->vm.name);
	vw_buf_printf(b, "\n  existing = %s\n", yesno(c->vm.existing));
	vw_buf_printf(b, "  vmid = %ld\n", c->vm.vmid);
	vw_buf_printf(b, "  memory_mib = %ld\n", c->vm.memory_mib);
	vw_buf_printf(b, "  vcpus = %ld\n", c->vm.vcpus);
	vw_buf_printf(b, "  guest_os = %s\n", guests[c->vm.guest_os == VW_GUEST_LINUX]);
	vw_buf_printf(b, "  hide_kvm = %s\n", yesno(c->vm.hide_kvm));
	vw_buf_adds(b, "  storage {\n");
	vw_buf_printf(b, "    type = %s\n", storages[(unsigned)c->vm.storage_type <= VW_STORAGE_DISK ?
							c->vm.storage_type : 0]);
	vw_buf_adds(b, "    path = ");
	put_str(b, c->vm.storage_path);
	vw_buf_printf(b, "\n    size_gib = %ld\n  }\n", c->vm.storage_size_gib);
	vw_buf_printf(b, "  looking_glass = %s\n", vw_looking_glass_name(c->vm.looking_glass));
	vw_buf_printf(b, "  looking_glass_resolution = '%ldx%ld'\n", c->vm.lg_width, c->vm.lg_height);
	/* Written only when set: answers files without them stay as they were. */
	if (*c->vm.install_iso) {
		vw_buf_adds(b, "  install_iso = ");
		put_str(b, c->vm.install_iso);
		vw_buf_addc(b, '\n');
	}
	if (*c->vm.virtio_iso) {
		vw_buf_adds(b, "  virtio_iso = ");
		put_str(b, c->vm.virtio_iso);
		vw_buf_addc(b, '\n');
	}
	if (c->vm.mapping && *c->vm.mapping) {
		vw_buf_adds(b, "  mapping = ");
		put_str(b, c->vm.mapping);
		vw_buf_addc(b, '\n');
	}
	vw_buf_adds(b, "}\n");

	vw_buf_adds(b, "access {\n");
	vw_buf_printf(b, "  vnc = %s\n", yesno(c->access.vnc));
	vw_buf_adds(b, "  vnc_password = ");
	put_str(b, c->access.vnc_password);
	vw_buf_printf(b, "\n  rdp = %s\n", yesno(c->access.rdp));
	vw_buf_printf(b, "  rdp_port = %ld\n", c->access.rdp_port);
	vw_buf_printf(b, "  xrdp = %s\n", yesno(c->access.xrdp));
	vw_buf_adds(b, "  allow = ");
	put_list(b, c->access.allow);
	vw_buf_adds(b, "  ssh_user = ");
	put_str(b, c->access.ssh_user);
	vw_buf_adds(b, "\n  ssh_host = ");
	put_str(b, c->access.ssh_host);
	vw_buf_adds(b, "\n}\n");
}

void vw_answers_format_progress(struct vw_buf *b, const struct vw_progress *p)
{
	vw_buf_adds(b, "progress {\n");
	vw_buf_printf(b, "  version = %ld\n", p->version);
	vw_buf_adds(b, "  step = ");
	put_str(b, p->step);
	vw_buf_adds(b, "\n  boot_id = ");
	put_str(b, p->boot_id);
	vw_buf_printf(b, "\n  applied = %s\n", yesno(p->applied));
	vw_buf_adds(b, "  applied_boot_id = ");
	put_str(b, p->applied_boot_id);
	vw_buf_adds(b, "\n  journal = ");
	put_str(b, p->journal);
	vw_buf_adds(b, "\n}\n");
}

int vw_answers_save(const struct vw_sysroot *sr, const char *rel, const struct vw_choices *c,
		    struct vw_err *err)
{
	struct vw_buf b = VW_BUF_INIT;
	int r;

	vw_answers_format(&b, c);
	/* Private from the first byte (the VNC password). */
	r = vw_write_private(sr, rel, b.data, b.len, err);
	memset(b.data, 0, b.len);
	vw_buf_done(&b);
	return r;
}

const char *vw_binding_name(enum vw_binding b)
{
	return (unsigned)b < VW_ARRAY_SIZE(bindings) - 1 ? bindings[b] : "auto";
}

const char *vw_gpu_mode_name(enum vw_gpu_mode m)
{
	return (unsigned)m < VW_ARRAY_SIZE(gpu_modes) - 1 ? gpu_modes[m] : "static";
}

const char *vw_looking_glass_name(enum vw_looking_glass lg)
{
	return (unsigned)lg < VW_ARRAY_SIZE(lg_modes) - 1 ? lg_modes[lg] : "none";
}
