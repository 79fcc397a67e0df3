/* SPDX-License-Identifier: GPL-2.0-or-later */
/* redact.c - consistent replacement of identifiers in text.
 *
 * One pass over the bytes: at each word start (the byte before is not a
 * letter or digit) the rules are tried in a fixed order; what matches is
 * replaced by the placeholder already given to that value, or a new one. */
#define _GNU_SOURCE
#include "redact.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct map_ent {
	char *orig;		/* normalised: lower case, ':' for MACs */
	char *repl;
};

struct map {
	struct map_ent *v;
	size_t n;
};

struct name {
	char *word;
	enum vw_redact_kind kind;
	char *repl;
};

struct vw_redact {
	struct map maps[VW_RED_NKINDS];
	size_t secrets;
	size_t ndomains;
	size_t floor[VW_RED_NKINDS];	/* highest placeholder number seen */
	struct name *names;
	size_t nnames;
	char **protect;
	size_t nprotect;
};

/* GUIDs that name things, not machines: keep them. */
static const char *const known_guids[] = {
	"00000000-0000-0000-0000-000000000000",
	"8be4df61-93ca-11d2-aa0d-00e098032b8c",	/* EFI global variables */
	"4a67b082-0a4c-41cf-b6c7-440b29bb8c4f",	/* systemd-boot loader interface */
	"605dab50-e046-4300-abb6-3dd810dd8b23",	/* shim */
	"d719b2cb-3d3a-4596-a3bc-dad00e67656f",	/* EFI image security database */
	"c12a7328-f81f-11d2-ba4b-00a0c93ec93b",	/* GPT: EFI system partition */
	"bc13c2ff-59e6-4262-a352-b275fd6f7172",	/* GPT: extended boot loader */
	"0fc63daf-8483-4772-8e79-3d69d8477de4",	/* GPT: Linux file system */
	"4f68bce3-e8cd-4db1-96e7-fbcaf984b709",	/* GPT: Linux root, x86-64 */
	"0657fd6d-a4ab-43c4-84e5-0933c84b4f4f",	/* GPT: Linux swap */
	"e6d6d379-f507-44c2-a23c-238f2a3df928",	/* GPT: Linux LVM */
	"a19d880f-05fc-4d3b-a006-743f0f84911e",	/* GPT: Linux RAID */
	"21686148-6449-6e6f-744e-656564454649",	/* GPT: BIOS boot */
};

/* Values that say nothing about anyone. */
static const char *const empty_values[] = {
	"N/A", "[N/A]", "None", "none", "0", "Not Specified", "To Be Filled By O.E.M.",
	"Default string", "Unknown", "unknown", "(null)",
};

struct vw_redact *vw_redact_new(void)
{
	return vw_xcalloc(1, sizeof(struct vw_redact));
}

void vw_redact_free(struct vw_redact *r)
{
	if (!r)
		return;
	for (size_t k = 0; k < VW_RED_NKINDS; k++) {
		for (size_t i = 0; i < r->maps[k].n; i++) {
			free(r->maps[k].v[i].orig);
			free(r->maps[k].v[i].repl);
		}
		free(r->maps[k].v);
	}
	for (size_t i = 0; i < r->nnames; i++) {
		free(r->names[i].word);
		free(r->names[i].repl);
	}
	free(r->names);
	for (size_t i = 0; i < r->nprotect; i++)
		free(r->protect[i]);
	free(r->protect);
	free(r);
}

