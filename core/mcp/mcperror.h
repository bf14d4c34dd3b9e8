// SPDX-License-Identifier: Apache-2.0
// A protocol fault, thrown by a request handler and answered as a JSON-RPC error. Tool failures
// are not protocol faults: they are isError results (see McpServer). Any thread.
#pragma once

#include "base/json.h"

#include <QString>

#include <stdexcept>

namespace hotkernel {

class McpError : public std::runtime_error
{
public:
    enum Code {
        ParseError = -32700,
        InvalidRequest = -32600,
        MethodNotFound = -32601,
        InvalidParams = -32602,
        InternalError = -32603,
        ResourceNotFound = -32002, // MCP's code for resources/read of an unknown URI
    };

    McpError(int code, const QString &message, Json data = nullptr)
        : std::runtime_error(message.toStdString()), m_code(code), m_message(message), m_data(std::move(data))
    {}

    int code() const { return m_code; }
    const QString &message() const { return m_message; }
    const Json &data() const { return m_data; }

private:
    int m_code;
    QString m_message;
    Json m_data;
};

} // namespace hotkernel
