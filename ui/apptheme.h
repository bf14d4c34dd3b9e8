// SPDX-License-Identifier: Apache-2.0
// Light and dark palettes for `--theme light|dark`: Qt 6.4 has no colour-scheme API, so the window
// sets a palette and every view follows it (QEvent::PaletteChange). GUI thread.
#pragma once

#include <QPalette>
#include <QString>

namespace hotkernel::AppTheme {

QPalette palette(const QString &name); // "light" or "dark"
// Fusion style plus the named palette; false for an unknown name.
bool apply(const QString &name);

} // namespace hotkernel::AppTheme
