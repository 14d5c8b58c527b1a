#!/usr/bin/env bash
# The mistakes docs/troubleshooting.md lists, caught where they are made,
# each with its fix in the message: `wirehook configtest`,
# `wirehook.cgi --configtest`, `apache2 -t` (the module's check_config)
# and httpd's start refuse a byte-order mark before a secret or an htpasswd
# line and a SigningSecretFile that is the htpasswd file, and warn about a
# secret with spaces or quotes around it and a ForwardSecretFile others can
# read; `apache2 -t` refuses SetHandler wirehook where no WirehookConfig
# reaches (which answered 500 at run time), and only warns when a
# <Directory> section might give it one. A secret file saved with a
# byte-order mark while httpd runs leaves the secrets in use: every
# notification still answered 200.
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/inbox_lib.sh"

bom=$'\xef\xbb\xbf'
mk_conf() {   # mk_conf NAME SECRETFILE HTPASSWD [EXTRA...] -> path
    local f="$T/etc/$1.conf" s=$2 u=$3; shift 3
    { echo "SigningSecretFile $s"; echo "BasicAuthFile $u"; printf '%s\n' "$@"; } >"$f"
    echo "$f"
}
secret_file() {   # secret_file NAME CONTENT -> path (mode 600)
    printf '%s' "$2" >"$T/etc/$1"; chmod 600 "$T/etc/$1"; echo "$T/etc/$1"
}

# ------------------------------------------------- wirehook configtest ---
conf=$(mk_conf bom-secret "$(secret_file bom.secret "$bom$WH_SECRET"$'\n')" "$WH_HTPASSWD")
out=$("$WIREHOOK" configtest "$conf" 2>&1); rc=$?
assert_eq 1 "$rc" "configtest: a byte-order mark before the secret is refused"
assert_contains "$out" "$T/etc/bom.secret:1: starts with a byte-order mark" "... naming the file and line"
assert_contains "$out" "save the file as UTF-8 without it" "... with the fix"
assert_not_contains "$out" "$WH_SECRET" "... and never the secret"

sed "1s/^/$bom/" "$WH_HTPASSWD" >"$T/etc/bom.htpasswd"
conf=$(mk_conf bom-users "$WH_SECRETS" "$T/etc/bom.htpasswd")
out=$("$WIREHOOK" configtest "$conf" 2>&1)
assert_eq 1 "$?" "configtest: a byte-order mark before the first htpasswd line is refused"
assert_contains "$out" "$T/etc/bom.htpasswd:1: starts with a byte-order mark" "... naming the file and line"

conf=$(mk_conf same-file "$WH_HTPASSWD" "$WH_HTPASSWD")
out=$("$WIREHOOK" configtest "$conf" 2>&1)
assert_eq 1 "$?" "configtest: SigningSecretFile naming the htpasswd file is refused"
assert_contains "$out" "$conf:1: SigningSecretFile: $WH_HTPASSWD is also BasicAuthFile's file" \
    "... at the key's line"
assert_contains "$out" "goes in a file of its own" "... with the fix"

odd=$(secret_file odd.secret "\"$WH_SECRET\""$'\n'"$WH_SECRET2 "$'\n')
fwd=$(secret_file forward.secret "app-secret"$'\n'); chmod 644 "$fwd"
conf=$(mk_conf odd "$odd" "$WH_HTPASSWD" "InboxParams $T/data/odd.db" \
    "ForwardUrl http://127.0.0.1:9/app" "ForwardSecretFile $fwd")
out=$("$WIREHOOK" configtest "$conf" 2>&1); rc=$?
assert_eq 0 "$rc" "configtest: quotes and a trailing space are legal secrets: exit 0"
assert_contains "$out" "Syntax OK" "... Syntax OK"
assert_contains "$out" "warning: SigningSecretFile $odd:1: is in quotes" "... warned: quotes, line 1"
assert_contains "$out" "warning: SigningSecretFile $odd:2: begins or ends with a space" \
    "... warned: a trailing space, line 2"
assert_contains "$out" "warning: ForwardSecretFile $fwd is readable by others (chmod o-rw)" \
    "... warned: a ForwardSecretFile others can read"
assert_not_contains "$out" "$WH_SECRET" "... never a byte of a secret"

# ------------------------------------------- wirehook.cgi --configtest ---
ib_cgi_install
out=$(WIREHOOK_CONFIG="$conf" "$IB_CGI" --configtest 2>&1)
assert_contains "$out" "warning: SigningSecretFile $odd:1: is in quotes" \
    "wirehook.cgi --configtest: the same warning"

# ------------------------------------------------------- apache2 -t ---
wh_httpd_conf
base=${WH_HTTPD_CONF:-$T/httpd.conf}
variant() {   # variant NAME BLOCK -> the standard httpd.conf plus BLOCK
    { cat "$base"; printf '%s\n' "$2"; } >"$T/httpd-$1.conf"
    echo "$T/httpd-$1.conf"
}
t_conf() { WH_OUT=$("$WH_HTTPD" -f "$1" -t 2>&1); }

