// SPDX-License-Identifier: Apache-2.0
// One kernel's figures as any source reports them (ncu, nsys, our CUPTI trace, torch.profiler).
// Plain values: parsers fill what their source knows and leave the rest unset.
#pragma once

#include <QString>

#include <optional>
#include <vector>

namespace hotkernel {

struct KernelStat
{
    QString name;        // demangled where the source allows
    QString mangledName; // when known
    int calls = 0;
    double totalNs = 0;
    double avgNs = 0;
    double minNs = 0;
    double maxNs = 0;
    double share = 0; // of total kernel time in the report, 0..1
    QString grid;     // "(4096, 1, 1)"
    QString block;    // "(256, 1, 1)"
    std::optional<int> registersPerThread;
    std::optional<int> sharedMemoryBytes; // static + dynamic per block
    std::optional<double> achievedOccupancyPct;
    std::optional<double> dramThroughputPct;
    std::optional<double> smThroughputPct;
    std::optional<int> stream;
    // Per call, where the report measures them (ncu's raw page under --set full): DRAM bytes read
    // plus written, and the operations of the FP32/FP16/FP64 pipes counted as ncu's roofline counts
    // them (an FMA is 2, a packed half FMA 4). Tensor-core work is not in flops: see tensorPipeUsed.
    std::optional<double> dramBytes;
    std::optional<double> flops;
    bool tensorPipeUsed = false;
    QString boundHint;  // "memory", "compute", "latency" or empty when unknown
    QString hintReason; // one line saying why
};

// A report's kernels, heaviest first, and where they came from.
struct KernelTable
{
    QString source;     // "ncu-details", "ncu-raw", "nsys-kernsum", "trace", "torch-profiler"
    QString path;       // the file parsed
    double totalNs = 0; // sum over every kernel in the report
    std::vector<KernelStat> kernels;
};

} // namespace hotkernel
