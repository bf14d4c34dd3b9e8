// SPDX-License-Identifier: Apache-2.0
// Parses `ncu --import R --csv --page source --print-source sass` (a report made with --set full):
// per kernel launch a "Kernel Name" line, a header, and one row per SASS instruction with its
// warp-stall samples, executed-instruction count and per-reason stall samples. Pure; any thread.
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <map>
#include <vector>

namespace hotkernel {

struct SourceRow
{
    quint64 address = 0; // absolute, as the report prints it
    QString source;      // the SASS text ncu shows
    qint64 stallSamples = 0;
    qint64 executed = 0;
    std::map<QString, qint64> stallReasons; // "long_sb" -> samples (all samples, not only not-issued)
};

struct SourceReport
{
    QString kernelName;
    int launches = 0; // launches merged into this report (rows summed by address)
    std::vector<SourceRow> rows;
    qint64 totalSamples = 0;
};

class NcuSourceParser
{
public:
    // One report per kernel name, launches of the same kernel summed, in first-seen order.
    // Throws UserError when data is not a source page.
    static std::vector<SourceReport> parse(QByteArrayView data);
    // data with any launch page that repeats the page just before it dropped.
    static QByteArray withoutRepeatedPages(QByteArrayView data);
};

} // namespace hotkernel