static bool is_alnum(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A word starts at i: after a byte that is not a letter or digit, or after
 * a URL escape ("%20alice%40host" in Proxmox's sshkeys). */
static bool word_start(const char *in, size_t i)
{
	return !i || !is_alnum((unsigned char)in[i - 1]) ||
	       (i >= 3 && in[i - 3] == '%' && is_hex((unsigned char)in[i - 2]) && is_hex((unsigned char)in[i - 1]));
}

/* One of our own placeholders ("host2", "user1", "SERIAL3",
 * "domain1.example", "host1.domain1.example"): a replayed snapshot, redacted
 * again, must come out the same, so they are kept as they are, and new
 * placeholders are numbered after them (r->floor). */
static bool placeholder(struct vw_redact *r, const char *name, size_t nlen)
{
	static const struct { const char *stem; int kind; } stems[] = {
		{ "host", VW_RED_HOST }, { "user", VW_RED_USER }, { "SERIAL", VW_RED_SERIAL },
		{ "domain", VW_RED_NKINDS },
	};
	size_t nums[VW_ARRAY_SIZE(stems)] = { 0 };
	const char *end = name + nlen;

	for (const char *part = name; part < end;) {
		const char *dot = memchr(part, '.', (size_t)(end - part));
		size_t len = (size_t)((dot ? dot : end) - part), k;
		bool ok = false;

		ok = len == 7 && !strncmp(part, "example", 7) && part != name;
		for (size_t i = 0; !ok && i < VW_ARRAY_SIZE(stems); i++) {
			k = strlen(stems[i].stem);
			if (len > k && len - k < 10 && !strncmp(part, stems[i].stem, k)) {
				size_t d = k;

				while (d < len && part[d] >= '0' && part[d] <= '9')
					d++;
				if (d == len) {
					ok = true;
					nums[i] = (size_t)strtoul(part + k, NULL, 10);
				}
			}
		}
		if (!ok)
			return false;
		part += len + 1;
	}
	for (size_t i = 0; i < VW_ARRAY_SIZE(stems); i++) {
		size_t *f = stems[i].kind == VW_RED_NKINDS ? &r->ndomains : &r->floor[stems[i].kind];

		if (nums[i] > *f)
			*f = nums[i];
	}
	return true;
}

/* The number of the next placeholder of kind. */
static size_t next_num(struct vw_redact *r, enum vw_redact_kind kind)
{
	size_t v = (r->maps[kind].n > r->floor[kind] ? r->maps[kind].n : r->floor[kind]) + 1;

	r->floor[kind] = v;
	return v;
}

/* Placeholder already given to orig, or NULL. */
static const char *map_find(const struct map *m, const char *orig)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->v[i].orig, orig))
			return m->v[i].repl;
	return NULL;
}

static const char *map_put(struct map *m, const char *orig, char *repl)
{
	m->v = vw_xreallocarray(m->v, m->n + 1, sizeof(*m->v));
	m->v[m->n].orig = vw_xstrdup(orig);
	m->v[m->n].repl = repl;
	return m->v[m->n++].repl;
}

static char *lower(const char *s, size_t n)
{
	char *l = vw_xstrndup(s, n);

	for (char *p = l; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return l;
}

/* Same shape as orig: hex digits become '0', the counter's decimal digits
 * fill the last ones ("ABCD-1234", 3 -> "0000-0003"). */
static char *shape(const char *orig, size_t n)
{
	char *s = vw_xstrdup(orig), num[32];
	size_t k = (size_t)snprintf(num, sizeof(num), "%zu", n);
	size_t len = strlen(s);

	for (size_t i = 0; i < len; i++)
		if (is_hex((unsigned char)s[i]))
			s[i] = '0';
	for (size_t i = len; i-- > 0 && k;)
		if (s[i] == '0')
			s[i] = num[--k];
	return s;
}

static const char *id_repl(struct vw_redact *r, const char *p, size_t n)
{
	struct map *m = &r->maps[VW_RED_UUID];
	char *key = lower(p, n);
	const char *rep = map_find(m, key);

	if (!rep)
		rep = map_put(m, key, shape(key, m->n + 1));
	free(key);
	return rep;
}

static bool uuid_at(const char *p, size_t left)
{
	if (left < 36)
		return false;
	for (size_t i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? p[i] != '-' : !is_hex((unsigned char)p[i]))
			return false;
	}
	return left == 36 || (!is_alnum((unsigned char)p[36]) && p[36] != '-');
}

static bool known_guid(const char *p)
{
	for (size_t i = 0; i < VW_ARRAY_SIZE(known_guids); i++)
		if (!strncasecmp(p, known_guids[i], 36))
			return true;
	return false;
}

