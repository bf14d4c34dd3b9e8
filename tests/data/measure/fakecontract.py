# SPDX-License-Identifier: Apache-2.0
"""A stand-in for a hotkernel target script, for testing the runners without torch.

Each fake_<behaviour>.py calls main(__file__); the behaviour comes from the file name. It speaks
the protocol of docs/contract.md: `--run I` prints one result line, `--worker` answers requests;
with a judge directory a run writes a judged-outputs file of one tiny fp32 output, and a judge request
answers judged_ok unless the file's header says "fake_values": "wrong" (fake_judgedwrong writes that;
fake_nojudged writes no file). GPU-like lines: fake_h200* (timer graph, or events when a run asks for
it; fake_h200nocapture is always events, as a block that cannot be captured; fake_h200graphonly
ignores the request, as an old contract would).
Environment: HOTKERNEL_FAKE_PIDFILE (write the process group id there), HOTKERNEL_FAKE_CONTRACT_SHA256
(the contract hash to report), HOTKERNEL_FAKE_SCALE (multiplies ms).
"""
import base64
import json
import os
import random
import subprocess
import sys
import time

BASE_MS = 0.035
# A block this short is timed 100 times by the contract on a CPU (its CPU_MAX_REPLAYS).
CPU_REPLAYS = 100


def _write_pid():
    path = os.environ.get("HOTKERNEL_FAKE_PIDFILE")
    if path:
        # The group, not the pid: hotkernel-supervise leads it, with this process below it.
        with open(path, "w") as f:
            f.write(str(os.getpgid(0)))


def _hang():
    _write_pid()
    # A grandchild in the same process group: a timeout must end it too.
    subprocess.Popen(["sleep", "300"])
    time.sleep(300)


def result(behaviour, run, timer=None):
    rng = random.Random(1000 + run)
    scale = float(os.environ.get("HOTKERNEL_FAKE_SCALE", "1"))
    if behaviour == "slow":
        scale *= 1.10
    elif behaviour == "fast":
        scale /= 1.10
    ms = BASE_MS * scale * (1 + 0.003 * rng.gauss(0, 1))
    line = {
        "protocol": 5, "ok": True, "ms": ms, "timer": "wall", "samples_ms": [ms] * CPU_REPLAYS, "run": run,
        "target": "fake", "shape": [4, 8], "dtype": "fp32", "seed": 0, "iters": 10, "rotate": ["x"],
        "rotate_k": 2, "flops": 64, "bytes": 256, "max_err": 0.0, "device": "cpu", "device_name": "fake cpu",
        "l2_bytes": 1024, "target_sha256": "a" * 64,
        "contract_sha256": os.environ.get("HOTKERNEL_FAKE_CONTRACT_SHA256", "c" * 64),
        "torch": None, "triton": None, "cuda": None, "python": sys.version.split()[0],
    }
    if behaviour.startswith("h200"):
        # A GPU line moving 64 MiB per call on an H200, for the physical floor (issue 25): 35 us is
        # 1.9 TB/s, possible; h200timer is a patched timer reporting 100x less, 192 TB/s.
        line.update(device="cuda", device_name="NVIDIA H200", dtype="bf16", bytes=64 * 1024 * 1024, flops=None,
                    timer="graph")
    if behaviour == "h200nocapture":
        # A candidate whose block cannot be captured: the contract times it with events.
        line.update(timer="events", timer_note="CUDA graph capture failed (RuntimeError: operation not "
                                               "permitted when stream is capturing); timed events around a plain block")
    if timer == "events" and line["timer"] == "graph" and behaviour != "h200graphonly":
        line.update(timer="events", timer_note="events timer around a plain block, asked for by verify")
    if behaviour == "h200timer":
        line.update(ms=ms / 100, samples_ms=[ms / 100] * 3)
    if behaviour == "untrusted":
        # What the contract reports when its integrity check found a patched timer (issue 19).
        line.update(ms=ms / 100, samples_ms=[ms / 100] * 3,
                    invalid="patched during the run: time.perf_counter (the timers and the contract must stay "
                            "the ones the contract started with)")
    if behaviour == "okfalse":
        line.update(ok=False, mismatch="max abs err 0.5 > atol 0.01 + rtol * |ref|", max_err=0.5)
    if behaviour == "shape":
        line["shape"] = [4, 16]
    return line


def write_judged(behaviour, run, judge_seed, judge_dir):
    if not judge_dir or behaviour == "nojudged":
        return
    header = {"format": "hotkernel-judged-outputs", "protocol": 5, "run": run, "judge_seed": judge_seed,
              "judge_inputs_sha256": None, "target_sha256": "a" * 64,
              "outputs": [{"set": 0, "index": 0, "dtype": "float32", "shape": [2], "bytes": 8}],
              "fake_values": "wrong" if behaviour == "judgedwrong" else "right"}
    with open(os.path.join(judge_dir, "run-%d.judged" % run), "wb") as f:
        f.write(json.dumps(header).encode() + b"\n" + bytes(8))


def judge(run, judge_seed, path):
    with open(path, "rb") as f:
        header = json.loads(f.readline())
    answer = {"protocol": 5, "event": "judged", "run": run, "judge_seed": judge_seed, "judged_ok": True,
              "max_err": 0.0, "mismatch": None, "invalid": None}
    if header.get("fake_values") == "wrong":
        answer.update(judged_ok=False, max_err=2.0,
                      mismatch="max abs err 2 > atol 0.0001 + rtol 0.0001 * |ref| (rotated set 0, judged outside "
                               "the candidate's process)")
    return answer


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def _bracket(run, line):
    """The core's clock around the timed replays (protocol 5): armed, wait for go, spend the time the
    line reports, done."""
    emit({"event": "armed", "run": run})
    go = json.loads(sys.stdin.readline())
    assert go == {"op": "go", "run": run}, go
    time.sleep(sum(line["samples_ms"]) * line["iters"] / 1e3)  # what the samples claim took
    emit({"event": "done", "run": run})


