#!/usr/bin/env python3
"""The map against the tree (test_map.sh runs it; not a suite itself).

    map_check.py TOP BUILD

TOP is the source tree, BUILD the build tree (libwirehook.a, the hosts'
objects). Prints one record per check: its name, a 0x1f byte, what is
wrong (one line per problem, each saying what to write where; empty when
nothing is), and a NUL byte. Exit 0 unless it could not run.

What is checked, and where each fact is written:
  files     every source file of the product (*.c, *.h under shared/,
            mod_wirehook/, cgi/, cli/) is named exactly once in a file table
            of docs/architecture.md, under the heading of its folder; a
            header beside a .c of the same name goes with it, unnamed;
  folders   each folder of the core (shared/*/) has a README.md whose
            "**May call:**" line names the folders its files may call; the
            folders named there call each other in no circle; the map's
            picture and CONTRIBUTING.md's layout name every folder;
  includes  a file of the core includes headers of its own folder by name
            and another folder's as "folder/name.h", only of a folder its
            README allows;
  symbols   the same rule for what the objects of build/libwirehook.a
            really reference (nm), so a declaration written by hand does not
            slip past the includes;
  circles   no circle of calls between the files of one folder (the core's,
            the module's, the CGI's, the CLI's), but those docs/architecture.md
            lists under "Circles inside a folder";
  state     every object that lives for the whole process (nm: symbols in
            .data, .bss and their kin, local or global; read-only data and
            relocated constants excepted) is listed with its reason in
            docs/architecture.md's "Process-wide state" table.
"""
import os
import re
import subprocess
import sys

TOP, BUILD = sys.argv[1], sys.argv[2]
ARCH = "docs/architecture.md"
ROOTS = ("shared", "mod_wirehook", "cgi", "cli")
SOURCE = re.compile(r"\.[ch]$")
TICKED = re.compile(r"`([^`]+)`")


def read(path):
    with open(os.path.join(TOP, path), encoding="utf-8") as f:
        return f.read()


def report(name, problems):
    sys.stdout.write("%s\x1f%s\0" % (name, "\n".join(problems)))


# ------------------------------------------------------------ the tree ---
sources = []                      # "shared/inbox/wh_batch.c", ...
for root in ROOTS:
    for d, dirs, files in os.walk(os.path.join(TOP, root)):
        dirs.sort()
        for f in sorted(files):
            if SOURCE.search(f):
                sources.append(os.path.relpath(os.path.join(d, f), TOP))
source_set = set(sources)
core_folders = sorted(
    d for d in os.listdir(os.path.join(TOP, "shared"))
    if os.path.isdir(os.path.join(TOP, "shared", d))
    and any(p.startswith("shared/%s/" % d) for p in sources))


def folder_of(path):
    return os.path.dirname(path) + "/"


def unit_of(path):
    """A header beside a .c of the same name is that file's."""
    if path.endswith(".h") and path[:-2] + ".c" in source_set:
        return path[:-2] + ".c"
    return path


# ------------------------------------------------- docs/architecture.md ---
arch = read(ARCH)


