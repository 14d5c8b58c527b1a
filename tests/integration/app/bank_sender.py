#!/usr/bin/env python3
"""The bank, sending without a pause for a suite that changes something
under it (test_rotation.sh, test_upgrade.sh): one notification after
another, each new (a fresh notificationId, eventDateTime now), until the
file DIR/stop exists.

usage: bank_sender.py URL SAMPLE DIR [PAUSE_S]

Before each request it reads the credentials from DIR/creds: the user,
the password and the signing secret, one a line. The suite switches them
by replacing that file whole (lib.sh's wh_sender_creds writes a copy and
renames it): a file rewritten in place can be read half-written, and
three files could be read between two of their changes, either way
sending credentials the suite never set. Each answer is appended to DIR/answers as
"STATUS notificationId" (000 when no answer came). The signed URL is URL.
A request on a kept-alive connection that gets no answer at all is sent
once more on a new one (DIR/resent lists them), as a bank's HTTP client
does."""
import base64
import datetime
import hashlib
import hmac
import http.client
import json
import os
import sys
import time
import urllib.parse
import uuid

url, sample, d = sys.argv[1], sys.argv[2], sys.argv[3]
pause = float(sys.argv[4]) if len(sys.argv) > 4 else 0.05
u = urllib.parse.urlsplit(url)
doc = json.load(open(sample))
out = open(os.path.join(d, "answers"), "a", buffering=1)
conn = None


def creds():
    with open(os.path.join(d, "creds"), "rb") as f:
        user, pw, secret = f.read().split(b"\n")[:3]
    return user, pw, secret


while not os.path.exists(os.path.join(d, "stop")):
    user, pw, secret = creds()
    doc["notificationId"] = nid = str(uuid.uuid4())
    doc["eventDateTime"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    body = json.dumps(doc).encode()
    ts = str(int(time.time()))
    sig = hmac.new(secret, b"POST" + url.encode() + body + ts.encode(), hashlib.sha256).hexdigest()
    headers = {"Content-Type": "application/json", "X-Timestamp": ts, "X-Signature": sig,
               "Authorization": "Basic " + base64.b64encode(user + b":" + pw).decode()}
    status = "000"
    for attempt in (1, 2):
        reused = conn is not None
        try:
            if conn is None:
                conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
            conn.request("POST", u.path, body=body, headers=headers)
            r = conn.getresponse()
            r.read()
            status = str(r.status)
            if r.getheader("Connection", "").lower() == "close":
                conn.close()
                conn = None
            break
        except (OSError, http.client.HTTPException):
            conn = None
            # A kept-alive connection the server closed as it was reused
            # (httpd's graceful restart closes idle ones) brings no answer:
            # the bank sends the same notification again, at once, as HTTP
            # clients do for a request on a reused connection. A stored
            # one is answered duplicate. A new connection that fails is a
            # failure (000).
            if not reused:
                break
            with open(os.path.join(d, "resent"), "a") as f:
                f.write(nid + "\n")
    out.write("%s %s\n" % (status, nid))
    time.sleep(pause)
