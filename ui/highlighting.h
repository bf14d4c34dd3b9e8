// SPDX-License-Identifier: Apache-2.0
// The one KSyntaxHighlighting repository of the window (with our NVIDIA SASS and PTX definitions)
// and the theme that matches a palette. GUI thread only.
#pragma once

#include <KSyntaxHighlighting/Definition>
#include <KSyntaxHighlighting/Theme>

class QPalette;

namespace KSyntaxHighlighting {
class Repository;
}

namespace hotkernel {

namespace Highlighting {

KSyntaxHighlighting::Repository &repository();
// Light or dark default theme, chosen by the lightness of the palette's base colour.
KSyntaxHighlighting::Theme themeForPalette(const QPalette &palette);
KSyntaxHighlighting::Definition sassDefinition();
KSyntaxHighlighting::Definition ptxDefinition();
// By file name (".py" gives Python, ".ptx" PTX, ".sass" SASS); invalid when unknown.
KSyntaxHighlighting::Definition definitionForFileName(const QString &fileName);

} // namespace Highlighting

} // namespace hotkernel
