// SPDX-License-Identifier: Apache-2.0
// How profile --tool ncu picks kernels by the names users see: the -k argument (demangled names,
// case-insensitive by default) and, when nothing matched, the kernels ncu says the program launched.
// Pure; any thread.
#pragma once

#include <QByteArrayView>
#include <QString>
#include <QStringList>

namespace hotkernel {

class NcuKernelFilter
{
public:
    // "regex:(?i)gelu" for "gelu"; the regex as given when caseSensitive or already (?i).
    // Used with --kernel-name-base demangled (ncu's default base is the bare function name).
    static QString argument(const QString &regex, bool caseSensitive);
    // A regex that picks this one kernel in ncu's demangled names, from its name as any of our tables
    // shows it (torch's "vectorized_elementwise_kernel<8, ...GeluCUDAKernelImpl...>" is ncu's
    // "vectorized_elementwise_kernel<(int)8, ...>"): the distinctive identifiers of its name and
    // template arguments in order. Empty for what is no kernel ("Memcpy DtoH (Device -> Pinned)").
    static QString regexFor(const QString &kernelName);
    // The names under ncu's "Available Kernels:" list, printed after "No kernels were profiled".
    static QStringList availableKernels(QByteArrayView output);
    // The error for a regex that matched nothing, listing what the program did launch.
    static QString noMatchMessage(const QString &regex, bool caseSensitive, const QStringList &launched,
                                  const QString &stderrTail);
};

} // namespace hotkernel
