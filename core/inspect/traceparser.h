// SPDX-License-Identifier: Apache-2.0
// Parses the JSON lines hotkernel's CUPTI tracer writes (core/native/tracer.cpp): a header line,
// one {"type":"kernel",...} object per launch, a footer. Pure; any thread.
#pragma once

#include "inspect/kernelaggregator.h"

#include <QByteArrayView>

namespace hotkernel {

struct TraceSummary
{
    std::vector<KernelLaunch> launches;
    int processes = 0;  // header lines seen (one per traced process)
    qint64 dropped = 0; // records CUPTI dropped, from the footers
    int badLines = 0;   // lines that were not JSON (a process killed mid-write)
};

class TraceParser
{
public:
    // Throws UserError when data holds no tracer header and no kernel line.
    static TraceSummary read(QByteArrayView data);
    static KernelTable parse(QByteArrayView data, const QString &path = {});
};

} // namespace hotkernel
