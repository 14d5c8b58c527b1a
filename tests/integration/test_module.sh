#!/usr/bin/env bash
# mod_wirehook in front of a CGI app, every verdict over real HTTP.
. "$(dirname "$0")/lib.sh"
wh_init
wh_httpd_extra "ScriptAlias /v1/failing \"$T/cgi-bin/record.cgi\"
<Location /v1/failing>
    SetEnv WH_APP_STATUS 500
    WirehookConfig $WH_CONF
</Location>"
wh_httpd_conf
wh_httpd_start || exit 1
W="$WH_URL/v1/wires"

# ------------------------------------------------------------ accepted ---
body=$(wh_body Complete)
wh_post "$W" "$body"
assert_status 200 "good event is accepted"
assert_contains "$WH_BODY" '"app":"received"' "the app answered"
assert_eq 1 "$(wh_app_calls)" "the app ran once"
d=$(wh_app_last)
assert_true "the app received the exact body bytes" cmp -s "$body" "$d/body"
id=$(wh_body_id "$body")
ev=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["eventDateTime"])' "$body")
assert_eq 1 "$(wh_app_env "$d" WIREHOOK_VERIFIED)" "WIREHOOK_VERIFIED=1"
assert_eq "$id" "$(wh_app_env "$d" WIREHOOK_NOTIFICATION_ID)" "WIREHOOK_NOTIFICATION_ID"
assert_eq wire.status "$(wh_app_env "$d" WIREHOOK_EVENT_TYPE)" "WIREHOOK_EVENT_TYPE"
assert_eq "$ev" "$(wh_app_env "$d" WIREHOOK_EVENT_TIME)" "WIREHOOK_EVENT_TIME"
assert_eq WP-2026-000481 "$(wh_app_env "$d" WIREHOOK_PAYMENT_ID)" "WIREHOOK_PAYMENT_ID"
assert_eq Complete "$(wh_app_env "$d" WIREHOOK_STATUS)" "WIREHOOK_STATUS"
assert_eq 1 "$(wh_app_env "$d" WIREHOOK_STATUS_KNOWN)" "WIREHOOK_STATUS_KNOWN=1"
assert_eq "$WH_USER" "$(wh_app_env "$d" WIREHOOK_USER)" "WIREHOOK_USER"
assert_eq "$(wc -c <"$body" | tr -d ' ')" "$(wh_app_env "$d" CONTENT_LENGTH)" "CONTENT_LENGTH matches the body"
assert_eq "$id" "$(wh_app_env "$d" HTTP_WIREHOOK_NOTIFICATION_ID)" "Wirehook-Notification-Id header for backends"

# Processed is not in the spec's list: accepted and flagged
p=$(wh_body Processed)
wh_post "$W" "$p"
assert_status 200 "Processed is accepted"
d=$(wh_app_last)
assert_eq Processed "$(wh_app_env "$d" WIREHOOK_STATUS)" "WIREHOOK_STATUS=Processed"
assert_eq 0 "$(wh_app_env "$d" WIREHOOK_STATUS_KNOWN)" "WIREHOOK_STATUS_KNOWN=0"
# the shared sample as-is (Processed, eventDateTime in the past: not checked)
cp "$WH_SHARED/samples/wire-status-processed-as-in-spec-sample.json" "$T/spec-sample.json"
wh_post "$W" "$T/spec-sample.json"
assert_status 200 "the spec's own sample body is accepted"
assert_true "spec sample delivered byte for byte" cmp -s "$T/spec-sample.json" "$(wh_app_last)/body"

# charset=utf-8 is fine
u=$(wh_body Review)
WH_CT='application/json; charset=utf-8' wh_post "$W" "$u"
assert_status 200 "application/json; charset=utf-8 accepted"

# rotation: the second secret of the file still verifies
r2=$(wh_body Complete)
WH_SIGN_FILE=$WH_SECRET2_FILE wh_post "$W" "$r2"
assert_status 200 "a body signed with the second (rotated) secret is accepted"

# md5 and sha1 htpasswd entries
WH_AUTH=md5user:md5pass wh_post "$W" "$(wh_body Complete)"
assert_status 200 "htpasswd -m (apr1) user accepted"
WH_AUTH=shauser:shapass wh_post "$W" "$(wh_body Complete)"
assert_status 200 "htpasswd -s (sha1) user accepted"

