#!/usr/bin/env bash
# Runs every tests/integration/test_*.sh (each standalone: sources lib.sh,
# exits non-zero on failure) and prints the summed assertion counts as the
# last line: "N passed, N failed". Exit 1 when anything failed.
# Honours $BUILD (default build) and $WH_SHARED_DIR (default ../shared);
# WH_ONLY=pattern runs only the scripts whose name matches.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cd "$top" || exit 1
export BUILD=${BUILD:-build}
export WH_SHARED_DIR=${WH_SHARED_DIR:-../shared}

counts=$(mktemp /tmp/wh-it-counts.XXXXXX)
trap 'rm -f "$counts"' EXIT
export WH_COUNTS_FILE=$counts

scripts_failed=0
for t in "$here"/test_*.sh; do
    [ -e "$t" ] || continue
    name=$(basename "$t")
    if [ -n "${WH_ONLY:-}" ]; then
        case "$name" in *$WH_ONLY*) ;; *) continue ;; esac
    fi
    echo "== $name"
    before=$(wc -l <"$counts")
    bash "$t"
    rc=$?
    after=$(wc -l <"$counts")
    if [ "$rc" -ne 0 ]; then
        scripts_failed=$((scripts_failed + 1))
        # a script that died without recording a failure still counts one
        if [ "$after" -eq "$before" ] || [ "$(tail -n 1 "$counts" | cut -d' ' -f2)" = 0 ]; then
            echo "0 1 $name(exit $rc)" >>"$counts"
        fi
        echo "   $name exited $rc"
    fi
done

passed=$(awk '{p += $1} END {print p + 0}' "$counts")
failed=$(awk '{f += $2} END {print f + 0}' "$counts")
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$scripts_failed" -eq 0 ] || exit 1
exit 0
