// SPDX-License-Identifier: Apache-2.0
// Joins an ncu source page onto a disassembled function: each SASS instruction gets its warp-stall
// samples, executed count and stall reasons, matched by offset from the function's start. Pure.
#pragma once

#include "inspect/ncusourceparser.h"
#include "inspect/sassinstruction.h"

#include <utility>

namespace hotkernel {

struct AttachSummary
{
    int matched = 0;          // instructions that received figures
    int unmatched = 0;        // report rows with no instruction at their offset
    int opcodeMismatches = 0; // matched by offset but the opcode differs (wrong binary?)
    qint64 totalSamples = 0;
    std::vector<std::pair<QString, qint64>> topStallReasons; // heaviest first
};

class HotInstructions
{
public:
    // The report for this function: same base name ("scaled_add" of "void scaled_add<...>(...)"),
    // else the only report; null when none fits.
    static const SourceReport *pick(const std::vector<SourceReport> &reports, const SassFunction &function);
    static AttachSummary attach(SassFunction &function, const SourceReport &report, int topReasons = 5);
    // Indices into function.instructions of the n instructions with most stall samples.
    static std::vector<size_t> hottest(const SassFunction &function, int n);
    // The kernel's SASS as the source page alone gives it (no binary): offsets from the lowest
    // address, the instruction text and opcode; the figures come from attach().
    static SassFunction fromReport(const SourceReport &report);
    // The report whose kernel name contains wanted (any case); without wanted, the one with the most
    // stall samples. Null when none contains it.
    static const SourceReport *find(const std::vector<SourceReport> &reports, const QString &wanted);
    // "void ns::f<int, 2>(float *)" -> "f"; "rmsnorm_kernel" -> itself.
    static QString baseName(const QString &name);
};

} // namespace hotkernel
