// SPDX-License-Identifier: Apache-2.0
// Process per run: `python SCRIPT --run I` through ProcessRunner (its group dies on timeout or
// cancel). Slow (an interpreter start per run) but shares nothing between runs. Session thread.
#pragma once

#include "measure/processperrunrunner.h"

namespace hotkernel {

class FreshScriptRunner : public ProcessPerRunRunner
{
public:
    explicit FreshScriptRunner(ScriptRunnerOptions options);

    QString commandLine() const override;

protected:
    QStringList runArguments(int runIndex) const override;
    QStringList judgeArguments(int runIndex, const QString &file) const override;
    LineAnswer runAnswers(int runIndex) const override;
};

} // namespace hotkernel
