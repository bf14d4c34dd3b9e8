// SPDX-License-Identifier: Apache-2.0
// The words that name a kernel the same way in every tool's spelling of it: torch's
// "vectorized_elementwise_kernel<8, ...{lambda()#1}..., 2ul>" and ncu's
// "vectorized_elementwise_kernel<(int)8, ...[lambda() (instance 1)]..., (unsigned long)2>" share
// the kernel's, its namespaces' and its functors' identifiers, not the literals, the lambda
// spellings or the words every name has. Matching a trace row to a kernel (TraceTarget) and
// picking one kernel for ncu (NcuKernelFilter) both read names through it. Pure; any thread.
#pragma once

#include <QString>
#include <QStringList>

namespace hotkernel {

class KernelWords
{
public:
    // The distinctive identifiers of text in order of first appearance, each once.
    static QStringList of(const QString &text);
};

} // namespace hotkernel
