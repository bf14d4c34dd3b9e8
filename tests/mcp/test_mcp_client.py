# SPDX-License-Identifier: Apache-2.0
"""End to end: the real `hotkernel mcp` child process driven by the official MCP Python SDK
(ClientSession over stdio_client), plus the bad-input cases over a raw pipe.

Run from CTest (label mcp) with HOTKERNEL_BINARY set; exits non-zero when any case fails.
The flow cases (new_target -> bench -> verify -> record, cancelled verify, stdin closed
mid-verify) need CPU torch: HOTKERNEL_PYTHON=/usr/bin/python3.
"""
import hashlib
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

import anyio
from jsonschema import Draft7Validator, Draft202012Validator, FormatChecker
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from caserunner import run_cases

BINARY = os.path.abspath(os.environ["HOTKERNEL_BINARY"]) if "HOTKERNEL_BINARY" in os.environ else "hotkernel"
TOOLS = ["gpu_info", "roofline", "torch_trace", "profile", "top_kernels", "disasm", "bench", "verify", "record",
         "new_target"]


# How long to wait for something that ends on an event (a reply, an exit). Only a broken build
# meets it: far beyond what a loaded 2-core machine needs, so no case fails for being slow.
EVENT_LIMIT = 300.0


def server_env():
    env = dict(os.environ)
    env.setdefault("HOTKERNEL_PYTHON", "/usr/bin/python3")
    return env


# ---------------------------------------------------------------- raw pipe client

class RawServer:
    """`hotkernel mcp` over pipes, speaking JSON lines by hand (for what an SDK refuses to send)."""

    def __init__(self, workdir, args=("mcp",), env=None):
        self.proc = subprocess.Popen([BINARY, *args], cwd=workdir, env=env or server_env(), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.buffer = b""
        self.messages = []

    def send_line(self, data: bytes):
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def send(self, message):
        self.send_line(json.dumps(message).encode())

    def request(self, id_, method, params=None):
        message = {"jsonrpc": "2.0", "id": id_, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def _read_some(self, timeout):
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return False
        chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
        if not chunk:
            return False
        self.buffer += chunk
        while b"\n" in self.buffer:
            line, self.buffer = self.buffer.split(b"\n", 1)
            self.messages.append(json.loads(line))  # every stdout line must be JSON
        return True

    def wait_for(self, predicate, timeout=EVENT_LIMIT):
        deadline = time.monotonic() + timeout
        while True:
            for m in self.messages:
                if predicate(m):
                    return m
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out; got {self.messages[-5:]}")
            if not self._read_some(min(left, 0.5)) and self.proc.poll() is not None:
                raise AssertionError(f"the server exited with status {self.proc.returncode}; got {self.messages[-3:]}")

    def reply(self, id_, timeout=EVENT_LIMIT):
        return self.wait_for(lambda m: m.get("id") == id_ and "method" not in m, timeout)

    def initialize(self):
        self.request(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                       "clientInfo": {"name": "raw-test", "version": "1"}})
        reply = self.reply(0)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return reply

    def close_and_wait(self, timeout=EVENT_LIMIT):
        self.proc.stdin.close()
        start = time.monotonic()
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise AssertionError(f"server still running {timeout}s after stdin closed")
        return rc, time.monotonic() - start

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def descendants(pid):
    """Every live process below pid (children's children too), from /proc."""
    parents = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if fields[0] != "Z":
                parents[int(entry)] = int(fields[1])
        except OSError:
            continue
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, pp in parents.items() if pp in frontier} - found
        found |= frontier
    return found


