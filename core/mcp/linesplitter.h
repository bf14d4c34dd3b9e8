// SPDX-License-Identifier: Apache-2.0
// Cuts a byte stream into newline-terminated lines, with a cap on line length so a peer cannot
// make us buffer without bound. Pure; shared by the stdio and socket transports; any thread.
#pragma once

#include <QByteArray>
#include <QList>

namespace hotkernel {

class LineSplitter
{
public:
    struct Line
    {
        QByteArray bytes; // without the newline (and without a trailing '\r')
        bool overlong = false;
    };

    explicit LineSplitter(qsizetype maxLineBytes = 64 * 1024 * 1024) : m_maxLineBytes(maxLineBytes) {}

    // Appends data and returns the lines it completed, in order.
    QList<Line> feed(const QByteArray &data);
    // At end of input: the unterminated last line, if any.
    QList<Line> finish();

private:
    qsizetype m_maxLineBytes;
    QByteArray m_pending;
    bool m_discarding = false; // inside a line that already went over the limit
};

} // namespace hotkernel
