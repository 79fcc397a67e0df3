/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tarsafe.c - a tar writer, and a reader for hostile archives.
 *
 * Format: POSIX.1-2001 ustar blocks of 512 bytes; pax 'x' headers carry long
 * names (path, linkpath) and sizes; GNU 'L'/'K' long names are understood
 * since GNU tar writes them by default.  The reader checks every field
 * before it trusts it and creates nothing through a symbolic link. */
#define _GNU_SOURCE
#include "tarsafe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define BLOCK 512
#define CHUNK 65536
#define PAX_MAX (256u << 10)	/* bytes of one extended header */
#define META_RUN_MAX 8		/* extended headers in a row before an entry */

struct ustar {
	char name[100];
	char mode[8];
	char uid[8];
	char gid[8];
	char size[12];
	char mtime[12];
	char chksum[8];
	char typeflag;
	char linkname[100];
	char magic[6];
	char version[2];
	char uname[32];
	char gname[32];
	char devmajor[8];
	char devminor[8];
	char prefix[155];
	char pad[12];
};

_Static_assert(sizeof(struct ustar) == BLOCK, "ustar header is one block");

/* ---- names ------------------------------------------------------------ */

static bool bad_byte(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* Printable form of a hostile name for messages: control and non-ASCII
 * bytes as \xHH (a name must not drive the user's terminal), cut at 160. */
static char *show(const char *s)
{
	struct vw_buf b = VW_BUF_INIT;

	vw_buf_adds(&b, "");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (b.len > 160) {
			vw_buf_adds(&b, "...");
			break;
		}
		if (bad_byte(*p) || *p >= 0x80 || *p == '\\')
			vw_buf_printf(&b, "\\x%02x", *p);
		else
			vw_buf_addc(&b, (char)*p);
	}
	return vw_buf_steal(&b);
}

char *vw_tar_clean_name(const char *name, const char **why)
{
	struct vw_buf b = VW_BUF_INIT;
	const char *p = name, *reason = NULL;
	size_t len = strlen(name), depth = 0;

	if (!len)
		reason = N_("the name is empty");
	else if (name[0] == '/')
		reason = N_("the name is an absolute path");
	else if (len > VW_TAR_PATH_MAX)
		reason = N_("the name is too long");
	for (size_t i = 0; !reason && i < len; i++)
		if (bad_byte((unsigned char)name[i]))
			reason = N_("the name contains a control character");
	while (!reason && *p) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			reason = N_("the name contains '..'");
		else if (n > NAME_MAX)
			reason = N_("a component of the name is too long");
		else if (n && !(n == 1 && p[0] == '.') && ++depth > VW_TAR_DEPTH_MAX)
			reason = N_("the name is too deep (more than 64 nested folders)");
		else if (n && !(n == 1 && p[0] == '.')) {
			if (b.len)
				vw_buf_addc(&b, '/');
			vw_buf_add(&b, p, n);
		}
		p += n;
		while (*p == '/')
			p++;
	}
	if (reason) {
		vw_buf_done(&b);
		if (why)
			*why = reason;
		return NULL;
	}
	vw_buf_adds(&b, "");
	return vw_buf_steal(&b);
}

/* Why a link at clean path with this target would leave the tree, or NULL. */
static const char *link_problem(const char *path, const char *target)
{
	size_t depth = 0, up = 0, len = strlen(target);
	bool named = false;
	const char *p;

	if (!len)
		return N_("the link target is empty");
	if (len > VW_TAR_NAME_MAX)
		return N_("the link target is too long");
	for (size_t i = 0; i < len; i++)
		if (bad_byte((unsigned char)target[i]))
			return N_("the link target contains a control character");
	if (target[0] == '/')
		return N_("the link target is an absolute path");
	for (p = path; *p; p++)
		depth += *p == '/';
	for (p = target; *p;) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			/* After a name, ".." would step back out of whatever
			 * that name is, a link included: refuse. */
			if (named)
				return N_("the link target has '..' after a name");
			up++;
		} else if (n && !(n == 1 && p[0] == '.')) {
			if (n > NAME_MAX)
				return N_("a component of the link target is too long");
			named = true;
		}
		p += n;
		while (*p == '/')
			p++;
	}
	if (up > depth)
		return N_("the link points outside the snapshot");
	return NULL;
}

bool vw_tar_link_ok(const char *path, const char *target)
{
	char *clean = vw_tar_clean_name(path, NULL);
	bool ok = clean && *clean && !link_problem(clean, target);

	free(clean);
	return ok;
}

/* ---- input: plain or gzip, from a file or from memory ------------------ */

struct src {
	int fd;				/* -1: memory */
	const unsigned char *mem;
	size_t memlen, mempos;
	unsigned char *in;		/* CHUNK bytes */
	size_t inpos, inlen;
	bool in_eof;
	bool gz;
	bool z_init;
	bool z_done;			/* the last gzip member ended */
	z_stream z;
	uint64_t consumed;		/* tar bytes handed out */
	uint64_t max_stream;
};

/* Refill in[] from the file or memory; returns bytes now available, or
 * -errno. */
