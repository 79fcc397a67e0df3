/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ansible.c - a plan as an Ansible playbook (see ansible.h).
 *
 * Quoting rules, all in one place:
 *  - file contents: a literal block scalar with an explicit indentation
 *    indicator ("|2", so that a first line starting with spaces is content,
 *    not indentation) and the chomping that gives back the exact trailing
 *    newlines: "-" none, clip one, "+" more; tagged !unsafe so that Ansible
 *    never runs Jinja on it ("{{", "{%" and "{#" are common in shell);
 *  - other strings (paths, names, command words): double-quoted, with YAML
 *    escapes for everything outside the printable set, and !unsafe where
 *    they hold a Jinja delimiter; a destination that does (it is joined with
 *    {{ vfiowiz_root }}, so it cannot be !unsafe itself) goes through an
 *    !unsafe task variable;
 *  - the password in secret files: the content is a Jinja join of !unsafe
 *    pieces with {{ vfiowiz_vnc_password }}, in a no_log task.
 */
#include "ansible.h"
#include "sha256.h"
#include "exec.h"
#include "sysroot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IND_TASK "    "	/* a task's keys (after "  - " of the play) */

/* ---- UTF-8 and YAML's character set ---- */

/* Decode one code point at p (n bytes left).  Returns its length (1-4), or
 * 0 for invalid UTF-8 (overlong forms, surrogates, beyond U+10FFFF). */
static size_t utf8_next(const unsigned char *p, size_t n, uint32_t *cp)
{
	uint32_t c;
	size_t len;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		c = p[0] & 0x1f, len = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		c = p[0] & 0x0f, len = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		c = p[0] & 0x07, len = 4;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && c < 0x10000) || c > 0x10ffff ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/* Printable in YAML 1.1 and 1.2 alike (PyYAML's reader), minus what YAML
 * would read as a line break (U+0085, U+2028, U+2029) or a byte order mark:
 * the characters a block scalar carries unchanged (TAB and LF aside). */
static bool yaml_printable(uint32_t c)
{
	if (c >= 0x20 && c <= 0x7e)
		return true;
	if (c >= 0xa0 && c <= 0xd7ff)
		return c != 0x2028 && c != 0x2029;
	if (c >= 0xe000 && c <= 0xfffd)
		return c != 0xfeff;
	return c >= 0x10000 && c <= 0x10ffff;
}

bool vw_ansible_text_ok(const char *data, size_t len)
{
	const unsigned char *p = (const unsigned char *)data;

	for (size_t i = 0; i < len;) {
		uint32_t c;
		size_t k = utf8_next(p + i, len - i, &c);

		if (!k || (c != '\t' && c != '\n' && !yaml_printable(c)))
			return false;
		i += k;
	}
	return true;
}

/* A Jinja delimiter: Ansible would template the string. */
static bool jinja(const char *s)
{
	return strstr(s, "{{") || strstr(s, "{%") || strstr(s, "{#");
}

/* A double-quoted YAML scalar of the UTF-8 string s; -EINVAL if it is not
 * UTF-8. */
static int dq(struct vw_buf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	vw_buf_addc(out, '"');
	for (size_t i = 0; i < n;) {
		uint32_t c;
		size_t k = utf8_next(p + i, n - i, &c);

		if (!k)
			return -EINVAL;
		if (c == '"' || c == '\\') {
			vw_buf_addc(out, '\\');
			vw_buf_addc(out, (char)c);
		} else if (c == '\t') {
			vw_buf_adds(out, "\\t");
		} else if (c == '\n') {
			vw_buf_adds(out, "\\n");
		} else if (yaml_printable(c)) {
			vw_buf_add(out, p + i, k);
		} else if (c < 0x100) {
			vw_buf_printf(out, "\\x%02x", (unsigned)c);
		} else if (c < 0x10000) {
			vw_buf_printf(out, "\\u%04x", (unsigned)c);
		} else {
			vw_buf_printf(out, "\\U%08x", (unsigned)c);
		}
		i += k;
	}
	vw_buf_addc(out, '"');
	return 0;
}

