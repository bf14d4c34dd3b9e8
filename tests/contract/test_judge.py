# SPDX-License-Identifier: Apache-2.0
"""Protocol 4: the contract's judge outside the candidate's process, on CPU torch. A run with
--judge-dir writes the judged outputs; --judge-file judges them in another process; every way the
file can be wrong gets the answer an honest judge must give (invalid, or a mismatch), and the
honest file is judged ok. Needs HOTKERNEL_SOURCE_DIR and a Python with torch (this interpreter)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

TARGET = '''from _hotkernel_contract import Input, Target, main
import torch
TARGET = Target("pair", inputs=[Input("x", [16, 32]), Input("w", [32])], dtype="bf16", iters=3, device="cpu")
def fn(x, w):
    return x * w, x + 1
if __name__ == "__main__":
    main(TARGET, fn)
'''


def run(cwd, *args, env=None):
    proc = subprocess.run([sys.executable, "pair.py"] + list(args), cwd=cwd, capture_output=True, text=True,
                          timeout=300, env=env)
    lines = [l for l in proc.stdout.splitlines() if l.strip()]
    if proc.returncode != 0 or len(lines) != 1:
        raise AssertionError("pair.py %s: exit %d, stdout %r, stderr %s" % (" ".join(args), proc.returncode,
                                                                          proc.stdout, proc.stderr[-800:]))
    return json.loads(lines[0])


def main():
    source = os.environ["HOTKERNEL_SOURCE_DIR"]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(os.path.join(source, "resources", "contract", "_hotkernel_contract.py"), tmp)
        with open(os.path.join(tmp, "pair.py"), "w") as f:
            f.write(TARGET)
        judge_dir = os.path.join(tmp, "judge")
        os.mkdir(judge_dir)
        line = run(tmp, "--run", "2", "--judge-seed", "99", "--judge-dir", judge_dir)
        path = os.path.join(judge_dir, "run-2.judged")
        if not line["ok"] or line["judge_file"] != "run-2.judged" or not os.path.isfile(path):
            failures.append("the run wrote no judged outputs: %r" % line)
            return report(failures)
        with open(path, "rb") as f:
            good = f.read()
        head, payload = good.split(b"\n", 1)
        header = json.loads(head)
        if [(e["set"], e["index"], e["dtype"], e["shape"]) for e in header["outputs"]] != [
                (k, j, "bfloat16", [16, 32]) for k in range(3) for j in range(2)]:
            failures.append("unexpected header outputs: %r" % header["outputs"])

        def judged(data, seed="99", run_index="2"):
            with open(path, "wb") as f:
                f.write(data)
            return run(tmp, "--run", run_index, "--judge-seed", seed, "--judge-file", path)

        def with_header(**changes):
            h = dict(header, **changes)
            return json.dumps(h).encode() + b"\n" + payload

        def entry(i, **changes):
            outputs = [dict(e) for e in header["outputs"]]
            outputs[i].update(changes)
            return with_header(outputs=outputs)

        def shared(ipc, data=b""):
            outputs = [dict(e, ipc=ipc) if ipc is not None else dict(e) for e in header["outputs"]]
            return json.dumps(dict(header, transport="cuda_ipc", outputs=outputs)).encode() + b"\n" + data

        beyond = {"device": 0, "handle": "00" * 64, "storage_bytes": 512, "storage_offset": 0, "tensor_offset": 0,
                  "ref_counter": "00", "ref_counter_offset": 0, "event": None, "event_sync": False}
        zeros = head + b"\n" + bytes(len(payload))
        cases = [
            ("honest", good, {}, None, None),
            ("other seed", good, {"seed": "98"}, "invalid", "not this run's judge seed 98"),
            ("other run", good, {"run_index": "3"}, "invalid", "not run 3"),
            ("truncated", good[:-5], {}, "invalid", "(truncated)"),
            ("appended", good + b"\0", {}, "invalid", "(bytes appended)"),
            ("empty", b"", {}, "invalid", "no header line"),
            ("not json", b"{nope\n" + payload, {}, "invalid", "not JSON"),
            ("other inputs", with_header(judge_inputs_sha256="0" * 64), {}, "invalid", "not computed on the judged"),
            ("wrong dtype", entry(0, dtype="float16"), {}, "invalid", "holds a float16 output"),
            ("wrong shape", entry(1, shape=[32, 16]), {}, "invalid", "of shape [32, 16]"),
            ("bytes vs shape", entry(1, shape=[16, 31]), {}, "invalid", "says 1024 bytes"),
            ("missing set", json.dumps(dict(header, outputs=header["outputs"][:4])).encode() + b"\n" + payload[:4096],
             {}, "invalid", "holds rotated sets [0, 1]"),
            ("zeros", zeros, {}, "mismatch", "judged outside the candidate's process with judge seed 99"),
            # CUDA IPC headers (the GPU's transport): checked before any handle is opened.
            ("unknown transport", with_header(transport="pigeon"), {}, "invalid", "unknown transport 'pigeon'"),
            ("ipc, no handles", shared(None), {}, "invalid", "has no usable CUDA IPC entry"),
            ("ipc, bytes too", shared(beyond, payload), {}, "invalid", "(bytes appended)"),
            ("ipc, too small", shared(beyond), {}, "invalid", "do not lie in its shared allocation of 512 bytes"),
        ]
        for name, data, kw, kind, expected in cases:
            answer = judged(data, **kw)
            if kind is None:
                if not answer["judged_ok"] or answer["invalid"] or answer["mismatch"]:
                    failures.append("%s: %r" % (name, answer))
            elif answer["judged_ok"] or expected not in (answer[kind] or ""):
                failures.append("%s: expected %s containing %r, got %r" % (name, kind, expected, answer))
            print("%-16s %s" % (name, answer.get("invalid") or answer.get("mismatch") or "judged ok"))
        os.remove(path)
        answer = run(tmp, "--run", "2", "--judge-seed", "99", "--judge-file", path)
        if answer["judged_ok"] or "No such file" not in (answer["invalid"] or ""):
            failures.append("missing file: %r" % answer)
    stall_guard(source, failures)
    cuda_ipc(source, failures)
    return report(failures)


def stall_guard(source, failures):
    """A judge blocked in a call that nothing can interrupt (a forged CUDA IPC handle in the driver)
    answers invalid with its reason and ends itself once _Stall's limit passes; one that returns in
    time goes on and leaves no thread behind."""
    probe = ("import sys, threading, time\n"
             "sys.path.insert(0, sys.argv[1])\n"
             "import _hotkernel_contract as c\n"
             "with c._Stall(5, {'event': 'judged'}, 'quick'):\n"
             "    pass\n"
             "assert [t.name for t in threading.enumerate()] == ['MainThread'], threading.enumerate()\n"
             "with c._Stall(1, {'event': 'judged', 'judged_ok': False, 'invalid': None}, 'blocked in the driver'):\n"
             "    time.sleep(30)\n"
             "print('not reached')\n")
    proc = subprocess.run([sys.executable, "-c", probe, os.path.join(source, "resources", "contract")],
                          capture_output=True, text=True, timeout=60)
    lines = [l for l in proc.stdout.splitlines() if l.strip()]
    answer = json.loads(lines[0]) if len(lines) == 1 else None
    if proc.returncode != 3 or answer is None or answer.get("invalid") != "blocked in the driver":
        failures.append("stall guard: exit %d, stdout %r, stderr %s" % (proc.returncode, proc.stdout,
                                                                       proc.stderr[-400:]))
    print("%-16s %s" % ("stall guard", answer.get("invalid") if answer else proc.stdout))


def cuda_ipc(source, failures):
    """The GPU's transport: outputs shared by CUDA IPC from a live candidate worker, judged in
    another process; a handle that does not open is invalid; HOTKERNEL_JUDGE_TRANSPORT=file sends
    the bytes. Runs where torch sees a GPU (the GPU machine), else says why it skips."""
    import torch
    if not torch.cuda.is_available():
        print("SKIP cuda_ipc: torch sees no CUDA device here (it runs on the GPU machine)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(os.path.join(source, "resources", "contract", "_hotkernel_contract.py"), tmp)
        with open(os.path.join(tmp, "pair.py"), "w") as f:
            f.write(TARGET.replace('device="cpu"', 'device="cuda"'))
        judge_dir = os.path.join(tmp, "judge")
        os.mkdir(judge_dir)
        path = os.path.join(judge_dir, "run-2.judged")
        # The candidate stays alive while the judge opens its memory, as a verify's worker does.
        worker = subprocess.Popen([sys.executable, "pair.py", "--worker"], cwd=tmp, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        try:
            json.loads(worker.stdout.readline())  # ready
            worker.stdin.write(json.dumps({"op": "run", "run": 2, "judge_seed": 99, "judge_dir": judge_dir}) + "\n")
            worker.stdin.flush()
            line = json.loads(worker.stdout.readline())
            with open(path, "rb") as f:
                data = f.read()
            head = json.loads(data.split(b"\n", 1)[0])
            if not line.get("ok") or head.get("transport") != "cuda_ipc" or not data.endswith(b"\n") \
                    or not all(isinstance(e.get("ipc"), dict) for e in head["outputs"]):
                failures.append("cuda: no CUDA IPC header: line %r, header %r" % (line, head))
                return
            answer = run(tmp, "--run", "2", "--judge-seed", "99", "--judge-file", path)
            if not answer["judged_ok"] or answer["invalid"] or answer["mismatch"]:
                failures.append("cuda ipc honest: %r" % answer)
            print("%-16s %s" % ("cuda ipc honest", answer.get("invalid") or answer.get("mismatch") or "judged ok"))
            for e in head["outputs"]:
                e["ipc"]["handle"] = "ab" * (len(e["ipc"]["handle"]) // 2)
            with open(path, "wb") as f:
                f.write(json.dumps(head).encode() + b"\n")
            # The driver may refuse the forged handle or block on it for good; the judge answers
            # invalid either way (after _IPC_OPEN_LIMIT_S when it blocks, ending itself).
            proc = subprocess.run([sys.executable, "pair.py", "--run", "2", "--judge-seed", "99", "--judge-file",
                                   path], cwd=tmp, capture_output=True, text=True, timeout=120)
            lines = [l for l in proc.stdout.splitlines() if l.strip()]
            answer = json.loads(lines[0]) if len(lines) == 1 else {"judged_ok": None, "invalid": proc.stdout}
            if answer["judged_ok"] is not False or not any(
                    m in (answer["invalid"] or "") for m in ("cannot be opened by CUDA IPC", "did not open by CUDA IPC")):
                failures.append("cuda ipc, forged handle: exit %d, %r" % (proc.returncode, answer))
            print("%-16s %s" % ("cuda ipc forged", answer.get("invalid") or answer.get("mismatch") or "judged ok"))
        finally:
            worker.stdin.close()
            worker.wait(60)
        # A fresh run (a process per run) exits before the judge reads: its outputs go through the
        # file; so do a worker's when the user asks for the file.
        for name, env, args in [("cuda fresh", None, []),
                                ("cuda file asked", dict(os.environ, HOTKERNEL_JUDGE_TRANSPORT="file"), ["--worker"])]:
            os.remove(path) if os.path.exists(path) else None
            if args:
                proc = subprocess.run([sys.executable, "pair.py", "--worker"], cwd=tmp, env=env, text=True,
                                      capture_output=True, timeout=300,
                                      input=json.dumps({"op": "run", "run": 2, "judge_seed": 99,
                                                        "judge_dir": judge_dir}) + "\n")
                if proc.returncode != 0:
                    failures.append("%s: worker exit %d: %s" % (name, proc.returncode, proc.stderr[-400:]))
                    continue
            else:
                run(tmp, "--run", "2", "--judge-seed", "99", "--judge-dir", judge_dir)
            with open(path, "rb") as f:
                head = json.loads(f.readline())
            answer = run(tmp, "--run", "2", "--judge-seed", "99", "--judge-file", path)
            if head.get("transport") != "file" or not answer["judged_ok"]:
                failures.append("%s: header %r, answer %r" % (name, head.get("transport"), answer))
            print("%-16s %s" % (name, answer.get("invalid") or answer.get("mismatch") or "judged ok"))


def report(failures):
    for f in failures:
        print("FAIL " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
