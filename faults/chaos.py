#!/usr/bin/env python3
"""Chaos-style check from outside, as a user would fault it (python3, standard library only; root for the sandbox):
`python3 faults/chaos.py [SECONDS]` (default 240), state in $CHAOS_DIR (default /tmp/punctual-chaos). bin/run-local --executors 0 on a
--data-dir, 3 executors started with bin/run-executor, a witness binary logging its own start and end; meanwhile
kill -9 of a random executor every 20-30 s, a SIGSTOP of one executor longer than the lease, and a kill -9 and
restart of the runner. Then: lost runs, overlapping attempts, binaries that exited 0 and ran again."""
import hashlib, json, os, random, signal, subprocess, sys, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.environ.get("CHAOS_DIR", "/tmp/punctual-chaos")
API = "http://127.0.0.1:18080"
ENV = dict(os.environ, PUNCTUAL_LEASE="PT15S", PUNCTUAL_HEARTBEAT="PT4S", PUNCTUAL_REQUEUE_AFTER="PT30S",
           PUNCTUAL_RETRY_BASE="PT2S")
DURATION = int(sys.argv[1]) if len(sys.argv) > 1 else 240
random.seed(7)
os.makedirs(WORK, exist_ok=True)
log = open(f"{WORK}/chaos.log", "a")


def say(*a):
    line = time.strftime("%H:%M:%S ") + " ".join(str(x) for x in a)
    print(line, flush=True)
    log.write(line + "\n"); log.flush()


def call(method, path, body=None, url=None, data=None, headers=None):
    req = urllib.request.Request(url or API + path, method=method, data=data if data is not None else (
        json.dumps(body).encode() if body is not None else None), headers=headers or {"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        raw = r.read()
        return json.loads(raw) if raw and r.headers.get("content-type", "").find("json") >= 0 else raw


def start_runner():
    out = open(f"{WORK}/runner.out", "a")
    p = subprocess.Popen([f"{ROOT}/bin/run-local", "--executors", "0", "--port", "18080", "--data-dir",
                          f"{WORK}/data", "--sweep-period", "PT5S"], env=ENV, stdout=out, stderr=subprocess.STDOUT)
    for _ in range(300):
        time.sleep(0.5)
        if "ready:" in open(f"{WORK}/runner.out").read().split("=== start")[-1]:
            return p
    raise SystemExit("runner not ready")


def start_executor(i):
    out = open(f"{WORK}/executor-{i}.out", "a")
    e = dict(ENV, PUNCTUAL_EXECUTOR_ID=f"chaos-ex{i}-{int(time.time())}", PUNCTUAL_WORK_DIR=f"{WORK}/ex{i}")
    return subprocess.Popen([f"{ROOT}/bin/run-executor"], env=e, stdout=out, stderr=subprocess.STDOUT)


WITNESS_SH = """#!/bin/sh
echo "start $SCHEDULER_JOB_ID $SCHEDULER_RUN_ID $SCHEDULER_ATTEMPT $(date +%s%N)" >> "$WITNESS"
sleep "$SLEEP"
echo "end $SCHEDULER_JOB_ID $SCHEDULER_RUN_ID $SCHEDULER_ATTEMPT $(date +%s%N) $EXIT" >> "$WITNESS"
exit "$EXIT"
"""


def main():
    for stale in ("data", "runner.out", "shared"):
        subprocess.run(["rm", "-rf", f"{WORK}/{stale}"])
    os.makedirs(f"{WORK}/shared", exist_ok=True)
    os.chmod(WORK, 0o711)
    os.chmod(f"{WORK}/shared", 0o777)
    witness = f"{WORK}/shared/witness.log"
    open(witness, "a").close()
    os.chmod(witness, 0o666)
    with open(f"{WORK}/runner.out", "a") as f:
        f.write("=== start\n")
    runner = start_runner()
    say("runner ready")
    execs = {i: start_executor(i) for i in range(3)}
    body = WITNESS_SH.encode()
    b = call("POST", "/v1/binaries", {"name": "witness", "sha256": hashlib.sha256(body).hexdigest(), "size": len(body)})
    open(f"{WORK}/witness.sh", "wb").write(body)
    hdrs = sum([["-H", f"{k}: {v}"] for k, v in b.get("uploadHeaders", {}).items()], [])
    code = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "PUT", "-T",
                           f"{WORK}/witness.sh", *hdrs, b["uploadUrl"]], capture_output=True, text=True).stdout
    if code != "200":
        raise SystemExit("upload failed: " + code)
    jobs = []
    t0 = time.time()
    next_kill = t0 + random.uniform(20, 30)
    froze = restarted = False
    kills = 0
    n = 0
    while time.time() - t0 < DURATION:
        # ~2.5 runs/s of one-shot jobs: most short, one in five longer than the lease, one in ten failing once.
        for _ in range(5):
            n += 1
            sleep = random.choice([0.5, 1, 2, 3]) if n % 5 else random.choice([18, 20, 25])
            exit_code = 1 if n % 10 == 0 else 0
            j = call("POST", "/v1/jobs", {"name": f"c{n}", "binaryId": b["id"], "schedule": {"type": "now"},
                                          "env": {"WITNESS": witness, "SLEEP": str(sleep), "EXIT": str(exit_code)},
                                          "timeoutSeconds": 120, "maxAttempts": 3})
            jobs.append(j["id"])
        if n == 5:
            for k in range(3):
                j = call("POST", "/v1/jobs", {"name": f"forbid{k}", "binaryId": b["id"], "overlap": "forbid",
                                              "schedule": {"type": "interval", "every": "PT10S"},
                                              "env": {"WITNESS": witness, "SLEEP": "12", "EXIT": "0"},
                                              "timeoutSeconds": 120})
                jobs.append(j["id"])
        now = time.time()
        if now >= next_kill:
            i = random.choice(list(execs))
            execs[i].send_signal(signal.SIGKILL); execs[i].wait()
            kills += 1
            say(f"kill -9 executor {i}")
            execs[i] = start_executor(i)
            next_kill = now + random.uniform(20, 30)
        if not froze and now - t0 > 60:
            i = 0
            # The JVM under bin/run-executor: exec'd by the script, so the Popen pid is the java process.
            os.kill(execs[i].pid, signal.SIGSTOP)
            say("SIGSTOP executor 0 for 25 s")
            time.sleep(25)
            os.kill(execs[i].pid, signal.SIGCONT)
            say("SIGCONT executor 0")
            froze = True
        if not restarted and now - t0 > 150:
            runner.send_signal(signal.SIGKILL); runner.wait()
            say("kill -9 runner")
            with open(f"{WORK}/runner.out", "a") as f:
                f.write("=== start\n")
            runner = start_runner()
            say("runner restarted on its --data-dir")
            restarted = True
        time.sleep(2)
    for jid in jobs[:]:
        try:
            j = call("GET", f"/v1/jobs/{jid}")
            if j["schedule"]["type"] == "interval":
                call("DELETE", f"/v1/jobs/{jid}")
        except Exception as e:  # noqa
            say("delete", jid, e)
    say(f"submitted {n} one-shot jobs + 3 interval; {kills} executor kills; waiting for every run to end")
    deadline = time.time() + 900
    while time.time() < deadline:
        open_runs = 0
        for jid in jobs:
            runs = call("GET", f"/v1/jobs/{jid}/runs?limit=100")["items"]
            open_runs += sum(1 for r in runs if r["state"] not in ("SUCCEEDED", "DEAD", "CANCELLED", "SKIPPED")
                             and (r["attempt"] > 0 or r["state"] != "SCHEDULED"))
        say(f"{open_runs} runs not ended")
        if open_runs == 0:
            break
        time.sleep(15)
    analyse(jobs, witness)
    for p in list(execs.values()) + [runner]:
        p.send_signal(signal.SIGTERM)