/* A string Ansible will see as it is: double-quoted, !unsafe when it holds
 * a Jinja delimiter. */
static int str(struct vw_buf *out, const char *s)
{
	if (jinja(s))
		vw_buf_adds(out, "!unsafe ");
	return dq(out, s);
}

/* The bytes data[0..len) (vw_ansible_text_ok) as a literal block scalar
 * whose lines are indented by `indent` spaces; the scalar starts where out
 * ends (after "key: " with the key at indent - 2, or "- " with the dash at
 * indent - 2).  Prefixed with !unsafe. */
static bool block(struct vw_buf *out, const char *data, size_t len, unsigned indent)
{
	size_t body = len, trail;

	if (!len) {
		vw_buf_adds(out, "\"\"\n");
		return false;
	}
	while (body && data[body - 1] == '\n')
		body--;
	trail = len - body;
	/* The indicator is relative to the parent node's indentation, which
	 * is indent - 2 for every caller. */
	vw_buf_printf(out, "!unsafe |2%s\n", trail == 0 ? "-" : trail == 1 && body ? "" : "+");
	for (size_t i = 0; i < body;) {
		const char *nl = memchr(data + i, '\n', body - i);
		size_t end = nl ? (size_t)(nl - data) : body;

		if (end > i) {
			vw_buf_printf(out, "%*s", (int)indent, "");
			vw_buf_add(out, data + i, end - i);
		}
		vw_buf_addc(out, '\n');
		i = end + 1;
	}
	/* "+" keeps the line breaks after the last line: one ended it above
	 * (none when there is no body), the others are empty lines. */
	for (size_t i = body ? 1 : 0; i < trail; i++)
		vw_buf_addc(out, '\n');
	return trail > 1 || !body;
}

/* A comment line: no line breaks in it. */
static void comment(struct vw_buf *out, const char *indent, const char *s)
{
	vw_buf_printf(out, "%s# ", indent);
	for (; *s; s++)
		vw_buf_addc(out, *s == '\n' || *s == '\r' ? ' ' : *s);
	vw_buf_addc(out, '\n');
}

/* ---- the play ---- */

/* A "+" block scalar keeps every empty line after it, up to the next
 * non-empty one: no blank line may follow one that ends the output so far.
 * open_keep is where such a block ended (out->len then), or (size_t)-1. */
static void separator(struct vw_buf *out, size_t open_keep)
{
	if (open_keep != out->len)
		vw_buf_addc(out, '\n');
}

static size_t post_index(const struct vw_plan *plan, const char *cmd)
{
	for (size_t i = 0; i < plan->npost; i++)
		if (!strcmp(plan->post_cmds[i], cmd))
			return i;
	return (size_t)-1;
}

/* "path: what" for errors; path root-relative. */
static int refuse(struct vw_err *err, const char *path, const char *why)
{
	return vw_err_set(err, -EINVAL, _("/%s: %s"), path, why);
}

/* The password as libxml2 writes it in an attribute (control characters
 * are refused in answers), and the Jinja filters that make it so; inside a
 * YAML double-quoted scalar. */
#define XML_FILTER " | replace('&', '&amp;') | replace('<', '&lt;') | replace('>', '&gt;')" \
	" | replace('\\\"', '&quot;')"

static char *xml_escape(const char *s)
{
	struct vw_buf b = VW_BUF_INIT;

	vw_buf_adds(&b, "");
	for (; *s; s++)
		vw_buf_adds(&b, *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" :
			    *s == '"' ? "&quot;" : (char[]){ *s, 0 });
	return vw_buf_steal(&b);
}

