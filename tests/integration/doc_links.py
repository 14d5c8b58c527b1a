#!/usr/bin/env python3
"""Relative links of Markdown files that point at nothing: one
"FILE: TARGET" line each, exit 1 when any. A link's #fragment into a
Markdown file must name one of its headings (as GitHub makes their
anchors). Not a test suite itself.

    doc_links.py ROOT             every .md under ROOT (what make install
                                  and the Debian package install:
                                  test_install.sh, test_deb.sh)
    doc_links.py ROOT FILE...     those files, relative to ROOT
                                  (the source tree: test_docs.sh)"""
import os
import re
import sys

LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
root = sys.argv[1]
anchors = {}


def text_of(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    # code blocks hold examples, not links or headings
    return re.sub(r"```.*?```", "", text, flags=re.S)


def anchors_of(path):
    """The anchors of a Markdown file's headings: lower case, punctuation
    but '-' and '_' dropped, spaces made '-', a repeat numbered."""
    if path not in anchors:
        seen, found = {}, set()
        for m in re.finditer(r"^#+ +(.*?) *#* *$", text_of(path), re.M):
            a = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            n = seen.get(a, 0)
            seen[a] = n + 1
            found.add(a if n == 0 else "%s-%d" % (a, n))
        anchors[path] = found
    return anchors[path]


if len(sys.argv) > 2:
    paths = [os.path.join(root, f) for f in sys.argv[2:]]
else:
    paths = [os.path.join(d, f) for d, _, files in os.walk(root)
             for f in files if f.endswith(".md")]
bad = []
for path in sorted(paths):
    d = os.path.dirname(path)
    for target in LINK.findall(text_of(path)):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):
            continue
        where, _, fragment = target.partition("#")
        dest = os.path.normpath(os.path.join(d, where)) if where else path
        if not os.path.exists(dest):
            bad.append("%s: %s" % (os.path.relpath(path, root), target))
        elif fragment and dest.endswith(".md") and fragment not in anchors_of(dest):
            bad.append("%s: %s (no such heading)" % (os.path.relpath(path, root), target))
for b in sorted(bad):
    print(b)
sys.exit(1 if bad else 0)
