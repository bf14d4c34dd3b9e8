// SPDX-License-Identifier: Apache-2.0
// VerifyRun::run: the verify's phases in order over one VerifyState (verifystate.h), and the one
// place where a cancelled job becomes ToolResult::cancelledResult().
#include "measure/verifyrun.h"

#include "base/cancelaware.h"
#include "measure/verifystate.h"

namespace hotkernel {

QCoro::Task<ToolResult> VerifyRun::run(MeasureSession &session, Json arguments, Job &job)
{
    VerifyState state(session, arguments, job); // UserError: options or scripts that cannot be used
    VerifyState *phaseState = &state;           // a named argument (docs/hacking.md)
    bool cancelled = false;
    try {
        co_await state.job(VerifyPhases::prepare(phaseState));
        co_await state.job(VerifyPhases::pairs(phaseState));
        co_await state.job(VerifyPhases::afterPairs(phaseState));
    } catch (const JobCancelled &) {
        cancelled = true;
    }
    if (cancelled)
        co_return ToolResult::cancelledResult();
    VerifyPhases::decideVerdict(state);
    co_return VerifyPhases::result(state);
}

} // namespace hotkernel