/* Pieces of a secret content around each occurrence of the password. */
static size_t split_secret(const struct vw_change *c, const char *secret, size_t *starts,
			   size_t *lens, size_t max)
{
	size_t sl = strlen(secret), n = 0, from = 0;

	for (size_t i = 0; i + sl <= c->new_len && n + 1 < max;) {
		if (!memcmp(c->new_data + i, secret, sl)) {
			starts[n] = from;
			lens[n++] = i - from;
			i += sl;
			from = i;
		} else {
			i++;
		}
	}
	starts[n] = from;
	lens[n++] = c->new_len - from;
	return n;
}

static int count_secret(const struct vw_change *c, const char *secret)
{
	size_t sl = strlen(secret);
	int n = 0;

	if (!sl)
		return 0;
	for (size_t i = 0; i + sl <= c->new_len;) {
		if (!memcmp(c->new_data + i, secret, sl)) {
			n++;
			i += sl;
		} else {
			i++;
		}
	}
	return n;
}

/* dest: "{{ vfiowiz_root }}/path" (or through a task variable). */
static int dest(struct vw_buf *out, const char *key, const struct vw_change *c, bool *via_var)
{
	char *abs = vw_xasprintf("/%s", c->path);
	int rc = 0;

	*via_var = jinja(abs);
	if (*via_var) {
		vw_buf_printf(out, IND_TASK "  %s: \"{{ vfiowiz_root ~ vfiowiz_path }}\"\n", key);
	} else {
		vw_buf_printf(out, IND_TASK "  %s: \"{{ vfiowiz_root }}", key);
		/* dq() of the path, without its own quotes. */
		struct vw_buf q = VW_BUF_INIT;

		rc = dq(&q, abs);
		if (!rc)
			vw_buf_add(out, q.data + 1, q.len - 1);
		vw_buf_addc(out, '\n');
		vw_buf_done(&q);
	}
	free(abs);
	return rc;
}

static void notify(struct vw_buf *out, const struct vw_plan *plan, const struct vw_change *c)
{
	bool any = false;

	for (size_t k = 0; c->post && c->post[k]; k++) {
		size_t i = post_index(plan, c->post[k]);

		if (i == (size_t)-1)
			continue;
		if (!any)
			vw_buf_adds(out, IND_TASK "notify:\n");
		any = true;
		vw_buf_printf(out, IND_TASK "  - vfiowiz post %zu\n", i + 1);
	}
}

static int task(struct vw_buf *out, const struct vw_plan *plan, size_t idx,
		const struct vw_ansible_opts *o, struct vw_ansible_files *files, size_t *open_keep,
		struct vw_err *err)
{
	const struct vw_change *c = &plan->v[idx];
	char *abs = vw_xasprintf("/%s", c->path);
	bool text = vw_ansible_text_ok(c->new_data, c->new_len);
	bool via_var = false;
	const char *secret = o->secret && *o->secret ? o->secret : NULL;
	int rc = 0;

	separator(out, *open_keep);
	if (c->why)
		comment(out, "  ", c->why);
	vw_buf_adds(out, "  - name: ");
	{
		char *name = vw_xasprintf("%s %s", c->remove ? "Remove" : "Write", abs);

		rc = str(out, name);
		free(name);
	}
	vw_buf_addc(out, '\n');
	if (rc < 0)
		goto bad_utf8;

