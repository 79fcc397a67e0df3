#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Read a vfiowiz playbook back and compare every file it writes with a tree.

    ansible-contents.py PLAYBOOK AFTER [PASSWORD]

PLAYBOOK is read with Ansible's own YAML loader when Ansible is installed
(else PyYAML, with !unsafe read as a plain string).  For every copy task the
bytes Ansible would write (content:, the !unsafe pieces of a secret file
joined with PASSWORD, or files/ next to the playbook for src:) must equal
AFTER/<dest>; every removal must be absent from AFTER.  Exit 0, 1 with the
differences, 77 when no YAML loader is installed.
"""
import os
import sys

try:
    from ansible.parsing.yaml.loader import AnsibleLoader

    def load(text):
        return AnsibleLoader(text).get_single_data()
    LOADER = "ansible"
except ImportError:
    try:
        import yaml
    except ImportError:
        print("SKIP: no YAML loader (python3-yaml or ansible-core)")
        sys.exit(77)

    class Loader(yaml.SafeLoader):
        pass

    def unsafe(loader, node):
        if isinstance(node, yaml.ScalarNode):
            return loader.construct_scalar(node)
        if isinstance(node, yaml.SequenceNode):
            return loader.construct_sequence(node)
        return loader.construct_mapping(node)
    Loader.add_constructor("!unsafe", unsafe)

    def load(text):
        return yaml.load(text, Loader=Loader)
    LOADER = "pyyaml"

ROOT = "{{ vfiowiz_root }}"


def dest_of(task, args, key):
    d = args[key]
    if d == "{{ vfiowiz_root ~ vfiowiz_path }}":
        return str(task["vars"]["vfiowiz_path"])
    assert d.startswith(ROOT), d
    return d[len(ROOT):]


def main():
    book, after = sys.argv[1], sys.argv[2]
    password = sys.argv[3] if len(sys.argv) > 3 else None
    with open(book, encoding="utf-8") as f:
        plays = load(f.read())
    assert isinstance(plays, list) and len(plays) == 1, "one play"
    play = plays[0]
    fail = 0
    n = 0
    for task in play.get("tasks") or []:
        if "ansible.builtin.copy" in task:
            args = task["ansible.builtin.copy"]
            path = dest_of(task, args, "dest")
            if "src" in args:
                with open(os.path.join(os.path.dirname(book), str(args["src"])), "rb") as f:
                    data = f.read()
            elif "vars" in task and any(k.startswith("vfiowiz_secret_") for k in task["vars"]):
                assert task.get("no_log") is True, path + ": a secret file without no_log"
                key = [k for k in task["vars"] if k.startswith("vfiowiz_secret_")][0]
                xml = (" | replace('&', '&amp;') | replace('<', '&lt;') | replace('>', '&gt;')"
                       " | replace('\"', '&quot;')")
                assert args["content"] in ("{{ %s | join(vfiowiz_vnc_password) }}" % key,
                                           "{{ %s | join(vfiowiz_vnc_password%s) }}" % (key, xml))
                if password is None:
                    print("note: %s: no password given, not compared" % path)
                    continue
                pw = password
                if xml in args["content"]:  # the password as libxml2 escapes it
                    pw = (pw.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                          .replace('"', "&quot;"))
                data = pw.join(str(p) for p in task["vars"][key]).encode()
            else:
                data = str(args["content"]).encode("utf-8")
            try:
                with open(after + path, "rb") as f:
                    want = f.read()
            except OSError as e:
                print("FAIL: %s: %s" % (path, e))
                fail += 1
                continue
            n += 1
            if data != want:
                print("FAIL: %s: the playbook writes %r, the plan %r" % (path, data[:200], want[:200]))
                fail += 1
        elif "ansible.builtin.file" in task and task["ansible.builtin.file"]["state"] == "directory":
            for d in task["loop"]:
                n += 1
                if not os.path.isdir(after + str(d)):
                    print("FAIL: %s: made by the playbook, not a directory after the plan" % d)
                    fail += 1
        elif "ansible.builtin.file" in task:
            args = task["ansible.builtin.file"]
            path = dest_of(task, args, "path")
            assert args["state"] == "absent"
            n += 1
            if os.path.lexists(after + path):
                print("FAIL: %s: removed by the playbook, present after the plan" % path)
                fail += 1
    print("%s: %d files compared (%s loader), %d differ" % (os.path.basename(book), n, LOADER, fail))
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
