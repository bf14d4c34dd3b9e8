// SPDX-License-Identifier: Apache-2.0
// Runs one external program as a coroutine: never blocks the thread it is awaited on
// (the GUI thread included), kills the child's whole process group on timeout or cancel,
// and captures both output streams in full.
#pragma once

#include "process/processspec.h"

#include <QCoroTask>
#include <QPointer>

namespace hotkernel {

class Job;

class ProcessRunner
{
public:
    // job may be null; when set, its cancellation ends the process and the result says Cancelled.
    static QCoro::Task<ProcessResult> run(ProcessSpec spec, Job *job = nullptr);
};

} // namespace hotkernel
