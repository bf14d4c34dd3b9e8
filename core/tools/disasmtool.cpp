// SPDX-License-Identifier: Apache-2.0
#include "builtintools.h"

#include "../session/toolregistry.h"

namespace hotkernel {

void registerDisasmTool(ToolRegistry &registry)
{
    ToolSpec spec;
    spec.name = QStringLiteral("disasm");
    spec.title = QStringLiteral("disasm");
    spec.description = QStringLiteral("Not implemented yet.");
    spec.inputSchema = Json{{"type", "object"}, {"properties", Json::object()}};
    spec.outputSchema = Json{{"type", "object"}};
    spec.cliVerb = QStringLiteral("disasm");
    spec.handler = [](Session &, Json, Job &) -> QCoro::Task<ToolResult> {
        co_return ToolResult::error(QStringLiteral("disasm is not implemented yet in this build of hotkernel."));
    };
    registry.add(std::move(spec));
}

} // namespace hotkernel
