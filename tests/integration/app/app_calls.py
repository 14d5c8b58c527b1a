"""What record.cgi kept of each call the application received, by
notificationId: the list of SERVER_PORT values of its deliveries ("?" for
a recording without its environment: a CGI killed as it wrote it)."""
import glob
import json
import os
import re


def deliveries(calls):
    seen = {}
    for d in glob.glob(os.path.join(calls, "*")):
        try:
            body = json.load(open(os.path.join(d, "body")))
            env = open(os.path.join(d, "env")).read()
        except Exception:
            continue
        port = re.search(r"^SERVER_PORT=(\d+)$", env, re.M)
        seen.setdefault(body.get("notificationId"), []).append(port.group(1) if port else "?")
    return seen
