/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hostile.h - hostile snapshot archives, made at test time.
 *
 * A raw tar writer with no checks at all (names, types, sizes and links are
 * written as given), independent of core/tarsafe.c, so that the reader is
 * tested against bytes it did not produce.  Used by tests/test-snapshot.c,
 * by the mkhostile tool (fuzz seeds, manual tries) and by nothing else.
 */
#ifndef VW_HOSTILE_H
#define VW_HOSTILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hostile_case {
	const char *name;	/* file name stem: NAME.tar.gz */
	const char *expect;	/* a part of the refusal message */
	const char *what;	/* one line, for people */
};

/* Every case, each refused by a correct reader with default limits. */
extern const struct hostile_case hostile_cases[];
extern const size_t hostile_ncases;

/* Write case name into path.  tag: an absolute path prefix the archive
 * aims at outside the tree ("/tmp/vwh-1234"), so that a test can check
 * that nothing appeared there.  Returns 0 or -1 (errno set). */
int hostile_write(const char *name, const char *path, const char *tag);

/* A benign snapshot that carries executable payloads: recorded command
 * outputs and tool binaries that, if ever run, create marker.  Replaying
 * it must never create marker. */
int hostile_write_payloads(const char *path, const char *marker);

/* Low level, for tests that build their own: an archive being written. */
struct htar;
struct htar *htar_open(const char *path, bool gzip);
/* typeflag '0' file, '5' dir, '2' symlink, '1' hard link, '3' '4' '6' ...;
 * size is written in the header; data (len bytes, may be NULL) follows,
 * padded; pass len != size to lie. */
void htar_entry(struct htar *t, const char *name, char type, uint64_t size, const char *link,
		const void *data, size_t len);
void htar_pax(struct htar *t, const char *records);	/* 'x' header with raw records */
void htar_raw(struct htar *t, const void *data, size_t len);
int htar_close(struct htar *t, bool end_marker);

#endif