	if (c->remove) {
		vw_buf_adds(out, IND_TASK "ansible.builtin.file:\n");
		if (dest(out, "path", c, &via_var) < 0)
			goto bad_utf8;
		vw_buf_adds(out, IND_TASK "  state: absent\n");
	} else {
		mode_t mode = c->secret ? 0600 : c->mode ? c->mode : 0644;

		vw_buf_adds(out, IND_TASK "ansible.builtin.copy:\n");
		if (dest(out, "dest", c, &via_var) < 0)
			goto bad_utf8;
		/* Existing files keep their mode, as with apply; secret ones
		 * are 0600 whatever they were. */
		if (!c->old_exists || c->secret)
			vw_buf_printf(out, IND_TASK "  mode: \"%04o\"\n", (unsigned)(mode & 07777));
		vw_buf_adds(out, IND_TASK "  backup: \"{{ vfiowiz_backup | bool }}\"\n");
		if (!text) {
			if (c->secret) {
				rc = refuse(err, c->path, _("a secret file that is not text: it cannot be exported"));
				goto out;
			}
			if (!o->allow_files || !files) {
				rc = refuse(err, c->path,
					    _("not UTF-8 text that YAML can hold: write the playbook with -o FILE, "
					      "and this file goes to files/ next to it"));
				goto out;
			}
			files->v = vw_xreallocarray(files->v, files->n + 1, sizeof(*files->v));
			files->v[files->n++] = (struct vw_ansible_file){ c->path, c->new_data, c->new_len, mode };
			vw_buf_adds(out, IND_TASK "  src: ");
			{
				char *src = vw_xasprintf("files/%s", c->path);

				rc = str(out, src);
				free(src);
			}
			vw_buf_addc(out, '\n');
			if (rc < 0)
				goto bad_utf8;
		} else if (c->secret) {
			size_t max, *starts, *lens, np;
			/* libxml2 writes the password escaped in the domain XML
			 * (passwd="p&amp;ss"): the playbook escapes it the same way. */
			char *xml = secret ? xml_escape(secret) : NULL;
			const char *filter = "";

			if (secret && !count_secret(c, secret) && strcmp(xml, secret) && count_secret(c, xml)) {
				secret = xml;
				filter = XML_FILTER;
			}
			if (!secret || !count_secret(c, secret)) {
				free(xml);
				rc = refuse(err, c->path,
					    _("holds a secret other than the VNC password of the answers: "
					      "the playbook would carry it"));
				goto out;
			}
			if (c->new_data[0] == '{' || c->new_data[0] == '[') {
				/* Ansible would read the joined text as data. */
				free(xml);
				rc = refuse(err, c->path, _("a secret file starting with { or [ cannot be exported"));
				goto out;
			}
			max = (size_t)count_secret(c, secret) + 2;
			starts = vw_xcalloc(max, sizeof(*starts));
			lens = vw_xcalloc(max, sizeof(*lens));
			np = split_secret(c, secret, starts, lens, max);
			vw_buf_printf(out, IND_TASK "  content: \"{{ vfiowiz_secret_%zu | join(vfiowiz_vnc_password%s) }}\"\n",
				      idx + 1, filter);
			vw_buf_adds(out, IND_TASK "vars:\n");
			vw_buf_printf(out, IND_TASK "  vfiowiz_secret_%zu:\n", idx + 1);
			for (size_t k = 0; k < np; k++) {
				vw_buf_adds(out, IND_TASK "    - ");
				block(out, c->new_data + starts[k], lens[k], 10);
			}
			free(starts);
			free(lens);
			secret = o->secret && *o->secret ? o->secret : NULL;
			free(xml);
		} else {
			vw_buf_adds(out, IND_TASK "  content: ");
			if (block(out, c->new_data, c->new_len, 8))
				*open_keep = out->len;
		}
	}
	if (via_var) {
		if (!(c->secret && text))
			vw_buf_adds(out, IND_TASK "vars:\n");
		vw_buf_adds(out, IND_TASK "  vfiowiz_path: !unsafe ");
		if (dq(out, abs) < 0)
			goto bad_utf8;
		vw_buf_addc(out, '\n');
	}
	if (c->secret)
		vw_buf_adds(out, IND_TASK "no_log: true\n");
	notify(out, plan, c);
	goto out;
bad_utf8:
	rc = vw_err_set(err, -EINVAL, _("a path in the plan is not UTF-8: it cannot be exported"));
out:
	free(abs);
	return rc;
}

