#!/usr/bin/env python3
"""A FastCGI authenticator for httpd's mod_authnz_fcgi (AuthBasicProvider),
for tests/integration/test_console.sh: it checks each user's password and
appends a line per check to a file, so a suite can count how many times
httpd checked a password (one per page view, never a second one for the
console's buttons). Loopback only; python's standard library only.

usage: fcgi_authn.py PORT CHECKS-FILE USER:PASSWORD...

The FastCGI records it reads and writes (FastCGI 1.0, one request per
connection, as mod_authnz_fcgi sends them): BEGIN_REQUEST, PARAMS until
an empty one, then STDOUT ("Status: 200" for a known user and password,
else 401), an empty STDOUT and END_REQUEST."""
import socketserver
import struct
import sys
import threading

BEGIN_REQUEST, END_REQUEST, PARAMS, STDIN, STDOUT = 1, 3, 4, 5, 6
LOCK = threading.Lock()


def read_exact(f, n):
    b = f.read(n)
    if len(b) != n:
        raise EOFError
    return b


def read_record(f):
    _, kind, rid, clen, plen, _ = struct.unpack(">BBHHBB", read_exact(f, 8))
    body = read_exact(f, clen)
    read_exact(f, plen)
    return kind, rid, body


def write_record(f, kind, rid, body):
    f.write(struct.pack(">BBHHBB", 1, kind, rid, len(body), 0, 0) + body)


def length(b, i):
    if b[i] < 128:
        return b[i], i + 1
    return struct.unpack(">I", b[i:i + 4])[0] & 0x7FFFFFFF, i + 4


def params(b):
    out, i = {}, 0
    while i < len(b):
        n, i = length(b, i)
        v, i = length(b, i)
        out[b[i:i + n].decode("latin-1")] = b[i + n:i + n + v].decode("latin-1")
        i += n + v
    return out


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        env, rid = b"", 0
        try:
            while True:
                kind, rid, body = read_record(self.rfile)
                if kind == PARAMS and body:
                    env += body
                elif kind == PARAMS:
                    break
        except EOFError:
            return
        p = params(env)
        user, password = p.get("REMOTE_USER", ""), p.get("REMOTE_PASSWD", "")
        ok = self.server.users.get(user) == password
        with LOCK, open(self.server.checks, "a") as f:
            f.write("%s %s %s\n" % (user, p.get("REQUEST_URI", "-"), "ok" if ok else "refused"))
        out = b"Status: 200\r\n\r\n" if ok else b"Status: 401\r\n\r\n"
        write_record(self.wfile, STDOUT, rid, out)
        write_record(self.wfile, STDOUT, rid, b"")
        write_record(self.wfile, END_REQUEST, rid, struct.pack(">IB3x", 0, 0))
        self.wfile.flush()


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    port, checks = int(sys.argv[1]), sys.argv[2]
    srv = Server(("127.0.0.1", port), Handler)
    srv.checks = checks
    srv.users = dict(a.split(":", 1) for a in sys.argv[3:])
    srv.serve_forever()


if __name__ == "__main__":
    main()
