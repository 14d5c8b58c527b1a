#!/usr/bin/env python3
"""Drives Debian's headless Chromium through chromedriver's WebDriver HTTP
protocol (python's standard library only) over the wirehook console, for
tests/integration/test_console.sh. Loopback only.

usage: console_browser.py BASE-URL USER:PASS ROLE SHOTS-DIR PLAN.json

PLAN.json: {"pages": [[name, path], ...], "hostile": path,
            "dead": path, "retry": true|false}
Prints one JSON object: per page its HTTP-visible title, the browser log's
SEVERE entries, whether action buttons were shown; the hostile page's
probe (window.__pwned, an alert open, the text shown); after a real click
on the dead letters page's Retry button, the URL it landed on. Every wait
is a bounded poll for a condition, never a fixed sleep."""
import base64
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

BOUND = 30.0


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Driver:
    def __init__(self):
        self.port = free_port()
        self.proc = subprocess.Popen(["chromedriver", "--port=%d" % self.port],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + BOUND
        while True:
            try:
                self.call("GET", "/status")
                break
            except Exception:
                if time.time() > deadline:
                    raise
                time.sleep(0.05)
        self.profile = tempfile.mkdtemp(prefix="wh-chromium-")
        args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                "--window-size=1280,1000", "--user-data-dir=" + self.profile]
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome", "goog:loggingPrefs": {"browser": "ALL"},
            "goog:chromeOptions": {"binary": "/usr/bin/chromium", "args": args}}}}
        self.sid = self.call("POST", "/session", caps)["value"]["sessionId"]

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request("http://127.0.0.1:%d%s" % (self.port, path), data=data,
                                     method=method, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=BOUND * 2) as r:
                return json.load(r)
        except urllib.error.HTTPError as e:
            return json.load(e)

    def s(self, method, path, body=None):
        return self.call(method, "/session/%s%s" % (self.sid, path), body)

    def cdp(self, cmd, params):
        return self.s("POST", "/goog/cdp/execute", {"cmd": cmd, "params": params})

    def js(self, script, *args):
        return self.s("POST", "/execute/sync", {"script": script, "args": list(args)})["value"]

    def wait(self, script, what):
        deadline = time.time() + BOUND
        while time.time() < deadline:
            if self.js(script):
                return True
            time.sleep(0.05)
        raise RuntimeError("timed out waiting for " + what)

    def go(self, url):
        self.s("POST", "/url", {"url": url})
        self.wait("return document.readyState === 'complete'", "the page to load")

    def log(self):
        return [e for e in self.s("POST", "/se/log", {"type": "browser"}).get("value", [])
                if e.get("level") == "SEVERE"]

    def shot(self, path):
        png = self.s("GET", "/screenshot")["value"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(png))

    def quit(self):
        try:
            self.s("DELETE", "")
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def main():
    base, cred, role, shots, plan_path = sys.argv[1:6]
    plan = json.load(open(plan_path))
    os.makedirs(shots, exist_ok=True)
    d = Driver()
    out = {"pages": {}}
    try:
        d.cdp("Network.enable", {})
        d.cdp("Network.setExtraHTTPHeaders", {"headers": {
            "Authorization": "Basic " + base64.b64encode(cred.encode()).decode()}})
        for name, path in plan["pages"]:
            d.go(base + path)
            out["pages"][name] = {
                "title": d.js("return document.title"),
                "errors": d.log(),
                "actions": d.js("return document.querySelectorAll('form.act button').length"),
                "rows": d.js("return document.querySelectorAll('table.list tbody tr').length"),
                "text": d.js("return document.body.innerText"),
            }
            if shots != "-":
                d.shot(os.path.join(shots, "%s-%s.png" % (role, name)))
        if plan.get("hostile"):
            d.go(base + plan["hostile"])
            alert = d.s("GET", "/alert/text")
            out["hostile"] = {
                "pwned": d.js("return typeof window.__pwned"),
                "alert": alert.get("value") if isinstance(alert.get("value"), str) else None,
                "shown": d.js("return document.body.innerText.indexOf(arguments[0]) >= 0",
                              "<img src=x onerror=alert(1)>"),
                "imgs": d.js("return document.querySelectorAll('img').length"),
                "errors": d.log(),
            }
        if plan.get("retry"):
            d.go(base + plan["dead"])
            found = d.s("POST", "/element", {"using": "css selector",
                                             "value": "form.act button"})["value"]
            key = [k for k in found if k.startswith("element")] if isinstance(found, dict) else []
            if key:
                d.s("POST", "/element/%s/click" % found[key[0]], {})
                d.wait("return location.search.indexOf('done=retry') >= 0 && "
                       "document.readyState === 'complete'", "the retry's answer")
                out["retry"] = {"url": d.js("return location.href"),
                                "notice": d.js("var n = document.querySelector('.notice');"
                                               " return n ? n.innerText : ''"),
                                "errors": d.log()}
                if shots != "-":
                    d.shot(os.path.join(shots, "%s-retried.png" % role))
            else:
                out["retry"] = {"url": "", "notice": "no Retry button", "errors": []}
    finally:
        d.quit()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