/* "aa:bb:cc:dd:ee:ff" or with '-'; returns the separator or 0. */
static char mac_at(const char *p, size_t left)
{
	char sep;

	if (left < 17)
		return 0;
	sep = p[2];
	if (sep != ':' && sep != '-')
		return 0;
	for (size_t i = 0; i < 17; i++) {
		if (i % 3 == 2 ? p[i] != sep : !is_hex((unsigned char)p[i]))
			return 0;
	}
	if (left > 17 && (is_alnum((unsigned char)p[17]) || p[17] == ':' || p[17] == '-'))
		return 0;
	return sep;
}

/* The placeholder of the MAC at p written into out (18 bytes, with the
 * original's separator); false for all-zero and broadcast, kept. */
static bool mac_repl(struct vw_redact *r, const char *p, char sep, char out[18])
{
	struct map *m = &r->maps[VW_RED_MAC];
	char key[18];
	const char *rep;

	for (size_t i = 0; i < 17; i++)
		key[i] = i % 3 == 2 ? ':' : (char)tolower((unsigned char)p[i]);
	key[17] = '\0';
	if (!strcmp(key, "00:00:00:00:00:00") || !strcmp(key, "ff:ff:ff:ff:ff:ff"))
		return false;
	rep = map_find(m, key);
	if (!rep) {
		size_t n = m->n + 1;
		rep = map_put(m, key, vw_xasprintf("02:00:00:00:%02zx:%02zx", (n >> 8) & 0xff, n & 0xff));
	}
	memcpy(out, rep, 18);
	for (size_t i = 2; i < 17; i += 3)
		out[i] = sep;
	return true;
}

/* Dotted quad: returns its length, 0 when not one; *v gets the octets. */
static size_t ipv4_at(const char *p, size_t left, unsigned v[4])
{
	size_t i = 0;

	for (int o = 0; o < 4; o++) {
		size_t start = i;
		unsigned val = 0;

		if (o) {
			if (i >= left || p[i] != '.')
				return 0;
			i++;
			start = i;
		}
		while (i < left && i - start < 4 && p[i] >= '0' && p[i] <= '9')
			val = val * 10 + (unsigned)(p[i++] - '0');
		if (i == start || i - start > 3 || val > 255 || (p[start] == '0' && i - start > 1))
			return 0;
		v[o] = val;
	}
	if (i < left && (is_alnum((unsigned char)p[i]) ||
			 (p[i] == '.' && i + 1 < left && is_alnum((unsigned char)p[i + 1]))))
		return 0;
	return i;
}

static const char *ipv4_repl(struct vw_redact *r, const char *p, size_t n, const unsigned v[4])
{
	struct map *m = &r->maps[VW_RED_IPV4];
	char *key;
	const char *rep;

	if (v[0] == 127 || v[0] == 255 || (!v[0] && !v[1] && !v[2] && !v[3]))
		return NULL;
	key = vw_xstrndup(p, n);
	rep = map_find(m, key);
	if (!rep) {
		size_t k = m->n + 1;
		char *s;

		if (k <= 254)
			s = vw_xasprintf("192.0.2.%zu", k);
		else if (k <= 508)
			s = vw_xasprintf("198.51.100.%zu", k - 254);
		else if (k <= 762)
			s = vw_xasprintf("203.0.113.%zu", k - 508);
		else
			s = vw_xasprintf("10.255.%zu.%zu", (k >> 8) & 0xff, k & 0xff);
		rep = map_put(m, key, s);
	}
	free(key);
	return rep;
}

/* An IPv6 address: returns its length or 0. */
static size_t ipv6_at(const char *p, size_t left)
{
	size_t n = 0, groups = 0, glen = 0;
	bool dbl = false;

	while (n < left && n < 40 && (is_hex((unsigned char)p[n]) || p[n] == ':'))
		n++;
	if (n < 3 || n >= 40 || (n < left && (is_alnum((unsigned char)p[n]) || p[n] == '.' || p[n] == ':')))
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] != ':') {
			if (++glen > 4)
				return 0;
			continue;
		}
		if (glen)
			groups++;
		if (i + 1 < n && p[i + 1] == ':') {
			if (dbl)
				return 0;
			dbl = true;
			i++;
		} else if (!glen || i + 1 == n) {
			return 0;	/* a lone ':' at an end */
		}
		glen = 0;
	}
	if (glen)
		groups++;
	if (dbl ? groups > 7 : groups != 8)
		return 0;
	return n;
}

