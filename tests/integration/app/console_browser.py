#!/usr/bin/env python3
"""Drives Debian's headless Chromium through chromedriver's WebDriver HTTP
protocol (python's standard library only) over the wirehook console, for
tests/integration/test_console.sh. Loopback only: other names are mapped
to 127.0.0.1 (--host-resolver-rules), and the TLS proxy's test
certificate is accepted.

usage: console_browser.py SHOTS-DIR PLAN.json

PLAN.json: {"map": ["name", ...], "steps": [STEP, ...]}, one browser for
every step, in order:
  {"auth": "user:pass"}              Basic credentials sent from now on
  {"go": URL, "name": N}             load a page
  {"click": CSS, "name": N, "wait": JS}   click the first element CSS
                                     matches, wait until JS is true
  {"probe": N}                       the hostile page's probe
  any page step may say "shot": FILE (a screenshot in SHOTS-DIR, "-": none)
Prints one JSON object: "pages": per name the title, the HTTP status, the
browser log's SEVERE entries, the action buttons shown, the rows, the
text, the URL; "probes": per name window.__pwned, an alert open, the
remittance shown as text, img elements. Every wait is a bounded poll for
a condition, never a fixed sleep."""
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
    def __init__(self, mapped):
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
                "--window-size=1280,1000", "--user-data-dir=" + self.profile,
                "--ignore-certificate-errors"]
        if mapped:
            args.append("--host-resolver-rules=" +
                        ", ".join("MAP %s 127.0.0.1" % n for n in mapped))
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome", "goog:loggingPrefs": {"browser": "ALL"},
            "acceptInsecureCerts": True,
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


def page_info(d):
    return {
        "title": d.js("return document.title"),
        "status": d.js("var n = performance.getEntriesByType('navigation')[0];"
                       " return n && n.responseStatus ? n.responseStatus : 0"),
        "errors": d.log(),
        "actions": d.js("return document.querySelectorAll('form.act button').length"),
        "rows": d.js("return document.querySelectorAll('table.list tbody tr').length"),
        "text": d.js("return document.body ? document.body.innerText : ''"),
        "url": d.js("return location.href"),
        "notice": d.js("var n = document.querySelector('.notice');"
                       " return n ? n.innerText : ''"),
    }


def main():
    shots, plan_path = sys.argv[1:3]
    plan = json.load(open(plan_path))
    if shots != "-":
        os.makedirs(shots, exist_ok=True)
    d = Driver(plan.get("map", []))
    out = {"pages": {}, "probes": {}}
    try:
        d.cdp("Network.enable", {})
        for step in plan["steps"]:
            if "auth" in step:
                d.cdp("Network.setExtraHTTPHeaders", {"headers": {
                    "Authorization": "Basic " + base64.b64encode(step["auth"].encode()).decode()}})
                continue
            if "go" in step:
                d.go(step["go"])
            elif "click" in step:
                found = d.s("POST", "/element", {"using": "css selector",
                                                 "value": step["click"]})["value"]
                key = [k for k in found if k.startswith("element")] \
                    if isinstance(found, dict) else []
                if not key:
                    out["pages"][step["name"]] = {"missing": step["click"], "errors": [],
                                                  "text": "", "notice": "", "url": "",
                                                  "status": 0, "actions": 0, "rows": 0}
                    continue
                d.s("POST", "/element/%s/click" % found[key[0]], {})
                d.wait(step.get("wait", "return true") + " && document.readyState === 'complete'",
                       "the click's answer (%s)" % step["name"])
            elif "probe" in step:
                alert = d.s("GET", "/alert/text")
                out["probes"][step["probe"]] = {
                    "pwned": d.js("return typeof window.__pwned"),
                    "alert": alert.get("value") if isinstance(alert.get("value"), str) else None,
                    "shown": d.js("return document.body.innerText.indexOf(arguments[0]) >= 0",
                                  "<img src=x onerror=alert(1)>"),
                    "imgs": d.js("return document.querySelectorAll('img').length"),
                    "errors": d.log(),
                }
                continue
            out["pages"][step["name"]] = page_info(d)
            if shots != "-" and step.get("shot"):
                d.shot(os.path.join(shots, step["shot"] + ".png"))
    finally:
        d.quit()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
