// SPDX-License-Identifier: Apache-2.0
#include "remote/remotecalibrate.h"

#include "base/usererror.h"
#include "inspect/calibraterunner.h"
#include "remote/remotehost.h"
#include "remote/remotetoolbox.h"

#include <QPointer>

namespace hotkernel {

QCoro::Task<Json> RemoteCalibrate::run(QStringList helperArguments, RemoteHost *host, Job *job)
{
    const QPointer<RemoteHost> alive(host);
    const std::shared_ptr<const RemoteShell> shell = co_await host->connect(job);
    if (!alive || !shell)
        throw UserError(QStringLiteral("calibration cancelled"));
    const QString helperFile = QStringLiteral("hotkernel-calibrate");
    const QString helper = co_await RemoteToolbox::nativeHelper(host, helperFile, job);
    if (!alive || helper.isEmpty())
        throw UserError(QStringLiteral("calibration cancelled"));
    ProcessSpec spec;
    spec.program = helper;
    spec.arguments = helperArguments;
    spec.timeout = std::chrono::minutes(5);
    const QString shown = QStringLiteral("%1 on %2").arg(spec.commandLine(), alive->display());
    const ProcessResult result = co_await RemoteToolbox::run(host, spec, job);
    if (!alive)
        throw UserError(QStringLiteral("calibration cancelled"));
    Json data = CalibrateRunner::interpret(result, shown);
    data["host"] = alive->hostJson();
    co_return data;
}

} // namespace hotkernel
