#!/usr/bin/env bash
# The documentation against the code: man pages render without warnings and
# list every subcommand, option and configuration key; docs/ covers every
# key, error code and variable; links resolve; and the log lines quoted in
# docs/troubleshooting.md are what a real httpd with the module writes.
. "$(dirname "$0")/lib.sh"
wh_init
cd "$WH_TOP" || exit 1

man1=man/wirehook.1
man8=$WH_BUILD/mod_wirehook.8     # built from man/mod_wirehook.8.in and the keys' rows
render() { MANWIDTH=80 man -l "$1" 2>/dev/null | sed -E 's/([^ ])  +/\1 /g'; }

# ------------------------------------------------------------ rendering ---
for m in "$man1" "$man8"; do
    assert_file_exists "$m" "$m exists"
    w=$(MANWIDTH=80 man -l --warnings "$m" 2>&1 >/dev/null)
    assert_eq "" "$w" "$m renders without warnings"
    assert_true "$m renders to text" test "$(render "$m" | wc -l)" -gt 50
done
R1=$(render "$man1")
R8=$(render "$man8")

# ------------------------------------------------------- subcommands ---
mapfile -t CMDS < <("$WIREHOOK" --help | awk '/^commands:/ {on = 1; next} on && NF {print $1}')
assert_true "wirehook --help lists 5 or more subcommands" test "${#CMDS[@]}" -ge 5
syn=$(sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' <<<"$R1")
cmds=$(sed -n '/^COMMANDS/,/^EXIT STATUS/p' <<<"$R1")
for c in "${CMDS[@]}"; do
    assert_contains "$syn" "wirehook $c" "wirehook(1) SYNOPSIS has: wirehook $c"
    assert_true "wirehook(1) COMMANDS describes $c" grep -qE "^       $c( |\$)" <<<"$cmds"
    # every option of the subcommand's own --help
    opts=$("$WIREHOOK" "$c" --help 2>&1 | grep -oE -- '--[a-z][a-z-]+' | grep -v -- '--help' | sort -u)
    missing=""
    for o in $opts; do grep -qF -- "$o" <<<"$cmds" || missing="$missing $o"; done
    assert_eq "" "$missing" "wirehook(1) documents every option of '$c --help'"
done

# ------------------------------------------------------------------ keys ---
# The rows, as `wirehook configtest --keys` prints them (tab-separated:
# name, kind, argument, default, bounds or values, help): the one list of
# keys, their defaults and bounds. The docs' table and the man page are
# checked against them, the man page's list is written from them.
mapfile -t ROWS < <("$WIREHOOK" configtest --keys)
mapfile -t KEYS < <(printf '%s\n' "${ROWS[@]}" | cut -f1)
assert_true "wirehook configtest --keys lists 17 or more keys" test "${#KEYS[@]}" -ge 17
for k in "${KEYS[@]}"; do
    ct=$(printf '%s x\n' "$k" >"$T/one.conf"; "$WIREHOOK" configtest "$T/one.conf" 2>&1)
    assert_not_contains "$ct" "unknown key" "$k is a key the loader knows"
done
conf8=$(sed -n '/^CONFIGURATION FILE/,/^THE CONSOLE/p' <<<"$R8" | sed 's/[‐−]/-/g')
cfgmd=$(cat docs/configuration.md)
headings=$(grep -E '^### ' <<<"$cfgmd")
# md_cell KEY N: the Nth cell of KEY's row in docs/configuration.md's table
# (an escaped \| inside a cell is not a column's end)
md_cell() {
    sed 's/\\|/\x01/g' <<<"$cfgmd" |
        awk -F' *\\| *' -v k="\`$1\`" -v n="$2" '$2 == k { print $(n + 1); exit }'
}
# man_entry KEY: KEY's entry in mod_wirehook(8), joined into one line
man_entry() {
    awk -v k="$1" '$1 == k && /^       [^ ]/ { on = 1; print; next }
                   on && /^       [^ ]/ { exit }
                   on { print }' <<<"$conf8" | tr -s ' \n' '  '
}
for row in "${ROWS[@]}"; do
    IFS=$'\t' read -r k kind arg dflt range _ <<<"$row"
    # docs/configuration.md: a table row, a section, the CGI's variable
    assert_true "docs/configuration.md has a table row for $k" grep -qE "^\| \`$k\` \|" <<<"$cfgmd"
    assert_true "docs/configuration.md has a section '### ... $k $arg'" \
        grep -qE "^### (.*, )?$(sed 's/[|]/\\|/g' <<<"$k $arg")(,|\$)" <<<"$headings"
    assert_contains "$cfgmd" "\`WIREHOOK_$k\`" "docs/configuration.md gives SetEnv WIREHOOK_$k"
    # ... whose default and bounds are the row's
    cell=$(md_cell "$k" 2)
    if [ "$dflt" != - ]; then
        assert_eq "\`$dflt\`" "$cell" "docs/configuration.md: $k's default is the row's"
    else
        assert_false "docs/configuration.md: $k has no default value, as its row" grep -q '^`' <<<"$cell"
    fi
    cell=$(md_cell "$k" 3)
    case $kind in
    int|bytes|duration)
        assert_contains "$cell" "${range%%..*} – ${range##*..}" "docs/configuration.md: $k's bounds are the row's" ;;
    enum|flag)
        missing=""
        for v in ${range//|/ }; do [[ $cell == *"\`$v\`"* ]] || missing="$missing $v"; done
        assert_eq "" "$missing" "docs/configuration.md: $k's values are the row's" ;;
    esac
    # mod_wirehook(8), built from the rows: its entry, default and bounds
    entry=$(man_entry "$k")
    assert_ne "" "$entry" "mod_wirehook(8) describes $k"
    assert_contains "$entry" "WIREHOOK_$k" "mod_wirehook(8) gives SetEnv WIREHOOK_$k"
    [ "$dflt" = - ] || assert_contains "$entry" "default $dflt" "mod_wirehook(8): $k's default"
    case $kind in int|bytes|duration)
        assert_contains "$entry" "${range%%..*} to ${range##*..}" "mod_wirehook(8): $k's bounds" ;;
    esac
