// SPDX-License-Identifier: Apache-2.0
#include "toolarguments.h"

#include "session/toolregistry.h"
#include "session/toolspec.h"

namespace hotkernel::ToolArguments {

Json known(const ToolRegistry &tools, const QString &tool, const Json &wanted)
{
    const ToolSpec *spec = tools.find(tool);
    if (!spec || !spec->inputSchema.contains("properties") || spec->inputSchema["properties"].empty())
        return wanted;
    const Json &properties = spec->inputSchema["properties"];
    Json kept = Json::object();
    for (const auto &[key, value] : wanted.items()) {
        if (properties.contains(key))
            kept[key] = value;
        else if (key == "warmup" && properties.contains("warm_up"))
            kept["warm_up"] = value;
        else if (key == "script" && properties.contains("path"))
            kept["path"] = value;
    }
    return kept;
}

std::string baselineScript(const QString &target)
{
    return toStd(target + QStringLiteral("_baseline.py"));
}

std::string candidateScript(const QString &target)
{
    return toStd(target + QStringLiteral("_candidate.py"));
}

} // namespace hotkernel::ToolArguments
