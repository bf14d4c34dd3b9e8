// SPDX-License-Identifier: Apache-2.0
#include "measure/remotesandbox.h"

#include "base/json.h"
#include "measure/workerscratch.h"
#include "remote/remoteshell.h"

#include <QUuid>

namespace hotkernel {

namespace {
constexpr char kReportStart[] = "{\"hotkernel_confinement\":";

QString noReport()
{
    return QStringLiteral("none: the remote supervisor reported nothing about confining the worker");
}
} // namespace

RemoteSandbox::RemoteSandbox(std::shared_ptr<const RemoteShell> shell, bool keepScratch)
    : m_shell(std::move(shell)), m_token(QUuid::createUuid().toByteArray(QUuid::WithoutBraces)),
      m_keepScratch(keepScratch)
{
    // Beside the judge's and the profiles' folders, so that the probe's sweep finds what an ended
    // session left; random, so that no other worker's (nor an earlier one's) is reused.
    m_scratch = m_shell->remoteWorkdir() + QStringLiteral("/.hotkernel/worker-") +
                QUuid::createUuid().toString(QUuid::Id128).left(12);
}

RemoteSandbox::~RemoteSandbox()
{
    // Without waiting: the host may be slow or gone, and a leftover folder costs only space until
    // the next connection sweeps it.
    if (m_keepScratch && !m_shell->remoteWorkdir().isEmpty())
        m_shell->removeLater(m_scratch);
}

QStringList RemoteSandbox::supervisorOptions() const
{
    QStringList options{QStringLiteral("--confine-scratch=") + m_scratch};
    for (const QString &pair : WorkerScratch::variableFolders())
        options << QStringLiteral("--scratch-folder=") + pair;
    if (m_keepScratch)
        options << QStringLiteral("--keep-scratch");
    return options;
}

QString RemoteSandbox::report(const QByteArray &line, const QByteArray &token, bool *forged)
{
    *forged = false;
    if (!line.startsWith(kReportStart))
        return {};
    const std::optional<Json> json = parseJson(line);
    if (!json || !json->is_object() || token.isEmpty() || stringField(*json, "token").toLatin1() != token) {
        *forged = true;
        return QStringLiteral("none: the worker printed a confinement report of its own");
    }
    const QString text = stringField(*json, "hotkernel_confinement");
    if (text.startsWith(QLatin1String("landlock ABI ")) || text.startsWith(QLatin1String("none: ")))
        return text;
    return QStringLiteral("none: the remote supervisor's report was not understood");
}

bool RemoteSandbox::takeLine(const QByteArray &line)
{
    bool forged = false;
    const QString text = report(line, m_token, &forged);
    if (text.isEmpty())
        return false;
    // The supervisor's line comes before the worker runs: a forged one after it changes nothing,
    // and one before it cannot be.
    if (!forged && m_result.isEmpty())
        m_result = text;
    return true;
}

QString RemoteSandbox::takeReport(QByteArray *output, const QByteArray &token)
{
    QString result;
    QByteArray kept;
    for (qsizetype start = 0; start < output->size();) {
        qsizetype end = output->indexOf('\n', start);
        end = end < 0 ? output->size() : end + 1;
        const QByteArray line = output->mid(start, end - start);
        bool forged = false;
        const QString text = report(line.trimmed(), token, &forged);
        if (text.isEmpty())
            kept += line;
        else if (!forged && result.isEmpty())
            result = text;
        start = end;
    }
    *output = kept;
    return result.isEmpty() ? noReport() : result;
}

QString RemoteSandbox::confinement() const
{
    return m_result.isEmpty() ? noReport() : m_result;
}

} // namespace hotkernel
