// SPDX-License-Identifier: Apache-2.0
// bench SCRIPT: warm-up runs, then n runs of one script; mean, std, min, every raw sample and the
// roofline inputs. Runs as a tool handler on the Session's thread; never blocks it.
#pragma once

#include "base/json.h"
#include "base/toolresult.h"

#include <QCoroTask>

namespace hotkernel {

class Job;
class MeasureSession;

class BenchRun
{
public:
    static QCoro::Task<ToolResult> run(MeasureSession &session, Json arguments, Job &job);
    static QString text(const Json &result);
    // "0.290 ± 0.106 ms (n 7)": the mean and spread a person reads first; empty without stats.
    static QString headline(const Json &result);
};

} // namespace hotkernel
