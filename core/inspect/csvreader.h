// SPDX-License-Identifier: Apache-2.0
// Reads RFC 4180 CSV one row at a time without copying the input: quoted fields may hold commas,
// doubled quotes and newlines. Pure; any thread. Tool exports (ncu, nsys) are tens of MB, so
// fields are views into the input and only fields with doubled quotes are copied.
#pragma once

#include <QByteArrayView>
#include <QString>

#include <string>
#include <vector>

namespace hotkernel {

class CsvReader
{
public:
    // data must outlive the reader and every view it hands out.
    explicit CsvReader(QByteArrayView data);

    // Reads the next record; false at the end of the input. Blank lines are records of one
    // empty field (callers skip them with isBlank()).
    bool readRow();
    qsizetype size() const { return qsizetype(m_fields.size()); }
    bool isBlank() const { return m_fields.size() == 1 && m_fields[0].isEmpty(); }
    // The field's bytes, quotes removed; empty past the end of the row.
    QByteArrayView field(qsizetype i) const
    {
        return i >= 0 && i < size() ? m_fields[size_t(i)] : QByteArrayView();
    }
    QString text(qsizetype i) const { return QString::fromUtf8(field(i)); }
    // 1-based line the current record started on, for error messages.
    qsizetype lineNumber() const { return m_rowLine; }
    // Byte offset of the next unread record.
    qsizetype position() const { return m_pos; }
    // Moves to the start of the line holding offset (used to skip banner lines before a header).
    void seek(qsizetype offset);

private:
    QByteArrayView m_data;
    qsizetype m_pos = 0;
    qsizetype m_line = 1;
    qsizetype m_rowLine = 0;
    std::vector<QByteArrayView> m_fields;
    // Unescaped copies of fields that held doubled quotes; offsets into m_scratch until the row ends.
    std::string m_scratch;
    std::vector<std::pair<size_t, std::pair<size_t, size_t>>> m_scratchFields; // field, (offset, length)
};

} // namespace hotkernel