/* The guard's list: each file as the plan found it and as it will be. */
static int expect_list(struct vw_buf *out, const struct vw_plan *plan)
{
	bool any = false;

	vw_buf_adds(out,
		    "    # Each file as the plan found it (\"absent\", or its SHA-256) and as the\n"
		    "    # plan leaves it: a host holding anything else is refused.\n"
		    "    vfiowiz_files:");
	for (size_t i = 0; i < plan->n; i++) {
		const struct vw_change *c = &plan->v[i];
		char h[65], *abs;

		if (c->secret)
			continue;
		any = true;
		abs = vw_xasprintf("/%s", c->path);
		vw_buf_adds(out, "\n      - path: ");
		if (str(out, abs) < 0) {
			free(abs);
			return -EINVAL;
		}
		free(abs);
		if (c->old_exists) {
			vw_sha256_hex_of(c->old_data, c->old_len, h);
			vw_buf_printf(out, "\n        before: \"%s\"", h);
		} else {
			vw_buf_adds(out, "\n        before: absent");
		}
		if (c->remove) {
			vw_buf_adds(out, "\n        after: absent");
		} else {
			vw_sha256_hex_of(c->new_data, c->new_len, h);
			vw_buf_printf(out, "\n        after: \"%s\"", h);
		}
	}
	vw_buf_adds(out, any ? "\n" : " []\n");
	for (size_t i = 0; i < plan->n; i++)
		if (plan->v[i].secret)
			vw_buf_printf(out, "    # Not checked, as it holds the VNC password (its checksum would give\n"
				      "    # the password away): /%s\n", plan->v[i].path);
	return 0;
}

/* Copy writes into existing directories only: the parents of new files are
 * made first, as apply does (existing ones are left as they are). */
static int dirs(struct vw_buf *out, const struct vw_plan *plan)
{
	char **seen = vw_xcalloc(plan->n + 1, sizeof(*seen));
	size_t nseen = 0;
	int rc = 0;

	for (size_t i = 0; i < plan->n && !rc; i++) {
		const struct vw_change *c = &plan->v[i];
		const char *slash = strrchr(c->path, '/');
		char *d;
		bool dup = false;

		if (c->remove || c->old_exists || !slash)
			continue;
		d = vw_xasprintf("/%.*s", (int)(slash - c->path), c->path);
		for (size_t k = 0; k < nseen && !dup; k++)
			dup = !strcmp(seen[k], d);
		if (dup) {
			free(d);
			continue;
		}
		if (!nseen)
			vw_buf_adds(out, "\n  - name: Make the directories of new files\n"
					 "    ansible.builtin.file:\n"
					 "      path: \"{{ vfiowiz_root }}{{ item }}\"\n"
					 "      state: directory\n"
					 "    loop:\n");
		seen[nseen++] = d;
		vw_buf_adds(out, "      - ");
		rc = str(out, d);
		vw_buf_addc(out, '\n');
	}
	vw_strv_free(seen);
	return rc;
}

