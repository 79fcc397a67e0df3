/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_shvar.c - shell-variable values and augeas lenses (core/augedit.h):
 * quoting round trips, static expansion, and parsing with the Shellvars,
 * Modprobe and Modules lenses.  The first byte picks the lens.  Text with a
 * control byte (other than tab, CR, LF) is refused before augeas sees it. */
#include "augedit.h"
#include "fuzzutil.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *lookup(const char *name, void *arg)
{
	(void)arg;
	return !strcmp(name, "GRUB_CMDLINE_LINUX") ? "quiet splash" : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const lenses[] = { "Shellvars.lns", "Modprobe.lns", "Modules.lns" };
	static struct vw_aug *aug;
	static struct vw_sysroot *sr;
	static unsigned uses;
	struct vw_err err = { 0 };
	enum vw_shq q;
	char *s, *inner = NULL, *x;
	int doc;

	if (!size)
		return 0;
	s = fu_str(data + 1, size - 1);
	if (strlen(s) != size - 1) {
		free(s);
		return 0;
	}
	if (vw_sh_unquote(s, &q, &inner)) {
		char *again = vw_sh_quote(inner, q), *inner2 = NULL;
		enum vw_shq q2;

		FU_CHECK(vw_sh_unquote(again, &q2, &inner2));
		FU_CHECK(!strcmp(inner, inner2));
		free(inner2);
		free(again);
		free(inner);
	}
	x = vw_sh_expand(s, lookup, NULL);
	free(x);

	/* Documents pile up in one handle: start a new one now and then. */
	if (aug && ++uses % 16 == 0) {
		vw_aug_free(aug);
		aug = NULL;
	}
	if (!sr)
		FU_CHECK(vw_sysroot_open(&sr, fu_scratch(), &err) == 0);
	if (!aug)
		FU_CHECK(vw_aug_new(&aug, sr, &err) == 0);
	doc = vw_aug_load(aug, lenses[data[0] % 3], s, "fuzz", &err);
	/* Control bytes never reach augeas (it aborts on some, e.g. 0x04). */
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r') || *p == 0x7f)
			FU_CHECK(doc < 0 && strstr(err.msg, "control character"));
	if (doc >= 0) {
		char *text = NULL;

		/* An untouched tree gives its text back, when augeas can write
		 * it at all (some lenses read what they cannot write, e.g.
		 * control bytes in Modules: an error, not a crash). */
		if (vw_aug_text(aug, doc, &text, &err) == 0)
			FU_CHECK(!strcmp(text, s));
		else
			FU_CHECK(err.msg[0] != '\0');
		free(text);
	}
	free(s);
	return 0;
}
