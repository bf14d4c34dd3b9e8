// SPDX-License-Identifier: Apache-2.0
// The kernels of one report (profile, trace, torch_trace), or of two as a before/after delta
// matched by kernel name. GUI thread.
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
    enum Column {
        NameColumn,
        CallsColumn,
        TotalColumn,
        AverageColumn,
        ShareColumn,
        GridColumn,
        BlockColumn,
        RegistersColumn,
        OccupancyColumn,
        DramColumn,
        SmColumn,
        BoundColumn,
        BeforeAverageColumn, // delta mode only
        DeltaColumn,         // delta mode only: after / before - 1
        ColumnCount
    };
    enum Role {
        KernelNameRole = Qt::UserRole + 1, // the full name: selection key shared with the roofline
        ShareRole,                         // 0..1
        DeltaRole,                         // after / before - 1, or invalid
        SortRole,                          // a number for numeric columns
    };

    explicit KernelTableModel(QObject *parent = nullptr);

    void setTable(KernelTable table);
    // Before/after: one row per kernel name found in either report.
    void setDelta(KernelTable before, KernelTable after);
    bool isDelta() const { return m_delta; }
    const KernelTable &table() const { return m_after; }
    const KernelTable &beforeTable() const { return m_before; }

    // Row's figures for fast sorting without QVariant (the proxy's lessThan).
    double sortValue(int row, int column) const;
    QString kernelName(int row) const;
    // The name case-folded once per table, so sorting by name compares plain strings.
    const QString &sortName(int row) const { return m_sortNames[size_t(row)]; }
    int rowForKernel(const QString &name) const;

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
    std::optional<double> delta(const Row &row) const;

    KernelTable m_after;
    KernelTable m_before;
    bool m_delta = false;
    void buildSortNames();

    std::vector<Row> m_rows;
    std::vector<QString> m_sortNames;
};

} // namespace hotkernel
