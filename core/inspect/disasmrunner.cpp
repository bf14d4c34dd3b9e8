// SPDX-License-Identifier: Apache-2.0
#include "inspect/disasmrunner.h"

#include "base/boundedfile.h"
#include "base/job.h"
#include "base/usererror.h"
#include "inspect/cudatools.h"
#include "inspect/sassparser.h"
#include "process/processrunner.h"

#include <QCoroFuture>
#include <QFile>
#include <QFileInfo>
#include <QtConcurrent>

namespace hotkernel {

namespace {

QCoro::Task<QByteArray> runTool(QString program, QStringList arguments, Job *job, QString *commandLine)
{
    ProcessSpec spec;
    spec.program = program;
    spec.arguments = arguments;
    spec.timeout = std::chrono::minutes(5);
    if (commandLine)
        *commandLine = spec.commandLine();
    const ProcessResult result = co_await ProcessRunner::run(spec, job);
    if (result.status == ProcessResult::Status::Cancelled)
        co_return QByteArray();
    if (result.status == ProcessResult::Status::FailedToStart)
        throw UserError(QStringLiteral("Could not start %1: %2.").arg(program, result.errorString));
    if (result.status == ProcessResult::Status::TimedOut)
        throw UserError(
            QStringLiteral("`%1` ran for over 5 minutes and was stopped; disassemble a smaller file "
                           "(a single .cubin) instead.")
                .arg(spec.commandLine()));
    if (!result.succeeded())
        throw DisasmRunner::failure(spec.commandLine(), result.exitCode, result.stderrTail(6).trimmed());
    co_return result.standardOutput;
}

bool isCubin(const QString &path)
{
    return path.endsWith(QLatin1String(".cubin"));
}

} // namespace

namespace {

struct Parsed
{
    std::vector<SassFunction> functions;
    QString error;
};

Parsed readAndParsePtx(const QString &path)
{
    Parsed out;
    const BoundedFile::Read file = BoundedFile::read(path, BoundedFile::kReportLimit);
    if (!file.ok())
        out.error = path + QLatin1Char(' ') + file.error + QStringLiteral(": give a PTX file or a binary.");
    else
        out.functions = SassParser::parsePtx(file.bytes);
    return out;
}

std::vector<SassFunction> parseListing(const QByteArray &output, bool ptx)
{
    return ptx ? SassParser::parsePtx(output) : SassParser::parseSass(output);
}

// These coroutines await unconditionally; plain functions choose which one runs (docs/hacking.md, "Compiler
// rules").
QCoro::Task<std::vector<SassFunction>> ptxFile(QString path)
{
    const Parsed parsed = co_await QtConcurrent::run(readAndParsePtx, path);
    if (!parsed.error.isEmpty())
        throw UserError(parsed.error);
    co_return parsed.functions;
}

QCoro::Task<std::vector<SassFunction>> runAndParse(QString program, QStringList arguments, bool ptx, Job *job,
                                                   QString *commandLine)
{
    const QByteArray output = co_await runTool(program, arguments, job, commandLine);
    // Parsed also after a cancel (the output is then empty).
    co_return co_await DisasmRunner::parseOffThread(output, ptx);
}

QCoro::Task<std::map<QString, std::map<QString, QString>>> runResourceUsage(QString program, QString path,
                                                                            Job *job)
{
    const QStringList arguments = DisasmRunner::resourceUsageArguments(path);
    const QByteArray output = co_await runTool(program, arguments, job, nullptr);
    co_return DisasmRunner::parseResourceUsage(output);
}

QCoro::Task<std::map<QString, std::map<QString, QString>>> noResourceUsage()
{
    co_return std::map<QString, std::map<QString, QString>>();
}

} // namespace

QCoro::Task<std::vector<SassFunction>> DisasmRunner::disassemble(QString path, QString level, QString tool,
                                                                 Job *job, QString *commandLine)
{
    if (!QFileInfo(path).isFile())
        throw UserError(
            QStringLiteral("%1 does not exist or is not a file. Give a .cubin, .ptx, .so or executable.")
                .arg(path));
    const DisasmPlan p = plan(path, level, tool);
    if (p.tool.isEmpty()) {
        if (commandLine)
            *commandLine = QStringLiteral("read %1").arg(path);
        return ptxFile(path);
    }
    return runAndParse(CudaTools::require(p.tool, p.variable), p.arguments, p.ptx, job, commandLine);
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

QCoro::Task<std::map<QString, std::map<QString, QString>>> DisasmRunner::resourceUsage(QString path, Job *job)
{
    if (path.isEmpty())
        return noResourceUsage();
    return runResourceUsage(
        CudaTools::require(QStringLiteral("cuobjdump"), QStringLiteral("HOTKERNEL_CUOBJDUMP")), path, job);
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
