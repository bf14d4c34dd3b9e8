// SPDX-License-Identifier: Apache-2.0
#include "windowoptions.h"

namespace hotkernel {

QStringList WindowOptions::screenshotThemes() const
{
    return theme.isEmpty() ? QStringList{QStringLiteral("light"), QStringLiteral("dark")}
                           : QStringList{theme};
}

bool WindowOptions::isWindowArgument(const QString &argument)
{
    return argument == QLatin1String("--demo") || argument == QLatin1String("--theme") ||
           argument == QLatin1String("--screenshot") || argument.startsWith(QLatin1String("--theme=")) ||
           argument.startsWith(QLatin1String("--screenshot="));
}

bool WindowOptions::isQtArgument(const QString &argument, bool *withValue)
{
    // QGuiApplication's and QApplication's documented options.
    static const QStringList valued{QStringLiteral("style"),           QStringLiteral("stylesheet"),
                                    QStringLiteral("platform"),        QStringLiteral("platformpluginpath"),
                                    QStringLiteral("platformtheme"),   QStringLiteral("plugin"),
                                    QStringLiteral("qwindowgeometry"), QStringLiteral("qwindowtitle"),
                                    QStringLiteral("qwindowicon"),     QStringLiteral("session"),
                                    QStringLiteral("display"),         QStringLiteral("geometry"),
                                    QStringLiteral("title"),           QStringLiteral("name")};
    static const QStringList plain{QStringLiteral("reverse"), QStringLiteral("widgetcount"),
                                   QStringLiteral("nograb"), QStringLiteral("dograb"),
                                   QStringLiteral("sync")};
    if (!argument.startsWith(QLatin1Char('-')) || argument.startsWith(QLatin1String("--")))
        return false;
    const QString word = argument.mid(1).section(QLatin1Char('='), 0, 0);
    const bool hasEquals = argument.contains(QLatin1Char('='));
    if (withValue)
        *withValue = valued.contains(word) && !hasEquals;
    return valued.contains(word) || (plain.contains(word) && !hasEquals);
}

QString WindowOptions::help()
{
    return QStringLiteral(
        "window options: --demo (the bundled demo session), --theme light|dark,\n"
        "                --screenshot DIR (write PNGs of the window and each pane, then exit; with\n"
        "                QT_QPA_PLATFORM=offscreen no display is needed), and Qt's standard options\n"
        "                (-style NAME, -platform NAME, -reverse, -qwindowgeometry WxH+X+Y, ...)\n"
        "window keys:    Ctrl+N new target, Ctrl+P profile, Ctrl+B bench, Ctrl+E verify, Ctrl+R record,\n"
        "                Ctrl+T torch_trace, Ctrl+D disasm, Ctrl+Shift+D diff SASS, Ctrl+I GPU info,\n"
        "                F5 reload; Alt+1..7 or F6 / Shift+F6 move between panes; F3 / Shift+F3 step\n"
        "                through hot SASS lines\n");
}

QString WindowOptions::displayProblem(const QStringList &environment)
{
    auto value = [&environment](const QString &key) {
        const QString prefix = key + QLatin1Char('=');
        for (const QString &line : environment) {
            if (line.startsWith(prefix))
                return line.mid(prefix.size());
        }
        return QString();
    };
    // Platforms that draw without a display server ("offscreen:fontengine=..." carries options).
    static const QStringList displayless{QStringLiteral("offscreen"),   QStringLiteral("minimal"),
                                         QStringLiteral("minimalegl"),  QStringLiteral("vnc"),
                                         QStringLiteral("eglfs"),       QStringLiteral("linuxfb"),
                                         QStringLiteral("vkkhrdisplay")};
    const QString platform = value(QStringLiteral("QT_QPA_PLATFORM")).section(QLatin1Char(':'), 0, 0);
    if (displayless.contains(platform))
        return {};
    if (!value(QStringLiteral("DISPLAY")).isEmpty() || !value(QStringLiteral("WAYLAND_DISPLAY")).isEmpty())
        return {};
#if defined(Q_OS_MACOS) || defined(Q_OS_WIN)
    return {};
#else
    return QStringLiteral(
        "hotkernel: no display to open the window on (neither DISPLAY nor WAYLAND_DISPLAY is set). "
        "To see the window without one, write it to PNGs with `hotkernel --demo --screenshot DIR` "
        "under QT_QPA_PLATFORM=offscreen, or run it inside a virtual display with "
        "`xvfb-run hotkernel`; to let an agent work without any window, run "
        "`hotkernel mcp --headless`; the CLI verbs (`hotkernel help`) need no display either.");
#endif
}

WindowOptions WindowOptions::parse(const QStringList &arguments)
{
    WindowOptions o;
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const QString &a = arguments[i];
        auto value = [&](const QLatin1String &flag) -> QString {
            if (a.startsWith(QString(flag) + QLatin1Char('=')))
                return a.mid(flag.size() + 1);
            if (i + 1 < arguments.size())
                return arguments[++i];
            o.error = QStringLiteral("%1 needs a value").arg(flag);
            return {};
        };
        bool withValue = false;
        if (isQtArgument(a, &withValue)) {
            // QApplication took it already (it reads argv before these options are parsed).
            if (withValue)
                ++i;
            continue;
        }
        if (a == QLatin1String("--demo")) {
            o.demo = true;
        } else if (a.startsWith(QLatin1String("--theme"))) {
            o.theme = value(QLatin1String("--theme"));
            if (o.error.isEmpty() && o.theme != QLatin1String("light") && o.theme != QLatin1String("dark"))
                o.error = QStringLiteral("--theme takes light or dark, not '%1'").arg(o.theme);
        } else if (a.startsWith(QLatin1String("--screenshot"))) {
            o.screenshotDir = value(QLatin1String("--screenshot"));
        } else {
            o.error =
                QStringLiteral("unknown window option '%1'; the window takes --demo, --theme light|dark, "
                               "--screenshot DIR and Qt's standard options (-style NAME, ...)")
                    .arg(a);
        }
        if (!o.error.isEmpty())
            break;
    }
    return o;
}

} // namespace hotkernel
