// SPDX-License-Identifier: Apache-2.0
// One call on a WorkerPool as verify makes it (acquire, wait until ready, run 1), for the tests of
// kept and spare workers: what the lease was and what the run said. Fails the current test (QVERIFY)
// when the worker does not come up or the run does not end.
#pragma once

#include "measure/workerpool.h"
#include "measure/workerscriptrunner.h"
#include "measuretesthelpers.h"
#include "testlimits.h"

#include <QProcess>
#include <QTest>

#include <memory>

namespace hotkernel::test {

// The interpreter the worker tests run (HOTKERNEL_PYTHON, else Debian's python3).
inline QString workerPython()
{
    return qEnvironmentVariable("HOTKERNEL_PYTHON", QStringLiteral("/usr/bin/python3"));
}

// Whether python imports torch: the worker tests skip where it does not.
inline bool importsTorch(const QString &python)
{
    QProcess probe;
    probe.start(python, {QStringLiteral("-c"), QStringLiteral("import torch")});
    return probe.waitForFinished(kEventLimitMs) && probe.exitCode() == 0;
}

// acquire() as verify calls it: the pool's reuse judged first, on the thread pool
// (WorkerPool::judgeReuse). A default lease when the judgement does not come.
inline WorkerLease judgedAcquire(WorkerPool &pool, const QString &role, const ScriptRunnerOptions &o)
{
    auto keys = capture(pool.judgeReuse({{role, o.script, o.python, {}}}));
    if (!QTest::qWaitFor([&] { return keys->done; }, kEventLimitMs) || !keys->value || keys->value->empty())
        return {};
    return pool.acquire(role, o, keys->value->front());
}

struct WorkerCall
{
    bool reused = false;
    bool fromSpare = false;
    long long group = 0; // the worker's process group
    bool ok = false;     // the run's correctness check
    QString mismatch;
    std::shared_ptr<WorkerScriptRunner> runner;
};

inline void callWorker(WorkerPool &pool, const QString &python, const QString &script, WorkerCall *out)
{
    ScriptRunnerOptions o;
    o.python = python;
    o.script = script;
    o.timeout = std::chrono::minutes(10); // far beyond a loaded machine's slowest start
    WorkerLease lease = judgedAcquire(pool, QStringLiteral("candidate"), o);
    QVERIFY(lease.runner);
    out->reused = lease.reused;
    out->fromSpare = lease.fromSpare;
    out->runner = lease.runner;
    auto ready = capture(lease.runner->waitReady());
    QTRY_VERIFY_WITH_TIMEOUT(ready->done, kEventLimitMs);
    QVERIFY2(ready->value && *ready->value, qPrintable(ready->error));
    out->group = lease.runner->processGroup();
    auto run = capture(lease.runner->run(1));
    QTRY_VERIFY_WITH_TIMEOUT(run->done, kEventLimitMs);
    QVERIFY2(run->value.has_value(), qPrintable(run->error));
    out->ok = run->value->line.ok;
    out->mismatch = run->value->line.mismatch;
}

} // namespace hotkernel::test
