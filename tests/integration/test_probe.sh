#!/usr/bin/env bash
# wirehook probe against real receivers on one httpd: the module in front
# of an application, the module as the inbox and the CGI pass every probe
# (exit 0); two deliberately weak receivers (tests/integration/probe/: one
# checks only the HMAC, one checks nothing) fail their critical probes
# (exit 1). Over TLS --cacert trusts the receiver's CA, and behind a
# proxy (SignedUrl) the URL probes change the URL the receiver checks.
# The JSON reports validate against probe/report.schema.json
# and the vectors against probe/vectors.schema.json; the JUnit report is
# XML a CI reads; no output holds the secret or the password. The slow
# probes run short here (--slow, --replay-pause, a low httpd Timeout for
# the stall); the timing probe is a measurement and is never asserted.
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/inbox_lib.sh"
ib_cgi_install
PROBE_DIR="$WH_TOP/probe"

/usr/bin/python3 -c 'import jsonschema' 2>/dev/null ||
    _wh_bad "python3-jsonschema is installed (build/deps-extra.txt: make test-deps)"

# the CGI with an inbox of its own, so that its listing counts its deliveries
ib_cgi_location /cgi/inbox "SetEnv WIREHOOK_CONFIG $WH_CONF" \
    "SetEnv WIREHOOK_INBOXPARAMS $T/data/probe-cgi.db"
for w in weak_nothing weak_hmac; do
    cp "$WH_LIB_DIR/probe/$w.cgi" "$T/cgi-bin/" && chmod 755 "$T/cgi-bin/$w.cgi"
done
# what record.cgi (behind /v1/wires) was handed, for counting deliveries
printf '#!/bin/sh\nprintf "Content-Type: text/plain\\r\\n\\r\\n"\ncat "$WH_APP_OUT"/calls/*/body 2>/dev/null\nexit 0\n' \
    >"$T/cgi-bin/deliveries.cgi"
chmod 755 "$T/cgi-bin/deliveries.cgi"
# over TLS: a test certificate, which --cacert trusts
TLS_PORT=$(wh_free_port)
while [ "$TLS_PORT" = "$WH_PORT" ]; do TLS_PORT=$(wh_free_port); done
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -subj /CN=127.0.0.1 -addext "subjectAltName=IP:127.0.0.1" \
    -keyout "$T/etc/tls.key" -out "$T/etc/tls.pem" >/dev/null 2>&1
# behind a proxy: the receiver checks the public URL it is told (SignedUrl)
PUBLIC="https://hooks.example.com/v1/proxied"
wh_write_config "$T/etc/proxied.conf" "SignedUrl $PUBLIC" "InboxParams $WH_INBOX_DB"
# a short Timeout: the stall probe sees httpd give up within its limit
wh_httpd_extra "Listen 127.0.0.1:$TLS_PORT
<VirtualHost 127.0.0.1:$TLS_PORT>
    SSLEngine on
    SSLCertificateFile $T/etc/tls.pem
    SSLCertificateKeyFile $T/etc/tls.key
</VirtualHost>
ScriptAlias /v1/proxied \"$T/cgi-bin/record.cgi\"
<Location /v1/proxied>
    WirehookConfig $T/etc/proxied.conf
</Location>
Timeout 5
ScriptAlias /weak/nothing \"$T/cgi-bin/weak_nothing.cgi\"
ScriptAlias /weak/hmac \"$T/cgi-bin/weak_hmac.cgi\"
ScriptAlias /open/deliveries \"$T/cgi-bin/deliveries.cgi\"
<Location /weak/>
    SetEnv WH_WEAK_SECRET_FILE $WH_SECRETS
</Location>"
WH_EXTRA_MODULES="ssl" wh_httpd_conf
wh_httpd_start || exit 1

