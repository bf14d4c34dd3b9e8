// SPDX-License-Identifier: Apache-2.0
// Keeps each tool's structuredContent within what a model's context can afford (issue 44): agent
// hosts such as Claude Code hand the model structuredContent instead of the text when both are
// present. Over its tool's budget, a result keeps the head of its longest lists (heaviest first
// by construction), and McpServer writes the full result to a file the shortened one names.
// Pure; any thread.
#pragma once

#include "base/json.h"

#include <QString>
#include <QStringList>

namespace hotkernel {

class ContextBudget
{
public:
    // Bytes of compact JSON a tool's structuredContent may take, the full_result note included.
    static qsizetype budgetFor(const QString &tool);
    static qsizetype compactSize(const Json &value);

    struct Fitted
    {
        Json structured;
        QStringList shortened; // "kernels: 3 of 10 kept", per list cut
    };
    // Cuts the longest strings, then halves the longest lists, then leaves out the largest
    // top-level objects (never `host`) of structured until its compact JSON takes at most budget
    // bytes, or nothing is left to cut.
    static Fitted fit(const Json &structured, qsizetype budget);
};

} // namespace hotkernel
