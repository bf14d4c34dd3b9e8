// SPDX-License-Identifier: Apache-2.0
#include "tools/hostgpu.h"

#include "base/usererror.h"
#include "inspect/gpuprobe.h"
#include "remote/remotehost.h"
#include "session/session.h"

#include <QPointer>

namespace hotkernel {

QCoro::Task<Json> hostGpuSnapshot(Session &session, Job &job)
{
    if (!session.hostError().isEmpty())
        throw UserError(session.hostError());
    RemoteHost *remote = session.remote();
    if (!remote)
        co_return co_await GpuProbe::snapshot(&job);
    const QPointer<RemoteHost> alive(remote);
    const std::shared_ptr<const RemoteShell> shell = co_await remote->connect(&job);
    if (!shell || !alive)
        co_return Json();
    co_return co_await remote->gpuSnapshot(&job);
}

} // namespace hotkernel
