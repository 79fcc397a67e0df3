/* SPDX-License-Identifier: GPL-2.0-or-later */
/* script.c - the wizard's scripted mode: keys from --script, dumps of the
 * screen into --dump. */
#include "script.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "ui.h"

int vw_script_parse(struct vw_script *s, const char *text, struct vw_err *err)
{
	char *copy = vw_xstrdup(text), *save = NULL;

	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct vw_script_key k = { VW_KEY_NONE, 0, 0 };

		tok = vw_strtrim(tok);
		if (!*tok)
			continue;
		if (vw_startswith(tok, "type:")) {
			wchar_t wc;
			mbstate_t st;
			const char *p = tok + 5;

			memset(&st, 0, sizeof(st));
			while (*p) {
				size_t n = mbrtowc(&wc, p, strlen(p), &st);

				if (n == (size_t)-1 || n == (size_t)-2 || n == 0)
					break;
				s->keys = vw_xreallocarray(s->keys, s->n + 1, sizeof(*s->keys));
				s->keys[s->n++] = (struct vw_script_key){ (int)wc, 0, 0 };
				p += n;
			}
			continue;
		}
		if (vw_startswith(tok, "resize:")) {
			if (sscanf(tok + 7, "%dx%d", &k.cols, &k.lines) != 2 || k.cols < 10 || k.lines < 5 ||
			    k.cols > 1000 || k.lines > 1000) {
				free(copy);
				return vw_err_set(err, -EINVAL, _("bad size in the script: %s"), tok);
			}
			k.key = VW_KEY_RESIZE;
		} else {
			k.key = vw_ui_key_parse(tok);
		}
		if (k.key == VW_KEY_NONE) {
			free(copy);
			return vw_err_set(err, -EINVAL, _("unknown key in the script: %s"), tok);
		}
		s->keys = vw_xreallocarray(s->keys, s->n + 1, sizeof(*s->keys));
		s->keys[s->n++] = k;
	}
	free(copy);
	return 0;
}

int vw_script_next(struct vw_script *s)
{
	const struct vw_script_key *k;

	if (s->ip >= s->n)
		return VW_KEY_NONE;
	k = &s->keys[s->ip++];
	if (k->key == VW_KEY_RESIZE)
		vw_ui_resize(k->cols, k->lines);
	return k->key;
}

void vw_script_dump(struct vw_script *s, const char *name)
{
	char *path, *text;
	FILE *fp;

	if (!s->dump)
		return;
	path = vw_xasprintf("%s/%03u-%s.txt", s->dump, s->ndump++, name);
	text = vw_ui_dump();
	fp = fopen(path, "w");
	if (fp) {
		fputs(text, fp);
		fclose(fp);
	}
	free(text);
	free(path);
}

void vw_script_done(struct vw_script *s)
{
	free(s->keys);
	s->keys = NULL;
	s->n = s->ip = 0;
}
