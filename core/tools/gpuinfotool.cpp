// SPDX-License-Identifier: Apache-2.0
#include "builtintools.h"

#include "../session/toolregistry.h"

namespace hotkernel {

void registerGpuInfoTool(ToolRegistry &registry)
{
    ToolSpec spec;
    spec.name = QStringLiteral("gpu_info");
    spec.title = QStringLiteral("gpu_info");
    spec.description = QStringLiteral("Not implemented yet.");
    spec.inputSchema = Json{{"type", "object"}, {"properties", Json::object()}};
    spec.outputSchema = Json{{"type", "object"}};
    spec.cliVerb = QStringLiteral("gpu-info");
    spec.handler = [](Session &, Json, Job &) -> QCoro::Task<ToolResult> {
        co_return ToolResult::error(QStringLiteral("gpu_info is not implemented yet in this build of hotkernel."));
    };
    registry.add(std::move(spec));
}

} // namespace hotkernel
