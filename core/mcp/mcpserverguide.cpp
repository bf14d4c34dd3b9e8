// SPDX-License-Identifier: Apache-2.0
// McpServer's prompts and resources requests, apart from the dispatcher: the skill and the
// session's files, and list_changed when the files change.
#include "mcp/mcperror.h"
#include "mcp/mcpguide.h"
#include "mcp/mcpserver.h"
#include "mcp/resourcewatcher.h"
#include "session/session.h"

namespace hotkernel {

bool McpServer::handleGuideRequest(const Json &id, const QString &method, const Json &params)
{
    if (method == QLatin1String("prompts/list")) {
        objectParams(params);
        sendResult(id, Json{{"prompts", McpGuide::promptList()}});
    } else if (method == QLatin1String("prompts/get")) {
        sendResult(id, McpGuide::getPrompt(objectParams(params)));
    } else if (method == QLatin1String("resources/list")) {
        objectParams(params);
        sendResult(id, Json{{"resources", m_resources.list()}});
    } else if (method == QLatin1String("resources/templates/list")) {
        objectParams(params);
        sendResult(id, Json{{"resourceTemplates", Json::array()}});
    } else if (method == QLatin1String("resources/read")) {
        const Json &p = objectParams(params);
        if (!p.contains("uri") || !p["uri"].is_string())
            throw McpError(McpError::InvalidParams,
                           QStringLiteral("resources/read needs params.uri, a string"));
        sendResult(id, Json{{"contents", m_resources.read(toQt(p["uri"].get<std::string>()))}});
    } else {
        return false;
    }
    return true;
}

void McpServer::watchResources()
{
    if (m_resourceWatcher)
        return; // a second initialize changes nothing here
    m_resourceWatcher = new ResourceWatcher(m_resources, m_session.workDir().root(), this);
    // Jobs of any front-end (the window's, another client's) can write results and profiles.
    connect(&m_session, &Session::jobFinished, m_resourceWatcher, &ResourceWatcher::poke);
    connect(m_resourceWatcher, &ResourceWatcher::listChanged, this,
            [this] { sendNotification("notifications/resources/list_changed", Json::object()); });
    m_resourceWatcher->start();
}

} // namespace hotkernel
