// SPDX-License-Identifier: Apache-2.0
// Finds the user's torch interpreter: HOTKERNEL_PYTHON when set, else the first python3 or
// python on PATH (in PATH order) that imports torch. Asynchronous; the answer is cached.
#pragma once

#include <QCoroTask>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <optional>

namespace hotkernel {

class Job;

struct PythonInfo
{
    QString path;         // absolute path of the interpreter
    QString source;       // "HOTKERNEL_PYTHON" or "PATH"
    QString torchVersion; // as torch.__version__ says
    QStringList tried;    // every candidate looked at, in order, with why it was passed over
};

class PythonLocator
{
public:
    // override: an explicit interpreter (the session's option); empty = environment and PATH.
    explicit PythonLocator(QString override = {});

    // Throws UserError when none is found, naming everything tried and what to do.
    QCoro::Task<PythonInfo> locate(Job *job = nullptr);
    std::optional<PythonInfo> cached() const { return m_cached; }
    // The interpreter named by the session's option or HOTKERNEL_PYTHON when it is an executable
    // file, without running it (torchVersion empty): lets measuring start its workers at once
    // while locate() checks torch in parallel, instead of paying a torch import first.
    std::optional<PythonInfo> explicitInterpreter() const;
    void forget() { m_cached.reset(); }

    // The PATH candidates in order (python3 before python within each directory).
    static QStringList pathCandidates(const QString &pathVariable);

private:
    QString m_override;
    std::optional<PythonInfo> m_cached;
};

} // namespace hotkernel
