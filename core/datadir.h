/* SPDX-License-Identifier: GPL-2.0-or-later */
/* datadir.h - where the program's own data is found at run time.
 *
 * The templates, the demo host and the message catalogs are looked for in
 * this order, the first that exists winning:
 *  1. the environment: $VFIOWIZ_TEMPLATES, $VFIOWIZ_DEMO, $VFIOWIZ_LOCALEDIR;
 *  2. the build tree, when the running program is in one: the directory of
 *     /proc/self/exe (or one or two above it, for the test programs under
 *     tests/) holds the marker `make` writes there, vfiowiz.buildtree
 *     (mk/core.am), which names the source tree;
 *  3. the installed paths, $(pkgdatadir) and $(localedir).
 * No path of the build tree is compiled in: the same binary installed finds
 * the installed files, and two builds in two directories are identical.
 * These are the program's files, not the host's: they never go through the
 * sysroot.
 */
#ifndef VW_DATADIR_H
#define VW_DATADIR_H

/* The marker file at the top of a build tree: "srcdir=ABSOLUTE PATH\n". */
#define VW_BUILDTREE_MARKER "vfiowiz.buildtree"

enum vw_data {
	VW_DATA_TEMPLATES,	/* holds libvirt-windows.xml and the others */
	VW_DATA_DEMO,		/* the demo host tree (holds sys/) */
	VW_DATA_LOCALE,		/* LANG/LC_MESSAGES/vfiowiz.mo */
};

/* The directory of kind, or NULL when no candidate exists (the demo host or
 * the templates not installed).  VW_DATA_LOCALE never fails: the installed
 * $(localedir) is returned even when absent (gettext then shows English).
 * Caller frees. */
char *vw_datadir(enum vw_data kind);

/* The top of the build tree the program runs from and its source tree, or
 * false when it runs installed.  *build and *src are the caller's to free;
 * either pointer may be NULL. */
bool vw_datadir_buildtree(char **build, char **src);

#endif
