// SPDX-License-Identifier: Apache-2.0
#include "tools/hostgpu.h"

#include "base/usererror.h"
#include "inspect/host.h"
#include "session/session.h"

namespace hotkernel {

QCoro::Task<Json> hostGpuSnapshot(Session &session, Job &job)
{
    if (!session.hostError().isEmpty())
        throw UserError(session.hostError());
    co_return co_await session.host().probeGpu(&job);
}

} // namespace hotkernel
