/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hostrole.c - what the running host needs its PCI functions for: the
 * controllers of its disks, the NIC of its default route or SSH session,
 * the USB controller of its only keyboard (facts.h enum vw_host_role).
 *
 * Everything is read through the sysroot:
 *  - storage: vw_storage_list() (mounts, swaps, fstab, holders, libblkid);
 *  - network: proc/net/route and proc/net/ipv6_route (the default route of
 *    the lowest metric; the route back to the SSH client), an interface's
 *    PCI function through sys/class/net/IF/device, bridges, bonds and VLANs
 *    through their lower_IF links;
 *  - input: proc/bus/input/devices, keyboards (a "kbd" handler with key
 *    repeat) below a PCI function.  A keyboard below no PCI function (the
 *    i8042 "AT Translated Set 2 keyboard" that many desktops show without a
 *    PS/2 keyboard) is not counted: the USB keyboard would then be refused
 *    too rarely.  Only when the session is not over SSH.
 * The SSH session is the options' (facts.h struct vw_facts_opts). */
#define _GNU_SOURCE
#include "facts.h"
#include "storage.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TABLE_MAX (1u << 20)	/* route tables, input devices */
#define LOWER_DEPTH 8		/* bridge on bond on VLAN ... */

/* Per PCI function: what the host loses, as pieces joined at the end. */
struct roles {
	unsigned *role;
	struct vw_buf *storage;	/* "/, /boot/efi (nvme0n1)" pieces */
	char **net_if;		/* the interface chain, "vmbr0: enp4s0" */
	bool *net_default, *net_ssh;
	struct vw_buf *input;	/* keyboard names */
};

static void add_note(struct vw_facts *f, char *note)
{
	f->notes = vw_xreallocarray(f->notes, f->nnotes + 1, sizeof(*f->notes));
	f->notes[f->nnotes++] = note;
}

/* A string from the host, safe to show: control characters become '?'. */
static char *printable(const char *s)
{
	char *r = vw_xstrdup(s);

	for (char *p = r; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return r;
}

/* "0000:00:17.0"-shaped path component. */
static bool is_pci_addr(const char *s, size_t n)
{
	return n == 12 && isxdigit((unsigned char)s[0]) && s[4] == ':' && s[7] == ':' && s[10] == '.';
}

/* The last PCI address among the components of path, "" when none. */
static void last_pci(const char *path, char out[16])
{
	out[0] = '\0';
	for (const char *p = path; p && *p;) {
		size_t n = strcspn(p, "/");

		if (is_pci_addr(p, n))
			snprintf(out, 16, "%.*s", (int)n, p);
		p += n + (p[n] == '/');
	}
}

/* ---- storage -------------------------------------------------------------- */

static void probe_storage(struct vw_facts *f, const struct vw_sysroot *sr, struct roles *r)
{
	struct vw_storage s;
	struct vw_err err = { 0 };

	if (vw_storage_list(sr, &s, &err) < 0) {
		add_note(f, vw_xstrdup(_("The disks (/sys/block) could not be listed: the controllers of the host's disks are not known, and nothing keeps them from going to a VM.")));
		vw_storage_done(&s);
		return;
	}
	for (size_t i = 0; i < s.ndisks; i++) {
		const struct vw_blk_disk *d = &s.disks[i];
		int k;

		if (d->usable || !*d->pci || (k = vw_facts_find_dev(f, d->pci)) < 0)
			continue;
		r->role[k] |= VW_HOST_STORAGE;
		vw_buf_printf(&r->storage[k], "%s%s (%s)", r->storage[k].len ? "; " : "",
			      *d->holds ? d->holds : d->refusal, d->name);
	}
	vw_storage_done(&s);
}

/* ---- network -------------------------------------------------------------- */

struct route {
	char iface[32];
	int plen;		/* prefix length */
	unsigned long metric;
};

/* The PCI functions below interface name (through lower_* links), each
 * with the chain of names that led there. */
static void iface_pci(const struct vw_sysroot *sr, const char *name, const char *chain, int depth,
		      void (*fn)(void *, const char *pci, const char *chain), void *arg)
{
	char *rel, *real, **names = NULL, *ch;
	char pci[16];
	int n;

	if (depth > LOWER_DEPTH || !*name || strchr(name, '/') || !strcmp(name, "..") || !strcmp(name, "."))
		return;
	ch = *chain ? vw_xasprintf("%s: %s", chain, name) : vw_xstrdup(name);
	rel = vw_xasprintf("sys/class/net/%s/device", name);
	real = vw_sysroot_realpath(sr, rel);
	free(rel);
	last_pci(real, pci);
	free(real);
	if (*pci) {
		fn(arg, pci, ch);
		free(ch);
		return;
	}
	rel = vw_xasprintf("sys/class/net/%s", name);
	n = vw_sysroot_list(sr, rel, &names);
	free(rel);
	for (int i = 0; i < n; i++)
		if (vw_startswith(names[i], "lower_"))
			iface_pci(sr, names[i] + 6, ch, depth + 1, fn, arg);
	vw_strv_free(names);
	free(ch);
}

struct net_arg {
	struct vw_facts *f;
	struct roles *r;
	bool ssh;
};

static void net_found(void *arg, const char *pci, const char *chain)
{
	struct net_arg *a = arg;
	int k = vw_facts_find_dev(a->f, pci);

	if (k < 0)
		return;
	a->r->role[k] |= VW_HOST_NETWORK;
	if (!a->r->net_if[k])
		a->r->net_if[k] = printable(chain);
	if (a->ssh)
		a->r->net_ssh[k] = true;
	else
		a->r->net_default[k] = true;
}

static void add_route(struct route **v, size_t *n, const char *iface, int plen, unsigned long metric)
{
	struct route *x;

	*v = vw_xreallocarray(*v, *n + 1, sizeof(**v));
	x = &(*v)[(*n)++];
	snprintf(x->iface, sizeof(x->iface), "%s", iface);
	x->plen = plen;
	x->metric = metric;
}

static int popcount32(unsigned long m)
{
	int c = 0;

	for (; m; m &= m - 1)
		c++;
	return c;
}

/* IPv4 routes: the default ones (dst NULL), or those that hold dst. */
static void routes4(const struct vw_sysroot *sr, const unsigned char *dst, struct route **v, size_t *n)
{
	char *buf = NULL, *save = NULL;
	uint32_t want = 0;

	if (dst)
		memcpy(&want, dst, 4);	/* the table prints addresses as native words */
	if (vw_sysroot_read(sr, "proc/net/route", &buf, NULL, TABLE_MAX, NULL) < 0)
		return;
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char iface[32];
		unsigned long d, g, flags, refcnt, use, metric, mask;

		if (sscanf(l, "%31s %lx %lx %lx %lu %lu %lu %lx", iface, &d, &g, &flags, &refcnt, &use,
			   &metric, &mask) != 8 || !(flags & 1) || !strcmp(iface, "lo"))
			continue;
		if (dst ? ((want & mask) != (d & mask)) : (d || mask))
			continue;
		add_route(v, n, iface, popcount32(mask), metric);
	}
	free(buf);
}

