// SPDX-License-Identifier: Apache-2.0
#include "remote/remotedisasm.h"

#include "base/usererror.h"
#include "inspect/disasmrunner.h"
#include "inspect/sassparser.h"
#include "remote/remotehost.h"
#include "remote/remotetoolbox.h"

#include <QPointer>

namespace hotkernel {

namespace {

// The tool's output on the host; empty when the job was cancelled.
QCoro::Task<QByteArray> runOnHost(RemoteHost *host, DisasmPlan plan, Job *job, QString *commandLine)
{
    const QPointer<RemoteHost> alive(host);
    const QString program = co_await RemoteToolbox::locate(host, plan.tool, job);
    if (!alive || program.isEmpty())
        co_return QByteArray();
    ProcessSpec spec;
    spec.program = program;
    spec.arguments = plan.arguments;
    spec.timeout = std::chrono::minutes(5);
    QStringList shown{program};
    for (const QString &a : plan.arguments)
        shown << alive->shell()->remotePath(a);
    const QString shownCommand =
        QStringLiteral("on %1: %2").arg(alive->display(), shown.join(QLatin1Char(' ')));
    if (commandLine)
        *commandLine = shownCommand;
    const ProcessResult r = co_await RemoteToolbox::run(host, spec, job);
    if (!alive || r.status == ProcessResult::Status::Cancelled)
        co_return QByteArray();
    if (r.status == ProcessResult::Status::TimedOut)
        throw UserError(
            QStringLiteral("`%1` ran for over 5 minutes and was stopped; disassemble a smaller file "
                           "(a single .cubin) instead.")
                .arg(shownCommand));
    if (!r.succeeded())
        throw DisasmRunner::failure(shownCommand, r.exitCode, r.stderrTail(6).trimmed());
    co_return r.standardOutput;
}

QCoro::Task<std::vector<SassFunction>> toolListing(RemoteHost *host, DisasmPlan plan, Job *job,
                                                   QString *commandLine)
{
    const QByteArray output = co_await runOnHost(host, plan, job, commandLine);
    co_return co_await DisasmRunner::parseOffThread(output, plan.ptx);
}

QCoro::Task<std::vector<SassFunction>> ptxText(RemoteHost *host, QString path, Job *job)
{
    const QPointer<RemoteHost> alive(host);
    const std::optional<QByteArray> text = co_await RemoteToolbox::read(host, path, job);
    if (!alive)
        co_return std::vector<SassFunction>();
    if (!text)
        throw UserError(QStringLiteral("%1 is not a file on %2.")
                            .arg(alive->shell()->remotePath(path), alive->display()));
    co_return co_await DisasmRunner::parseOffThread(*text, true);
}

QCoro::Task<std::map<QString, std::map<QString, QString>>> noUsage()
{
    co_return std::map<QString, std::map<QString, QString>>();
}

QCoro::Task<std::map<QString, std::map<QString, QString>>> usageOnHost(QString path, RemoteHost *host,
                                                                       Job *job)
{
    DisasmPlan plan;
    plan.tool = QStringLiteral("cuobjdump");
    plan.arguments = DisasmRunner::resourceUsageArguments(path);
    const QByteArray output = co_await runOnHost(host, plan, job, nullptr);
    co_return DisasmRunner::parseResourceUsage(output);
}

} // namespace

QCoro::Task<std::vector<SassFunction>> RemoteDisasm::disassemble(QString path, QString level, QString tool,
                                                                 RemoteHost *host, Job *job,
                                                                 QString *commandLine)
{
    const DisasmPlan plan = DisasmRunner::plan(path, level, tool);
    if (plan.tool.isEmpty()) {
        if (commandLine)
            *commandLine =
                QStringLiteral("read %1 on %2").arg(host->shell()->remotePath(path), host->display());
        return ptxText(host, path, job);
    }
    return toolListing(host, plan, job, commandLine);
}

QCoro::Task<std::map<QString, std::map<QString, QString>>>
RemoteDisasm::resourceUsage(QString path, RemoteHost *host, Job *job)
{
    if (path.isEmpty())
        return noUsage();
    return usageOnHost(path, host, job);
}

} // namespace hotkernel