CRED="$T/etc/bank.cred"
printf '%s:%s\n' "$WH_USER" "$WH_PASSWD" >"$CRED"
chmod 600 "$CRED"
FAST=(--rate 200 --slow 2 --replay-pause 1 --stall-limit 15 --timing-samples 6 --timeout 20)
AUTHURL="http://$WH_USER:$WH_PASSWD@$WH_HOST"

# probe NAME URL [OPTIONS...] -- in the background: $T/NAME.{json,err,rc}
probe() {
    local name=$1 url=$2; shift 2
    ( "$WIREHOOK" probe --config "$WH_CONF" --user-file "$CRED" "${FAST[@]}" \
          --format json "$@" "$url" >"$T/$name.json" 2>"$T/$name.err"
      echo $? >"$T/$name.rc" ) &
}

# check_report NAME -- the report validates; prints its results as lines
# "id outcome graded_severity deliveries" for the assertions
check_report() {
    /usr/bin/python3 - "$PROBE_DIR/report.schema.json" "$T/$1.json" <<'EOF'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
report = json.load(open(sys.argv[2]))
errors = list(jsonschema.Draft202012Validator(schema).iter_errors(report))
print("schema", "valid" if not errors else "invalid: " + "; ".join(e.message[:200] for e in errors[:3]))
for r in report["results"]:
    d = r.get("deliveries")
    print(r["id"], r["outcome"], r["graded_severity"], "-" if d is None else d)
EOF
}

# outcome LINES ID -> "outcome severity deliveries"
outcome() { awk -v id="$2" '$1 == id {print $2, $3, $4}' <<<"$1"; }

# --------------------------------------------------- no server needed ---
"$WIREHOOK" probe --help >"$T/help" 2>&1
assert_eq 0 $? "probe --help exits 0"
assert_contains "$(cat "$T/help")" "usage: wirehook probe" "probe --help prints its usage"
assert_contains "$("$WIREHOOK" --help)" "probe" "wirehook --help lists probe"
L=$("$WIREHOOK" probe --list)
assert_eq "$(grep -c '"id":' "$PROBE_DIR/vectors.json")" "$(grep -c . <<<"$L")" "--list names every probe of the vectors"
"$WIREHOOK" probe --list --format json >"$T/builtin.json"
assert_true "the built-in vectors are probe/vectors.json byte for byte" cmp -s "$T/builtin.json" "$PROBE_DIR/vectors.json"
v=$(/usr/bin/python3 - "$PROBE_DIR" <<'EOF'
import json, sys, jsonschema
d = sys.argv[1]
s = json.load(open(d + "/vectors.schema.json"))
jsonschema.Draft202012Validator.check_schema(s)
jsonschema.Draft202012Validator.check_schema(json.load(open(d + "/report.schema.json")))
errors = list(jsonschema.Draft202012Validator(s).iter_errors(json.load(open(d + "/vectors.json"))))
print("valid" if not errors else errors[0].message[:300])
EOF
)
assert_eq valid "$v" "probe/vectors.json validates against probe/vectors.schema.json"
for g in valid status signature timestamp auth json schema http replay slow; do
    assert_true "the vectors have probes of group $g" grep -qE "^$g(\.| )" <<<"$L"
done
assert_contains "$("$WIREHOOK" probe --list --only signature.url_host,replay)" "replay.after_pause" "--list --only selects groups and ids"
missing=""
for id in $(awk '{print $1}' <<<"$L"); do
    case $id in schema.*) continue ;; esac
    grep -qF "\`$id\`" "$WH_TOP/docs/probe.md" || missing="$missing $id"
done
assert_eq "" "$missing" "docs/probe.md names every probe (the schema group's by their rules)"

