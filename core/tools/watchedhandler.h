// SPDX-License-Identifier: Apache-2.0
// A tool handler written as a body whose every await goes through CancelAware (base/cancelaware.h):
// watched() runs it and is the one place its JobCancelled becomes ToolResult::cancelledResult()
// (docs/hacking.md, "Lifetime"). Session thread.
#pragma once

#include "base/cancelaware.h"
#include "base/json.h"
#include "base/toolresult.h"

#include <QCoroTask>

namespace hotkernel {

class Job;
class Session;

// A handler's body: the handler's arguments, and the watch each of its awaits goes through (a
// pointer: docs/hacking.md, "Compiler rules"). Alive until the body ends.
using WatchedBody = QCoro::Task<ToolResult> (*)(Session &session, Json arguments, const CancelAware *watch);

// Runs body under a CancelAware of job: its result, or ToolResult::cancelledResult() when the job
// was cancelled or deleted during an await. A UserError passes through.
QCoro::Task<ToolResult> watched(WatchedBody body, Session &session, Json arguments, Job &job);

} // namespace hotkernel