static bool hex16(const char *s, unsigned char out[16])
{
	for (int i = 0; i < 16; i++) {
		unsigned v;

		if (!isxdigit((unsigned char)s[2 * i]) || !isxdigit((unsigned char)s[2 * i + 1]) ||
		    sscanf(s + 2 * i, "%2x", &v) != 1)
			return false;
		out[i] = (unsigned char)v;
	}
	return true;
}

static bool prefix_has(const unsigned char *net, int plen, const unsigned char *a)
{
	for (int b = 0; b < plen && b < 128; b++) {
		int m = 0x80 >> (b % 8);

		if ((net[b / 8] & m) != (a[b / 8] & m))
			return false;
	}
	return true;
}

/* IPv6 routes, like routes4. */
static void routes6(const struct vw_sysroot *sr, const unsigned char *dst, struct route **v, size_t *n)
{
	char *buf = NULL, *save = NULL;

	if (vw_sysroot_read(sr, "proc/net/ipv6_route", &buf, NULL, TABLE_MAX, NULL) < 0)
		return;
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char d[33], src[33], hop[33], iface[32];
		unsigned plen, splen;
		unsigned long metric, refcnt, use, flags;
		unsigned char net[16];

		if (sscanf(l, "%32s %x %32s %x %32s %lx %lx %lx %lx %31s", d, &plen, src, &splen, hop,
			   &metric, &refcnt, &use, &flags, iface) != 10 || !hex16(d, net) || plen > 128 ||
		    !(flags & 1) || (flags & 0x200) || !strcmp(iface, "lo"))
			continue;
		if (dst ? !prefix_has(net, (int)plen, dst) : plen != 0)
			continue;
		add_route(v, n, iface, (int)plen, metric);
	}
	free(buf);
}

/* The interfaces of the best routes: longest prefix, then lowest metric
 * (every one that ties: ECMP). */
static void best_routes(const struct vw_sysroot *sr, const struct route *v, size_t n,
			struct net_arg *a)
{
	int plen = -1;
	unsigned long metric = 0;

