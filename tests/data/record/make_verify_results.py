# SPDX-License-Identifier: Apache-2.0
# Writes the hand-made verify results under tests/data/record/verify/, shaped exactly like
# docs/verify-result.md (our own format, so hand-made inputs are fine until verify produces real
# ones). Run from this directory: python3 make_verify_results.py
import hashlib
import json
import os

here = os.path.dirname(os.path.abspath(__file__))


def sha(name):
    with open(os.path.join(here, "scripts", name), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


H200 = {"available": True, "name": "NVIDIA H200", "uuid": "GPU-00000000-test", "driver": "580.95.05",
        "cuda_driver_version": "13.0", "memory_total_mib": 143771, "power_limit_w": 700.0,
        "compute_capability": "9.0", "max_sm_clock_mhz": 1980, "sm_clock_mhz": 1980, "mem_clock_mhz": 3201,
        "temperature_c": 41, "throttle_reasons": [], "l2_bytes": 62914560, "sm_count": 132, "source": "nvml",
        "busy_processes": []}
NO_GPU = {"available": False, "reason": "no NVIDIA driver on this machine (libnvidia-ml.so.1 not found)"}


def stats(mean, std, n=7):
    samples = [round(mean + std * d, 6) for d in (-1, 0, 1, 0, -1, 1, 0)][:n]
    return {"n": n, "mean_ms": mean, "std_ms": std, "min_ms": min(samples), "samples_ms": samples}


def verify(target, verdict, reason, mean_b, std_b, mean_c, std_c, speedup=None, gpu=H200, device="cuda",
           mismatches=(), failed_runs=(), started="2026-12-02T10:00:00Z", n=7):
    b, c = f"{target}_baseline.py", f"{target}_candidate.py"
    return {
        "tool": "verify", "hotkernel_version": "0.1.0",
        "baseline": b, "candidate": c,
        "baseline_path": "/replaced/by/the/test/" + b, "candidate_path": "/replaced/by/the/test/" + c,
        "baseline_sha256": sha(b), "candidate_sha256": sha(c),
        "target": target, "verdict": verdict, "reason": reason,
        "speedup": speedup,
        "speedup_ci95": [round(speedup * 0.98, 4), round(speedup * 1.02, 4)] if speedup else None,
        "speedup_ci99": [round(speedup * 0.97, 4), round(speedup * 1.03, 4)] if speedup else None,
        "rule": "welch", "min_effect": 0.01, "alpha": 0.01,
        "n": n, "warmup": 1, "adaptive": True, "mode": "warm",
        "workers_reused": {"baseline": False, "candidate": False},
        "baseline_stats": stats(mean_b, std_b, n), "candidate_stats": stats(mean_c, std_c, n),
        "contract": {"protocol": 3, "shape": [4096, 8192], "dtype": "bf16", "seed": 0, "iters": 50,
                     "rotate": ["x"], "rotate_k": 3, "flops": None, "bytes": 134217728, "device": device,
                     "device_name": gpu.get("name", "cpu"), "timer": "graph" if device == "cuda" else "wall",
                     "target_sha256": "0" * 64, "contract_sha256": "1" * 64},
        "mismatches": list(mismatches), "failed_runs": list(failed_runs),
        "roofline_inputs": {"flops": None, "bytes": 134217728},
        "versions": {"python": "3.12.3", "torch": "2.11.0" if device == "cuda" else "1.13.1",
                     "triton": "3.6.0" if device == "cuda" else None, "cuda": "13.0" if device == "cuda" else None},
        "interpreter": {"path": "/usr/bin/python3", "source": "HOTKERNEL_PYTHON"},
        "gpu": gpu,
        "commands": [f"/usr/bin/python3 {b} --worker", f"/usr/bin/python3 {c} --worker"],
        "warnings": [],
        "started_at": started, "finished_at": started.replace(":00Z", ":09Z"), "wall_s": 9.1,
    }


results = {
    "rmsnorm-faster": verify("rmsnorm", "faster", "candidate mean lower by more than the rule's margin",
                             0.0372, 0.0002, 0.0310, 0.0001, speedup=1.2),
    "rmsnorm-slower": verify("rmsnorm", "slower", "candidate mean higher by more than the rule's margin",
                             0.0372, 0.0002, 0.0401, 0.0003),
    "rmsnorm-incorrect": verify("rmsnorm", "incorrect", "candidate run 3 failed its check",
                                0.0372, 0.0002, 0.0290, 0.0002,
                                failed_runs=[{"side": "candidate", "run": 3, "mismatch": "max abs error 0.5 > atol 0.016"}]),
    "rmsnorm-faster-best": verify("rmsnorm", "faster", "candidate mean lower by more than the rule's margin",
                                  0.0371, 0.0002, 0.0275, 0.0001, speedup=1.3491),
    "rmsnorm-faster-less": verify("rmsnorm", "faster", "candidate mean lower by more than the rule's margin",
                                  0.0373, 0.0002, 0.0339, 0.0002, speedup=1.1003),
    "rmsnorm-invalid-cpu": verify("rmsnorm", "invalid", "the scripts disagree on the contract",
                                  31.5, 0.4, 30.9, 0.5, gpu=NO_GPU, device="cpu",
                                  mismatches=["dtype: baseline bf16, candidate fp16"]),
    "softmax-inconclusive": verify("softmax", "inconclusive", "difference within the rule's margin",
                                   0.0401, 0.0004, 0.0399, 0.0004),
    "gelu-faster-cpu": verify("gelu", "faster", "candidate mean lower by more than the rule's margin",
                              48.25, 0.61, 40.125, 0.5, speedup=1.2025, gpu=NO_GPU, device="cpu", n=5),
}
os.makedirs(os.path.join(here, "verify"), exist_ok=True)
for name, value in results.items():
    with open(os.path.join(here, "verify", name + ".json"), "w") as f:
        json.dump(value, f, indent=2)
        f.write("\n")
