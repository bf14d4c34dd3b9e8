// SPDX-License-Identifier: Apache-2.0
// A target from a traced kernel: the torch_trace report's op row (or the row that launched a kernel
// named like a tracer or ncu row) and its execution-trace node become a small module calling that
// aten op with the recorded shapes, dtypes and arguments, and the `new` request that scaffolds
// a baseline around it. Pure; any thread.
#pragma once

#include "measure/executiontrace.h"
#include "measure/targetscaffold.h"

#include <QSet>
#include <QString>
#include <QStringList>

namespace hotkernel {

struct TraceOpRow
{
    int row = 0;
    QString op;
    qint64 node = -1;
    int calls = 0;
    double deviceUs = 0;
    QStringList kernels;
};

struct TraceTargetPlan
{
    TraceOpRow row;
    TraceCall call;
    QString unsupported; // why this op cannot be rebuilt; empty when it can
    QString moduleFile;  // NAME_op.py, in the out dir
    QString moduleSource;
    TargetRequest request; // from = ./NAME_op.py:op
};

class TraceTarget
{
public:
    // The report's op rows (torch_trace's "op_rows").
    static std::vector<TraceOpRow> rows(const Json &report);
    // Row number `row`, or with row 0 the row whose kernels include `kernel` (demangled names as
    // torch, ncu or the tracer print them; any case; a substring will do). Throws UserError listing
    // the rows when none fits.
    static TraceOpRow pick(const std::vector<TraceOpRow> &rows, int row, const QString &kernel);
    // Kernel names compared across tools: ncu prints "(int)8" where torch prints "8", and
    // "<unnamed>" where torch prints "(anonymous namespace)".
    static QString normalizedKernelName(const QString &name);
    // The distinctive identifiers of a demangled kernel name (kernel, namespaces, functors), without
    // the words every name has (void, at, native, lambda, std, array, T2, ...).
    static QSet<QString> kernelWords(const QString &name);
    // The plan for a call; name empty: the op's name ("gelu"). Never throws: unsupported says why.
    static TraceTargetPlan plan(const TraceOpRow &row, const TraceCall &call, const QString &name,
                                const QString &reportPath);
};

} // namespace hotkernel
