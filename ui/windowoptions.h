// SPDX-License-Identifier: Apache-2.0
// The window's command line: `hotkernel [--demo] [--theme light|dark] [--screenshot DIR]` and
// Qt's standard options (-style NAME, -platform NAME, -reverse...), which QApplication takes.
#pragma once

#include <QStringList>

namespace hotkernel {

struct WindowOptions
{
    bool demo = false;
    QString theme;         // "light", "dark" or empty (the platform's palette)
    QString screenshotDir; // write PNGs of the window and each pane there, then exit
    QString error;         // what was wrong with the arguments, and what to write instead

    // The themes --screenshot draws, in order: the one --theme names, else light then dark.
    QStringList screenshotThemes() const;

    static bool isWindowArgument(const QString &argument);
    // One of Qt's own options (-style fusion, -platform offscreen, -reverse, ...), which QApplication
    // takes; withValue: it takes the next word too (unless written -style=fusion).
    static bool isQtArgument(const QString &argument, bool *withValue = nullptr);
    // The window's options as `hotkernel --help` lists them.
    static QString help();
    static WindowOptions parse(const QStringList &arguments);
    // Empty when a window can open; else a paragraph saying why not and what to run instead.
    // Called before QApplication exists: without a display Qt aborts in its constructor (134).
    // environment: KEY=VALUE lines (QProcessEnvironment::systemEnvironment().toStringList()).
    static QString displayProblem(const QStringList &environment);
};

} // namespace hotkernel
