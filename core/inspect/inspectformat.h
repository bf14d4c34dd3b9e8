// SPDX-License-Identifier: Apache-2.0
// Turns inspection results into tool output: JSON matching the tools' output schemas and the
// plain-text tables the CLI prints. Pure; any thread.
#pragma once

#include "base/json.h"
#include "inspect/hotinstructions.h"
#include "inspect/kernelstat.h"
#include "inspect/sassinstruction.h"

namespace hotkernel {

namespace InspectFormat {

Json kernelStat(const KernelStat &stat);
// The n heaviest kernels (n <= 0: all).
Json kernelTable(const KernelTable &table, int n);
QString kernelTableText(const KernelTable &table, int n);
// The JSON schema of one kernelStat() object, shared by top_kernels and profile.
Json kernelStatSchema();

Json instruction(const SassInstruction &instruction);
Json instructionSchema();
// Listing lines: "  0x01a0  @P0 EXIT" with samples and executed counts when present; at most
// maxLines instructions (labels count too).
QString functionText(const SassFunction &function, int maxLines);

// "1.23 ms", "45.6 us", "789 ns"
QString duration(double ns);
QString shorten(const QString &text, int width);

} // namespace InspectFormat

} // namespace hotkernel
