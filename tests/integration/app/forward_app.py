#!/usr/bin/env python3
"""The application behind `wirehook forward`, for the tests and the demo.

It checks every request the way an application would check the bank
(the same HMAC-SHA256 over METHOD + URL + BODY + TIMESTAMP, with the
forwarder's secret: any line of the secret file, read again when it
changes, as during a rotation), records it, and answers as it is told.
Loopback only.

usage: forward_app.py --port P --control-port C --secret-file F --url URL
                      --out DIR [--ts-header X-Timestamp] [--sig-header X-Signature]
                      [--tolerance 300] [--down]

Every request appends one line to DIR/requests.log:
    <seq> <notificationId> <paymentId> <status> <attempt> <answer> <sha256-of-body>
(answer is the HTTP status it gave; 401 means the signature or the headers
did not check out, and the reason goes to DIR/app.log). The last
request's headers and body are kept in DIR/last.json; every request's
traceparent in DIR/traces.log, "<notificationId> <attempt> <traceparent>".

Control (POST JSON to http://127.0.0.1:C/control):
    {"down": N}         close the listening socket for N seconds (refused
                        connections), then listen again; {"down": -1}: until
                        {"up": true}
    {"up": true}        listen again now
    {"rules": [{"payment": "WP-1" | "*", "answer": 500, "times": 2,
                "retry_after": "1", "body": "..."},
               {"nid": "8cefee42-...", "answer": 400}]}
                        answers for matching requests (by paymentId, or by
                        notificationId), first match wins, "times" counts
                        down (absent: for ever); replaces the rules
    {"delay_ms": N}     wait N ms before each answer
GET http://127.0.0.1:C/stats gives {"requests": n, "listening": bool}."""
import argparse
import hashlib
import hmac
import json
import os
import socket
import socketserver
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class State:
    def __init__(self, a):
        self.a = a
        self.secret_seen = None
        self.secrets = []
        self.load_secrets()
        self.lock = threading.Lock()
        self.rules = []
        self.delay_ms = 0
        self.seq = 0
        self.active = {}         # paymentId -> requests being answered
        self.conns = set()       # open connections, cut when going down
        self.server = None
        self.up_timer = None
        os.makedirs(a.out, exist_ok=True)
        self.log = open(os.path.join(a.out, "requests.log"), "a", buffering=1)
        self.applog = open(os.path.join(a.out, "app.log"), "a", buffering=1)
        self.traces = open(os.path.join(a.out, "traces.log"), "a", buffering=1)

    def load_secrets(self):
        """Every line of the secret file is accepted, as an application
        does while the forwarder's secret is rotated; the file is read
        again when it changes."""
        try:
            s = os.stat(self.a.secret_file)
        except OSError:
            return
        seen = (s.st_ino, s.st_size, s.st_mtime_ns)
        if seen == self.secret_seen:
            return
        lines = [l.rstrip(b"\r") for l in open(self.a.secret_file, "rb").read().split(b"\n")]
        self.secrets = [l for l in lines if l]
        self.secret_seen = seen

    def record(self, nid, pay, status, attempt, answer, body):
        with self.lock:
            self.seq += 1
            self.log.write("%d %s %s %s %s %d %s\n" % (
                self.seq, nid or "-", (pay or "-").replace(" ", "_"),
                (status or "-").replace(" ", "_"), attempt or "-", answer,
                hashlib.sha256(body).hexdigest()))

    def decide(self, pay, nid):
        with self.lock:
            for r in self.rules:
                if "nid" in r:
                    if r["nid"] != nid:
                        continue
                elif r.get("payment") not in ("*", pay):
                    continue
                if "times" in r:
                    if r["times"] <= 0:
                        continue
                    r["times"] -= 1
                return r
        return None


def check(st, h, body):
    """None when the request is authentic, else why not."""
    a = st.a
    ts = h.headers.get(a.ts_header, "")
    sig = h.headers.get(a.sig_header, "")
    if not ts.isdigit():
        return "timestamp header missing or not digits"
    t = int(ts) / (1000.0 if len(ts) >= 13 else 1.0)
    if abs(time.time() - t) > a.tolerance:
        return "timestamp outside the tolerance"
    with st.lock:
        st.load_secrets()
        secrets = list(st.secrets)
    signed = b"POST" + a.url.encode() + body + ts.encode()
    if not any(hmac.compare_digest(hmac.new(k, signed, hashlib.sha256).hexdigest(), sig.lower())
               for k in secrets):
        return "signature mismatch"
    try:
        doc = json.loads(body)
    except ValueError:
        return "body is not JSON"
    nid = doc.get("notificationId")
    if h.headers.get("Idempotency-Key") != nid:
        return "Idempotency-Key is not the notificationId"
    if h.headers.get("Wirehook-Notification-Id") != nid:
        return "Wirehook-Notification-Id is not the notificationId"
    if h.headers.get("Wirehook-Verified") != "1":
        return "Wirehook-Verified is not 1"
    if not h.headers.get("Content-Type", "").startswith("application/json"):
        return "Content-Type is not application/json"
    return None


