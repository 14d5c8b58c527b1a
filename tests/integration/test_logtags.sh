#!/usr/bin/env bash
# wirehook's log tags (mod_wirehook/wh_mod_logtags.h): WH + five digits,
# each registered once, each used at exactly one call site, none borrowed
# from httpd's AH sequence, and every tag the documentation quotes exists.
. "$(dirname "$0")/lib.sh"
cd "$WH_TOP" || exit 1
trap _wh_cleanup EXIT

reg=mod_wirehook/wh_mod_logtags.h
registered=$(grep -oE '^ *X\(([0-9]{5}),' "$reg" | grep -oE '[0-9]{5}')
dups=$(printf '%s\n' "$registered" | sort | uniq -d | tr '\n' ' ')
assert_eq "" "$dups" "no number is registered twice"
assert_ne "" "$registered" "the registry lists the tags"

used=$(grep -ohE 'WHLOGNO\([0-9]{5}\)' mod_wirehook/*.c | grep -oE '[0-9]{5}')
twice=$(printf '%s\n' "$used" | sort | uniq -d | tr '\n' ' ')
assert_eq "" "$twice" "no number is used at two call sites"

unregistered=""
for n in $used; do
    printf '%s\n' "$registered" | grep -qx "$n" || unregistered="$unregistered $n"
done
assert_eq "" "$unregistered" "every number used in the code is registered"

unused=""
for n in $registered; do
    printf '%s\n' "$used" | grep -qx "$n" || grep -qE "X\($n, \"retired" "$reg" || unused="$unused $n"
done
assert_eq "" "$unused" "every registered number is used (or marked retired)"

next=$(grep -oE 'WH_LOGTAG_NEXT [0-9]{5}' "$reg" | grep -oE '[0-9]{5}')
highest=$(printf '%s\n' "$registered" | sort -n | tail -n 1)
assert_eq "$((10#$highest + 1))" "$((10#$next))" "WH_LOGTAG_NEXT is one past the highest number"

borrowed=$(grep -nE 'APLOGNO|AH[0-9]{5}' mod_wirehook/*.c mod_wirehook/*.h || true)
assert_eq "" "$borrowed" "the module uses no httpd AH numbers"

undocumented=""
for n in $(grep -ohE 'WH[0-9]{5}' README.md docs/*.md man/* 2>/dev/null | sort -u | cut -c3-); do
    printf '%s\n' "$registered" | grep -qx "$n" || undocumented="$undocumented WH$n"
done
assert_eq "" "$undocumented" "every tag quoted in README, docs/ and man/ exists"
stale=$(grep -lE 'AH109[0-9]{2}' README.md docs/*.md man/* 2>/dev/null | tr '\n' ' ')
assert_eq "" "$stale" "no document quotes the module's old AH109xx numbers"

wh_done
