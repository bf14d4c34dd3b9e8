// SPDX-License-Identifier: Apache-2.0
// A disassembled function: SASS (or PTX) lines with per-instruction profile figures where an
// ncu source report supplied them. Plain values.
#pragma once

#include <QString>
#include <QStringList>

#include <map>
#include <optional>
#include <vector>

namespace hotkernel {

struct SassInstruction
{
    std::optional<quint64> address;         // /*0040*/ offset within the function
    QString text;                           // the instruction as printed, without address and encoding
    QString opcode;                         // "LDG.E.128", predicates stripped
    QString label;                          // ".L_x_3" when the line is a label
    std::optional<qint64> stallSamples;     // warp-state samples (ncu source page)
    std::optional<qint64> executed;         // instructions executed (ncu source page)
    std::map<QString, qint64> stallReasons; // per reason, where the report has them
};

struct SassFunction
{
    QString name; // mangled as in the binary
    QString demangled;
    QString level; // "sass" or "ptx"
    QString arch;  // "sm_90"
    std::vector<SassInstruction> instructions;
    // Triton cache metadata and assembler figures, when known.
    std::map<QString, QString> metadata; // num_warps, num_stages, shared, registers, spills, ...
};

} // namespace hotkernel
