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

--confine-scratch=DIR [--scratch-folder=VARIABLE=NAME]... [--keep-scratch]: the worker's
private scratch and its write confinement (issue 41), as hotkernel-supervise does on hotkernel's
own machine. DIR (absolute; made 0700, or an existing private directory of this user) gets a folder
NAME for each VARIABLE, which PROGRAM's environment names (TMPDIR, the compiler caches). PROGRAM and
everything it starts may then write only beneath DIR and /dev, and write existing files beneath
/proc: a Landlock ruleset (the best ABI this kernel has) made in the child between fork and exec.
Reading and executing stay as they were. What that achieved goes to stdout before PROGRAM runs, as
one line {"hotkernel_confinement": "landlock ABI N" or "none: REASON", "token": TOKEN}, TOKEN being
the first line of stdin as for --stream-trace (then the trace file lies in DIR, the one place the
tracer may write). PROGRAM runs either way; hotkernel decides what an unconfined run is worth. DIR
is removed at the end unless --keep-scratch (a process per run: the next run uses it again).

    python3 hotkernel-remote-supervise.py --hold-gpu-lock

takes this user's GPU lock on this host for the device hotkernel times on (the first entry of
CUDA_VISIBLE_DEVICES when it is a number, else 0) (the file local hotkernel sessions there use:
hotkernel-gpuN.lock in $XDG_RUNTIME_DIR when private, else /tmp/hotkernel-UID), prints
"waiting PID" while another process holds it, "locked" once held, and keeps it until stdin ends.