def wait_for_children(server, timeout=EVENT_LIMIT):
    """The verify's processes, once it has started some (progress can come before the spawn)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        children = descendants(server.proc.pid)
        if children:
            time.sleep(0.5)  # let the worker start its own children too
            return descendants(server.proc.pid)
        if server.proc.poll() is not None:
            break
        time.sleep(0.05)
    raise AssertionError(f"verify started no process; messages: {server.messages[-3:]}")


def alive(pids):
    living = set()
    for p in pids:
        try:
            with open(f"/proc/{p}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                    living.add(p)
        except OSError:
            pass
    return living


# ---------------------------------------------------------------- SDK helpers

def sdk_params(workdir):
    return StdioServerParameters(command=BINARY, args=["mcp"], cwd=workdir,
                                 env={"HOTKERNEL_PYTHON": server_env()["HOTKERNEL_PYTHON"]})


def make_target(workdir, name="scale"):
    """new_target arguments for a tiny CPU target (torch relu on 256 floats)."""
    return {"target": name, "from": "torch.nn.functional:relu", "shape": "256", "dtype": "fp32", "device": "cpu",
            "iters": 2}


def text_of(result):
    return " ".join(getattr(c, "text", "") for c in result.content)


# ---------------------------------------------------------------- cases

async def case_initialize_and_list_tools(workdir):
    async with stdio_client(sdk_params(workdir)) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.protocol_version == "2025-11-25", init.protocol_version
            assert init.server_info.name == "hotkernel"
            assert "skills/kernel-speedrun/SKILL.md" in (init.instructions or "")
            listed = await session.list_tools()
            names = [t.name for t in listed.tools]
            assert names == TOOLS, names
            for tool in listed.tools:
                assert tool.description, tool.name
                Draft202012Validator.check_schema(tool.input_schema)
                assert tool.input_schema.get("type") == "object", tool.name
                for prop, schema in tool.input_schema.get("properties", {}).items():
                    assert schema.get("description"), f"{tool.name}.{prop} has no description"
                assert tool.output_schema is not None, tool.name
                Draft202012Validator.check_schema(tool.output_schema)
                assert tool.output_schema.get("type") == "object", tool.name
            await session.send_ping()


async def case_cheap_tool_and_resources(workdir):
    os.makedirs(os.path.join(workdir, "results", "demo"), exist_ok=True)
    with open(os.path.join(workdir, "results", "demo", "r.json"), "w") as f:
        f.write('{"ok": true}\n')
    async with stdio_client(sdk_params(workdir)) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("gpu_info", {})
            # Without a GPU gpu_info may fail, but as a tool error with a message, never a protocol error.
            assert text_of(result).strip(), "empty text content"
            if not result.is_error:
                assert isinstance(result.structured_content, dict)
            bad = await session.call_tool("bench", {"script": 42})
            assert bad.is_error, "wrong argument types must be an isError result"
            assert "script" in text_of(bad), text_of(bad)
            resources = await session.list_resources()
            uris = [str(r.uri) for r in resources.resources]
            assert "hotkernel://results/demo/r.json" in uris, uris
            read_back = await session.read_resource("hotkernel://results/demo/r.json")
            assert read_back.contents[0].text == '{"ok": true}\n'


def case_bad_input_raw(workdir):
    server = RawServer(workdir)
    try:
        server.initialize()
        server.send_line(b"{this is not json")
        e = server.wait_for(lambda m: m.get("error", {}).get("code") == -32700)
        assert e["id"] is None
        server.send_line(b"")  # ignored
        server.send_line(b"   ")
        server.request(1, "no/such/method")
        assert server.reply(1)["error"]["code"] == -32601
        server.request(2, "tools/call", {"name": "no_such_tool", "arguments": {}})
        assert server.reply(2)["error"]["code"] == -32602
        server.request(3, "tools/call", {"name": "bench", "arguments": "not an object"})
        assert server.reply(3)["error"]["code"] == -32602
        server.request(4, "tools/call", {"name": "verify", "arguments": {"baseline": 1, "candidate": ["x"], "n": "many"}})
        r4 = server.reply(4)
        assert r4["result"]["isError"] is True, r4
        # 5 MB of garbage: a parse error, then business as usual.
        before = len(server.messages)
        server.send_line(b"{" + b"x" * (5 * 1024 * 1024))
        e = server.wait_for(lambda m: m.get("error", {}).get("code") == -32700 and server.messages.index(m) >= before)
        # A 5 MB valid request (a big ignored field) gets a proper answer.
        server.send({"jsonrpc": "2.0", "id": 5, "method": "ping", "params": {"_meta": {"pad": "y" * (5 * 1024 * 1024)}}})
        assert server.reply(5)["result"] == {}
        server.request(6, "ping")
        assert server.reply(6)["result"] == {}
        rc, seconds = server.close_and_wait()
        assert rc == 0, f"exit code {rc}"
        assert seconds < 2.0, f"took {seconds:.2f}s to exit"
        stray = server.proc.stdout.read()
        assert stray == b"", f"unexpected output after close: {stray[:200]!r}"
    finally:
        server.kill()


def case_stdin_closed_promptly(workdir):
    server = RawServer(workdir)
    try:
        server.initialize()
        server.request(1, "tools/call", {"name": "gpu_info", "arguments": {}})
        rc, seconds = server.close_and_wait()
        assert rc == 0 and seconds < 2.0, (rc, seconds)
    finally:
        server.kill()


async def case_full_flow(workdir):
    progress = []

    async def on_progress(value, total, message):
        progress.append((value, total, message))

    async with stdio_client(sdk_params(workdir)) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            made = await session.call_tool("new_target", make_target(workdir))
            assert not made.is_error, text_of(made)
            # Issue 44: a tool call's error names the tool's arguments, not the CLI's flags.
            bad = await session.call_tool("new_target", {**make_target(workdir), "shape": "4x?"})
            assert bad.is_error and "shape" in text_of(bad) and "--" not in text_of(bad), text_of(bad)
            assert os.path.exists(os.path.join(workdir, "scale_baseline.py"))
            assert os.path.exists(os.path.join(workdir, "scale_candidate.py"))
            bench = await session.call_tool("bench", {"script": "scale_baseline.py", "n": 3},
                                            read_timeout_seconds=240)
            assert not bench.is_error, text_of(bench)
            assert bench.structured_content["n"] == 3
            verify = await session.call_tool("verify", {"baseline": "scale_baseline.py", "candidate": "scale_candidate.py",
                                                        "n": 3}, read_timeout_seconds=240, progress_callback=on_progress)
            assert not verify.is_error, text_of(verify)
            assert progress, "verify sent no progress notifications"
            values = [p[0] for p in progress]
            assert values == sorted(values) and len(set(values)) == len(values), values
            # Issue 44: by id, without note and who (optional, as in the original).
            verify_id = verify.structured_content["verify_id"]
            assert verify_id in text_of(verify), "the text content does not give the verify id"
            record = await session.call_tool("record", {"target": "scale", "verify_id": verify_id})
            assert not record.is_error, text_of(record)
            with open(os.path.join(workdir, record.structured_content["log"])) as f:
                log = json.load(f)
            assert log["note"] == "(no note given)" and log["who"] == "(who not given)", (log["note"], log["who"])
            again = await session.call_tool("record", {"target": "scale", "verify_id": verify_id})
            assert again.is_error and "already recorded" in text_of(again), text_of(again)
            unknown = verify_id[:-4] + ("0000" if not verify_id.endswith("0000") else "1111")
            refused = await session.call_tool("record", {"target": "scale", "verify_id": unknown})
            assert refused.is_error and "no verify in this session" in text_of(refused), text_of(refused)
            foreign = "verify-" + ("0" * 8 if verify_id.split("-")[1] != "0" * 8 else "1" * 8) + "-" + "a" * 32
            refused = await session.call_tool("record", {"target": "scale", "verify_id": foreign})
            assert refused.is_error and "another hotkernel session" in text_of(refused), text_of(refused)
            resources = await session.list_resources()
            uris = [str(r.uri) for r in resources.resources]
            assert any(u.startswith("hotkernel://results/scale/") for u in uris), uris


def start_long_verify(server, id_):
    server.request(id_, "tools/call", {"name": "verify", "_meta": {"progressToken": "v"},
                                        "arguments": {"baseline": "slow_baseline.py", "candidate": "slow_candidate.py",
                                                      "n": 1000, "timeout": 600}})


def prepare_slow_target(workdir):
    """A target whose runs take a while, so there is time to cancel mid-verify."""
    with open(os.path.join(workdir, "slowfn.py"), "w") as f:
        f.write("import time\n\ndef slow(x):\n    time.sleep(0.2)\n    return x * 2\n")
    server = RawServer(workdir)
    try:
        server.initialize()
        server.request(1, "tools/call", {"name": "new_target", "arguments": {
            "target": "slow", "from": "./slowfn.py:slow", "shape": "64", "dtype": "fp32", "device": "cpu", "iters": 1}})
        r = server.reply(1, timeout=120)
        assert not r["result"]["isError"], r["result"]["content"][0]["text"]
        server.close_and_wait()
    finally:
        server.kill()


def case_cancelled_verify(workdir):
    prepare_slow_target(workdir)
    server = RawServer(workdir)
    try:
        server.initialize()
        start_long_verify(server, 7)
        server.wait_for(lambda m: m.get("method") == "notifications/progress", timeout=120)
        children = wait_for_children(server)
        server.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7, "reason": "test"}})
        server.request(8, "ping")
        server.reply(8)
        deadline = time.monotonic() + EVENT_LIMIT
        while alive(children) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(children), f"processes left after cancel: {alive(children)}"
        time.sleep(0.5)
        server._read_some(0.2)
        assert not [m for m in server.messages if m.get("id") == 7], "a cancelled request was answered"
        rc, _ = server.close_and_wait()
        assert rc == 0
    finally:
        server.kill()


def case_stdin_closed_mid_verify(workdir):
    prepare_slow_target(workdir)
    server = RawServer(workdir)
    try:
        server.initialize()
        start_long_verify(server, 9)
        server.wait_for(lambda m: m.get("method") == "notifications/progress", timeout=120)
        children = wait_for_children(server)
        rc, seconds = server.close_and_wait()
        assert rc == 0, rc
        # The verify left would take over 400 s (1000 pairs of 0.2 s scripts): exiting within a
        # minute shows the server did not wait for it, also on a loaded machine.
        assert seconds < 60.0, f"took {seconds:.2f}s to exit"
        deadline = time.monotonic() + EVENT_LIMIT
        while alive(children) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(children), f"processes left after stdin closed: {alive(children)}"
    finally:
        server.kill()


async def case_attached_to_window(workdir):
    """A workbench window (offscreen) owns the directory; the SDK's `hotkernel mcp` attaches to it."""
    log_path = os.path.join(workdir, "window.log")
    env = server_env()
    env["QT_QPA_PLATFORM"] = "offscreen"
    with open(log_path, "wb") as log:
        window = subprocess.Popen([BINARY], cwd=workdir, env=env, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=log)

    def window_log():
        with open(log_path, "rb") as f:
            return f.read().decode(errors="replace")

    async def wait_in_log(text, timeout=EVENT_LIMIT):
        deadline = time.monotonic() + timeout
        while text not in window_log():
            assert window.poll() is None, f"window exited: {window_log()[-500:]}"
            assert time.monotonic() < deadline, f"{text!r} not in the window's log: {window_log()[-500:]}"
            await anyio.sleep(0.05)

    try:
        await wait_in_log("agents attach to this session at")
        async with stdio_client(sdk_params(workdir)) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = await session.list_tools()
                assert [t.name for t in listed.tools] == TOOLS
                bad = await session.call_tool("bench", {"script": 42})
                assert bad.is_error and "script" in text_of(bad), text_of(bad)
                # The call ran in the window's session, not in the mcp process.
                await wait_in_log("tools/call bench")
                await wait_in_log("attached")
        await wait_in_log("disconnected; 0 job(s) ended")
        assert window.poll() is None, "the window must stay when the agent leaves"
    finally:
        window.terminate()
        try:
            window.wait(timeout=10)
        except subprocess.TimeoutExpired:
            window.kill()
            window.wait()
        # Killed by a signal, the window leaves its socket behind (the next one would replace it).
        digest = hashlib.sha1(os.path.realpath(workdir).encode()).hexdigest()[:16]
        stale = os.path.join(tempfile.gettempdir(), f"hotkernel-{os.getuid()}-{digest}")
        if os.path.exists(stale):
            os.unlink(stale)


