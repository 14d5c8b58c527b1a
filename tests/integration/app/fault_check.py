#!/usr/bin/env python3
"""What fault_sender.py saw, against what the application received
(tests/integration/test_replay_faults.sh).

  fault_check.py held DIR BACK      notificationIds first sent before BACK
                                    (seconds since the epoch) and not yet
                                    answered 200: how many
  fault_check.py check DIR [CALLS]  one line: "ids=N done=N bad=N
                                    no_answer=N never=N once=N twice=N
                                    waited_503=N", then one "BAD ..." line
                                    per answer that was neither 200 nor a
                                    503 with a Retry-After in seconds (at
                                    most 5), and "TWICE id" per id the
                                    application received more than once.
                                    Without CALLS (record.cgi's calls
                                    directory) the deliveries are not
                                    counted (never/once/twice 0).
  fault_check.py late DIR BACK      how many seconds after BACK the last
                                    notification first sent before BACK was
                                    answered 200 ("-" when none was)"""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def lines(d, name):
    p = os.path.join(d, name)
    if not os.path.exists(p):
        return []
    with open(p) as f:
        return [l.split() for l in f if l.strip()]


def started(d):
    return {r[1]: float(r[0]) for r in lines(d, "started") if len(r) >= 2}


def done(d):
    return {r[1]: float(r[0]) for r in lines(d, "done") if len(r) >= 2}


def held(d, back):
    s, k = started(d), done(d)
    return sum(1 for nid, t in s.items() if t < back and nid not in k)


def late(d, back):
    s, k = started(d), done(d)
    ts = [k[nid] - back for nid, t in s.items() if t < back and nid in k and k[nid] > back]
    return "%.1f" % max(ts) if ts else "-"


def check(d, calls):
    s, k = started(d), done(d)
    bad, no_answer, waited = [], 0, set()
    for r in lines(d, "answers"):
        if len(r) < 5:
            continue
        t, nid, status, code, ra = r[:5]
        if status == "200":
            continue
        if status == "503" and ra.isdigit():
            waited.add(nid)
            continue
        if status == "0":
            no_answer += 1
        bad.append(" ".join(r))
    never = once = twice = 0
    twice_ids = []
    if calls:
        from app_calls import deliveries
        seen = deliveries(calls)
        for nid in s:
            n = len(seen.get(nid, []))
            if n == 0:
                never += 1
            elif n == 1:
                once += 1
            else:
                twice += 1
                twice_ids.append(nid)
    print("ids=%d done=%d bad=%d no_answer=%d never=%d once=%d twice=%d waited_503=%d"
          % (len(s), len(k), len(bad), no_answer, never, once, twice, len(waited)))
    for b in bad[:5]:
        print("BAD " + b)
    for nid in twice_ids[:5]:
        print("TWICE " + nid)


def main(argv):
    cmd, d = argv[1], argv[2]
    if cmd == "held":
        print(held(d, float(argv[3])))
    elif cmd == "late":
        print(late(d, float(argv[3])))
    elif cmd == "check":
        check(d, argv[3] if len(argv) > 3 else None)
    else:
        raise SystemExit("usage: fault_check.py held|check|late DIR ...")


if __name__ == "__main__":
    main(sys.argv)
