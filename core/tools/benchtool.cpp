// SPDX-License-Identifier: Apache-2.0
#include "builtintools.h"

#include "../session/toolregistry.h"

namespace hotkernel {

void registerBenchTool(ToolRegistry &registry)
{
    ToolSpec spec;
    spec.name = QStringLiteral("bench");
    spec.title = QStringLiteral("bench");
    spec.description = QStringLiteral("Not implemented yet.");
    spec.inputSchema = Json{{"type", "object"}, {"properties", Json::object()}};
    spec.outputSchema = Json{{"type", "object"}};
    spec.cliVerb = QStringLiteral("bench");
    spec.handler = [](Session &, Json, Job &) -> QCoro::Task<ToolResult> {
        co_return ToolResult::error(QStringLiteral("bench is not implemented yet in this build of hotkernel."));
    };
    registry.add(std::move(spec));
}

} // namespace hotkernel
