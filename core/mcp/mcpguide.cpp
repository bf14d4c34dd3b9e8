// SPDX-License-Identifier: Apache-2.0
#include "mcp/mcpguide.h"

#include "mcp/mcperror.h"
#include "mcp/mcpresources.h"
#include "session/toolregistry.h"

#include <QFile>

namespace hotkernel {

namespace {
const QString SkillResource = QStringLiteral(":/hotkernel/skills/kernel-speedrun/SKILL.md");
const char *GoalArgument = "goal";
} // namespace

QString McpGuide::skillUri()
{
    return McpResources::uriFor(QStringLiteral("skills/kernel-speedrun/SKILL.md"));
}

QString McpGuide::skillText()
{
    QFile file(SkillResource); // not a named file: a resource compiled into the binary
    // Compiled in by core/mcp/CMakeLists.txt; missing only in a broken build.
    if (!file.open(QIODevice::ReadOnly))
        return QString();
    return QString::fromUtf8(file.readAll());
}

QString McpGuide::instructions(const ToolRegistry &tools)
{
    QStringList names;
    for (const ToolSpec &spec : tools.all())
        names.append(spec.name);
    // Kept to a few lines: every session pays for them. The skill holds the details.
    return QStringLiteral(
               "hotkernel finds the hot GPU kernel and proves a rewrite correct and faster. The loop:\n"
               "1. gpu_info; new_target writes NAME_baseline.py (the contract: never edit it) and "
               "NAME_candidate.py (the only file you edit); bench the baseline: the number to beat.\n"
               "2. torch_trace or profile (top_kernels re-reads a report) finds the dominant kernel; "
               "roofline with its flops and bytes gives the floor; disasm shows its SASS.\n"
               "3. One hypothesis, one change to the candidate, then verify(baseline, candidate) and "
               "record(target, verify_id, note, who) every time, win or lose. Keep a change only "
               "when record says it beats the best; else revert.\n"
               "4. Stop after three changes in a row that do not beat the best, or within 10% of the "
               "measured floor.\n"
               "Never edit LEADERBOARD.md or results/. The full method is the skill %1: prompt '%2' or "
               "resource %3 (also skills/kernel-speedrun/SKILL.md in the hotkernel sources). Tools: %4. "
               "Long tools send notifications/progress for a progressToken and stop on "
               "notifications/cancelled.")
        .arg(skillName(), skillName(), skillUri(), names.join(QStringLiteral(", ")));
}

Json McpGuide::promptList()
{
    return Json::array(
        {Json{{"name", toStd(skillName())},
              {"title", "Kernel speedrun"},
              {"description", "The hotkernel loop: find the hot kernel, rewrite it, verify against the "
                              "baseline, record every result."},
              {"arguments", Json::array({Json{{"name", GoalArgument},
                                              {"description", "What to make faster (a script, an op or a "
                                                              "target name); optional."},
                                              {"required", false}}})}}});
}

Json McpGuide::getPrompt(const Json &params)
{
    const QString name = stringField(params, "name");
    if (name != skillName()) {
        throw McpError(
            McpError::InvalidParams,
            QStringLiteral("Unknown prompt: '%1'. Prompts: %2 (see prompts/list).").arg(name, skillName()),
            Json{{"name", toStd(name)}});
    }
    QString goal;
    if (params.contains("arguments") && !params["arguments"].is_null()) {
        const Json &arguments = params["arguments"];
        if (!arguments.is_object())
            throw McpError(McpError::InvalidParams,
                           QStringLiteral("prompts/get params.arguments must be an object of strings"));
        for (auto it = arguments.begin(); it != arguments.end(); ++it) {
            if (it.key() != GoalArgument)
                throw McpError(McpError::InvalidParams,
                               QStringLiteral("prompt %1 takes only the argument '%2', not '%3'")
                                   .arg(skillName(), QLatin1String(GoalArgument), toQt(it.key())));
            if (!it.value().is_string())
                throw McpError(
                    McpError::InvalidParams,
                    QStringLiteral("prompt argument '%1' must be a string").arg(QLatin1String(GoalArgument)));
            goal = toQt(it.value().get<std::string>()).trimmed();
        }
    }
    QString text = skillText();
    if (!goal.isEmpty())
        text += QStringLiteral("\n\nThe goal for this run: %1\n").arg(goal);
    return Json{{"description", "The kernel-speedrun skill (skills/kernel-speedrun/SKILL.md)."},
                {"messages", Json::array({Json{{"role", "user"},
                                               {"content", {{"type", "text"}, {"text", toStd(text)}}}}})}};
}

} // namespace hotkernel
