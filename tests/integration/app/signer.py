#!/usr/bin/env python3
"""The suites' signer, kept running beside a suite's shell (lib.sh's
wh_post) so that signing a request costs no process: one request a line,
SECRETFILE TAB METHOD TAB URL TAB BODYFILE TAB TIMESTAMP, one answer a line,
the HMAC-SHA256 hex of METHOD + URL + BODY + TIMESTAMP under the file's
first secret (its first non-empty line without the line end, as wirehook
reads it), or "-" when it cannot sign. An implementation independent of
the module's, like wh_sign_openssl."""
import hashlib
import hmac
import sys


def first_secret(path):
    with open(path, "rb") as f:
        for line in f.read().split(b"\n"):
            line = line.rstrip(b"\r")
            if line:
                return line
    return None


for req in sys.stdin:
    parts = req.rstrip("\n").split("\t")
    try:
        secret_file, method, url, body_file, ts = parts
        key = first_secret(secret_file)
        with open(body_file, "rb") as f:
            body = f.read()
        msg = method.encode() + url.encode() + body + ts.encode()
        out = hmac.new(key, msg, hashlib.sha256).hexdigest() if key else "-"
    except Exception:
        out = "-"
    sys.stdout.write(out + "\n")
    sys.stdout.flush()
