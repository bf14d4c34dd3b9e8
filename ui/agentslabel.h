// SPDX-License-Identifier: Apache-2.0
// The status bar's word on agents: whether `hotkernel mcp` can attach to this window's session and,
// when it can, who is attached now (in order of arrival). GUI thread.
#pragma once

#include <QLabel>
#include <QStringList>

namespace hotkernel {

class AgentsLabel : public QLabel
{
    Q_OBJECT
public:
    // root: the session's working directory, named in the tooltip.
    explicit AgentsLabel(const QString &root, QWidget *parent = nullptr);

    void attached(const QString &name);
    void detached(const QString &name);
    // listening: agents can attach; else detail says why not.
    void setAccess(bool listening, const QString &detail);

private:
    void refresh();

    QString m_root;
    QStringList m_agents;
    bool m_canAttach = false;
    QString m_access;
};

} // namespace hotkernel
