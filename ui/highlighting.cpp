// SPDX-License-Identifier: Apache-2.0
#include "highlighting.h"

#include <KSyntaxHighlighting/Repository>
#include <QPalette>

namespace hotkernel::Highlighting {

KSyntaxHighlighting::Repository &repository()
{
    // Loads every definition once (tens of milliseconds); our two come from the
    // :/org.kde.syntax-highlighting/syntax-addons resource the framework scans.
    static KSyntaxHighlighting::Repository repo;
    return repo;
}

KSyntaxHighlighting::Theme themeForPalette(const QPalette &palette)
{
    const bool dark = palette.color(QPalette::Base).lightness() < 128;
    return repository().defaultTheme(dark ? KSyntaxHighlighting::Repository::DarkTheme
                                          : KSyntaxHighlighting::Repository::LightTheme);
}

KSyntaxHighlighting::Definition sassDefinition()
{
    return repository().definitionForName(QStringLiteral("NVIDIA SASS"));
}

KSyntaxHighlighting::Definition ptxDefinition()
{
    return repository().definitionForName(QStringLiteral("NVIDIA PTX"));
}

KSyntaxHighlighting::Definition definitionForFileName(const QString &fileName)
{
    if (fileName.endsWith(QLatin1String(".sass")))
        return sassDefinition();
    if (fileName.endsWith(QLatin1String(".ptx")))
        return ptxDefinition();
    return repository().definitionForFileName(fileName);
}

} // namespace hotkernel::Highlighting
