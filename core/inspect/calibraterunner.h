// SPDX-License-Identifier: Apache-2.0
// Runs the native hotkernel-calibrate helper and stores what it measured (CalibrationStore).
// Coroutines on the caller's thread; the helper runs as a child process through ProcessRunner.
#pragma once

#include "base/json.h"

#include <QCoroTask>
#include <QPointer>
#include <QStringList>

namespace hotkernel {

class Job;

class CalibrateRunner
{
public:
    // Runs the helper (extra arguments passed on, e.g. --quick) and returns its JSON object.
    // Throws UserError when the helper is missing, fails or prints no usable result.
    static QCoro::Task<Json> run(QStringList helperArguments, Job *job = nullptr);

    // `hotkernel calibrate [--record] [--quick] [--device N]`: measure, store under the user's
    // data directory (and results/calibration/ with --record), print a table (JSON with json).
    // Returns the process exit code.
    static QCoro::Task<int> runCli(QStringList arguments, QString workDir, bool json);
};

} // namespace hotkernel