def sections(text):
    """(heading, [lines]) for each heading of a Markdown text."""
    out, head, body, fence = [], "", [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
        if not fence and re.match(r"#+ ", line):
            out.append((head, body))
            head, body = line, []
        else:
            body.append(line)
    out.append((head, body))
    return out


def cells(row):
    row = row.strip()
    if not row.startswith("|"):
        return None
    return [c.strip() for c in row.strip("|").split("|")]


def tables(lines, first):
    """The rows (lists of cells) of the tables in lines whose first column
    is headed `first`."""
    rows, inside = [], False
    for line in lines:
        c = cells(line)
        if c is None:
            inside = False
            continue
        if not inside:
            inside = c[0] == first
            continue
        if set(c[0]) <= set("-: "):
            continue
        rows.append(c)
    return rows


# ----------------------------------------------------------- files ---
named = {}                        # unit -> [heading, ...]
problems = []
table_folders = {}                # folder -> its heading
part = ""
for head, body in sections(arch):
    if head.startswith("## "):
        part = head
    if part != "## The files":
        continue
    folder = next((t for t in TICKED.findall(head) if t.endswith("/")), None)
    rows = tables(body, "file")
    if not rows:
        continue
    if folder is None:
        problems.append("%s: the file table under '%s' has no folder in its heading: "
                        "name it as in ### `shared/inbox/`: the inbox" % (ARCH, head))
        continue
    table_folders.setdefault(folder, head)
    for row in rows:
        for name in TICKED.findall(row[0]):
            path = folder + name
            if path not in source_set:
                problems.append("%s: '%s' names `%s`, and %s does not exist: remove it "
                                "or correct its name" % (ARCH, head, name, path))
            elif unit_of(path) != path:
                problems.append("%s: '%s' names `%s`: name only `%s`, its header goes "
                                "with it" % (ARCH, head, name, os.path.basename(unit_of(path))))
            else:
                named.setdefault(path, []).append(head)
for path in sources:
    if unit_of(path) != path:
        continue
    folder, name = folder_of(path), os.path.basename(path)
    heads = named.get(path, [])
    if not heads:
        if folder in table_folders:
            where = "to the table under '%s'" % table_folders[folder]
        else:
            where = ("under a new heading '### `%s`: what the folder holds' followed by "
                     "a table | file | job | (in \"The files\")" % folder)
        problems.append("%s is in no file table of %s: add a row | `%s` | what it holds | %s"
                        % (path, ARCH, name, where))
    elif len(heads) > 1:
        problems.append("%s is named %d times in %s's file tables (%s): keep one row"
                        % (path, len(heads), ARCH, "; ".join(heads)))
report("every source file is named exactly once in the file tables of " + ARCH, problems)


# --------------------------------------------------------- folders ---
allowed, problems = {}, []
for f in core_folders:
    readme = "shared/%s/README.md" % f
    if not os.path.exists(os.path.join(TOP, readme)):
        problems.append("%s is missing: start it with '# `shared/%s/`: what the folder holds', "
                        "a short paragraph of what it owns, and a line '**May call:** `verify/`' "
                        "naming the folders its files may call ('**May call:** nothing.' for none)"
                        % (readme, f))
        continue
    text = read(readme)
    line = next((l for l in text.split("\n") if l.startswith("**May call:**")), None)
    if line is None:
        problems.append("%s has no line '**May call:** `folder/`, ...' (or '**May call:** "
                        "nothing.'): add one below what the folder owns" % readme)
        continue
    may = {t.rstrip("/") for t in TICKED.findall(line) if t.endswith("/")}
    for g in sorted(may - set(core_folders)):
        problems.append("%s: **May call:** names `%s/`, which is no folder of shared/" % (readme, g))
    if f in may:
        problems.append("%s: **May call:** names the folder itself" % readme)
    allowed[f] = may & set(core_folders) - {f}
# the allowed edges make no circle
state = {}


def visit(f, trail):
    state[f] = 1
    for g in sorted(allowed.get(f, ())):
        if state.get(g) == 1:
            problems.append("the folders' **May call:** lines make a circle: %s: a folder "
                            "calls only the folders under it"
                            % " -> ".join(trail[trail.index(g):] + [g]))
        elif g not in state:
            visit(g, trail + [g])
    state[f] = 2


for f in core_folders:
    if f not in state:
        visit(f, [f])
the_map = next((b for h, b in sections(arch) if h == "## The map"), [])
picture = "\n".join(the_map)
for f in core_folders:
    if not re.search(r"(^|[\s`])%s/" % re.escape(f), picture):
        problems.append("%s: the picture under '## The map' does not show `%s/`: draw it "
                        "above the folders it calls" % (ARCH, f))
layout = next((c for c in (cells(l) for l in read("CONTRIBUTING.md").split("\n"))
               if c and c[0] == "`shared/`"), None)
for f in core_folders:
    if layout is None or "`%s/`" % f not in layout[1]:
        problems.append("CONTRIBUTING.md: the layout's `shared/` row does not name `%s/`: "
                        "add it to the folders listed there" % f)
report("each folder of the core has a README.md that says what it may call", problems)

# -------------------------------------------------------- includes ---
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
problems = []
for path in sources:
    if not path.startswith("shared/"):
        continue
    f = path.split("/")[1]
    readme = "shared/%s/README.md" % f
    for inc in INCLUDE.findall(read(path)):
        if "/" not in inc:
            if "shared/%s/%s" % (f, inc) not in source_set:
                problems.append('%s includes "%s", which is not in shared/%s/: a header of '
                                'another folder is included as "folder/name.h"' % (path, inc, f))
            continue
        g = inc.split("/")[0]
        if f not in allowed:
            continue                  # its README is missing: said above
        if "shared/" + inc not in source_set:
            problems.append('%s includes "%s", which is not under shared/' % (path, inc))
        elif g == f:
            problems.append('%s includes "%s": a header of its own folder is included by its '
                            'name alone ("%s")' % (path, inc, inc.split("/", 1)[1]))
        elif g not in allowed.get(f, ()):
            problems.append('%s includes "%s", but %s may not call `%s/` (%s\'s **May call:** '
                            'line): a folder calls only the folders under it'
                            % (path, inc, "shared/%s/" % f, g, readme))
report("the core's includes follow the folders' **May call:** lines", problems)


# ---------------------------------------------------------- symbols ---
def nm(path):
    """[(symbol, class letter, section)] of one object or archive member
    (nm's System V format), or None when nm cannot read it."""
    r = subprocess.run(["nm", "-f", "sysv", path], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    members, cur = {}, None
    for line in r.stdout.split("\n"):
        m = re.match(r"Symbols from .*?(?:\[(.+)\])?:$", line)
        if m:
            cur = members.setdefault(m.group(1) or os.path.basename(path), [])
            continue
        c = line.split("|")
        if cur is None or len(c) < 7 or c[0].strip() == "Name":
            continue
        cur.append((c[0].strip(), c[2].strip(), c[3].strip(), c[6].strip()))
    return members


def objects():
    """{source path: [(symbol, class, type, section)]} for every object
    that goes into the products, or a problem saying what is missing."""
    out, missing = {}, []
    lib = os.path.join(BUILD, "libwirehook.a")
    members = nm(lib) if os.path.exists(lib) else None
    if members is None:
        missing.append("%s cannot be read: build first (make)" % lib)
    else:
        by_base = {os.path.basename(p)[:-2] + ".o": p for p in sources
                   if p.startswith("shared/") and p.endswith(".c")}
        for member, syms in members.items():
            if member not in by_base:
                missing.append("%s holds %s, whose source is not under shared/: make again"
                               % (lib, member))
                continue
            out[by_base[member]] = syms
    hosts = (("mod_wirehook", os.path.join(BUILD, "mod", ".libs")),
             ("cgi", os.path.join(BUILD, "obj", "cgi")),
             ("cgi/static", os.path.join(BUILD, "obj", "cgi", "static")),
             ("cli", os.path.join(BUILD, "obj", "cli")))
    for folder, objdir in hosts:
        for path in sources:
            if folder_of(path) != folder + "/" or not path.endswith(".c"):
                continue
            o = os.path.join(objdir, os.path.basename(path)[:-2] + ".o")
            syms = nm(o) if os.path.exists(o) else None
            if syms is None:
                # cgi/static/ is linked only into the self-contained CGI
                if folder == "cgi/static" and not os.path.isdir(objdir):
                    continue
                missing.append("%s cannot be read: build first (make)" % o)
                continue
            out[path] = next(iter(syms.values()))
    return out, missing


objs, missing = objects()
if missing:
    for name in ("the core's symbols follow the folders' **May call:** lines",
                 "no circle of calls inside a folder but those docs/architecture.md lists",
                 "the process-wide state is listed in docs/architecture.md"):
        report(name, missing)
    sys.exit(0)

problems = []
defined, defined_func = {}, {}
for path, syms in objs.items():
    for sym, cls, typ, sec in syms:
        if cls.isupper() and cls not in "UN":
            if path.startswith("shared/"):
                defined[sym] = path
            if typ == "FUNC" or cls in "TW":
                defined_func.setdefault(folder_of(path), {})[sym] = path
for path, syms in sorted(objs.items()):
    if not path.startswith("shared/"):
        continue
    f = path.split("/")[1]
    for sym, cls, typ, sec in syms:
        if cls != "U" or sym not in defined:
            continue
        g = defined[sym].split("/")[1]
        if g != f and f in allowed and g not in allowed[f]:
            problems.append("%s uses %s of %s, but shared/%s/ may not call `%s/` (its "
                            "README's **May call:** line): a folder calls only the folders "
                            "under it" % (path, sym, defined[sym], f, g))
report("the core's symbols follow the folders' **May call:** lines", problems)

# ---------------------------------------------------------- circles ---
calls = {}
for path, syms in objs.items():
    funcs = defined_func.get(folder_of(path), {})
    calls[path] = {funcs[s] for s, cls, typ, sec in syms
                   if cls == "U" and s in funcs and funcs[s] != path}


def strongly_connected(nodes):
    index, low, stack, on, found, n = {}, {}, [], set(), [], [0]

    def walk(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(calls.get(v, ())):
            if w not in nodes:
                continue
            if w not in index:
                walk(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(comp)

    for v in sorted(nodes):
        if v not in index:
            walk(v)
    return found


listed = []
for head, body in sections(arch):
    if "Circles inside a folder" not in head:
        continue
    for line in body:
        m = re.match(r"- `([^`]+/)`: ((?:`[^`]+`(?:, | and )?)+)", line)
        if m:
            listed.append({m.group(1) + n for n in TICKED.findall(m.group(2))})
problems = []
seen = []
folders = sorted({folder_of(p) for p in objs})
for folder in folders:
    for comp in strongly_connected({p for p in objs if folder_of(p) == folder}):
        seen.append(comp)
        if comp not in listed:
            names = ", ".join("`%s`" % os.path.basename(p) for p in sorted(comp))
            problems.append("%s: %s call each other in a circle: break it (a file of the "
                            "folder's own bottom layer, or a callback), or, when the circle is "
                            "the design, list it in %s under '### Circles inside a folder' "
                            "as '- `%s`: %s: why'" % (folder, names, ARCH, folder, names))
for comp in listed:
    if comp not in seen:
        problems.append("%s lists a circle that is no longer one (%s): remove its line"
                        % (ARCH, ", ".join(sorted(comp))))
report("no circle of calls inside a folder but those docs/architecture.md lists", problems)

# ------------------------------------------------------------ state ---
WRITABLE = re.compile(r"^(\.data|\.bss|\.tdata|\.tbss)(\..*)?$|^\*COM\*$|^COMMON$")
state_rows = {}
problems = []
for head, body in sections(arch):
    if head != "## Process-wide state":
        continue
    for row in tables(body, "file"):
        files = TICKED.findall(row[0])
        if len(row) < 3 or len(files) != 1 or not row[2]:
            problems.append("%s: a row of 'Process-wide state' is not | `path/file.c` | "
                            "`symbol`, ... | why |: %s" % (ARCH, " | ".join(row)))
            continue
        state_rows.setdefault(files[0], set()).update(TICKED.findall(row[1]))
if not state_rows and not problems:
    problems.append("%s has no '## Process-wide state' table (| file | state | why |)" % ARCH)
found = {}
for path, syms in objs.items():
    for sym, cls, typ, sec in syms:
        if cls in "UuN" or not WRITABLE.match(sec) or re.match(r"^\.data\.rel\.ro", sec):
            continue
        if typ not in ("OBJECT", "TLS"):
            continue
        found.setdefault(path, set()).add(re.sub(r"\.\d+$", "", sym))
for path in sorted(found):
    for sym in sorted(found[path] - state_rows.get(path, set())):
        if path in state_rows:
            how = "add `%s` to the row of `%s`" % (sym, path)
        else:
            how = "add a row | `%s` | `%s` | why it lives as long as the process |" % (path, sym)
        problems.append("%s keeps `%s` for the whole process, and %s's 'Process-wide state' "
                        "does not list it: %s (or put it in a pool or a struct)"
                        % (path, sym, ARCH, how))
for path in sorted(state_rows):
    for sym in sorted(state_rows[path] - found.get(path, set())):
        problems.append("%s's 'Process-wide state' lists `%s` of %s, which keeps no such "
                        "state: remove it" % (ARCH, sym, path))
report("the process-wide state is listed in docs/architecture.md", problems)
