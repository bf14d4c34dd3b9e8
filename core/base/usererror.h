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
    explicit UserError(const QString &message) : std::runtime_error(message.toStdString()), m_message(message)
    {}
    const QString &message() const { return m_message; }

private:
    QString m_message;
};

} // namespace hotkernel
