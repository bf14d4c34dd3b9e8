// SPDX-License-Identifier: Apache-2.0
// What a tool call returns to every front-end: structured content (matching the tool's output
// schema), a human-readable mirror, whether it failed or was cancelled, and the typed value the
// structured content derives from (what front-ends read, so that none of them reads a JSON key).
#pragma once

#include "base/json.h"

#include <QString>
#include <QStringList>

#include <any>

namespace hotkernel {

struct ToolResult
{
    Json structured = Json::object();
    QString text;
    bool isError = false;
    bool cancelled = false;
    // Resources the result refers to (URIs such as hotkernel://results/rmsnorm/x.json).
    QStringList resourceLinks;
    // The tool's result type (RooflineResult, VerifyRecord, ...), when it has one: filled by the
    // handler (typed()) or read from the structured content by the tool's ToolSpec::readResult.
    // std::any: base knows no tool's type; each type lives beside its tool, below the front-ends.
    std::any value;

    // The typed value, or null when this result holds none of type T (an error, another tool's).
    template <class T> const T *as() const { return std::any_cast<T>(&value); }

    static ToolResult success(Json structured, QString text)
    {
        ToolResult r;
        r.structured = std::move(structured);
        r.text = std::move(text);
        return r;
    }
    // A result whose structured content is the value's own toJson(): one writer per result type.
    template <class T> static ToolResult typed(T v, QString text)
    {
        ToolResult r = success(v.toJson(), std::move(text));
        r.value = std::move(v);
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
