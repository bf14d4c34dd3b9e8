// SPDX-License-Identifier: Apache-2.0
// What the server teaches the agent: the loop in the initialize instructions, and the
// kernel-speedrun skill (skills/kernel-speedrun/SKILL.md, compiled in) as an MCP prompt and a
// resource. Prompts are user-invoked, so the instructions alone must be enough to run the loop.
// Pure; any thread.
#pragma once

#include "base/json.h"

#include <QString>

namespace hotkernel {

class ToolRegistry;

class McpGuide
{
public:
    static QString skillName() { return QStringLiteral("kernel-speedrun"); }
    // hotkernel://skills/kernel-speedrun/SKILL.md
    static QString skillUri();
    // SKILL.md as shipped with this binary (front matter included).
    static QString skillText();

    // The initialize result's "instructions": the loop in a few lines and where the skill is.
    static QString instructions(const ToolRegistry &tools);

    // prompts/list "prompts" array.
    static Json promptList();
    // prompts/get result for params {name, arguments}; throws McpError (-32602) for an unknown
    // name or arguments that are not strings.
    static Json getPrompt(const Json &params);
};

} // namespace hotkernel
