// SPDX-License-Identifier: Apache-2.0
// Who else computes on the GPU while we time. GPU locks are per user (issue 18), so another user's
// process can share the card; NVML (or nvidia-smi --query-compute-apps) lists it, and a verdict
// must then not call a candidate faster or slower on those timings alone. A process that only holds
// a context (issue 42: another session's idle spare workers) computes nothing: NVML's per-process
// utilisation samples over the timed runs tell the two apart. Pure but for the /proc
// look-ups behind isOwnProcess() and isVisible(); any thread.
#pragma once

#include "base/json.h"

#include <QString>
#include <QStringList>

#include <functional>
#include <vector>

namespace hotkernel::GpuSharing {

struct Other
{
    long long pid = 0;
    QString name;
    double memoryMib = -1; // -1 when not reported
    // The most of the card it kept busy in any utilisation sample of the timed runs (NVML's SM or
    // memory utilisation, percent, the larger); -1 when not known, 0 when it only held a context
    // (an idle CUDA context, such as another hotkernel session's spare worker, computes nothing).
    double busyPercentMax = -1;
    // Issue 42: another hotkernel session of this user said this process is its own (SessionPeers,
    // over its socket; never guessed from a command line). Empty for anyone else.
    QString session{};   // "hotkernel serve (pid 4242) in /home/u/proj"
    QString role{};      // "spare", "baseline", "candidate"
    QString howToEnd{};  // "end that session (kill 4242)", "close that window"
    QString socket{};    // where that session listens
    long long group = 0; // its process group, as attribute() found it
};

// A process group another session of this user reported as its worker or spare.
struct PeerProcess
{
    long long group = 0;
    QString role;
    QString session;
    QString howToEnd;
    QString socket;
};

// This process or one below it (our supervised workers and what they started).
bool isOwnProcess(long long pid);
bool isVisibleProcess(long long pid);

// The processes in gpu["busy_processes"] (GpuProbe's snapshot) that are not ours. A pid that is
// not visible here (another PID namespace: a container) cannot be told apart from our own worker
// and is left out rather than blamed.
std::vector<Other> others(const Json &gpu, const std::function<bool(long long)> &isOurs = isOwnProcess,
                          const std::function<bool(long long)> &isVisible = isVisibleProcess);
// Per-process activity during the timed runs, from GpuProbe::processUtilization's object
// ({"known": bool, "processes": [{"pid", "sm_percent_max", "mem_percent_max", "samples"}]}): sets
// each process's busyPercentMax (0 for one the samples do not list: it ran nothing). Unknown
// activity leaves -1.
void addActivity(std::vector<Other> &others, const Json &utilization);
// Those that computed during the timed runs, or whose activity is unknown (then their presence
// alone counts: the verdict cannot tell them from computing ones). idle, when given, gets the rest.
std::vector<Other> computing(const std::vector<Other> &others, std::vector<Other> *idle = nullptr);
// "pid 770 python3 (1202 MiB), pid 81 ..."; with known activity "pid 770 python3 (1202 MiB, busy
// up to 97%)" or "(1202 MiB, idle)".
QString describe(const std::vector<Other> &others);
// The process group of pid (/proc/PID/stat); 0 when it is gone. A worker's children share it.
long long processGroupOf(long long pid);
// Marks each process whose group a peer session reported with that session (Other::session...).
void attribute(std::vector<Other> &others, const std::vector<PeerProcess> &peers,
               const std::function<long long(long long)> &groupOf = processGroupOf);
// The sockets of the sessions whose spares are among others, each once.
QStringList socketsWithSpares(const std::vector<Other> &others);
// The warning for the spares among others that were asked to end (answers: those sessions'
// hotkernel/release_spares results, each with its "socket" and "released" groups); a spare no
// answer confirms is said to be so.
QString releasedSpares(const std::vector<Other> &others, const std::vector<Json> &answers);
// For each session among others, once: "hotkernel serve (pid 4242) in /p: end that session (kill
// 4242)"; joined by "; ". Empty when none is another session's.
QString howToFree(const std::vector<Other> &others);
// Whether every one of others is another hotkernel session's (and there is at least one).
bool allOfSessions(const std::vector<Other> &others);
// Merges b into a, leaving out pids a already has.
void merge(std::vector<Other> &a, const std::vector<Other> &b);

} // namespace hotkernel::GpuSharing
