#!/usr/bin/env bash
# test_cgi.sh again under the prefork MPM, where httpd runs CGI programs
# with mod_cgi (pipes) instead of mod_cgid (a daemon and a socket).
WH_MPM=prefork exec bash "$(dirname "$0")/test_cgi.sh"
