#!/usr/bin/env bash
# The map of the code against the code: every source file named once in
# docs/architecture.md's file tables; each folder of the core with a
# README.md that says what it may call, and its includes and its symbols
# (nm on libwirehook.a) keeping to that; no circle of calls inside a
# folder but the listed ones; and every object the process keeps for its
# whole life (nm: data and bss, local and global) listed with its reason.
# Each failure says what to write where. The checks: map_check.py.
. "$(dirname "$0")/lib.sh"
cd "$WH_TOP" || exit 1
trap _wh_cleanup EXIT

n=0
while IFS=$'\x1f' read -r -d '' name problems; do
    n=$((n + 1))
    if [ -z "$problems" ]; then _wh_ok "$name"; else _wh_bad "$name" "$problems"; fi
done < <("$WH_PYTHON" tests/integration/map_check.py "$WH_TOP" "$WH_BUILD")
assert_eq 6 "$n" "map_check.py ran its six checks"
wh_done
