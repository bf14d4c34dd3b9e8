// SPDX-License-Identifier: Apache-2.0
// The one session every front-end drives: the CLI, the MCP server and the window all start tool
// calls here and observe the same jobs. Lives on the main thread; never blocks it.
#pragma once

#include "base/job.h"
#include "base/json.h"
#include "base/workdir.h"
#include "measure/measuresession.h"
#include "process/pythonlocator.h"
#include "session/gpulock.h"
#include "session/resultids.h"
#include "session/toolregistry.h"

#include <QObject>
#include <QPointer>

#include <map>
#include <memory>
#include <set>

namespace hotkernel {

class Host;
class LocalHost;
class RemoteHost;
class WorkerPool;

struct SessionOptions
{
    QString workDir; // default: the current directory
    QString python;  // explicit interpreter; default HOTKERNEL_PYTHON, then PATH
    // Where workers run (issue 24, docs/remote.md): local, or ssh://...; default HOTKERNEL_HOST.
    QString host;
    int keepFinishedJobs = 500;
    // Spare workers kept warm for the next edit (issue 23, docs/processes.md): the window and
    // `hotkernel mcp` and `hotkernel serve` keep two (a first verify needs a baseline and a
    // candidate worker), the CLI alone (one call per process) none. HOTKERNEL_SPARES overrides.
    int spares = 0;
};

// Also the MeasureSession that measure's runs (bench, verify) are handed: its directory, interpreter,
// workers and host.
class Session : public QObject, public MeasureSession
{
    Q_OBJECT
public:
    // tools: the registry the creator composed (builtinTools() from core/tools/builtintools.h; a
    // session knows no tool by itself, issue 40).
    explicit Session(ToolRegistry tools, SessionOptions options = {}, QObject *parent = nullptr);
    ~Session() override;

    const ToolRegistry &tools() const { return m_tools; }
    // Tests swap in fake tools (a verify that needs no GPU); front-ends only read tools().
    ToolRegistry &mutableTools() { return m_tools; }
    const WorkDir &workDir() const override { return m_workDir; }
    PythonLocator &python() override { return m_python; }
    GpuLock &gpuLock() { return m_gpuLock; }
    WorkerPool &workers() override;
    // The session's remote host; null when it runs locally. hostError() says why the host it was
    // given cannot be used (a bad URL): measuring then fails with that message.
    RemoteHost *remote() const override { return m_remote; }
    const QString &hostError() const override { return m_hostError; }
    // Where the tools run, for their runners (docs/hosts.md): the remote host when there is one,
    // else this machine. Valid while the session lives; setHost() is refused while a job runs, so a
    // job's host does not change under it.
    Host &host();
    QObject *lifetime() override { return this; }
    // The host as the user wrote it ("local" when the workers run here).
    QString hostDisplay() const;
    // Moves where workers run (the window's host selector; docs/remote.md). Refused, with *error
    // saying why and what to do, for a URL hostkernel cannot use and while any job runs: its workers
    // and its connection belong to the host it started on. Kept workers of the old host end.
    bool setHost(const QString &host, QString *error);
    // Starts the session's spare workers (issue 23) when its directory holds targets
    // (*_baseline.py, also one folder down) and the workers run here: the window and `hotkernel
    // mcp` call it as they open, so that even the first verify finds one. Never throws.
    QCoro::Task<void> warmSpares();

    // Starts a tool call and returns its job at once; the job finishes later (Job::finished,
    // Session::jobFinished). Unknown tools and invalid arguments finish the job with an error.
    Job *start(const QString &tool, Json arguments, const QString &client);
    // Awaitable form of start(): the result once the job finishes.
    QCoro::Task<ToolResult> call(const QString &tool, Json arguments, const QString &client);

    void cancel(quint64 jobId);
    // Ends every running job started by client (an agent that disconnected); all when client is empty.
    void cancelAll(const QString &client = {});

    // Shutting down is a state (issue 39): after a termination signal every job still running is
    // cancelled and every job started from then on finishes at once with `why` as its error, so
    // that nothing new runs while the process ends. There is no way back.
    void beginShutdown(const QString &why);
    bool isShuttingDown() const { return !m_shutdownReason.isEmpty(); }
    const QString &shutdownReason() const { return m_shutdownReason; }

    // Which verify results this session produced: only those can be recorded (issue 19). The
    // candidate runs as the same user and can write any file, so the proof lives in this process's
    // memory only. A result is known by verifyDigest(), so an altered copy is a stranger.
    // runJob() vouches for every successful verify; tests call vouchForVerify() for results
    // they made by hand, which is what a live verify in this session would have done.
    static QByteArray verifyDigest(const Json &verifyResult);
    void vouchForVerify(const Json &verifyResult);
    bool vouchesForVerify(const Json &verifyResult) const;
    // Record takes the voucher before it writes (each verify is recorded at most once, also when
    // two records race) and gives it back when recording failed.
    bool takeVerifyVoucher(const QByteArray &digest);
    void returnVerifyVoucher(const QByteArray &digest);
    bool recordedVerify(const QByteArray &digest) const { return m_recordedVerifies.count(digest) > 0; }
    // The ids runJob() gives every successful verify (verify_id), which record takes instead of
    // the whole result (issue 44).
    const ResultIds &resultIds() const { return m_resultIds; }
    ResultIds &resultIds() { return m_resultIds; }

    Job *job(quint64 id) const;
    QList<Job *> runningJobs() const;
    QList<Job *> jobs() const; // running and kept finished ones, oldest first

Q_SIGNALS:
    void jobStarted(hotkernel::Job *job);
    void jobFinished(hotkernel::Job *job);
    void hostChanged();

private:
    // Plain pointer parameters (docs/hacking.md, "Compiler rules"), guarded inside ("Coroutines").
    QCoro::Task<void> runJob(Job *job, const ToolSpec *spec);
    void pruneFinished();
    void useHost(const QString &host);

    SessionOptions m_options;
    WorkDir m_workDir;
    ToolRegistry m_tools;
    PythonLocator m_python;
    GpuLock m_gpuLock;
    std::unique_ptr<WorkerPool> m_workers;
    RemoteHost *m_remote = nullptr; // a child: ends (ssh -O exit) with the session
    std::unique_ptr<LocalHost> m_localHost;
    QString m_hostError;
    QString m_shutdownReason; // set once, by beginShutdown()
    QString m_hostText;       // as given; empty: local
    quint64 m_nextJobId = 1;
    std::map<quint64, QPointer<Job>> m_jobs;
    std::set<QByteArray> m_verifyVouchers;
    std::set<QByteArray> m_recordedVerifies;
    ResultIds m_resultIds;
};

} // namespace hotkernel
