// SPDX-License-Identifier: Apache-2.0
#include "agentslabel.h"

#include <QDir>

namespace hotkernel {

AgentsLabel::AgentsLabel(const QString &root, QWidget *parent) : QLabel(parent), m_root(root)
{
    refresh();
}

void AgentsLabel::attached(const QString &name)
{
    m_agents.append(name);
    refresh();
}

void AgentsLabel::detached(const QString &name)
{
    m_agents.removeOne(name);
    refresh();
}

void AgentsLabel::setAccess(bool listening, const QString &detail)
{
    m_canAttach = listening;
    m_access = detail;
    refresh();
}

void AgentsLabel::refresh()
{
    if (!m_canAttach) {
        setText(m_access.isEmpty() ? tr("Agents: not shared") : tr("Agents: not shared (%1)").arg(m_access));
        setToolTip(tr("`hotkernel mcp` cannot attach to this window's session."));
        return;
    }
    setText(m_agents.isEmpty() ? tr("Agents: none attached")
                               : tr("Agents: %1").arg(m_agents.join(QStringLiteral(", "))));
    setToolTip(tr("`hotkernel mcp` started in %1 attaches to this session (socket %2).")
                   .arg(QDir::toNativeSeparators(m_root), m_access));
}

} // namespace hotkernel
