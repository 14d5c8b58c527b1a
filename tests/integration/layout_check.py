#!/usr/bin/env python3
"""Checks that the documents and examples follow docs/files.md, the one
source of wirehook's recommended directories, owners and modes
(test_layout.sh runs it).

usage: layout_check.py TOP [FILE...]

Reads the tables of TOP/docs/files.md, then every command in the FILEs
(default: README.md, docs/*.md, examples/*/*, debian/*.README.Debian and
debian/*.postinst) that sets a mode, owner or group -- install, chmod,
chown, chgrp -- on a file the tables name, and every SQLite InboxParams;
and the forwarder's unit and its constants in shared/forward/wh_forward.h.
Prints one line per disagreement, "FILE:LINE: what", then a summary line
"checked N commands, M InboxParams; rows: ..." on stderr. Exit 1 on any
disagreement."""
import glob
import os
import re
import shlex
import sys

TOP = sys.argv[1]


def rows_of(path):
    """{profile: [row]} from the tables under the '## ' headings."""
    profile, rows, cols = None, {}, None
    for line in open(path, encoding="utf-8"):
        if line.startswith("## "):
            profile = "suexec" if "suEXEC" in line else "server"
            cols = None
            continue
        if not line.startswith("|") or profile is None:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cols is None:
            cols = cells
            continue
        if set(cells[0]) <= set("-: "):
            continue
        r = dict(zip(cols, cells))
        r["path"] = r["path"].strip("`")
        r["profile"] = profile
        rows.setdefault(profile, []).append(r)
    return rows


ROWS = rows_of(os.path.join(TOP, "docs", "files.md"))


def norm_mode(m):
    return m.lstrip("0") or "0"


def home_to_tilde(p):
    return re.sub(r"^/home/[^/]+/", "~/", p)


def match_path(pattern, path):
    """A row's path against a path as written (ACCOUNT and NAME are
    placeholders for one path segment)."""
    rx = "^" + re.escape(pattern).replace("ACCOUNT", "[^/]+").replace("NAME", "[^/]+") + "$"
    return re.match(rx, path) is not None


def rows_for(arg, source):
    """The rows a path argument names: absolute (or ~) paths by their
    whole path, bare names by the file they were written in (the shared
    hosting example speaks of ~/.wirehook, the rest of /etc/wirehook)."""
    arg = home_to_tilde(arg.rstrip("/"))
    if arg.startswith("/") or arg.startswith("~/"):
        profile = "suexec" if arg.startswith("~/") or arg.startswith("/var/www/") else "server"
        return [r for r in ROWS.get(profile, []) if match_path(r["path"], arg)]
    if "/" in arg or arg.startswith("$") or arg.startswith("-"):
        return []
    profile = "suexec" if "shared-hosting-cgi" in source else "server"
    confdir = "~/.wirehook" if profile == "suexec" else "/etc/wirehook"
    return [r for r in ROWS.get(profile, []) if match_path(r["path"], confdir + "/" + arg)]


def commands(line):
    """The commands of one line of shell, wherever it stands (a comment,
    a README.Debian indent, after sudo)."""
    text = re.sub(r"^\s*(#|\$)?\s*", "", line)
    for seg in re.split(r"&&|\|\||;|\|", text):
        seg = seg.strip()
        try:
            words = shlex.split(seg, comments=True)
        except ValueError:
            words = seg.split()
        while words and words[0] in ("sudo", "exec"):
            words = words[1:]
        if words and words[0] in ("install", "chmod", "chown", "chgrp"):
            yield words


def settings(words):
    """[(path, owner, group, mode)] a command sets."""
    cmd, args = words[0], words[1:]
    out = []
    if cmd == "install":
        owner = group = mode = None
        paths, i = [], 0
        while i < len(args):
            a = args[i]
            if a in ("-o", "-g", "-m") and i + 1 < len(args):
                v = args[i + 1]
                owner, group, mode = (v if a == "-o" else owner, v if a == "-g" else group,
                                      v if a == "-m" else mode)
                i += 2
                continue
            if not a.startswith("-"):
                paths.append(a)
            i += 1
        if "-d" in args:
            out += [(p, owner, group, mode) for p in paths]
        elif paths:
            out.append((paths[-1], owner, group, mode))
    elif cmd == "chmod" and args and re.fullmatch(r"0?[0-7]{3}", args[0]):
        out += [(p, None, None, args[0]) for p in args[1:]]
    elif cmd == "chown" and args:
        owner, _, group = args[0].partition(":")
        out += [(p, owner or None, group or None, None) for p in args[1:]]
    elif cmd == "chgrp" and args:
        out += [(p, None, args[0], None) for p in args[1:]]
    return out


problems, checked, params, used = [], 0, 0, set()