done
# and nothing documented that the code does not know
extra=$(grep -oE '^\| `[A-Za-z]+` \|' docs/configuration.md | sed 's/^| `\(.*\)` |/\1/' |
    grep -vxF -f <(printf '%s\n' "${KEYS[@]}") | grep -E '^[A-Z][a-z]+[A-Z]' || true)
assert_eq "" "$extra" "docs/configuration.md's key table has no key the code lacks"
extra=$(grep -oE '^\.\\" key [A-Za-z]+$' man/mod_wirehook.8.in | cut -d' ' -f3 |
    grep -vxF -f <(printf '%s\n' "${KEYS[@]}") || true)
assert_eq "" "$extra" "man/mod_wirehook.8.in has text for no key the code lacks"
# docs/configuration.md is the one key table: no other page has a row that
# starts with a key
keyre=$(IFS='|'; echo "${KEYS[*]}")
dup=$(grep -lE "^\| \`($keyre)( [^\`]*)?\` \|" README.md CONTRIBUTING.md docs/*.md | grep -vx docs/configuration.md || true)
assert_eq "" "$dup" "no page but docs/configuration.md has a key table"

# ------------------------------------------------ variables and directive ---
mapfile -t VARS < <(grep -ohE '"WIREHOOK_[A-Z_]+"' mod_wirehook/*.c | tr -d '"' | sort -u)
assert_true "the module publishes WIREHOOK_* variables" test "${#VARS[@]}" -ge 7
for v in "${VARS[@]}"; do
    assert_contains "$R8" "$v" "mod_wirehook(8) lists $v"
    assert_contains "$cfgmd" "$v" "docs/configuration.md lists $v"
done
mapfile -t DIRECTIVES < <(grep -ohE 'AP_INIT_[A-Z0-9]+\("[A-Za-z]+"' mod_wirehook/*.c | sed 's/.*("//; s/"$//')
for d in "${DIRECTIVES[@]}"; do
    assert_true "mod_wirehook(8) DIRECTIVES describes $d" grep -qE "^       $d " <<<"$(sed -n '/^DIRECTIVES/,/^HANDLER/p' <<<"$R8")"
done
assert_contains "$R8" "SetHandler wirehook" "mod_wirehook(8) describes SetHandler wirehook"

# ----------------------------------------------------------- error codes ---
mapfile -t CODES < <(sed -n 's/^[[:space:]]*X([A-Z_]*, "\([a-z_]*\)", [01]).*/\1/p' shared/verify/wh_verdict.h | grep -vx accepted)
assert_true "shared/verify/wh_verdict.h defines 15 or more error codes" test "${#CODES[@]}" -ge 15
errmd=$(cat docs/errors.md)
for c in "${CODES[@]}"; do
    assert_true "docs/errors.md has a row for $c" grep -qE "\| \`$c\`( / \`[a-z_]+\`)? \|" <<<"$errmd"
done
# docs/errors.md is the one table of checks and statuses: no README row
# has an HTTP status in a cell
assert_false "README.md has no table of checks or statuses (docs/errors.md has it)" \
    grep -qE '^\|.*\| *[1-5][0-9]{2}[ ,(|]' README.md

# every log tag the docs quote is one the module logs
missing=""
for n in $(grep -ohE 'WH[0-9]{5}' docs/*.md man/* | sort -u); do
    grep -q "WHLOGNO(${n#WH})" mod_wirehook/*.c || missing="$missing $n"
done
assert_eq "" "$missing" "every WH log tag in docs/ and man/ is logged by mod_wirehook"

# ------------------------------------------------------------ docs, links ---
for f in configuration errors spec-decisions troubleshooting architecture install deploy security inbox cgi; do
    assert_file_exists "docs/$f.md" "docs/$f.md exists"
done
broken=""
for md in README.md CONTRIBUTING.md docs/*.md examples/README.md examples/*/README.md; do
    d=$(dirname "$md")
    while IFS= read -r link; do
        target=${link%%#*}
        [ -z "$target" ] && continue
        [ -e "$d/$target" ] || broken="$broken $md->$link"
    done < <(grep -oE '\]\([^)]+\)' "$md" | sed 's/^](//; s/)$//' | grep -vE '^(https?:|mailto:)')
done
assert_eq "" "$broken" "every relative link in the README, CONTRIBUTING, docs/ and examples/ resolves"
# ... and the folders' READMEs, and every #anchor names a heading
broken=$("$WH_PYTHON" tests/integration/doc_links.py . README.md CONTRIBUTING.md docs/*.md \
    examples/README.md examples/*/README.md shared/*/README.md mod_wirehook/README.md cgi/README.md 2>&1)
assert_eq "" "$broken" "every link, and every link's #anchor, of the docs and the folders' READMEs resolves"
# the README stays a short page for users (the project's hook warns above 200)
assert_true "README.md is at most 200 lines" test "$(wc -l <README.md)" -le 200
assert_contains "$(cat README.md)" "make check" "README.md gives the test command CI runs"
for d in examples/*/; do
    n=$(basename "$d")
    assert_contains "$(cat examples/README.md)" "($n/)" "examples/README.md lists $n"
done

# -------------------- troubleshooting.md quotes real module log lines ---
# normalise what differs between runs: date, pid/tid, client port, source
# line, timestamps, durations
norm() {
    sed -E -e 's/^\[[A-Z][a-z]{2} [^]]*\]/[DATE]/' -e 's/pid [0-9]+:tid [0-9]+/pid P:tid T/' \
        -e 's/\[client [0-9.]+:[0-9]+\]/[client C]/' -e 's/([a-z_]+\.c)\([0-9]+\)/\1(N)/' \
        -e 's/timestamp=[0-9]+/timestamp=TS/' -e 's/is [0-9]+ s (old|ahead)/is N s \1/'
}
wh_httpd_conf
if wh_httpd_start; then
    W="$WH_URL/v1/wires"
    # the guide's case: the bank signed https://, httpd behind a TLS
    # terminator sees http:// with the public Host header
    WH_SIGN_URL="https://hooks.example.com/v1/wires" wh_post "$W" "$(wh_body Complete)" -H "Host: hooks.example.com"
    assert_json_code signature_mismatch "troubleshooting: the guide's case is a signature mismatch"
    WH_TS=$(( $(date +%s) - 412 )) wh_post "$W" "$(wh_body Complete)"
    WH_TS=$(( $(date +%s) + 1800 )) wh_post "$W" "$(wh_body Complete)"
    sleep 0.3
    real=$(grep -E 'WH0091[02]' "$T/logs/error.log" | norm)
    guide=$(grep -E '^\[[A-Z][a-z]{2} .*WH0091[02]' docs/troubleshooting.md | norm)
    assert_true "troubleshooting.md quotes 4 log lines" test "$(grep -c . <<<"$guide")" -ge 4
    while IFS= read -r line; do
        assert_true "troubleshooting.md line is real: ${line:0:90}..." grep -qxF -- "$line" <<<"$real"
    done <<<"$guide"
    assert_contains "$(cat docs/troubleshooting.md)" "LogLevel warn wirehook:debug" "troubleshooting.md shows the LogLevel"
else
    _wh_bad "httpd starts for the troubleshooting check"
fi

# README: without the provided material make check stops at once and names
# what it did not find (run.sh returns before any suite starts). Asked for
# the CUnit suites alone, so that a run.sh without the check cannot start
# this suite again.
out=$(WH_SHARED_DIR="$T/no-shared" WH_JOBS=1 tests/integration/run.sh unit 2>&1)
rc=$?
assert_eq 1 "$rc" "run.sh without the provided material: exit 1"
assert_contains "$out" "no samples/wire-status-complete.json" "run.sh names the missing file"
assert_eq "0 passed, 1 failed, 0 skipped" "$(tail -n 1 <<<"$out")" "run.sh without the provided material: one failure, no suite run"

# Skips: a suite says it skipped only through lib.sh's wh_skip and
# wh_skip_case, which count it (run.sh fails a suite whose SKIP lines
# outnumber its counted skips, but only on a machine where it skips)
said=$(grep -nE '(echo|printf).*SK[I]P' tests/integration/*.sh | grep -vE '^tests/integration/(lib|run)\.sh:')
assert_eq "" "$said" "no suite prints SKIP itself: wh_skip and wh_skip_case count what they say"

wh_done
