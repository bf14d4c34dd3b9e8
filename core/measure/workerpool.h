// SPDX-License-Identifier: Apache-2.0
// Long-lived Python workers kept between bench and verify calls of one Session, so that a verify
// pays torch's and CUDA's start-up only when something changed. Lives on the Session's thread.
#pragma once

#include "measure/scriptrunner.h"
#include "measure/spareworker.h"

#include <QByteArray>
#include <QCoroTask>
#include <QDateTime>
#include <QObject>
#include <QTemporaryDir>
#include <QTimer>

#include <memory>
#include <vector>

namespace hotkernel {

class WorkerScriptRunner;

struct WorkerLease
{
    std::shared_ptr<WorkerScriptRunner> runner;
    bool reused = false;    // a live worker of an earlier call, not started for this one
    bool fromSpare = false; // a new worker in a spare's process (issue 23)
};

class WorkerPool : public QObject
{
    Q_OBJECT
public:
    explicit WorkerPool(QObject *parent = nullptr);
    ~WorkerPool() override;

    // A script that a bench or verify is about to run in a role.
    struct ReuseRequest
    {
        QString role;
        QString script;
        QString python;
        QString pythonIdentity;
    };
    // Everything acquire() decides by reading files, done on the thread pool (issue 39: a file that
    // a script names is never read on the session's thread): each request's content key (returned
    // in order), whether the kept worker of each (role, script) still runs what is on disk, and
    // whether each ready spare does. acquire() reuses a worker, and hands over a spare, only when
    // this judged it fresh: call it right before acquire(), with no co_await in between.
    QCoro::Task<std::vector<QByteArray>> judgeReuse(std::vector<ReuseRequest> requests);
    // A worker for options.script in a role ("baseline", "candidate"): the kept one when it is
    // alive, key matches and judgeReuse() found every source file it reported unchanged, else a
    // new one (started, not yet ready). Baseline and candidate never share a process, even for the
    // same file. Reads no file.
    WorkerLease acquire(const QString &role, const ScriptRunnerOptions &options, const QByteArray &key);
    // Spares (issue 23, docs/processes.md): interpreters with torch imported and a CUDA context,
    // waiting to become a new worker of acquire(). At most kMaxSpares; 0 (the default) keeps none.
    void setSpareCount(int count);
    int spareCount() const { return m_spareCount; }
    // Starts spares for recipe up to the count (after a bench or verify, when the session opens);
    // spares of another interpreter or tracer end. Never for a remote host.
    void refillSpares(const SpareRecipe &recipe);
    int sparesAlive() const;
    int sparesReady() const;

    // Kills a worker and forgets it (it failed, or the call that used it was cancelled).
    void discard(const std::shared_ptr<WorkerScriptRunner> &runner);
    void clear();
    int size() const { return int(m_entries.size()); }
    // Process groups of every kept worker (so that GPU "busy" warnings can leave our own out).
    QList<long long> processGroups() const;
    // Each live process group with what it is: a kept worker's role ("baseline", "candidate") or
    // "spare" (issue 42: another session asks, over its socket, whose processes hold the card).
    std::vector<std::pair<long long, QString>> processes() const;
    // Ends every spare (another session's verify needs the card); the next refillSpares() starts
    // them again. Their process groups.
    QList<long long> releaseSpares();

    // What decides reuse, with the files the worker reports: the interpreter (path and identity,
    // e.g. its torch version), the script's bytes, the bytes of every sibling module it imports (a
    // candidate imports its baseline's TARGET) and of the vendored contract next to it, and
    // CUDA_VISIBLE_DEVICES.
    static QByteArray contentKey(const QString &script, const QString &python, const QString &pythonIdentity);

    static constexpr int kMaxWorkers = 4;
    static constexpr int kMaxSpares = 2;
    static constexpr std::chrono::minutes kIdleLimit{15};

private:
    struct Entry
    {
        QString role;
        QString script;
        QByteArray key;
        std::shared_ptr<WorkerScriptRunner> runner;
        QDateTime lastUsed;
        bool judged = false; // by the last judgeReuse(); reuse needs it
        QString stale;       // its verdict: why the worker must not be reused, or empty
    };
    void evictIdle();
    // A ready spare for options (same interpreter and tracer, nothing it imported changed), taken
    // out of the pool; nullptr when there is none.
    std::unique_ptr<SpareWorker> takeSpare(const ScriptRunnerOptions &options);
    QString spareScript();

    struct Spare
    {
        std::unique_ptr<SpareWorker> worker;
        QDateTime started;
        quint64 serial = 0;  // tells a spare from a later one at the same address
        bool judged = false; // as Entry's
        QString stale;
    };
    std::vector<Spare> m_spares;
    quint64 m_nextSpareSerial = 1;
    int m_spareCount = 0;
    std::unique_ptr<QTemporaryDir> m_spareDir; // spare_worker.py, written from the resources

    std::vector<Entry> m_entries;
    QTimer m_idleTimer;
};

} // namespace hotkernel
