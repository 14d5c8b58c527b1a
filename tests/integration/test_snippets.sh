#!/usr/bin/env bash
# Every Apache snippet of the documentation passes `apache2 -t` as pasted:
# each ```apache block of README.md, CONTRIBUTING.md, docs/*.md and
# examples/*/README.md, and every Apache file of examples/
# (examples/*/*.conf but wirehook*.conf, which are wirehook's own format;
# examples/*/htaccess, examples/*/htaccess-*). Each is included, unchanged but for its paths, into
# a miniature of Debian's stock apache2.conf, so that a snippet that
# collides with Debian's layout (a second `Listen 443`) fails as it would on
# a Debian server.
#
# The path rule (CONTRIBUTING.md, "Documentation", "Snippets"): absolute
# paths under /etc/wirehook, /etc/ssl, /var/www, /var/lib/wirehook, /home,
# /srv and /usr/local/share/wirehook move under the test's root; a
# `WirehookConfig FILE` gets a valid wirehook configuration there and an
# `SSLCertificateFile`/`SSLCertificateKeyFile` a test certificate; the
# module's Debian path is the module just built; a `SuexecUserGroup`
# account (alice) is one that exists, www-data. Every other path is used as
# written. An htaccess file, and a block whose first line is a comment
# naming `.htaccess`, is checked inside a <Directory> section, where httpd
# reads such a file.
#
# Also: every fenced block names its language (an Apache block without one
# would escape this check), and no two examples use the same loopback port.
. "$(dirname "$0")/lib.sh"
wh_init
cd "$WH_TOP" || exit 1
R="$T/root"
S="$T/snippets"
mkdir -p "$R" "$S" "$T/run" "$T/logs"

# ------------------------------------------------------------ the pages ---
PAGES=(README.md CONTRIBUTING.md docs/*.md examples/README.md examples/*/README.md)

# fenced blocks must name their language
untagged=""
for md in "${PAGES[@]}"; do
    [ -f "$md" ] || continue
    bad=$(awk '/^[[:space:]]*```/ {
                  if (!open) { open = 1; s = $0; sub(/^[[:space:]]*```/, "", s); if (s == "") print FILENAME ":" NR }
                  else open = 0 }' "$md")
    [ -n "$bad" ] && untagged="$untagged $bad"
done
assert_eq "" "$untagged" "every fenced block in README, CONTRIBUTING, docs/ and examples/ names its language"

# snippet files: "$S/N.conf" with "$S/N.from" (page:line) and "$S/N.kind"
n=0
for md in "${PAGES[@]}"; do
    [ -f "$md" ] || continue
    # each ```apache block to its own file
    awk -v dir="$S" -v start="$n" -v page="$md" '
        /^[[:space:]]*```/ {
            if (!open) {
                open = 1; s = $0; sub(/^[[:space:]]*```/, "", s)
                if (s == "apache") { k++; f = dir "/" (start + k) ".conf"
                    printf "" >f; print page ":" NR >(dir "/" (start + k) ".from") }
                else f = ""
                next
            }
            open = 0; if (f != "") close(f); f = ""; next
        }
        open && f != "" { print >>f }
        END { print start + k >(dir "/count") }' "$md"
    n=$(cat "$S/count")
