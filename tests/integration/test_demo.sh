#!/usr/bin/env bash
# make demo (build/demo.sh) runs through and shows what it promises: the
# answers, and a non-empty "From the error log" section (the demo checks
# that itself and exits 1 without it; it once looked for tags the module
# no longer logs and printed nothing there, unnoticed).
. "$(dirname "$0")/lib.sh"
wh_init
out=$(BUILD="$WH_BUILD" WH_SHARED_DIR="$WH_SHARED" bash "$WH_TOP/build/demo.sh" 2>&1)
rc=$?
assert_eq 0 "$rc" "build/demo.sh exits 0"
[ "$rc" -ne 0 ] && printf '%s\n' "$out" | tail -n 20
section=$(printf '%s\n' "$out" | sed -n '/^From the error log/,/^12\./p' | sed '1d;$d')
assert_contains "$section" "WH00911: accepted" "the error-log section shows the accepted notification"
assert_contains "$section" "WH00912: rejected" "... and the rejected ones"
assert_contains "$out" '200 {"status":"accepted"' "the demo's first notification is accepted"
assert_contains "$out" "httpd stopped." "the demo ran to its end"
wh_done
