// SPDX-License-Identifier: Apache-2.0
// `hotkernel mcp --print-config claude|codex|cursor`: a block to paste into an agent's MCP
// configuration, naming this binary by its absolute path and carrying HOTKERNEL_PYTHON when set.
#pragma once

#include <QString>
#include <QStringList>

#include <optional>

namespace hotkernel {

namespace ClientConfig {

QStringList clients();
// The block for client, or nothing for an unknown one. binary: the hotkernel to start;
// python: HOTKERNEL_PYTHON to pass on (empty: none).
std::optional<QString> text(const QString &client, const QString &binary, const QString &python);

} // namespace ClientConfig
} // namespace hotkernel
