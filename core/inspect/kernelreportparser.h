// SPDX-License-Identifier: Apache-2.0
// Recognises a saved kernel report by its content (ncu details or raw CSV, nsys kernel summary,
// hotkernel trace, torch_trace's report) and parses it into a KernelTable. Pure; any thread.
#pragma once

#include "inspect/kernelstat.h"

#include <QByteArrayView>

namespace hotkernel {

class KernelReportParser
{
public:
    enum class Format { Unknown, NcuDetails, NcuRaw, NcuSource, NsysKernSum, Trace, TorchTrace };
    static Format detect(QByteArrayView data);
    static QString formatName(Format format);
    // Throws UserError for an unknown format, naming what is accepted.
    static KernelTable parse(QByteArrayView data, const QString &path = {});
};

} // namespace hotkernel