out=$("$WIREHOOK" probe --config "$WH_CONF" "$WH_URL/v1/wires" 2>&1); rc=$?
assert_eq 2 "$rc" "no credentials: usage error, exit 2"
"$WIREHOOK" probe --config "$WH_CONF" --user-file "$CRED" --format yaml "$WH_URL/v1/wires" >/dev/null 2>&1
assert_eq 2 $? "an unknown --format: exit 2"
out=$("$WIREHOOK" probe --config "$WH_CONF" --user-file "$CRED" --only nosuch,valid "$WH_URL/v1/wires" 2>&1); rc=$?
assert_eq 2 "$rc" "--only naming no probe: exit 2"
assert_contains "$out" "nosuch" "the unknown --only entry is named"
out=$("$WIREHOOK" probe --config "$WH_CONF" --user-file "$CRED" "$AUTHURL/v1/wires" 2>&1); rc=$?
assert_eq 2 "$rc" "credentials in the URL: exit 2"
assert_not_contains "$out" "$WH_PASSWD" "the refusal does not repeat the password"
sed 's/"version": 1,/"version": 2,/' "$PROBE_DIR/vectors.json" >"$T/v2.json"
out=$("$WIREHOOK" probe --list --vectors "$T/v2.json" 2>&1); rc=$?
assert_eq 2 "$rc" "vectors of another version: exit 2"
assert_contains "$out" "version 2" "the version is named"
sed 's/"op": "random"/"op": "randum"/' "$PROBE_DIR/vectors.json" >"$T/typo.json"
out=$("$WIREHOOK" probe --list --vectors "$T/typo.json" 2>&1); rc=$?
assert_eq 2 "$rc" "a vectors file with an unknown op: exit 2"
assert_contains "$out" "signature.forged" "the broken probe is named"
dead=$(wh_free_port)
out=$("$WIREHOOK" probe --config "$WH_CONF" --user-file "$CRED" "${FAST[@]}" "http://127.0.0.1:$dead/hook" 2>&1); rc=$?
assert_eq 2 "$rc" "nothing listening: could not run, exit 2"
out=$("$WIREHOOK" probe --config "$WH_CONF" --user-file "$CRED" "${FAST[@]}" --only signature.forged \
    "http://127.0.0.1:$dead/hook" 2>&1); rc=$?
assert_eq 2 "$rc" "nothing listening, without the valid notification: exit 2"
assert_contains "$out" "no answer to any probe" "it says why"

# ----------------------------------------------------------- the runs ---
probe module "$WH_URL/v1/wires" --deliveries "$WH_URL/open/deliveries"
probe inbox "$WH_URL/inbox" --deliveries "$AUTHURL/inbox?limit=100"
probe cgi "$WH_URL/cgi/inbox" --deliveries "$AUTHURL/cgi/inbox?limit=100"
probe nothing "$WH_URL/weak/nothing" --deliveries "$T/app/weak-nothing.log"
probe hmac "$WH_URL/weak/hmac" --deliveries "$T/app/weak-hmac.log"
SOME=valid,signature,timestamp.stale_1s,replay.at_once
probe tls "https://127.0.0.1:$TLS_PORT/v1/wires" --only "$SOME" --cacert "$T/etc/tls.pem"
probe notrust "https://127.0.0.1:$TLS_PORT/v1/wires" --only "$SOME"
( "$WIREHOOK" probe --config "$T/etc/proxied.conf" --user-file "$CRED" "${FAST[@]}" --format json \
      --only "$SOME" "$WH_URL/v1/proxied" >"$T/proxied.json" 2>"$T/proxied.err"
  echo $? >"$T/proxied.rc" ) &
wait

all_ids=$(awk '{print $1}' <<<"$L" | sort)
for name in module inbox cgi; do
    assert_eq 0 "$(cat "$T/$name.rc")" "[$name] every critical and high probe passes: exit 0"
    R=$(check_report "$name")
    assert_eq "schema valid" "$(head -n1 <<<"$R")" "[$name] the JSON report validates against probe/report.schema.json"
    R=$(tail -n +2 <<<"$R")
    assert_eq "$all_ids" "$(awk '{print $1}' <<<"$R" | sort)" "[$name] the report has every probe once"
    # every probe passes; auth.timing is a measurement, graded but not asserted here
    bad=$(awk '$1 != "auth.timing" && $2 != "pass" {print $1 "=" $2}' <<<"$R" | tr '\n' ' ')
    assert_eq "" "$bad" "[$name] every probe passes"
    assert_eq "pass critical 1" "$(outcome "$R" replay.at_once)" "[$name] replay at once: delivered once, counted"
    assert_eq "pass critical 1" "$(outcome "$R" replay.after_pause)" "[$name] replay after the pause: delivered once, counted"
