#!/usr/bin/env bash
# `SetHandler wirehook`: the module as the inbox application.
. "$(dirname "$0")/lib.sh"
wh_init
wh_httpd_conf
wh_httpd_start || exit 1
I="$WH_URL/inbox"

b=$(wh_body Complete)
id=$(wh_body_id "$b")
wh_post "$I" "$b"
assert_status 200 "inbox: good event stored"
assert_json_code accepted "inbox: accepted"
assert_eq "$id" "$(wh_json_get "$WH_BODY" 'd["notificationId"]')" "inbox: ack names the id"
wh_post "$I" "$b"
assert_status 200 "inbox: second copy 200"
assert_json_code duplicate "inbox: duplicate decided by the inbox"

# concurrent copies: stored once
same=$(wh_body Exception)
"$WIREHOOK" send --config "$WH_CONF" --url "$I" --user "$WH_USER:$WH_PASSWD" --count 10 --concurrency 10 "$same" >"$T/par.out" 2>/dev/null
assert_eq 10 "$(grep -c '^200 ' "$T/par.out")" "inbox: 10 parallel copies answered 200"
assert_eq 1 "$(grep -c '"accepted"' "$T/par.out")" "inbox: exactly one stored"

out=$("$WIREHOOK" send --config "$WH_CONF" --url "$I" --user "$WH_USER:$WH_PASSWD" --sample Review --count 5 --concurrency 3 2>/dev/null)
assert_eq 5 "$(printf '%s\n' "$out" | grep -c '"accepted"')" "inbox: 5 fresh samples stored"

# rejections are answered by the verdict
WH_AUTH=- wh_post "$I" "$(wh_body Complete)"
assert_status 401 "inbox: unauthenticated POST"
assert_header WWW-Authenticate Basic "inbox: WWW-Authenticate"
WH_SIG=$(printf '0%.0s' $(seq 64)) wh_post "$I" "$(wh_body Complete)"
assert_json_code signature_mismatch "inbox: signature mismatch"
python3 - "$b" "$T/schema.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["notificationId"] = "not-a-uuid"
open(sys.argv[2], "w").write(json.dumps(d))
EOF
wh_post "$I" "$T/schema.json"
assert_status 400 "inbox: schema violation answered 400 (quarantined)"
assert_json_code schema_violation "inbox: schema_violation"
python3 -c 'import sys; sys.stdout.write("{\"pad\":\"" + "x" * 70000 + "\"}")' >"$T/big.json"
wh_post "$I" "$T/big.json" -H 'Transfer-Encoding: chunked'
assert_status 413 "inbox: chunked body over the limit"

# listing
wh_curl "$I"
assert_status 401 "inbox GET without credentials"
assert_json_code auth_required "inbox GET: auth_required"
wh_curl -u "$WH_USER:$WH_PASSWD" "$I?offset=0&limit=3"
assert_status 200 "inbox GET lists"
assert_header Content-Type application/json "inbox GET: JSON"
assert_eq 3 "$(wh_json_get "$WH_BODY" 'len(d["events"])')" "inbox GET: limit=3 gives 3 events"
assert_eq true "$(wh_json_get "$WH_BODY" 'd["pagination"]["moreRecords"]')" "inbox GET: moreRecords true"
wh_curl -u "$WH_USER:$WH_PASSWD" "$I?offset=0&limit=100"
assert_eq 7 "$(wh_json_get "$WH_BODY" 'len(d["events"])')" "inbox GET: 7 events stored in all"
assert_contains "$WH_BODY" "$id" "inbox GET: the first event is listed"
wh_curl -u "$WH_USER:$WH_PASSWD" "$I?limit=abc"
assert_status 400 "inbox GET: bad limit"
assert_json_code invalid_pagination "inbox GET: invalid_pagination"
wh_curl -I -u "$WH_USER:$WH_PASSWD" "$I"
assert_status 200 "inbox HEAD"
wh_curl -X PUT -u "$WH_USER:$WH_PASSWD" "$I"
assert_status 405 "inbox PUT refused"
assert_header Allow "GET, HEAD, POST" "inbox 405 Allow: GET, HEAD, POST"

# restarts keep the inbox
assert_true "inbox: graceful restart" wh_httpd_graceful
wh_post "$I" "$b"
assert_json_code duplicate "inbox: still a duplicate after graceful restart"

assert_not_contains "$(wh_errlog)" "$WH_SECRET" "inbox: the secret is never logged"
wh_done