calls_before=$(wh_app_calls)

# ------------------------------------------------------------ 405 ---
good=$(wh_body Complete)
wh_curl "$W"
assert_status 405 "GET is refused"
assert_json_code method_not_allowed "GET: method_not_allowed"
assert_header Allow POST "405 carries Allow: POST"
assert_header Content-Type application/json "error bodies are application/json"
WH_METHOD=PUT wh_post "$W" "$good"
assert_status 405 "PUT is refused"

# ------------------------------------------------------------ 401 auth ---
WH_AUTH=- wh_post "$W" "$good"
assert_status 401 "no Authorization"
assert_json_code auth_required "no Authorization: auth_required"
assert_header WWW-Authenticate 'Basic realm=' "401 carries WWW-Authenticate"
WH_AUTH=- wh_post "$W" "$good" -H 'Authorization: Basic !!!not-base64!!!'
assert_status 401 "malformed base64"
assert_json_code auth_required "malformed base64: auth_required"
WH_AUTH=- wh_post "$W" "$good" -H 'Authorization: Bearer abc.def'
assert_status 401 "not Basic"
assert_json_code auth_required "not Basic: auth_required"
assert_header WWW-Authenticate 'Basic' "not Basic: WWW-Authenticate"
WH_AUTH="$WH_USER:wrong-password" wh_post "$W" "$good"
assert_status 401 "wrong password"
assert_json_code auth_failed "wrong password: auth_failed"
assert_header WWW-Authenticate 'Basic realm=' "auth_failed carries WWW-Authenticate"
WH_AUTH="nobody:$WH_PASSWD" wh_post "$W" "$good"
assert_json_code auth_failed "unknown user: auth_failed"

# ------------------------------------------------------------ 415 ---
WH_CT=text/plain wh_post "$W" "$good"
assert_status 415 "text/plain refused"
assert_json_code unsupported_media_type "text/plain: unsupported_media_type"
WH_CT=- wh_post "$W" "$good"
assert_json_code unsupported_media_type "no Content-Type: unsupported_media_type"
WH_CT='application/json; charset=iso-8859-1' wh_post "$W" "$good"
assert_json_code unsupported_media_type "charset other than utf-8 refused"
wh_post "$W" "$good" -H 'Content-Encoding: gzip'
assert_status 415 "Content-Encoding gzip refused"
assert_json_code unsupported_media_type "Content-Encoding: unsupported_media_type"

# ------------------------------------------------------------ 413 ---
python3 -c 'import sys; sys.stdout.write("{\"pad\":\"" + "x" * 70000 + "\"}")' >"$T/big.json"
wh_post "$W" "$T/big.json"
assert_status 413 "Content-Length over MaxBodySize"
assert_json_code body_too_large "Content-Length: body_too_large"
assert_header Connection close "413 closes the connection"
wh_post "$W" "$T/big.json" -H 'Transfer-Encoding: chunked'
assert_status 413 "chunked body over MaxBodySize"
assert_json_code body_too_large "chunked: body_too_large"
assert_header Connection close "chunked 413 closes the connection"
# an endless chunked stream is cut off at the limit, not drained
start=$(date +%s%N)
code=$(head -c 500000000 /dev/zero | curl -s -o "$T/huge.out" -w '%{http_code}' --max-time 60 -X POST -T - \
    -H 'Transfer-Encoding: chunked' -H 'Content-Type: application/json' -H 'Expect:' \
    -u "$WH_USER:$WH_PASSWD" -H "X-Timestamp: $(date +%s)" -H "X-Signature: $(printf 'a%.0s' $(seq 64))" "$W")
ms=$(( ($(date +%s%N) - start) / 1000000 ))
assert_eq 413 "$code" "500 MB chunked stream: 413"
assert_true "500 MB chunked stream refused without reading it (${ms} ms)" test "$ms" -lt 10000
curl -s -o "$T/huge.out" -w '%{http_code}' --max-time 20 -X POST -H 'Content-Length: 5000000000' \
    -H 'Content-Type: application/json' -u "$WH_USER:$WH_PASSWD" --data-binary 'x' "$W" >"$T/huge.code" 2>/dev/null