done

for name in nothing hmac; do
    assert_eq 1 "$(cat "$T/$name.rc")" "[$name] a critical probe fails: exit 1"
done
R=$(check_report nothing)
assert_eq "schema valid" "$(head -n1 <<<"$R")" "[nothing] the JSON report validates"
for id in signature.forged signature.missing timestamp.stale_1s timestamp.future_1s slow.late_last_byte; do
    assert_eq "fail critical -" "$(outcome "$R" $id)" "[nothing] $id fails, critical"
done
assert_eq "fail critical 2" "$(outcome "$R" replay.at_once)" "[nothing] the replay is counted twice: fails, critical"
assert_eq "fail high -" "$(outcome "$R" auth.missing)" "[nothing] auth.missing fails, high"
assert_eq "fail high -" "$(outcome "$R" schema.payment_amount.one_decimal)" "[nothing] a schema rule fails, high"
assert_eq "fail critical" "$(awk 'NR == 2 {print $2, $3}' <<<"$R")" "[nothing] the report lists a critical failure first"

R=$(check_report hmac)
assert_eq "schema valid" "$(head -n1 <<<"$R")" "[hmac] the JSON report validates"
for id in signature.forged signature.other_secret signature.url_host signature.url_path signature.method signature.body_byte signature.hex_65; do
    assert_eq "pass critical -" "$(outcome "$R" $id)" "[hmac] $id passes: the HMAC is checked"
done
for id in timestamp.stale_1s timestamp.stale_10min timestamp.future_1s timestamp.missing slow.late_last_byte; do
    assert_eq "fail critical -" "$(outcome "$R" $id)" "[hmac] $id fails, critical: the timestamp's age is not"
done
assert_eq "fail critical 2" "$(outcome "$R" replay.after_pause)" "[hmac] the paused replay is delivered twice: fails, critical"
assert_eq "fail high -" "$(outcome "$R" auth.wrong_password)" "[hmac] a wrong password is accepted: fails, high"

# over TLS with --cacert, and behind a proxy with SignedUrl: the URL
# signed is the one the receiver checks, and every URL part is changed
# in it
assert_eq 0 "$(cat "$T/tls.rc")" "[tls] --cacert trusts the receiver's CA: exit 0"
R=$(check_report tls)
assert_eq "schema valid" "$(head -n1 <<<"$R")" "[tls] the JSON report validates"
assert_eq "" "$(awk '$2 != "pass" {print $1}' <<<"$(tail -n +2 <<<"$R")" | tr '\n' ' ')" "[tls] every probe passes"
signed=$(wh_json_get "$(cat "$T/tls.json")" '[r["request"]["signed"]["url"] for r in d["results"] if r["id"] == "valid"][0]')
assert_eq "https://127.0.0.1:$TLS_PORT/v1/wires" "$signed" "[tls] the https URL is signed"
assert_eq 2 "$(cat "$T/notrust.rc")" "[tls] without --cacert the certificate is not trusted: exit 2"
assert_contains "$(cat "$T/notrust.err")" "no answer to the valid notification" "[tls] it says why"
assert_eq 0 "$(cat "$T/proxied.rc")" "[proxy] SignedUrl: every probe passes, exit 0"
R=$(check_report proxied)
assert_eq "" "$(awk '$2 != "pass" {print $1}' <<<"$(tail -n +2 <<<"$R")" | tr '\n' ' ')" "[proxy] every probe passes"
signed=$(wh_json_get "$(cat "$T/proxied.json")" '[r["request"]["signed"]["url"] for r in d["results"] if r["id"] == "signature.url_port"][0]')
assert_eq "https://hooks.example.com:444/v1/proxied" "$signed" "[proxy] the URL probes change SignedUrl"

