// SPDX-License-Identifier: Apache-2.0
#include "kerneltablemodel.h"

#include "inspect/kernelwords.h"

#include <QHash>
#include <QLocale>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace hotkernel {

namespace {

QString formatNs(double ns)
{
    if (ns >= 1e6)
        return QStringLiteral("%1 ms").arg(ns / 1e6, 0, 'f', 3);
    if (ns >= 1e3)
        return QStringLiteral("%1 us").arg(ns / 1e3, 0, 'f', 2);
    return QStringLiteral("%1 ns").arg(ns, 0, 'f', 0);
}

QString percent(const std::optional<double> &v)
{
    return v ? QStringLiteral("%1 %").arg(*v, 0, 'f', 1) : QString();
}

// "(4096, 1, 1)" -> 4096: launch shapes sort by their size, not as text ("(512" > "(4096").
double shapeSize(const QString &shape)
{
    double product = 1;
    bool any = false;
    double current = 0;
    bool inNumber = false;
    for (const QChar c : shape) {
        if (c.isDigit()) {
            current = current * 10 + c.digitValue();
            inNumber = true;
        } else if (inNumber) {
            product *= current;
            any = true;
            current = 0;
            inNumber = false;
        }
    }
    if (inNumber) {
        product *= current;
        any = true;
    }
    return any ? product : std::nan("");
}

bool isText(int column)
{
    return column == KernelTableModel::NameColumn || column == KernelTableModel::BoundColumn ||
           column == KernelTableModel::HintColumn;
}

} // namespace

KernelTableModel::KernelTableModel(QObject *parent) : QAbstractTableModel(parent) {}

QString KernelTableModel::shortName(const QString &name)
{
    QString s = name.trimmed();
    // Anonymous namespaces as demanglers and ncu print them; their brackets are not arguments.
    for (const auto *noise : {"(anonymous namespace)::", "<unnamed>::", "unnamed>::"})
        s.remove(QLatin1String(noise));
    qsizetype cut = s.size();
    bool templated = false;
    for (qsizetype i = 0; i < s.size(); ++i) {
        if (s[i] == QLatin1Char('<') || s[i] == QLatin1Char('(')) {
            cut = i;
            templated = s[i] == QLatin1Char('<');
            break;
        }
    }
    QString base = s.left(cut).trimmed();
    base = base.mid(base.lastIndexOf(QLatin1Char(' ')) + 1); // drop the return type
    const qsizetype scope = base.lastIndexOf(QLatin1String("::"));
    if (scope >= 0)
        base = base.mid(scope + 2);
    if (base.isEmpty())
        return name;
    if (!templated)
        return base;
    const QString word = distinctiveWord(s.mid(cut + 1), base);
    if (word.isEmpty())
        return base + QStringLiteral("<…>");
    return base + QLatin1Char('<') + word + QStringLiteral("…>");
}

QString KernelTableModel::distinctiveWord(const QString &arguments, const QString &function)
{
    // The launch machinery every ATen kernel shares; the word after it (rsqrt_kernel_cuda,
    // MulFunctor, MeanOps) is what tells five vectorized_elementwise_kernel rows apart.
    static const QSet<QString> machinery{QStringLiteral("TensorIteratorBase"),
                                         QStringLiteral("TensorIterator"),
                                         QStringLiteral("gpu_kernel_impl"),
                                         QStringLiteral("gpu_kernel_impl_nocast"),
                                         QStringLiteral("gpu_kernel_with_scalars"),
                                         QStringLiteral("BinaryFunctor"),
                                         QStringLiteral("UnaryFunctor"),
                                         QStringLiteral("AUnaryFunctor"),
                                         QStringLiteral("BUnaryFunctor"),
                                         QStringLiteral("ReduceOp"),
                                         QStringLiteral("OffsetCalculator"),
                                         QStringLiteral("TrivialOffsetCalculator"),
                                         QStringLiteral("memory"),
                                         QStringLiteral("LoadWithCast"),
                                         QStringLiteral("StoreWithCast"),
                                         QStringLiteral("LoadWithoutCast"),
                                         QStringLiteral("StoreWithoutCast"),
                                         QStringLiteral("binary_internal"),
                                         QStringLiteral("func_wrapper_t"),
                                         QStringLiteral("opmath_t"),
                                         QStringLiteral("cuda"),
                                         QStringLiteral("cub"),
                                         QStringLiteral("cutlass"),
                                         QStringLiteral("device_kernel"),
                                         QStringLiteral("BFloat16"),
                                         QStringLiteral("Half")};
    // Element types, CUDA's vector types among them (float4, __nv_bfloat162, int64_t): the data,
    // not the operation.
    static const QRegularExpression elementType(QStringLiteral(
        "^(__nv_|__)?(u?(char|short|int|long|longlong)|float|double|half|bfloat16)\\d*(_t)?$"));
    // Qualifiers say where a word lives, not what it does: "templates::cuda::normal_and_transform"
    // is a normal distribution, and its namespaces would otherwise be the first words.
    static const QRegularExpression qualifier(QStringLiteral("\\b[A-Za-z_]\\w*\\s*::"));
    QString unqualified = arguments;
    unqualified.remove(qualifier);
    for (const QString &w : KernelWords::of(unqualified)) {
        if (machinery.contains(w) || w == function || elementType.match(w).hasMatch())
            continue;
        return operationWord(w);
    }
    return {};
}

