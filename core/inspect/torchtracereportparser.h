// SPDX-License-Identifier: Apache-2.0
// Reads the report torch_trace saves (profiles/NAME-TIME.torch-trace.json) into a KernelTable, so
// the window's kernel table shows a trace's kernels and "New target from this kernel" can rebuild
// the op that launched one. Pure; any thread.
#pragma once

#include "inspect/kernelstat.h"

#include <QByteArrayView>

namespace hotkernel {

class TorchTraceReportParser
{
public:
    // Whether data is such a report (its "tool" is torch_trace), from its first bytes.
    static bool looksLikeOne(QByteArrayView data);
    // Throws UserError when the document does not parse or has no kernel list.
    static KernelTable parse(QByteArrayView data, const QString &path = {});
};

} // namespace hotkernel
