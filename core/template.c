/* SPDX-License-Identifier: GPL-2.0-or-later */
/* template.c - the program's templates: found, read, filled in. */
#include "template.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datadir.h"

#define TEMPLATE_MAX (256u << 10)

char *vw_template_dir(void)
{
	return vw_datadir(VW_DATA_TEMPLATES);
}

int vw_template_load(const char *name, char **text, size_t *len, struct vw_err *err)
{
	char *dir = vw_template_dir(), *path;
	struct vw_buf b = VW_BUF_INIT;
	char chunk[8192];
	size_t n;
	FILE *fp;
	int rc = 0;

	*text = NULL;
	if (!dir)
		return vw_err_set(err, -ENOENT,
				  _("the templates are not installed (set VFIOWIZ_TEMPLATES to their directory)"));
	path = vw_xasprintf("%s/%s", dir, name);
	free(dir);
	fp = fopen(path, "re");
	if (!fp) {
		rc = vw_err_set(err, -errno, _("cannot read the template %s: %s"), path, strerror(errno));
		free(path);
		return rc;
	}
	vw_buf_adds(&b, "");
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0) {
		vw_buf_add(&b, chunk, n);
		if (b.len > TEMPLATE_MAX) {
			rc = vw_err_set(err, -EFBIG, _("the template %s is too large"), path);
			break;
		}
	}
	if (!rc && ferror(fp))
		rc = vw_err_set(err, -EIO, _("cannot read the template %s"), path);
	fclose(fp);
	free(path);
	if (rc) {
		vw_buf_done(&b);
		return rc;
	}
	if (len)
		*len = b.len;
	*text = vw_buf_steal(&b);
	return 0;
}

int vw_template_expand(struct vw_buf *out, const char *text, size_t len,
		       const struct vw_tvar *vars, size_t nvars, const char *tname,
		       struct vw_err *err)
{
	size_t i = 0;

	vw_buf_adds(out, "");
	while (i < len) {
		size_t j = i + 1;
		bool found = false;

		if (text[i] != '@' || j >= len || !isupper((unsigned char)text[j])) {
			vw_buf_addc(out, text[i++]);
			continue;
		}
		while (j < len && (isupper((unsigned char)text[j]) || isdigit((unsigned char)text[j]) ||
				   text[j] == '_'))
			j++;
		if (j >= len || text[j] != '@') {
			vw_buf_addc(out, text[i++]);
			continue;
		}
		for (size_t k = 0; k < nvars; k++) {
			if (strlen(vars[k].name) == j - i - 1 &&
			    memcmp(vars[k].name, text + i + 1, j - i - 1) == 0) {
				vw_buf_adds(out, vars[k].value);
				found = true;
				break;
			}
		}
		if (!found)
			return vw_err_set(err, -EINVAL, _("the template %s uses an unknown variable %.*s"),
					  tname, (int)(j - i + 1), text + i);
		i = j + 1;
	}
	return 0;
}
