// SPDX-License-Identifier: Apache-2.0
#include "clientconfig.h"

#include <nlohmann/json.hpp>

namespace hotkernel::ClientConfig {

namespace {

// verify adapts n to the noise and stops after max_seconds (default 120 s) of measuring, plus the
// workers' start (a torch import, 5 s on a GPU machine) and a wait for the GPU while another job
// times on it; 30 minutes leaves room for a fixed large n or a slow fresh-mode verify.
constexpr int ToolTimeoutSeconds = 1800;

std::string jsonBlock(const QString &binary, const QString &python)
{
    nlohmann::ordered_json server{{"command", binary.toStdString()},
                                  {"args", nlohmann::ordered_json::array({"mcp"})}};
    if (!python.isEmpty())
        server["env"] = {{"HOTKERNEL_PYTHON", python.toStdString()}};
    return nlohmann::ordered_json{{"mcpServers", {{"hotkernel", server}}}}.dump(2);
}

QString tomlString(const QString &s)
{
    nlohmann::json quoted = s.toStdString(); // JSON string escapes are valid TOML basic strings
    return QString::fromStdString(quoted.dump());
}

} // namespace

QStringList clients()
{
    return {QStringLiteral("claude"), QStringLiteral("codex"), QStringLiteral("cursor")};
}

std::optional<QString> text(const QString &client, const QString &binary, const QString &python)
{
    if (client == QLatin1String("claude")) {
        return QStringLiteral(
                   "# .mcp.json in the project (or: claude mcp add-json hotkernel '<the inner object>')\n"
                   "# Long verifies: start Claude Code with MCP_TOOL_TIMEOUT=%1 (milliseconds).\n")
                   .arg(ToolTimeoutSeconds * 1000) +
               QString::fromStdString(jsonBlock(binary, python)) + QLatin1Char('\n');
    }
    if (client == QLatin1String("codex")) {
        QString t = QStringLiteral("# ~/.codex/config.toml (or .codex/config.toml in a trusted project)\n"
                                   "[mcp_servers.hotkernel]\n"
                                   "command = %1\n"
                                   "args = [\"mcp\"]\n"
                                   "# verify can run for minutes\n"
                                   "tool_timeout_sec = %2\n"
                                   "startup_timeout_sec = 30\n")
                        .arg(tomlString(binary))
                        .arg(ToolTimeoutSeconds);
        if (!python.isEmpty())
            t += QStringLiteral("env = { HOTKERNEL_PYTHON = %1 }\n").arg(tomlString(python));
        return t;
    }
    if (client == QLatin1String("cursor")) {
        return QStringLiteral("// .cursor/mcp.json in the project, or ~/.cursor/mcp.json\n") +
               QString::fromStdString(jsonBlock(binary, python)) + QLatin1Char('\n');
    }
    return std::nullopt;
}

} // namespace hotkernel::ClientConfig