# deliveries that cannot be read: the replays are graded by their answers
"$WIREHOOK" probe --config "$WH_CONF" --user-file "$CRED" "${FAST[@]}" --only valid,replay.at_once \
    --format json --deliveries "$T/no-such-log" "$WH_URL/v1/wires" >"$T/nolog.json" 2>"$T/nolog.err"
assert_eq 0 $? "an unreadable deliveries source does not fail the run"
assert_contains "$(cat "$T/nolog.err")" "the deliveries cannot be read" "it is said on stderr"
R=$(check_report nolog)
assert_eq "pass critical -" "$(outcome "$R" replay.at_once)" "the replay is graded by its duplicate answer"

# ------------------------------------------------ text and JUnit forms ---
out=$("$WIREHOOK" probe --config "$WH_CONF" --user "$WH_USER:$WH_PASSWD" "${FAST[@]}" \
    --only valid,signature.forged,timestamp.stale_1s,auth.wrong_password "$WH_URL/weak/nothing" 2>&1); rc=$?
assert_eq 1 "$rc" "[text] exit 1 on a critical failure"
first=$(grep -m1 -E '^(fail|pass|warn)' <<<"$out")
assert_contains "$first" "fail" "[text] failures come first"
assert_contains "$first" "critical" "[text] the first failure is critical"
assert_contains "$out" "request: POST $WH_URL/weak/nothing" "[text] the failing request is shown"
assert_contains "$out" "answer: 200" "[text] the answer received is shown"
assert_contains "$out" "Basic (user $WH_USER, password withheld)" "[text] Authorization is shown without its password"
for secret in "$WH_PASSWD" "$WH_SECRET"; do
    assert_not_contains "$out" "$secret" "[text] the output holds no secret or password"
done
"$WIREHOOK" probe --config "$WH_CONF" --user-file "$CRED" "${FAST[@]}" --format junit \
    --only valid,signature,timestamp.stale_1s "$WH_URL/weak/hmac" >"$T/hmac.xml" 2>"$T/hmac.xml.err"
assert_eq 1 $? "[junit] exit 1 on a critical failure"
x=$(/usr/bin/python3 - "$T/hmac.xml" <<'EOF'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suite = root.find("testsuite")
cases = suite.findall("testcase")
failed = [c.get("name") for c in cases if c.find("failure") is not None]
print(root.tag, suite.get("tests"), len(cases), suite.get("failures"), " ".join(failed))
EOF
)
n=$(grep -cE "^(valid|signature\.[a-z0-9_.]+|timestamp\.stale_1s) " <<<"$L")
assert_eq "testsuites $n $n 1 timestamp.stale_1s" "$x" "[junit] well-formed; one testcase a probe; the critical failure is a failure"
leaks=""
for f in "$T"/*.json "$T"/*.err "$T/hmac.xml"; do
    case "$f" in */builtin.json|*/v2.json|*/typo.json) continue ;; esac
    for secret in "$WH_PASSWD" "$WH_SECRET" "$WH_SECRET2"; do
        grep -qF -- "$secret" "$f" && leaks="$leaks $(basename "$f")"
    done
done
assert_eq "" "$leaks" "no report or error output holds a secret or the password"

# only the given URL: every request of the runs reached the paths probed
others=$(awk '{print $3}' "$T/logs/access.log" | grep -vE '^/(v1/wires|v1/proxied|inbox|cgi/inbox|weak/nothing|weak/hmac|open/deliveries)(\?|$)' | sort -u | tr '\n' ' ')
assert_eq "" "$others" "the probe sent nothing to any other path"
wh_done
