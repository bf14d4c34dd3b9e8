// SPDX-License-Identifier: Apache-2.0
// What the window shows of a working directory: kernel tables (profiles, traces), disassembly with
// hot instructions, recorded verifies, the card's ceilings. load() is pure file reading and parsing:
// run it on a worker thread (QtConcurrent), never on the GUI thread.
#pragma once

#include "inspect/kernelstat.h"
#include "inspect/rooflinemodel.h"
#include "inspect/sassinstruction.h"
#include "verifyrecord.h"

#include <QStringList>

namespace hotkernel {

struct Workspace
{
    QString root;
    std::vector<KernelTable> kernelTables;   // newest report first
    std::vector<SassFunction> functions;     // every disassembled function, hot figures attached
    std::vector<VerifyRecord> records;       // recorded verifies, oldest first
    QStringList problems;                    // files that could not be read, one line each
    QString card;                            // from the newest record, when any

    // extraReports: report paths the saved session knows of (profile runs) besides profiles/.
    static Workspace load(const QString &root, const QStringList &extraReports = {});
    // The disassembly of a kernel by its (demangled or mangled) name; null when none.
    const SassFunction *functionFor(const QString &kernelName) const;
    // Spec ceilings of the card (bandwidth, dtype peak) and a point per record with flops and bytes.
    RooflineData roofline(const std::vector<VerifyRecord> &records, const QString &dtype = QStringLiteral("bf16")) const;
};

} // namespace hotkernel
