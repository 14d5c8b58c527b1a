#!/bin/sh
# The application behind mod_wirehook, as a CGI program. When it runs, the
# request has been authenticated, its timestamp and signature checked, its
# body is valid JSON matching the schema, and it is not a replay: it only
# has to keep the notification. stdin is the body exactly as the bank sent
# it; WIREHOOK_* variables hold the facts the module verified.
#
# A failure here (exit without an answer: httpd says 500) makes the module
# forget the notificationId, so the bank's retry is delivered again.
set -eu
spool=${APP_SPOOL:-/var/lib/wirehook/spool}
id=$(printf '%s' "${WIREHOOK_NOTIFICATION_ID:-}" | tr -cd 'A-Za-z0-9-')
if [ "${WIREHOOK_VERIFIED:-}" != 1 ] || [ -z "$id" ]; then
    # not behind mod_wirehook: refuse rather than trust the request
    printf 'Status: 403 Forbidden\r\nContent-Type: application/json\r\n\r\n'
    printf '{"error":"not verified by mod_wirehook"}\n'
    exit 0
fi
tmp=$(mktemp "$spool/.incoming.XXXXXX")
cat >"$tmp"
mv "$tmp" "$spool/$id.json"
printf '%s %s %s %s\n' "$id" "${WIREHOOK_PAYMENT_ID:--}" "${WIREHOOK_STATUS:--}" \
    "${WIREHOOK_STATUS_KNOWN:-}" >>"$spool/received.log"
printf 'Content-Type: application/json\r\n\r\n'
printf '{"received":"%s","app":"cgi"}\n' "$id"
