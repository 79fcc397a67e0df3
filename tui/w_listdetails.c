/* SPDX-License-Identifier: GPL-2.0-or-later */
/* w_listdetails.c - a list with the details of the item under the cursor
 * below it, the layout of most steps (tui/wizard.h). */
#include "wizard.h"

void vw_ld_init(struct vw_listdetails *ld)
{
	vw_list_init(&ld->list);
	vw_text_init(&ld->details);
	ld->shown = VW_LD_STALE;
}

void vw_ld_done(struct vw_listdetails *ld)
{
	vw_list_done(&ld->list);
	vw_text_done(&ld->details);
}

void vw_ld_stale(struct vw_listdetails *ld)
{
	ld->shown = VW_LD_STALE;
}

bool vw_ld_follow(struct vw_listdetails *ld, const struct vw_ctx *ctx, struct vw_item **it)
{
	int tag;
	bool on;

	*it = vw_list_current(&ld->list);
	tag = *it ? (*it)->tag : -1;
	on = *it && (*it)->on;
	if (ld->details.np && ((tag == ld->shown && on == ld->shown_on) || !ctx->settled))
		return false;
	ld->shown = tag;
	ld->shown_on = on;
	vw_text_clear(&ld->details);
	ld->details.top = 0;
	return true;
}

void vw_ld_draw(struct vw_listdetails *ld, WINDOW *w, const char *intro, int list_max)
{
	vw_draw_list_details(w, intro, &ld->list, list_max, _("Details"), &ld->details);
}

enum vw_key_result vw_ld_key(struct vw_listdetails *ld, enum vw_wkey r, int key)
{
	if (r != VW_W_IGNORED)
		return VW_KEY_HANDLED;
	if (key == VW_KEY_PGDN || key == VW_KEY_PGUP)
		return vw_text_key(&ld->details, key) ? VW_KEY_HANDLED : VW_KEY_IGNORED;
	return VW_KEY_IGNORED;
}

bool vw_ld_editing(void *priv)
{
	struct vw_listdetails *ld = priv;

	return vw_list_editing(&ld->list);
}

void vw_ld_step_done(void *priv)
{
	vw_ld_done(priv);
}
