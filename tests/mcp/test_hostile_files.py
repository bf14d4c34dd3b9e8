# SPDX-License-Identifier: Apache-2.0
"""Files a script or an argument names that are not what they claim (issue 39), against the real
binary: a FIFO, /dev/zero, a link to it, a directory, a socket, an oversize file given to `record`
from the CLI and over MCP (the official Python SDK); a candidate whose fn puts a FIFO or a link to
/dev/zero where its own file was, verified over MCP (the session answers ping within a second all
along) and through `hotkernel serve` while another CLI call joins the busy session.

Run from CTest (label mcp) with HOTKERNEL_BINARY set; exits non-zero when any case fails.
"""
import json
import os
import socket
import subprocess
import sys
import time

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from caserunner import run_cases  # noqa: E402
from test_cli_session import JOINED, cli, end_started_serve, env  # noqa: E402
from test_mcp_client import BINARY, EVENT_LIMIT, server_env, text_of  # noqa: E402

# A ping is answered within this (the bar: the session never stops answering).
PING_LIMIT = 1.0
JSON_LIMIT = 64 * 1024 * 1024  # BoundedFile::kJsonLimit


def hostile_files(workdir):
    """(what, path, words the refusal must hold) for each hostile kind, made in workdir."""
    fifo = os.path.join(workdir, "result.fifo")
    os.mkfifo(fifo)
    zero_link = os.path.join(workdir, "zero.json")
    os.symlink("/dev/zero", zero_link)
    folder = os.path.join(workdir, "folder.json")
    os.mkdir(folder)
    sock_path = os.path.join(workdir, "result.sock")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(sock_path)
    sock.listen(1)
    big = os.path.join(workdir, "big.json")
    with open(big, "wb") as f:  # sparse: costs no disk
        f.truncate(JSON_LIMIT + 1)
    fifo_link = os.path.join(workdir, "fifo-link.json")
    os.symlink(fifo, fifo_link)
    return sock, [
        ("a FIFO", fifo, "is a FIFO"),
        ("/dev/zero", "/dev/zero", "is a character device"),
        ("a link to /dev/zero", zero_link, "is a character device"),
        ("a directory", folder, "is a directory"),
        ("a socket", sock_path, "is a socket"),
        ("an oversize file", big, "is larger than 64 MiB"),
        ("a link to a FIFO", fifo_link, "is a FIFO"),
    ]


def make_scale(workdir):
    rc, _, err = cli(workdir, "new", "scale", "--from", "torch.nn.functional:relu", "--shape", "256", "--dtype",
                     "fp32", "--device", "cpu", "--iters", "2", environment=env(HOTKERNEL_NO_SESSION="1"))
    assert rc == 0, err


def make_hostile_candidate(workdir, name, replace):
    """scale_<name>_candidate.py: its fn, on the first call, moves its own file away and puts
    `replace` (Python run with __file__ bound) there."""
    with open(os.path.join(workdir, "scale_candidate.py")) as f:
        text = f.read()
    assert "if __name__ ==" in text
    text = text.replace("if __name__ ==", (
        "_right = fn\n\n\ndef fn(*args):\n"
        "    import os\n"
        "    if not os.path.exists(__file__ + '.moved'):\n"
        "        os.rename(__file__, __file__ + '.moved')\n"
        f"        {replace}\n"
        "    return _right(*args)\n\n\nif __name__ =="))
    path = os.path.join(workdir, f"scale_{name}_candidate.py")
    with open(path, "w") as f:
        f.write(text)
    return path


HOSTILE_CANDIDATES = [("fifo", "os.mkfifo(__file__)"), ("zero", "os.symlink('/dev/zero', __file__)")]


def case_record_from_the_cli_refuses_each_hostile_file(workdir):
    sock, files = hostile_files(workdir)
    with sock:
        for what, path, words in files:
            start = time.monotonic()
            rc, _, err = cli(workdir, "--no-session", "record", "scale", path, "--note", "n", "--who", "w",
                             environment=env(HOTKERNEL_NO_SESSION="1"), timeout=EVENT_LIMIT)
            assert rc != 0, f"{what}: recorded"
            assert words in err and path in err, f"{what}: {err}"
            assert time.monotonic() - start < 30, f"{what}: took {time.monotonic() - start:.0f}s"
    assert not os.path.exists(os.path.join(workdir, "results")), "nothing may be recorded"


async def case_record_over_mcp_refuses_each_hostile_file(workdir):
    sock, files = hostile_files(workdir)
    params = StdioServerParameters(command=BINARY, args=["mcp", "--headless"], cwd=workdir,
                                   env={"HOTKERNEL_PYTHON": server_env()["HOTKERNEL_PYTHON"], "HOTKERNEL_SPARES": "0"})
    with sock:
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                for what, path, words in files:
                    with anyio.fail_after(EVENT_LIMIT):
                        result = await session.call_tool("record", {"target": "scale", "verify_result": path,
                                                                    "note": "n", "who": "w"})
                    assert result.is_error, f"{what}: {text_of(result)}"
                    assert words in text_of(result), f"{what}: {text_of(result)}"
                    with anyio.fail_after(PING_LIMIT):
                        await session.send_ping()
    assert not os.path.exists(os.path.join(workdir, "results")), "nothing may be recorded"


