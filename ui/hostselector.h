// SPDX-License-Identifier: Apache-2.0
// The status bar's host selector (issue 24): where the session's workers run, "local" or an
// ssh:// URL, with the hosts used before. It only asks; the window moves the session
// (Session::setHost) and tells it what came of it. GUI thread.
#pragma once

#include <QWidget>

class QComboBox;
class QLabel;

namespace hotkernel {

class HostSelector : public QWidget
{
    Q_OBJECT
public:
    explicit HostSelector(QWidget *parent = nullptr);

    // What the session runs on now; problem (a host it could not use) shows in the tool tip.
    void showHost(const QString &host, const QString &problem = {});
    // A host the session took: first in the list from now on (QSettings "recent/hosts").
    void remember(const QString &host);
    QComboBox *combo() const { return m_combo; }

Q_SIGNALS:
    void hostRequested(const QString &host);

private:
    void fill(const QString &current);

    QLabel *m_label;
    QComboBox *m_combo;
    QString m_current;
};

} // namespace hotkernel
