/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sha256.h - SHA-256 (FIPS 180-4), no library needed: the journal's
 * manifest hashes and the Ansible export's checksums (Ansible's stat
 * compares SHA-256). */
#ifndef VW_SHA256_H
#define VW_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct vw_sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char buf[64];
	size_t n;
};

void vw_sha256_init(struct vw_sha256 *s);
void vw_sha256_add(struct vw_sha256 *s, const void *data, size_t len);
/* Finish and write 64 lowercase hex digits and a NUL; s is used up. */
void vw_sha256_hex(struct vw_sha256 *s, char out[65]);
/* One call: the hex digest of data. */
void vw_sha256_hex_of(const void *data, size_t len, char out[65]);

#endif
