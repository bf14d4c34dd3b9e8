// SPDX-License-Identifier: Apache-2.0
#include "inspect/sassparser.h"

#include <QRegularExpression>

#include <cstdlib>
#include <cxxabi.h>

namespace hotkernel {

namespace {

// "/*01a0*/   @P0 EXIT ;   /* 0x000... */" -> address 0x1a0, text "@P0 EXIT"
bool parseInstructionLine(QByteArrayView line, SassInstruction &out)
{
    line = line.trimmed();
    if (!line.startsWith("/*"))
        return false;
    const qsizetype close = line.indexOf("*/");
    if (close < 0)
        return false;
    bool ok = false;
    const quint64 address = line.sliced(2, close - 2).trimmed().toULongLong(&ok, 16);
    if (!ok)
        return false; // an encoding-only continuation line: /* 0x000fe20000000800 */
    QByteArrayView rest = line.sliced(close + 2).trimmed();
    if (rest.startsWith('.'))
        return false; // data directives in nvdisasm's non-code sections
    const qsizetype comment = rest.indexOf("/*");
    if (comment >= 0)
        rest = rest.first(comment).trimmed();
    if (rest.endsWith(';'))
        rest.chop(1);
    rest = rest.trimmed();
    // Older architectures group dual-issued pairs in braces.
    if (rest.startsWith('{'))
        rest = rest.sliced(1).trimmed();
    if (rest.endsWith('}'))
        rest = rest.first(rest.size() - 1).trimmed();
    if (rest.isEmpty())
        return false;
    out.address = address;
    out.text = QString::fromUtf8(rest);
    out.opcode = SassParser::opcodeOf(out.text);
    return true;
}

SassFunction newFunction(const QString &name, const QString &arch, const QString &level)
{
    SassFunction f;
    f.name = name;
    f.demangled = SassParser::demangle(name);
    f.arch = arch;
    f.level = level;
    return f;
}

} // namespace

QString SassParser::opcodeOf(const QString &instruction)
{
    QStringView s = QStringView(instruction).trimmed();
    if (s.startsWith(QLatin1Char('@'))) { // predicate guard: @P0, @!PT, @%p1
        const qsizetype space = s.indexOf(QLatin1Char(' '));
        s = space < 0 ? QStringView() : s.sliced(space + 1).trimmed();
    }
    const qsizetype end = s.indexOf(QLatin1Char(' '));
    QStringView op = end < 0 ? s : s.first(end);
    if (op.endsWith(QLatin1Char(';')))
        op.chop(1);
    return op.toString();
}

QString SassParser::demangle(const QString &name)
{
    if (!name.startsWith(QLatin1String("_Z")))
        return name;
    int status = 0;
    const QByteArray mangled = name.toUtf8();
    char *text = abi::__cxa_demangle(mangled.constData(), nullptr, nullptr, &status);
    const QString result = status == 0 && text ? QString::fromUtf8(text) : name;
    std::free(text);
    return result;
}

std::vector<SassFunction> SassParser::parseSass(QByteArrayView text)
{
    std::vector<SassFunction> out;
    QString arch;
    bool inFunction = false;
    qsizetype pos = 0;
    while (pos < text.size()) {
        qsizetype end = text.indexOf('\n', pos);
        if (end < 0)
            end = text.size();
        const QByteArrayView line = text.sliced(pos, end - pos).trimmed();
        pos = end + 1;
        if (line.isEmpty())
            continue;
        if (line.startsWith("code for sm_") || line.startsWith("arch = sm_") || line.startsWith(".target")) {
            const qsizetype at = line.indexOf("sm_");
            if (at >= 0)
                arch = QString::fromUtf8(line.sliced(at)).section(QLatin1Char(' '), 0, 0);
            continue;
        }
        if (line.startsWith("Function : ")) { // cuobjdump
            out.push_back(
                newFunction(QString::fromUtf8(line.sliced(11).trimmed()), arch, QStringLiteral("sass")));
            inFunction = true;
            continue;
        }
        if (line.startsWith("//----")) { // nvdisasm section header
            const qsizetype at = line.indexOf(" .text.");
            inFunction = at >= 0;
            if (inFunction) {
                QByteArrayView name = line.sliced(at + 7);
                const qsizetype space = name.indexOf(' ');
                if (space >= 0)
                    name = name.first(space);
                out.push_back(newFunction(QString::fromUtf8(name), arch, QStringLiteral("sass")));
            }
            continue;
        }
        if (line.startsWith("....")) { // cuobjdump's end of function
            inFunction = false;
            continue;
        }
        if (!inFunction || out.empty())
            continue;
        if (line.startsWith(".L") && line.endsWith(':')) {
            SassInstruction label;
            label.label = QString::fromUtf8(line.first(line.size() - 1));
            out.back().instructions.push_back(std::move(label));
            continue;
        }
        SassInstruction instruction;
        if (parseInstructionLine(line, instruction))
            out.back().instructions.push_back(std::move(instruction));
    }
    return out;
}

std::vector<SassFunction> SassParser::parsePtx(QByteArrayView text)
{
    static const QRegularExpression entry(QStringLiteral(
        R"(^\s*(?:\.visible\s+|\.weak\s+|\.extern\s+)?\.(?:entry|func)\s+(?:\([^)]*\)\s*)?([A-Za-z_$%][\w$%.]*))"));
    std::vector<SassFunction> out;
    QString arch;
    int depth = 0;
    qsizetype pos = 0;
    while (pos < text.size()) {
        qsizetype end = text.indexOf('\n', pos);
        if (end < 0)
            end = text.size();
        const QString line = QString::fromUtf8(text.sliced(pos, end - pos));
        pos = end + 1;
        const QStringView trimmed = QStringView(line).trimmed();
        if (depth == 0) {
            if (trimmed.startsWith(QLatin1String(".target")))
                arch = trimmed.sliced(7).trimmed().toString().section(QLatin1Char(','), 0, 0);
            const QRegularExpressionMatch m = entry.match(line);
            if (m.hasMatch()) {
                if (trimmed.endsWith(QLatin1Char(';')))
                    continue; // a declaration, not a definition
                out.push_back(newFunction(m.captured(1), arch, QStringLiteral("ptx")));
            }
        }
        if (out.empty())
            continue;
        const bool inBody = depth > 0;
        depth += int(line.count(QLatin1Char('{'))) - int(line.count(QLatin1Char('}')));
        if (depth < 0)
            depth = 0;
        if (!inBody || trimmed.isEmpty() || trimmed.startsWith(QLatin1String("//")))
            continue;
        SassInstruction instruction;
        if (trimmed.endsWith(QLatin1Char(':'))) {
            instruction.label = trimmed.first(trimmed.size() - 1).toString();
        } else {
            QString body = trimmed.toString();
            if (body.endsWith(QLatin1Char(';')))
                body.chop(1);
            if (body == QLatin1String("}"))
                continue;
            instruction.text = body;
            instruction.opcode = opcodeOf(body);
        }
        out.back().instructions.push_back(std::move(instruction));
    }
    return out;
}

} // namespace hotkernel
