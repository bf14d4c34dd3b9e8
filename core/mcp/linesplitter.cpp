// SPDX-License-Identifier: Apache-2.0
#include "mcp/linesplitter.h"

namespace hotkernel {

namespace {
QByteArray withoutCarriageReturn(QByteArray line)
{
    if (line.endsWith('\r'))
        line.chop(1);
    return line;
}
} // namespace

QList<LineSplitter::Line> LineSplitter::feed(const QByteArray &data)
{
    QList<Line> lines;
    qsizetype start = 0;
    while (start < data.size()) {
        const qsizetype newline = data.indexOf('\n', start);
        const qsizetype end = newline < 0 ? data.size() : newline;
        if (!m_discarding)
            m_pending.append(data.constData() + start, end - start);
        if (!m_discarding && m_pending.size() > m_maxLineBytes) {
            m_pending.clear();
            m_pending.squeeze();
            m_discarding = true;
        }
        if (newline < 0)
            break;
        if (m_discarding)
            lines.append(Line{{}, true});
        else
            lines.append(Line{withoutCarriageReturn(std::exchange(m_pending, {})), false});
        m_discarding = false;
        start = newline + 1;
    }
    return lines;
}

QList<LineSplitter::Line> LineSplitter::finish()
{
    QList<Line> lines;
    if (m_discarding)
        lines.append(Line{{}, true});
    else if (!m_pending.isEmpty())
        lines.append(Line{withoutCarriageReturn(std::exchange(m_pending, {})), false});
    m_discarding = false;
    return lines;
}

} // namespace hotkernel