static const char *ipv6_repl(struct vw_redact *r, const char *p, size_t n)
{
	struct map *m = &r->maps[VW_RED_IPV6];
	char *key = lower(p, n);
	const char *rep = NULL;

	if (strcmp(key, "::") && strcmp(key, "::1")) {
		rep = map_find(m, key);
		if (!rep)
			rep = map_put(m, key, vw_xasprintf("2001:db8::%zx", m->n + 1));
	}
	free(key);
	return rep;
}

static const char *serial_repl(struct vw_redact *r, const char *p, size_t n)
{
	struct map *m = &r->maps[VW_RED_SERIAL];
	char *key = vw_xstrndup(p, n);
	const char *rep = map_find(m, key);

	if (!rep && placeholder(r, key, strlen(key)))	/* key stops at a NUL */
		rep = map_put(m, key, vw_xstrdup(key));
	if (!rep)
		rep = map_put(m, key, vw_xasprintf("SERIAL%zu", next_num(r, VW_RED_SERIAL)));
	free(key);
	return rep;
}

static bool says_nothing(const char *p, size_t n)
{
	if (!n)
		return true;
	for (size_t i = 0; i < VW_ARRAY_SIZE(empty_values); i++)
		if (strlen(empty_values[i]) == n && !strncmp(p, empty_values[i], n))
			return true;
	return false;
}

enum keyclass { KEY_NONE, KEY_SERIAL, KEY_SECRET };

static enum keyclass classify_key(const char *k, size_t n)
{
	char flat[64];
	size_t m = 0;

	if (n >= sizeof(flat))
		return KEY_NONE;
	for (size_t i = 0; i < n; i++)
		if (is_alnum((unsigned char)k[i]))
			flat[m++] = (char)tolower((unsigned char)k[i]);
	flat[m] = '\0';
	/* sshkeys: Proxmox's URL-encoded public keys, "user%40host" comments. */
	if (strstr(flat, "passw") || strstr(flat, "secret") || strstr(flat, "token") ||
	    strstr(flat, "passphrase") || !strcmp(flat, "sshkeys"))
		return KEY_SECRET;
	static const char *const ends[] = { "serial", "serialnumber", "serialno", "serialnum" };
	for (size_t i = 0; i < VW_ARRAY_SIZE(ends); i++) {
		size_t e = strlen(ends[i]);
		if (m >= e && !strcmp(flat + m - e, ends[i]))
			return KEY_SERIAL;
	}
	return KEY_NONE;
}

/* "key = value", "Key Name : value", key='value': at p (a word start).
 * On a match, *vstart and *vlen locate the value and the class is returned. */
static enum keyclass keyval_at(const char *p, size_t left, size_t *vstart, size_t *vlen)
{
	size_t i = 0, klen, j;
	enum keyclass kc;
	char sep;

