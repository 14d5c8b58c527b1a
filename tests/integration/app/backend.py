#!/usr/bin/env python3
"""A stand-in backend for mod_proxy tests, outside httpd (httpd strips
client-sent Wirehook-* headers on every request it receives, so a backend
inside the same server would never see them). Records each POST like
record.cgi does: <out>/calls/<dir>/{body,env,marker}, where env holds
CONTENT_LENGTH and one HTTP_<NAME>=value line per request header.

usage: backend.py PORT OUTDIR"""
import os
import sys
import tempfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def do_POST(self):
        body = self._body()
        calls = os.path.join(OUT, "calls")
        os.makedirs(calls, exist_ok=True)
        d = tempfile.mkdtemp(prefix="call.", dir=calls)
        with open(os.path.join(d, "body"), "wb") as f:
            f.write(body)
        env = []
        if "Content-Length" in self.headers:
            env.append("CONTENT_LENGTH=" + self.headers["Content-Length"])
        if "Transfer-Encoding" in self.headers:
            env.append("TRANSFER_ENCODING=" + self.headers["Transfer-Encoding"])
        for k, v in self.headers.items():
            env.append("HTTP_" + k.upper().replace("-", "_") + "=" + v)
        with open(os.path.join(d, "env"), "w") as f:
            f.write("\n".join(sorted(env)) + "\n")
        with open(os.path.join(d, "marker"), "w") as f:
            f.write("POST " + self.path + "\n")
        status = int(os.environ.get("WH_BACKEND_STATUS", "200"))
        out = ('{"app":"received","bytes":%d}\n' % len(body)).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


if __name__ == "__main__":
    PORT, OUT = int(sys.argv[1]), sys.argv[2]
    ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
