/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_nvlink.c - nvidia-smi output parsers (core/nvlink.h): topo -m,
 * topo -p2p rw, nvlink -s, the bus-id CSV, and the state-file form of the
 * NVLink sets.  The input is given to each parser whole. */
#include "nvlink.h"
#include "fuzzutil.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct vw_err err = { 0 };
	struct vw_nvlink_topo t;
	struct vw_p2p p;
	struct vw_nvlink_status st;
	struct vw_gpu_busid *ids = NULL;
	struct vw_nvlink nl;
	size_t n = 0;
	char addr[16], *s;

	if (vw_nvlink_parse_topo(text, size, &t, &err) == 0) {
		for (size_t i = 0; i < t.ngpus; i++)
			for (size_t j = 0; j < t.ngpus; j++)
				vw_topo_cell_name(vw_nvlink_topo_cell(&t, i, j));
		if (t.ngpus)
			FU_CHECK(vw_nvlink_topo_pos(&t, t.gpu[0]) >= 0);
	}
	vw_nvlink_topo_done(&t);
	if (vw_nvlink_parse_p2p(text, size, &p, &err) == 0)
		vw_p2p_all_ok(&p);
	vw_p2p_done(&p);
	if (vw_nvlink_parse_status(text, size, &st, &err) == 0)
		for (size_t i = 0; i < st.ngpus; i++)
			vw_nvlink_links_min_speed(&st.gpus[i]);
	vw_nvlink_status_done(&st);
	if (vw_nvlink_parse_busids(text, size, &ids, &n, &err) == 0)
		for (size_t i = 0; i < n; i++)
			FU_CHECK(strlen(ids[i].addr) == 12 || strlen(ids[i].addr) == 13);
	free(ids);
	s = fu_str(data, size);
	if (vw_pci_addr_normalize(s, addr) == 0)
		FU_CHECK(strlen(addr) == 12 || strlen(addr) == 13);
	memset(&nl, 0, sizeof(nl));
	if (vw_nvlink_from_string(&nl, s, &err) == 0) {
		char *back = vw_nvlink_to_string(&nl);
		struct vw_nvlink again;

		memset(&again, 0, sizeof(again));
		FU_CHECK(vw_nvlink_from_string(&again, back, &err) == 0);
		vw_nvlink_done(&again);
		free(back);
	}
	vw_nvlink_done(&nl);
	free(s);
	return 0;
}
