// SPDX-License-Identifier: Apache-2.0
#include "builtintools.h"

#include "../session/toolregistry.h"

namespace hotkernel {

void registerTopKernelsTool(ToolRegistry &registry)
{
    ToolSpec spec;
    spec.name = QStringLiteral("top_kernels");
    spec.title = QStringLiteral("top_kernels");
    spec.description = QStringLiteral("Not implemented yet.");
    spec.inputSchema = Json{{"type", "object"}, {"properties", Json::object()}};
    spec.outputSchema = Json{{"type", "object"}};
    spec.cliVerb = QStringLiteral("top-kernels");
    spec.handler = [](Session &, Json, Job &) -> QCoro::Task<ToolResult> {
        co_return ToolResult::error(QStringLiteral("top_kernels is not implemented yet in this build of hotkernel."));
    };
    registry.add(std::move(spec));
}

} // namespace hotkernel
