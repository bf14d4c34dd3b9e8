// SPDX-License-Identifier: Apache-2.0
// The one list of tools every front-end reads. Built once by whoever creates the Session (app/ with
// tools/builtintools.h), read-only afterwards.
#pragma once

#include "session/toolspec.h"

#include <vector>

namespace hotkernel {

class ToolRegistry
{
public:
    void add(ToolSpec spec);
    const ToolSpec *find(const QString &name) const;
    const ToolSpec *findByCliVerb(const QString &verb) const;
    const std::vector<ToolSpec> &all() const { return m_tools; }

private:
    std::vector<ToolSpec> m_tools;
};

} // namespace hotkernel
