// SPDX-License-Identifier: Apache-2.0
#include "sassmodel.h"

#include "highlighting.h"

#include <KSyntaxHighlighting/Repository>

#include <QBrush>
#include <QColor>
#include <QHash>

#include <algorithm>

namespace hotkernel {

namespace {

// The lines a reader should look at first: the few that hold most of the stall samples.
constexpr int kHotLineCount = 5;
constexpr double kHotShare = 0.05;

QString instructionText(const SassInstruction &in)
{
    if (!in.label.isEmpty() && in.text.isEmpty())
        return in.label + QLatin1Char(':');
    return in.text;
}

} // namespace

SassModel::SassModel(QObject *parent) : QAbstractTableModel(parent) {}

SassModel::~SassModel() = default;

void SassModel::setFunction(SassFunction function)
{
    std::vector<Row> rows(function.instructions.size());
    for (size_t i = 0; i < rows.size(); ++i)
        rows[i].instruction = int(i);
    setFunction(std::move(function), std::move(rows));
}

void SassModel::setFunction(SassFunction function, std::vector<Row> rows)
{
    beginResetModel();
    m_function = std::move(function);
    m_rows = std::move(rows);
    m_layouts.clear();
    m_layouts.resize(m_rows.size());

    qint64 total = 0;
    m_maxSamples = 0;
    std::vector<std::pair<qint64, size_t>> bySamples;
    for (size_t i = 0; i < m_function.instructions.size(); ++i) {
        const qint64 s = m_function.instructions[i].stallSamples.value_or(0);
        total += s;
        m_maxSamples = std::max(m_maxSamples, s);
        if (s > 0)
            bySamples.emplace_back(s, i);
    }
    m_totalSamples = total;
    std::sort(bySamples.begin(), bySamples.end(), std::greater<>());
    m_hot.assign(m_function.instructions.size(), false);
    for (size_t k = 0; k < bySamples.size(); ++k) {
        if (k < size_t(kHotLineCount) || double(bySamples[k].first) >= kHotShare * double(total))
            m_hot[bySamples[k].second] = true;
    }
    m_hotRows.clear();
    m_hottestRow = -1;
    for (size_t r = 0; r < m_rows.size(); ++r) {
        const int in = m_rows[r].instruction;
        if (in < 0 || !m_hot[size_t(in)])
            continue;
        m_hotRows.push_back(int(r));
        if (!bySamples.empty() && size_t(in) == bySamples.front().second)
            m_hottestRow = int(r);
    }
    rehighlight();
    endResetModel();
}

void SassModel::setTheme(const KSyntaxHighlighting::Theme &theme)
{
    m_theme = theme;
    if (m_function.instructions.empty())
        return;
    rehighlight();
    m_layouts.clear();
    m_layouts.resize(m_rows.size());
    if (!m_rows.empty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void SassModel::rehighlight()
{
    const auto definition = m_function.level == QLatin1String("ptx") ? Highlighting::ptxDefinition()
                                                                     : Highlighting::sassDefinition();
    if (!m_theme.isValid())
        m_theme = Highlighting::repository().defaultTheme();
    m_highlighter = std::make_unique<LineHighlighter>(definition, m_theme);
    QStringList lines;
    lines.reserve(qsizetype(m_function.instructions.size()));
    for (const SassInstruction &in : m_function.instructions)
        lines.append(instructionText(in));
    m_spans = m_highlighter->highlightLines(lines);
}

QTextLayout *SassModel::layout(int row, const QFont &font) const
{
    if (row < 0 || size_t(row) >= m_rows.size())
        return nullptr;
    if (font != m_layoutFont) {
        for (auto &l : m_layouts)
            l.reset();
        m_layoutFont = font;
    }
    auto &cached = m_layouts[size_t(row)];
    if (!cached) {
        cached = std::make_unique<QTextLayout>(lineText(row), font);
        const int in = m_rows[size_t(row)].instruction;
        if (in >= 0 && m_highlighter)
            cached->setFormats(m_highlighter->formatRanges(m_spans.value(in)));
        cached->beginLayout();
        cached->createLine();
        cached->endLayout();
    }
    return cached.get();
}

QString SassModel::lineText(int row) const
{
    if (row < 0 || size_t(row) >= m_rows.size() || m_rows[size_t(row)].instruction < 0)
        return {};
    return instructionText(m_function.instructions[size_t(m_rows[size_t(row)].instruction)]);
}

QString SassModel::stallWords(const QString &ncuReason)
{
    // Nsight Compute's warp-state descriptions (its Kernel Profiling Guide), shortened to what the
    // warp waits for. ncu spells a reason stall_long_sb in source pages and long_scoreboard in
    // metrics; some versions add _throttle.
    static const QHash<QString, QString> words{
        {QStringLiteral("long_sb"), QStringLiteral("waiting on global memory")},
        {QStringLiteral("long_scoreboard"), QStringLiteral("waiting on global memory")},
        {QStringLiteral("short_sb"), QStringLiteral("waiting on shared memory or MUFU")},
        {QStringLiteral("short_scoreboard"), QStringLiteral("waiting on shared memory or MUFU")},
        {QStringLiteral("barrier"), QStringLiteral("waiting at a block barrier")},
        {QStringLiteral("membar"), QStringLiteral("waiting at a memory barrier")},
        {QStringLiteral("branch_resolving"), QStringLiteral("resolving a branch")},
        {QStringLiteral("dispatch"), QStringLiteral("dispatch stalled")},
        {QStringLiteral("dispatch_stall"), QStringLiteral("dispatch stalled")},
        {QStringLiteral("drain"), QStringLiteral("draining stores at exit")},
        {QStringLiteral("imc"), QStringLiteral("constant cache miss")},
        {QStringLiteral("imc_miss"), QStringLiteral("constant cache miss")},
        {QStringLiteral("lg"), QStringLiteral("memory queue full (global/local)")},
        {QStringLiteral("lg_throttle"), QStringLiteral("memory queue full (global/local)")},
        {QStringLiteral("math"), QStringLiteral("math pipe busy")},
        {QStringLiteral("math_pipe_throttle"), QStringLiteral("math pipe busy")},
        {QStringLiteral("mio"), QStringLiteral("shared memory queue full")},
        {QStringLiteral("mio_throttle"), QStringLiteral("shared memory queue full")},
        {QStringLiteral("misc"), QStringLiteral("other (misc)")},
        {QStringLiteral("no_inst"), QStringLiteral("no instruction fetched")},
        {QStringLiteral("no_instruction"), QStringLiteral("no instruction fetched")},
        {QStringLiteral("not_selected"), QStringLiteral("ready, another warp issued")},
        {QStringLiteral("selected"), QStringLiteral("issuing (no stall)")},
        {QStringLiteral("sleep"), QStringLiteral("sleeping")},
        {QStringLiteral("sleeping"), QStringLiteral("sleeping")},
        {QStringLiteral("tex"), QStringLiteral("texture queue full")},
        {QStringLiteral("tex_throttle"), QStringLiteral("texture queue full")},
        {QStringLiteral("wait"), QStringLiteral("fixed-latency wait")},
        {QStringLiteral("gmma"), QStringLiteral("waiting on a warpgroup MMA")},
        {QStringLiteral("lsu"), QStringLiteral("load/store queue full")},
    };
    QString key = ncuReason.trimmed();
    if (key.startsWith(QLatin1String("stall_")))
        key = key.mid(6);
    if (key.startsWith(QLatin1String("smsp__pcsamp_warps_issue_stalled_")))
        key = key.mid(33);
    return words.value(key, key);
}

QString SassModel::topStallReason(const SassInstruction &in)
{
    const std::pair<const QString, qint64> *top = nullptr;
    for (const auto &entry : in.stallReasons) {
        if (!top || entry.second > top->second)
            top = &entry;
    }
    return top && top->second > 0 ? top->first : QString();
}

QString SassModel::topStall(const SassInstruction &in)
{
    qint64 total = 0;
    for (const auto &entry : in.stallReasons)
        total += entry.second;
    const QString reason = topStallReason(in);
    if (reason.isEmpty() || total <= 0)
        return {};
    return QStringLiteral("%1 %2%")
        .arg(stallWords(reason))
        .arg(qRound(100.0 * double(in.stallReasons.at(reason)) / double(total)));
}

int SassModel::hotIndex(int row) const
{
    const auto it = std::lower_bound(m_hotRows.begin(), m_hotRows.end(), row);
    return it != m_hotRows.end() && *it == row ? int(it - m_hotRows.begin()) + 1 : 0;
}

int SassModel::find(const QString &needle, int from) const
{
    const int n = rowCount();
    if (needle.isEmpty() || n == 0)
        return -1;
    for (int k = 0; k < n; ++k) {
        const int row = (std::max(from, 0) + k) % n;
        if (lineText(row).contains(needle, Qt::CaseInsensitive))
            return row;
    }
    return -1;
}

int SassModel::rowForAddress(quint64 address) const
{
    int best = -1;
    for (size_t r = 0; r < m_rows.size(); ++r) {
        const int in = m_rows[r].instruction;
        if (in < 0)
            continue;
        const auto &a = m_function.instructions[size_t(in)].address;
        if (a && *a <= address)
            best = int(r);
        if (a && *a >= address)
            break;
    }
    return best;
}

int SassModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int SassModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SassModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = m_rows[size_t(index.row())];
    if (role == DiffStatusRole)
        return row.status;
    if (row.instruction < 0)
        return {};
    const SassInstruction &in = m_function.instructions[size_t(row.instruction)];
    const bool hot = m_hot[size_t(row.instruction)];
    const double hotness =
        m_maxSamples > 0 ? double(in.stallSamples.value_or(0)) / double(m_maxSamples) : 0.0;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case AddressColumn:
            return in.address ? QStringLiteral("%1").arg(*in.address, 4, 16, QLatin1Char('0')) : QString();
        case InstructionColumn:
            return instructionText(in);
        case StallSamplesColumn:
            if (!in.stallSamples)
                return {};
            // The share says how much this line matters; the count how sure that is.
            return m_totalSamples > 0 && *in.stallSamples > 0
                       ? QStringLiteral("%1  %2%")
                             .arg(*in.stallSamples)
                             .arg(100.0 * double(*in.stallSamples) / double(m_totalSamples), 0, 'f', 1)
                       : QString::number(*in.stallSamples);
        case TopStallColumn:
            return topStall(in);
        case ExecutedColumn:
            return in.executed ? QVariant(qlonglong(*in.executed)) : QVariant();
        }
        return {};
    case Qt::ToolTipRole:
        if (in.stallReasons.empty())
            return {};
        {
            // Every reason, most samples first.
            std::vector<std::pair<qint64, QString>> sorted;
            for (const auto &[reason, samples] : in.stallReasons) {
                if (samples > 0)
                    sorted.emplace_back(samples, reason);
            }
            std::sort(sorted.begin(), sorted.end(), std::greater<>());
            QStringList reasons{tr("Stall samples by reason (ncu's name):")};
            for (const auto &[samples, reason] : sorted)
                reasons.append(QStringLiteral("%1 (%2): %3").arg(stallWords(reason), reason).arg(samples));
            return reasons.join(QLatin1Char('\n'));
        }
    case Qt::TextAlignmentRole:
        return index.column() == StallSamplesColumn || index.column() == ExecutedColumn
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant();
    case AddressRole:
        return in.address ? QVariant(qulonglong(*in.address)) : QVariant();
    case StallSamplesRole:
        return qlonglong(in.stallSamples.value_or(0));
    case HotnessRole:
        return hotness;
    case IsHotRole:
        return hot;
    case SortRole:
        switch (index.column()) {
        case AddressColumn:
            return qulonglong(in.address.value_or(0));
        case StallSamplesColumn:
            return qlonglong(in.stallSamples.value_or(0));
        case ExecutedColumn:
            return qlonglong(in.executed.value_or(0));
        }
        return data(index, Qt::DisplayRole);
    }
    return {};
}

QVariant SassModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case AddressColumn:
        return tr("Address");
    case InstructionColumn:
        return tr("Instruction");
    case StallSamplesColumn:
        return tr("Samples  share");
    case TopStallColumn:
        return tr("Top stall");
    case ExecutedColumn:
        return tr("Executed");
    }
    return {};
}

} // namespace hotkernel