	for (size_t i = 0; i < n; i++)
		if (v[i].plen > plen || (v[i].plen == plen && v[i].metric < metric)) {
			plen = v[i].plen;
			metric = v[i].metric;
		}
	for (size_t i = 0; i < n; i++)
		if (v[i].plen == plen && v[i].metric == metric)
			iface_pci(sr, v[i].iface, "", 0, net_found, a);
}

char *vw_ssh_connection_of(const struct vw_sysroot *sr, long pid)
{
	static const char key[] = "SSH_CONNECTION=";

	for (int step = 0; step < 64 && pid > 1; step++) {
		char rel[64], *buf = NULL, *paren;
		size_t len = 0;
		long ppid = 0;

		snprintf(rel, sizeof(rel), "proc/%ld/environ", pid);
		if (vw_sysroot_read(sr, rel, &buf, &len, TABLE_MAX, NULL) == 0) {
			/* NUL-separated NAME=VALUE entries, the last maybe unterminated. */
			for (size_t i = 0; i < len; i += strnlen(buf + i, len - i) + 1) {
				size_t n = strnlen(buf + i, len - i);

				if (n > sizeof(key) - 1 && !memcmp(buf + i, key, sizeof(key) - 1)) {
					char *v = vw_xstrndup(buf + i + sizeof(key) - 1, n - (sizeof(key) - 1));

					free(buf);
					return v;
				}
			}
		}
		free(buf);
		/* "PID (COMM) STATE PPID ...": COMM may hold anything, ')' too. */
		snprintf(rel, sizeof(rel), "proc/%ld/stat", pid);
		if (vw_sysroot_read(sr, rel, &buf, NULL, 4096, NULL) < 0)
			return NULL;
		paren = strrchr(buf, ')');
		if (!paren || sscanf(paren + 1, " %*c %ld", &ppid) != 1 || ppid == pid) {
			free(buf);
			return NULL;
		}
		free(buf);
		pid = ppid;
	}
	return NULL;
}

/* The SSH session: its own options', the recorded one, the environment,
 * or that of the process that started us (sudo drops it). */
static char *ssh_connection(const struct vw_sysroot *sr, const struct vw_facts_opts *o)
{
	const char *env;

	if (o && o->ssh_connection)
		return vw_xstrdup(o->ssh_connection);
	if (!vw_sysroot_is_host(sr))
		return vw_sysroot_read_line(sr, VW_SSH_FILE);
	env = getenv("SSH_CONNECTION");
	return env ? vw_xstrdup(env) : vw_ssh_connection_of(sr, (long)getppid());
}

static void probe_network(struct vw_facts *f, const struct vw_sysroot *sr, const char *ssh,
			  struct roles *r)
{
	struct net_arg a = { .f = f, .r = r };
	struct route *v = NULL;
	size_t n = 0;

	routes4(sr, NULL, &v, &n);
	best_routes(sr, v, n, &a);
	n = 0;
	routes6(sr, NULL, &v, &n);
	best_routes(sr, v, n, &a);
	n = 0;
	if (ssh && *ssh) {
		char client[64];
		unsigned char ip[16];

		a.ssh = true;
		/* A client on this host (a tunnel) reaches no NIC. */
		if (sscanf(ssh, "%63s", client) == 1 && !vw_startswith(client, "127.") &&
		    strcmp(client, "::1") && !vw_startswith(client, "::ffff:127.")) {
			if (inet_pton(AF_INET, client, ip) == 1) {
				routes4(sr, ip, &v, &n);
			} else if (inet_pton(AF_INET6, client, ip) == 1) {
				static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };

				if (!memcmp(ip, mapped, 12))
					routes4(sr, ip + 12, &v, &n);
				else
					routes6(sr, ip, &v, &n);
			}
		}
		best_routes(sr, v, n, &a);
	}
	free(v);
}

/* ---- input ---------------------------------------------------------------- */

static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || isspace((unsigned char)p[-1])) && (!p[n] || isspace((unsigned char)p[n])))
			return true;
	return false;
}