def analyse(jobs, witness):
    starts, ends = {}, {}
    for line in open(witness):
        f = line.split()
        if len(f) < 5:
            continue
        key = (f[1], f[2], int(f[3]))
        if f[0] == "start":
            starts[key] = int(f[4])
        elif f[0] == "end":
            ends[key] = (int(f[4]), int(f[5]))
    states, lost, twice0, over = {}, 0, 0, 0
    for jid in jobs:
        for r in call("GET", f"/v1/jobs/{jid}/runs?limit=100")["items"]:
            if r["attempt"] == 0 and r["state"] in ("SCHEDULED", "CANCELLED"):
                continue
            states[r["state"]] = states.get(r["state"], 0) + 1
            if r["state"] not in ("SUCCEEDED", "DEAD", "SKIPPED", "CANCELLED"):
                lost += 1
            if r["attempt"] > r["maxAttempts"]:
                say("attempt past maxAttempts:", r)
    by_run = {}
    for (j, r, a), s in starts.items():
        by_run.setdefault((j, r), []).append((a, s, ends.get((j, r, a), (None, None))))
    for run, atts in by_run.items():
        ok = [a for a in atts if a[2][1] == 0]
        if len(ok) > 1:
            twice0 += 1
        atts.sort(key=lambda a: a[1])
        for x, y in zip(atts, atts[1:]):
            if x[2][0] is None or x[2][0] > y[1]:
                # x never wrote its end (killed) or ended after y started: overlapping unless it was killed earlier;
                # a killed attempt has no end: count it only when no later evidence shows it dead before y started.
                if x[2][0] is not None:
                    over += 1
                    say("overlap", run, x, y)
    say(f"runs by state {states}; not ended {lost}; binaries started {len(starts)}; exited 0 twice {twice0}; "
        f"overlapping attempts (both witnessed running) {over}")


if __name__ == "__main__":
    main()
