// SPDX-License-Identifier: Apache-2.0
#include "inspect/hotinstructions.h"

#include "inspect/sassparser.h"

#include <QHash>

#include <algorithm>

namespace hotkernel {

QString HotInstructions::baseName(const QString &name)
{
    // The name ends at its template arguments or parameter list.
    QString s = name.trimmed();
    for (qsizetype i = 0; i < s.size(); ++i) {
        if (s[i] == QLatin1Char('<') || s[i] == QLatin1Char('(')) {
            s.truncate(i);
            break;
        }
    }
    s = s.trimmed();
    // Return type before the name ("void f"), namespaces before it ("ns::f").
    const qsizetype space = s.lastIndexOf(QLatin1Char(' '));
    if (space >= 0)
        s = s.sliced(space + 1);
    const qsizetype scope = s.lastIndexOf(QLatin1String("::"));
    if (scope >= 0)
        s = s.sliced(scope + 2);
    return s;
}

const SourceReport *HotInstructions::pick(const std::vector<SourceReport> &reports,
                                          const SassFunction &function)
{
    const QString wanted =
        baseName(function.demangled.isEmpty() ? SassParser::demangle(function.name) : function.demangled);
    for (const SourceReport &r : reports) {
        if (r.kernelName == function.name || r.kernelName == function.demangled ||
            baseName(r.kernelName) == wanted)
            return &r;
    }
    return reports.size() == 1 ? &reports.front() : nullptr;
}

AttachSummary HotInstructions::attach(SassFunction &function, const SourceReport &report, int topReasons)
{
    AttachSummary summary;
    if (report.rows.empty())
        return summary;
    // ncu prints absolute addresses; the listing prints offsets from the function's start, which
    // is the lowest address the report shows (it lists every instruction, the entry included).
    quint64 base = report.rows.front().address;
    for (const SourceRow &row : report.rows)
        base = std::min(base, row.address);
    QHash<quint64, size_t> byOffset;
    for (size_t i = 0; i < function.instructions.size(); ++i) {
        if (function.instructions[i].address)
            byOffset.insert(*function.instructions[i].address, i);
    }
    std::map<QString, qint64> reasons;
    for (const SourceRow &row : report.rows) {
        summary.totalSamples += row.stallSamples;
        for (const auto &[reason, n] : row.stallReasons)
            reasons[reason] += n;
        const auto it = byOffset.constFind(row.address - base);
        if (it == byOffset.constEnd()) {
            ++summary.unmatched;
            continue;
        }
        SassInstruction &instruction = function.instructions[*it];
        instruction.stallSamples = instruction.stallSamples.value_or(0) + row.stallSamples;
        instruction.executed = instruction.executed.value_or(0) + row.executed;
        for (const auto &[reason, n] : row.stallReasons)
            instruction.stallReasons[reason] += n;
        ++summary.matched;
        if (SassParser::opcodeOf(row.source) != instruction.opcode)
            ++summary.opcodeMismatches;
    }
    summary.topStallReasons.assign(reasons.begin(), reasons.end());
    std::stable_sort(summary.topStallReasons.begin(), summary.topStallReasons.end(),
                     [](const auto &a, const auto &b) { return a.second > b.second; });
    if (int(summary.topStallReasons.size()) > topReasons)
        summary.topStallReasons.resize(size_t(topReasons));
    return summary;
}

SassFunction HotInstructions::fromReport(const SourceReport &report)
{
    SassFunction function;
    function.name = report.kernelName;
    function.demangled = report.kernelName;
    function.level = QStringLiteral("sass");
    if (report.rows.empty())
        return function;
    quint64 base = report.rows.front().address;
    for (const SourceRow &row : report.rows)
        base = std::min(base, row.address);
    function.instructions.reserve(report.rows.size());
    for (const SourceRow &row : report.rows) {
        SassInstruction instruction;
        instruction.address = row.address - base;
        instruction.text = row.source.trimmed();
        instruction.opcode = SassParser::opcodeOf(instruction.text);
        function.instructions.push_back(std::move(instruction));
    }
    return function;
}

const SourceReport *HotInstructions::find(const std::vector<SourceReport> &reports, const QString &wanted)
{
    const SourceReport *best = nullptr;
    for (const SourceReport &r : reports) {
        if (!wanted.isEmpty() && !r.kernelName.contains(wanted, Qt::CaseInsensitive))
            continue;
        if (!best || r.totalSamples > best->totalSamples)
            best = &r;
    }
    return best;
}

std::vector<size_t> HotInstructions::hottest(const SassFunction &function, int n)
{
    std::vector<size_t> indices;
    for (size_t i = 0; i < function.instructions.size(); ++i) {
        if (function.instructions[i].stallSamples.value_or(0) > 0)
            indices.push_back(i);
    }
    std::stable_sort(indices.begin(), indices.end(), [&function](size_t a, size_t b) {
        return *function.instructions[a].stallSamples > *function.instructions[b].stallSamples;
    });
    if (int(indices.size()) > n)
        indices.resize(size_t(n));
    return indices;
}

} // namespace hotkernel