done
nblocks=$n
for f in examples/*/*.conf examples/*/htaccess examples/*/htaccess-*; do
    [ -f "$f" ] || continue
    case "$(basename "$f")" in wirehook*.conf) continue ;; esac
    n=$((n + 1))
    cp "$f" "$S/$n.conf"
    echo "$f" >"$S/$n.from"
    case "$(basename "$f")" in htaccess | htaccess-*) echo htaccess >"$S/$n.kind" ;; esac
done
assert_true 'the docs hold ```apache blocks to check' test "$nblocks" -ge 5
assert_true "examples/ holds Apache files to check" test "$((n - nblocks))" -ge 5

# ------------------------------------------------------ path mapping ---
map_paths() {
    sed -e "s|/usr/lib/apache2/modules/mod_wirehook\.so|$WH_MOD_SO|g" \
        -e "s/^\([[:space:]]*SuexecUserGroup[[:space:]]\{1,\}\)[^[:space:]]\{1,\}[[:space:]]\{1,\}[^[:space:]]\{1,\}/\1www-data www-data/" \
        -e "s#\(^\|[[:space:]\"':=]\)\(/etc/wirehook\|/etc/ssl\|/var/www\|/var/lib/wirehook\|/home\|/srv\|/usr/local/share/wirehook\)\([/[:space:]\"']\|\$\)#\1$R\2\3#g" "$1"
}
# a valid wirehook configuration at FILE, its credentials beside it
make_wirehook_conf() {
    local f=$1 d
    [ -e "$f" ] && return 0
    d=$(dirname "$f")
    mkdir -p "$d" "$R/var/lib/wirehook"
    cp "$WH_SECRETS" "$d/secrets"; cp "$WH_HTPASSWD" "$d/htpasswd"
    chmod 600 "$d/secrets" "$d/htpasswd"
    printf 'SigningSecretFile secrets\nBasicAuthFile htpasswd\nInboxParams %s\n' \
        "$R/var/lib/wirehook/inbox.db" >"$f"
}
make_cert() {
    local crt=$1 key=$2
    [ -e "$crt" ] && [ -e "$key" ] && return 0
    mkdir -p "$(dirname "$crt")" "$(dirname "$key")"
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=snippet.test \
        -keyout "$key" -out "$crt" >/dev/null 2>&1
}

# Modules a snippet may use, loaded unless the snippet loads one itself.
MODS="mpm_event authz_core authz_host authz_user authz_groupfile authn_core authn_file auth_basic alias dir mime env
      setenvif headers log_config cgid actions rewrite status ssl proxy proxy_http
      socache_shmcb socache_dbm socache_memcache socache_redis negotiation include filter suexec"

# A miniature of Debian's apache2.conf: ports.conf, serve-cgi-bin.conf and
# the 000-default site as Debian ships them, then the snippet.
wrap() {
    local snip=$1 kind=$2 m
    echo "ServerRoot \"$T\""
    for m in $MODS; do
        grep -qE "^[[:space:]]*LoadModule[[:space:]]+${m}_module[[:space:]]" "$snip" && continue
        [ -f "$WH_MODDIR/mod_$m.so" ] && echo "LoadModule ${m}_module $WH_MODDIR/mod_$m.so"
    done
    grep -qE '^[[:space:]]*LoadModule[[:space:]]+wirehook_module[[:space:]]' "$snip" ||
        echo "LoadModule wirehook_module $WH_MOD_SO"
    cat <<EOF
ServerName 127.0.0.1
PidFile $T/run/httpd.pid
DefaultRuntimeDir $T/run
Mutex file:$T/run default
ScriptSock $T/run/cgid.sock
ErrorLog $T/logs/error.log
TypesConfig /etc/mime.types
DocumentRoot "$T/htdocs"
# Debian's ports.conf
Listen 80
<IfModule ssl_module>
	Listen 443
</IfModule>
<IfModule mod_gnutls.c>
	Listen 443
</IfModule>
# Debian's conf-available/serve-cgi-bin.conf (enabled by default)
<IfModule mod_alias.c>
	<IfModule mod_cgi.c>
		Define ENABLE_USR_LIB_CGI_BIN
	</IfModule>
	<IfModule mod_cgid.c>
		Define ENABLE_USR_LIB_CGI_BIN
	</IfModule>
	<IfDefine ENABLE_USR_LIB_CGI_BIN>
		ScriptAlias /cgi-bin/ /usr/lib/cgi-bin/
		<Directory "/usr/lib/cgi-bin">
			AllowOverride None
			Options +ExecCGI -MultiViews +SymLinksIfOwnerMatch
			Require all granted
		</Directory>
	</IfDefine>
</IfModule>
# Debian's sites-available/000-default.conf
<VirtualHost *:80>
	DocumentRoot "$T/htdocs"
</VirtualHost>
EOF
    if [ "$kind" = htaccess ]; then
        echo "<Directory \"$R/htaccess\">"
        cat "$snip"
        echo "</Directory>"
    else
        echo "Include \"$snip\""
    fi
}

# ---------------------------------------------------------- the checks ---
for i in $(seq 1 "$n"); do
    from=$(cat "$S/$i.from")
    kind=$(cat "$S/$i.kind" 2>/dev/null || echo conf)
    head -n 1 "$S/$i.conf" | grep -qE '^[[:space:]]*#.*\.htaccess' && kind=htaccess
    map_paths "$S/$i.conf" >"$S/$i.mapped"
    while read -r p; do
        [ "$p" = off ] || make_wirehook_conf "$p"
    done < <(sed -n 's/^[[:space:]]*WirehookConfig[[:space:]]\+"\{0,1\}\([^"[:space:]]*\)"\{0,1\}[[:space:]]*$/\1/p' "$S/$i.mapped")
    crt=$(sed -n 's/^[[:space:]]*SSLCertificateFile[[:space:]]\+\([^[:space:]]*\).*/\1/p' "$S/$i.mapped" | head -n 1)
    key=$(sed -n 's/^[[:space:]]*SSLCertificateKeyFile[[:space:]]\+\([^[:space:]]*\).*/\1/p' "$S/$i.mapped" | head -n 1)
    [ -n "$crt" ] && make_cert "$crt" "${key:-$crt.key}"
    wrap "$S/$i.mapped" "$kind" >"$S/$i.httpd.conf"
    out=$("$WH_HTTPD" -f "$S/$i.httpd.conf" -t 2>&1)
    rc=$?
    if [ $rc -eq 0 ]; then
        _wh_ok "$from: apache2 -t passes ($kind)"
    else
        # "line K of N.mapped" is line K of the block: name the page's line
        page=${from%%:*} first=0
        [ "$page" != "$from" ] && first=${from##*:}
        msg=$(grep -v '^$' <<<"$out" | tail -n 3 | sed -E "s|line ([0-9]+) of $S/$i\.mapped|line \1 of the snippet|")
        k=$(sed -nE 's/.*line ([0-9]+) of the snippet.*/\1/p' <<<"$msg" | head -n 1)
        [ -n "$k" ] && msg="$page:$((first + k)): $msg"
        _wh_bad "$from: apache2 -t passes ($kind)" "$msg"
    fi
done

# ------------------------------------------------- one port, one example ---
# A loopback port named by one example (a Listen, a ForwardUrl, an
# application's address) is named by no other: each example can be set up
# beside the others on one server.
declare -A OWNER=()
clash=""
for d in examples/*/; do
    ex=$(basename "$d")
    for p in $(grep -rhoE '(127\.0\.0\.1|localhost):[0-9]+' "$d" 2>/dev/null | sed 's/.*://' | sort -u); do
        if [ -n "${OWNER[$p]:-}" ] && [ "${OWNER[$p]}" != "$ex" ]; then
            clash="$clash $p(${OWNER[$p]},$ex)"
        fi
        OWNER[$p]=$ex
    done
done
assert_eq "" "$clash" "no two examples use the same loopback port"

wh_done
