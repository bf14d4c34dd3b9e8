#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A real one-node Slurm for the tests, without systemd: Debian 12's munge and slurm-wlm (22.05),
# every file of it inside DIR, on free ports. Root only (slurmd must start jobs as their user).
#
#   slurm-cluster.sh start DIR   starts munged, slurmctld and slurmd; waits until the node is idle;
#                                prints SLURM_CONF=DIR/slurm.conf (export it for the clients)
#   slurm-cluster.sh stop DIR    cancels every job, ends every process start left (pids in DIR)
#
# Exit status 77 means "cannot run here" (not root, a package missing), with the reason on stderr.
set -euo pipefail

say() { printf '[slurm-cluster] %s\n' "$*" >&2; }
skip() { say "$*"; exit 77; }

action=${1:-}
dir=${2:-}
[ -n "$action" ] && [ -n "$dir" ] || { say "usage: $0 start|stop DIR"; exit 2; }

stop_pid() { # stop_pid FILE: SIGTERM, then SIGKILL 5 s later, the process whose pid FILE holds
    local file=$1 pid
    [ -f "$file" ] || return 0
    pid=$(cat "$file")
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$file"
}

if [ "$action" = stop ]; then
    dir=$(cd "$dir" 2>/dev/null && pwd) || exit 0
    export SLURM_CONF="$dir/slurm.conf"
    if [ -f "$dir/pids/slurmctld" ] && [ -f "$SLURM_CONF" ]; then
        # Jobs first, so that slurmd's slurmstepd processes end their steps and exit themselves.
        scancel --full 2>/dev/null || true
        for _ in $(seq 100); do
            [ -z "$(squeue --noheader --states=RUNNING,PENDING,COMPLETING,CONFIGURING,SUSPENDED \
                    --format=%i 2>/dev/null)" ] && break
            sleep 0.1
        done
    fi
    stop_pid "$dir/pids/slurmd"
    stop_pid "$dir/pids/slurmctld"
    # A slurmstepd outlives slurmd when a step would not end: find ours by the config they carry.
    # (Only slurmstepd: whoever runs this script may carry the same SLURM_CONF.)
    for env in /proc/[0-9]*/environ; do
        pid=${env#/proc/}; pid=${pid%/environ}
        case $(cat "/proc/$pid/comm" 2>/dev/null) in slurmstepd*) ;; *) continue ;; esac
        if { tr '\0' '\n' <"$env"; } 2>/dev/null | grep -qxF "SLURM_CONF=$SLURM_CONF"; then
            kill -KILL "$pid" 2>/dev/null || true
        fi
    done
    stop_pid "$dir/pids/munged"
    exit 0
fi

[ "$action" = start ] || { say "unknown action '$action': use start or stop"; exit 2; }
[ "$(id -u)" = 0 ] || skip "needs root: slurmd runs jobs as their user and munged as 'munge'"
for tool in munged mungekey slurmctld slurmd sinfo squeue scancel python3; do
    command -v "$tool" >/dev/null || skip "'$tool' is missing: apt-get install munge slurm-wlm"
done
getent passwd munge >/dev/null || skip "no 'munge' user: Debian's munge package creates it"

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
# munged runs as 'munge' and must reach its folder; it refuses folders others can write.
chmod 755 "$dir"
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log" "$dir/pids"
chown munge:munge "$dir/munge"
chmod 711 "$dir/munge"   # clients need x to reach the socket; munged insists

# --- munge: a key of our own, the daemon's socket, pid, seed and log in DIR ------------------
if [ ! -f "$dir/munge/munge.key" ]; then
    runuser -u munge -- mungekey --create --keyfile="$dir/munge/munge.key" >/dev/null
fi
socket="$dir/munge/munge.socket"
runuser -u munge -- munged --key-file="$dir/munge/munge.key" --socket="$socket" \
    --pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/munged.seed" \
    --log-file="$dir/munge/munged.log"
for _ in $(seq 50); do [ -S "$socket" ] && [ -s "$dir/munge/munged.pid" ] && break; sleep 0.1; done
[ -S "$socket" ] || { say "munged did not start:"; cat "$dir/munge/munged.log" >&2; exit 1; }
cp "$dir/munge/munged.pid" "$dir/pids/munged"

# --- slurm.conf --------------------------------------------------------------------------------
read -r ctld_port node_port < <(python3 - <<'PY'
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])
PY
)
host=$(hostname -s)
cpus=$(nproc)
cat >"$dir/slurm.conf" <<CONF
# Written by tests/slurm/slurm-cluster.sh: a one-node cluster for hotkernel's tests.
# Addresses given, so that the host name need not resolve.
ClusterName=hotkernel-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$node_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/log/slurmctld.pid
SlurmdPidFile=$dir/log/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
# The tests exceed a one-minute limit on purpose: end such a job promptly.
OverTimeLimit=0
KillWait=5
InactiveLimit=0
MinJobAge=300
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
# A job in 'urgent' preempts (cancels) jobs in 'preemptible': the tests' preemption.
PreemptType=preempt/partition_prio
PreemptMode=CANCEL
PartitionName=preemptible Nodes=$host MaxTime=INFINITE State=UP PriorityTier=1
PartitionName=urgent Nodes=$host MaxTime=INFINITE State=UP PriorityTier=2
CONF
export SLURM_CONF="$dir/slurm.conf"

# --- the daemons, in the foreground of a background shell so that their pids are exact ---------
setsid slurmctld -D -i -f "$SLURM_CONF" </dev/null >"$dir/log/slurmctld.out" 2>&1 &
echo $! >"$dir/pids/slurmctld"
for _ in $(seq 100); do scontrol ping >/dev/null 2>&1 && break; sleep 0.1; done
scontrol ping >/dev/null 2>&1 || {
    say "slurmctld did not answer:"; tail -20 "$dir/log/slurmctld.out" >&2; exit 1; }
setsid slurmd -D -f "$SLURM_CONF" -N "$host" </dev/null >"$dir/log/slurmd.out" 2>&1 &
echo $! >"$dir/pids/slurmd"

state=
for _ in $(seq 300); do
    state=$(sinfo --noheader --nodes="$host" --format=%T 2>/dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.1
done
if [ "$state" != idle ]; then
    say "node $host is '${state:-unknown}', not idle, after 30 s:"
    tail -20 "$dir/log/slurmd.out" "$dir/log/slurmctld.out" >&2 || true
    exit 1
fi
say "node $host idle ($cpus CPUs), slurmctld on port $ctld_port"
echo "SLURM_CONF=$SLURM_CONF"
