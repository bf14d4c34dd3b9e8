# SPDX-License-Identifier: Apache-2.0
"""Issue 19: `hotkernel verify` on each CPU adversarial candidate of tests/data/adversarial gives
the verdict an honest harness must give (never faster), and the honest control stays measurable.

Needs HOTKERNEL_BINARY, HOTKERNEL_SOURCE_DIR and HOTKERNEL_PYTHON (a Python with CPU torch)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

EXPECTED = {
    "honest.py": {"faster", "slower", "inconclusive"},
    # Issue 42: honest too. Idle helper threads (a compile-worker pool, a monitor) touch no output;
    # a buffer returned by every call is judged before the next call overwrites it.
    "helper_threads.py": {"faster", "slower", "inconclusive"},
    "static_output.py": {"faster", "slower", "inconclusive"},
    "ptrversion_cache.py": {"incorrect"},
    "timer_patch.py": {"invalid"},
    "contract_patch.py": {"invalid"},
    "baseline_patch.py": {"incorrect"},
    "lazy_subclass.py": {"invalid"},
    "forged_line.py": {"invalid"},
    "half_rewrite.py": {"incorrect"},
    "disk_edit.py": {"invalid"},
    # Invalid when its thread has filled the judged outputs by the time they are compared with the
    # copies taken as each call returned; on a loaded 2-core machine the thread can still be behind
    # at the run's first check, and the outputs are simply wrong (incorrect).
    "late_thread.py": {"invalid", "incorrect"},
    "seed_snoop.py": {"incorrect"},
    # Protocol 4: the checks in the candidate's process pass; the judge outside it catches these.
    "reference_swap.py": {"incorrect"},
    "check_patch.py": {"incorrect", "invalid"},
    "judge_file_truncate.py": {"invalid"},
    # Issue 41: writes where the verdict reads. Confined (the supervisor's Landlock report says so),
    # the write is refused and the candidate is as honest as honest.py; the checks below look at
    # the folder. Unconfined, only baseline_rewrite.py and disk_edit.py have a verdict to fail.
    "calibration_write.py": {"faster", "slower", "inconclusive"},
    "baseline_rewrite.py": {"invalid"},
    "target_write.py": {"faster", "slower", "inconclusive"},
    "record_call.py": {"faster", "slower", "inconclusive"},
    "honest_caches.py": {"faster", "slower", "inconclusive"},
    # Issue 41, class 1: the reported times scaled with no function the integrity snapshot covers
    # replaced (the JSON encoder class json.dumps builds, a global statistics.median reads, a
    # profile hook rebinding the samples, the protocol descriptor relayed by a child). Protocol 4
    # took them at their word (faster on CPU at 0.8, 1.24-1.38x at n=7). Protocol 5: a CPU run
    # has no witness and its bracket holds the samples to half the core's clock at least (a loaded
    # test machine wakes workers late), so here they claim 0.3 (HOTKERNEL_FIXTURE_SCALE) and the
    # bracket makes them invalid; scaled_median's ms is no longer the median of its samples. On
    # the GPU (0.8) the witness gives the time. Asserted from protocol 5 on.
    "scaled_encoder.py": {"invalid"},
    "scaled_median.py": {"invalid"},
    "scaled_profile.py": {"invalid"},
    "scaled_relay.py": {"invalid"},
    # Issue 41, class 5: children of the candidate burn every CPU while the candidate is idle (the
    # baseline's runs). Honest speed equals the baseline's; protocol 5 freezes the candidate's
    # whole tree while the baseline runs. Asserted from protocol 5 on (before it: faster or, on a
    # busy two-core machine, inconclusive at 1.1-1.3x).
    "idle_burner.py": {"slower", "inconclusive"},
    # The same burners after setsid and a double fork: out of the worker's process group, session
    # and children, reparented to the supervisor (a subreaper). Asserted from protocol 5 on; it
    # passes only if the freeze takes the supervisor's whole subtree (or the cgroup).
    "idle_burner_detached.py": {"slower", "inconclusive"},
    # Issue 41, class 8 on a CPU: work skipped on inputs a call has seen. value_cache.py (a cache
    # keyed by a probe of the values) was faster, 14.6x, while a CPU block reused its sets
    # unchanged; the sets now change between blocks, so it computes like honest.py (its probe
    # costs a little). stale_cache.py returns its first output on inputs changed the contract's
    # way: the spot checks of timed calls against their own inputs' references catch it.
    "value_cache.py": {"slower", "inconclusive"},
    "stale_cache.py": {"incorrect"},
    # The changes made a no-op (torch.Tensor.bitwise_xor_ replaced): the integrity snapshot.
    "change_patch.py": {"invalid"},
}
# Issue 41: the cases above that only protocol 5 catches (its bracket and its freeze). Under an
# older contract their verdict is printed, not asserted; they are asserted from PROTOCOL = 5 on.
NEEDS_PROTOCOL_5 = {"scaled_encoder.py", "scaled_median.py", "scaled_profile.py", "scaled_relay.py", "idle_burner.py",
                    "idle_burner_detached.py"}
# Issue 41, class 7: pairs other than (gelu_baseline.py, candidate). An uncontracted candidate
# (no contract import) against a contracted baseline is an error; two uncontracted scripts get
# only the claimed_ verdicts, never faster or slower (both already so before protocol 5; at n=2 a
# noisy baseline's claims can leave the pair inconclusive).
EXPECTED_PAIRS = [
    ("gelu_baseline.py", "uncontracted_claim.py", {"error"}),
    ("uncontracted_baseline.py", "uncontracted_claim.py", {"claimed_faster", "inconclusive"}),
]
HONEST_VERDICTS = {"faster", "slower", "inconclusive"}
# Where the candidate ran confined: what the verdict may be (the attack did nothing).
EXPECTED_CONFINED = {"disk_edit.py": HONEST_VERDICTS, "baseline_rewrite.py": HONEST_VERDICTS}


def _ctime(path):
    return os.stat(path).st_ctime_ns


# Issue 41: what must not have happened in the target's folder, checked after each confined run.
def _nothing_planted(tmp, before):
    problems = []
    for name in ("results", "planted_by_candidate.txt", "gelu_baseline.pyc"):
        if os.path.exists(os.path.join(tmp, name)):
            problems.append("%s appeared in the target's folder" % name)
    for name, ctime in before.items():
        if _ctime(os.path.join(tmp, name)) != ctime:
            problems.append("%s was written (its ctime moved)" % name)
    return problems


# Issue 41: in fresh mode (a process per run) too, the seed reaches the script only after its timed
# block: once it was on the command line, where seed_snoop.py read it and passed.
EXPECTED_FRESH = {
    "honest.py": {"faster", "slower", "inconclusive"},
    # Issue 41: a process per run is confined as a worker is.
    "calibration_write.py": {"faster", "slower", "inconclusive"},
    "target_write.py": {"faster", "slower", "inconclusive"},
    "seed_snoop.py": {"incorrect"},
}
# What the reason must name for the fixtures only the judge outside the candidate's process catches.
# The verdict a reason above belongs to, where a case may end in another (late_thread.py's thread
# still behind at the first check: incorrect, with the check's own words).
REASON_FOR = {"late_thread.py": "invalid"}
EXPECTED_REASON = {
    "late_thread.py": "changed after fn returned it",
    "reference_swap.py": "judged by the baseline outside the candidate's process",
    "check_patch.py": "judged by the baseline outside the candidate's process",
    "judge_file_truncate.py": "judged outputs",
}


def _contract_protocol(path):
    with open(path) as f:
        match = re.search(r"^PROTOCOL = (\d+)$", f.read(), re.MULTILINE)
    return int(match.group(1)) if match else 0


def main():
    binary = os.environ["HOTKERNEL_BINARY"]
    source = os.environ["HOTKERNEL_SOURCE_DIR"]
    protocol = _contract_protocol(os.path.join(source, "resources", "contract", "_hotkernel_contract.py"))
    fixtures = os.path.join(source, "tests", "data", "adversarial")
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in os.listdir(fixtures):
            if name.endswith(".py"):
                shutil.copy(os.path.join(fixtures, name), tmp)
        shutil.copy(os.path.join(source, "resources", "contract", "_hotkernel_contract.py"), tmp)
        # A cache the user named outside every worker's scratch (the examples' nvcc builds; the GPU
        # scripts set it): the scratch must name its own, or honest_caches.py cannot write there.
        outside = os.path.join(tmp, "user-cubin-cache")
        env = dict(os.environ, HOTKERNEL_LOCK_DIR=tmp, HOTKERNEL_CUBIN_CACHE=outside, HOTKERNEL_FIXTURE_SCALE="0.3")
        runs = [("gelu_baseline.py", c, e, []) for c, e in sorted(EXPECTED.items())]
        runs += [("gelu_baseline.py", c, e, ["--fresh"]) for c, e in sorted(EXPECTED_FRESH.items())]
        runs += [(b, c, e, []) for b, c, e in EXPECTED_PAIRS]
        for baseline, candidate, expected, extra in runs:
            watched = {name: _ctime(os.path.join(tmp, name)) for name in ("gelu_baseline.py", "_hotkernel_contract.py")}
            proc = subprocess.run([binary, "verify", baseline, candidate, "--n", "2", "--warmup", "0",
                                   "--json"] + extra, cwd=tmp, env=env, capture_output=True, text=True, timeout=600)
            try:
                result = json.loads(proc.stdout)
            except ValueError:
                failures.append("%s: no JSON result (exit %d): %s" % (candidate, proc.returncode,
                                                                       (proc.stderr or proc.stdout)[-800:]))
                continue
            # A verify refused before any run (class 7's mixed pair) answers {"error": ...} alone.
            verdict = result.get("verdict") or ("error" if result.get("error") else None)
            if baseline != "gelu_baseline.py":
                candidate = "%s against %s" % (candidate, baseline)
            if verdict == "error" or result.get("contracted") is False:
                # Nothing ran under the contract: no confinement to check, no judge, no speedup.
                print("%-22s expected %-28s got %-12s %s" % (candidate, "/".join(sorted(expected)), verdict,
                                                              (result.get("reason") or result.get("error") or "")[:160]))
                if verdict not in expected:
                    failures.append("%s: verdict %s, expected %s (%s)" % (candidate, verdict, expected,
                                                                         result.get("reason") or result.get("error")))
                continue
            confined = str(result.get("confinement", {}).get("candidate", "")).startswith("landlock ABI")
            if confined and candidate in EXPECTED_CONFINED:
                expected = EXPECTED_CONFINED[candidate]
            if not confined and not result.get("confinement", {}).get("candidate", "").startswith(
                    "none: this kernel has no Landlock"):
                failures.append("%s: the candidate ran unconfined on a kernel with Landlock: %s"
                                % (candidate, result.get("confinement")))
            if confined:
                for problem in _nothing_planted(tmp, watched):
                    failures.append("%s: %s although the candidate was confined" % (candidate, problem))
            print("%-22s%-8s expected %-28s got %-12s %s" % (candidate, " ".join(extra), "/".join(sorted(expected)),
                                                               verdict,
                                                          result.get("reason", "")[:160]))
            if candidate in NEEDS_PROTOCOL_5 and protocol < 5:
                print("%-22s not asserted: protocol %d, this case needs protocol 5" % (candidate, protocol))
                continue
            if verdict not in expected:
                failures.append("%s: verdict %s, expected %s (%s)" % (candidate, verdict, expected,
                                                                     result.get("reason")))
            if (candidate in EXPECTED_REASON and verdict == REASON_FOR.get(candidate, verdict) and
                    EXPECTED_REASON[candidate] not in result.get("reason", "")):
                failures.append("%s: the reason does not name %r: %s" % (candidate, EXPECTED_REASON[candidate],
                                                                       result.get("reason")))
            if extra:
                continue  # the checks below are about the warm workers' judge
            if candidate == "honest.py" and result.get("outside_judge", {}).get("runs_judged") != 2:
                failures.append("honest.py: the judge outside the candidate's process judged %s runs, not 2"
                                % result.get("outside_judge"))
            # CPU outputs travel through the file (CUDA IPC is the GPU's transport).
            if candidate == "honest.py" and result.get("outside_judge", {}).get("transport") != "file":
                failures.append("honest.py: the judged outputs travelled by %s, not file"
                                % result.get("outside_judge"))
            if verdict not in HONEST_VERDICTS and result.get("speedup") is not None:
                failures.append("%s: reports a speedup %s" % (candidate, result.get("speedup")))
    for f in failures:
        print("FAIL " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
