/* SPDX-License-Identifier: GPL-2.0-or-later */
/* redact.h - take what identifies a machine or a person out of text, the
 * same way everywhere, so that a redacted snapshot still hangs together.
 *
 * One redactor is used for a whole snapshot: the first UUID it meets becomes
 * 00000000-0000-4000-8000-000000000001 in every file, the host name becomes
 * "host1" wherever it appears as a word, and so on.  What is replaced:
 *  - UUIDs (8-4-4-4-12 hex), except the well-known GUIDs the wizard relies
 *    on (EFI variable vendors, GPT partition types); short FAT ids after
 *    "UUID=" ("UUID=ABCD-1234"), and lines of proxmox-boot-uuids;
 *  - MAC addresses ("52:54:00:12:34:56", "52-54-...", efibootmgr's
 *    "MAC(525400123456"), except all-zero and broadcast;
 *  - IPv4 addresses, except 0.0.0.0, 127.0.0.0/8 and 255.x (masks);
 *    IPv6 addresses, except :: and ::1;
 *  - the values of serial numbers ("Serial Number : 1234", "<serial>",
 *    libvirt's <entry name='serial'>, 'asset' and 'sku');
 *  - the values of secrets (keys containing "passw", "secret", "token"; and
 *    Proxmox's sshkeys, whose URL-encoded comments name user@host);
 *  - host and user names given with vw_redact_add_name(), as whole words in
 *    any case (letters and digits around them do not match; a URL escape
 *    such as %20 or %40 ends a word), except those given to
 *    vw_redact_protect() (driver and module names, distribution ids: a user
 *    called "nvidia" must not rename the driver) and names under 3 bytes;
 *    the domain of an FQDN (two labels or more) is a name of its own
 *    ("domain1.example"), so other hosts of the domain lose it too.
 * Our own placeholders are never taken for names: a replayed snapshot
 * redacted again comes out the same.
 * Placeholders keep the shape of what they replace, so that parsers still
 * read the result: a UUID stays a UUID, a MAC a MAC.  Original values are
 * never stored anywhere but in the redactor's memory.
 */
#ifndef VW_REDACT_H
#define VW_REDACT_H

#include <stddef.h>

#include "vw.h"

enum vw_redact_kind {
	VW_RED_UUID,
	VW_RED_MAC,
	VW_RED_IPV4,
	VW_RED_IPV6,
	VW_RED_SERIAL,
	VW_RED_SECRET,
	VW_RED_HOST,
	VW_RED_USER,
	VW_RED_NKINDS
};

struct vw_redact;

struct vw_redact *vw_redact_new(void);
void vw_redact_free(struct vw_redact *r);

/* A name to replace as a whole word, without regard to case: kind
 * VW_RED_HOST ("host1"; give a fully qualified name too), VW_RED_USER
 * ("user1") or VW_RED_SERIAL (a disk's serial number, "SERIAL1", also
 * found inside /dev/disk/by-id names).  Returns false when the name is not
 * taken (too short, protected, or already known). */
bool vw_redact_add_name(struct vw_redact *r, enum vw_redact_kind kind, const char *name);
/* A word that must never be treated as a host or user name. */
void vw_redact_protect(struct vw_redact *r, const char *word);

/* Redact len bytes of text (NUL bytes allowed).  Returns a new buffer
 * (caller frees; NUL-terminated; *outlen its length) and adds to the counts.
 * Returns the number of replacements made in *nrep when nrep is not NULL. */
char *vw_redact_text(struct vw_redact *r, const char *in, size_t len, size_t *outlen,
		     size_t *nrep);
/* Redact a whole file of lines "UUID" (proxmox-boot-uuids): every line's
 * first word is treated as an identifier. */
char *vw_redact_id_lines(struct vw_redact *r, const char *in, size_t len, size_t *outlen);

/* How many distinct values of kind were replaced so far. */
size_t vw_redact_count(const struct vw_redact *r, enum vw_redact_kind kind);
/* "3 UUIDs, 1 MAC address, host name" (translated); "" when nothing. */
void vw_redact_summary(const struct vw_redact *r, struct vw_buf *out);
/* Stable, untranslated: "uuid=3 mac=1 ipv4=0 ..." for the snapshot's own
 * description file. */
void vw_redact_counts(const struct vw_redact *r, struct vw_buf *out);

#endif
