// SPDX-License-Identifier: Apache-2.0
#include "inspect/ncuvalue.h"

#include <charconv>

namespace hotkernel::NcuValue {

std::optional<double> number(QByteArrayView text)
{
    text = text.trimmed();
    if (text.isEmpty() || text.size() > 64)
        return std::nullopt;
    char buffer[64];
    qsizetype n = 0;
    for (const char c : text) {
        if (c == ',' || c == ' ' || c == '\'')
            continue; // thousands separators as ncu's locale prints them
        buffer[n++] = c;
    }
    double value = 0;
    const auto [end, error] = std::from_chars(buffer, buffer + n, value);
    if (error != std::errc() || end != buffer + n)
        return std::nullopt;
    return value;
}

std::optional<double> nanosecondsPer(QByteArrayView unit)
{
    unit = unit.trimmed();
    if (unit == "nsecond" || unit == "ns" || unit == "nsec")
        return 1.0;
    if (unit == "usecond" || unit == "us" || unit == "usec")
        return 1e3;
    if (unit == "msecond" || unit == "ms" || unit == "msec")
        return 1e6;
    if (unit == "second" || unit == "s" || unit == "sec")
        return 1e9;
    return std::nullopt;
}

std::optional<double> bytesPer(QByteArrayView unit)
{
    unit = unit.trimmed();
    if (unit == "byte" || unit == "B")
        return 1.0;
    // ncu's Kbyte/Mbyte/Gbyte are decimal; KiB/MiB the binary ones.
    if (unit == "Kbyte" || unit == "KB")
        return 1e3;
    if (unit == "Mbyte" || unit == "MB")
        return 1e6;
    if (unit == "Gbyte" || unit == "GB")
        return 1e9;
    if (unit == "Kibyte" || unit == "KiB")
        return 1024.0;
    if (unit == "Mibyte" || unit == "MiB")
        return 1024.0 * 1024.0;
    if (unit == "Gibyte" || unit == "GiB")
        return 1024.0 * 1024.0 * 1024.0;
    return std::nullopt;
}

} // namespace hotkernel::NcuValue