static ssize_t fill(struct src *s)
{
	ssize_t n;

	if (s->inpos < s->inlen)
		return (ssize_t)(s->inlen - s->inpos);
	s->inpos = s->inlen = 0;
	if (s->in_eof)
		return 0;
	if (s->fd < 0) {
		size_t left = s->memlen - s->mempos;

		n = (ssize_t)(left < CHUNK ? left : CHUNK);
		memcpy(s->in, s->mem + s->mempos, (size_t)n);
		s->mempos += (size_t)n;
	} else {
		do
			n = read(s->fd, s->in, CHUNK);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return -errno;
	}
	if (n == 0)
		s->in_eof = true;
	s->inlen = (size_t)n;
	return n;
}

static int src_open(struct src *s, struct vw_err *err)
{
	static const struct { const char *magic; size_t len; const char *what; } other[] = {
		{ "\xfd" "7zXZ", 5, "xz" },
		{ "\x28\xb5\x2f\xfd", 4, "zstd" },
		{ "BZh", 3, "bzip2" },
	};
	ssize_t n = fill(s);

	if (n < 0)
		return vw_err_set(err, (int)n, _("cannot read the archive: %s"), strerror((int)-n));
	/* A first read may be short on a pipe; two bytes decide gzip. */
	if (n >= 2 && s->in[0] == 0x1f && s->in[1] == 0x8b) {
		memset(&s->z, 0, sizeof(s->z));
		if (inflateInit2(&s->z, 15 + 16) != Z_OK)
			return vw_err_set(err, -ENOMEM, _("cannot start the gzip decoder"));
		s->z_init = true;
		s->gz = true;
		return 0;
	}
	for (size_t i = 0; i < VW_ARRAY_SIZE(other); i++)
		if ((size_t)n >= other[i].len && !memcmp(s->in, other[i].magic, other[i].len))
			return vw_err_set(err, -EINVAL,
					  _("the archive is compressed with %s: only gzip or plain tar is read"),
					  other[i].what);
	return 0;
}

static void src_close(struct src *s)
{
	if (s->z_init)
		inflateEnd(&s->z);
	s->z_init = false;
}

/* Read up to n bytes of tar stream into buf; returns the count (less than n
 * only at the end of the input) or a negative code with err set. */
static ssize_t src_read(struct src *s, void *buf, size_t n, struct vw_err *err)
{
	size_t got = 0;

	if (s->consumed + n > s->max_stream)
		return vw_err_set(err, -EFBIG,
				  _("the archive unpacks to more than %llu MiB: refused (a gzip bomb?)"),
				  (unsigned long long)(s->max_stream >> 20));
	while (got < n) {
		ssize_t avail = fill(s);

		if (avail < 0)
			return vw_err_set(err, (int)avail, _("cannot read the archive: %s"),
					  strerror((int)-avail));
		if (!s->gz) {
			size_t k = (size_t)avail < n - got ? (size_t)avail : n - got;

			if (!k)
				break;
			memcpy((char *)buf + got, s->in + s->inpos, k);
			s->inpos += k;
			got += k;
			continue;
		}
		if (s->z_done)
			break;
		s->z.next_in = s->in + s->inpos;
		s->z.avail_in = (uInt)avail;
		s->z.next_out = (unsigned char *)buf + got;
		s->z.avail_out = (uInt)(n - got);
		int r = inflate(&s->z, Z_NO_FLUSH);
		size_t out = (n - got) - s->z.avail_out;

		s->inpos += (size_t)avail - s->z.avail_in;
		got += out;
		if (r == Z_STREAM_END) {
			/* Another gzip member may follow (concatenated files);
			 * anything else after the end is ignored. */
			avail = fill(s);
			if (avail >= 2 && s->in[s->inpos] == 0x1f && s->in[s->inpos + 1] == 0x8b)
				inflateReset(&s->z);
			else
				s->z_done = true;
		} else if (r == Z_BUF_ERROR && !out && avail == 0) {
			return vw_err_set(err, -EINVAL, _("the archive is truncated (gzip data ends early)"));
		} else if (r != Z_OK && !(r == Z_BUF_ERROR && out)) {
			return vw_err_set(err, -EINVAL, _("the archive is not valid gzip data: %s"),
					  s->z.msg ? s->z.msg : zError(r));
		}
	}
	s->consumed += got;
	return (ssize_t)got;
}

/* Exactly n bytes, or an error saying the archive is truncated. */
static int src_full(struct src *s, void *buf, size_t n, struct vw_err *err)
{
	ssize_t r = src_read(s, buf, n, err);

	if (r < 0)
		return (int)r;
	if ((size_t)r != n)
		return vw_err_set(err, -EINVAL, _("the archive is truncated"));
	return 0;
}

static int src_skip(struct src *s, uint64_t n, struct vw_err *err)
{
	char buf[4096];

	while (n) {
		size_t k = n < sizeof(buf) ? (size_t)n : sizeof(buf);
		int r = src_full(s, buf, k, err);

		if (r < 0)
			return r;
		n -= k;
	}
	return 0;
}

/* ---- header fields ------------------------------------------------------ */

/* Octal (or GNU base-256) number in a fixed-size field; -1 when malformed
 * or out of range. */
