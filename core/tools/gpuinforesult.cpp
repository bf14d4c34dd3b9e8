// SPDX-License-Identifier: Apache-2.0
#include "tools/gpuinforesult.h"

namespace hotkernel {

QString GpuInfoResult::name() const
{
    return available && gpu.is_object() ? stringField(gpu, "name") : QString();
}

Json GpuInfoResult::toJson() const
{
    return Json{{"available", available},
                {"reason", available ? Json(nullptr) : Json(toStd(reason))},
                {"gpu", gpu},
                {"card", card},
                {"calibration", calibration},
                {"tools", tools},
                {"tool_search", toolSearch},
                {"host", host}};
}

std::optional<GpuInfoResult> GpuInfoResult::fromJson(const Json &json)
{
    if (!json.is_object() || !json.contains("available") || !json["available"].is_boolean() ||
        !json.contains("gpu"))
        return std::nullopt;
    GpuInfoResult r;
    r.available = json["available"].get<bool>();
    r.reason = stringField(json, "reason");
    r.gpu = json["gpu"];
    r.card = json.value("card", Json());
    r.calibration = json.value("calibration", Json());
    r.tools = json.value("tools", Json());
    r.toolSearch = json.value("tool_search", Json());
    r.host = json.value("host", Json());
    return r;
}

} // namespace hotkernel
