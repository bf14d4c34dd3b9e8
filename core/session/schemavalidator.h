// SPDX-License-Identifier: Apache-2.0
// Checks tool arguments against the subset of JSON Schema 2020-12 our tools use
// (type, properties, required, additionalProperties: false, enum, minimum, maximum,
// minLength, items, minItems, oneOf of types). Pure; any thread.
#pragma once

#include "base/json.h"

#include <QString>

namespace hotkernel {

class SchemaValidator
{
public:
    // Empty string when value conforms; otherwise one message naming the path and the problem.
    static QString validate(const Json &schema, const Json &value,
                            const QString &path = QStringLiteral("arguments"));
    // Fills in "default" values of top-level properties the caller left out.
    static Json withDefaults(const Json &schema, Json value);
};

} // namespace hotkernel