assert_eq 413 "$(cat "$T/huge.code")" "Content-Length of 5 GB: 413 before reading"
# a chunked body under the limit is verified and delivered with its length
ch=$(wh_body Complete)
wh_post "$W" "$ch" -H 'Transfer-Encoding: chunked'
assert_status 200 "chunked body under the limit accepted"
d=$(wh_app_last)
assert_true "chunked body delivered byte for byte" cmp -s "$ch" "$d/body"
assert_eq "$(wc -c <"$ch" | tr -d ' ')" "$(wh_app_env "$d" CONTENT_LENGTH)" "chunked body: CONTENT_LENGTH set for the app"
calls_before=$(wh_app_calls)

# ------------------------------------------------------------ timestamp ---
WH_TS=- wh_post "$W" "$good"
assert_status 401 "timestamp missing"
assert_json_code timestamp_missing "timestamp_missing"
WH_TS=12a45 wh_post "$W" "$good"
assert_json_code timestamp_malformed "timestamp_malformed"
WH_TS="$(($(date +%s) - 1000))" wh_post "$W" "$good"
assert_json_code timestamp_expired "timestamp_expired"
WH_TS="$(($(date +%s) + 1000))" wh_post "$W" "$good"
assert_json_code timestamp_in_future "timestamp_in_future"
wh_post "$W" "$good" -H "X-Timestamp: $(date +%s)"
assert_json_code timestamp_malformed "two timestamp headers are malformed"

# ------------------------------------------------------------ signature ---
WH_SIG=- wh_post "$W" "$good"
assert_status 401 "signature missing"
assert_json_code signature_missing "signature_missing"
WH_SIG=abc123 wh_post "$W" "$good"
assert_json_code signature_malformed "signature_malformed"
WH_SIG=$(printf 'z%.0s' $(seq 64)) wh_post "$W" "$good"
assert_json_code signature_malformed "64 non-hex characters: signature_malformed"
WH_SIG=$(printf '0%.0s' $(seq 64)) wh_post "$W" "$good"
assert_json_code signature_mismatch "signature_mismatch"
cp "$good" "$T/tampered.json"; printf ' ' >>"$T/tampered.json"
WH_SIGN_BODY=$good wh_post "$W" "$T/tampered.json"
assert_json_code signature_mismatch "one byte added to the body: mismatch"
WH_SIGN_URL="$W?x=1" wh_post "$W" "$good"
assert_json_code signature_mismatch "another URL signed: mismatch"
WH_SIGN_URL="http://$WH_HOST$W" wh_post "$W" "$good" --request-target "$W"
assert_json_code signature_mismatch "absolute-form request target: the Host header prefixed again is not the signed URL"
echo "not-the-secret" >"$T/wrong.secret"
WH_SIGN_FILE=$T/wrong.secret wh_post "$W" "$good"
assert_json_code signature_mismatch "wrong secret: mismatch"

# ------------------------------------------------------------ body ---
printf '{"notificationId": "x", broken' >"$T/bad.json"
wh_post "$W" "$T/bad.json"
assert_status 400 "invalid JSON"
assert_json_code invalid_json "invalid_json"
python3 - "$good" "$T/schema.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["data"]["wireEventInfo"]["originalWire"]["wireInfo"]["paymentAmount"] = "1.5"
d["notificationId"] = "short"
open(sys.argv[2], "w").write(json.dumps(d))
EOF
wh_post "$W" "$T/schema.json"
assert_status 400 "schema violation"
assert_json_code schema_violation "schema_violation"
fields=$(wh_json_get "$WH_BODY" '" ".join(x["field"] for x in d["error"]["details"])')
assert_contains "$fields" "/notificationId" "details name /notificationId"
assert_contains "$fields" "paymentAmount" "details name paymentAmount"

assert_eq "$calls_before" "$(wh_app_calls)" "no rejected request reached the app"

# absolute-form request target (POST http://host:port/v1/wires HTTP/1.1,
# which servers must accept): the URL the sender addressed is the one
# signed, never the Host header prefixed to it again
wh_post "$W" "$(wh_body Complete)" --request-target "$W"
assert_status 200 "absolute-form request target, signed as addressed: accepted"