static void probe_input(struct vw_facts *f, const struct vw_sysroot *sr, struct roles *r)
{
	char *buf = NULL, *save = NULL;
	char name[128] = "", sysfs[512] = "", handlers[256] = "";
	unsigned long ev = 0;
	int only = -1;
	bool several = false;
	struct vw_buf names = VW_BUF_INIT;

	if (vw_sysroot_read(sr, "proc/bus/input/devices", &buf, NULL, TABLE_MAX, NULL) < 0)
		return;
	/* Blocks of "X: ..." lines; an "I:" line starts each. */
	for (char *l = strtok_r(buf, "\n", &save);; l = strtok_r(NULL, "\n", &save)) {
		if (!l || vw_startswith(l, "I:")) {
			char pci[16];
			int k;

			last_pci(sysfs, pci);
			/* EV_KEY and EV_REP: a keyboard, not a power button. */
			if (has_word(handlers, "kbd") && (ev & 0x100002) == 0x100002 && *pci &&
			    !vw_startswith(sysfs, "/devices/virtual/") && (k = vw_facts_find_dev(f, pci)) >= 0) {
				if (only >= 0 && only != k)
					several = true;
				only = k;
				if (!strstr(names.data ? names.data : "", name))
					vw_buf_printf(&names, "%s%s", names.len ? ", " : "", name);
			}
			name[0] = sysfs[0] = handlers[0] = '\0';
			ev = 0;
			if (!l)
				break;
			continue;
		}
		if (vw_startswith(l, "N: Name=")) {
			char *p = printable(l + 8);
			size_t n = strlen(p);

			if (n >= 2 && p[0] == '"' && p[n - 1] == '"')
				snprintf(name, sizeof(name), "%.*s", (int)(n - 2), p + 1);
			else
				snprintf(name, sizeof(name), "%s", p);
			free(p);
		} else if (vw_startswith(l, "S: Sysfs=")) {
			snprintf(sysfs, sizeof(sysfs), "%s", l + 9);
		} else if (vw_startswith(l, "H: Handlers=")) {
			snprintf(handlers, sizeof(handlers), "%s", l + 12);
		} else if (vw_startswith(l, "B: EV=")) {
			ev = strtoul(l + 6, NULL, 16);
		}
	}
	free(buf);
	if (only >= 0 && !several) {
		r->role[only] |= VW_HOST_INPUT;
		vw_buf_adds(&r->input[only], names.data);
	}
	vw_buf_done(&names);
}

/* ---- putting it together ---------------------------------------------------- */

void vw_probe_host_roles(struct vw_facts *f, const struct vw_sysroot *sr,
			 const struct vw_facts_opts *o)
{
	size_t n = f->ndevs ? f->ndevs : 1;
	struct roles r = {
		.role = vw_xcalloc(n, sizeof(unsigned)),
		.storage = vw_xcalloc(n, sizeof(struct vw_buf)),
		.net_if = vw_xcalloc(n, sizeof(char *)),
		.net_default = vw_xcalloc(n, sizeof(bool)),
		.net_ssh = vw_xcalloc(n, sizeof(bool)),
		.input = vw_xcalloc(n, sizeof(struct vw_buf)),
	};
	char *ssh = ssh_connection(sr, o);

	f->over_ssh = ssh && *ssh;
	probe_storage(f, sr, &r);
	probe_network(f, sr, ssh, &r);
	if (!f->over_ssh)
		probe_input(f, sr, &r);
	for (size_t i = 0; i < f->ndevs; i++) {
		struct vw_pci_dev *d = &f->devs[i];
		struct vw_buf why = VW_BUF_INIT;

		d->host_role = r.role[i];
		if (r.storage[i].len)
			vw_buf_adds(&why, r.storage[i].data);
		if (r.net_if[i]) {
			if (why.len)
				vw_buf_adds(&why, "; ");
			if (r.net_default[i] && r.net_ssh[i])
				vw_buf_printf(&why, _("the default route and this SSH session (%s)"), r.net_if[i]);
			else if (r.net_ssh[i])
				vw_buf_printf(&why, _("this SSH session (%s)"), r.net_if[i]);
			else
				vw_buf_printf(&why, _("the default route (%s)"), r.net_if[i]);
		}
		if (r.input[i].len) {
			if (why.len)
				vw_buf_adds(&why, "; ");
			vw_buf_printf(&why, _("the keyboard %s"), r.input[i].data);
		}
		free(d->host_role_why);
		d->host_role_why = why.len ? vw_buf_steal(&why) : vw_xstrdup("");
		vw_buf_done(&why);
		vw_buf_done(&r.storage[i]);
		vw_buf_done(&r.input[i]);
		free(r.net_if[i]);
	}
	free(r.role);
	free(r.storage);
	free(r.net_if);
	free(r.net_default);
	free(r.net_ssh);
	free(r.input);
	if (f->over_ssh)
		f->ssh_connection = ssh;
	else
		free(ssh);
}

const char *vw_host_role_names(unsigned role, char *buf, size_t size)
{
	static const char *const names[] = { "storage", "network", "input" };
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	for (unsigned i = 0; i < VW_ARRAY_SIZE(names) && size; i++)
		if (role & (1u << i)) {
			int w = snprintf(buf + len, size - len, "%s%s", len ? "," : "", names[i]);

			if (w < 0 || (size_t)w >= size - len) {
				buf[len] = '\0';	/* whole names only */
				break;
			}
			len += (size_t)w;
		}
	return buf;
}
