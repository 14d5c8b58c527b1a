#!/usr/bin/env bash
# Every route httpd can take to a handler, tried as an attacker would: a
# request whose final configuration names a WirehookConfig must reach the
# application only with a verified body. For each route: a forged request
# (no credentials, no signature; then credentials and a bad signature; then
# a notification already delivered) never runs the application, and a
# valid notification still reaches it where the route is meant to deliver
# it (positive control). The whole suite runs over HTTP/1.1 and over h2c.
# docs/reliability.md lists the routes.
. "$(dirname "$0")/lib.sh"
wh_init
H=$T/htdocs
mkdir -p "$H"/{hooks,hooks2,hooks3,hooks4,fb,ssi,rw,mv,act,lm,ht,htfb,protected,eopen,open2} "$T/protdir"
for f in hooks/receive.cgi hooks2/index.cgi hooks3/app.cgi protected/app.cgi \
         mv/app.cgi lm/app.cgi ht/app.cgi; do
    cp "$WH_RECORD_CGI" "$H/$f"
done
cp "$WH_RECORD_CGI" "$T/protdir/app.cgi"
chmod 755 "$H"/*/*.cgi "$T/protdir/app.cgi"
touch "$H/act/x.act"
echo '<p>before</p><!--#include virtual="/protected/app.cgi" --><p>after</p>' >"$H/ssi/include.shtml"
echo '<p>before</p><!--#exec cgi="/protected/app.cgi" --><p>after</p>' >"$H/ssi/exec.shtml"
echo '<p>before</p><!--#include virtual="/inbox" --><p>after</p>' >"$H/ssi/inbox.shtml"
echo '<p>open:</p><!--#include virtual="/open/record" -->' >"$H/ssi/open.shtml"
printf 'RewriteEngine On\nRewriteRule ^go$ /protected/app.cgi [L]\n' >"$H/rw/.htaccess"
printf 'DirectoryIndex app.cgi\n' >"$H/ht/.htaccess"
printf 'FallbackResource /protected/app.cgi\n' >"$H/htfb/.htaccess"
cat >"$H/open2/redir.cgi" <<'EOF'
#!/bin/sh
cat >/dev/null
printf 'Location: /protected/app.cgi\r\n\r\n'
EOF
chmod 755 "$H/open2/redir.cgi"
# a protected directory whose .htaccess rewrites into the inbox
mkdir -p "$H/prw"
printf 'RewriteEngine On\nRewriteRule ^go$ /inbox [L]\n' >"$H/prw/.htaccess"
# handlers that take a request whatever SetHandler names: mod_proxy (a
# backend outside httpd, recording its calls as the application) and
# mod_lua's LuaMapHandler, when httpd has it
BACK=$(wh_free_port)
wh_backend_start "$BACK" || exit 1
LUA_PATH=""
if [ -f "${WH_MODDIR:-/usr/lib/apache2/modules}/mod_lua.so" ]; then
    LUA_PATH=/inbox/lua
    cat >"$T/lua-app.lua" <<'LUA'
function handle(r)
  local d = r.subprocess_env["LUA_CALLS"] .. "/lua." .. tostring(r:clock())
  os.execute("mkdir -p " .. d)
  r.content_type = "application/json"
  r:puts('{"app":"received"}')
  return apache2.OK
end
LUA
fi

WH_EXTRA_MODULES="include rewrite actions negotiation http2 proxy proxy_http${LUA_PATH:+ lua}"
wh_httpd_extra "Protocols h2c http/1.1
AddType text/html .shtml
AddOutputFilter INCLUDES .shtml
<Directory \"$H\">
    Options +ExecCGI +Includes
    AddHandler cgi-script .cgi
</Directory>
# DirectoryIndex into a <Files> section
<Directory \"$H/hooks\">
    DirectoryIndex receive.cgi
    <Files receive.cgi>
        WirehookConfig $WH_CONF
    </Files>
</Directory>
# DirectoryIndex into a <Location>
<Directory \"$H/hooks2\">
    DirectoryIndex index.cgi
</Directory>
<Location /hooks2/index.cgi>
    WirehookConfig $WH_CONF
</Location>
# DirectoryIndex into a <FilesMatch>
<Directory \"$H/hooks3\">
    DirectoryIndex app.cgi
    <FilesMatch \"\\.cgi\$\">
        WirehookConfig $WH_CONF
    </FilesMatch>
</Directory>
# DirectoryIndex given as a URL path
<Directory \"$H/hooks4\">
    DirectoryIndex /protected/app.cgi
</Directory>
<Location /protected>
    WirehookConfig $WH_CONF
</Location>
# FallbackResource from an open directory
<Directory \"$H/fb\">
    FallbackResource /protected/app.cgi
</Directory>
# server-level rewrite, passed through
RewriteEngine On
RewriteRule ^/alias/(.*)\$ /protected/\$1 [PT]
# per-directory rewrite (.htaccess) and .htaccess DirectoryIndex/FallbackResource
<Directory \"$H/rw\">
    AllowOverride All
</Directory>
<Directory \"$H/ht\">
    AllowOverride All
    <Files app.cgi>
        WirehookConfig $WH_CONF
    </Files>
</Directory>
<Directory \"$H/htfb\">
    AllowOverride All
</Directory>
# ErrorDocument into a protected handler
<Location /eopen>
    ErrorDocument 404 /protected/app.cgi
</Location>
<Location /eopen-ok>
    ErrorDocument 404 /open/record
</Location>
<Location /einbox>
    ErrorDocument 404 /inbox
</Location>
# MultiViews
<Directory \"$H/mv\">
    Options +MultiViews
    MultiViewsMatch Any
    <Files app.cgi>
        WirehookConfig $WH_CONF
    </Files>
</Directory>
# Action
Action wh-action /protected/app.cgi
<Directory \"$H/act\">
    AddHandler wh-action .act
</Directory>
# Alias and ScriptAlias onto a protected <Directory>
Alias /al \"$T/protdir\"
ScriptAlias /sa/ \"$T/protdir/\"
<Directory \"$T/protdir\">
    Options +ExecCGI
    AddHandler cgi-script .cgi
    Require all granted
    WirehookConfig $WH_CONF
</Directory>
# LocationMatch
<LocationMatch \"^/lm/.*\\.cgi\$\">
    WirehookConfig $WH_CONF
</LocationMatch>
# the inbox's URL space taken by other handlers: ProxyPass in a
# <Location> and a [P] rule mark the request for mod_proxy at translation,
# and mod_proxy takes it whatever SetHandler names; so does LuaMapHandler
<Location /inbox/fwd>
    ProxyPass http://127.0.0.1:$BACK/fwd
</Location>
RewriteRule ^/inbox/rp(.*)\$ http://127.0.0.1:$BACK/rp\$1 [P]
${LUA_PATH:+SetEnv LUA_CALLS $T/app/calls
LuaMapHandler ^/inbox/lua $T/lua-app.lua handle}
# a protected directory that rewrites into the inbox (.htaccess)
<Directory \"$H/prw\">
    AllowOverride All
    WirehookConfig $WH_CONF
</Directory>"
wh_httpd_conf
wh_httpd_start || exit 1

# What each route did, for docs/reliability.md (make soak renders it):
# protocol, route, path, what was sent, what came back
ROUTES="$WH_BUILD/reliability/routes.tsv"
mkdir -p "$(dirname "$ROUTES")" && : >"$ROUTES"
row() { printf '%s\t%s\t%s\t%s\t%s\n' "$PROTO" "$1" "$2" "$3" "$4" >>"$ROUTES"; }

# forged_never_runs LABEL PATH [CURL-ARGS...]: three forgeries on PATH;
# none may run the application
forged_never_runs() {
    local label=$1 path=$2; shift 2
    local before body status
    body=$(wh_body Complete)
    before=$(wh_app_calls)
    WH_AUTH=- WH_TS=- WH_SIG=- wh_post "$WH_URL$path" "$body" "$@"
    status=$WH_STATUS
    assert_eq "$before" "$(wh_app_calls)" "[$PROTO] $label: unsigned, no credentials: the application does not run (got $status)"
    assert_true "[$PROTO] $label: refused with an error status ($status)" test "$status" -ge 400
    WH_SIG=$(printf '%064d' 0) wh_post "$WH_URL$path" "$body" "$@"
    assert_eq "$before" "$(wh_app_calls)" "[$PROTO] $label: a wrong signature does not run the application (got $WH_STATUS)"
    assert_true "[$PROTO] $label: wrong signature refused ($WH_STATUS)" test "$WH_STATUS" -ge 400
    row "$label" "$path" "forged (no credentials, no signature; then a wrong signature)" \
        "$status, $WH_STATUS; application ran $(( $(wh_app_calls) - before )) times"
}

# delivered LABEL PATH [CURL-ARGS...]: a valid notification signed for PATH
# reaches the application once, byte for byte, with the facts; sent again
# (any route) it is a duplicate
delivered() {
    local label=$1 path=$2; shift 2
    local body before d
    body=$(wh_body Complete)
    before=$(wh_app_calls)
    wh_post "$WH_URL$path" "$body" "$@"
    assert_status 200 "[$PROTO] $label: a valid notification is accepted"
    assert_eq $((before + 1)) "$(wh_app_calls)" "[$PROTO] $label: the application ran once"
    d=$(wh_app_last)
    assert_true "[$PROTO] $label: the application got the exact body" cmp -s "$body" "$d/body"
    assert_eq 1 "$( (wh_app_env "$d" WIREHOOK_VERIFIED; wh_app_env "$d" REDIRECT_WIREHOOK_VERIFIED) | head -n 1)" \
        "[$PROTO] $label: the application sees WIREHOOK_VERIFIED=1"
    LAST_BODY=$body
    LAST_PATH=$path
    row "$label" "$path" "valid, signed for this URL" "$WH_STATUS; delivered $(( $(wh_app_calls) - before )) time(s), byte for byte"
}

# replayed_never_runs LABEL PATH: the last delivered notification, replayed
# through PATH (signed for it), is a duplicate and not delivered again
replayed_never_runs() {
    local label=$1 path=$2; shift 2
    local before
    before=$(wh_app_calls)
    wh_post "$WH_URL$path" "$LAST_BODY" "$@"
    assert_eq "$before" "$(wh_app_calls)" "[$PROTO] $label: a replay through another route is not delivered"
    assert_json_code duplicate "[$PROTO] $label: the replay is answered duplicate"
    row "$label" "$path" "replay of a notification delivered through $LAST_PATH" \
        "$WH_STATUS $(wh_json_code "$WH_BODY"); delivered $(( $(wh_app_calls) - before )) times"
}

# post_missing URL [CURL-ARGS...]: a signed POST to a URL httpd answers
# with an error. Over h2c httpd answers a POST to a missing file before the
# client has sent the body, then resets the stream (RST_STREAM NO_ERROR, as
# RFC 9113 8.1 allows); curl 7.88 then reports error 92 and drops the
# answer it had. Stock httpd without wirehook does it to about one POST in
# four. Such an attempt is asked again (nothing is stored either way).
post_missing() {
    local url=$1 try; shift
    for try in 1 2 3 4 5 6 7 8 9 10 11 12; do
        wh_post "$url" "$(wh_body Complete)" "$@"
        [ "$WH_STATUS" = 000 ] && [[ $(<"$T/resp.err") == *"(92)"* ]] || break
    done
}

# inbox_never_handed LABEL PATH [CURL-ARGS...]: PATH is under the inbox but
# another handler (mod_proxy, mod_lua) would take it. The inbox answers
# every request, forged or valid; the other handler never runs.
inbox_never_handed() {
    local label=$1 path=$2; shift 2
    local before body seen=""
    body=$(wh_body Complete)
    before=$(wh_app_calls)
    WH_AUTH=- WH_TS=- WH_SIG=- wh_post "$WH_URL$path" "$body" "$@"
    assert_json_code auth_required "[$PROTO] $label: unsigned POST without credentials: the inbox answers"
    seen="$WH_STATUS $(wh_json_code "$WH_BODY")"
    WH_SIG=$(printf '%064d' 0) wh_post "$WH_URL$path" "$body" "$@"
    assert_status 404 "[$PROTO] $label: POST with a wrong signature: the inbox answers (no such resource)"
    assert_json_code not_found "[$PROTO] $label: not_found"
    seen="$seen, $WH_STATUS $(wh_json_code "$WH_BODY")"
    wh_post "$WH_URL$path" "$body" "$@"
    assert_json_code not_found "[$PROTO] $label: a valid notification: the inbox answers, not the other handler"
    seen="$seen, $WH_STATUS $(wh_json_code "$WH_BODY")"
    wh_curl "$@" "$WH_URL$path"
    assert_json_code not_found "[$PROTO] $label: GET without credentials: the inbox answers (no such resource)"
    seen="$seen, $WH_STATUS $(wh_json_code "$WH_BODY")"
    WH_METHOD=PUT WH_AUTH=- WH_TS=- WH_SIG=- wh_post "$WH_URL$path" "$body" "$@"
    assert_true "[$PROTO] $label: PUT with a forged body refused ($WH_STATUS)" test "$WH_STATUS" -ge 400
    seen="$seen, $WH_STATUS $(wh_json_code "$WH_BODY")"
    assert_eq "$before" "$(wh_app_calls)" "[$PROTO] $label: the other handler never ran"
    row "$label" "$path" "POST unsigned, wrongly signed and valid; GET and PUT without credentials" \
        "the inbox answered each ($seen); the other handler ran $(( $(wh_app_calls) - before )) times"
}

run_routes() {
    local -a c=("$@")
    local before page stored

    # DirectoryIndex into <Files>
    forged_never_runs "DirectoryIndex -> <Files>" /hooks/ "${c[@]}"
    forged_never_runs "the <Files> target itself" /hooks/receive.cgi "${c[@]}"
    delivered "DirectoryIndex -> <Files>" /hooks/ "${c[@]}"
    replayed_never_runs "direct URL after DirectoryIndex" /hooks/receive.cgi "${c[@]}"
    delivered "the <Files> target itself" /hooks/receive.cgi "${c[@]}"
    replayed_never_runs "DirectoryIndex after the direct URL" /hooks/ "${c[@]}"
    # DirectoryIndex into <Location>, <FilesMatch>, a URL path
    forged_never_runs "DirectoryIndex -> <Location>" /hooks2/ "${c[@]}"
    delivered "DirectoryIndex -> <Location>" /hooks2/ "${c[@]}"
    forged_never_runs "DirectoryIndex -> <FilesMatch>" /hooks3/ "${c[@]}"
    delivered "DirectoryIndex -> <FilesMatch>" /hooks3/ "${c[@]}"
    forged_never_runs "DirectoryIndex as a URL path" /hooks4/ "${c[@]}"
    delivered "DirectoryIndex as a URL path" /hooks4/ "${c[@]}"
    # FallbackResource
    forged_never_runs "FallbackResource" /fb/anything "${c[@]}"
    delivered "FallbackResource" /fb/anything "${c[@]}"
    replayed_never_runs "the fallback's target after FallbackResource" /protected/app.cgi "${c[@]}"
    # mod_rewrite: server-level [PT], per-directory (.htaccess)
    forged_never_runs "RewriteRule [PT]" /alias/app.cgi "${c[@]}"
    delivered "RewriteRule [PT]" /alias/app.cgi "${c[@]}"
    forged_never_runs ".htaccess RewriteRule" /rw/go "${c[@]}"
    delivered ".htaccess RewriteRule" /rw/go "${c[@]}"
    replayed_never_runs "the rewrite's target after .htaccess RewriteRule" /protected/app.cgi "${c[@]}"
    # .htaccess DirectoryIndex and FallbackResource
    forged_never_runs ".htaccess DirectoryIndex" /ht/ "${c[@]}"
    delivered ".htaccess DirectoryIndex" /ht/ "${c[@]}"
    forged_never_runs ".htaccess FallbackResource" /htfb/nothing "${c[@]}"
    delivered ".htaccess FallbackResource" /htfb/nothing "${c[@]}"
    # ErrorDocument into a protected handler: the redirect is a GET, which
    # can never be a verified notification
    forged_never_runs "ErrorDocument 404 -> protected" /eopen/missing "${c[@]}"
    before=$(wh_app_calls)
    post_missing "$WH_URL/eopen/missing" "${c[@]}"
    assert_eq "$before" "$(wh_app_calls)" "[$PROTO] ErrorDocument -> protected: even a signed notification is not delivered through an error document"
    assert_status 404 "[$PROTO] ErrorDocument -> protected: the original 404, not the error document's answer to a GET"
    assert_json_code not_found "[$PROTO] ErrorDocument -> protected: not_found"
    row "ErrorDocument 404 -> protected" /eopen/missing "valid, signed for this URL" \
        "$WH_STATUS $(wh_json_code "$WH_BODY") (the original status: no webhook endpoint is an error document); delivered $(( $(wh_app_calls) - before )) times"
    wh_curl "${c[@]}" "$WH_URL/eopen-ok/missing"
    assert_eq $((before + 1)) "$(wh_app_calls)" "[$PROTO] ErrorDocument into an open handler still runs (control)"
    # ErrorDocument into the inbox: httpd makes the failed POST a GET of
    # the listing; answered 200 it would read as an acknowledgement
    # (a notification stored through the inbox's own URL first: the
    # database exists, made by httpd's user, and the listing has an event)
    wh_post "$WH_URL/inbox" "$(wh_body Complete)" "${c[@]}"
    assert_json_code accepted "[$PROTO] the inbox stores at its own URL (control)"
    stored=$(sqlite3 "$WH_INBOX_DB" 'SELECT count(*) FROM wh_events')
    post_missing "$WH_URL/einbox/missing" "${c[@]}"
    assert_status 404 "[$PROTO] ErrorDocument -> inbox: a signed POST gets the original 404, never a 200 listing"
    assert_json_code not_found "[$PROTO] ErrorDocument -> inbox: not_found"
    assert_not_contains "$WH_BODY" '"events"' "[$PROTO] ErrorDocument -> inbox: no listing in the error page"
    assert_eq "$stored" "$(sqlite3 "$WH_INBOX_DB" 'SELECT count(*) FROM wh_events')" \
        "[$PROTO] ErrorDocument -> inbox: nothing stored"
    row "ErrorDocument 404 -> the inbox" /einbox/missing "valid, signed for this URL, with the listing's credentials" \
        "$WH_STATUS $(wh_json_code "$WH_BODY") (the inbox is never an error document); nothing stored"
    # MultiViews
    forged_never_runs "MultiViews" /mv/app "${c[@]}"
    delivered "MultiViews" /mv/app "${c[@]}"
    # Action
    forged_never_runs "Action -> protected handler" /act/x.act "${c[@]}"
    delivered "Action -> protected handler" /act/x.act "${c[@]}"
    # Alias, ScriptAlias onto a protected <Directory>
    forged_never_runs "Alias -> <Directory>" /al/app.cgi "${c[@]}"
    delivered "Alias -> <Directory>" /al/app.cgi "${c[@]}"
    forged_never_runs "ScriptAlias -> <Directory>" /sa/app.cgi "${c[@]}"
    delivered "ScriptAlias -> <Directory>" /sa/app.cgi "${c[@]}"
    # LocationMatch
    forged_never_runs "<LocationMatch>" /lm/app.cgi "${c[@]}"
    delivered "<LocationMatch>" /lm/app.cgi "${c[@]}"
    # a CGI's local redirect into a protected handler (a GET)
    forged_never_runs "CGI local redirect" /open2/redir.cgi "${c[@]}"
    # the inbox's URL space taken by mod_proxy and mod_lua
    inbox_never_handed "ProxyPass in a <Location> under the inbox" /inbox/fwd "${c[@]}"
    inbox_never_handed "RewriteRule [P] under the inbox" /inbox/rp/x "${c[@]}"
    if [ -n "$LUA_PATH" ]; then
        inbox_never_handed "LuaMapHandler under the inbox" "$LUA_PATH" "${c[@]}"
    else
        wh_skip_case "[$PROTO] LuaMapHandler under the inbox: no mod_lua.so (apache2-bin has it)"
    fi
    # a protected resource rewritten into the inbox (.htaccess): verified
    # there, stored by the inbox once
    stored=$(sqlite3 "$WH_INBOX_DB" 'SELECT count(*) FROM wh_events')
    WH_AUTH=- WH_TS=- WH_SIG=- wh_post "$WH_URL/prw/go" "$(wh_body Complete)" "${c[@]}"
    assert_json_code auth_required "[$PROTO] protected .htaccess RewriteRule -> the inbox: unsigned refused"
    page="$WH_STATUS"
    WH_SIG=$(printf '%064d' 0) wh_post "$WH_URL/prw/go" "$(wh_body Complete)" "${c[@]}"
    assert_json_code signature_mismatch "[$PROTO] protected .htaccess RewriteRule -> the inbox: wrong signature refused"
    page="$page, $WH_STATUS"
    assert_eq "$stored" "$(sqlite3 "$WH_INBOX_DB" 'SELECT count(*) FROM wh_events')" \
        "[$PROTO] protected .htaccess RewriteRule -> the inbox: nothing forged stored"
    wh_post "$WH_URL/prw/go" "$(wh_body Complete)" "${c[@]}"
    assert_json_code accepted "[$PROTO] protected .htaccess RewriteRule -> the inbox: a valid notification is stored"
    assert_eq $((stored + 1)) "$(sqlite3 "$WH_INBOX_DB" 'SELECT count(*) FROM wh_events')" \
        "[$PROTO] protected .htaccess RewriteRule -> the inbox: stored once"
    row "protected .htaccess RewriteRule -> the inbox" /prw/go "forged; then valid, signed for this URL" \
        "$page; valid $WH_STATUS $(wh_json_code "$WH_BODY"), stored $(( $(sqlite3 "$WH_INBOX_DB" 'SELECT count(*) FROM wh_events') - stored )) time(s)"

    # Subrequests carry no body: a protected handler is never run by one
    before=$(wh_app_calls)
    for page in include exec; do
        wh_curl "${c[@]}" "$WH_URL/ssi/$page.shtml"
        assert_eq "$before" "$(wh_app_calls)" "[$PROTO] SSI $page into a protected handler: the application does not run"
        assert_contains "$WH_BODY" "<p>before</p>" "[$PROTO] SSI $page: the page itself is served"
        assert_not_contains "$WH_BODY" '"app":"received"' "[$PROTO] SSI $page: no application output in the page"
        row "SSI $page into a protected handler (subrequest)" "/ssi/$page.shtml" "GET of the page" \
            "page $WH_STATUS, subrequest refused 403; application ran $(( $(wh_app_calls) - before )) times"
    done
    wh_curl "${c[@]}" -u "$WH_USER:$WH_PASSWD" "$WH_URL/ssi/inbox.shtml"
    assert_not_contains "$WH_BODY" '"events"' "[$PROTO] SSI include of the inbox: refused, the listing does not leak"
    wh_curl "${c[@]}" "$WH_URL/ssi/open.shtml"
    assert_eq $((before + 1)) "$(wh_app_calls)" "[$PROTO] SSI into an open handler still runs (control)"
}

PROTO=http/1.1
run_routes
PROTO=h2c
run_routes --http2-prior-knowledge
n=$(grep -c 'WH00955' "$T/logs/error.log")
assert_true "refused subrequests are logged (WH00955: $n)" test "$n" -ge 6
n=$(grep -c 'WH00956' "$T/logs/error.log")
assert_true "verifications at the handler are logged (WH00956: $n)" test "$n" -ge 10

# ---- HTTP/2: the contract, and a body without Content-Length ----------
W="$WH_URL/v1/wires"
H2=(--http2-prior-knowledge)
wh_post "$W" "$(wh_body Complete)" "${H2[@]}"
assert_status 200 "h2c: a valid notification is accepted"
assert_contains "$(head -n 1 "$T/resp.headers")" "HTTP/2 200" "h2c: the answer came over HTTP/2"
WH_AUTH=- wh_post "$W" "$(wh_body Complete)" "${H2[@]}"
assert_status 401 "h2c: no credentials"; assert_json_code auth_required "h2c: auth_required"
WH_AUTH="$WH_USER:wrong" wh_post "$W" "$(wh_body Complete)" "${H2[@]}"
assert_json_code auth_failed "h2c: auth_failed"
WH_CT=text/plain wh_post "$W" "$(wh_body Complete)" "${H2[@]}"
assert_status 415 "h2c: wrong Content-Type"
WH_TS=$(( $(date +%s) - 3600 )) wh_post "$W" "$(wh_body Complete)" "${H2[@]}"
assert_json_code timestamp_expired "h2c: timestamp_expired"
WH_SIG=- wh_post "$W" "$(wh_body Complete)" "${H2[@]}"
assert_json_code signature_missing "h2c: signature_missing"
WH_SIG=$(printf '%064d' 0) wh_post "$W" "$(wh_body Complete)" "${H2[@]}"
assert_json_code signature_mismatch "h2c: signature_mismatch"
printf '{"notificationId": 1,}' >"$T/bad.json"
wh_post "$W" "$T/bad.json" "${H2[@]}"
assert_json_code invalid_json "h2c: invalid_json"
b=$(wh_body Complete)
wh_post "$W" "$b" "${H2[@]}"
wh_post "$W" "$b" "${H2[@]}"
assert_json_code duplicate "h2c: the same notification twice is a duplicate"
WH_METHOD=PUT wh_post "$W" "$(wh_body Complete)" "${H2[@]}"
assert_status 405 "h2c: PUT is 405"

# a body streamed without Content-Length (DATA frames until END_STREAM)
b=$(wh_body Complete)
ts=$(date +%s)
sig=$(wh_sign "$WH_SECRETS" POST "$W" "$b" "$ts")
before=$(wh_app_calls)
wh_curl "${H2[@]}" -X POST -T - -H "Content-Type: application/json" -u "$WH_USER:$WH_PASSWD" \
    -H "X-Timestamp: $ts" -H "X-Signature: $sig" "$W" <"$b"
assert_status 200 "h2c: a body without Content-Length is verified and accepted"
assert_eq $((before + 1)) "$(wh_app_calls)" "h2c: ... and delivered once"
d=$(wh_app_last)
assert_true "h2c: ... byte for byte" cmp -s "$b" "$d/body"
assert_eq "$(wc -c <"$b" | tr -d ' ')" "$(wh_app_env "$d" CONTENT_LENGTH)" "h2c: ... with its real CONTENT_LENGTH"
big=$T/big.json
{ printf '{"pad":"'; head -c 70000 /dev/zero | tr '\0' a; printf '"}'; } >"$big"
sig=$(wh_sign "$WH_SECRETS" POST "$W" "$big" "$ts")
h2_413() { grep -c '"POST /v1/wires HTTP/2.0" 413 ' "$T/logs/access.log" 2>/dev/null; }
n413=$(h2_413); before=$(wh_app_calls)
wh_curl "${H2[@]}" -X POST -T - -H "Content-Type: application/json" -u "$WH_USER:$WH_PASSWD" \
    -H "X-Timestamp: $ts" -H "X-Signature: $sig" "$W" <"$big"
# httpd answers 413 and closes while the client is still sending the rest
# of the stream: the kernel may then reset the connection before the
# client reads the answer (curl: "Empty reply from server"), which is the
# client's race, not the module's verdict. The server's own record of the
# answer decides; either way the application never ran.
if [ "$WH_STATUS" = 000 ]; then
    for _ in $(seq 1 20); do [ "$(h2_413)" -gt "$n413" ] && break; sleep 0.1; done
    assert_eq $((n413 + 1)) "$(h2_413)" "h2c: an unbounded body past MaxBodySize is 413 (the server answered 413; the client saw the reset)"
else
    assert_status 413 "h2c: an unbounded body past MaxBodySize is 413"
fi
assert_eq "$before" "$(wh_app_calls)" "h2c: ... and the application did not run"

wh_done
