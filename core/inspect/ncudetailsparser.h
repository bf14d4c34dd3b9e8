// SPDX-License-Identifier: Apache-2.0
// Parses `ncu --import R --csv --page details`: long form, one row per (launch, section, metric)
// with the unit in its own column and values as printed ("1,234.56", "usecond"). Pure; any thread.
#pragma once

#include "inspect/kernelaggregator.h"

#include <QByteArrayView>

namespace hotkernel {

class NcuDetailsParser
{
public:
    // One record per launch (by the report's ID column), in report order.
    // Throws UserError when data is not a details page.
    static std::vector<KernelLaunch> launches(QByteArrayView data);
    // Also reads `ncu --print-summary per-kernel --csv` (Invocations, Minimum/Maximum/Average
    // columns instead of Metric Value): one row group per kernel, source "ncu-summary".
    static KernelTable parse(QByteArrayView data, const QString &path = {});
};

} // namespace hotkernel
