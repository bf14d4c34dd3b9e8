// SPDX-License-Identifier: Apache-2.0
// The output schema as tools/list sends it: only that structuredContent is an object. Every agent
// session pays for tools/list in context (the full output schemas were a quarter of its 23 KB),
// and the tool's text result already says what each number is; docs/verify-result.md and the
// ToolSpec keep the full schema, which the tests check every result against. Pure; any thread.
#pragma once

#include "base/json.h"

namespace hotkernel {

class WireSchema
{
public:
    // {"type": "object"}: a valid schema that every structuredContent the full one accepts passes.
    static Json compactOutput(const Json &schema);
};

} // namespace hotkernel
