// SPDX-License-Identifier: Apache-2.0
#include "gpuprobe.h"

namespace hotkernel {

// Placeholder until the inspection work lands: reports no GPU.
QCoro::Task<Json> GpuProbe::snapshot(QPointer<Job>)
{
    co_return Json{{"available", false}, {"reason", "GPU probing is not implemented yet"}};
}

} // namespace hotkernel
