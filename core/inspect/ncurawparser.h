// SPDX-License-Identifier: Apache-2.0
// Parses `ncu --import R --csv --page raw`: one wide row per launch, a header row of metric names
// and a second row of units. Pure; any thread.
#pragma once

#include "inspect/kernelaggregator.h"

#include <QByteArrayView>

namespace hotkernel {

class NcuRawParser
{
public:
    // Throws UserError when data is not a raw page.
    static std::vector<KernelLaunch> launches(QByteArrayView data);
    static KernelTable parse(QByteArrayView data, const QString &path = {});
};

} // namespace hotkernel
