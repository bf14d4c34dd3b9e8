# SPDX-License-Identifier: Apache-2.0
"""The CLI joins the directory's session (issue 23), with the real binary and CPU torch:
a first CLI call starts `hotkernel serve` and later calls reuse its workers; verify --record works
across the socket; --no-session and an environment that differs from the session's run alone and
say why; Ctrl-C in the CLI ends its job in the session and the job's processes; an idle server
exits; a second server for the same directory is refused.

Run from CTest (label mcp) with HOTKERNEL_BINARY set; exits non-zero when any case fails.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from caserunner import run_cases  # noqa: E402
from test_mcp_client import BINARY, alive, descendants  # noqa: E402

JOINED = re.compile(r"in the session of (hotkernel serve|the workbench window) \(pid (\d+)\)")


def env(**extra):
    """The session's environment: CTest turns sessions off for every other test."""
    e = dict(os.environ)
    e.pop("HOTKERNEL_NO_SESSION", None)
    e.setdefault("HOTKERNEL_PYTHON", "/usr/bin/python3")
    e["HOTKERNEL_SPARES"] = "0"  # two cores on CI; tst_spareworkers covers spares
    e.update(extra)
    return e


def cli(workdir, *args, environment=None, timeout=300):
    done = subprocess.run([BINARY, *args], cwd=workdir, env=environment or env(), stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=timeout)
    return done.returncode, done.stdout, done.stderr


def make_targets(workdir):
    with open(os.path.join(workdir, "slowfn.py"), "w") as f:
        f.write("import time\n\ndef slow(x):\n    time.sleep(0.2)\n    return x * 2\n")
    alone = env(HOTKERNEL_NO_SESSION="1")
    for args in (["new", "scale", "--from", "torch.nn.functional:relu", "--shape", "256", "--dtype", "fp32",
                  "--device", "cpu", "--iters", "2"],
                 ["new", "slow", "--from", "./slowfn.py:slow", "--shape", "64", "--dtype", "fp32", "--device",
                  "cpu", "--iters", "1"]):
        rc, _, err = cli(workdir, *args, environment=alone)
        assert rc == 0, err