static int handlers(struct vw_buf *out, const struct vw_plan *plan, const struct vw_ansible_opts *o,
		    size_t open_keep, struct vw_err *err)
{
	if (!plan->npost)
		return 0;
	separator(out, open_keep);
	vw_buf_adds(out, "  # The post-commands, in plan order, once, after every file is written and\n"
			 "  # only when a file that needs them changed; none under vfiowiz_root.\n"
			 "  handlers:\n");
	for (size_t i = 0; i < plan->npost; i++) {
		char **argv = NULL;
		char *name;
		int rc;

		if (vw_exec_split(plan->post_cmds[i], &argv, err) < 0)
			return -EINVAL;
		name = vw_xasprintf("Run %s", plan->post_cmds[i]);
		vw_buf_adds(out, "  - name: ");
		rc = str(out, name);
		free(name);
		vw_buf_printf(out, "\n    listen: vfiowiz post %zu\n    ansible.builtin.command:\n      argv:\n",
			      i + 1);
		for (size_t k = 0; !rc && argv[k]; k++) {
			vw_buf_adds(out, "        - ");
			rc = str(out, argv[k]);
			vw_buf_addc(out, '\n');
		}
		vw_strv_free(argv);
		if (rc < 0)
			return vw_err_set(err, -EINVAL, _("a post-command is not UTF-8: it cannot be exported"));
		vw_buf_adds(out, "    changed_when: true\n"
				 "    when: vfiowiz_root == \"\"\n");
	}
	for (size_t i = 0; o->checks && i < o->nchecks; i++) {
		const struct vw_check *ck = &o->checks[i];
		size_t after = post_index(plan, ck->after);
		char **argv = NULL;
		char *name;
		int rc;

		if (after == (size_t)-1)
			continue;
		if (vw_exec_split(ck->cmd, &argv, err) < 0)
			return -EINVAL;
		name = vw_xasprintf("Check that %s lists the vfio modules", ck->cmd);
		vw_buf_adds(out, "  - name: ");
		rc = str(out, name);
		free(name);
		vw_buf_printf(out, "\n    listen: vfiowiz post %zu\n    ansible.builtin.command:\n      argv:\n",
			      after + 1);
		for (size_t k = 0; !rc && argv[k]; k++) {
			vw_buf_adds(out, "        - ");
			rc = str(out, argv[k]);
			vw_buf_addc(out, '\n');
		}
		vw_strv_free(argv);
		vw_buf_adds(out, "    vars:\n      vfiowiz_must_list:\n");
		for (size_t k = 0; !rc && ck->expect[k]; k++) {
			vw_buf_adds(out, "        - ");
			rc = str(out, ck->expect[k]);
			vw_buf_addc(out, '\n');
		}
		if (rc < 0)
			return vw_err_set(err, -EINVAL, _("a check is not UTF-8: it cannot be exported"));
		vw_buf_printf(out,
			      "    register: vfiowiz_check_%zu\n"
			      "    changed_when: false\n"
			      "    failed_when: >-\n"
			      "      vfiowiz_check_%zu.rc != 0 or\n"
			      "      vfiowiz_must_list | reject('in', vfiowiz_check_%zu.stdout) | list | length > 0\n"
			      "    when: vfiowiz_root == \"\"\n",
			      i + 1, i + 1, i + 1);
	}
	return 0;
}

int vw_ansible_playbook(struct vw_buf *out, const struct vw_plan *plan,
			const struct vw_ansible_opts *o, struct vw_ansible_files *files,
			struct vw_err *err)
{
	static const struct vw_ansible_opts none = { 0 };
	size_t open_keep = (size_t)-1;
	bool prompt = false;

	if (!o)
		o = &none;
	if (files)
		*files = (struct vw_ansible_files){ 0 };
	for (size_t i = 0; i < plan->n; i++)
		prompt = prompt || (plan->v[i].secret && !plan->v[i].remove);

