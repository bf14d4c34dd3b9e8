// SPDX-License-Identifier: Apache-2.0
#include "inspect/csvreader.h"

#include <cstring>

namespace hotkernel {

CsvReader::CsvReader(QByteArrayView data) : m_data(data)
{
    // A UTF-8 byte order mark is not part of the first field.
    if (m_data.size() >= 3 && m_data.startsWith(QByteArrayView("\xEF\xBB\xBF", 3)))
        m_pos = 3;
}

void CsvReader::seek(qsizetype offset)
{
    m_pos = offset;
    m_line = 1;
    for (qsizetype i = 0; i < offset && i < m_data.size(); ++i)
        m_line += m_data[i] == '\n';
}

bool CsvReader::readRow()
{
    m_fields.clear();
    m_scratch.clear();
    m_scratchFields.clear();
    const char *const begin = m_data.data();
    const qsizetype n = m_data.size();
    if (m_pos >= n)
        return false;
    m_rowLine = m_line;

    qsizetype p = m_pos;
    for (;;) {
        if (p < n && begin[p] == '"') {
            // Quoted field: scan to the closing quote; "" is one quote.
            const qsizetype start = p + 1;
            qsizetype q = start;
            bool escaped = false;
            for (;;) {
                const void *hit = q < n ? std::memchr(begin + q, '"', size_t(n - q)) : nullptr;
                if (!hit) { // unterminated: take the rest
                    q = n;
                    break;
                }
                const qsizetype at = static_cast<const char *>(hit) - begin;
                if (at + 1 < n && begin[at + 1] == '"') {
                    escaped = true;
                    q = at + 2;
                    continue;
                }
                q = at;
                break;
            }
            const QByteArrayView raw(begin + start, q - start);
            for (const char c : raw)
                m_line += c == '\n';
            if (escaped) {
                const size_t offset = m_scratch.size();
                for (qsizetype i = 0; i < raw.size(); ++i) {
                    m_scratch.push_back(raw[i]);
                    if (raw[i] == '"')
                        ++i; // skip the second quote of a pair
                }
                m_scratchFields.push_back({m_fields.size(), {offset, m_scratch.size() - offset}});
            }
            m_fields.push_back(raw);
            p = q < n ? q + 1 : n;
            // Anything between the closing quote and the separator is kept out (lenient).
            while (p < n && begin[p] != ',' && begin[p] != '\n' && begin[p] != '\r')
                ++p;
        } else {
            qsizetype q = p;
            while (q < n && begin[q] != ',' && begin[q] != '\n' && begin[q] != '\r')
                ++q;
            m_fields.push_back(QByteArrayView(begin + p, q - p));
            p = q;
        }
        if (p < n && begin[p] == ',') {
            ++p;
            continue;
        }
        // End of record: \n, \r\n, \r or the end of the data.
        if (p < n && begin[p] == '\r')
            ++p;
        if (p < n && begin[p] == '\n')
            ++p;
        ++m_line;
        break;
    }
    m_pos = p;
    for (const auto &[index, span] : m_scratchFields)
        m_fields[index] = QByteArrayView(m_scratch.data() + span.first, qsizetype(span.second));
    return true;
}

} // namespace hotkernel
