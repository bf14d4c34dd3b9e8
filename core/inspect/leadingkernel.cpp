// SPDX-License-Identifier: Apache-2.0
#include "inspect/leadingkernel.h"

namespace hotkernel {

std::optional<LeadingKernel> LeadingKernel::fromJson(const Json &json)
{
    if (!json.is_object() || !json.contains("kernels") || !json["kernels"].is_array() ||
        json["kernels"].empty() || !json["kernels"][0].is_object())
        return std::nullopt;
    const Json &top = json["kernels"][0];
    LeadingKernel k;
    k.name = stringField(top, "name");
    if (top.contains("share") && top["share"].is_number())
        k.share = top["share"].get<double>();
    return k;
}

} // namespace hotkernel