QString KernelTableModel::operationWord(QString word)
{
    // ATen's functor wrappers put the operation after their own name: CUDAFunctorOnSelf_add,
    // CUDAFunctor_add (the CUDA functor of add, applied in place or not).
    const qsizetype underscore = word.indexOf(QLatin1Char('_'));
    if (underscore > 0 && underscore + 1 < word.size() &&
        word.left(underscore).contains(QLatin1String("Functor")))
        word = word.mid(underscore + 1);
    // What only repeats that it is a kernel (rsqrt_kernel_cuda), an object of one (MulFunctor,
    // MeanOps) or which overload it is (pow_tensor_scalar, normal_and_transform): the operation
    // is the stem.
    for (bool cut = true; cut;) {
        cut = false;
        for (const auto *suffix :
             {"_kernel_cuda", "_kernel_impl", "CUDAKernelImpl", "KernelImpl", "_kernel", "_cuda", "_impl",
              "Functor", "Ops", "_tensor", "_scalar", "_and_transform"}) {
            const auto length = qsizetype(std::strlen(suffix));
            if (word.size() > length && word.endsWith(QLatin1String(suffix))) {
                word.chop(length);
                cut = true;
            }
        }
    }
    // The dtype as kernels' users write it (torch.bfloat16 is "bf16" in every benchmark table).
    word.replace(QLatin1String("bfloat16"), QLatin1String("bf16"));
    return word;
}

void KernelTableModel::setTable(KernelTable table)
{
    beginResetModel();
    m_after = std::move(table);
    m_before = {};
    m_delta = false;
    m_rows.clear();
    m_rows.reserve(m_after.kernels.size());
    for (const KernelStat &k : m_after.kernels)
        m_rows.push_back(Row{&k, nullptr});
    buildSortNames();
    m_order = sortedOrder(m_sortColumn, m_sortOrder);
    endResetModel();
}

void KernelTableModel::setDelta(KernelTable before, KernelTable after)
{
    beginResetModel();
    m_before = std::move(before);
    m_after = std::move(after);
    m_delta = true;
    m_rows.clear();
    QHash<QString, const KernelStat *> beforeByName;
    for (const KernelStat &k : m_before.kernels)
        beforeByName.insert(k.name, &k);
    for (const KernelStat &k : m_after.kernels)
        m_rows.push_back(Row{&k, beforeByName.take(k.name)});
    // Kernels that went away stay visible: often the point of a change.
    for (const KernelStat &k : m_before.kernels) {
        if (beforeByName.contains(k.name))
            m_rows.push_back(Row{nullptr, &k});
    }
    buildSortNames();
    m_order = sortedOrder(m_sortColumn, m_sortOrder);
    endResetModel();
}

void KernelTableModel::buildSortNames()
{
    m_sortNames.clear();
    m_sortNames.reserve(m_rows.size());
    for (const Row &r : m_rows)
        m_sortNames.push_back(stat(r).name.toCaseFolded());
}

std::optional<double> KernelTableModel::delta(const Row &row) const
{
    if (!row.after || !row.before || row.before->avgNs <= 0)
        return std::nullopt;
    return row.after->avgNs / row.before->avgNs - 1.0;
}

QString KernelTableModel::kernelName(int row) const
{
    return row >= 0 && size_t(row) < m_rows.size() ? stat(rowAt(row)).name : QString();
}

