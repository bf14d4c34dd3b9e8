// SPDX-License-Identifier: Apache-2.0
#include "sassdiff.h"

#include <QRegularExpression>

namespace hotkernel {

namespace {

QString key(const SassInstruction &in)
{
    // Branch targets are addresses too; compare labels and instructions without them.
    static const QRegularExpression hex(QStringLiteral("0x[0-9a-fA-F]+"));
    QString t = in.text.isEmpty() ? in.label : in.text;
    if (t.startsWith(QLatin1String("BRA")) || t.contains(QLatin1String(" BRA ")))
        t.replace(hex, QStringLiteral("0x"));
    return t.simplified();
}

} // namespace

SassDiff SassDiff::align(const SassFunction &baseline, const SassFunction &candidate)
{
    using Row = SassModel::Row;
    const auto &a = baseline.instructions;
    const auto &b = candidate.instructions;
    const qsizetype n = qsizetype(a.size());
    const qsizetype m = qsizetype(b.size());
    SassDiff diff;

    auto emitBlock = [&diff](qsizetype i0, qsizetype i1, qsizetype j0, qsizetype j1) {
        // A run of removed lines facing a run of added ones reads best paired up as changes.
        const qsizetype len = std::max(i1 - i0, j1 - j0);
        for (qsizetype k = 0; k < len; ++k) {
            const bool hasA = i0 + k < i1;
            const bool hasB = j0 + k < j1;
            const auto status = hasA && hasB ? SassModel::Changed : SassModel::Filler;
            diff.left.push_back(Row{hasA ? int(i0 + k) : -1,
                                    hasA ? (hasB ? status : SassModel::Removed) : SassModel::Filler});
            diff.right.push_back(
                Row{hasB ? int(j0 + k) : -1, hasB ? (hasA ? status : SassModel::Added) : SassModel::Filler});
            ++diff.changedLines;
        }
    };

    if (n * m > kMaxCells || n == 0 || m == 0) {
        const qsizetype common = std::min(n, m);
        qsizetype k = 0;
        while (k < common) {
            if (key(a[size_t(k)]) == key(b[size_t(k)])) {
                diff.left.push_back(Row{int(k), SassModel::Same});
                diff.right.push_back(Row{int(k), SassModel::Same});
                ++k;
                continue;
            }
            qsizetype e = k;
            while (e < common && key(a[size_t(e)]) != key(b[size_t(e)]))
                ++e;
            emitBlock(k, e, k, e);
            k = e;
        }
        emitBlock(common, n, common, m);
        return diff;
    }

    QStringList ka, kb;
    for (const auto &in : a)
        ka.append(key(in));
    for (const auto &in : b)
        kb.append(key(in));
    // lcs[i][j]: LCS length of a[i..] and b[j..].
    std::vector<quint32> lcs(size_t((n + 1) * (m + 1)), 0);
    auto at = [m, &lcs](qsizetype i, qsizetype j) -> quint32 & { return lcs[size_t(i * (m + 1) + j)]; };
    for (qsizetype i = n - 1; i >= 0; --i) {
        for (qsizetype j = m - 1; j >= 0; --j)
            at(i, j) = ka[i] == kb[j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    }
    qsizetype i = 0, j = 0, i0 = 0, j0 = 0;
    while (i < n && j < m) {
        if (ka[i] == kb[j]) {
            emitBlock(i0, i, j0, j);
            diff.left.push_back(Row{int(i), SassModel::Same});
            diff.right.push_back(Row{int(j), SassModel::Same});
            i0 = ++i;
            j0 = ++j;
        } else if (at(i + 1, j) >= at(i, j + 1)) {
            ++i;
        } else {
            ++j;
        }
    }
    emitBlock(i0, n, j0, m);
    return diff;
}

} // namespace hotkernel
