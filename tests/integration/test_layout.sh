#!/usr/bin/env bash
# docs/files.md is the one source of wirehook's recommended directories,
# owners and modes: every install, chmod, chown and chgrp of the README,
# docs/, examples/ and README.Debian that names one of its files agrees
# with it, every SQLite InboxParams is in its inbox directory, and the
# forwarder's unit writes where it says and reads the configuration from
# where it says (as the constants configtest warns with). The checker is
# shown to catch a disagreement first.
. "$(dirname "$0")/lib.sh"
wh_init
CHECK="$WH_TOP/tests/integration/layout_check.py"

# the checker itself: a document that disagrees is caught
mkdir -p "$T/doc"
cat >"$T/doc/wrong.md" <<'DOC'
```sh
sudo install -m 600 -g www-data /dev/null /etc/wirehook/secrets
chmod 640 /etc/wirehook/forward.secret
sudo install -d -o www-data -g www-data -m 750 /var/lib/wirehook
```
InboxParams /var/lib/wirehook/inbox.db
DOC
out=$("$WH_PYTHON" "$CHECK" "$WH_TOP" "$T/doc/wrong.md" 2>&1)
assert_eq 1 "$?" "the checker fails a document that disagrees with docs/files.md"
assert_contains "$out" "sets /etc/wirehook/secrets group www-data mode 600, but docs/files.md says root:www-data 640" \
    "... a secret file of the wrong mode"
assert_contains "$out" "sets /etc/wirehook/forward.secret mode 640, but docs/files.md says www-data:www-data 600" \
    "... the forwarder's secret"
assert_contains "$out" "sets /var/lib/wirehook owner www-data group www-data mode 750, but docs/files.md says root:root 755" \
    "... the inbox in the state directory itself"
assert_contains "$out" "InboxParams /var/lib/wirehook/inbox.db is not in the inbox's directory" \
    "... and its database there"

# the tree
out=$("$WH_PYTHON" "$CHECK" "$WH_TOP" 2>"$T/summary")
assert_eq 0 "$?" "README, docs, examples and README.Debian agree with docs/files.md"
[ -n "$out" ] && printf '%s\n' "$out"
summary=$(cat "$T/summary")
echo "  $summary"
n=$(sed -n 's/^checked \([0-9]*\) commands.*/\1/p' <<<"$summary")
assert_true "forty or more commands checked (the checker reads them)" test "${n:-0}" -ge 40
for row in "the bank's signing secret@server" "the bank's Basic-auth users@server" \
           "the forwarder's secret@server" "the inbox's directory@server" "state directory@server" \
           "the inbox's directory@suexec" "the bank's signing secret@suexec"; do
    assert_contains "$summary" "$row" "a command follows docs/files.md's row: $row"
done
assert_contains "$(cat "$WH_TOP/debian/libapache2-mod-wirehook.README.Debian")" "docs/files.md" \
    "the module's README.Debian points at docs/files.md"
assert_contains "$(cat "$WH_TOP/debian/wirehook.README.Debian")" "docs/files.md" \
    "the tools' README.Debian points at docs/files.md"

wh_done
