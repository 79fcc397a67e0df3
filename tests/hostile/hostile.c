/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hostile.c - build hostile tar archives byte by byte. */
#define _GNU_SOURCE
#include "hostile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct htar {
	FILE *fp;
	gzFile gz;
};

const struct hostile_case hostile_cases[] = {
	{ "traversal", "'..'", "a file named etc/../../escape" },
	{ "traversal-pax", "'..'", "a pax path with '..' behind an innocent ustar name" },
	{ "absolute", "absolute path", "a file named /TAG-abs" },
	{ "gnu-longname", "absolute path", "a GNU long name that is absolute" },
	{ "shadow-link", "absolute path", "a link to /etc/shadow" },
	{ "shadow-rel", "outside the snapshot", "a link ../../../../etc/shadow" },
	{ "link-dotdot", "after a name", "a link a/c -> b/../.. (climbs out through a/b -> ..)" },
	{ "link-then-file", "symbolic link", "a link inside the tree, then a file written through it" },
	{ "escape-link-then-file", "absolute path", "a link to /TAG, then a file through it" },
	{ "hardlink", "hard links", "a hard link to /etc/shadow" },
	{ "chardev", "device nodes", "a character device" },
	{ "blockdev", "device nodes", "a block device" },
	{ "fifo", "fifos", "a fifo" },
	{ "huge-file", "MiB a file may hold", "a file claiming 10 GiB (a gzip bomb)" },
	{ "huge-octal", "MiB a file may hold", "a file claiming 65 MiB" },
	{ "too-many", "entries", "200001 entries" },
	{ "control-char", "control character", "a name with an escape sequence" },
	{ "duplicate", "twice", "the same file twice" },
	{ "dir-over-file", "directory over a file", "a directory where a file is" },
	{ "bad-checksum", "checksum", "a damaged header" },
	{ "truncated", "truncated", "an archive cut in the middle of a file" },
	{ "not-tar", "ustar", "random bytes" },
	{ "xz", "xz", "an xz archive" },
	{ "sparse", "sparse", "a GNU sparse file" },
	{ "pax-nul", "NUL", "a pax path with a NUL byte" },
	{ "empty", "empty", "an empty file" },
	{ "deep-chain", "too deep", "a chain of 2000 nested folders, one entry each (quadratic to extract)" },
	{ "deep-pax", "too deep", "a file 100 folders down, its parents made on the way" },
	{ "long-path", "too long", "a pax path of 2000 bytes in 40 folders (past PATH_MAX with TMPDIR)" },
};
const size_t hostile_ncases = sizeof(hostile_cases) / sizeof(hostile_cases[0]);

struct htar *htar_open(const char *path, bool gzip)
{
	struct htar *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	if (gzip)
		t->gz = gzopen(path, "wb6");
	else
		t->fp = fopen(path, "wb");
	if (!t->gz && !t->fp) {
		free(t);
		return NULL;
	}
	return t;
}

void htar_raw(struct htar *t, const void *data, size_t len)
{
	if (!len)
		return;
	if (t->gz)
		gzwrite(t->gz, data, (unsigned)len);
	else
		fwrite(data, 1, len, t->fp);
}

static void octal(char *f, size_t size, uint64_t v)
{
	char tmp[32];

	snprintf(tmp, sizeof(tmp), "%0*llo", (int)(size - 1), (unsigned long long)v);
	memcpy(f, tmp, size - 1);
}

