// SPDX-License-Identifier: Apache-2.0
// What bench and verify share before and around the runs: resolving a script, its hash, the
// contract hotkernel ships, the runner for a mode, the GPU snapshot and its warnings, the
// cross-process device lock. Lives on the Session's thread.
#pragma once

#include "base/json.h"
#include "inspect/calibrationstore.h"
#include "measure/physicalfloor.h"
#include "measure/runline.h"
#include "measure/scriptrunner.h"
#include "process/pythonlocator.h"

#include <QCoroTask>
#include <QPointer>
#include <QProcess>

#include <chrono>

#include <map>
#include <memory>
#include <vector>

namespace hotkernel {

class DeviceLock;
class Job;
class MeasureSession;
class RemoteHost;
class WorkerScriptRunner;

struct ScriptFile
{
    QString given;  // as the user wrote it
    QString path;   // absolute
    QString sha256; // of the bytes before the runs (the verify hashes it, off the main thread)
};

struct PreparedRunner
{
    std::shared_ptr<ScriptRunner> runner;
    std::shared_ptr<WorkerScriptRunner> worker; // set in warm mode (the pool's worker)
    bool reused = false;
    bool fromSpare = false; // a new worker in a spare's process (issue 23)
};

namespace MeasureSetup {

// The script as an absolute path inside the session's directory tree or anywhere readable;
// throws UserError when it does not exist, is not a file, or is not a .py file. Its sha256 is left
// empty: hashing may take long, so callers that need it use sha256OfFiles.
ScriptFile script(MeasureSession &session, const Json &arguments, const char *key);

// Lowercase hex sha256 of a script or a file it imports (BoundedFile, at most kScriptLimit: a FIFO,
// a device or a huge file gives an empty string at once). Blocking: on the main thread only for
// a file already known to be a small regular one; else through sha256OfFiles.
QString sha256OfFile(const QString &path);
// sha256OfFile of each path, in order, on the thread pool.
QStringList sha256OfFilesNow(const QStringList &paths);
QCoro::Task<QStringList> sha256OfFiles(QStringList paths);
// The first of sources (path -> the sha256 hex a process reported for what it loaded; empty: it
// could not vouch, said as `unvouched`) whose bytes on disk differ now, with why ("PATH changed",
// "PATH vanished", ...); empty when none did. Reads and hashes every file. Kept workers and spares
// are both judged by it.
QString changedSource(const std::map<QString, QByteArray> &sources, const QString &unvouched);

// On a remote host (issue 24): connects when needed and copies the scripts, their contract and the
// local modules they use there (docs/remote.md). False when the job was cancelled; nothing to do
// for a local session. Throws UserError naming the host and the fix.
QCoro::Task<bool> prepareHost(MeasureSession &session, QStringList scripts, Job *job);
// What a result records about the host it ran on; null for a local session.
Json hostJson(MeasureSession &session);
// sha256 of the contract this build ships (:/hotkernel/contract/_hotkernel_contract.py); empty if unreadable.
QString shippedContractSha256();

// The interpreter to start workers with: a named one at once, its torch not yet checked
// (torchVersion empty), else the one PythonLocator finds. Throws UserError when none is found.
QCoro::Task<PythonInfo> startingInterpreter(MeasureSession &session, Job *job);
// python itself once its torch is known; else the torch probe, run while the workers start.
// Throws UserError when that interpreter cannot import torch.
QCoro::Task<PythonInfo> confirmedInterpreter(MeasureSession &session, const PythonInfo &python, Job *job);

// The CUPTI tracer every measured process of this session runs under in witness mode (issue 19),
// and so every spare (issue 23): empty where none is built. On a remote host, the tracer
// prepareRemoteWitness() built there (its workers stream the witness back; docs/remote.md).
QString witnessTracer(const MeasureSession &session);
// On a remote host with a GPU: builds the tracer there the first time (RemoteToolbox), so that
// its workers are witnessed as local ones are. A host that cannot build it (no CMake, no CUDA
// Toolkit) leaves its runs unwitnessed, which verify and bench then warn about, with this reason
// logged on the job; it is not tried again while the connection lasts. Nothing to do for a local
// session or a host without a GPU.
QCoro::Task<void> prepareRemoteWitness(MeasureSession &session, Job *job);

// The pool's content key of each (role, absolute script path) for python, with the kept workers
// and spares judged for reuse on the thread pool (WorkerPool::judgeReuse): warm mode calls it right
// before prepare(), with no co_await in between.
QCoro::Task<std::vector<QByteArray>> judgeWorkers(MeasureSession &session,
                                                  std::vector<std::pair<QString, QString>> roleScripts,
                                                  PythonInfo python);
// A fresh runner, or the pool's worker for (role, script) in warm mode (workerKey from
// judgeWorkers); started, not yet ready.
PreparedRunner prepare(MeasureSession &session, const QString &role, const ScriptFile &script,
                       const PythonInfo &python, bool fresh, std::chrono::milliseconds timeout,
                       QPointer<Job> job, const QByteArray &workerKey = {});
// Gives the prepared runners' workers back when a measurement ends, however it ends: a worker that
// died (failed, timed out, cancelled) leaves the pool, and every one does after dropAll().
class WorkerRelease
{
public:
    WorkerRelease(MeasureSession &session, std::vector<PreparedRunner *> runners);
    ~WorkerRelease();
    WorkerRelease(const WorkerRelease &) = delete;
    WorkerRelease &operator=(const WorkerRelease &) = delete;