def say(src, n, text):
    problems.append("%s:%d: %s" % (os.path.relpath(src, TOP), n, text))


def check_setting(src, n, words, path, owner, group, mode):
    global checked
    rows = rows_for(path, src)
    if not rows:
        return
    checked += 1
    ok = [r for r in rows
          if (mode is None or norm_mode(mode) == norm_mode(r["mode"]))
          and (owner is None or owner == r["owner"] or r["owner"] == "the account")
          and (group is None or group == r["group"] or r["group"] == "the account")]
    if ok:
        used.add(ok[0]["what"] + "@" + ok[0]["profile"])
        return
    want = " or ".join("%s:%s %s" % (r["owner"], r["group"], r["mode"]) for r in rows)
    say(src, n, "`%s` sets %s %s, but docs/files.md says %s" % (
        " ".join(words), path, " ".join(x for x in (
            owner and "owner " + owner, group and "group " + group, mode and "mode " + mode) if x),
        want))


def check_inbox_params(src, n, value):
    """An SQLite InboxParams must be in the inbox's directory."""
    global params
    value = value.strip().strip('"')
    if not value or "=" in value or value.startswith(("file:", ":memory:", "$")):
        return
    if value.startswith("/") or value.startswith("~/"):
        path = home_to_tilde(value)
    elif "shared-hosting-cgi" in src:
        path = "~/.wirehook/" + value
    else:
        return   # relative to a configuration the document puts elsewhere
    profile = "suexec" if path.startswith("~/") else "server"
    inbox = [r for r in ROWS.get(profile, []) if r["what"] == "the inbox's directory"]
    params += 1
    if not inbox or not path.startswith(inbox[0]["path"] + "/"):
        say(src, n, "InboxParams %s is not in the inbox's directory of docs/files.md (%s)"
            % (value, inbox[0]["path"] if inbox else "none"))


def scan(src):
    for n, line in enumerate(open(src, encoding="utf-8", errors="replace"), 1):
        for words in commands(line):
            for path, owner, group, mode in settings(words):
                check_setting(src, n, words, path, owner, group, mode)
        m = re.match(r"^\s*(?:#\s*)?InboxParams\s+(\S+)", line)
        if m:
            check_inbox_params(src, n, m.group(1))


def check_unit():
    unit = os.path.join(TOP, "examples", "forward", "wirehook-forward@.service")
    text = open(unit, encoding="utf-8").read()
    state = [r for r in ROWS["server"] if r["what"] == "state directory"][0]["path"]
    confdir = [r for r in ROWS["server"] if r["what"] == "configuration directory"][0]["path"]
    fsecret = [r for r in ROWS["server"] if r["what"] == "the forwarder's secret"][0]
    rw = re.findall(r"^ReadWritePaths=(.*)$", text, re.M)
    if rw != [state]:
        say(unit, 0, "ReadWritePaths=%s, docs/files.md's state directory is %s" % (rw, state))
    ex = re.search(r"^ExecStart=\S+ forward --config (\S+)/%i\.conf", text, re.M)
    if not ex or ex.group(1) != confdir:
        say(unit, 0, "ExecStart= does not read %s/%%i.conf" % confdir)
    user = re.search(r"^User=(\S+)$", text, re.M)
    if not user or user.group(1) != fsecret["owner"]:
        say(unit, 0, "User= is not the forwarder's secret's owner (%s)" % fsecret["owner"])
    hdr = os.path.join(TOP, "shared", "forward", "wh_forward.h")
    consts = dict(re.findall(r'#define (WH_FORWARD_UNIT_\w+) "([^"]*)"', open(hdr).read()))
    if consts.get("WH_FORWARD_UNIT_WRITABLE") != state:
        say(hdr, 0, "WH_FORWARD_UNIT_WRITABLE is not %s" % state)
    if consts.get("WH_FORWARD_UNIT_CONFIG_DIR") != confdir:
        say(hdr, 0, "WH_FORWARD_UNIT_CONFIG_DIR is not %s" % confdir)


files = sys.argv[2:]
if not files:
    files = [os.path.join(TOP, "README.md")] + sorted(glob.glob(os.path.join(TOP, "docs", "*.md")))
    files += sorted(f for f in glob.glob(os.path.join(TOP, "examples", "*", "*")) if os.path.isfile(f))
    files += sorted(glob.glob(os.path.join(TOP, "debian", "*.README.Debian")))
    files += sorted(glob.glob(os.path.join(TOP, "debian", "*.postinst")))
    check_unit()
for f in files:
    scan(f)
for p in problems:
    print(p)
print("checked %d commands, %d InboxParams; rows: %s" % (checked, params, ", ".join(sorted(used))),
      file=sys.stderr)
sys.exit(1 if problems else 0)