	/* The key: words of [A-Za-z0-9_.-] joined by single blanks. */
	while (i < left && i < 60) {
		unsigned char c = (unsigned char)p[i];

		if (is_alnum(c) || c == '_' || c == '.' || c == '-')
			i++;
		else if (c == ' ' && i + 1 < left && is_alnum((unsigned char)p[i + 1]))
			i++;
		else
			break;
	}
	klen = i;
	if (!klen || klen >= 60)
		return KEY_NONE;
	j = klen;
	while (j < left && (p[j] == ' ' || p[j] == '\t'))
		j++;
	if (j >= left || (p[j] != '=' && p[j] != ':'))
		return KEY_NONE;
	sep = p[j];
	/* "a b = c" is not a key: only "Key Name : value" has blanks. */
	if (sep == '=' && memchr(p, ' ', klen))
		return KEY_NONE;
	kc = classify_key(p, klen);
	if (kc == KEY_NONE)
		return KEY_NONE;
	j++;
	while (j < left && (p[j] == ' ' || p[j] == '\t'))
		j++;
	if (j < left && (p[j] == '"' || p[j] == '\'')) {
		const char *q = memchr(p + j + 1, p[j], left - j - 1);
		const char *nl = memchr(p + j + 1, '\n', left - j - 1);

		if (!q || (nl && nl < q))
			return KEY_NONE;
		*vstart = j + 1;
		*vlen = (size_t)(q - (p + j + 1));
	} else {
		size_t e = j;

		if (sep == ':') {
			while (e < left && p[e] != '\n' && p[e] != '\r')
				e++;
			while (e > j && (p[e - 1] == ' ' || p[e - 1] == '\t'))
				e--;
		} else {
			while (e < left && !isspace((unsigned char)p[e]) && p[e] != '"' && p[e] != '\'' &&
			       p[e] != '>' && p[e] != ',' && p[e] != ';' && p[e] != '&')
				e++;
		}
		*vstart = j;
		*vlen = e - j;
	}
	if (says_nothing(p + *vstart, *vlen))
		return KEY_NONE;
	return kc;
}

static bool protected_word(const struct vw_redact *r, const char *w)
{
	static const char *const generic[] = {
		"localhost", "localdomain", "root", "admin", "user", "debian", "ubuntu", "fedora",
		"arch", "archlinux", "linux", "proxmox", "pve", "host", "server", "node", "default",
		"gpu", "vfio", "nvidia", "amd", "intel", "pci", "kvm", "qemu", "libvirt", "none",
		"home", "boot", "efi", "grub", "test", "data", "nobody", "daemon", "guest",
	};

	for (size_t i = 0; i < VW_ARRAY_SIZE(generic); i++)
		if (!strcasecmp(w, generic[i]))
			return true;
	for (size_t i = 0; i < r->nprotect; i++)
		if (!strcasecmp(w, r->protect[i]))
			return true;
	return false;
}

void vw_redact_protect(struct vw_redact *r, const char *word)
{
	if (!word || !*word || protected_word(r, word))
		return;
	r->protect = vw_xreallocarray(r->protect, r->nprotect + 1, sizeof(*r->protect));
	r->protect[r->nprotect++] = vw_xstrdup(word);
}

static void add_word(struct vw_redact *r, char *word, enum vw_redact_kind kind, const char *rep)
{
	r->names = vw_xreallocarray(r->names, r->nnames + 1, sizeof(*r->names));
	r->names[r->nnames].word = word;
	r->names[r->nnames].kind = kind;
	r->names[r->nnames].repl = vw_xstrdup(rep);
	r->nnames++;
	/* Longest first, so that an FQDN wins over its short name. */
	for (size_t i = r->nnames - 1; i > 0 && strlen(r->names[i].word) > strlen(r->names[i - 1].word); i--) {
		struct name t = r->names[i];
		r->names[i] = r->names[i - 1];
		r->names[i - 1] = t;
	}
}

/* The placeholder of a DNS domain ("domain1.example", a reserved name),
 * registered as a word the first time; NULL for a protected one. */
static const char *domain_repl(struct vw_redact *r, const char *dom)
{
	struct map *m = &r->maps[VW_RED_HOST];
	const char *rep = map_find(m, dom);

	if (rep || protected_word(r, dom))
		return rep;
	rep = map_put(m, dom, vw_xasprintf("domain%zu.example", ++r->ndomains));
	add_word(r, vw_xstrdup(dom), VW_RED_HOST, rep);
	return rep;
}

