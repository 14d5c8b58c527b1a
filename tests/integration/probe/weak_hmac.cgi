#!/usr/bin/perl
# A deliberately weak receiver for test_probe.sh: it checks the HMAC and
# nothing else, the way a receiver written in an afternoon often does.
# The signature is the spec's, HMAC-SHA256(secret, METHOD + URL + BODY +
# TIMESTAMP); but the timestamp's age, Basic auth, the JSON, the schema
# and replays go unchecked. It appends each accepted notificationId to
# $WH_APP_OUT/weak-hmac.log. wirehook probe must pass its signature probes,
# report its critical failures (stale timestamps, replays, a late last
# byte) and exit 1.
use strict;
use warnings;
use Digest::SHA qw(hmac_sha256_hex);

binmode STDIN;
my $body = '';
read(STDIN, $body, $ENV{CONTENT_LENGTH} || 0);
open(my $f, '<', $ENV{WH_WEAK_SECRET_FILE}) or die;
my $secret = <$f>;
close $f;
$secret =~ s/[\r\n]+$//;
my $url = 'http://' . ($ENV{HTTP_HOST} || '') . ($ENV{REQUEST_URI} || '');
my $ts = $ENV{HTTP_X_TIMESTAMP} // '';
my $expected = hmac_sha256_hex(($ENV{REQUEST_METHOD} || '') . $url . $body . $ts, $secret);
my $given = lc($ENV{HTTP_X_SIGNATURE} // '');
# the comparison's time does not depend on where the strings differ
my $diff = length($expected) ^ length($given);
$diff |= ord(substr($expected, $_, 1)) ^ ord(substr($given . ' ' x 64, $_, 1)) for 0 .. 63;
if ($diff) {
    print "Status: 401\r\nContent-Type: application/json\r\n\r\n{\"error\":\"bad signature\"}\n";
    exit 0;
}
my ($id) = $body =~ /"notificationId"\s*:\s*"([^"]{1,64})"/;
open(my $log, '>>', ($ENV{WH_APP_OUT} || '/tmp') . '/weak-hmac.log') or die;
print $log (defined $id ? $id : '-'), "\n";
close $log;
print "Content-Type: application/json\r\n\r\n{\"status\":\"ok\"}\n";
