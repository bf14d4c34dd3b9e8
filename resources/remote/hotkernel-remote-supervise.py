#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""hotkernel's supervisor on a remote host (issue 24; docs/remote.md).

hotkernel copies this file into <workdir>/.hotkernel/ when it connects and runs every remote
process as

    python3 hotkernel-remote-supervise.py [--keep-on-eof] [--stream-trace] -- PROGRAM ARGS...

It starts PROGRAM in a process group of its own, passes stdin on to it (stdout and stderr are
PROGRAM's own: the ssh session's pipes), and ends the whole group (SIGTERM, then SIGKILL) when:
- its stdin ends (hotkernel closed it, or ssh went away), unless --keep-on-eof (a program that
  reads no stdin); PROGRAM gets the end of its stdin first and a moment to exit by itself;
- the ssh session is gone: its stdout pipe has no reader any more (sshd killed, connection lost);
- it gets SIGTERM, SIGHUP or SIGINT.
Killing ssh without a tty leaves remote processes running otherwise. It exits as PROGRAM did.

--stream-trace: the GPU witness (issue 19) on this host. PROGRAM gets HOTKERNEL_TRACE_FILE, a
private file beside this script that hotkernel's CUPTI tracer appends to, and its stdout goes
through the supervisor: before each line of it, what the tracer added since is sent as one line
{"hotkernel_trace": "<base64>", "token": TOKEN}, TOKEN being the first line hotkernel writes to the
supervisor's stdin (never passed on, never in an argv: PROGRAM cannot forge such a line). The
tracer closes a witness window before the contract prints
the run's line, so the window always arrives before the line it vouches for. The file is removed
at the end.

    python3 hotkernel-remote-supervise.py --hold-gpu-lock

takes this user's GPU lock on this host for the device hotkernel times on (the first entry of
CUDA_VISIBLE_DEVICES when it is a number, else 0) (the file local hotkernel sessions there use:
hotkernel-gpuN.lock in $XDG_RUNTIME_DIR when private, else /tmp/hotkernel-UID), prints
"waiting PID" while another process holds it, "locked" once held, and keeps it until stdin ends.

Pure Python 3 standard library; no third-party module.
"""

import base64
import errno
import fcntl
import json
import os
import select
import signal
import stat
import sys
import tempfile
import time

GRACE_S = 2.0  # after the end of stdin, for PROGRAM to exit by itself
KILL_AFTER_S = 1.5  # between SIGTERM and SIGKILL


def kill_group(pgid):
    try:
        os.killpg(pgid, signal.SIGTERM)
    except OSError:
        return
    deadline = time.monotonic() + KILL_AFTER_S
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except OSError:
            return
        time.sleep(0.05)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass


def exit_like(status):
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        sys.exit(128 + sig)
    sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


TRACE_CHUNK = 16 * 1024 * 1024  # read per line forwarded; the rest goes with the next


class TraceStream:
    """PROGRAM's stdout, with the tracer's new bytes sent ahead of each line (--stream-trace)."""

    def __init__(self):
        self.token = read_first_line(0)
        fd, self.path = tempfile.mkstemp(prefix="witness-", suffix=".jsonl",
                                         dir=os.path.dirname(os.path.abspath(__file__)))
        os.close(fd)
        self.offset = 0
        self.pending = b""
        self.read_fd, self.write_fd = os.pipe()

    def trace_line(self):
        # The tracer inside the measured program writes it; whatever replaced it is read without
        # waiting, following a link or taking more than a bounded chunk (issue 39).
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
            with os.fdopen(fd, "rb") as f:
                if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                    return b""
                f.seek(self.offset)
                data = f.read(TRACE_CHUNK)
        except OSError:
            return b""
        # Whole lines only; a line the tracer is still writing goes with the next one.
        end = data.rfind(b"\n") + 1
        self.offset += end
        if not end:
            return b""
        line = {"hotkernel_trace": base64.b64encode(data[:end]).decode(), "token": self.token}
        return (json.dumps(line) + "\n").encode()

    def forward(self, data):
        self.pending += data
        out = b""
        while True:
            newline = self.pending.find(b"\n")
            if newline < 0:
                break
            out += self.trace_line() + self.pending[:newline + 1]
            self.pending = self.pending[newline + 1:]
        write_all(1, out)

    def drain(self):
        """After PROGRAM ended: what is left in the pipe, then the trace's tail."""
        os.set_blocking(self.read_fd, False)
        while True:
            try:
                data = os.read(self.read_fd, 65536)
            except OSError:
                break
            if not data:
                break
            self.forward(data)
        write_all(1, self.trace_line() + self.pending)
        self.pending = b""

    def remove(self):
        try:
            os.unlink(self.path)
        except OSError:
            pass


def read_first_line(fd):
    """One line of fd, read byte by byte so that nothing after it is taken from PROGRAM."""
    line = b""
    while not line.endswith(b"\n"):
        byte = os.read(fd, 1)
        if not byte:
            break
        line += byte
    return line.decode(errors="replace").strip()


