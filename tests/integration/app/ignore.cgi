#!/bin/sh
# A handler that never reads its request body: mod_wirehook must protect it
# all the same (verification happens before any handler runs).
touch "${WH_APP_OUT:-/tmp}/ignored.$$"
printf 'Content-Type: text/plain\r\n\r\nignored-body handler ran\n'
