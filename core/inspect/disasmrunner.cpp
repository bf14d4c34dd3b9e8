// SPDX-License-Identifier: Apache-2.0
#include "inspect/disasmrunner.h"

#include "base/job.h"
#include "base/usererror.h"
#include "inspect/host.h"
#include "inspect/sassparser.h"

#include <QCoroFuture>
#include <QtConcurrent>

namespace hotkernel {

namespace {

bool isCubin(const QString &path)
{
    return path.endsWith(QLatin1String(".cubin"));
}

std::vector<SassFunction> parseListing(const QByteArray &output, bool ptx)
{
    return ptx ? SassParser::parsePtx(output) : SassParser::parseSass(output);
}

// The tool's output on the host; empty when the job was cancelled. The host is the session's, which
// outlives the job (setHost is refused while a job runs); a cancel or an ended session shows as an
// empty program or a cancelled step.
QCoro::Task<QByteArray> runOnHost(Host &host, DisasmPlan plan, Job *job, QString *commandLine)
{
    const QString program = co_await host.findTool(plan.tool, plan.variable, job);
    if (program.isEmpty())
        co_return QByteArray();
    ProcessSpec spec;
    spec.program = program;
    spec.arguments = plan.arguments;
    spec.timeout = std::chrono::minutes(5);
    const QString shown = host.commandLine(spec);
    if (commandLine)
        *commandLine = shown;
    const ProcessResult r = co_await host.runTool(spec, job);
    if (r.status == ProcessResult::Status::Cancelled)
        co_return QByteArray();
    if (r.status == ProcessResult::Status::TimedOut)
        throw UserError(
            QStringLiteral("`%1` ran for over 5 minutes and was stopped; disassemble a smaller file "
                           "(a single .cubin) instead.")
                .arg(shown));
    if (!r.succeeded())
        throw DisasmRunner::failure(shown, r.exitCode, r.stderrTail(6).trimmed());
    co_return r.standardOutput;
}

// These coroutines await unconditionally; plain functions choose which one runs (docs/hacking.md,
// "Compiler rules").
QCoro::Task<std::vector<SassFunction>> toolListing(Host &host, DisasmPlan plan, Job *job,
                                                   QString *commandLine)
{
    const QByteArray output = co_await runOnHost(host, plan, job, commandLine);
    // Parsed also after a cancel (the output is then empty).
    co_return co_await DisasmRunner::parseOffThread(output, plan.ptx);
}

QCoro::Task<std::vector<SassFunction>> ptxText(Host &host, QString path, Job *job)
{
    const std::optional<QByteArray> text = co_await host.readBack(path, job);
    if (!text)
        throw UserError(QStringLiteral("%1 is not a file on %2: give a PTX file or a binary.")
                            .arg(host.pathThere(path), host.name()));
    co_return co_await DisasmRunner::parseOffThread(*text, true);
}

QCoro::Task<std::map<QString, std::map<QString, QString>>> usageOnHost(Host &host, QString path, Job *job)
{
    DisasmPlan plan;
    plan.tool = QStringLiteral("cuobjdump");
    plan.variable = QStringLiteral("HOTKERNEL_CUOBJDUMP");
    plan.arguments = DisasmRunner::resourceUsageArguments(path);
    const QByteArray output = co_await runOnHost(host, plan, job, nullptr);
    co_return DisasmRunner::parseResourceUsage(output);
}

QCoro::Task<std::map<QString, std::map<QString, QString>>> noResourceUsage()
{
    co_return std::map<QString, std::map<QString, QString>>();
}

} // namespace

QCoro::Task<std::vector<SassFunction>> DisasmRunner::disassemble(Host &host, QString path, QString level,
                                                                 QString tool, Job *job, QString *commandLine)
{
    const DisasmPlan p = plan(path, level, tool);
    if (p.tool.isEmpty()) {
        if (commandLine)
            *commandLine = QStringLiteral("read %1 on %2").arg(host.pathThere(path), host.name());
        return ptxText(host, path, job);
    }
    return toolListing(host, p, job, commandLine);
}

DisasmPlan DisasmRunner::plan(const QString &path, const QString &level, QString tool)
{
    DisasmPlan p;
    p.ptx = level == QLatin1String("ptx");
    if (path.endsWith(QLatin1String(".ptx"))) {
        if (!p.ptx)
            throw UserError(
                QStringLiteral("%1 is PTX text; ask for level \"ptx\", or give the compiled .cubin for SASS.")
                    .arg(path));
        return p;
    }
    if (tool == QLatin1String("auto"))
        tool = isCubin(path) && !p.ptx ? QStringLiteral("nvdisasm") : QStringLiteral("cuobjdump");
    if (tool == QLatin1String("nvdisasm")) {
        if (p.ptx || !isCubin(path))
            throw UserError(
                QStringLiteral(
                    "nvdisasm reads SASS from a .cubin only; use tool \"cuobjdump\" for %1 (level %2).")
                    .arg(path, level));
        p.tool = tool;
        p.variable = QStringLiteral("HOTKERNEL_NVDISASM");
        p.arguments = QStringList{QStringLiteral("-c"), path}; // -c: code only
        return p;
    }
    p.tool = QStringLiteral("cuobjdump");
    p.variable = QStringLiteral("HOTKERNEL_CUOBJDUMP");
    p.arguments = QStringList{p.ptx ? QStringLiteral("-ptx") : QStringLiteral("-sass"), path};
    return p;
}

QStringList DisasmRunner::resourceUsageArguments(const QString &path)
{
    return QStringList{QStringLiteral("-res-usage"), path};
}

QCoro::Task<std::vector<SassFunction>> DisasmRunner::parseOffThread(QByteArray output, bool ptx)
{
    // A named function, not a capturing lambda (docs/hacking.md, "Compiler rules").
    std::vector<SassFunction> functions = co_await QtConcurrent::run(parseListing, output, ptx);
    co_return functions;
}

UserError DisasmRunner::failure(const QString &commandLine, int exitCode, const QString &stderrTail)
{
    return UserError(QStringLiteral("`%1` failed (exit %2): %3. Check that the file is a CUDA binary "
                                    "(.cubin, .so or executable with device code) or PTX.")
                         .arg(commandLine)
                         .arg(exitCode)
                         .arg(stderrTail));
}

QCoro::Task<std::map<QString, std::map<QString, QString>>> DisasmRunner::resourceUsage(Host &host,
                                                                                       QString path, Job *job)
{
    if (path.isEmpty())
        return noResourceUsage();
    return usageOnHost(host, path, job);
}

std::map<QString, std::map<QString, QString>> DisasmRunner::parseResourceUsage(QByteArrayView text)
{
    // " Function NAME:\n  REG:22 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:556 ..."
    std::map<QString, std::map<QString, QString>> out;
    QString current;
    for (const QByteArrayView rawLine : QByteArray(text.toByteArray()).split('\n')) {
        const QByteArrayView line = rawLine.trimmed();
        if (line.startsWith("Function ") && line.endsWith(':')) {
            current = QString::fromUtf8(line.sliced(9, line.size() - 10));
            continue;
        }
        if (current.isEmpty() || !line.contains(':'))
            continue;
        for (const QByteArray &pair : line.toByteArray().split(' ')) {
            const qsizetype colon = pair.lastIndexOf(':');
            if (colon > 0)
                out[current][QString::fromUtf8(pair.first(colon))] =
                    QString::fromUtf8(pair.sliced(colon + 1));
        }
        current.clear();
    }
    return out;
}

} // namespace hotkernel
