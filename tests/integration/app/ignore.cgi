#!/bin/sh
# A handler that makes nothing of its request body: mod_wirehook must
# protect it all the same (verification happens before any handler runs).
# The body is still read and dropped: a CGI that exits with body unread
# under mod_cgid resets the socket httpd reads its answer from, and the
# client sometimes gets an empty reply (httpd's behaviour, not the
# module's; mod_cgid hands the script the body whether it reads it or not).
cat >/dev/null
touch "${WH_APP_OUT:-/tmp}/ignored.$$"
printf 'Content-Type: text/plain\r\n\r\nignored-body handler ran\n'
