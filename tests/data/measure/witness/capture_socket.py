# SPDX-License-Identifier: Apache-2.0
"""Runs hotkernel's tracer (argv[1]) in a child process writing to a socket pair as a verify worker's does
(HOTKERNEL_TRACE_FD=N:INODE, witness mode), opens and closes three witness windows, and prints what
came through the socket. tests/data/measure/witness/CAPTURE.md says where it was run."""
import os, socket, subprocess, sys
a, b = socket.socketpair()
a.shutdown(socket.SHUT_WR)
b.shutdown(socket.SHUT_RD)
env = dict(os.environ, HOTKERNEL_TRACE_WITNESS="1",
           HOTKERNEL_TRACE_FD="%d:%d" % (b.fileno(), os.fstat(b.fileno()).st_ino))
child = subprocess.Popen([sys.executable, "-c", """
import ctypes, sys
t = ctypes.CDLL(sys.argv[1])
t.InitializeInjection()
for _ in range(3):
    t.hotkernel_tracer_witness(1)
    t.hotkernel_tracer_witness(0)
""", sys.argv[1]], env=env, pass_fds=(b.fileno(),))
b.close()
data = b""
while True:
    chunk = a.recv(65536)
    if not chunk:
        break
    data += chunk
child.wait()
sys.stdout.buffer.write(data)
