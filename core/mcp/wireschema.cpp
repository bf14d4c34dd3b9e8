// SPDX-License-Identifier: Apache-2.0
#include "mcp/wireschema.h"

namespace hotkernel {

Json WireSchema::compactOutput(const Json &schema)
{
    return Json{{"type", schema.is_object() ? schema.value("type", Json("object")) : Json("object")}};
}

} // namespace hotkernel
