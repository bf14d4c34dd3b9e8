// SPDX-License-Identifier: Apache-2.0
// Turns a CLI verb's arguments into a tool's JSON arguments, driven by the tool's input schema,
// so that every CLI verb takes exactly what the MCP tool takes. Pure; any thread.
//   positional values      -> ToolSpec::cliPositionals, in order
//   --some-name VALUE      -> "some_name" (also --some-name=VALUE); -n VALUE -> "n"
//   --flag / --no-flag     -> booleans
//   --list a,b --list c    -> string arrays (comma-separated and repeatable)
#pragma once

#include "base/json.h"
#include "session/toolspec.h"

#include <QStringList>

namespace hotkernel {

class CliArguments
{
public:
    // Throws UserError with a message that names the bad argument and the verb's usage.
    static Json parse(const ToolSpec &spec, const QStringList &arguments);
    static QString usage(const ToolSpec &spec);
};

} // namespace hotkernel
