// SPDX-License-Identifier: Apache-2.0
// A spare worker (issue 23, docs/processes.md "Spare workers"): an interpreter started ahead of
// need (resources/scripts/spare_worker.py) that has imported torch and made its CUDA context, and
// waits to become a target's worker. WorkerPool keeps a few and hands one to a WorkerScriptRunner,
// which sends it the script to run. Local only; lives on the Session's thread; never blocks it.
#pragma once

#include "base/json.h"
#include "measure/witnesstrace.h"
#include "measure/workersandbox.h"

#include <QByteArray>
#include <QObject>
#include <QString>

#include <map>
#include <memory>

class QProcess;

namespace hotkernel {

class WitnessTrace;
class WorkerSandbox;

// What a spare must match to serve a runner: the same interpreter and the same tracer injection
// (both are fixed when a process starts).
struct SpareRecipe
{
    QString python;        // absolute
    QString witnessTracer; // empty: not witnessed
    bool operator==(const SpareRecipe &) const = default;
};

// What a runner takes over: the running process and what it had said so far.
struct SpareHandOff
{
    std::unique_ptr<QProcess> process;
    long long group = 0;
    std::unique_ptr<WitnessTrace> witness;
    std::unique_ptr<WorkerSandbox> sandbox; // its scratch and confinement (issue 41)
    QByteArray pendingStdout;               // after the spare-ready line
    QByteArray stderrTail;
};

class SpareWorker : public QObject
{
    Q_OBJECT
public:
    // script: the spare_worker.py to run (a file the pool wrote from hotkernel's resources).
    SpareWorker(SpareRecipe recipe, QString script, QObject *parent = nullptr);
    ~SpareWorker() override; // ends the process unless it was handed over

    void start();
    const SpareRecipe &recipe() const { return m_recipe; }
    bool isAlive() const;
    // It said spare-ready (torch imported, CUDA context made) and is still running.
    bool isReady() const;
    long long processGroup() const { return m_group; }
    // The files it imported outside the interpreter, with the sha256 it reported (empty: it could
    // not vouch for one).
    const std::map<QString, QByteArray> &imported() const { return m_imported; }
    // Why a spare that reported `imported` must not be handed over: one of those files changed
    // since (or could not be vouched for). Empty when it may. Reads and hashes those files: on the
    // thread pool only (WorkerPool::judgeReuse).
    static QString staleImport(const std::map<QString, QByteArray> &imported);
    // Gives the process to a runner; this object is spent afterwards.
    SpareHandOff handOff();

private:
    void readStandardOutput();

    SpareRecipe m_recipe;
    QString m_script;
    std::unique_ptr<QProcess> m_process;
    std::unique_ptr<WitnessTrace> m_witness;
    std::unique_ptr<WorkerSandbox> m_sandbox;
    long long m_group = 0;
    QByteArray m_stdout;
    QByteArray m_stderrTail;
    Json m_ready;
    std::map<QString, QByteArray> m_imported; // path -> sha256 hex (empty: cannot vouch)
    bool m_badReady = false;
};

} // namespace hotkernel
