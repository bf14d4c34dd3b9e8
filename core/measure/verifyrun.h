// SPDX-License-Identifier: Apache-2.0
// verify BASELINE CANDIDATE: both scripts' runners started in parallel, pairs interleaved with
// alternating order, warm-up pairs dropped, adaptive or fixed n, and the verdict with its reasons
// (docs/verify-result.md). Runs as a tool handler on the Session's thread; never blocks it.
#pragma once

#include "base/json.h"
#include "base/toolresult.h"

#include <QCoroTask>

namespace hotkernel {

class Job;
class MeasureSession;

class VerifyRun
{
public:
    static QCoro::Task<ToolResult> run(MeasureSession &session, Json arguments, Job &job);
    // The human-readable table the CLI prints, from the structured result.
    static QString text(const Json &result);
};

} // namespace hotkernel