static int64_t field_num(const char *f, size_t size)
{
	const unsigned char *u = (const unsigned char *)f;
	uint64_t v = 0;
	size_t i = 0;

	if (u[0] & 0x80) {
		if (u[0] != 0x80)
			return -1;	/* negative, or a form we do not read */
		for (i = 1; i < size; i++) {
			if (v >> 55)
				return -1;
			v = (v << 8) | u[i];
		}
		return (int64_t)v;
	}
	while (i < size && f[i] == ' ')
		i++;
	if (i == size || f[i] == '\0')
		return 0;
	for (; i < size && f[i] >= '0' && f[i] <= '7'; i++) {
		if (v >> 60)
			return -1;
		v = v * 8 + (uint64_t)(f[i] - '0');
	}
	for (; i < size; i++)
		if (f[i] != ' ' && f[i] != '\0')
			return -1;
	return (int64_t)v;
}

static char *field_str(const char *f, size_t size)
{
	return vw_xstrndup(f, strnlen(f, size));
}

static bool checksum_ok(const unsigned char *blk, int64_t want)
{
	long us = 0, sg = 0;

	for (size_t i = 0; i < BLOCK; i++) {
		bool in_field = i >= offsetof(struct ustar, chksum) &&
				i < offsetof(struct ustar, chksum) + 8;
		unsigned char c = in_field ? ' ' : blk[i];

		us += c;
		sg += (signed char)c;
	}
	return want == us || want == sg;
}

/* ---- extraction --------------------------------------------------------- */

struct ex {
	struct src src;
	int root;
	bool scan;		/* the first pass: check, make nothing */
	/* The first pass's folders (given or made on the way), by a hash of
	 * their path; open addressing, 0 free.  Never more than the entries
	 * counted, so bounded by the limit. */
	uint64_t *dirs;
	size_t ndirs, dirs_cap;
	struct vw_tar_limits lim;
	struct vw_tar_stats st;
	size_t entries;		/* entries and directories made on the way */
	uint64_t total;
	/* Extended header values for the next entry. */
	char *pax_path, *pax_link, *gnu_name, *gnu_link;
	int64_t pax_size;	/* -1 unset */
	int meta_run;
	/* Last parent directory opened, to spare a walk per entry. */
	char *cache_dir;
	int cache_fd;
	unsigned char *buf;	/* CHUNK */
};

static void meta_reset(struct ex *x)
{
	free(x->pax_path), x->pax_path = NULL;
	free(x->pax_link), x->pax_link = NULL;
	free(x->gnu_name), x->gnu_name = NULL;
	free(x->gnu_link), x->gnu_link = NULL;
	x->pax_size = -1;
	x->meta_run = 0;
}

static int refuse(struct vw_err *err, int code, const char *name, const char *why)
{
	char *s = show(name);

	vw_err_set(err, code, _("%s: %s"), *s ? s : "?", _(why));
	free(s);
	return code;
}

static int count_entry(struct ex *x, const char *name, struct vw_err *err)
{
	if (++x->entries > x->lim.max_entries) {
		char *s = show(name);

		vw_err_set(err, -EFBIG, _("%s: the archive has more than %zu entries: refused"), s,
			   x->lim.max_entries);
		free(s);
		return -EFBIG;
	}
	return 0;
}

/* Add a folder's hash to the first pass's set; true when it was not there. */
static bool dir_add(struct ex *x, uint64_t h)
{
	size_t i;

	h = h ? h : 1;
	if ((x->ndirs + 1) * 2 > x->dirs_cap) {
		size_t cap = x->dirs_cap ? x->dirs_cap * 2 : 1024;
		uint64_t *old = x->dirs;

		x->dirs = vw_xcalloc(cap, sizeof(*x->dirs));
		for (size_t k = 0; k < x->dirs_cap; k++)
			if (old[k])
				for (i = old[k] & (cap - 1); ; i = (i + 1) & (cap - 1))
					if (!x->dirs[i]) {
						x->dirs[i] = old[k];
						break;
					}
		free(old);
		x->dirs_cap = cap;
	}
	for (i = h & (x->dirs_cap - 1); x->dirs[i]; i = (i + 1) & (x->dirs_cap - 1))
		if (x->dirs[i] == h)
			return false;
	x->dirs[i] = h;
	x->ndirs++;
	return true;
}

/* First pass: count the folders the extraction will make on the way to
 * clean name (those no earlier entry gave or implied), as open_parent()
 * will; a folder entry joins the set itself. */
static int scan_parents(struct ex *x, const char *name, bool dir, struct vw_err *err)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	for (const char *p = name; *p; p++) {
		if (*p == '/' && dir_add(x, h)) {
			int r = count_entry(x, name, err);

			if (r < 0)
				return r;
		}
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	}
	if (dir)
		dir_add(x, h);
	return 0;
}

