// SPDX-License-Identifier: Apache-2.0
// Runs a user's script under torch.profiler (resources/scripts/torch_trace.py in the user's
// interpreter) as a coroutine, cancellable through the job. Lives on the caller's thread.
#pragma once

#include "base/json.h"
#include "process/processspec.h"

#include <QCoroTask>
#include <QPointer>
#include <QStringList>

namespace hotkernel {

class Job;

struct TorchTraceRequest
{
    QString python;        // the interpreter with torch
    QString script;        // absolute path of the user's script
    QStringList arguments; // passed to the script
    QString workingDirectory;
    int top = 15;
    QString chromeTrace; // where to save the profiler's chrome trace; empty: not saved
    // Where ExecutionTraceObserver writes every op with all its arguments; empty: not recorded.
    // With it the document gains op_rows (kernels joined to the aten op that launched them).
    QString executionTrace;
    int timeoutSeconds = 600;
};

class TorchTraceRunner
{
public:
    // The wrapper's JSON document (kernels, ops, note; see torch_trace.py). Throws UserError when
    // the script fails (with its traceback's last lines) or prints no document.
    static QCoro::Task<Json> run(TorchTraceRequest request, Job *job);
    // The wrapper's document from its run; throws UserError when it did not start, ran past its
    // time, printed no document or reported the script's error (shared with a remote host's run).
    static Json interpret(const ProcessResult &result, const TorchTraceRequest &request);
    // The last line of output that parses as a JSON object.
    static std::optional<Json> lastJsonObject(const QByteArray &output);
};

} // namespace hotkernel