def app_handler(st):
    class H(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def setup(self):
            super().setup()
            with st.lock:
                st.conns.add(self.connection)

        def finish(self):
            with st.lock:
                st.conns.discard(self.connection)
            super().finish()

        def answer(self, code, text, headers=()):
            data = text.encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in headers:
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            n = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(n)
            pay = self.headers.get("Wirehook-Payment-Id")
            nid = self.headers.get("Wirehook-Notification-Id")
            status = self.headers.get("Wirehook-Status")
            attempt = self.headers.get("Wirehook-Attempt")
            with st.lock:
                with open(os.path.join(st.a.out, "last.json"), "w") as f:
                    json.dump({"headers": dict(self.headers.items()),
                               "body": body.decode("utf-8", "replace")}, f)
                st.traces.write("%s %s %s\n" % (nid or "-", attempt or "-",
                                                self.headers.get("traceparent", "-")))
                # two requests of one payment at once: the forwarder broke
                # its promise of one event at a time per payment
                if pay and st.active.get(pay):
                    st.applog.write("OVERLAP %s %s\n" % (pay, nid))
                if pay:
                    st.active[pay] = st.active.get(pay, 0) + 1
            try:
                if st.delay_ms:
                    time.sleep(st.delay_ms / 1000.0)
                code, text, hdrs = self.handle_request(body, pay, nid, status, attempt)
            finally:
                # the request ends before its answer leaves: once the
                # forwarder reads the answer it may send the payment's next
                # event at once, and that must not look like an overlap
                if pay:
                    with st.lock:
                        st.active[pay] -= 1
            self.answer(code, text, hdrs)

        def handle_request(self, body, pay, nid, status, attempt):
            why = check(st, self, body)
            if why:
                st.applog.write("refused %s: %s\n" % (nid, why))
                st.record(nid, pay, status, attempt, 401, body)
                return 401, json.dumps({"error": why}), []
            r = st.decide(pay, nid)
            if r:
                code = int(r.get("answer", 500))
                hdrs = [("Retry-After", str(r["retry_after"]))] if "retry_after" in r else []
                st.record(nid, pay, status, attempt, code, body)
                return code, r.get("body", json.dumps({"error": "told to answer %d" % code})), hdrs
            st.record(nid, pay, status, attempt, 200, body)
            return 200, '{"ok":true}', []
    return H


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def server_bind(self):
        # HTTPServer's own looks the host name up (getfqdn), which can take
        # seconds where reverse DNS is slow; loopback needs no name.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]


def listen(st):
    with st.lock:
        if st.server is not None:
            return
        srv = Server(("127.0.0.1", st.a.port), app_handler(st))
        srv.daemon_threads = True
        st.server = srv
    threading.Thread(target=srv.serve_forever, daemon=True).start()


def close(st):
    """Down means down: no listener, and the kept-alive connections cut."""
    with st.lock:
        srv, st.server = st.server, None
        conns = list(st.conns)
    if srv is not None:
        srv.shutdown()
        srv.server_close()
    for c in conns:
        try:
            c.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def control_handler(st):
    class C(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def reply(self, obj):
            data = json.dumps(obj).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            self.reply({"requests": st.seq, "listening": st.server is not None})

        def do_POST(self):
            cmd = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
            if "rules" in cmd:
                with st.lock:
                    st.rules = cmd["rules"]
            if "delay_ms" in cmd:
                st.delay_ms = int(cmd["delay_ms"])
            if "down" in cmd:
                if st.up_timer:
                    st.up_timer.cancel()
                close(st)
                if cmd["down"] >= 0:
                    st.up_timer = threading.Timer(cmd["down"], listen, (st,))
                    st.up_timer.daemon = True
                    st.up_timer.start()
            if cmd.get("up"):
                if st.up_timer:
                    st.up_timer.cancel()
                listen(st)
            self.reply({"ok": True, "listening": st.server is not None})
    return C


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--control-port", type=int, required=True)
    p.add_argument("--secret-file", required=True)
    p.add_argument("--url", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--ts-header", default="X-Timestamp")
    p.add_argument("--sig-header", default="X-Signature")
    p.add_argument("--tolerance", type=int, default=300)
    p.add_argument("--down", action="store_true")
    a = p.parse_args()
    st = State(a)
    if not a.down:
        listen(st)
    ctl = Server(("127.0.0.1", a.control_port), control_handler(st))
    ctl.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
