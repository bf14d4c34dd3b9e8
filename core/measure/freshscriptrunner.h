// SPDX-License-Identifier: Apache-2.0
// Process per run: `python SCRIPT --run I` through ProcessRunner (its group dies on timeout or
// cancel). Slow (an interpreter start per run) but shares nothing between runs. Session thread.
#pragma once

#include "measure/scriptrunner.h"

namespace hotkernel {

class FreshScriptRunner : public ScriptRunner
{
public:
    explicit FreshScriptRunner(ScriptRunnerOptions options);

    QString mode() const override { return QStringLiteral("fresh"); }
    void start() override {}
    QCoro::Task<bool> waitReady() override;
    QCoro::Task<RunOutcome> run(int runIndex) override;
    void stop() override {}
    void setJob(QPointer<Job> job) override { m_job = job; }
    QString commandLine() const override;

private:
    QPointer<Job> m_job;
};

} // namespace hotkernel
