// SPDX-License-Identifier: Apache-2.0
// Parses the CSV of `nsys stats --report cuda_gpu_kern_sum --format csv` (and the older
// gpukernsum): one summary row per kernel with times in nanoseconds. Pure; any thread.
#pragma once

#include "inspect/kernelstat.h"

#include <QByteArrayView>

namespace hotkernel {

class NsysKernSumParser
{
public:
    // Throws UserError when data is not a kernel summary.
    static KernelTable parse(QByteArrayView data, const QString &path = {});
};

} // namespace hotkernel
