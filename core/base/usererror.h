// SPDX-License-Identifier: Apache-2.0
// An error the user caused and can fix: its message says what was wrong and what to do.
// Thrown anywhere below a tool handler; the Session turns it into an isError result.
#pragma once

#include <QString>
#include <stdexcept>

namespace hotkernel {

class UserError : public std::runtime_error
{
public:
    // What code may branch on; the message is for people (issue 40: no error is told apart by its
    // text).
    enum class Kind {
        General,
        // The host the work ran on ended under it (a Slurm allocation's time limit, scancel,
        // preemption), and the message already says why and what to do.
        HostEnded,
    };

    explicit UserError(const QString &message, Kind kind = Kind::General)
        : std::runtime_error(message.toStdString()), m_message(message), m_kind(kind)
    {}
    const QString &message() const { return m_message; }
    Kind kind() const { return m_kind; }

private:
    QString m_message;
    Kind m_kind;
};

} // namespace hotkernel