bool vw_redact_add_name(struct vw_redact *r, enum vw_redact_kind kind, const char *name)
{
	struct map *m;
	size_t n = name ? strlen(name) : 0;
	char *key;
	const char *rep;

	if ((kind != VW_RED_HOST && kind != VW_RED_USER && kind != VW_RED_SERIAL) || n < 3 || n > 253)
		return false;
	if (kind == VW_RED_SERIAL && says_nothing(name, n))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_alnum((unsigned char)name[i]) && !strchr("-_.", name[i]))
			return false;
	if (!is_alnum((unsigned char)name[0]) || !is_alnum((unsigned char)name[n - 1]))
		return false;
	if (protected_word(r, name) || placeholder(r, name, n))
		return false;
	for (size_t i = 0; i < r->nnames; i++)
		if (!strcasecmp(r->names[i].word, name))
			return false;
	/* A host's short name and its FQDN share one number; the domain
	 * (two labels or more: "lan" says nothing) gets its own, so that
	 * "laptop.corp.example.com" elsewhere loses it too. */
	m = &r->maps[kind];
	key = kind == VW_RED_HOST ? lower(name, n) : vw_xstrdup(name);
	rep = kind == VW_RED_SERIAL ? map_find(m, key) : NULL;
	if (kind == VW_RED_HOST) {
		const char *dot = strchr(key, '.');
		char *shortname = dot ? vw_xstrndup(key, (size_t)(dot - key)) : NULL;
		const char *base = shortname ? map_find(m, shortname) : NULL;
		const char *dom = dot && strchr(dot + 1, '.') ? domain_repl(r, dot + 1) : NULL;

		if (!base && shortname && vw_redact_add_name(r, VW_RED_HOST, shortname))
			base = map_find(m, shortname);
		if (base)
			rep = map_put(m, key, vw_xasprintf("%s%s%s", base, dom ? "." : "", dom ? dom : dot));
		free(shortname);
	}
	if (!rep)
		rep = map_put(m, key, vw_xasprintf("%s%zu", kind == VW_RED_HOST ? "host" :
						   kind == VW_RED_USER ? "user" : "SERIAL", next_num(r, kind)));
	add_word(r, key, kind, rep);
	return true;
}

/* A known name as a whole word at p: returns the index or -1. */
static int name_at(const struct vw_redact *r, const char *p, size_t left)
{
	for (size_t i = 0; i < r->nnames; i++) {
		const struct name *nm = &r->names[i];
		size_t n = strlen(nm->word);

		if (n > left)
			continue;
		/* User names too regardless of case: "Alice" in a path says
		 * as much as "alice". */
		if (strncasecmp(p, nm->word, n))
			continue;
		if (n < left && is_alnum((unsigned char)p[n]))
			continue;
		return (int)i;
	}
	return -1;
}

/* Copy n bytes, replacing only the known names (the key of a key = value
 * pair: "alice_password" must not keep "alice"). */
static void copy_names(const struct vw_redact *r, const char *p, size_t n, struct vw_buf *out,
		       size_t *nrep)
{
	for (size_t i = 0; i < n;) {
		int ni = word_start(p, i) ? name_at(r, p + i, n - i) : -1;

		if (ni >= 0) {
			vw_buf_adds(out, r->names[ni].repl);
			i += strlen(r->names[ni].word);
			++*nrep;
		} else {
			vw_buf_addc(out, p[i++]);
		}
	}
}

/* Length of "<entry name='serial'>" (or "asset", "sku", either quote) at
 * p, or 0. */
static size_t smbios_entry_at(const char *p, size_t left)
{
	static const char *const keys[] = { "serial", "asset", "sku" };
	char q = p[12];

	if (q != '\'' && q != '"')
		return 0;
	for (size_t i = 0; i < VW_ARRAY_SIZE(keys); i++) {
		size_t k = strlen(keys[i]);

		if (left > 15 + k && !strncmp(p + 13, keys[i], k) && p[13 + k] == q && p[14 + k] == '>')
			return 15 + k;
	}
	return 0;
}

/* One rule at a word start; returns the bytes consumed (0: none matched)
 * after appending their replacement to out. */
