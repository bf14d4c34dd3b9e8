// SPDX-License-Identifier: Apache-2.0
#include "session/toolregistry.h"

namespace hotkernel {

void ToolRegistry::add(ToolSpec spec)
{
    Q_ASSERT(!find(spec.name));
    m_tools.push_back(std::move(spec));
}

const ToolSpec *ToolRegistry::find(const QString &name) const
{
    for (const ToolSpec &spec : m_tools) {
        if (spec.name == name)
            return &spec;
    }
    return nullptr;
}

const ToolSpec *ToolRegistry::findByCliVerb(const QString &verb) const
{
    for (const ToolSpec &spec : m_tools) {
        if (spec.cliVerb == verb)
            return &spec;
    }
    return nullptr;
}

} // namespace hotkernel