Pure Python 3 standard library; no third-party module.
"""

import base64
import ctypes
import errno
import fcntl
import json
import os
import platform
import select
import shutil
import signal
import stat
import sys
import tempfile
import time

GRACE_S = 2.0  # after the end of stdin, for PROGRAM to exit by itself
KILL_AFTER_S = 1.5  # between SIGTERM and SIGKILL


def kill_group(pgid, child=None):
    """Ends the group. child: PROGRAM when it is not reaped yet; it is reaped here, since a zombie
    still counts as a member of its group. Returns its wait status when it was, else None."""
    reaped = []

    def reap():
        if child is None or reaped:
            return
        try:
            done, status = os.waitpid(child, os.WNOHANG)
        except ChildProcessError:
            return
        if done:
            reaped.append(status)

    try:
        os.killpg(pgid, signal.SIGTERM)
    except OSError:
        return None
    deadline = time.monotonic() + KILL_AFTER_S
    while time.monotonic() < deadline:
        reap()
        try:
            os.killpg(pgid, 0)
        except OSError:
            return reaped[0] if reaped else None
        time.sleep(0.05)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass
    return reaped[0] if reaped else None


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

    def __init__(self, token, directory):
        self.token = token
        fd, self.path = tempfile.mkstemp(prefix="witness-", suffix=".jsonl", dir=directory)
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


# Landlock (linux/landlock.h). Every architecture but alpha numbers system calls added since Linux
# 5.1 alike, so these hold on x86_64 and aarch64.
SYS_LANDLOCK_CREATE_RULESET = 444
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38
ACCESS_FS_WRITE_FILE = 1 << 1
ACCESS_FS_TRUNCATE = 1 << 14


def write_rights(abi):
    """Every right that changes the file system, by the ABI that introduced it (supervise.cpp's
    writeRights): write a file, remove a directory or file, make a character device, directory,
    regular file, socket, fifo, block device or symbolic link; from ABI 2 renames and links across
    directories (refer), from ABI 3 truncate. Not ABI 5's ioctl on devices: CUDA drives the GPU
    through ioctls on /dev/nvidia*."""
    rights = ACCESS_FS_WRITE_FILE
    for bit in range(4, 13):
        rights |= 1 << bit
    if abi >= 2:
        rights |= 1 << 13
    if abi >= 3:
        rights |= ACCESS_FS_TRUNCATE
    return rights


class PathBeneath(ctypes.Structure):
    _pack_ = 1  # struct landlock_path_beneath_attr is packed
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class Landlock:
    """The C library's syscall() and prctl(), loaded before the fork; confine() runs in the child."""

    def __init__(self):
        self.libc = None
        self.error = None
        if platform.machine().startswith("alpha"):
            self.error = "none: Landlock's system calls have other numbers on alpha"
            return
        try:
            self.libc = ctypes.CDLL(None, use_errno=True)
            self.libc.syscall.restype = ctypes.c_long
            self.libc.prctl.restype = ctypes.c_int
        except (OSError, AttributeError) as e:
            self.error = "none: cannot call the C library from Python (%s)" % e

    def syscall(self, number, *arguments):
        # Every argument as a full register: a C int passed to the variadic syscall() would leave
        # the upper half of a 64-bit one undefined.
        ctypes.set_errno(0)
        result = self.libc.syscall(ctypes.c_long(number), *arguments)
        return result, ctypes.get_errno()

    def abi(self):
        """The kernel's Landlock ABI, or (0, errno)."""
        abi, error = self.syscall(SYS_LANDLOCK_CREATE_RULESET, ctypes.c_void_p(None), ctypes.c_size_t(0),
                                  ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION))
        return (abi, 0) if abi >= 1 else (0, error)

    def confine(self, dirs):
        """Confines this process's later writes (and its descendants') to dirs, /dev and existing
        files beneath /proc. Returns what it achieved: "landlock ABI N" or "none: REASON"."""
        if self.error:
            return self.error
        abi, error = self.abi()
        if abi < 1:
            return "none: this kernel has no Landlock (%s%s)" % (
                os.strerror(error),
                "; it is built in but not enabled: add landlock to the lsm= boot parameter"
                if error == errno.EOPNOTSUPP else "; Linux 5.13 or newer with CONFIG_SECURITY_LANDLOCK is needed")
        rights = write_rights(abi)
        handled = ctypes.c_uint64(rights)  # the ruleset attribute as ABI 1 knew it: handled_access_fs
        ruleset, error = self.syscall(SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(handled),
                                      ctypes.c_size_t(ctypes.sizeof(handled)), ctypes.c_uint32(0))
        if ruleset < 0:
            return "none: landlock_create_ruleset: " + os.strerror(error)
        try:
            # /proc: writing existing files only (CUDA names its threads through
            # /proc/<pid>/task/<tid>/comm); supervise.cpp says why the rule is on /proc itself.
            allowed = [(d, rights) for d in dirs]
            allowed += [("/dev", rights), ("/proc", rights & (ACCESS_FS_WRITE_FILE | ACCESS_FS_TRUNCATE))]
            for directory, directory_rights in allowed:
                try:
                    # not a named file: O_PATH reads nothing, it names the directory for the rule
                    fd = os.open(directory, os.O_PATH | os.O_CLOEXEC | os.O_DIRECTORY)
                except OSError as e:
                    return "none: cannot open the writable directory %s: %s" % (directory, e.strerror)
                rule = PathBeneath(directory_rights, fd)
                added, error = self.syscall(SYS_LANDLOCK_ADD_RULE, ctypes.c_long(ruleset),
                                            ctypes.c_long(LANDLOCK_RULE_PATH_BENEATH), ctypes.byref(rule),
                                            ctypes.c_uint32(0))
                os.close(fd)
                if added != 0:
                    return "none: landlock_add_rule for %s: %s" % (directory, os.strerror(error))
            ctypes.set_errno(0)
            if self.libc.prctl(ctypes.c_int(PR_SET_NO_NEW_PRIVS), ctypes.c_ulong(1), ctypes.c_ulong(0),
                               ctypes.c_ulong(0), ctypes.c_ulong(0)) != 0:
                return "none: PR_SET_NO_NEW_PRIVS: " + os.strerror(ctypes.get_errno())
            restricted, error = self.syscall(SYS_LANDLOCK_RESTRICT_SELF, ctypes.c_long(ruleset), ctypes.c_uint32(0))
            if restricted != 0:
                return "none: landlock_restrict_self: " + os.strerror(error)
            return "landlock ABI %d" % abi
        finally:
            os.close(ruleset)