void htar_entry(struct htar *t, const char *name, char type, uint64_t size, const char *link,
		const void *data, size_t len)
{
	unsigned char h[512];
	unsigned sum = 0;
	static const char zeros[512];

	memset(h, 0, sizeof(h));
	strncpy((char *)h, name, 100);
	octal((char *)h + 100, 8, type == '5' ? 0755 : 0644);
	octal((char *)h + 108, 8, 0);
	octal((char *)h + 116, 8, 0);
	if (size < (1ull << 33))
		octal((char *)h + 124, 12, size);
	else
		memcpy(h + 124, "77777777777", 11);
	octal((char *)h + 136, 12, 0);
	h[156] = (unsigned char)type;
	if (link)
		strncpy((char *)h + 157, link, 100);
	memcpy(h + 257, "ustar\0" "00", 8);
	if (type == '3' || type == '4') {
		octal((char *)h + 329, 8, 8);
		octal((char *)h + 337, 8, 0);
	}
	memset(h + 148, ' ', 8);
	for (size_t i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	h[155] = ' ';
	htar_raw(t, h, sizeof(h));
	if (len) {
		htar_raw(t, data, len);
		htar_raw(t, zeros, (512 - len % 512) % 512);
	}
}

void htar_pax(struct htar *t, const char *records)
{
	htar_entry(t, "PaxHeaders/x", 'x', strlen(records), NULL, records, strlen(records));
}

int htar_close(struct htar *t, bool end_marker)
{
	static const char zeros[1024];
	int r = 0;

	if (end_marker)
		htar_raw(t, zeros, sizeof(zeros));
	if (t->gz)
		r = gzclose(t->gz) == Z_OK ? 0 : -1;
	else
		r = fclose(t->fp) == 0 ? 0 : -1;
	free(t);
	return r;
}

/* A pax record "LEN key=value\n". */
static char *record(const char *key, const char *val, size_t vlen)
{
	size_t n = strlen(key) + vlen + 3, len = n + 1;
	char *r;

	while (len != n + (size_t)snprintf(NULL, 0, "%zu", len))
		len = n + (size_t)snprintf(NULL, 0, "%zu", len);
	r = malloc(len + 1);
	if (!r)
		abort();
	int k = sprintf(r, "%zu %s=", len, key);
	memcpy(r + k, val, vlen);
	r[k + vlen] = '\n';
	r[k + vlen + 1] = '\0';
	return r;
}

static void dirs(struct htar *t)
{
	htar_entry(t, "etc/", '5', 0, NULL, NULL, 0);
	htar_entry(t, "sys/", '5', 0, NULL, NULL, 0);
}

int hostile_write(const char *name, const char *path, const char *tag)
{
	char buf[600];
	struct htar *t;
	bool end = true;

	if (!strcmp(name, "not-tar") || !strcmp(name, "xz") || !strcmp(name, "empty")) {
		FILE *fp = fopen(path, "wb");

		if (!fp)
			return -1;
		if (!strcmp(name, "not-tar"))
			for (int i = 0; i < 2048; i++)
				fputc((i * 7919) & 0xff ? (i * 7919) & 0xff : 1, fp);
		else if (!strcmp(name, "xz"))
			fwrite("\xfd" "7zXZ\0\0\0garbage", 1, 15, fp);
		return fclose(fp) == 0 ? 0 : -1;
	}
	t = htar_open(path, true);
	if (!t)
		return -1;
	if (!strcmp(name, "traversal")) {
		dirs(t);
		htar_entry(t, "etc/../../escape", '0', 4, NULL, "bad\n", 4);
	} else if (!strcmp(name, "traversal-pax")) {
		char *r = record("path", "sys/../../escape-pax", strlen("sys/../../escape-pax"));

		dirs(t);
		htar_pax(t, r);
		htar_entry(t, "innocent", '0', 4, NULL, "bad\n", 4);
		free(r);
	} else if (!strcmp(name, "absolute")) {
		snprintf(buf, sizeof(buf), "%s-abs", tag);
		htar_entry(t, buf, '0', 4, NULL, "bad\n", 4);
	} else if (!strcmp(name, "gnu-longname")) {
		snprintf(buf, sizeof(buf), "%s-gnu/%0150d", tag, 0);
		htar_entry(t, "././@LongLink", 'L', strlen(buf) + 1, NULL, buf, strlen(buf) + 1);
		htar_entry(t, "short", '0', 4, NULL, "bad\n", 4);
	} else if (!strcmp(name, "shadow-link")) {
		dirs(t);
		htar_entry(t, "etc/shadow-link", '2', 0, "/etc/shadow", NULL, 0);
	} else if (!strcmp(name, "shadow-rel")) {
		dirs(t);
		htar_entry(t, "etc/shadow-link", '2', 0, "../../../../../../etc/shadow", NULL, 0);
	} else if (!strcmp(name, "link-dotdot")) {
		htar_entry(t, "a/", '5', 0, NULL, NULL, 0);
		htar_entry(t, "a/b", '2', 0, "..", NULL, 0);
		htar_entry(t, "a/c", '2', 0, "b/../..", NULL, 0);
	} else if (!strcmp(name, "link-then-file")) {
		dirs(t);
		htar_entry(t, "etc/conf", '2', 0, "../sys", NULL, 0);
		htar_entry(t, "etc/conf/evil", '0', 4, NULL, "bad\n", 4);
	} else if (!strcmp(name, "escape-link-then-file")) {
		htar_entry(t, "lnk", '2', 0, tag, NULL, 0);
		htar_entry(t, "lnk/evil", '0', 4, NULL, "bad\n", 4);
	} else if (!strcmp(name, "hardlink")) {
		dirs(t);
		htar_entry(t, "etc/ok", '0', 3, NULL, "ok\n", 3);
		htar_entry(t, "etc/shadow", '1', 0, "/etc/shadow", NULL, 0);
	} else if (!strcmp(name, "chardev")) {
		htar_entry(t, "dev/", '5', 0, NULL, NULL, 0);
		htar_entry(t, "dev/mem", '3', 0, NULL, NULL, 0);
	} else if (!strcmp(name, "blockdev")) {
		htar_entry(t, "dev/", '5', 0, NULL, NULL, 0);
		htar_entry(t, "dev/sda", '4', 0, NULL, NULL, 0);
	} else if (!strcmp(name, "fifo")) {
		htar_entry(t, "run/", '5', 0, NULL, NULL, 0);
		htar_entry(t, "run/fifo", '6', 0, NULL, NULL, 0);
	} else if (!strcmp(name, "huge-file")) {
		/* 10 GiB announced, a little zero data behind it: a reader that
		 * trusted the size would inflate forever. */
		static char zeros[65536];
		char *r = record("size", "10737418240", 11);

		htar_pax(t, r);
		htar_entry(t, "bomb", '0', 0, NULL, NULL, 0);
		for (int i = 0; i < 64; i++)
			htar_raw(t, zeros, sizeof(zeros));
		free(r);
		end = false;
	} else if (!strcmp(name, "huge-octal")) {
		htar_entry(t, "big", '0', (uint64_t)65 << 20, NULL, "x", 1);
		end = false;
	} else if (!strcmp(name, "too-many")) {
		/* The same directory again and again: cheap to write and to
		 * read, but every copy is an entry. */
		for (int i = 0; i < 200001; i++)
			htar_entry(t, "d/", '5', 0, NULL, NULL, 0);
	} else if (!strcmp(name, "control-char")) {
		dirs(t);
		htar_entry(t, "etc/\x1b[31mred\x1b[0m", '0', 4, NULL, "bad\n", 4);
	} else if (!strcmp(name, "duplicate")) {
		dirs(t);
		htar_entry(t, "etc/x", '0', 4, NULL, "one\n", 4);
		htar_entry(t, "etc/x", '0', 4, NULL, "two\n", 4);
	} else if (!strcmp(name, "dir-over-file")) {
		dirs(t);
		htar_entry(t, "etc/x", '0', 4, NULL, "one\n", 4);
		htar_entry(t, "etc/x/", '5', 0, NULL, NULL, 0);
	} else if (!strcmp(name, "bad-checksum")) {
		unsigned char h[512];

		memset(h, 0, sizeof(h));
		strcpy((char *)h, "etc/x");
		memcpy(h + 124, "00000000004", 11);
		memcpy(h + 148, "0000001", 7);
		h[156] = '0';
		memcpy(h + 257, "ustar\0" "00", 8);
		htar_raw(t, h, sizeof(h));
		htar_raw(t, "bad\n", 4);
	} else if (!strcmp(name, "truncated")) {
		dirs(t);
		htar_entry(t, "etc/x", '0', 4096, NULL, "only a little", 13);
		end = false;
	} else if (!strcmp(name, "sparse")) {
		htar_entry(t, "sparse", 'S', 0, NULL, NULL, 0);
	} else if (!strcmp(name, "pax-nul")) {
		char *r = record("path", "etc/ok\0../../x", 14);
		size_t len = (size_t)atoi(r);	/* strlen would stop at the NUL */

		htar_entry(t, "PaxHeaders/x", 'x', len, NULL, r, len);
		free(r);
		htar_entry(t, "x", '0', 0, NULL, NULL, 0);
	} else if (!strcmp(name, "deep-chain") || !strcmp(name, "deep-pax") || !strcmp(name, "long-path")) {
		bool chain = name[5] == 'c', lng = name[0] == 'l';
		size_t n = chain ? 2000 : lng ? 40 : 100, len = 3;
		char *p = malloc(4 + n * 51 + 8), *r;

		if (!p) {
			htar_close(t, false);
			return -1;
		}
		dirs(t);
		strcpy(p, "sys");
		for (size_t i = 0; i < n; i++) {
			len += (size_t)sprintf(p + len, "/%s", lng ? "abcdefghijklmnopqrstuvwxyz-abcdefghijklmnopqrstuvw" : "a");
			if (chain) {
				r = record("path", p, len);
				htar_pax(t, r);
				htar_entry(t, "PaxHeaders/d", '5', 0, NULL, NULL, 0);
				free(r);
			}
		}
		if (!chain) {
			strcpy(p + len, "/f");
			r = record("path", p, len + 2);
			htar_pax(t, r);
			htar_entry(t, "PaxHeaders/f", '0', 4, NULL, "bad\n", 4);
			free(r);
		}
		free(p);
	} else {
		htar_close(t, false);
		errno = ENOENT;
		return -1;
	}
	return htar_close(t, end);
}

int hostile_write_payloads(const char *path, const char *marker)
{
	struct htar *t = htar_open(path, true);
	char script[512];
	size_t n;

	if (!t)
		return -1;
	n = (size_t)snprintf(script, sizeof(script), "#!/bin/sh\ntouch '%s'\n", marker);
	htar_entry(t, "sys/", '5', 0, NULL, NULL, 0);
	htar_entry(t, "sys/bus/pci/devices/", '5', 0, NULL, NULL, 0);
	htar_entry(t, "proc/", '5', 0, NULL, NULL, 0);
	htar_entry(t, "proc/cmdline", '0', 6, NULL, "quiet\n", 6);
	htar_entry(t, ".vfiowiz/cmd/", '5', 0, NULL, NULL, 0);
	/* Recordings that are scripts, and tools that are scripts. */
	htar_entry(t, ".vfiowiz/cmd/nvidia-smi_topo_-m", '0', n, NULL, script, n);
	htar_entry(t, ".vfiowiz/cmd/dmesg", '0', n, NULL, script, n);
	htar_entry(t, ".vfiowiz/cmd/update-initramfs_-u_-k_all", '0', n, NULL, script, n);
	htar_entry(t, ".vfiowiz/cmd/update-initramfs", '0', n, NULL, script, n);
	htar_entry(t, "usr/sbin/update-initramfs", '0', n, NULL, script, n);
	htar_entry(t, "usr/sbin/update-grub", '0', n, NULL, script, n);
	htar_entry(t, "usr/sbin/proxmox-boot-tool", '0', n, NULL, script, n);
	htar_entry(t, "usr/bin/nvidia-smi", '0', n, NULL, script, n);
	htar_entry(t, "usr/bin/dmesg", '0', n, NULL, script, n);
	htar_entry(t, "bin/sh", '0', n, NULL, script, n);
	htar_entry(t, "etc/os-release", '0', 10, NULL, "ID=debian\n", 10);
	return htar_close(t, true);
}
