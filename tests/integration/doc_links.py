#!/usr/bin/env python3
"""Relative links of the Markdown files under a documentation tree that
point at nothing there: one "FILE: TARGET" line each, exit 1 when any.
Used on what make install and the Debian package install
(test_install.sh, test_deb.sh). Not a test suite itself."""
import os
import re
import sys

LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
root = sys.argv[1]
bad = []
for d, _, files in os.walk(root):
    for f in files:
        if not f.endswith(".md"):
            continue
        path = os.path.join(d, f)
        text = open(path, encoding="utf-8", errors="replace").read()
        # code blocks hold examples, not links
        text = re.sub(r"```.*?```", "", text, flags=re.S)
        for target in LINK.findall(text):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue
            where = target.split("#", 1)[0]
            if not os.path.exists(os.path.normpath(os.path.join(d, where))):
                bad.append("%s: %s" % (os.path.relpath(path, root), target))
for b in sorted(bad):
    print(b)
sys.exit(1 if bad else 0)