    void dropAll() { m_dropAll = true; }

private:
    // Destroyed when the awaiting handler returns, which may be after the Session is gone:
    // m_session is used only while m_alive (its lifetime()) still points somewhere.
    MeasureSession *m_session;
    QPointer<QObject> m_alive;
    std::vector<PreparedRunner *> m_runners;
    bool m_dropAll = false;
};

// confirmedInterpreter for workers already starting on python: when it cannot import torch, they
// are of no use to anyone, and release drops them all before the UserError goes on.
QCoro::Task<PythonInfo> confirmedInterpreter(MeasureSession &session, const PythonInfo &python, Job *job,
                                             WorkerRelease &release);

// Takes the GPU lock for a measurement: the host's lock on a remote host (docs/remote.md), else
// this machine's (per user and device). False when it was cancelled or timed out waiting.
QCoro::Task<bool> takeGpuLock(DeviceLock &deviceLock, std::shared_ptr<QProcess> &remoteLock,
                              QPointer<RemoteHost> remote, QPointer<Job> job,
                              std::chrono::milliseconds timeout);

// The GPU snapshot plus warnings about other processes on it (our own workers are left out).
QCoro::Task<Json> gpuSnapshot(MeasureSession &session, Job *job, QStringList *warnings);
// Every calibration of the working directory and the user's store, read off the main thread.
// Issue 41: a measurement reads it before its workers start, so a worker cannot plant the file its
// floor is computed from.
QCoro::Task<CalibrationSnapshot> calibrations(QString workDir);
// The roofline floor's ceilings (issue 25) for the card of a GPU snapshot (else the result line's
// device_name) and the line's dtype, from calibrations read earlier, capped by the card's spec.
FloorCeilings floorCeilings(const Json &gpu, const Json &line, const CalibrationSnapshot &calibrations);

Json interpreterJson(const PythonInfo &python);
// The first keys of a result, contracted or not: tool, version, and the script as given, its path
// and hash (for verify, baseline and candidate side by side).
Json benchResultHead(const ScriptFile &script);
Json verifyResultHead(const ScriptFile &baseline, const ScriptFile &candidate);
// The contract block of a result: identity fields and device facts from a result line.
Json contractJson(const RunLine &line);
Json versionsJson(const RunLine &line);
QString utcNow();

} // namespace MeasureSetup
} // namespace hotkernel
