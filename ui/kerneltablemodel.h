// SPDX-License-Identifier: Apache-2.0
// The kernels of one report (profile, trace, torch_trace), or of two as a before/after delta
// matched by kernel name. Sorts itself (sort()): typed keys computed once per sort and a
// permutation ordered with std::stable_sort, so a 100k-row table sorts without QVariant or
// per-comparison string work. GUI thread.
#pragma once

#include "inspect/kernelstat.h"

#include <QAbstractTableModel>

#include <optional>
#include <vector>

namespace hotkernel {

class KernelTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    // Nsight Compute's order: what a reader decides on first (share, time, throughputs, the
    // bound and its reason), the launch details after.
    enum Column {
        NameColumn,
        ShareColumn,
        TotalColumn,
        AverageColumn,
        BeforeAverageColumn, // delta mode only
        DeltaColumn,         // delta mode only: after / before - 1
        DramColumn,
        SmColumn,
        OccupancyColumn,
        BoundColumn,
        HintColumn,
        CallsColumn,
        GridColumn,
        BlockColumn,
        RegistersColumn,
        ColumnCount
    };
    enum Role {
        KernelNameRole = Qt::UserRole + 1, // the full name: selection key shared with the roofline
        ShareRole,                         // 0..1
        DeltaRole,                         // after / before - 1, or invalid
        SortRole,                          // a number for numeric columns
    };

    explicit KernelTableModel(QObject *parent = nullptr);

    // "void at::native::foo<float, 4>(T1)" -> "foo<…>": the name cut at its template arguments and
    // parameters, without return type and namespaces (the table's tooltip keeps the full name).
    // The operation named in the arguments stays: "vectorized_elementwise_kernel<4,
    // rsqrt_kernel_cuda(...)::...>" -> "vectorized_elementwise_kernel<rsqrt…>",
    // "...<4, CUDAFunctorOnSelf_add<float>, ...>" -> "...<add…>".
    static QString shortName(const QString &name);
    // The operation named by a kernel's template arguments (their first word that is not launch
    // machinery, a namespace or a literal), as operationWord() shortens it; empty when there is none.
    static QString distinctiveWord(const QString &arguments, const QString &function);
    // An ATen word shortened to its operation: without the functor wrapper before it
    // (CUDAFunctor_add -> add) and the suffixes after it that say kernel, functor or overload
    // (pow_tensor_scalar_kernel_impl -> pow, MeanOps -> Mean); bfloat16 spelled bf16.
    static QString operationWord(QString word);

    // "32.50 us": a time as the table writes it.
    static QString timeText(double ns);

    void setTable(KernelTable table);
    // Before/after: one row per kernel name found in either report.
    void setDelta(KernelTable before, KernelTable after);
    bool isDelta() const { return m_delta; }
    // Every kernel of the (after) report ran once, so Time (its total) repeats its average (After
    // in a comparison): the view hides Time then and gives the room to the names.
    bool totalRepeatsAverage() const;
    const KernelTable &table() const { return m_after; }
    const KernelTable &beforeTable() const { return m_before; }

    // A row's figure for a numeric column (NaN where a delta is unknown).
    double sortValue(int row, int column) const;
    QString kernelName(int row) const;
    // The name case-folded once per table: what sorting and filtering by name compare.
    const QString &sortName(int row) const { return m_sortNames[m_order[size_t(row)]]; }
    int rowForKernel(const QString &name) const;

    // Reorders the rows (layoutChanged, persistent indexes follow their rows); the order stays
    // across setTable()/setDelta(). Ties keep the report's order (heaviest first); unknown
    // figures sort last in both directions. column -1 restores the report's order.
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
    int sortColumn() const { return m_sortColumn; }
    Qt::SortOrder sortOrder() const { return m_sortOrder; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row
    {
        const KernelStat *after = nullptr;
        const KernelStat *before = nullptr;
    };
    const KernelStat &stat(const Row &row) const { return row.after ? *row.after : *row.before; }
    const Row &rowAt(int row) const { return m_rows[m_order[size_t(row)]]; }
    std::optional<double> delta(const Row &row) const;
    double sortKey(const Row &row, int column) const;
    // Indexes into m_rows in the order a sort by column gives.
    std::vector<int> sortedOrder(int column, Qt::SortOrder order) const;

    KernelTable m_after;
    KernelTable m_before;
    bool m_delta = false;
    void buildSortNames();

    std::vector<Row> m_rows;          // the report's order
    std::vector<QString> m_sortNames; // by index into m_rows
    std::vector<int> m_order;         // model row -> index into m_rows
    int m_sortColumn = -1;
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
};

} // namespace hotkernel