	vw_buf_printf(out, "# Written by %s %s", PACKAGE, PACKAGE_VERSION);
	if (o->source) {
		struct vw_buf q = VW_BUF_INIT;

		/* A name that is not UTF-8 stays out of the comment. */
		if (dq(&q, o->source) == 0 && !strchr(o->source, '\n'))
			vw_buf_printf(out, " from %s", q.data);
		vw_buf_done(&q);
	}
	vw_buf_adds(out,
		    ": the changes of `vfiowiz plan`, as\n"
		    "# one Ansible play for every host of the inventory (-e vfiowiz_hosts=GROUP for\n"
		    "# fewer).\n"
		    "#\n"
		    "#   ansible-playbook -i INVENTORY vfiowiz.yml --check --diff   # the diffs only\n"
		    "#   ansible-playbook -i INVENTORY vfiowiz.yml                  # make the changes\n"
		    "#\n"
		    "# The hosts must be like the one the plan was made on (the same devices at the\n"
		    "# same addresses, bootloader and initramfs tool): each file is written whole,\n"
		    "# with the bytes planned there.  A host whose file is neither what the plan\n"
		    "# was made from nor the planned result is refused before anything is written\n"
		    "# (-e vfiowiz_force=true writes it anyway).  The post-commands run as handlers,\n"
		    "# once, after the files, only where a file changed.  These runs are not in\n"
		    "# vfiowiz's journal: `vfiowiz undo` cannot take them back (-e\n"
		    "# vfiowiz_backup=true keeps each replaced file next to it, with a date).\n"
		    "# -e vfiowiz_root=DIR writes under DIR instead of / and runs no post-command.\n");
	if (prompt)
		vw_buf_adds(out, "# The VNC password is not in this file: it is asked for at the start (or\n"
				 "# -e vfiowiz_vnc_password=..., or a vault); secret files are no_log.\n");
	vw_buf_adds(out, "---\n"
			 "- name: GPU passthrough (vfiowiz)\n"
			 "  hosts: \"{{ vfiowiz_hosts | default('all') }}\"\n"
			 "  become: true\n"
			 "  gather_facts: false\n");
	if (prompt)
		vw_buf_adds(out, "  vars_prompt:\n"
				 "    - name: vfiowiz_vnc_password\n"
				 "      prompt: VNC password of the VM (at most 8 characters)\n"
				 "      private: true\n"
				 "      unsafe: true\n");
	vw_buf_adds(out, "  vars:\n"
			 "    vfiowiz_root: \"\"\n"
			 "    vfiowiz_force: false\n"
			 "    vfiowiz_backup: false\n");
	if (expect_list(out, plan) < 0)
		return vw_err_set(err, -EINVAL, _("a path in the plan is not UTF-8: it cannot be exported"));
	if (!plan->n) {
		vw_buf_adds(out, "  # Nothing to change: the host already holds what the answers ask for.\n"
				 "  tasks: []\n");
		return 0;
	}
	vw_buf_adds(out,
		    "  tasks:\n"
		    "  - name: Look at the files the plan changes\n"
		    "    ansible.builtin.stat:\n"
		    "      path: \"{{ vfiowiz_root }}{{ item.path }}\"\n"
		    "      follow: true\n"
		    "      checksum_algorithm: sha256\n"
		    "      get_mime: false\n"
		    "    loop: \"{{ vfiowiz_files }}\"\n"
		    "    loop_control:\n"
		    "      label: \"{{ item.path }}\"\n"
		    "    register: vfiowiz_stat\n"
		    "    when: not (vfiowiz_force | bool)\n"
		    "\n"
		    "  - name: Refuse a host whose files changed since the plan was made\n"
		    "    ansible.builtin.assert:\n"
		    "      that:\n"
		    "        - >-\n"
		    "          (item.stat.checksum | default('not a file') if item.stat.exists else 'absent')\n"
		    "          in [item.item.before, item.item.after]\n"
		    "      fail_msg: >-\n"
		    "        {{ item.item.path }} is not what the plan was made from: plan again on\n"
		    "        this host, or -e vfiowiz_force=true to overwrite it\n"
		    "      quiet: true\n"
		    "    loop: \"{{ vfiowiz_stat.results }}\"\n"
		    "    loop_control:\n"
		    "      label: \"{{ item.item.path }}\"\n"
		    "    when: not (vfiowiz_force | bool)\n");
	if (dirs(out, plan) < 0)
		return vw_err_set(err, -EINVAL, _("a path in the plan is not UTF-8: it cannot be exported"));
	for (size_t i = 0; i < plan->n; i++) {
		int rc = task(out, plan, i, o, files, &open_keep, err);

		if (rc < 0) {
			vw_ansible_files_done(files);
			return rc;
		}
	}
	if (handlers(out, plan, o, open_keep, err) < 0) {
		vw_ansible_files_done(files);
		return -EINVAL;
	}
	return 0;
}

void vw_ansible_files_done(struct vw_ansible_files *files)
{
	if (!files)
		return;
	free(files->v);
	*files = (struct vw_ansible_files){ 0 };
}