async def verify_hostile_candidates(session, workdir):
    """Verifies each hostile candidate while pinging the session: every ping is answered within
    PING_LIMIT, the verdict is invalid because the file changed (or, where the candidate is confined,
    issue 41, the swap is refused and its fn raises)."""
    for name, replace in HOSTILE_CANDIDATES:
        path = make_hostile_candidate(workdir, name, replace)
        outcome = {}

        async def verify():
            outcome["result"] = await session.call_tool(
                "verify", {"baseline": "scale_baseline.py", "candidate": os.path.basename(path), "n": 3})

        pings = 0
        async with anyio.create_task_group() as group:
            group.start_soon(verify)
            with anyio.fail_after(EVENT_LIMIT):
                while "result" not in outcome:
                    with anyio.fail_after(PING_LIMIT):
                        await session.send_ping()
                    pings += 1
                    await anyio.sleep(0.05)
        result = outcome["result"]
        assert not result.is_error, text_of(result)
        assert pings > 0
        confined = str(result.structured_content.get("confinement", {}).get("candidate", ""))
        if confined.startswith("landlock"):
            # Issue 41: a confined candidate may not swap its own file; its fn raised instead.
            assert not os.path.exists(path + ".moved"), f"{name}: a confined candidate renamed its file"
            assert result.structured_content["verdict"] in ("incorrect", "invalid"), text_of(result)
            os.remove(path)
            continue
        assert os.path.exists(path + ".moved"), f"{name}: the candidate's fn never ran"
        assert result.structured_content["verdict"] == "invalid", text_of(result)
        assert "changed on disk" in result.structured_content["reason"], text_of(result)
        os.remove(path)
        os.remove(path + ".moved")


async def case_hostile_candidate_over_mcp_keeps_the_session_answering(workdir):
    make_scale(workdir)
    params = StdioServerParameters(command=BINARY, args=["mcp", "--headless"], cwd=workdir,
                                   env={"HOTKERNEL_PYTHON": server_env()["HOTKERNEL_PYTHON"], "HOTKERNEL_SPARES": "0"})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await verify_hostile_candidates(session, workdir)


async def case_hostile_candidate_in_an_attached_window_keeps_it_answering(workdir):
    """The same through a workbench window (offscreen) that the SDK's `hotkernel mcp` attaches to."""
    make_scale(workdir)
    log_path = os.path.join(workdir, "window.log")
    window_env = server_env()
    window_env.update({"QT_QPA_PLATFORM": "offscreen", "HOTKERNEL_SPARES": "0"})
    with open(log_path, "wb") as log:
        window = subprocess.Popen([BINARY], cwd=workdir, env=window_env, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=log)
    try:
        deadline = time.monotonic() + EVENT_LIMIT
        while True:
            with open(log_path, "rb") as f:
                if b"agents attach to this session at" in f.read():
                    break
            assert window.poll() is None and time.monotonic() < deadline, "the window did not come up"
            await anyio.sleep(0.05)
        params = StdioServerParameters(command=BINARY, args=["mcp"], cwd=workdir,
                                       env={"HOTKERNEL_PYTHON": server_env()["HOTKERNEL_PYTHON"]})
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await verify_hostile_candidates(session, workdir)
        assert window.poll() is None, "the window must stay"
    finally:
        window.terminate()
        try:
            window.wait(timeout=30)
        except subprocess.TimeoutExpired:
            window.kill()
            window.wait()


def case_hostile_candidate_through_serve_leaves_it_answering(workdir):
    make_scale(workdir)
    for name, replace in HOSTILE_CANDIDATES:
        path = make_hostile_candidate(workdir, name, replace)
        verify = subprocess.Popen([BINARY, "--json", "verify", "scale_baseline.py", os.path.basename(path), "-n", "3"],
                                  cwd=workdir, env=env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        pid = None
        try:
            # Once the candidate has replaced its file, another CLI call joins the busy session and
            # is answered there (a refusal of /dev/zero costs nothing), not after a 10 s wait alone.
            deadline = time.monotonic() + EVENT_LIMIT
            # Confined (issue 41), the swap is refused and this waits for the verify's end: the call
            # below then joins the session the verify left running.
            while not os.path.exists(path + ".moved") and verify.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            start = time.monotonic()
            rc, _, err = cli(workdir, "record", "scale", "/dev/zero", "--note", "n", "--who", "w", timeout=EVENT_LIMIT)
            took = time.monotonic() - start
            assert rc != 0 and "is a character device" in err, err
            joined = JOINED.search(err)
            assert joined and joined.group(1) == "hotkernel serve", "the call did not join the session: " + err
            pid = int(joined.group(2))
            assert took < 8, f"the call took {took:.1f}s: the session did not answer"
            out, verr = verify.communicate(timeout=EVENT_LIMIT)
            result = json.loads(out)
            if str(result.get("confinement", {}).get("candidate", "")).startswith("landlock"):
                # Issue 41: the confined candidate's swap was refused; its fn raised instead.
                assert result["verdict"] in ("incorrect", "invalid"), out + verr
                assert not os.path.exists(path + ".moved"), out
            else:
                assert result["verdict"] == "invalid", out + verr
                assert "changed on disk" in out, out
        finally:
            if verify.poll() is None:
                verify.kill()
            if pid:
                end_started_serve(pid)
            for leftover in (path, path + ".moved"):
                if os.path.lexists(leftover):
                    os.remove(leftover)


CASES = [(name, fn) for name, fn in sorted(globals().items()) if name.startswith("case_")]


def main():
    run_cases(CASES, "hk-hostile-files-")


if __name__ == "__main__":
    main()