def write_all(fd, data):
    while data:
        try:
            data = data[os.write(fd, data):]
        except OSError:
            return  # the reader is gone; the poll loop notices


def supervise(keep_on_eof, command, trace=None):
    child_in_r, child_in_w = os.pipe()
    if trace:
        os.environ["HOTKERNEL_TRACE_FILE"] = trace.path
    pid = os.fork()
    if pid == 0:
        try:
            os.setpgid(0, 0)
            os.dup2(child_in_r, 0)
            os.close(child_in_r)
            os.close(child_in_w)
            if trace:
                os.dup2(trace.write_fd, 1)
                os.close(trace.write_fd)
                os.close(trace.read_fd)
            os.execvp(command[0], command)
        except OSError as e:
            os.write(2, ("hotkernel-remote-supervise: cannot start %s: %s\n" % (command[0], e.strerror)).encode())
        os._exit(127)
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass  # the child did it first, or already exec'd
    os.close(child_in_r)
    if trace:
        os.close(trace.write_fd)

    ending = []

    def on_signal(signum, _frame):
        ending.append(signum)

    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(s, on_signal)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)

    poller = select.poll()
    poller.register(0, select.POLLIN)
    # Registered for no event: poll still reports POLLERR/POLLHUP once the reader is gone.
    poller.register(1, 0)
    if trace:
        poller.register(trace.read_fd, select.POLLIN)
    eof_at = None
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            kill_group(pid)  # whatever it left behind
            if trace:
                trace.drain()
                trace.remove()
            exit_like(status)
        stopping = ending or (eof_at is not None and time.monotonic() - eof_at > GRACE_S)
        if stopping:
            # The trace file first: a SIGKILL may follow the SIGTERM that ended the loop.
            if trace:
                trace.remove()
            kill_group(pid)
            break
        try:
            events = poller.poll(200)
        except InterruptedError:
            continue
        for fd, ev in events:
            if fd == 1 and ev & (select.POLLERR | select.POLLHUP | select.POLLNVAL):
                ending.append("connection lost")
            elif trace and fd == trace.read_fd:
                data = os.read(fd, 65536) if ev & select.POLLIN else b""
                if data:
                    trace.forward(data)
                else:
                    poller.unregister(fd)  # PROGRAM closed its stdout; waitpid ends the loop
            elif fd == 0:
                data = b""
                if ev & select.POLLIN:
                    try:
                        data = os.read(0, 65536)
                    except OSError:
                        data = b""
                if data:
                    try:
                        os.write(child_in_w, data)
                    except OSError:
                        pass  # the child closed its stdin; it decides when to exit
                    continue
                # End of stdin.
                poller.unregister(0)
                os.close(child_in_w)
                if not keep_on_eof:
                    eof_at = time.monotonic()
    done, status = os.waitpid(pid, 0)
    if trace:
        trace.remove()
    exit_like(status)


def lock_dir():
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime:
        try:
            st = os.stat(runtime)
            if stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and stat.S_IMODE(st.st_mode) & 0o077 == 0:
                return runtime
        except OSError:
            pass
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "hotkernel-%d" % os.getuid())
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or stat.S_IMODE(st.st_mode) & 0o077:
        sys.stderr.write("hotkernel-remote-supervise: %s is not a private directory of this user\n" % path)
        sys.exit(2)
    return path


def current_device():
    first = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
    return int(first) if first.isdigit() else 0


def hold_gpu_lock(device):
    path = os.environ.get("HOTKERNEL_LOCK_DIR") or lock_dir()
    path = os.path.join(path, "hotkernel-gpu%d.lock" % device)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o600)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid():
        sys.stderr.write("hotkernel-remote-supervise: %s is not a regular file of this user\n" % path)
        sys.exit(2)
    said = False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except OSError as e:
            if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise
        if not said:
            sys.stdout.write("waiting\n")
            sys.stdout.flush()
            said = True
        readable, _, _ = select.select([0], [], [], 0.2)
        if readable and not os.read(0, 4096):
            sys.exit(0)  # given up
    sys.stdout.write("locked\n")
    sys.stdout.flush()
    while os.read(0, 4096):
        pass
    sys.exit(0)


def main(argv):
    keep_on_eof = False
    stream_trace = False
    i = 0
    while i < len(argv) and argv[i] != "--":
        if argv[i] == "--keep-on-eof":
            keep_on_eof = True
        elif argv[i] == "--stream-trace":
            stream_trace = True
        elif argv[i] == "--hold-gpu-lock":
            hold_gpu_lock(current_device())
        else:
            sys.stderr.write("hotkernel-remote-supervise: unknown option %s\n" % argv[i])
            return 2
        i += 1
    command = argv[i + 1:]
    if not command:
        sys.stderr.write("usage: hotkernel-remote-supervise.py [--keep-on-eof] [--stream-trace] -- PROGRAM ARGS...\n")
        return 2
    supervise(keep_on_eof, command, TraceStream() if stream_trace else None)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