# ------------------------------------------------------------ unread body ---
wh_curl -X POST -H 'Content-Type: application/json' --data-binary @"$good" "$WH_URL/ignore"
assert_status 401 "unsigned POST to a handler that ignores the body: 401"
assert_false "the body-ignoring handler did not run" wh_glob_exists "$T/app/ignored.*"
# (the signed POST is only checked for the handler having run: mod_cgid
# resets the connection when a CGI exits without reading its stdin, which
# is httpd's behaviour with or without this module)
wh_post "$WH_URL/ignore" "$(wh_body Complete)"
assert_true "the body-ignoring handler ran for the signed POST" wh_glob_exists "$T/app/ignored.*"
wh_curl -X POST -H 'Content-Type: application/json' --data-binary @"$good" "$WH_URL/static/secret.txt"
assert_status 401 "unsigned POST to a static file: 401"
assert_not_contains "$WH_BODY" "top secret" "the static file is not served"
wh_post "$WH_URL/static/secret.txt" "$(wh_body Complete)"
assert_status 200 "signed POST to a static file (a handler that discards the body)"
assert_contains "$WH_BODY" "top secret" "the static file is served to the signed POST"
wh_curl "$WH_URL/static/secret.txt"
assert_status 405 "GET of a protected static file: 405"
assert_not_contains "$WH_BODY" "top secret" "the static file is not served to GET"

# ------------------------------------------------------------ headers ---
h=$(wh_body Complete)
wh_post "$W" "$h" -H 'Wirehook-Verified: forged' -H 'Wirehook-Payment-Id: EVIL' -H 'wirehook-status: Complete-forged'
assert_status 200 "request with forged Wirehook-* headers is verified"
d=$(wh_app_last)
assert_eq 1 "$(wh_app_env "$d" HTTP_WIREHOOK_VERIFIED)" "forged Wirehook-Verified replaced"
assert_eq WP-2026-000481 "$(wh_app_env "$d" HTTP_WIREHOOK_PAYMENT_ID)" "forged Wirehook-Payment-Id replaced"
assert_eq Complete "$(wh_app_env "$d" HTTP_WIREHOOK_STATUS)" "forged Wirehook-Status replaced"
wh_curl -H 'Wirehook-Verified: 1' -H 'Wirehook-Notification-Id: forged' "$WH_URL/open/record"
d=$(wh_app_last)
assert_eq "" "$(wh_app_env "$d" HTTP_WIREHOOK_VERIFIED)" "Wirehook-* stripped on unprotected URLs too"
assert_eq "" "$(wh_app_env "$d" HTTP_WIREHOOK_NOTIFICATION_ID)" "Wirehook-Notification-Id stripped on unprotected URLs"
assert_eq "" "$(wh_app_env "$d" WIREHOOK_VERIFIED)" "no WIREHOOK_VERIFIED on unprotected URLs"

# ------------------------------------------------------------ duplicates ---
wh_app_reset
dup=$(wh_body Complete)
dupid=$(wh_body_id "$dup")
wh_post "$W" "$dup"
assert_status 200 "first copy delivered"
wh_post "$W" "$dup"
assert_status 200 "second copy answered 200"
assert_json_code duplicate "second copy: duplicate"
assert_eq "$dupid" "$(wh_json_get "$WH_BODY" 'd["notificationId"]')" "duplicate names the notificationId"
assert_eq 1 "$(wh_app_calls)" "sequential duplicate not delivered"

# 20 copies at the same moment (each with its own fresh signature)
wh_app_reset
same=$(wh_body Complete)
for i in $(seq 1 20); do
    "$WIREHOOK" send --config "$WH_CONF" --url "$W" --user "$WH_USER:$WH_PASSWD" "$same" >"$T/par.$i" 2>&1 &
done
wait
# one is delivered; a copy arriving while that delivery is under way is
# 503 delivery_in_progress (the delivery could still fail), one arriving
# after it a duplicate: never a second delivery, never a 200 "duplicate"
# for something not delivered yet
n200=$(cat "$T"/par.* | grep -c '^200 ')
ndup=$(cat "$T"/par.* | grep -c '"duplicate"')
nbusy=$(cat "$T"/par.* | grep -c '"delivery_in_progress"')
assert_eq 20 "$((n200 + nbusy))" "20 parallel copies: each answered 200 or 503 delivery_in_progress ($n200 and $nbusy)"
assert_eq 19 "$((ndup + nbusy))" "19 of them duplicate or in progress"
assert_eq 1 "$(wh_app_calls)" "20 parallel copies delivered exactly once"
"$WIREHOOK" send --config "$WH_CONF" --url "$W" --user "$WH_USER:$WH_PASSWD" "$same" >"$T/par.after" 2>&1
assert_contains "$(cat "$T/par.after")" '"duplicate"' "a copy after the delivery was confirmed is a duplicate"
# the same with curl multi inside wirehook send
wh_app_reset
same2=$(wh_body Complete)
"$WIREHOOK" send --config "$WH_CONF" --url "$W" --user "$WH_USER:$WH_PASSWD" --count 20 --concurrency 20 "$same2" >"$T/multi.out" 2>/dev/null
assert_eq 20 "$(( $(grep -c '^200 ' "$T/multi.out") + $(grep -c '^503 .*delivery_in_progress' "$T/multi.out") ))" \
    "send --count 20 --concurrency 20: each 200, or 503 delivery_in_progress"
