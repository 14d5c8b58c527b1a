#!/bin/sh
# Test application behind mod_wirehook: records what it was handed so the
# integration tests can compare it byte for byte. One directory per call
# under $WH_APP_OUT/calls: body (stdin exactly), env (the environment),
# marker (method and URI). Answers 200 with a small JSON document, or the
# status named by $WH_APP_STATUS when the test configures one (SetEnv),
# after $WH_APP_SLEEP seconds when one is set. With $WH_APP_LINGER it
# answers 200 at once and runs on that many seconds, its output still open:
# the client has read the status and body while the handler still runs.
# Few processes: it runs for every delivery of every suite.
umask 022
out=${WH_APP_OUT:-/tmp}/calls
[ -d "$out" ] || mkdir -p "$out" 2>/dev/null
d=$out/call.$$
# (a pid seen before in this run: mktemp's name, and its 0700 widened)
mkdir "$d" 2>/dev/null || { d=$(mktemp -d "$out/call.XXXXXXXX") && chmod 755 "$d"; } || exit 1
cat >"$d/body"
env >"$d/env"
echo "$REQUEST_METHOD $REQUEST_URI" >"$d/marker"
n=$(wc -c <"$d/body")
n=$((n))
if [ -n "$WH_APP_LINGER" ]; then
    printf 'Content-Type: application/json\r\n\r\n{"app":"received","bytes":%s}\n' "$n"
    sleep "$WH_APP_LINGER"
    exit 0
fi
# a slow application (SetEnv WH_APP_SLEEP): its delivery stays under way
[ -n "$WH_APP_SLEEP" ] && sleep "$WH_APP_SLEEP"
if [ -n "$WH_APP_STATUS" ]; then
    printf 'Status: %s\r\nContent-Type: application/json\r\n\r\n{"app":"failing","bytes":%s}\n' "$WH_APP_STATUS" "$n"
else
    printf 'Content-Type: application/json\r\n\r\n{"app":"received","bytes":%s}\n' "$n"
fi
