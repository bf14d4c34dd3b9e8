// SPDX-License-Identifier: Apache-2.0
// One disassembled function as a table (address, highlighted instruction, stall samples, executed),
// optionally aligned against another for a side-by-side diff. GUI thread.
#pragma once

#include "inspect/sassinstruction.h"
#include "linehighlighter.h"

#include <QAbstractTableModel>
#include <QFont>

#include <memory>
#include <optional>
#include <vector>

namespace hotkernel {

class SassModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        AddressColumn,
        InstructionColumn,
        StallSamplesColumn, // the line's samples and their share of the function's
        TopStallColumn,     // the reason most of the line's samples give, in words, with its share
        ExecutedColumn,
        ColumnCount
    };
    enum Role {
        AddressRole = Qt::UserRole + 1, // qulonglong, invalid for labels and filler rows
        StallSamplesRole,               // qlonglong
        HotnessRole,                    // share of the hottest line's samples, 0..1
        IsHotRole,                      // one of the lines that dominate the stall samples
        DiffStatusRole,                 // DiffStatus
        SortRole,
    };
    enum DiffStatus { Same, Removed, Added, Changed, Filler };
    Q_ENUM(DiffStatus)

    // One table row: an instruction of the function or an empty filler line of a diff.
    struct Row
    {
        int instruction = -1; // index into the function's instructions, -1 for filler
        DiffStatus status = Same;
    };

    explicit SassModel(QObject *parent = nullptr);
    ~SassModel() override;

    void setFunction(SassFunction function);
    // Rows for one side of a diff (see SassDiff); the function's instructions are indexed by rows.
    void setFunction(SassFunction function, std::vector<Row> rows);
    const SassFunction &function() const { return m_function; }
    void setTheme(const KSyntaxHighlighting::Theme &theme);

    // The highlighted instruction text of a row, laid out in font and cached.
    QTextLayout *layout(int row, const QFont &font) const;
    // First row at or after from whose text contains needle (case-insensitive), wrapping; -1 if none.
    int find(const QString &needle, int from) const;
    // Row of the instruction at address, or of the nearest one before it; -1 if none.
    int rowForAddress(quint64 address) const;
    QString lineText(int row) const;
    // Rows of the hot lines in row order, and the row with the most samples (-1 when none).
    const std::vector<int> &hotRows() const { return m_hotRows; }
    int hottestRow() const { return m_hottestRow; }
    // "waiting on global memory 62%": the reason most of the line's samples give, in words, and
    // its share of them; topStallReason() gives ncu's name of it (stall_long_sb).
    static QString topStall(const SassInstruction &instruction);
    static QString topStallReason(const SassInstruction &instruction);
    // ncu's stall reason (stall_long_sb, long_scoreboard, ...) in words a reader knows; the name
    // itself when it is not one of the documented reasons.
    static QString stallWords(const QString &ncuReason);
    // Every sample of the function, and the 1-based place of a row among the hot rows (0: not hot).
    qint64 totalSamples() const { return m_totalSamples; }
    int hotIndex(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void rehighlight();

    SassFunction m_function;
    std::vector<Row> m_rows;
    KSyntaxHighlighting::Theme m_theme;
    QVector<QVector<LineHighlighter::Span>> m_spans; // per instruction
    std::unique_ptr<LineHighlighter> m_highlighter;
    qint64 m_maxSamples = 0;
    qint64 m_totalSamples = 0;
    std::vector<bool> m_hot; // per instruction
    std::vector<int> m_hotRows;
    int m_hottestRow = -1;
    mutable std::vector<std::unique_ptr<QTextLayout>> m_layouts; // per row, built when first painted
    mutable QFont m_layoutFont;
};

} // namespace hotkernel
