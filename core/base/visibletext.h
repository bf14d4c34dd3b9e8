// SPDX-License-Identifier: Apache-2.0
// Text a person reads next to other people's text (leaderboard notes, names): without the control
// and bidirectional-override characters that can hide or reorder what is shown. Pure; any thread.
#pragma once

#include <QString>

namespace hotkernel::VisibleText {

// True for characters strip() drops: C0/C1 controls, the bidi embeddings, overrides, isolates and
// marks (U+061C, U+200E-200F, U+202A-202E, U+2066-2069), line and paragraph separators, and the
// zero-width characters that join nothing (U+200B, U+2060-2064, U+FEFF, U+180E).
bool isInvisibleControl(QChar c);
// text without those characters; a tab becomes a space.
QString strip(const QString &text);

} // namespace hotkernel::VisibleText
