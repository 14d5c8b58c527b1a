#!/usr/bin/perl
# A deliberately weak receiver for test_probe.sh: it checks nothing at all
# (no signature, no timestamp, no Basic auth, no JSON, no replays), answers
# 200 to anything, and appends the notificationId it finds to
# $WH_APP_OUT/weak-nothing.log, its record of deliveries. wirehook probe
# must report its critical failures and exit 1. (Perl: it starts faster
# than python, and httpd starts it for every probe.)
use strict;
use warnings;

binmode STDIN;
my $body = '';
read(STDIN, $body, $ENV{CONTENT_LENGTH} || 0);
my ($id) = $body =~ /"notificationId"\s*:\s*"([^"]{1,64})"/;
open(my $log, '>>', ($ENV{WH_APP_OUT} || '/tmp') . '/weak-nothing.log') or die;
print $log (defined $id ? $id : '-'), "\n";
close $log;
print "Content-Type: application/json\r\n\r\n{\"status\":\"ok\"}\n";