t_conf "$(variant odd "<Location /odd>
    SetHandler wirehook
    WirehookConfig $conf
</Location>")"
assert_eq 0 "$?" "apache2 -t: a quoted secret passes"
assert_contains "$WH_OUT" "Syntax OK" "... Syntax OK"
assert_contains "$WH_OUT" "WH00901: WirehookConfig $conf: SigningSecretFile $odd:1: is in quotes" \
    "... and warns about it (check_config), naming the configuration"
assert_contains "$WH_OUT" "ForwardSecretFile $fwd is readable by others" \
    "... and about the ForwardSecretFile others can read"

t_conf "$(variant bom "<Location /bom>
    WirehookConfig $T/etc/bom-secret.conf
</Location>")"
assert_ne 0 "$?" "apache2 -t: a byte-order mark before the secret fails"
assert_contains "$WH_OUT" "starts with a byte-order mark" "... saying why"

t_conf "$(variant same "<Location /same>
    WirehookConfig $T/etc/same-file.conf
</Location>")"
assert_ne 0 "$?" "apache2 -t: SigningSecretFile naming the htpasswd file fails"
assert_contains "$WH_OUT" "is also BasicAuthFile's file" "... saying why"

t_conf "$(variant noconf "<Location /lonely>
    SetHandler wirehook
</Location>")"
assert_ne 0 "$?" "apache2 -t: SetHandler wirehook with no WirehookConfig fails (it answered 500 at run time)"
assert_contains "$WH_OUT" "WH01000: <Location /lonely>: SetHandler wirehook (the inbox) with no WirehookConfig" \
    "... naming the section"
assert_contains "$WH_OUT" "add WirehookConfig FILE to the same section" "... with the fix"

t_conf "$(variant nested "<Location /outer>
    WirehookConfig $WH_CONF
</Location>
<Location /outer/inbox>
    SetHandler wirehook
</Location>")"
assert_eq 0 "$?" "apache2 -t: SetHandler wirehook under an outer <Location>'s WirehookConfig passes"
assert_not_contains "$WH_OUT" "WH0100" "... without a word"

t_conf "$(variant off "<Location /inbox/closed>
    WirehookConfig off
</Location>")"
assert_ne 0 "$?" "apache2 -t: WirehookConfig off under the inbox's SetHandler fails"
assert_contains "$WH_OUT" "<Location /inbox/closed>" "... naming that section"

t_conf "$(variant maybe "<Directory $T/htdocs/hooks>
    WirehookConfig $WH_CONF
</Directory>
<Location /maybe>
    SetHandler wirehook
</Location>")"
assert_eq 0 "$?" "apache2 -t: with a WirehookConfig in a <Directory>, it cannot be sure: passes"
assert_contains "$WH_OUT" "WH01001: <Location /maybe>: SetHandler wirehook" "... with a warning"
assert_contains "$WH_OUT" "unless a <Directory>, <Files> or <If> section gives it one" "... saying so"

# ------------------------------------------------- httpd's start, re-read ---
wh_httpd_extra "<Location /odd>
    SetHandler wirehook
    WirehookConfig $conf
</Location>"
wh_httpd_conf
wh_httpd_start || { wh_done; }
assert_contains "$(wh_errlog)" "WH00901: WirehookConfig $conf: SigningSecretFile $odd:2: begins or ends" \
    "at start, the warning goes to the error log"
assert_eq 1 "$(grep -c "WH00901: WirehookConfig $conf: SigningSecretFile $odd:2" "$T/logs/error.log")" \
    "... once"

# the bank's client signs with the secret itself, whatever the file holds
export WH_SIGN_FILE
WH_SIGN_FILE=$(secret_file plain.secret "$WH_SECRET"$'\n')
body=$(wh_body Complete)
wh_post "$WH_URL/inbox" "$body"
assert_status 200 "a notification before the secret file is spoilt: 200"
# the file saved again by an editor that writes a byte-order mark
printf '%s%s\n%s\n' "$bom" "$WH_SECRET" "$WH_SECRET2" >"$WH_SECRETS.new" && mv "$WH_SECRETS.new" "$WH_SECRETS"
for _ in $(seq 1 30); do
    body=$(wh_body Complete)
    wh_post "$WH_URL/inbox" "$body"
    [ "$WH_STATUS" = 200 ] || break
    grep -q "byte-order mark" "$T/logs/error.log" && break
    sleep 0.2
done
assert_status 200 "the spoilt file is not taken: the secrets in use go on (200)"
for _ in $(seq 1 30); do grep -q "byte-order mark" "$T/logs/error.log" && break; sleep 0.2; done
assert_contains "$(wh_errlog)" "the version read before stays in use" "... and the log says why"
assert_contains "$(wh_errlog)" "starts with a byte-order mark" "... the byte-order mark"
# (apache2 -k stop reads the configuration first, as a graceful restart
# would: the file is put right before httpd is stopped)
wh_make_secrets "$WH_SECRETS" "$WH_SECRET" "$WH_SECRET2"

wh_done
