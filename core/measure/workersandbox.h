// SPDX-License-Identifier: Apache-2.0
// How a local worker process starts (issue 41): in a private scratch with its own compiler caches
// (WorkerScratch), allowed to write only there and to /dev (WriteConfinement through
// hotkernel-supervise), and, when witnessed, with its tracer writing into a pipe only hotkernel
// reads (WitnessTrace::piped). Spare workers and kept workers start the same way, so a spare that
// becomes a candidate is as confined as a worker started for one. Lives on the Session's thread.
#pragma once

#include <QString>

#include <memory>

class QProcess;

namespace hotkernel {

class WitnessTrace;
class WorkerScratch;
class WriteConfinement;

class WorkerSandbox
{
public:
    // Sets process's environment and wraps it in the supervisor; call start() on the process next,
    // then started(). *witness becomes the run's trace when witnessTracer is set (null when no pipe
    // could be made: the runs go unwitnessed, and verify says so).
    WorkerSandbox(QProcess &process, const QString &witnessTracer, std::unique_ptr<WitnessTrace> *witness);
    ~WorkerSandbox();
    WorkerSandbox(const WorkerSandbox &) = delete;
    WorkerSandbox &operator=(const WorkerSandbox &) = delete;

    void started();
    // The only directory the worker may write (besides /dev); empty when none could be made.
    QString scratch() const;
    // "landlock ABI N" or "none: REASON" (WriteConfinement::result); call once the worker runs.
    QString confinement();

private:
    std::unique_ptr<WorkerScratch> m_scratch;
    std::unique_ptr<WriteConfinement> m_confinement;
    WitnessTrace *m_witness = nullptr;
    QString m_failure;
};

} // namespace hotkernel
