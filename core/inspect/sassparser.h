// SPDX-License-Identifier: Apache-2.0
// Parses disassembly text into functions: `cuobjdump -sass` (Function : headers, encodings in
// trailing comments), `nvdisasm` (.text.<name> sections, labels) and PTX (`cuobjdump -ptx` or a
// .ptx file). Pure; any thread.
#pragma once

#include "inspect/sassinstruction.h"

#include <QByteArrayView>

namespace hotkernel {

class SassParser
{
public:
    // Every function in a cuobjdump -sass or nvdisasm listing, in listing order.
    static std::vector<SassFunction> parseSass(QByteArrayView text);
    // Every .entry and .func of PTX text; instructions carry no address.
    static std::vector<SassFunction> parsePtx(QByteArrayView text);
    // Splits one instruction line's text ("@!P0 LDG.E R0, desc[UR6][R2.64] ;") into opcode.
    static QString opcodeOf(const QString &instruction);
    // The C++ name for a mangled one; the input itself when it is not mangled.
    static QString demangle(const QString &name);
};

} // namespace hotkernel