static size_t rules_at(struct vw_redact *r, const char *p, size_t left, char prev, struct vw_buf *out,
		       size_t *nrep)
{
	const char *rep;
	unsigned v4[4];
	size_t n, vs, vl;
	char sep, mac[18];
	int ni;
	enum keyclass kc;

	if (uuid_at(p, left)) {
		if (known_guid(p))
			return 0;
		vw_buf_adds(out, id_repl(r, p, 36));
		++*nrep;
		return 36;
	}
	if (prev != ':' && prev != '-' && (sep = mac_at(p, left)) && mac_repl(r, p, sep, mac)) {
		vw_buf_adds(out, mac);
		++*nrep;
		return 17;
	}
	if (left > 16 && !strncmp(p, "MAC(", 4)) {
		size_t i = 4;

		while (i < left && i < 17 && is_hex((unsigned char)p[i]))
			i++;
		if (i == 16 && (i == left || !is_hex((unsigned char)p[i]))) {
			char raw[18];

			for (size_t k = 0; k < 6; k++) {
				raw[k * 3] = p[4 + k * 2];
				raw[k * 3 + 1] = p[5 + k * 2];
				raw[k * 3 + 2] = ':';
			}
			raw[17] = '\0';
			if (mac_repl(r, raw, ':', mac)) {
				vw_buf_adds(out, "MAC(");
				for (size_t k = 0; k < 17; k++)
					if (mac[k] != ':')
						vw_buf_addc(out, mac[k]);
				++*nrep;
				return 16;
			}
		}
	}
	if (prev != '.' && (n = ipv4_at(p, left, v4))) {
		rep = ipv4_repl(r, p, n, v4);
		if (rep) {
			vw_buf_adds(out, rep);
			++*nrep;
		} else {
			vw_buf_add(out, p, n);
		}
		return n;
	}
	if (prev != ':' && prev != '.' && (n = ipv6_at(p, left))) {
		rep = ipv6_repl(r, p, n);
		if (rep) {
			vw_buf_adds(out, rep);
			++*nrep;
		} else {
			vw_buf_add(out, p, n);
		}
		return n;
	}
	if (left > 5 && (!strncmp(p, "UUID=", 5) || !strncmp(p, "uuid=", 5))) {
		size_t i = 5;

		while (i < left && (is_hex((unsigned char)p[i]) || p[i] == '-'))
			i++;
		if (i - 5 >= 4 && i - 5 != 36 && i - 5 <= 40 && (i == left || !is_alnum((unsigned char)p[i]))) {
			vw_buf_add(out, p, 5);
			vw_buf_adds(out, id_repl(r, p + 5, i - 5));
			++*nrep;
			return i;
		}
	}
	if (left > 8 && !strncmp(p, "<serial>", 8)) {
		const char *end = memchr(p + 8, '<', left - 8);

		if (end && !says_nothing(p + 8, (size_t)(end - p - 8)) && !memchr(p + 8, '\n', (size_t)(end - p - 8))) {
			vw_buf_adds(out, "<serial>");
			vw_buf_adds(out, serial_repl(r, p + 8, (size_t)(end - p - 8)));
			++*nrep;
			return (size_t)(end - p);
		}
	}
	/* libvirt's SMBIOS values: <entry name='serial'>, 'asset', 'sku'. */
	if (left > 12 && !strncmp(p, "<entry name=", 12) && (n = smbios_entry_at(p, left))) {
		const char *end = memchr(p + n, '<', left - n);

		if (end && !says_nothing(p + n, (size_t)(end - p) - n) && !memchr(p + n, '\n', (size_t)(end - p) - n)) {
			vw_buf_add(out, p, n);
			vw_buf_adds(out, serial_repl(r, p + n, (size_t)(end - p) - n));
			++*nrep;
			return (size_t)(end - p);
		}
	}
	if ((kc = keyval_at(p, left, &vs, &vl)) != KEY_NONE) {
		copy_names(r, p, vs, out, nrep);
		if (kc == KEY_SECRET) {
			vw_buf_adds(out, "REDACTED");
			r->secrets++;
		} else {
			vw_buf_adds(out, serial_repl(r, p + vs, vl));
		}
		++*nrep;
		return vs + vl;
	}
	if ((ni = name_at(r, p, left)) >= 0) {
		vw_buf_adds(out, r->names[ni].repl);
		++*nrep;
		return strlen(r->names[ni].word);
	}
	return 0;
}