# Keywords a draft-07 validator (Ajv as the TypeScript SDK builds it) does not know: it would
# ignore them silently, so a schema must not lean on them.
ONLY_2020_12 = {"prefixItems", "$dynamicRef", "$dynamicAnchor", "unevaluatedProperties", "unevaluatedItems",
                "dependentSchemas", "dependentRequired", "$vocabulary", "minContains", "maxContains"}


def keywords_in(schema):
    if isinstance(schema, dict):
        for key, value in schema.items():
            yield key
            if key not in ("enum", "const", "default", "examples", "required"):
                yield from keywords_in(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from keywords_in(item)


def strict_problems(schema, instance):
    """What Ajv (draft-07, formats on) would say of instance, checked as draft-07 and as 2020-12."""
    problems = []
    for validator in (Draft7Validator, Draft202012Validator):
        for e in validator(schema, format_checker=FormatChecker()).iter_errors(instance):
            problems.append(f"{validator.__name__}: {'/'.join(map(str, e.absolute_path))}: {e.message}")
    return problems


def prepare_every_tool(workdir):
    inspect_data = os.path.join(os.environ.get("HOTKERNEL_SOURCE_DIR", os.path.join(os.path.dirname(__file__),
                                                                                    "..", "..")),
                                "tests", "data", "inspect")
    shutil.copy(os.path.join(inspect_data, "eager.ncu-details.csv"), os.path.join(workdir, "report.ncu-details.csv"))
    shutil.copy(os.path.join(inspect_data, "templated.sm_90.cubin"), os.path.join(workdir, "k.cubin"))
    with open(os.path.join(workdir, "trace_me.py"), "w") as f:
        f.write("import torch\nx = torch.randn(64, 64)\nfor _ in range(3):\n    (x @ x).relu()\n")


# Tools that succeed on any machine with CPU torch (disasm needs cuobjdump/nvdisasm: the test
# sets HOTKERNEL_CUOBJDUMP/NVDISASM to the wheels setup-deps.sh installs); gpu_info and profile
# succeed where there is a GPU and are checked when they do.
MUST_SUCCEED = {"new_target", "bench", "verify", "record", "roofline", "top_kernels", "torch_trace", "disasm"}


def case_every_tool_conforms(workdir):
    """Every result of every tool as a strict client sees it: a success's structuredContent
    conforms to the tool's outputSchema (draft-07 with formats, as Ajv; and 2020-12); an error
    carries no structuredContent that would not, and says what was wrong in its text."""
    prepare_every_tool(workdir)
    server = RawServer(workdir)
    try:
        server.initialize()
        server.request(1, "tools/list")
        tools = {t["name"]: t for t in server.reply(1)["result"]["tools"]}
        assert sorted(tools) == sorted(TOOLS), sorted(tools)
        for name, tool in tools.items():
            for schema_kind in ("inputSchema", "outputSchema"):
                schema = tool[schema_kind]
                Draft7Validator.check_schema(schema)
                Draft202012Validator.check_schema(schema)
                late = ONLY_2020_12 & set(keywords_in(schema))
                assert not late, f"{name}.{schema_kind} uses 2020-12-only keywords {late}"
                assert schema.get("$schema") in (None, "http://json-schema.org/draft-07/schema#"), \
                    f"{name}.{schema_kind} names $schema {schema.get('$schema')}"

        next_id = [100]

        def call(name, arguments, timeout=240):
            next_id[0] += 1
            server.request(next_id[0], "tools/call", {"name": name, "arguments": arguments})
            reply = server.reply(next_id[0], timeout=timeout)
            assert "result" in reply, f"{name}: {reply}"
            return reply["result"]

        succeeded = set()

        def check(name, result, expect_error=None):
            text = " ".join(c.get("text", "") for c in result["content"])
            assert text.strip(), f"{name}: empty text"
            if expect_error is not None:
                assert result["isError"] is expect_error, f"{name}: isError {result['isError']}: {text[:300]}"
            if result["isError"]:
                if "structuredContent" in result:
                    problems = strict_problems(tools[name]["outputSchema"], result["structuredContent"])
                    assert not problems, f"{name} error result: {problems[:3]}"
            else:
                assert "structuredContent" in result, f"{name}: a success without structuredContent"
                problems = strict_problems(tools[name]["outputSchema"], result["structuredContent"])
                assert not problems, f"{name} success result: {problems[:5]}"
                succeeded.add(name)
            return result

        made = check("new_target", call("new_target", make_target(workdir)), expect_error=False)
        check("bench", call("bench", {"script": "scale_baseline.py", "n": 3}), expect_error=False)
        verify = check("verify", call("verify", {"baseline": "scale_baseline.py", "candidate": "scale_candidate.py",
                                                 "n": 3}), expect_error=False)
        check("record", call("record", {"target": "scale", "verify_result": verify["structuredContent"],
                                        "note": "schema check", "who": "hand-written by the test"}), expect_error=False)
        check("roofline", call("roofline", {"card": "H200", "flops": 1e9, "bytes": 1e8, "ms": 0.5}), expect_error=False)
        check("top_kernels", call("top_kernels", {"path": "report.ncu-details.csv"}), expect_error=False)
        check("torch_trace", call("torch_trace", {"script": "trace_me.py"}), expect_error=False)
        check("disasm", call("disasm", {"target": "k.cubin"}), expect_error=False)
        check("gpu_info", call("gpu_info", {}))
        check("profile", call("profile", {"command": ["true"]}))
        assert made["structuredContent"]["target"] == "scale"
        assert MUST_SUCCEED <= succeeded, f"no success checked for {MUST_SUCCEED - succeeded}"
        # The error path of every tool: an argument it does not take.
        for name in TOOLS:
            result = check(name, call(name, {"bogus_argument": 1}), expect_error=True)
            text = result["content"][0]["text"]
            # The schema check names the first problem: the stray argument or a missing required one.
            assert "invalid arguments" in text and ("bogus_argument" in text or "required" in text), f"{name}: {text}"
            assert "structuredContent" not in result, f"{name}: an error result with structuredContent"
        # And a runtime failure of each tool that reads a file (the handler's own error).
        for name, arguments, word in [("bench", {"script": "gone.py"}, "gone.py"),
                                      ("top_kernels", {"path": "gone.csv"}, "gone.csv"),
                                      ("disasm", {"target": "gone.cubin"}, "gone.cubin"),
                                      ("record", {"target": "scale", "verify_result": "gone.json", "note": "n",
                                                  "who": "w"}, "gone.json"),
                                      ("roofline", {"card": "no-such-card", "flops": 1, "bytes": 1}, "no-such-card")]:
            result = check(name, call(name, arguments), expect_error=True)
            assert word in result["content"][0]["text"], f"{name}: {result['content'][0]['text']}"
            assert "structuredContent" not in result, f"{name}: an error result with structuredContent"
        print(f"        successes checked: {sorted(succeeded)}", flush=True)
        server.close_and_wait(timeout=30)
    finally:
        server.kill()


CASES = [
    ("every tool's success and error results conform (draft-07, formats)", case_every_tool_conforms),
    ("initialize and list tools (schemas compile)", case_initialize_and_list_tools),
    ("cheap tool, argument errors, resources", case_cheap_tool_and_resources),
    ("bad input over a raw pipe", case_bad_input_raw),
    ("stdin closed: prompt exit 0", case_stdin_closed_promptly),
    ("new_target -> bench -> verify (progress) -> record", case_full_flow),
    ("cancelled verify: no reply, processes gone", case_cancelled_verify),
    ("stdin closed mid-verify: exit 0, processes gone", case_stdin_closed_mid_verify),
    ("attached to an open window's session", case_attached_to_window),
]


def main():
    run_cases(CASES, "hk-mcp-")


if __name__ == "__main__":
    main()
