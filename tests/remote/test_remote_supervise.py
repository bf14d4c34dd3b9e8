# SPDX-License-Identifier: Apache-2.0
"""The remote supervisor's confinement (issue 41), run here as a host would run it: the worker's
scratch, its Landlock ruleset made between fork and exec, and the report line marked with the token
read from stdin. The C++ side that reads the line is tested in tst_remoteconfine."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

SUPERVISOR = os.path.join(os.environ.get("HOTKERNEL_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")),
                          "resources", "remote", "hotkernel-remote-supervise.py")

# Tries each path given on the command line and prints "wrote PATH" or "refused PATH".
WRITER = """
import sys
for path in sys.argv[1:]:
    try:
        with open(path, "w") as f:
            f.write("planted\\n")
        print("wrote " + path)
    except OSError:
        print("refused " + path)
print("stdin " + repr(sys.stdin.read()))
"""


def kernel_abi():
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc.syscall(ctypes.c_long(444), ctypes.c_void_p(None), ctypes.c_size_t(0), ctypes.c_uint32(1))


class TestRemoteSupervise(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = self.dir.name

    def tearDown(self):
        self.dir.cleanup()

    def supervise(self, options, paths, stdin="TOKEN-1\nafter the token\n"):
        command = [sys.executable, SUPERVISOR] + options + ["--", sys.executable, "-c", WRITER] + paths
        done = subprocess.run(command, input=stdin.encode(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=60)
        return done.returncode, done.stdout.decode().splitlines(), done.stderr.decode()

    def test_confines_the_worker_to_its_scratch(self):
        abi = kernel_abi()
        scratch = os.path.join(self.root, "worker-a")
        outside = os.path.join(self.root, "planted.txt")
        inside = os.path.join(scratch, "tmp", "inside.txt")
        code, lines, err = self.supervise(
            ["--confine-scratch=" + scratch, "--scratch-folder=TMPDIR=tmp", "--scratch-folder=XDG_CACHE_HOME=cache"],
            [outside, inside, "/dev/null"])
        self.assertEqual(code, 0, err)
        # The report comes first, before anything the worker prints, with the token.
        report = json.loads(lines[0])
        self.assertEqual(report["token"], "TOKEN-1")
        if abi < 1:
            self.assertTrue(report["hotkernel_confinement"].startswith("none: this kernel has no Landlock"), report)
            return
        self.assertEqual(report["hotkernel_confinement"], "landlock ABI %d" % abi)
        self.assertIn("refused " + outside, lines)
        self.assertFalse(os.path.exists(outside))
        self.assertIn("wrote " + inside, lines)
        self.assertIn("wrote /dev/null", lines)
        # The worker never saw the token; what followed it is the worker's stdin.
        self.assertIn("stdin 'after the token\\n'", lines)
        self.assertNotIn("TOKEN-1", "\n".join(lines[1:]))
        # Removed at the end, its folders with it.
        self.assertFalse(os.path.exists(scratch))

    def test_the_environment_names_the_scratch_folders(self):
        scratch = os.path.join(self.root, "worker-env")
        command = [sys.executable, SUPERVISOR, "--confine-scratch=" + scratch, "--scratch-folder=TMPDIR=tmp",
                   "--keep-scratch", "--", sys.executable, "-c", "import os; print(os.environ['TMPDIR'])"]
        done = subprocess.run(command, input=b"T\n", stdout=subprocess.PIPE, timeout=60)
        lines = done.stdout.decode().splitlines()
        self.assertEqual(lines[1], os.path.join(scratch, "tmp"))
        # --keep-scratch: a process per run leaves it for the next run.
        self.assertTrue(os.path.isdir(os.path.join(scratch, "tmp")))
        self.assertEqual(os.stat(scratch).st_mode & 0o777, 0o700)

    def test_a_scratch_that_cannot_be_made_runs_unconfined_and_says_why(self):
        scratch = os.path.join(self.root, "missing", "worker-b")
        outside = os.path.join(self.root, "planted.txt")
        code, lines, err = self.supervise(["--confine-scratch=" + scratch, "--scratch-folder=TMPDIR=tmp"], [outside])
        self.assertEqual(code, 0, err)
        report = json.loads(lines[0])
        self.assertTrue(report["hotkernel_confinement"].startswith("none: cannot make the scratch directory " +
                                                                   scratch), report)
        self.assertIn("wrote " + outside, lines)

    def test_a_shared_scratch_is_refused(self):
        scratch = os.path.join(self.root, "worker-open")
        os.mkdir(scratch)
        os.chmod(scratch, 0o755)
        code, lines, err = self.supervise(["--confine-scratch=" + scratch], [])
        self.assertEqual(code, 0, err)
        report = json.loads(lines[0])
        self.assertEqual(report["hotkernel_confinement"],
                         "none: %s is not a private directory of this user" % scratch)
        self.assertTrue(os.path.isdir(scratch))  # not its own: left as it was

    def test_a_folder_name_with_a_slash_is_refused(self):
        code, lines, err = self.supervise(["--confine-scratch=" + os.path.join(self.root, "w"),
                                           "--scratch-folder=TMPDIR=../tmp"], [])
        self.assertEqual(code, 2)
        self.assertIn("names no folder of the scratch", err)

    def test_without_confinement_stdin_is_passed_whole(self):
        code, lines, err = self.supervise([], [], stdin="first\n")
        self.assertEqual(code, 0, err)
        self.assertEqual(lines, ["stdin 'first\\n'"])


if __name__ == "__main__":
    unittest.main()
