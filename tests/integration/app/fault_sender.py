#!/usr/bin/env python3
"""The bank, sending without a pause while a suite breaks the stores under
it (tests/integration/test_replay_faults.sh): each of CONCURRENCY senders
sends one new notification after another (a fresh notificationId) until
DIR/stop exists, and each until it is answered 200, as the bank does:
after a 503 it waits Retry-After seconds and sends the same notification
again, signed anew; after no answer at all (refused, reset, or nothing
within --timeout) it waits a second and sends again. After DIR/stop, what
is under way is finished, for at most --finish seconds.

usage: fault_sender.py --url URL --secret-file F --user U:P --sample FILE
                       --dir DIR [--concurrency 3] [--pause 0.05]
                       [--timeout 30] [--finish 120]

Writes, one line each, flushed as they happen:
  DIR/started   "TIME notificationId"   its first send
  DIR/done      "TIME notificationId"   its 200
  DIR/answers   "TIME notificationId STATUS CODE RETRY-AFTER"  every answer
                (STATUS 0: none came; CODE and RETRY-AFTER "-" when absent)
TIME is seconds since the epoch (float). Exits 0 when every notification
ended with a 200."""
import argparse
import base64
import hashlib
import hmac
import http.client
import json
import os
import threading
import time
import urllib.parse
import uuid


def parse():
    a = argparse.ArgumentParser()
    a.add_argument("--url", required=True)
    a.add_argument("--secret-file", required=True)
    a.add_argument("--user", required=True)
    a.add_argument("--sample", required=True)
    a.add_argument("--dir", required=True)
    a.add_argument("--concurrency", type=int, default=3)
    a.add_argument("--pause", type=float, default=0.05)
    a.add_argument("--timeout", type=float, default=30)
    a.add_argument("--finish", type=float, default=120)
    return a.parse_args()


class Log:
    def __init__(self, path):
        self.f = open(path, "a", buffering=1)
        self.lock = threading.Lock()

    def write(self, *fields):
        with self.lock:
            self.f.write(" ".join(str(x) for x in fields) + "\n")


def main():
    a = parse()
    u = urllib.parse.urlsplit(a.url)
    with open(a.secret_file, "rb") as f:
        secret = f.read().split(b"\n")[0].rstrip(b"\r")
    auth = "Basic " + base64.b64encode(a.user.encode()).decode()
    with open(a.sample) as f:
        sample = json.load(f)
    started, done, answers = (Log(os.path.join(a.dir, n)) for n in ("started", "done", "answers"))
    stop = os.path.join(a.dir, "stop")
    failed = []

    def post(conn, body):
        """(conn, status, code, retry_after): status 0 when no answer came."""
        ts = str(int(time.time()))
        sig = hmac.new(secret, b"POST" + a.url.encode() + body + ts.encode(),
                       hashlib.sha256).hexdigest()
        headers = {"Content-Type": "application/json", "Authorization": auth,
                   "X-Timestamp": ts, "X-Signature": sig}
        try:
            if conn is None:
                conn = http.client.HTTPConnection(u.hostname, u.port, timeout=a.timeout)
            conn.request("POST", u.path, body=body, headers=headers)
            r = conn.getresponse()
            data = r.read()
            ra = r.getheader("Retry-After")
            if r.getheader("Connection", "").lower() == "close":
                conn.close()
                conn = None
        except (OSError, http.client.HTTPException):
            if conn is not None:
                conn.close()
            return None, 0, "-", None
        code = "-"
        try:
            doc = json.loads(data)
            code = doc.get("status") or doc.get("error", {}).get("code") or "-"
        except (ValueError, AttributeError):
            pass
        return conn, r.status, code, ra

    def sender():
        conn = None
        while not os.path.exists(stop):
            nid = str(uuid.uuid4())
            d = json.loads(json.dumps(sample))
            d["notificationId"] = nid
            d["eventDateTime"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            body = json.dumps(d).encode()
            started.write("%.3f" % time.time(), nid)
            finish_by = None
            while True:
                conn, status, code, ra = post(conn, body)
                now = time.time()
                answers.write("%.3f" % now, nid, status, code, ra if ra is not None else "-")
                if status == 200:
                    done.write("%.3f" % now, nid)
                    break
                if os.path.exists(stop) and finish_by is None:
                    finish_by = now + a.finish
                if finish_by is not None and now > finish_by:
                    failed.append(nid)
                    break
                wait = 1.0
                if status == 503 and ra is not None and ra.isdigit():
                    wait = max(int(ra), 0)
                time.sleep(wait)
            time.sleep(a.pause)

    threads = [threading.Thread(target=sender) for _ in range(a.concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
