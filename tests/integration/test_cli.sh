#!/usr/bin/env bash
# The wirehook CLI as a user runs it: sign reproduces every shared vector,
# check and configtest report problems with their locations, usage errors
# exit 2, every command has --help.
. "$(dirname "$0")/lib.sh"
wh_init

# --- sign: every vector in ../shared/vectors/signatures.json -------------
vectors="$WH_SHARED/vectors/signatures.json"
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["vectors"]))' "$vectors")
assert_ne 0 "$n" "vectors file has vectors"
for i in $(seq 0 $((n - 1))); do
    python3 - "$vectors" "$i" "$T/v" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["vectors"][int(sys.argv[2])]
d = sys.argv[3]
open(d + ".secret", "wb").write(v["secret"].encode() + b"\n")
open(d + ".body", "wb").write(v["body"].encode())
for k in ("name", "method", "url", "timestamp", "signature"):
    open(d + "." + k, "w").write(v[k])
PY
    got=$("$WIREHOOK" sign --secret-file "$T/v.secret" --url "$(cat "$T/v.url")" \
          --method "$(cat "$T/v.method")" --timestamp "$(cat "$T/v.timestamp")" "$T/v.body")
    assert_eq "$(cat "$T/v.signature")" "$got" "sign: vector '$(cat "$T/v.name")'"
    got=$("$WIREHOOK" sign --secret-file "$T/v.secret" --url "$(cat "$T/v.url")" \
          --timestamp "$(cat "$T/v.timestamp")" - <"$T/v.body")
    assert_eq "$(cat "$T/v.signature")" "$got" "sign: vector '$(cat "$T/v.name")' from stdin"
done

