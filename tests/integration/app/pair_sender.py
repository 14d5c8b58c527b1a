#!/usr/bin/env python3
"""The bank, sending each notification to two servers at the same moment
(tests/integration/test_replay_cluster.sh).

For each of COUNT new notifications (the shared sample with a fresh
notificationId), one sender per server POSTs it to that server; the two
wait for each other at a barrier, so both copies leave together. A sender
goes on until it gets a 200 (accepted or duplicate), as the bank does:
after a 503 it waits Retry-After seconds (1 when there is none) and sends
again, signed anew; when its server does not answer (killed), it moves to
the other server. Every attempt is signed as the bank signs it (HMAC-SHA256
over METHOD + URL + BODY + TIMESTAMP, the first line of the secret file).

usage: pair_sender.py --urls URL_A,URL_B --secret-file F --user U:P
                      --sample FILE --count N --concurrency K --out FILE
                      [--ts-header X-Timestamp] [--sig-header X-Signature]
                      [--deadline SECONDS]

Writes one JSON line per notification to --out:
  {"id": ..., "senders": [{"start": "A", "attempts": [["A", 503,
   "delivery_in_progress", "10"], ...], "final": 200, "code": "accepted"},
   ...]}
(an attempt's last item: its Retry-After, null when it had none)
and the number of senders finished so far to --out.progress. Exits 0 when
every sender ended with a 200, 1 otherwise (or at the deadline)."""
import argparse
import base64
import hashlib
import hmac
import http.client
import json
import os
import sys
import threading
import time
import urllib.parse
import uuid
from concurrent.futures import ThreadPoolExecutor


def parse():
    a = argparse.ArgumentParser()
    a.add_argument("--urls", required=True)
    a.add_argument("--secret-file", required=True)
    a.add_argument("--user", required=True)
    a.add_argument("--sample", required=True)
    a.add_argument("--count", type=int, required=True)
    a.add_argument("--concurrency", type=int, default=8)
    a.add_argument("--out", required=True)
    a.add_argument("--ts-header", default="X-Timestamp")
    a.add_argument("--sig-header", default="X-Signature")
    a.add_argument("--deadline", type=float, default=400)
    # seconds between the starts of two notifications: spreads a burst
    # over a known time, so that a fault made mid-burst meets its rest
    a.add_argument("--interval", type=float, default=0)
    return a.parse_args()


class Run:
    def __init__(self, a):
        self.a = a
        self.urls = a.urls.split(",")
        with open(a.secret_file, "rb") as f:
            self.secret = f.read().split(b"\n")[0].rstrip(b"\r")
        self.auth = "Basic " + base64.b64encode(a.user.encode()).decode()
        with open(a.sample) as f:
            self.sample = json.load(f)
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.left = 2 * a.count
        self.finished = 0
        self.failed = 0
        self.pool = ThreadPoolExecutor(max_workers=2 * a.concurrency)
        self.slots = threading.Semaphore(a.concurrency)
        self.records = []

    def body(self, nid):
        d = json.loads(json.dumps(self.sample))
        d["notificationId"] = nid
        d["eventDateTime"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        return json.dumps(d, indent=2).encode()

    def post(self, server, body):
        """(status, code, retry_after) of one signed POST; status 0 when the
        server did not answer."""
        url = self.urls[server]
        u = urllib.parse.urlsplit(url)
        ts = str(int(time.time()))
        mac = hmac.new(self.secret, b"POST" + url.encode() + body + ts.encode(),
                       hashlib.sha256).hexdigest()
        try:
            c = http.client.HTTPConnection(u.hostname, u.port, timeout=300)
            c.request("POST", u.path, body=body, headers={
                "Content-Type": "application/json", "Authorization": self.auth,
                self.a.ts_header: ts, self.a.sig_header: mac})
            r = c.getresponse()
            data = r.read()
            retry = r.getheader("Retry-After")
            c.close()
        except (OSError, http.client.HTTPException):
            return 0, "no answer", None
        try:
            j = json.loads(data)
            code = j["error"]["code"] if "error" in j else j.get("status", "")
        except (ValueError, KeyError, TypeError, AttributeError):
            code = "app" if r.status == 200 else ""
        return r.status, code, retry

    def attempt(self, s):
        status, code, retry = self.post(s["server"], s["body"])
        s["attempts"].append(["AB"[s["server"]], status, code, retry])
        if len(s["attempts"]) == 1:
            # both copies answered once: the next pair may go (retries
            # after Retry-After keep no slot)
            with self.lock:
                s["pair"]["first"] -= 1
                if s["pair"]["first"] == 0:
                    self.slots.release()
        if status == 200:
            s["final"], s["code"] = 200, code
            self.finish(s)
            return
        if status == 0:
            s["server"] = 1 - s["server"]     # the load balancer moves it
            delay = 1.0
        elif status == 503:
            try:
                delay = float(retry) if retry else 1.0
            except ValueError:
                delay = 1.0
        else:
            s["final"], s["code"] = status, code
            self.finish(s)
            return
        t = threading.Timer(delay, lambda: self.pool.submit(self.attempt, s))
        t.daemon = True
        t.start()

    def first(self, s, barrier):
        try:
            barrier.wait(timeout=30)
        except threading.BrokenBarrierError:
            pass
        self.attempt(s)

    def finish(self, s):
        with self.lock:
            self.left -= 1
            self.finished += 1
            if s["final"] != 200:
                self.failed += 1
            with open(self.a.out + ".progress.new", "w") as f:
                f.write("%d\n" % self.finished)
            os.replace(self.a.out + ".progress.new", self.a.out + ".progress")
            if self.left == 0:
                self.done.set()

    def run(self):
        deadline = time.time() + self.a.deadline
        for i in range(self.a.count):
            if i and self.a.interval > 0:
                time.sleep(self.a.interval)
            self.slots.acquire()
            nid = str(uuid.uuid4())
            pair = {"id": nid, "first": 2, "senders": []}
            barrier = threading.Barrier(2)
            body = self.body(nid)
            with self.lock:
                self.records.append(pair)
            for server in (0, 1):
                s = {"start": "AB"[server], "server": server, "body": body,
                     "attempts": [], "final": None, "code": None, "pair": pair}
                pair["senders"].append(s)
                self.pool.submit(self.first, s, barrier)
        ok = self.done.wait(max(1.0, deadline - time.time()))
        with self.lock, open(self.a.out, "w") as f:
            for p in self.records:
                f.write(json.dumps({"id": p["id"], "senders": [
                    {"start": s["start"], "attempts": s["attempts"],
                     "final": s["final"], "code": s["code"]}
                    for s in p["senders"]]}) + "\n")
            failed = self.failed + self.left
        return 0 if ok and failed == 0 else 1


if __name__ == "__main__":
    rc = Run(parse()).run()
    sys.stdout.flush()
    os._exit(rc)
