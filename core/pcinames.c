/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pcinames.c - names of devices too new for the pci.ids that distributions
 * ship (Debian 12 carries the 2023-04 file: no H200, no H100 NVSwitch).
 * Consulted only when libpci's database has no name, so a newer pci.ids
 * always wins. */
#include "facts.h"

#include <stddef.h>

static const struct {
	unsigned vendor, device;
	const char *name;
} extra[] = {
	{ 0x10de, 0x22a3, "GH100 [H100 NVSwitch]" },
	{ 0x10de, 0x2321, "GH100L [H100 NVL]" },
	{ 0x10de, 0x2324, "GH100 [H800 SXM5]" },
	{ 0x10de, 0x2335, "GH100 [H200 SXM 141GB]" },
	{ 0x10de, 0x233a, "GH100 [H800L 94GB]" },
	{ 0x10de, 0x233b, "GH100 [H200 NVL]" },
	{ 0x10de, 0x2342, "GH100 [GH200 120GB / 480GB]" },
	{ 0x10de, 0x26b9, "AD102GL [L40S]" },
	{ 0x10de, 0x2901, "GB100 [B200]" },
};

const char *vw_pci_extra_name(unsigned vendor, unsigned device)
{
	for (size_t i = 0; i < VW_ARRAY_SIZE(extra); i++)
		if (extra[i].vendor == vendor && extra[i].device == device)
			return extra[i].name;
	return NULL;
}
