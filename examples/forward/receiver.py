#!/usr/bin/env python3
"""A minimal application behind `wirehook forward`: checks each request
exactly as it would check the bank (HMAC-SHA256 over METHOD + URL + BODY +
TIMESTAMP, the timestamp no older than 5 minutes), handles each
notificationId once (Idempotency-Key), and answers 2xx only once the event
is safely handled: anything else makes the forwarder retry.

Every line of FORWARD_SECRET_FILE is a secret it accepts, and the file is
read again when it changes: to rotate the forwarder's secret without a
gap, add the new secret here, then make it the first line of the
forwarder's ForwardSecretFile, then remove the old one here
(docs/security.md, "Rotating credentials").

    FORWARD_SECRET_FILE=/etc/wirehook/forward.secret \
    FORWARD_URL=http://127.0.0.1:8090/wires  python3 receiver.py

FORWARD_URL must be ForwardUrl exactly as configured: it is part of the
signed text; the receiver listens on its port, on 127.0.0.1."""
import hashlib
import hmac
import json
import os
import sqlite3
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SECRET_FILE = os.environ["FORWARD_SECRET_FILE"]
URL = os.environ["FORWARD_URL"]
TOLERANCE = 300
DB = os.environ.get("RECEIVER_DB", "received.db")


_secrets = {"seen": None, "keys": []}


def secrets():
    """The lines of the secret file, read again when it changes."""
    s = os.stat(SECRET_FILE)
    seen = (s.st_ino, s.st_size, s.st_mtime_ns)
    if seen != _secrets["seen"]:
        with open(SECRET_FILE, "rb") as f:
            lines = [l.rstrip(b"\r\n") for l in f]
        _secrets["keys"], _secrets["seen"] = [l for l in lines if l], seen
    return _secrets["keys"]


def authentic(headers, body):
    ts = headers.get("X-Timestamp", "")
    sig = headers.get("X-Signature", "")
    if not ts.isdigit() or abs(time.time() - int(ts)) > TOLERANCE:
        return False
    signed = b"POST" + URL.encode() + body + ts.encode()
    return any(hmac.compare_digest(hmac.new(k, signed, hashlib.sha256).hexdigest(), sig.lower())
               for k in secrets())


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def reply(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if not authentic(self.headers, body):
            self.reply(401, {"error": "not signed by the forwarder"})
            return
        key = self.headers["Idempotency-Key"]
        event = json.loads(body)
        db = sqlite3.connect(DB)
        with db:
            db.execute("CREATE TABLE IF NOT EXISTS seen (id TEXT PRIMARY KEY,"
                       " payment TEXT, status TEXT, at TEXT)")
            # the same event sent a second time is a no-op
            db.execute("INSERT OR IGNORE INTO seen VALUES (?, ?, ?, ?)",
                       (key, self.headers.get("Wirehook-Payment-Id"),
                        self.headers.get("Wirehook-Status"), event["eventDateTime"]))
        db.close()
        self.reply(200, {"ok": True})


if __name__ == "__main__":
    # listens where ForwardUrl points (loopback here; a proxy in front)
    port = urllib.parse.urlsplit(URL).port or 80
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
