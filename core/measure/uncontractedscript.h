// SPDX-License-Identifier: Apache-2.0
// A script outside the measurement contract (the original hotkernel's generic form): any Python
// script that prints a JSON line with "ms" and "ok", run as `python SCRIPT ARGS...` in a fresh
// process per run. Nothing checks its inputs, reference, rotation or timer: bench and verify label
// its numbers "uncontracted" and record refuses them. Session thread.
#pragma once

#include "measure/processperrunrunner.h"

#include <optional>

namespace hotkernel {

class UncontractedScriptRunner : public ProcessPerRunRunner
{
public:
    UncontractedScriptRunner(ScriptRunnerOptions options, QStringList arguments);

    // True when the file does not import the vendored contract (_hotkernel_contract); false also
    // when it cannot be read (the contract path then says why).
    static bool isUncontracted(const QString &path);
    // The last stdout line that is a JSON object with a number "ms" and a boolean "ok".
    static std::optional<RunLine> parseOutput(const QByteArray &standardOutput, const QString &script,
                                              int run, QString *error);

    QString commandLine() const override;

protected:
    QStringList runArguments(int runIndex) const override;

private:
    QStringList m_arguments;
};

} // namespace hotkernel