/* Read a metadata block's data (pax records, GNU long name), NUL-terminated. */
static int read_meta(struct ex *x, uint64_t size, char **out, struct vw_err *err)
{
	char *data;
	int r;

	*out = NULL;
	if (size > PAX_MAX)
		return vw_err_set(err, -EFBIG, _("an extended header of %llu bytes: refused"),
				  (unsigned long long)size);
	data = vw_xmalloc((size_t)size + 1);
	r = src_full(&x->src, data, (size_t)size, err);
	if (r == 0)
		r = src_skip(&x->src, (BLOCK - size % BLOCK) % BLOCK, err);
	if (r < 0) {
		free(data);
		return r;
	}
	data[size] = '\0';
	*out = data;
	return 0;
}

static void set_str(char **dst, const char *v, size_t n)
{
	free(*dst);
	*dst = n ? vw_xstrndup(v, n) : NULL;
}

/* Parse pax records "LEN key=value\n" (global ones only for validity). */
static int parse_pax(struct ex *x, const char *d, size_t n, bool global, struct vw_err *err)
{
	size_t pos = 0;

	while (pos < n) {
		size_t len = 0, i = pos, klen;
		const char *key, *eq, *val, *end;

		while (i < n && d[i] >= '0' && d[i] <= '9' && i - pos < 8)
			len = len * 10 + (size_t)(d[i++] - '0');
		if (i == pos || i >= n || d[i] != ' ' || len < 5 || len > n - pos ||
		    d[pos + len - 1] != '\n')
			return vw_err_set(err, -EINVAL, _("a malformed pax extended header"));
		key = d + i + 1;
		end = d + pos + len - 1;
		eq = memchr(key, '=', (size_t)(end - key));
		if (!eq || eq == key)
			return vw_err_set(err, -EINVAL, _("a malformed pax extended header"));
		klen = (size_t)(eq - key);
		val = eq + 1;
		if (memchr(val, '\0', (size_t)(end - val)))
			return vw_err_set(err, -EINVAL, _("a pax extended header holds a NUL byte"));
		if (klen > 10 && !strncmp(key, "GNU.sparse", 10))
			return vw_err_set(err, -EINVAL, _("sparse files are refused"));
		if (!global && klen == 4 && !strncmp(key, "path", 4)) {
			set_str(&x->pax_path, val, (size_t)(end - val));
		} else if (!global && klen == 8 && !strncmp(key, "linkpath", 8)) {
			set_str(&x->pax_link, val, (size_t)(end - val));
		} else if (!global && klen == 4 && !strncmp(key, "size", 4)) {
			uint64_t v = 0;

			if (val == end || end - val > 19)
				return vw_err_set(err, -EINVAL, _("a pax size that is not a number"));
			for (const char *p = val; p < end; p++) {
				if (*p < '0' || *p > '9')
					return vw_err_set(err, -EINVAL, _("a pax size that is not a number"));
				v = v * 10 + (uint64_t)(*p - '0');
			}
			x->pax_size = (int64_t)v;
		}
		pos += len;
	}
	return 0;
}

/* Open (creating as needed) the directory that will hold clean name; the
 * last component goes to *base.  Returns an fd owned by the cache (do not
 * close) or a negative code. */
