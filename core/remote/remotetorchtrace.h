// SPDX-License-Identifier: Apache-2.0
// torch_trace on a session's remote host (issue 24): the torch.profiler wrapper this binary carries
// runs the script there in the host's interpreter; the chrome and execution traces it writes come
// back to the local destinations a local run would have used. Session's thread.
#pragma once

#include "inspect/torchtracerunner.h"

namespace hotkernel {

class RemoteHost;

class RemoteTorchTrace
{
public:
    // TorchTraceRunner::run() on the host: request.python is the host's interpreter, the script
    // (already copied there) and the working directory are local paths, mapped to the host's.
    // Empty object when cancelled.
    static QCoro::Task<Json> run(TorchTraceRequest request, RemoteHost *host, Job *job);
};

} // namespace hotkernel