char *vw_redact_text(struct vw_redact *r, const char *in, size_t len, size_t *outlen, size_t *nrep)
{
	struct vw_buf out = VW_BUF_INIT;
	size_t i = 0, reps = 0;

	vw_buf_adds(&out, "");
	while (i < len) {
		char prev = i ? in[i - 1] : '\0';

		if (word_start(in, i)) {
			size_t n = rules_at(r, in + i, len - i, prev, &out, &reps);

			if (n) {
				i += n;
				continue;
			}
		}
		/* Copy the rest of a word at once: rules start at word starts. */
		do
			vw_buf_addc(&out, in[i++]);
		while (i < len && is_alnum((unsigned char)in[i]) && !word_start(in, i));
	}
	if (outlen)
		*outlen = out.len;
	if (nrep)
		*nrep = reps;
	return vw_buf_steal(&out);
}

char *vw_redact_id_lines(struct vw_redact *r, const char *in, size_t len, size_t *outlen)
{
	struct vw_buf out = VW_BUF_INIT;
	size_t i = 0;

	vw_buf_adds(&out, "");
	while (i < len) {
		const char *nl = memchr(in + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - in) : len, w = i;
		char *rest;
		size_t rlen;

		while (w < end && (is_hex((unsigned char)in[w]) || in[w] == '-'))
			w++;
		if (w - i >= 4 && w - i <= 40 && (w == end || isspace((unsigned char)in[w]))) {
			vw_buf_adds(&out, id_repl(r, in + i, w - i));
			i = w;
		}
		rest = vw_redact_text(r, in + i, end - i, &rlen, NULL);
		vw_buf_add(&out, rest, rlen);
		free(rest);
		if (nl)
			vw_buf_addc(&out, '\n');
		i = end + (nl ? 1 : 0);
	}
	if (outlen)
		*outlen = out.len;
	return vw_buf_steal(&out);
}

size_t vw_redact_count(const struct vw_redact *r, enum vw_redact_kind kind)
{
	if (kind == VW_RED_SECRET)
		return r->secrets;
	return (unsigned)kind < VW_RED_NKINDS ? r->maps[kind].n : 0;
}

void vw_redact_summary(const struct vw_redact *r, struct vw_buf *out)
{
	size_t n;
	bool first = true;
#define PART(cond, ...) do { if (cond) { if (!first) vw_buf_adds(out, ", "); \
	vw_buf_printf(out, __VA_ARGS__); first = false; } } while (0)

	n = vw_redact_count(r, VW_RED_UUID);
	PART(n, ngettext("%zu UUID", "%zu UUIDs", n), n);
	n = vw_redact_count(r, VW_RED_MAC);
	PART(n, ngettext("%zu MAC address", "%zu MAC addresses", n), n);
	n = vw_redact_count(r, VW_RED_IPV4) + vw_redact_count(r, VW_RED_IPV6);
	PART(n, ngettext("%zu IP address", "%zu IP addresses", n), n);
	n = vw_redact_count(r, VW_RED_SERIAL);
	PART(n, ngettext("%zu serial number", "%zu serial numbers", n), n);
	n = vw_redact_count(r, VW_RED_SECRET);
	PART(n, ngettext("%zu secret", "%zu secrets", n), n);
	n = vw_redact_count(r, VW_RED_HOST);
	PART(n, ngettext("%zu host name", "%zu host names", n), n);
	n = vw_redact_count(r, VW_RED_USER);
	PART(n, ngettext("%zu user name", "%zu user names", n), n);
#undef PART
	if (first)
		vw_buf_adds(out, "");
}

void vw_redact_counts(const struct vw_redact *r, struct vw_buf *out)
{
	static const char *const names[VW_RED_NKINDS] = {
		[VW_RED_UUID] = "uuid", [VW_RED_MAC] = "mac", [VW_RED_IPV4] = "ipv4",
		[VW_RED_IPV6] = "ipv6", [VW_RED_SERIAL] = "serial", [VW_RED_SECRET] = "secret",
		[VW_RED_HOST] = "host", [VW_RED_USER] = "user",
	};

	for (size_t k = 0; k < VW_RED_NKINDS; k++)
		vw_buf_printf(out, "%s%s=%zu", k ? " " : "", names[k],
			      vw_redact_count(r, (enum vw_redact_kind)k));
}
