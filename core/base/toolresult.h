// SPDX-License-Identifier: Apache-2.0
// What a tool call returns to every front-end: structured content (matching the tool's output
// schema), a human-readable mirror, and whether it failed or was cancelled.
#pragma once

#include "base/json.h"

#include <QString>

namespace hotkernel {

struct ToolResult
{
    Json structured = Json::object();
    QString text;
    bool isError = false;
    bool cancelled = false;
    // Resources the result refers to (URIs such as hotkernel://results/rmsnorm/x.json).
    QStringList resourceLinks;

    static ToolResult success(Json structured, QString text)
    {
        ToolResult r;
        r.structured = std::move(structured);
        r.text = std::move(text);
        return r;
    }
    static ToolResult error(const QString &message)
    {
        ToolResult r;
        r.isError = true;
        r.text = message;
        r.structured = Json{{"error", toStd(message)}};
        return r;
    }
    static ToolResult cancelledResult()
    {
        ToolResult r = error(QStringLiteral("cancelled"));
        r.cancelled = true;
        return r;
    }
};

} // namespace hotkernel
