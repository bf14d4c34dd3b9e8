// SPDX-License-Identifier: Apache-2.0
// What a working directory holds, as the window shows it: kernel tables (profiles, traces), disassembly with
// hot instructions, recorded verifies, the card's ceilings. load() is pure file reading and parsing:
// run it on a worker thread (QtConcurrent), never on the GUI thread.
#pragma once

#include "inspect/kernelstat.h"
#include "inspect/roofline.h"
#include "inspect/rooflinemodel.h"
#include "inspect/sassinstruction.h"
#include "record/verifyrecord.h"

#include <QStringList>

namespace hotkernel {

struct Workspace
{
    QString root;
    std::vector<KernelTable> kernelTables; // newest report first
    std::vector<SassFunction> functions;   // every disassembled function, hot figures attached
    std::vector<VerifyRecord> records;     // recorded verifies, oldest first
    QStringList problems;                  // files that could not be read, one line each
    QString card;                          // from the newest record, else the calibration's card
    // calibrate's ceilings for that card (results/calibration/ first, then the user's store).
    std::optional<MeasuredCeilings> measured;

    // extraReports: report paths the saved session knows of (profile runs) besides profiles/.
    static Workspace load(const QString &root, const QStringList &extraReports = {});
    // The disassembly of a kernel by its (demangled or mangled) name; null when none.
    const SassFunction *functionFor(const QString &kernelName) const;
    // Looks up the calibration of card (by its card-table row) under root, or with an empty card the
    // newest calibration of any known card there; blocking file reads (worker thread).
    void loadCalibration();
    // Spec and measured ceilings of the card (bandwidth, dtype peak; the FP32 peak too when kernels
    // are plotted, their FLOPs being FP-pipe work), a point per record with flops and bytes, and a
    // point per kernel of kernels that measured its FLOPs and DRAM bytes (Roofline::addKernelPoints).
    // With before (a comparison), each kernel once per side that ran it: before's as "baseline",
    // kernels' as "candidate", so a removed kernel is a baseline point and nothing is doubled.
    RooflineData roofline(const std::vector<VerifyRecord> &records, const KernelTable *kernels = nullptr,
                          const QString &dtype = QStringLiteral("bf16"),
                          const KernelTable *before = nullptr) const;
};

} // namespace hotkernel