assert_eq 1 "$(wh_app_calls)" "send --concurrency 20 of one body: delivered once"

# the app fails (500): the id is forgotten, the bank's retry is delivered
wh_app_reset
f=$(wh_body Complete)
wh_post "$WH_URL/v1/failing" "$f"
assert_status 500 "failing app answers 500"
wh_post "$WH_URL/v1/failing" "$f"
assert_status 500 "retry after a 500 reaches the app again"
assert_eq 2 "$(wh_app_calls)" "retry after 5xx delivered (not duplicate)"

# ------------------------------------------------------------ send CLI ---
wh_app_reset
out=$("$WIREHOOK" send --config "$WH_CONF" --url "$W" --user "$WH_USER:$WH_PASSWD" --sample Complete --count 3 2>/dev/null)
assert_eq 0 "$?" "wirehook send --sample exits 0"
assert_eq 3 "$(printf '%s\n' "$out" | grep -c '^200 ')" "three sample notifications accepted"
assert_eq 3 "$(wh_app_calls)" "three distinct notifications delivered"
out=$("$WIREHOOK" send --config "$WH_CONF" --url "$W" --user "$WH_USER:nope" --sample Complete 2>/dev/null)
assert_eq 1 "$?" "wirehook send exits 1 on a 401"
assert_contains "$out" "401 " "wirehook send prints the 401"
out=$("$WIREHOOK" send --config "$WH_CONF" --url "$W" --user "$WH_USER:$WH_PASSWD" - <"$(wh_body Complete)" 2>/dev/null)
assert_contains "$out" "200 " "wirehook send reads the body from stdin (-)"
out=$("$WIREHOOK" send --config "$WH_CONF" --url "$W" --user "$WH_USER:$WH_PASSWD" --secret-index 2 --sample Exception 2>/dev/null)
assert_contains "$out" "200 " "wirehook send --secret-index 2 signs with the rotated secret"
"$WIREHOOK" send --url "$W" >/dev/null 2>&1
assert_eq 2 "$?" "wirehook send usage error exits 2"
assert_not_contains "$(cat "$T"/par.* "$T/multi.out")" "$WH_SECRET" "send never prints the secret"

# ------------------------------------------------------------ bcrypt cache ---
checks_before=$(grep -c "password of user $WH_USER checked" "$T/logs/error.log")
"$WIREHOOK" send --config "$WH_CONF" --url "$W" --user "$WH_USER:$WH_PASSWD" --sample Complete --count 60 --concurrency 6 >"$T/many.out" 2>/dev/null
assert_eq 60 "$(grep -c '^200 ' "$T/many.out")" "60 bcrypt-authenticated requests accepted"
checks=$(( $(grep -c "password of user $WH_USER checked" "$T/logs/error.log") - checks_before ))
# at most one bcrypt per thread racing on the first miss, per child
assert_true "60 bcrypt requests ran bcrypt only while the cache was cold (auth cache): $checks checks" test "$checks" -le 12

# ------------------------------------------------------------ logging ---
log=$(wh_errlog)
assert_contains "$log" "WH00911" "accepted verdicts logged at info"
assert_contains "$log" "code=signature_mismatch" "rejections logged with their code"
assert_contains "$log" "signed text was method=POST url=$W timestamp=" "debug explains a mismatch (URL, timestamp)"
assert_contains "$log" "body_length=" "debug explains a mismatch (body length)"
assert_not_contains "$log" "$WH_SECRET" "the first secret is never logged"
assert_not_contains "$log" "$WH_SECRET2" "the second secret is never logged"
assert_not_contains "$log" "$WH_PASSWD" "the password is never logged"

wh_done