# Default timestamp is now: the output is still 64 lowercase hex digits.
got=$("$WIREHOOK" sign --secret-file "$WH_SECRETS" --url http://x/ "$WH_SAMPLE")
assert_true "sign: default timestamp gives 64 hex" grep -qxE '[0-9a-f]{64}' <<<"$got"
# The first secret signs; it matches an independent openssl computation.
ts=1700000000
want=$( { printf 'POSThttp://x/'; cat "$WH_SAMPLE"; printf '%s' "$ts"; } |
        openssl dgst -sha256 -hmac "$WH_SECRET" -r | cut -d' ' -f1)
got=$("$WIREHOOK" sign --secret-file "$WH_SECRETS" --url http://x/ --timestamp $ts "$WH_SAMPLE")
assert_eq "$want" "$got" "sign: first secret of the file, agrees with openssl"
out=$("$WIREHOOK" sign --secret-file "$WH_SECRETS" --url http://x/ --timestamp $ts "$WH_SAMPLE" 2>&1)
assert_not_contains "$out" "$WH_SECRET" "sign: never prints the secret"

"$WIREHOOK" sign --url http://x/ "$WH_SAMPLE" >/dev/null 2>"$T/err"; rc=$?
assert_eq 2 "$rc" "sign: missing --secret-file is a usage error"
assert_contains "$(cat "$T/err")" "usage: wirehook sign" "sign: usage line"
"$WIREHOOK" sign --secret-file /nonexistent --url http://x/ "$WH_SAMPLE" >/dev/null 2>&1; rc=$?
assert_eq 1 "$rc" "sign: unreadable secret file fails"

# --- check ---------------------------------------------------------------
out=$("$WIREHOOK" check "$WH_SHARED/samples/wire-status-complete.json"); rc=$?
assert_eq "0 ok" "$rc $out" "check: complete sample ok"
out=$("$WIREHOOK" check "$WH_SHARED/samples/wire-status-exception.json"); rc=$?
assert_eq "0 ok" "$rc $out" "check: exception sample ok"
out=$("$WIREHOOK" check - <"$WH_SHARED/samples/wire-status-processed-as-in-spec-sample.json" 2>/dev/null); rc=$?
assert_eq "0 ok" "$rc $out" "check: Processed accepted by default"
out=$("$WIREHOOK" check --unknown-status reject "$WH_SHARED/samples/wire-status-processed-as-in-spec-sample.json"); rc=$?
assert_eq 1 "$rc" "check: Processed rejected with --unknown-status reject"
assert_contains "$out" "/data/wireEventInfo/status:" "check: pointer to status"
sed 's/"15250.00"/".50"/; s/"NWT001"/"NWT0012345678"/' "$WH_SAMPLE" >"$T/bad.json"
out=$("$WIREHOOK" check "$T/bad.json"); rc=$?
assert_eq 1 "$rc" "check: bad body exits 1"
assert_contains "$out" "/data/wireEventInfo/originalWire/wireInfo/paymentAmount: " "check: amount pointer"
assert_contains "$out" "/data/wireEventInfo/originalWire/originatorInfo/wireCompanyId: " "check: company id pointer"
assert_eq 2 "$(printf '%s\n' "$out" | wc -l)" "check: every problem, one per line"
printf '{"a":1} x' >"$T/trailing.json"
out=$("$WIREHOOK" check "$T/trailing.json"); rc=$?
assert_eq 1 "$rc" "check: trailing bytes exit 1"
assert_contains "$out" "invalid JSON" "check: says invalid JSON"
"$WIREHOOK" check --bogus "$WH_SAMPLE" >/dev/null 2>&1; rc=$?
assert_eq 2 "$rc" "check: unknown option is a usage error"

# --- configtest -----------------------------------------------------------
out=$("$WIREHOOK" configtest "$WH_CONF" 2>&1); rc=$?
assert_eq 0 "$rc" "configtest: generated config passes"
assert_contains "$out" "Syntax OK" "configtest: Syntax OK"
printf 'SigningSecretFile %s\nBasicAuthFile %s\nTimestampTolerance soon\nBogusKey 1\n' \
    "$WH_SECRETS" "$WH_HTPASSWD" >"$T/broken.conf"
out=$("$WIREHOOK" configtest "$T/broken.conf" 2>&1); rc=$?
assert_eq 1 "$rc" "configtest: broken config exits 1"
assert_contains "$out" "$T/broken.conf:3:" "configtest: bad value named by file:line"
assert_contains "$out" "$T/broken.conf:4:" "configtest: unknown key named by file:line"
printf 'TimestampTolerance 300\n' >"$T/missing.conf"
out=$("$WIREHOOK" configtest "$T/missing.conf" 2>&1); rc=$?
assert_eq 1 "$rc" "configtest: missing required keys exit 1"
assert_contains "$out" "SigningSecretFile" "configtest: names the missing key"
cp "$WH_SECRETS" "$T/open.secret"; chmod 644 "$T/open.secret"
wh_write_config "$T/open.conf"
sed -i "s#^SigningSecretFile .*#SigningSecretFile $T/open.secret#" "$T/open.conf"
out=$("$WIREHOOK" configtest "$T/open.conf" 2>&1); rc=$?
assert_eq 0 "$rc" "configtest: world-readable secret still loads"
assert_contains "$out" "warning" "configtest: warns about a world-readable secret"
assert_not_contains "$out" "$WH_SECRET" "configtest: never prints the secret"
"$WIREHOOK" configtest >/dev/null 2>&1; rc=$?
assert_eq 2 "$rc" "configtest: no file is a usage error"
# --keys: the rows, one a line, six tab-separated fields, nothing else
out=$("$WIREHOOK" configtest --keys 2>"$T/keys.err"); rc=$?
assert_eq 0 "$rc" "configtest --keys exits 0"
assert_eq "" "$(cat "$T/keys.err")" "configtest --keys writes nothing to stderr"
assert_eq "" "$(awk -F'\t' 'NF != 6' <<<"$out")" "configtest --keys: six fields on every line"
assert_contains "$out" "$(printf 'MaxBodySize\tbytes\tBYTES\t65536\t1..67108864\t')" \
    "configtest --keys: a row's kind, default and bounds"
assert_eq "" "$(cut -f1 <<<"$out" | sort | uniq -d)" "configtest --keys: each key once"
"$WIREHOOK" configtest --keys "$T/open.conf" >/dev/null 2>&1; rc=$?
assert_eq 2 "$rc" "configtest: --keys with a file is a usage error"

# --- help and usage -------------------------------------------------------
for c in sign check configtest send pull; do
    "$WIREHOOK" "$c" --help >"$T/help" 2>&1; rc=$?
    assert_eq 0 "$rc" "$c --help exits 0"
    assert_contains "$(cat "$T/help")" "usage: wirehook $c" "$c --help prints its usage"
    assert_contains "$("$WIREHOOK" --help)" "$c" "wirehook --help lists $c"
done
"$WIREHOOK" frobnicate >/dev/null 2>&1; rc=$?
assert_eq 2 "$rc" "unknown command exits 2"
"$WIREHOOK" >/dev/null 2>&1; rc=$?
assert_eq 2 "$rc" "no command exits 2"

wh_done
