// SPDX-License-Identifier: Apache-2.0
#include "tools/watchedhandler.h"

#include <utility>

namespace hotkernel {

QCoro::Task<ToolResult> watched(WatchedBody body, Session &session, Json arguments, Job &job)
{
    CancelAware watch(job);
    const CancelAware *watching = &watch; // a named argument (docs/hacking.md)
    ToolResult result;
    bool cancelled = false;
    try {
        result = co_await watch(body(session, std::move(arguments), watching));
    } catch (const JobCancelled &) {
        cancelled = true;
    }
    if (cancelled)
        co_return ToolResult::cancelledResult();
    co_return result;
}

} // namespace hotkernel
