// SPDX-License-Identifier: Apache-2.0
// Runs the native hotkernel-calibrate helper and stores what it measured (CalibrationStore).
// Coroutines on the caller's thread; the helper runs as a child process through ProcessRunner.
#pragma once

#include "base/json.h"
#include "process/processspec.h"

#include <QCoroTask>
#include <QPointer>
#include <QStringList>

#include <functional>

namespace hotkernel {

class Host;
class Job;

class CalibrateRunner
{
public:
    // Runs the helper on the host (extra arguments passed on, e.g. --quick) and returns its JSON
    // object, with the host's record ("host") when it is not this machine. Throws UserError when
    // the helper is missing, fails or prints no usable result, naming where it ran.
    static QCoro::Task<Json> run(Host &host, QStringList helperArguments, Job *job = nullptr);
    // The helper's JSON object from its run; throws UserError when it failed or printed no usable
    // result (commandLine: the helper as the message shows it).
    static Json interpret(const ProcessResult &result, const QString &commandLine);

    // What measures: run() on the session's host.
    using Measure = std::function<QCoro::Task<Json>(QStringList helperArguments)>;
    // `hotkernel calibrate [--record] [--quick] [--device N]`: measure, store under the user's
    // data directory (and results/calibration/ with --record), print a table (JSON with json).
    // where: "this machine", or the host measure runs on. Returns the process exit code.
    static QCoro::Task<int> runCli(QStringList arguments, QString workDir, bool json, Measure measure,
                                   QString where);
};

} // namespace hotkernel