static int open_parent(struct ex *x, const char *name, const char **base, struct vw_err *err)
{
	const char *slash = strrchr(name, '/');
	size_t dlen = slash ? (size_t)(slash - name) : 0;
	size_t clen = x->cache_dir ? strlen(x->cache_dir) : 0, from = 0;
	char *dir, *comp, *save = NULL;
	int fd;

	*base = slash ? slash + 1 : name;
	if (x->cache_dir && clen == dlen && !strncmp(x->cache_dir, name, dlen))
		return x->cache_fd;
	/* A folder below the cached one (a deep chain, one entry a level):
	 * walk on from there, or extraction is quadratic in the depth. */
	fd = x->root;
	if (x->cache_dir && clen && clen < dlen && name[clen] == '/' &&
	    !strncmp(x->cache_dir, name, clen)) {
		fd = x->cache_fd;
		from = clen + 1;
	} else if (x->cache_fd >= 0 && x->cache_fd != x->root) {
		close(x->cache_fd);
	}
	free(x->cache_dir);
	x->cache_dir = NULL;
	x->cache_fd = -1;

	dir = vw_xstrndup(name + from, dlen - from);
	for (comp = strtok_r(dir, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		int nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (nfd < 0 && errno == ENOENT) {
			int r = count_entry(x, name, err);

			if (r < 0) {
				if (fd != x->root)
					close(fd);
				free(dir);
				return r;
			}
			if (mkdirat(fd, comp, 0700) < 0 && errno != EEXIST) {
				int e = errno;
				if (fd != x->root)
					close(fd);
				free(dir);
				return refuse(err, -e, name, strerror(e));
			}
			x->st.dirs++;
			nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (nfd < 0) {
			int e = errno;

			if (fd != x->root)
				close(fd);
			free(dir);
			if (e == ELOOP || e == ENOTDIR)
				return refuse(err, -EINVAL, name,
					      N_("a parent directory is a symbolic link or a file: refused"));
			return refuse(err, -e, name, strerror(e));
		}
		if (fd != x->root)
			close(fd);
		fd = nfd;
	}
	free(dir);
	x->cache_dir = vw_xstrndup(name, dlen);
	x->cache_fd = fd;
	return fd;
}

static int make_file(struct ex *x, const char *name, uint64_t size, struct vw_err *err)
{
	const char *base;
	int dfd, fd, r = 0;
	uint64_t left = size;

	if (size > x->lim.max_file) {
		char *s = show(name);
		r = vw_err_set(err, -EFBIG, _("%s: %llu bytes, more than the %llu MiB a file may hold: refused"),
			       s, (unsigned long long)size, (unsigned long long)(x->lim.max_file >> 20));
		free(s);
		return r;
	}
	if (x->total + size > x->lim.max_total) {
		char *s = show(name);
		r = vw_err_set(err, -EFBIG, _("%s: the archive holds more than %llu MiB: refused"), s,
			       (unsigned long long)(x->lim.max_total >> 20));
		free(s);
		return r;
	}
	if (x->scan) {
		r = src_skip(&x->src, size + (BLOCK - size % BLOCK) % BLOCK, err);
		if (r == 0)
			x->total += size;
		return r;
	}
	dfd = open_parent(x, name, &base, err);
	if (dfd < 0)
		return dfd;
	fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		int e = errno;
		if (e == EEXIST)
			return refuse(err, -EEXIST, name,
				      N_("appears twice in the archive (or over a link or directory): refused"));
		return refuse(err, -e, name, strerror(e));
	}
	while (left && r == 0) {
		size_t k = left < CHUNK ? (size_t)left : CHUNK;
		size_t off = 0;

		if (x->lim.stop && *x->lim.stop) {
			r = vw_err_set(err, -EINTR, _("interrupted: the import stops"));
			break;
		}
		r = src_full(&x->src, x->buf, k, err);
		while (r == 0 && off < k) {
			ssize_t w = write(fd, x->buf + off, k - off);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				int e = errno;
				r = refuse(err, -e, name, strerror(e));
				break;
			}
			off += (size_t)w;
		}
		left -= k;
	}
	if (close(fd) < 0 && r == 0) {
		int e = errno;
		r = refuse(err, -e, name, strerror(e));
	}
	if (r == 0)
		r = src_skip(&x->src, (BLOCK - size % BLOCK) % BLOCK, err);
	if (r == 0) {
		x->total += size;
		x->st.bytes += size;
		x->st.files++;
	}
	return r;
}

