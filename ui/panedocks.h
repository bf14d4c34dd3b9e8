// SPDX-License-Identifier: Apache-2.0
// The window's panes as docks: made in the View menu's order, found by name (saveState() keys),
// laid out as the window first opens at its size, and given the keyboard by Alt+1.. and F6.
// GUI thread.
#pragma once

#include <QList>
#include <QString>

class QDockWidget;
class QMainWindow;
class QWidget;

namespace hotkernel {

class SassView;

class PaneDocks
{
public:
    explicit PaneDocks(QMainWindow *window) : m_window(window) {}

    QDockWidget *add(QWidget *widget, const QString &title, const QString &name, Qt::DockWidgetArea area);
    QDockWidget *dock(const QString &name) const;
    const QList<QDockWidget *> &all() const { return m_docks; }

    // Built again from nothing at the window's current size; a short window gives sassView the
    // rows around its hot line (issue 45). Needs the docks named targets, kernels, sass, source,
    // roofline, history and feed.
    void applyDefaultLayout(const SassView *sassView);

    // Raises a pane and gives the keyboard to its table or text.
    static void focus(QDockWidget *dock);
    // The pane step places after (or, negative, before) the one holding the focus.
    void focusNext(int step);

private:
    QMainWindow *m_window;
    QList<QDockWidget *> m_docks;
};

} // namespace hotkernel
