// SPDX-License-Identifier: Apache-2.0
#include "inspect/calibraterunner.h"

#include "base/usererror.h"
#include "inspect/calibrationstore.h"
#include "inspect/host.h"
#include "process/nativehelpers.h"

#include <cstdio>

namespace hotkernel {

QCoro::Task<Json> CalibrateRunner::run(Host &host, QStringList helperArguments, Job *job)
{
    const QString helper = co_await host.nativeHelper(NativeHelpers::calibrateFileName(), job);
    if (helper.isEmpty())
        throw UserError(QStringLiteral("calibration cancelled"));
    ProcessSpec spec;
    spec.program = helper;
    spec.arguments = helperArguments;
    spec.timeout = std::chrono::minutes(5);
    // "... on ssh://host/dir" for a host: the messages say where it failed.
    const QString shown = spec.commandLine() + QLatin1Char(' ') + host.where();
    const ProcessResult result = co_await host.runTool(spec, job);
    Json data = interpret(result, shown);
    // Where it measured, as results record it (nothing for this machine).
    const Json where = host.record();
    if (where.is_object())
        data["host"] = where;
    co_return data;
}

Json CalibrateRunner::interpret(const ProcessResult &result, const QString &commandLine)
{
    if (result.status == ProcessResult::Status::Cancelled)
        throw UserError(QStringLiteral("calibration cancelled"));
    // The helper prints one JSON object also when it fails (ok: false, error: why).
    Json data;
    const QByteArray out = result.standardOutput.trimmed();
    const int lastLine = out.lastIndexOf('\n');
    if (auto parsed = parseJson(lastLine >= 0 ? out.mid(lastLine + 1) : out))
        data = std::move(*parsed);
    const QString why = CalibrationStore::validate(data);
    // The command line says where it ran ("... on ssh://host/dir" for a host), which the advice
    // alone would lose.
    if (const QString library = NativeHelpers::missingLibrary(result.standardError);
        !library.isEmpty() && !result.succeeded())
        throw UserError(commandLine + QStringLiteral(" failed: ") +
                        NativeHelpers::missingLibraryAdvice(NativeHelpers::calibrateFileName(), library));
    if (!why.isEmpty() || !result.succeeded()) {
        throw UserError(QStringLiteral("%1 failed (%2): %3")
                            .arg(commandLine,
                                 result.status == ProcessResult::Status::TimedOut
                                     ? QStringLiteral("timed out")
                                     : QStringLiteral("exit %1").arg(result.exitCode),
                                 why.isEmpty() ? result.stderrTail()
                                               : QString(why + QLatin1Char('\n') + result.stderrTail())));
    }
    return data;
}

namespace {
// As every other verb fails: the reason on stderr, and with --json also as {"error": ...} on
// stdout, so a script reading stdout learns why rather than finding it empty.
int failCli(const QString &message, bool json)
{
    if (json)
        std::printf("%s\n", Json{{"error", toStd(message)}}.dump(2).c_str());
    std::fprintf(stderr, "hotkernel calibrate: %s\n", qPrintable(message));
    return 1;
}
} // namespace

QCoro::Task<int> CalibrateRunner::runCli(QStringList arguments, QString workDir, bool json, Measure measure,
                                         QString where)
{
    bool record = false;
    QStringList helperArgs;
    for (int i = 0; i < arguments.size(); ++i) {
        const QString &a = arguments[i];
        if (a == QLatin1String("--record")) {
            record = true;
        } else if (a == QLatin1String("--quick")) {
            helperArgs.append(a);
        } else if (a == QLatin1String("--device") && i + 1 < arguments.size()) {
            helperArgs << a << arguments[++i];
        } else if (a == QLatin1String("--help") || a == QLatin1String("-h")) {
            std::fputs(
                "usage: hotkernel calibrate [--record] [--quick] [--device N]\n"
                "Measures the card's streaming bandwidth (device copy, read-only and write-only kernels)\n"
                "and bf16/fp16 tensor-core GEMM peak, and stores them for roofline under the user's data\n"
                "directory; --record also writes results/calibration/<card>-<time>.json here. With --host\n"
                "(or HOTKERNEL_HOST) it measures that host's card: the helper is built there once.\n",
                stdout);
            co_return 0;
        } else {
            std::fprintf(stderr, "hotkernel calibrate: unknown argument '%s' (try --help)\n", qPrintable(a));
            co_return 2;
        }
    }
    std::fprintf(stderr, "hotkernel calibrate: measuring the card of %s (about half a minute)...\n",
                 qPrintable(where));
    Json data;
    try {
        QCoro::Task<Json> measuring = measure(helperArgs);
        data = co_await std::move(measuring);
    } catch (const UserError &e) {
        co_return failCli(e.message(), json);
    }
    QString error;
    const QString saved = CalibrationStore::save(data, &error);
    if (saved.isEmpty()) {
        co_return failCli(error, json);
    }
    QString recorded;
    if (record) {
        recorded = CalibrationStore::saveRecord(data, workDir, &error);
        if (recorded.isEmpty()) {
            co_return failCli(error, json);
        }
    }
    if (json) {
        Json out{{"calibration", data},
                 {"saved", toStd(saved)},
                 {"recorded", recorded.isEmpty() ? Json(nullptr) : Json(toStd(recorded))}};
        std::printf("%s\n", out.dump().c_str());
        co_return 0;
    }
    QString text = QStringLiteral("%1 (%2)\n").arg(stringField(data, "card"), stringField(data, "uuid"));
    const Json figures = data.value("figures", Json::object());
    for (auto it = figures.begin(); it != figures.end(); ++it) {
        text += QStringLiteral("  %1 %2 %3  %4\n")
                    .arg(toQt(it.key()), -16)
                    .arg(it.value().value("value", 0.0), 9, 'f', 1)
                    .arg(stringField(it.value(), "unit"), -8)
                    .arg(stringField(it.value(), "method"));
    }
    text += QStringLiteral("saved %1\n").arg(saved);
    if (!recorded.isEmpty())
        text += QStringLiteral("recorded %1\n").arg(recorded);
    std::fputs(text.toUtf8().constData(), stdout);
    co_return 0;
}

} // namespace hotkernel