def run_once(behaviour, run, judge_seed=None, judge_dir=None, timer=None, bracket=False):
    if behaviour == "exit":
        sys.stderr.write("Traceback: something broke\n")
        sys.exit(3)
    if behaviour == "noline":
        sys.stderr.write("printed nothing on stdout\n")
        return
    if behaviour == "malformed":
        sys.stdout.write('{"protocol": 5, "ok": tru\n')
        # Flushed, as the contract's emit() does: a pipe is block-buffered unless PYTHONUNBUFFERED is
        # set (as on a long-lived machine, not in a fresh root), and a worker's line left in the
        # buffer never reaches hotkernel (issue 44: the test waited for it until its limit).
        sys.stdout.flush()
        return
    if behaviour == "hang":
        _hang()
    if behaviour == "crash" and run == 2:
        sys.stderr.write("about to crash\n")
        sys.stderr.flush()
        os.kill(os.getpid(), 9)
    if behaviour == "garbage":
        sys.stdout.write("hello, this is not json\n")
        sys.stdout.flush()
        return
    line = result(behaviour, run, timer)
    if bracket:
        _bracket(run, line)
    if judge_seed == "late":
        # The real contract asks for the seed after timing; so does this double (docs/contract.md).
        emit({"event": "judge_seed", "run": run})
        judge_seed = json.loads(sys.stdin.readline())["judge_seed"]
    if behaviour == "witnessed":  # as the tracer does in witness mode: a window, then the line
        with open(os.environ["HOTKERNEL_TRACE_FILE"], "a") as f:
            f.write(_witness_window(run))
    if behaviour == "forgedtrace":  # a worker posing as the remote supervisor's trace stream
        forged = base64.b64encode(_witness_window(run).encode()).decode()
        emit({"hotkernel_trace": forged, "token": "a-guess"})
    if line["ok"]:
        write_judged(behaviour, run, judge_seed, judge_dir)
    emit(line)


_trace_seq = [0]  # the tracer's record numbers (format 2): one more per record, per process


def _record(fields):
    fields.update({"pid": os.getpid(), "seq": _trace_seq[0]})
    _trace_seq[0] += 1
    return json.dumps(fields) + "\n"


def _witness_window(run):
    """One witness window with two kernels of 1000 + run ns each, as the tracer writes it."""
    begin = _trace_seq[0]
    text = _record({"type": "witness", "phase": "begin"})
    for i in range(2):
        text += _record({"type": "kernel", "name": "k", "start_ns": 10000 * i,
                         "end_ns": 10000 * i + 1000 + run, "graph_id": 7})
    return text + _record({"type": "witness", "phase": "end", "kernels": 2, "dropped": 0, "begin_seq": begin})


def _event(what):
    """Appends what happened to HOTKERNEL_FAKE_EVENTS, in the order it happened across both workers
    (tst_verifyfake's overlapped start)."""
    path = os.environ.get("HOTKERNEL_FAKE_EVENTS")
    if path:
        with open(path, "a") as f:
            f.write(what + "\n")


def worker(behaviour):
    _write_pid()
    if behaviour.startswith("slowstart"):  # a candidate that takes its time to load
        time.sleep(1.5)
    if behaviour == "badready":
        sys.stdout.write("loading...\n")
        sys.stdout.flush()
        time.sleep(300)
    if behaviour == "hangstart":
        _hang()
    if behaviour == "startexit":
        sys.stderr.write("ImportError: No module named 'triton'\n")
        sys.exit(5)
    _event("%s ready" % behaviour)
    ready = {"event": "ready", "target": "fake", "protocol": 5}
    if os.environ.get("HOTKERNEL_FAKE_SOURCES"):  # the "sources" field, as JSON (tst_workerpool)
        ready["sources"] = json.loads(os.environ["HOTKERNEL_FAKE_SOURCES"])
    emit(ready)
    for raw in sys.stdin:
        request = json.loads(raw)
        if request.get("op") == "quit":
            return
        if behaviour == "exit":
            sys.exit(3)
        if request.get("op") == "judge":
            emit(judge(int(request["run"]), request["judge_seed"], request["judge_file"]))
            continue
        _event("%s run %d" % (behaviour, int(request["run"])))
        run_once(behaviour, int(request["run"]), request.get("judge_seed"), request.get("judge_dir"),
                 request.get("timer"), bool(request.get("bracket")))


def main(path):
    behaviour = os.path.basename(path)[len("fake_"):-len(".py")]
    args = sys.argv[1:]
    if "--worker" in args:
        worker(behaviour)
        return
    run = int(args[args.index("--run") + 1]) if "--run" in args else 0

    def value(flag):
        return args[args.index(flag) + 1] if flag in args else None
    judge_seed = value("--judge-seed")
    if judge_seed is not None and judge_seed != "late":  # "late": asked on stdin, as the contract does
        judge_seed = int(judge_seed)
    _write_pid()
    if value("--judge-file") is not None:
        emit(judge(run, judge_seed, value("--judge-file")))
        return
    run_once(behaviour, run, judge_seed, value("--judge-dir"), value("--timer"), "--bracket" in args)
