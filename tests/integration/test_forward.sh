#!/usr/bin/env bash
# wirehook forward on SQLite: the module's inbox (SetHandler wirehook)
# stores, the forwarder forwards to tests/integration/app/forward_app.py,
# which checks the forwarder's signature and answers as told: a request
# with headers and signature, 500 twice then 200, Retry-After, a poison
# event among others (dead letters: list, show, retry), ForwardMaxAttempts,
# an outage (WH_FWD_OUTAGE seconds, 60 with WH_SOAK=1), kill -9 under load,
# dead letters counted, listed and retried by a filter and quarantined
# bodies discarded and acknowledged from the shell (the console's bulk
# actions).
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/forward_lib.sh"
. "$(dirname "$0")/forward_scenarios.sh"

fw_engine sqlite3
fws_setup
# the scenarios' applications bind their ports a minute after these were
# drawn: a port drawn is reserved, for this suite and for every other
p=$(wh_free_port)
assert_false "a port drawn is not drawn again (wh_free_port reserves it)" _wh_port_reserve "$p"
assert_eq "$(cat "$T"/fw-*/port "$T"/fw-*/ctl | sort | uniq -d)" "" "every scenario's ports are its own"
wh_httpd_conf
wh_httpd_start || exit 1

fws_run sqlite

# ------------------------------------------------------------- usage ---
"$WIREHOOK" forward >/dev/null 2>&1
assert_eq 2 $? "forward without --config is a usage error"
"$WIREHOOK" forward --config "$WH_CONF" >/dev/null 2>"$T/err"
assert_eq 1 $? "forward without ForwardUrl exits 1"
assert_contains "$(cat "$T/err")" "missing required key ForwardUrl" "... and says why"
wh_write_config "$T/etc/noinbox.conf" "ForwardUrl http://127.0.0.1:1/x" "ForwardSecretFile $FW_SECRET_FILE"
"$WIREHOOK" forward --config "$T/etc/noinbox.conf" >/dev/null 2>"$T/err"
assert_contains "$(cat "$T/err")" "missing required key InboxParams" "forward without an inbox says so"
"$WIREHOOK" forward --help >"$T/help" 2>&1
assert_eq 0 $? "forward --help exits 0"
"$WIREHOOK" inbox --config "$WH_CONF" >/dev/null 2>&1
assert_eq 2 $? "inbox without a part is a usage error"
"$WIREHOOK" inbox --config "$WH_CONF" dead frobnicate >/dev/null 2>&1
assert_eq 2 $? "inbox dead with an unknown verb is a usage error"
"$WIREHOOK" inbox --config "$WH_CONF" dead retry >/dev/null 2>&1
assert_eq 2 $? "dead retry without an id or --all is a usage error"

wh_done