int KernelTableModel::rowForKernel(const QString &name) const
{
    for (size_t r = 0; r < m_order.size(); ++r) {
        if (stat(rowAt(int(r))).name == name)
            return int(r);
    }
    return -1;
}

double KernelTableModel::sortValue(int row, int column) const
{
    return sortKey(rowAt(row), column);
}

double KernelTableModel::sortKey(const Row &r, int column) const
{
    const KernelStat &k = stat(r);
    const bool gone = !r.after;
    switch (column) {
    case CallsColumn:
        return gone ? 0 : k.calls;
    case TotalColumn:
        return gone ? 0 : k.totalNs;
    case AverageColumn:
        return gone ? 0 : k.avgNs;
    case ShareColumn:
        return gone ? 0 : k.share;
    case HintColumn:
        return 0;
    case RegistersColumn:
        return k.registersPerThread.value_or(-1);
    case OccupancyColumn:
        return k.achievedOccupancyPct.value_or(-1);
    case DramColumn:
        return k.dramThroughputPct.value_or(-1);
    case SmColumn:
        return k.smThroughputPct.value_or(-1);
    case BeforeAverageColumn:
        return r.before ? r.before->avgNs : -1;
    case DeltaColumn:
        return delta(r).value_or(std::nan(""));
    case GridColumn:
        return shapeSize(k.grid);
    case BlockColumn:
        return shapeSize(k.block);
    }
    return 0;
}

bool KernelTableModel::totalRepeatsAverage() const
{
    return std::all_of(m_after.kernels.begin(), m_after.kernels.end(),
                       [](const KernelStat &k) { return k.calls <= 1 && k.totalNs == k.avgNs; });
}

std::vector<int> KernelTableModel::sortedOrder(int column, Qt::SortOrder order) const
{
    std::vector<int> rows(m_rows.size());
    std::iota(rows.begin(), rows.end(), 0);
    if (column < 0 || column >= ColumnCount)
        return rows;
    const bool descending = order == Qt::DescendingOrder;
    if (isText(column)) {
        // Names are case-folded once per table; the hint is one short word per row.
        std::vector<QString> hints;
        if (column != NameColumn) {
            hints.reserve(m_rows.size());
            for (const Row &r : m_rows)
                hints.push_back(
                    (column == BoundColumn ? stat(r).boundHint : stat(r).hintReason).toCaseFolded());
        }
        const std::vector<QString> &keys = column == NameColumn ? m_sortNames : hints;
        std::stable_sort(rows.begin(), rows.end(), [&keys, descending](int a, int b) {
            const QString &ka = keys[size_t(a)];
            const QString &kb = keys[size_t(b)];
            if (ka.isEmpty() != kb.isEmpty())
                return kb.isEmpty(); // unknown last
            return descending ? kb < ka : ka < kb;
        });
        return rows;
    }
    std::vector<double> keys;
    keys.reserve(m_rows.size());
    for (const Row &r : m_rows)
        keys.push_back(sortKey(r, column));
    // NaN (an unknown delta or shape) would break the strict weak order std::stable_sort needs.
    std::stable_sort(rows.begin(), rows.end(), [&keys, descending](int a, int b) {
        const double ka = keys[size_t(a)];
        const double kb = keys[size_t(b)];
        if (std::isnan(ka) || std::isnan(kb))
            return !std::isnan(ka) && std::isnan(kb);
        return descending ? kb < ka : ka < kb;
    });
    return rows;
}

void KernelTableModel::sort(int column, Qt::SortOrder order)
{
    m_sortColumn = column;
    m_sortOrder = order;
    std::vector<int> next = sortedOrder(column, order);
    if (next == m_order)
        return;
    Q_EMIT layoutAboutToBeChanged({}, VerticalSortHint);
    std::vector<int> newRowOf(m_rows.size()); // index into m_rows -> its new model row
    for (size_t row = 0; row < next.size(); ++row)
        newRowOf[size_t(next[row])] = int(row);
    const QModelIndexList from = persistentIndexList();
    QModelIndexList to;
    to.reserve(from.size());
    for (const QModelIndex &index : from)
        to.append(index.isValid()
                      ? createIndex(newRowOf[size_t(m_order[size_t(index.row())])], index.column())
                      : QModelIndex());
    m_order = std::move(next);
    changePersistentIndexList(from, to);
    Q_EMIT layoutChanged({}, VerticalSortHint);
}

int KernelTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int KernelTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KernelTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &r = rowAt(index.row());
    const KernelStat &k = stat(r);
    const bool gone = !r.after;
    switch (role) {
    case KernelNameRole:
        return k.name;
    case ShareRole:
        return gone ? 0.0 : k.share;
    case DeltaRole:
        if (const auto d = delta(r))
            return *d;
        return {};
    case SortRole:
        if (isText(index.column()))
            return data(index, Qt::DisplayRole);
        return sortKey(r, index.column());
    case Qt::ToolTipRole:
        if (index.column() == NameColumn)
            return k.mangledName.isEmpty() || k.mangledName == k.name
                       ? k.name
                       : k.name + QLatin1Char('\n') + k.mangledName;
        if (index.column() == BoundColumn || index.column() == HintColumn)
            return k.hintReason.isEmpty() ? QVariant() : QVariant(k.hintReason);
        if (index.column() == DeltaColumn && m_delta)
            return tr("after / before - 1 of the average time per call; before: %1, after: %2")
                .arg(m_before.path, m_after.path);
        return {};
    case Qt::TextAlignmentRole:
        return isText(index.column()) ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::DisplayRole:
        break;
    default:
        return {};
    }
    switch (index.column()) {
    case NameColumn:
        return shortName(k.name);
    case CallsColumn:
        return gone ? QVariant() : QVariant(k.calls);
    case TotalColumn:
        return gone ? QString() : formatNs(k.totalNs);
    case AverageColumn:
        return gone ? QString() : formatNs(k.avgNs);
    case ShareColumn:
        // A removed kernel's share is its share of the before report, in brackets.
        return gone ? QStringLiteral("(%1 %)").arg(k.share * 100, 0, 'f', 1)
                    : QStringLiteral("%1 %").arg(k.share * 100, 0, 'f', 1);
    case GridColumn:
        return k.grid;
    case BlockColumn:
        return k.block;
    case RegistersColumn:
        return k.registersPerThread ? QVariant(*k.registersPerThread) : QVariant();
    case OccupancyColumn:
        return percent(k.achievedOccupancyPct);
    case DramColumn:
        return percent(k.dramThroughputPct);
    case SmColumn:
        return percent(k.smThroughputPct);
    case BoundColumn:
        return k.boundHint;
    case HintColumn:
        return k.hintReason;
    case BeforeAverageColumn:
        return r.before ? formatNs(r.before->avgNs) : QString();
    case DeltaColumn:
        if (const auto d = delta(r))
            return QStringLiteral("%1%2 %")
                .arg(*d >= 0 ? QStringLiteral("+") : QString())
                .arg(*d * 100, 0, 'f', 1);
        // In a comparison, a kernel only the before report has was removed by the change; said
        // here rather than after the name, which is the first text to be elided.
        if (gone)
            return tr("removed");
        return r.before ? QString() : tr("added");
    }
    return {};
}

QString KernelTableModel::timeText(double ns)
{
    return formatNs(ns);
}

QVariant KernelTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        // Short headers leave the width to the kernel's name; the tooltip says what they measure.
        switch (section) {
        case TotalColumn:
            return tr("Total time of the kernel's calls");
        case AverageColumn:
            return m_delta ? tr("Average time per call in the after report") : tr("Average time per call");
        case BeforeAverageColumn:
            return tr("Average time per call in the before report");
        case OccupancyColumn:
            return tr("Achieved occupancy");
        }
        return {};
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Kernel");
    case CallsColumn:
        return tr("Calls");
    case TotalColumn:
        return tr("Time");
    case AverageColumn:
        return m_delta ? tr("After") : tr("Average");
    case ShareColumn:
        return tr("Share");
    case GridColumn:
        return tr("Grid");
    case BlockColumn:
        return tr("Block");
    case RegistersColumn:
        return tr("Registers");
    case OccupancyColumn:
        return tr("Occupancy");
    case DramColumn:
        return tr("DRAM %");
    case SmColumn:
        return tr("SM %");
    case BoundColumn:
        return tr("Bound");
    case HintColumn:
        return tr("Hint");
    case BeforeAverageColumn:
        return tr("Before");
    case DeltaColumn:
        return tr("Change");
    }
    return {};
}

} // namespace hotkernel