class Scratch:
    """The worker's private directory (--confine-scratch), its folders and what names them."""

    def __init__(self, path, folders, keep):
        self.path = path
        self.keep = keep
        self.error = None
        self.environment = {}
        try:
            try:
                os.mkdir(path, 0o700)
            except FileExistsError:
                # The run before this one made it (--keep-scratch), or hotkernel did, for the
                # judge's folder inside it: fine when it is this user's and nobody else's.
                st = os.lstat(path)
                if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or stat.S_IMODE(st.st_mode) & 0o077:
                    self.error = "%s is not a private directory of this user" % path
                    return
            for variable, name in folders:
                folder = os.path.join(path, name)
                try:
                    os.mkdir(folder, 0o700)
                except FileExistsError:
                    pass
                self.environment[variable] = folder
        except OSError as e:
            self.error = "cannot make the scratch directory %s (%s)" % (path, e.strerror)
            self.environment = {}

    def remove(self):
        if not self.keep and self.error is None:
            shutil.rmtree(self.path, ignore_errors=True)


def report_line(token, text):
    return (json.dumps({"hotkernel_confinement": text, "token": token}) + "\n").encode()


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


def confine_child(scratch, token, landlock):
    """In the child, before exec: the confinement and its report, on the session's stdout before
    PROGRAM can print anything (the token is gone with this process image at the exec)."""
    if scratch.error:
        text = "none: " + scratch.error
    else:
        try:
            text = landlock.confine([scratch.path])
        except Exception as e:  # never a reason not to report, nor to not run PROGRAM
            text = "none: the remote supervisor could not confine: %s" % e
    write_all(1, report_line(token, text))


def supervise(keep_on_eof, command, trace=None, scratch=None, token=None):
    child_in_r, child_in_w = os.pipe()
    if trace:
        os.environ["HOTKERNEL_TRACE_FILE"] = trace.path
    landlock = None
    if scratch:
        os.environ.update(scratch.environment)
        landlock = Landlock()  # the library is loaded here, not in the child
    pid = os.fork()
    if pid == 0:
        try:
            os.setpgid(0, 0)
            os.dup2(child_in_r, 0)
            os.close(child_in_r)
            os.close(child_in_w)
            if scratch:
                confine_child(scratch, token, landlock)
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
            if scratch:
                scratch.remove()
            exit_like(status)
        stopping = ending or (eof_at is not None and time.monotonic() - eof_at > GRACE_S)
        if stopping:
            # The trace file first: a SIGKILL may follow the SIGTERM that ended the loop.
            if trace:
                trace.remove()
            status = kill_group(pid, pid)
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
    if status is None:
        done, status = os.waitpid(pid, 0)
    if trace:
        trace.remove()
    if scratch:
        scratch.remove()
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


USAGE = ("usage: hotkernel-remote-supervise.py [--keep-on-eof] [--stream-trace] [--confine-scratch=DIR "
         "[--scratch-folder=VARIABLE=NAME]... [--keep-scratch]] -- PROGRAM ARGS...\n")


def main(argv):
    keep_on_eof = False
    stream_trace = False
    scratch_path = None
    folders = []
    keep_scratch = False
    i = 0
    while i < len(argv) and argv[i] != "--":
        option, _, value = argv[i].partition("=")
        if argv[i] == "--keep-on-eof":
            keep_on_eof = True
        elif argv[i] == "--stream-trace":
            stream_trace = True
        elif option == "--confine-scratch" and value.startswith("/"):
            scratch_path = os.path.normpath(value)
        elif option == "--scratch-folder" and "=" in value:
            variable, _, name = value.partition("=")
            if not variable or not name or "/" in name or name in (".", ".."):
                sys.stderr.write("hotkernel-remote-supervise: %s names no folder of the scratch\n" % argv[i])
                return 2
            folders.append((variable, name))
        elif argv[i] == "--keep-scratch":
            keep_scratch = True
        elif argv[i] == "--hold-gpu-lock":
            hold_gpu_lock(current_device())
        else:
            sys.stderr.write("hotkernel-remote-supervise: unknown option %s (directories must be absolute)\n"
                             % argv[i])
            sys.stderr.write(USAGE)
            return 2
        i += 1
    command = argv[i + 1:]
    if not command:
        sys.stderr.write(USAGE)
        return 2
    # One token for the trace stream and the confinement report: the first line hotkernel writes.
    token = read_first_line(0) if stream_trace or scratch_path else None
    scratch = Scratch(scratch_path, folders, keep_scratch) if scratch_path else None
    trace = None
    if stream_trace:
        # In the scratch when there is one: the only place a confined tracer may write.
        directory = os.path.dirname(os.path.abspath(__file__))
        trace = TraceStream(token, scratch.path if scratch and not scratch.error else directory)
    supervise(keep_on_eof, command, trace, scratch, token)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
