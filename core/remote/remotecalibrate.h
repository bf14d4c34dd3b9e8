// SPDX-License-Identifier: Apache-2.0
// calibrate on a session's remote host (issue 24): the hotkernel-calibrate helper, built there
// from the sources this binary carries, measures the host's card; the result is stored here,
// under the card's UUID, so roofline finds it for that host's sessions. Session's thread.
#pragma once

#include "base/json.h"

#include <QCoroTask>
#include <QStringList>

namespace hotkernel {

class Job;
class RemoteHost;

class RemoteCalibrate
{
public:
    // CalibrateRunner::run() on the host (connecting first when needed); the object gains the
    // host block results record ("host"). Throws UserError naming the host.
    static QCoro::Task<Json> run(QStringList helperArguments, RemoteHost *host, Job *job = nullptr);
};

} // namespace hotkernel
