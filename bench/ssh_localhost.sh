#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 24 on the GPU machine: verify a target directly and through SSH to localhost, taking turns,
# and print both verdicts, speedups and wall times (what the remote path adds). The GPU machine has
# no OpenSSH: Debian's packages travel as .deb files and are unpacked with dpkg -x into a private
# prefix; sshd runs there on a free localhost port with its own host key and authorized key.
#
# Here (Debian 12), into a folder that travels (e.g. .carry/debs):
#   apt-get download openssh-server openssh-client libwrap0 libssl3 libgssapi-krb5-2 libkrb5-3 \
#       libk5crypto3 libkrb5support0 libkeyutils1 libcom-err2 libcrypt1 libpam0g libaudit1 \
#       libcap-ng0 libselinux1 libpcre2-8-0 libsystemd0 libzstd1 liblz4-1 liblzma5 libgcrypt20 \
#       libgpg-error0 libcap2 zlib1g libnsl2 libtirpc3 libtirpc-common
# There (root; hotkernel on PATH, e.g. from packaging/gpu-bundle.sh):
#   bash bench/ssh_localhost.sh .carry/debs [TARGET] [REPEAT] [N]
# (HOTKERNEL_SSH_INSPECT=1 adds the inspect tools, HOTKERNEL_SSH_RECORD=WHO a recorded verify.)
# The remote working directory is the local one (a shared directory, detected by hotkernel), so
# nothing is copied and the host needs no rsync.
set -euo pipefail
debs=$(cd "${1:?a folder of .deb files}" && pwd)
target=${2:-rmsnorm}
repeat=${3:-3}
n=${4:-7}
root=$(cd "$(dirname "$0")/.." && pwd)
python=${HOTKERNEL_PYTHON:-$(command -v python3)}
prefix=$(mktemp -d)
work=$(mktemp -d)
keys=$(mktemp -d)
trap 'kill "$(cat "$keys/sshd.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$prefix" "$work" "$keys"' EXIT
for deb in "$debs"/*.deb; do dpkg -x "$deb" "$prefix"; done
libs=$prefix/usr/lib/x86_64-linux-gnu:$prefix/lib/x86_64-linux-gnu
# Wrappers: only ssh and ssh-keygen see the unpacked libraries, never hotkernel or torch.
for tool in ssh ssh-keygen; do
    printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$libs" "$prefix/usr/bin/$tool" >"$prefix/$tool"
    chmod +x "$prefix/$tool"
done
# sshd's privilege separation user and directory; a locked root ('!' in shadow) would refuse keys too.
id sshd >/dev/null 2>&1 || useradd -r -M -d /run/sshd -s /usr/sbin/nologin sshd
mkdir -p /run/sshd && chmod 755 /run/sshd
case "$(getent shadow root | cut -d: -f2)" in '!'*) usermod -p '*' root ;; esac
"$prefix/ssh-keygen" -q -t ed25519 -N '' -f "$keys/host_key"
"$prefix/ssh-keygen" -q -t ed25519 -N '' -f "$keys/client_key"
cp "$keys/client_key.pub" "$keys/authorized_keys"
port=$("$python" -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
cat >"$keys/sshd_config" <<CONFIG
Port $port
ListenAddress 127.0.0.1
HostKey $keys/host_key
AuthorizedKeysFile $keys/authorized_keys
PidFile $keys/sshd.pid
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
CONFIG
echo "[127.0.0.1]:$port $(cat "$keys/host_key.pub")" >"$keys/known_hosts"
printf 'Host *\n  IdentityFile %s\n  IdentitiesOnly yes\n  UserKnownHostsFile %s\n  StrictHostKeyChecking yes\n' \
    "$keys/client_key" "$keys/known_hosts" >"$keys/ssh_config"
LD_LIBRARY_PATH=$libs "$prefix/usr/sbin/sshd" -e -f "$keys/sshd_config"
sleep 1
# Each verify a process of its own: the direct and the SSH path pay the same starts.
export HOTKERNEL_NO_SESSION=1 HOTKERNEL_SSH=$prefix/ssh HOTKERNEL_SSH_CONFIG=$keys/ssh_config HOTKERNEL_PYTHON=$python
# HOTKERNEL_SSH_BENCH_DIR: another folder of targets (a CPU one to try this without a GPU).
cp -r "${HOTKERNEL_SSH_BENCH_DIR:-$root/examples}/." "$work/"
cd "$work"
url="ssh://root@127.0.0.1:$port$work?python=$python"
echo "host: $url"
summary() {
    "$python" -c 'import json, sys
d = json.load(sys.stdin)
w = d.get("witness") or {}
seen = "; ".join("%s %s kernels, %.4f ms busy/call" % (side, w[side].get("kernels"), w[side].get("busy_ms_per_call") or 0)
                 for side in ("baseline", "candidate") if isinstance(w.get(side), dict) and w[side])
unwitnessed = [x for x in d.get("warnings", []) if "witness" in x]
print("| %s | %s | %s | %.2f | %s | %s | %s |" % (sys.argv[1], d.get("verdict"), d.get("speedup") and "%.3fx" % d["speedup"],
      d.get("wall_s") or 0, (d.get("host") or {}).get("hostname", "local"), seen or "; ".join(unwitnessed)[:160] or "-",
      (d.get("confinement") or {}).get("candidate", "-")[:80]))' "$1"
}
# The candidate's confinement (issue 41): "landlock ABI N" on both paths, the remote supervisor's there.
echo "| path | verdict | speedup | wall s | host | GPU witness (last pair) | candidate confined |"
echo "|---|---|---|---|---|---|---|"
for _ in $(seq "$repeat"); do
    hotkernel verify "${target}_baseline.py" "${target}_candidate.py" --n "$n" --json 2>>"$keys/progress.log" |
        summary direct
    hotkernel --host "$url" verify "${target}_baseline.py" "${target}_candidate.py" --n "$n" --json \
        2>>"$keys/progress.log" | summary ssh
done
# HOTKERNEL_SSH_RECORD=WHO: one more verify through SSH, recorded (into this run's scratch copy,
# not the project's results/), and what its log says of where it ran: the host, and the card,
# driver and clocks read there.
if [ -n "${HOTKERNEL_SSH_RECORD:-}" ]; then
    hotkernel --host "$url" verify "${target}_baseline.py" "${target}_candidate.py" --n "$n" --json --record \
        --note "through SSH to localhost (bench/ssh_localhost.sh)" --who "$HOTKERNEL_SSH_RECORD" \
        2>>"$keys/progress.log" >"$keys/recorded.json" || true
    "$python" -c 'import json, sys
d = json.load(open(sys.argv[1]))
log = (d.get("record") or {}).get("log")
if not log:
    sys.exit("not recorded: %s" % (d.get("error") or d.get("reason")))
v = json.load(open(log))["verify"]
g, h = v.get("gpu") or {}, v.get("host") or {}
print("recorded %s: %s %s" % (log, v.get("verdict"), v.get("speedup") and "%.3fx" % v["speedup"]))
print("  host: %s" % {k: h.get(k) for k in ("url", "hostname", "card", "driver", "shared_directory")})
print("  gpu (read there): %s" % {k: g.get(k) for k in ("source", "name", "driver", "sm_clock_mhz", "mem_clock_mhz", "max_sm_clock_mhz", "throttle_reasons")})' \
        "$keys/recorded.json"
fi
# The remote supervisors end when their ssh session closes: give them the seconds that takes.
for _ in $(seq 30); do
    left=$(ps -eo args | grep -F "$work" | grep -v grep || true)
    [ -z "$left" ] && break
    sleep 0.5
done
echo "processes left under $work after 15 s: ${left:-none}"

# The inspect tools on the host (HOTKERNEL_SSH_INSPECT=1): each run directly and through SSH, with
# what it found, so the two can be compared line by line. profile --tool trace and calibrate build
# hotkernel's helpers on the host with its CMake and nvcc first (timed in their rows).
[ "${HOTKERNEL_SSH_INSPECT:-0}" = 1 ] || exit 0
facts() {
    "$python" -c 'import json, sys
name, path, rc, start, end, file = sys.argv[1:]
wall = float(end) - float(start)
try:
    d = json.load(open(file))
except Exception:
    d = {}
k = d.get("kernels") or []
if "calibration" in d:
    f = d["calibration"].get("figures", {})
    what = ", ".join("%s %.0f %s" % (n, v.get("value", 0), v.get("unit", "")) for n, v in list(f.items())[:2])
elif "functions" in d:
    what = "%d functions, first %s; %s" % (len(d["functions"]), d["functions"][0]["demangled"][:40] if d["functions"] else "-", d.get("command", "")[:60])
elif k:
    top = k[0]
    what = "%d kernels, top %s %.1f us x%s; report %s" % (d.get("kernel_count", len(k)), (top.get("name") or "")[:40],
            (top.get("avg_ns") or top.get("total_ns") or 0) / 1e3, top.get("calls"), d.get("report", ""))
else:
    what = (d.get("error") or open(file).read()[-200:]).replace("\n", " ")
print("| %s | %s | %s | %.1f | %s |" % (name, path, rc, wall, what))' "$@"
}
inspect() { # ROW-NAME then hotkernel's arguments
    local name=$1 rc start end
    shift
    for path in direct ssh; do
        local host=()
        [ "$path" = ssh ] && host=(--host "$url")
        start=$(date +%s.%N)
        rc=0
        hotkernel "${host[@]}" --json "$@" >"$keys/out.json" 2>>"$keys/progress.log" || rc=$?
        end=$(date +%s.%N)
        facts "$name" "$path" "$rc" "$start" "$end" "$keys/out.json"
    done
}
echo
echo "| tool | path | exit | wall s | what it found |"
echo "|---|---|---|---|---|"
inspect "profile ncu" profile --tool ncu --kernel-regex "${HOTKERNEL_SSH_KERNEL:-rms}" --launch-count 1 "${target}_baseline.py"
inspect "profile trace (1st: builds the tracer there)" profile --tool trace "${target}_candidate.py"
inspect "profile trace" profile --tool trace "${target}_candidate.py"
inspect "torch-trace" torch-trace "${target}_baseline.py"
cubin=$(ls -t "${TRITON_CACHE_DIR:-$HOME/.triton/cache}"/*/*.cubin 2>/dev/null | head -n 1 || true)
[ -n "$cubin" ] && inspect "disasm (Triton's cubin)" disasm "$cubin" --list
inspect "calibrate --quick (1st: builds it there)" calibrate --quick
echo "processes left under $work: $(ps -eo args | grep -F "$work" | grep -v grep || echo none)"
echo "progress lines of the SSH runs:"
grep -E "preparing|on ssh" "$keys/progress.log" | sort | uniq -c | head -n 12 || true