def start_serve(workdir, *args):
    log = open(os.path.join(workdir, "serve.log"), "w+")
    proc = subprocess.Popen([BINARY, "serve", *args], cwd=workdir, env=env(), stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if "serving" in serve_log(workdir):
            return proc
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    raise AssertionError("hotkernel serve did not come up: " + serve_log(workdir))


def serve_log(workdir):
    with open(os.path.join(workdir, "serve.log")) as f:
        return f.read()


def stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise AssertionError("hotkernel serve did not end on SIGTERM within 30 s")


def end_started_serve(pid):
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 30
    while alive([pid]) and time.monotonic() < deadline:
        time.sleep(0.1)


def case_first_call_starts_a_session_later_calls_reuse_it(workdir):
    make_targets(workdir)
    rc, out, err = cli(workdir, "--json", "verify", "scale_baseline.py", "scale_candidate.py", "-n", "3")
    assert rc == 0, err
    joined = JOINED.search(err)
    assert joined and joined.group(1) == "hotkernel serve", "the first call should start and join a session: " + err
    pid = int(joined.group(2))
    try:
        assert alive([pid]), "the session must outlive the call that started it"
        first = json.loads(out)
        assert first["workers_reused"] == {"baseline": False, "candidate": False}, first["workers_reused"]
        rc, out, err = cli(workdir, "--json", "verify", "scale_baseline.py", "scale_candidate.py", "-n", "3",
                           "--record", "--note", "relu against itself", "--who", "person: the test")
        assert rc == 0, err
        assert JOINED.search(err) and int(JOINED.search(err).group(2)) == pid, err
        second = json.loads(out)
        # The same session: its baseline worker was kept from the first call.
        assert second["workers_reused"]["baseline"] is True, second["workers_reused"]
        # Recorded in the session that ran the verify: it vouches for a result it made.
        assert second["record"] is not None, out
        assert os.listdir(os.path.join(workdir, "results", "scale")), "nothing recorded"
        # A --json result of a joined verify, recorded by a later call: the session vouches for it.
        rc, out, err = cli(workdir, "--json", "verify", "scale_baseline.py", "scale_candidate.py", "-n", "3")
        assert rc == 0, err
        with open(os.path.join(workdir, "v.json"), "w") as f:
            f.write(out)
        rc, _, err = cli(workdir, "--no-session", "record", "scale", "v.json", "--note", "n", "--who", "person: t")
        assert rc != 0 and "not produced by a verify in this hotkernel session" in err, err
        rc, _, err = cli(workdir, "record", "scale", "v.json", "--note", "n", "--who", "person: the test")
        assert rc == 0, err
        rc, _, err = cli(workdir, "record", "scale", "v.json", "--note", "n", "--who", "person: the test")
        assert rc != 0, "a verify is recorded at most once: " + err
        assert len(os.listdir(os.path.join(workdir, "results", "scale"))) == 2, os.listdir(
            os.path.join(workdir, "results", "scale"))
        # --no-session: this process alone, nothing kept.
        rc, out, err = cli(workdir, "--json", "--no-session", "verify", "scale_baseline.py", "scale_candidate.py",
                           "-n", "3")
        assert rc == 0, err
        assert not JOINED.search(err), err
        assert json.loads(out)["workers_reused"]["baseline"] is False
    finally:
        end_started_serve(pid)
    assert not alive([pid]), "hotkernel serve did not end on SIGTERM"


def case_other_environment_runs_alone(workdir):
    make_targets(workdir)
    serve = start_serve(workdir)
    try:
        # The same interpreter by another path: a different HOTKERNEL_PYTHON all the same.
        other = os.path.join(workdir, "python-link")
        os.symlink("/usr/bin/python3", other)
        rc, out, err = cli(workdir, "--json", "verify", "scale_baseline.py", "scale_candidate.py", "-n", "3",
                           environment=env(HOTKERNEL_PYTHON=other))
        assert rc == 0, err
        assert not JOINED.search(err), err
        assert "HOTKERNEL_PYTHON=/usr/bin/python3" in err and other in err, err
        assert "runs alone" in err, err
        assert json.loads(out)["verdict"] in ("faster", "slower", "inconclusive"), out
        # Another build of hotkernel (here: a copy) never joins the session of this one.
        copy = os.path.join(workdir, "hotkernel-copy")
        shutil.copy2(BINARY, copy)
        done = subprocess.run([copy, "--json", "gpu-info"], cwd=workdir, env=env(), stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=120)
        assert not JOINED.search(done.stderr), done.stderr
        assert "runs alone" in done.stderr and "rebuilt" in done.stderr, done.stderr
    finally:
        stop(serve)


def case_ctrl_c_ends_the_job_in_the_session(workdir):
    make_targets(workdir)
    serve = start_serve(workdir)
    try:
        call = subprocess.Popen([BINARY, "verify", "slow_baseline.py", "slow_candidate.py", "-n", "1000",
                                 "--timeout", "600"], cwd=workdir, env=env(), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        workers = set()
        while time.monotonic() < deadline and not workers:
            workers = {p for p in descendants(serve.pid)
                       if b"slow_" in open("/proc/%d/cmdline" % p, "rb").read()} if serve.poll() is None else set()
            time.sleep(0.2)
        assert workers, "the verify started no worker in the session: " + serve_log(workdir)
        time.sleep(1.0)
        call.send_signal(signal.SIGINT)
        _, err = call.communicate(timeout=60)
        assert call.returncode == 130, "exit status %s: %s" % (call.returncode, err)
        assert JOINED.search(err), err
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (alive(workers) or "were ended" not in serve_log(workdir)):
            time.sleep(0.2)
        assert "its 1 running job(s) were ended" in serve_log(workdir), serve_log(workdir)
        assert not alive(workers), "the cancelled verify's workers still run: %s" % alive(workers)
        assert serve.poll() is None, "the session must survive its client's Ctrl-C"
    finally:
        stop(serve)


def case_idle_server_exits_and_a_second_is_refused(workdir):
    serve = start_serve(workdir, "--idle-minutes", "0.05")
    try:
        second = subprocess.run([BINARY, "serve"], cwd=workdir, env=env(), stdin=subprocess.DEVNULL,
                                capture_output=True, text=True, timeout=60)
        assert second.returncode == 1, second.stderr
        assert "already owns" in second.stderr, second.stderr
        serve.wait(60)
        assert serve.returncode == 0, serve_log(workdir)
        assert "no client for" in serve_log(workdir), serve_log(workdir)
    finally:
        stop(serve)
    rc, _, err = cli(workdir, "serve", "--idle-minutes", "soon")
    assert rc == 2 and "--idle-minutes" in err, err


CASES = [(name, fn) for name, fn in sorted(globals().items()) if name.startswith("case_")]


def main():
    run_cases(CASES, "hk-cli-session-")


if __name__ == "__main__":
    main()
