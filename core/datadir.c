/* SPDX-License-Identifier: GPL-2.0-or-later */
/* datadir.c - the program's data: environment, build tree, installed paths. */
#include "vw.h"
#include "datadir.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How many directories above the binary a build tree's top may be: 0 for
 * ./vfiowiz, 1 for tests/test-*, 2 for tests/tui/test-wizcore. */
#define BUILDTREE_UP 2

/* The source tree named by the marker at dir, or NULL when dir is not the
 * top of a build tree.  Caller frees. */
static char *marker_srcdir(const char *dir)
{
	char *path = vw_xasprintf("%s/%s", dir, VW_BUILDTREE_MARKER);
	char line[PATH_MAX + 16], *src = NULL;
	FILE *fp = fopen(path, "re");

	free(path);
	if (!fp)
		return NULL;
	while (!src && fgets(line, sizeof(line), fp)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "srcdir=", 7) && line[7] == '/')
			src = vw_xstrdup(line + 7);
	}
	fclose(fp);
	return src;
}

bool vw_datadir_buildtree(char **build, char **src)
{
	/* The program's own file: the host under examination (the sysroot)
	 * has nothing to do with it. */
	char *dir = realpath("/proc/self/exe", NULL), *s = NULL, *slash;

	for (int up = 0; dir && up <= BUILDTREE_UP && !s; up++) {
		slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			break;
		*slash = '\0';
		s = marker_srcdir(dir);
	}
	if (!s) {
		free(dir);
		return false;
	}
	if (build)
		*build = dir;
	else
		free(dir);
	if (src)
		*src = s;
	else
		free(s);
	return true;
}

/* The file or directory that shows a candidate of kind is whole. */
static const char *const probe[] = {
	[VW_DATA_TEMPLATES] = "libvirt-windows.xml",
	[VW_DATA_DEMO] = "sys",
	[VW_DATA_LOCALE] = ".",
};

static bool holds(const char *dir, enum vw_data kind)
{
	char *p;
	bool ok;

	if (!dir || !*dir)
		return false;
	p = vw_xasprintf("%s/%s", dir, probe[kind]);
	ok = access(p, R_OK) == 0;
	free(p);
	return ok;
}

char *vw_datadir(enum vw_data kind)
{
	static const char *const env[] = {
		[VW_DATA_TEMPLATES] = "VFIOWIZ_TEMPLATES",
		[VW_DATA_DEMO] = "VFIOWIZ_DEMO",
		[VW_DATA_LOCALE] = "VFIOWIZ_LOCALEDIR",
	};
	const char *installed[] = {
		[VW_DATA_TEMPLATES] = VW_PKGDATADIR "/templates",
		[VW_DATA_DEMO] = VW_PKGDATADIR "/demo",
		[VW_DATA_LOCALE] = LOCALEDIR,
	};
	const char *e = getenv(env[kind]);
	char *build, *src, *dir = NULL;

	if (holds(e, kind))
		return vw_xstrdup(e);
	if (vw_datadir_buildtree(&build, &src)) {
		/* As `make` leaves them: templates in the source tree, the
		 * demo host and the catalogs built (mk/wizard.am, mk/i18n.am). */
		if (kind == VW_DATA_TEMPLATES)
			dir = vw_xasprintf("%s/templates", src);
		else if (kind == VW_DATA_DEMO)
			dir = vw_xasprintf("%s/tests/out/hosts/demo", build);
		else
			dir = vw_xasprintf("%s/po/locale", build);
		free(build);
		free(src);
		if (holds(dir, kind))
			return dir;
		free(dir);
	}
	if (kind == VW_DATA_LOCALE || holds(installed[kind], kind))
		return vw_xstrdup(installed[kind]);
	return NULL;
}
