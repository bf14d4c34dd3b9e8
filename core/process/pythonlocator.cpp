// SPDX-License-Identifier: Apache-2.0
#include "process/pythonlocator.h"

#include "base/jobguard.h"
#include "base/usererror.h"
#include "process/processrunner.h"

#include <QDir>
#include <QFileInfo>

namespace hotkernel {

PythonLocator::PythonLocator(QString override) : m_override(std::move(override)) {}

QStringList PythonLocator::pathCandidates(const QString &pathVariable)
{
    QStringList candidates;
    // One interpreter once: /bin and /usr/bin are one folder on a merged-/usr system, and python
    // may link to python3 in the same folder. The folder is compared canonically, not the file: a
    // venv's python3 links to the system's, yet runs with the venv's packages.
    QStringList seen;
    for (const QString &dir : pathVariable.split(QLatin1Char(':'), Qt::SkipEmptyParts)) {
        for (const char *name : {"python3", "python"}) {
            const QFileInfo info(QDir(dir).filePath(QLatin1String(name)));
            if (!info.isFile() || !info.isExecutable())
                continue;
            const QString key =
                QFileInfo(dir).canonicalFilePath() + QLatin1Char('\n') + info.canonicalFilePath();
            if (seen.contains(key))
                continue;
            seen.append(key);
            candidates.append(info.absoluteFilePath());
        }
    }
    return candidates;
}

std::optional<PythonInfo> PythonLocator::explicitInterpreter() const
{
    if (m_cached)
        return m_cached;
    const bool fromOption = !m_override.isEmpty();
    const QString path = fromOption ? m_override : qEnvironmentVariable("HOTKERNEL_PYTHON");
    const QFileInfo file(path);
    if (path.isEmpty() || !file.isFile() || !file.isExecutable())
        return std::nullopt; // locate() explains what is wrong
    PythonInfo info;
    info.path = file.absoluteFilePath();
    info.source = fromOption ? QStringLiteral("--python") : QStringLiteral("HOTKERNEL_PYTHON");
    return info;
}

QCoro::Task<PythonInfo> PythonLocator::locate(Job *job)
{
    if (m_cached)
        co_return PythonInfo(*m_cached); // a copy: QCoro 0.8 moves from lvalues (docs/hacking.md)

    QString explicitPath = m_override;
    QString source = QStringLiteral("--python");
    if (explicitPath.isEmpty()) {
        explicitPath = qEnvironmentVariable("HOTKERNEL_PYTHON");
        source = QStringLiteral("HOTKERNEL_PYTHON");
    }

    // This locator belongs to the Session, and so does the job: once the job is gone, so is this.
    const JobGuard guard(job);
    const auto probe = [&guard](const QString &path) -> QCoro::Task<std::pair<bool, QString>> {
        ProcessSpec spec;
        spec.program = path;
        spec.arguments =
            QStringList{QStringLiteral("-c"), QStringLiteral("import torch; print(torch.__version__)")};
        spec.timeout = std::chrono::seconds(120);
        const ProcessResult r = co_await ProcessRunner::run(spec, guard.job());
        if (r.succeeded())
            co_return std::pair{true, QString::fromUtf8(r.standardOutput).trimmed()};
        if (r.status == ProcessResult::Status::FailedToStart)
            co_return std::pair{false, QStringLiteral("does not start: ") + r.errorString};
        const QString tail = r.stderrTail(1);
        co_return std::pair{false, tail.isEmpty() ? QStringLiteral("cannot import torch") : tail};
    };

    PythonInfo info;
    if (!explicitPath.isEmpty()) {
        const auto [ok, detail] = co_await probe(explicitPath);
        if (guard.stopped())
            co_return PythonInfo();
        if (!ok) {
            throw UserError(
                QStringLiteral("%1=%2 cannot run 'import torch' (%3). Point %1 at the Python that "
                               "has your PyTorch, e.g. HOTKERNEL_PYTHON=$HOME/venvs/torch/bin/python.")
                    .arg(source, explicitPath, detail));
        }
        info.path = QFileInfo(explicitPath).absoluteFilePath();
        info.source = source;
        info.torchVersion = detail;
        m_cached = info;
        co_return info;
    }

    const QStringList candidates = pathCandidates(qEnvironmentVariable("PATH"));
    for (const QString &candidate : candidates) {
        const auto [ok, detail] = co_await probe(candidate);
        if (guard.stopped())
            co_return PythonInfo();
        if (ok) {
            info.path = candidate;
            info.source = QStringLiteral("PATH");
            info.torchVersion = detail;
            m_cached = info;
            co_return info;
        }
        info.tried.append(candidate + QStringLiteral(": ") + detail);
    }
    throw UserError(
        QStringLiteral("No Python with PyTorch found. Tried %1 on PATH%2. Set HOTKERNEL_PYTHON to the "
                       "interpreter that has your PyTorch (and Triton), e.g. "
                       "HOTKERNEL_PYTHON=$HOME/venvs/torch/bin/python.")
            .arg(candidates.size())
            .arg(info.tried.isEmpty()
                     ? QString()
                     : QStringLiteral(" (") + info.tried.join(QStringLiteral("; ")) + QLatin1Char(')')));
}

} // namespace hotkernel
