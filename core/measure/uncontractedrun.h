// SPDX-License-Identifier: Apache-2.0
// bench and verify of scripts outside the contract (UncontractedScriptRunner): the original
// hotkernel's calls on its generic scripts keep working, and every result says "uncontracted"
// (no fp32 reference check by hotkernel, no rotation, no contract hash: no anti-cheat guarantee),
// so record refuses it. Session thread.
#pragma once

#include "base/json.h"
#include "base/toolresult.h"

#include <QCoroTask>

#include <initializer_list>

namespace hotkernel {

class Job;
class MeasureSession;

class UncontractedRun
{
public:
    // True when any script named by keys (found from cwd when given) is outside the contract, or
    // args were given (only uncontracted scripts take them). Otherwise readies the arguments for the
    // contracted run: script paths relative to cwd are rewritten and cwd dropped (contracted scripts
    // always run in their own folder). Throws UserError when cwd is not a folder inside the working
    // directory; a missing script goes the contract's way, which names the problem.
    static bool prepare(MeasureSession &session, Json &arguments, std::initializer_list<const char *> keys);

    static QCoro::Task<ToolResult> bench(MeasureSession &session, Json arguments, Job &job);
    static QCoro::Task<ToolResult> verify(MeasureSession &session, Json arguments, Job &job);

    // Adds args and cwd to bench's and verify's input schema.
    static void addSchemaProperties(Json &inputSchema);

    // The label and the one sentence every uncontracted result carries.
    static const char *label() { return "uncontracted"; }
    static QString caveat();
};

} // namespace hotkernel
