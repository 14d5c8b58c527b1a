#!/bin/sh
# mod_wirehook(8) from man/mod_wirehook.8.in: the configuration file's
# keys, one entry per row of `wirehook configtest --keys`, so that the
# page's list of keys, defaults and bounds is the rows' and nobody's hand.
#
#   build/man_keys.sh WIREHOOK TEMPLATE >PAGE     (build/man.mk runs it)
#
# In the template, the lines after `.\" key NAME` are that key's text, up
# to the next such line or `.\" keys end`, where the entries are written in
# the rows' order: the name and its value, WIREHOOK_NAME, the default and
# the bounds, then the text, or the row's help for a key that has none. A
# text for a key no row has is an error, so none is left behind.
set -e
[ $# -eq 2 ] || { echo "usage: $0 WIREHOOK TEMPLATE" >&2; exit 2; }
rows=$("$1" configtest --keys)
printf '%s\n' "$rows" | awk -F'\t' '
function roff(s) { gsub(/\\/, "\\e", s); gsub(/-/, "\\-", s); return s }
function cap(s) { return toupper(substr(s, 1, 1)) substr(s, 2) }
NR == FNR { n++; name[n] = $1; kind[n] = $2; arg[n] = $3; dflt[n] = $4
            range[n] = $5; help[n] = $6; row[$1] = 1; next }
/^\.\\" key [A-Za-z]+$/ { key = $0; sub(/^\.\\" key /, "", key); inkeys = 1
                          if (!(key in row)) { bad = bad " " key }
                          text[key] = ""; next }
/^\.\\" keys end$/ { emit(); inkeys = 0; next }
inkeys { text[key] = text[key] $0 "\n"; next }
{ print }
function emit(   i, head, r, v) {
    for (i = 1; i <= n; i++) {
        print ".TP"
        if (kind[i] == "enum" || kind[i] == "flag")
            print ".B \"" name[i] " " arg[i] "\""
        else
            print ".BI \"" name[i] " \" " (arg[i] == "URL" ? arg[i] : tolower(arg[i]))
        print ".B WIREHOOK_" name[i]
        head = "\\(em"
        if (dflt[i] != "-")
            head = head " default \\fB" roff(dflt[i]) "\\fP"
        if (kind[i] == "int" || kind[i] == "bytes" || kind[i] == "duration") {
            split(range[i], r, /\.\./)
            head = head (dflt[i] != "-" ? "," : "") " " r[1] " to " r[2]
        }
        # with neither default nor bounds the text goes on from the dash
        if (head != "\\(em") {
            print head "."
            v = (name[i] in text) ? text[name[i]] : cap(roff(help[i])) ".\n"
        } else {
            print head
            v = (name[i] in text) ? text[name[i]] : roff(help[i]) ".\n"
        }
        printf "%s", v
    }
    emitted = 1
}
END {
    if (bad != "") { print "man_keys.sh: text for keys no row has:" bad > "/dev/stderr"; exit 1 }
    if (!emitted) { print "man_keys.sh: no .\\\" keys end line in the template" > "/dev/stderr"; exit 1 }
}' - "$2"
