// SPDX-License-Identifier: Apache-2.0
// What each action of a kernel table row asks its tool for (the dialog's prefilled arguments):
// profile that one kernel with ncu, disassemble it, trace the target's baseline, or rebuild the op
// that launched it as a new target. Plain values from the row, the selected target and the
// working directory; no widget, so the requests are tested without a window.
#pragma once

#include "base/json.h"

#include <QString>

namespace hotkernel {

class KernelRowRequests
{
public:
    static Json profile(const QString &kernel, const QString &target);
    static Json disasm(const QString &kernel);
    static Json torchTrace(const QString &target);
    // tablePath: the report the row came from; root: the working directory.
    static Json newTarget(const QString &kernel, const QString &tablePath, const QString &root);

    // "void at::native::rms_norm_kernel<float>(...)" -> "rms_norm_kernel": a name new_target takes.
    static QString targetName(const QString &kernel);
    // The newest torch_trace report under root/profiles, or empty.
    static QString newestTraceReport(const QString &root);
};

} // namespace hotkernel