static int make_dir(struct ex *x, const char *name, struct vw_err *err)
{
	const char *base;
	struct stat st;
	int dfd;

	if (x->scan)
		return 0;
	dfd = open_parent(x, name, &base, err);
	if (dfd < 0)
		return dfd;
	if (mkdirat(dfd, base, 0700) == 0) {
		x->st.dirs++;
		return 0;
	}
	if (errno == EEXIST && fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
		return 0;
	if (errno == EEXIST)
		return refuse(err, -EEXIST, name,
			      N_("a directory over a file or link of the same name: refused"));
	return refuse(err, -errno, name, strerror(errno));
}

static int make_link(struct ex *x, const char *name, const char *target, struct vw_err *err)
{
	const char *base, *why = link_problem(name, target);
	int dfd;

	if (why) {
		char *s = show(name), *t = show(target);
		int r = vw_err_set(err, -EINVAL, _("%s -> %s: %s: refused"), s, t, _(why));
		free(s);
		free(t);
		return r;
	}
	if (x->scan)
		return 0;
	dfd = open_parent(x, name, &base, err);
	if (dfd < 0)
		return dfd;
	if (symlinkat(target, dfd, base) < 0) {
		int e = errno;
		if (e == EEXIST)
			return refuse(err, -EEXIST, name,
				      N_("appears twice in the archive (or over a link or directory): refused"));
		return refuse(err, -e, name, strerror(e));
	}
	x->st.symlinks++;
	return 0;
}

/* One header block and whatever follows it.  Returns 1 at the end of the
 * archive, 0 to go on, or a negative code. */
static int one_header(struct ex *x, struct vw_err *err)
{
	unsigned char blk[BLOCK];
	const struct ustar *h = (const struct ustar *)blk;
	char *raw = NULL, *name = NULL, *target = NULL, *data = NULL;
	const char *why = NULL;
	int64_t size, sum;
	ssize_t n;
	bool posix;
	int r = 0;

	n = src_read(&x->src, blk, BLOCK, err);
	if (n < 0)
		return (int)n;
	if (n == 0) {
		if (x->entries == 0 && x->src.consumed == 0)
			return vw_err_set(err, -EINVAL, _("the archive is empty"));
		return vw_err_set(err, -EINVAL, _("the archive is truncated: it has no end marker"));
	}
	if (n != BLOCK)
		return vw_err_set(err, -EINVAL, _("the archive is truncated"));
	{
		size_t i = 0;
		while (i < BLOCK && !blk[i])
			i++;
		if (i == BLOCK)
			return 1;	/* end of archive: the rest is not read */
	}
	posix = !memcmp(h->magic, "ustar\0", 6);
	if (!posix && memcmp(h->magic, "ustar ", 6))
		return vw_err_set(err, -EINVAL, _("not a tar archive (or an old tar format): no ustar header"));
	sum = field_num(h->chksum, sizeof(h->chksum));
	if (sum < 0 || !checksum_ok(blk, sum))
		return vw_err_set(err, -EINVAL, _("a tar header has a bad checksum: the archive is damaged"));
	size = field_num(h->size, sizeof(h->size));
	if (size < 0)
		return vw_err_set(err, -EINVAL, _("a tar header has a malformed size"));

	switch (h->typeflag) {
	case 'x': case 'g': case 'L': case 'K':
		if (++x->meta_run > META_RUN_MAX)
			return vw_err_set(err, -EINVAL, _("too many extended headers in a row"));
		r = read_meta(x, (uint64_t)size, &data, err);
		if (r < 0)
			return r;
		if (h->typeflag == 'x' || h->typeflag == 'g')
			r = parse_pax(x, data, (size_t)size, h->typeflag == 'g', err);
		else if (h->typeflag == 'L')
			set_str(&x->gnu_name, data, strlen(data));
		else
			set_str(&x->gnu_link, data, strlen(data));
		free(data);
		return r;
	}
	if (x->pax_size >= 0)
		size = x->pax_size;

	if (x->pax_path)
		raw = vw_xstrdup(x->pax_path);
	else if (x->gnu_name)
		raw = vw_xstrdup(x->gnu_name);
	else if (posix && h->prefix[0])
		raw = vw_xasprintf("%.*s/%.*s", (int)strnlen(h->prefix, sizeof(h->prefix)), h->prefix,
				   (int)strnlen(h->name, sizeof(h->name)), h->name);
	else
		raw = field_str(h->name, sizeof(h->name));
	target = x->pax_link ? vw_xstrdup(x->pax_link) : x->gnu_link ? vw_xstrdup(x->gnu_link)
								  : field_str(h->linkname, sizeof(h->linkname));
	meta_reset(x);

	name = vw_tar_clean_name(raw, &why);
	if (!name) {
		r = refuse(err, -EINVAL, raw, why);
		goto out;
	}
	if (!*name) {
		/* "./": the root itself, which exists already. */
		if (h->typeflag != '5' || size)
			r = refuse(err, -EINVAL, raw, N_("the root of the archive is not a directory"));
		goto out;
	}
	r = count_entry(x, name, err);
	if (r == 0 && x->scan)
		r = scan_parents(x, name, h->typeflag == '5', err);
	if (r < 0)
		goto out;
	switch (h->typeflag) {
	case '0': case '\0': case '7':
		r = make_file(x, name, (uint64_t)size, err);
		break;
	case '5':
		r = size ? refuse(err, -EINVAL, name, N_("a directory entry with data: refused"))
			 : make_dir(x, name, err);
		break;
	case '2':
		r = size ? refuse(err, -EINVAL, name, N_("a link entry with data: refused"))
			 : make_link(x, name, target, err);
		break;
	case '1':
		r = refuse(err, -EPERM, name, N_("hard links are refused"));
		break;
	case '3': case '4':
		r = refuse(err, -EPERM, name, N_("device nodes are refused"));
		break;
	case '6':
		r = refuse(err, -EPERM, name, N_("fifos are refused"));
		break;
	case 'S':
		r = refuse(err, -EPERM, name, N_("sparse files are refused"));
		break;
	default: {
		char *s = show(name);
		r = vw_err_set(err, -EPERM, _("%s: entry type '%c' is refused"), s,
			       h->typeflag > 0x20 && h->typeflag < 0x7f ? h->typeflag : '?');
		free(s);
	}
	}
out:
	free(raw);
	free(name);
	free(target);
	return r;
}

/* One pass over the whole archive. */
static int pass(struct ex *x, struct vw_err *err)
{
	int r = src_open(&x->src, err);

	while (r == 0) {
		if (x->lim.stop && *x->lim.stop)
			r = vw_err_set(err, -EINTR, _("interrupted: the import stops"));
		else
			r = one_header(x, err);
	}
	meta_reset(x);
	src_close(&x->src);
	return r < 0 ? r : 0;
}

/* Back to the start of the input for a second pass; false when it cannot
 * be read again (a pipe). */
static bool rewind_src(struct src *s, off_t start)
{
	if (s->fd >= 0 && (start < 0 || lseek(s->fd, start, SEEK_SET) != start))
		return false;
	s->mempos = 0;
	s->inpos = s->inlen = 0;
	s->in_eof = s->gz = s->z_done = false;
	s->consumed = 0;
	return true;
}

/* Two passes where the input can be read twice: the first checks every
 * header, name, link, type and limit (folders made on the way counted as
 * the extraction will) and makes nothing, so that an archive refused for
 * any of these reasons costs its reading only, never a tree to make and
 * remove; the second extracts, with every check again. */
static int extract(struct ex *x, const struct vw_tar_limits *lim, struct vw_tar_stats *st,
		   struct vw_err *err)
{
	static const struct vw_tar_limits def = VW_TAR_LIMITS_DEFAULT;
	off_t start = x->src.fd >= 0 ? lseek(x->src.fd, 0, SEEK_CUR) : 0;
	int r = 0;

	x->lim = lim ? *lim : def;
	x->src.max_stream = x->lim.max_stream;
	x->src.in = vw_xmalloc(CHUNK);
	x->buf = vw_xmalloc(CHUNK);
	x->cache_fd = -1;
	x->pax_size = -1;
	if (start >= 0) {
		x->scan = true;
		r = pass(x, err);
		x->scan = false;
		x->entries = 0;
		x->total = 0;
		free(x->dirs);
		x->dirs = NULL;
		if (r == 0 && !rewind_src(&x->src, start))
			r = vw_err_set(err, -errno, _("cannot read the archive: %s"), strerror(errno));
	}
	if (r == 0)
		r = pass(x, err);
	x->st.compressed = x->src.gz;
	if (st)
		*st = x->st;
	if (x->cache_fd >= 0 && x->cache_fd != x->root)
		close(x->cache_fd);
	free(x->cache_dir);
	free(x->src.in);
	free(x->buf);
	return r;
}

int vw_tar_extract_fd(int fd, int dest_fd, const struct vw_tar_limits *lim,
		      struct vw_tar_stats *st, struct vw_err *err)
{
	struct ex x = { .root = dest_fd, .src = { .fd = fd } };

	return extract(&x, lim, st, err);
}

int vw_tar_extract_mem(const void *data, size_t len, int dest_fd, const struct vw_tar_limits *lim,
		       struct vw_tar_stats *st, struct vw_err *err)
{
	struct ex x = { .root = dest_fd, .src = { .fd = -1, .mem = data, .memlen = len } };

	return extract(&x, lim, st, err);
}

/* ---- writer ------------------------------------------------------------- */

struct vw_tar_writer {
	int fd;
	time_t mtime;
	z_stream z;
	int error;		/* first error, 0 none */
	char msg[512];
	unsigned char out[CHUNK];
};

struct vw_tar_writer *vw_tar_writer_new(int fd, time_t mtime)
{
	struct vw_tar_writer *w = vw_xcalloc(1, sizeof(*w));

	w->fd = fd;
	w->mtime = mtime < 0 ? 0 : mtime;
	if (deflateInit2(&w->z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		w->error = -ENOMEM;
		snprintf(w->msg, sizeof(w->msg), "%s", _("cannot start the gzip encoder"));
	}
	return w;
}

static void w_fail(struct vw_tar_writer *w, int code, const char *msg)
{
	if (!w->error) {
		w->error = code;
		snprintf(w->msg, sizeof(w->msg), "%s", msg);
	}
}

static void w_flush_out(struct vw_tar_writer *w)
{
	size_t n = sizeof(w->out) - w->z.avail_out, off = 0;

	while (!w->error && off < n) {
		ssize_t k = write(w->fd, w->out + off, n - off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			w_fail(w, -errno, strerror(errno));
		else
			off += (size_t)k;
	}
	w->z.next_out = w->out;
	w->z.avail_out = sizeof(w->out);
}

static void w_deflate(struct vw_tar_writer *w, const void *p, size_t n, int flush)
{
	if (w->error)
		return;
	w->z.next_in = (unsigned char *)(uintptr_t)p;
	w->z.avail_in = (uInt)n;
	for (;;) {
		int r;

		if (!w->z.next_out) {
			w->z.next_out = w->out;
			w->z.avail_out = sizeof(w->out);
		}
		r = deflate(&w->z, flush);
		if (r == Z_STREAM_ERROR) {
			w_fail(w, -EIO, _("gzip encoder error"));
			return;
		}
		if (w->z.avail_out == 0 || (flush == Z_FINISH && r == Z_STREAM_END))
			w_flush_out(w);
		if (w->error)
			return;
		if (flush == Z_FINISH ? r == Z_STREAM_END : w->z.avail_in == 0)
			return;
	}
}

static void w_write(struct vw_tar_writer *w, const void *p, size_t n)
{
	/* zlib counts in uInt: feed large buffers in pieces. */
	while (n) {
		size_t k = n > (1u << 30) ? (1u << 30) : n;

		w_deflate(w, p, k, Z_NO_FLUSH);
		p = (const char *)p + k;
		n -= k;
	}
}

static void w_pad(struct vw_tar_writer *w, uint64_t size)
{
	static const char zeros[BLOCK];
	size_t pad = (size_t)((BLOCK - size % BLOCK) % BLOCK);

	if (pad)
		w_write(w, zeros, pad);
}

static void put_octal(char *f, size_t size, uint64_t v)
{
	char tmp[32];

	snprintf(tmp, sizeof(tmp), "%0*llo", (int)(size - 1), (unsigned long long)v);
	memcpy(f, tmp, size - 1);
	f[size - 1] = '\0';
}

static void w_header(struct vw_tar_writer *w, const char *name, char type, mode_t mode,
		     uint64_t size, const char *link)
{
	unsigned char blk[BLOCK];
	struct ustar *h = (struct ustar *)blk;
	unsigned long sum = 0;

	memset(blk, 0, sizeof(blk));
	memcpy(h->name, name, strnlen(name, sizeof(h->name)));
	put_octal(h->mode, sizeof(h->mode), mode & 07777);
	put_octal(h->uid, sizeof(h->uid), 0);
	put_octal(h->gid, sizeof(h->gid), 0);
	put_octal(h->size, sizeof(h->size), size);
	put_octal(h->mtime, sizeof(h->mtime), (uint64_t)w->mtime);
	h->typeflag = type;
	if (link)
		memcpy(h->linkname, link, strnlen(link, sizeof(h->linkname)));
	memcpy(h->magic, "ustar\0", 6);
	memcpy(h->version, "00", 2);
	memcpy(h->uname, "root", 4);
	memcpy(h->gname, "root", 4);
	put_octal(h->devmajor, sizeof(h->devmajor), 0);
	put_octal(h->devminor, sizeof(h->devminor), 0);
	memset(h->chksum, ' ', sizeof(h->chksum));
	for (size_t i = 0; i < BLOCK; i++)
		sum += blk[i];
	snprintf(h->chksum, sizeof(h->chksum), "%06lo", sum);
	h->chksum[7] = ' ';
	w_write(w, blk, sizeof(blk));
}

static size_t ndigits(size_t v)
{
	size_t d = 1;

	while (v >= 10)
		v /= 10, d++;
	return d;
}

static void pax_record(struct vw_buf *b, const char *key, const char *val)
{
	size_t n = strlen(key) + strlen(val) + 3, len = n + ndigits(n);

	if (ndigits(len) != ndigits(n))
		len = n + ndigits(len);
	vw_buf_printf(b, "%zu %s=%s\n", len, key, val);
}

static bool fits_ustar(const char *s)
{
	size_t n = strlen(s);

	if (n >= 100)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] >= 0x80)
			return false;
	return true;
}

/* A header for one entry, preceded by a pax header when a name is long. */
static int w_entry(struct vw_tar_writer *w, const char *path, char type, mode_t mode, uint64_t size,
		   const char *link, struct vw_err *err)
{
	const char *why = NULL;
	char *clean = vw_tar_clean_name(path, &why), *name;

	if (!clean || strcmp(clean, path) || !*clean) {
		char *s = show(path);
		free(clean);
		vw_err_set(err, -EINVAL, _("cannot store %s in a snapshot: %s"), s,
			   why ? _(why) : _("the name is not in normal form"));
		free(s);
		return -EINVAL;
	}
	free(clean);
	if (link && (why = link_problem(path, link))) {
		char *s = show(path);
		vw_err_set(err, -EINVAL, _("cannot store %s in a snapshot: %s"), s, _(why));
		free(s);
		return -EINVAL;
	}
	name = type == '5' ? vw_xasprintf("%s/", path) : vw_xstrdup(path);
	if (!fits_ustar(name) || (link && !fits_ustar(link))) {
		struct vw_buf pax = VW_BUF_INIT;
		char *pname;
		const char *base = strrchr(path, '/');

		vw_buf_adds(&pax, "");
		if (!fits_ustar(name))
			pax_record(&pax, "path", path);
		if (link && !fits_ustar(link))
			pax_record(&pax, "linkpath", link);
		pname = vw_xasprintf("PaxHeaders/%.80s", base ? base + 1 : path);
		w_header(w, pname, 'x', 0644, pax.len, NULL);
		w_write(w, pax.data, pax.len);
		w_pad(w, pax.len);
		free(pname);
		vw_buf_done(&pax);
	}
	w_header(w, name, type, mode, size, link);
	free(name);
	if (w->error)
		return vw_err_set(err, w->error, _("cannot write the snapshot: %s"), w->msg);
	return 0;
}

int vw_tar_add_dir(struct vw_tar_writer *w, const char *path, mode_t mode, struct vw_err *err)
{
	return w_entry(w, path, '5', mode, 0, NULL, err);
}

int vw_tar_add_file(struct vw_tar_writer *w, const char *path, mode_t mode, const void *data,
		    size_t len, struct vw_err *err)
{
	int r;

	if ((uint64_t)len >= ((uint64_t)1 << 33))
		return vw_err_set(err, -EFBIG, _("cannot store %s in a snapshot: too large"), path);
	r = w_entry(w, path, '0', mode, len, NULL, err);
	if (r < 0)
		return r;
	w_write(w, data, len);
	w_pad(w, len);
	if (w->error)
		return vw_err_set(err, w->error, _("cannot write the snapshot: %s"), w->msg);
	return 0;
}

int vw_tar_add_symlink(struct vw_tar_writer *w, const char *path, const char *target,
		       struct vw_err *err)
{
	return w_entry(w, path, '2', 0777, 0, target, err);
}

int vw_tar_writer_finish(struct vw_tar_writer *w, struct vw_err *err)
{
	static const char zeros[2 * BLOCK];
	int r;

	w_write(w, zeros, sizeof(zeros));
	w_deflate(w, "", 0, Z_FINISH);
	r = w->error;
	if (r)
		vw_err_set(err, r, _("cannot write the snapshot: %s"), w->msg);
	vw_tar_writer_free(w);
	return r;
}

void vw_tar_writer_free(struct vw_tar_writer *w)
{
	if (!w)
		return;
	deflateEnd(&w->z);
	free(w);
}
