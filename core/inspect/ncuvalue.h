// SPDX-License-Identifier: Apache-2.0
// Numbers and units as ncu and nsys print them: thousands separators ("1,234.56"), "n/a",
// time units (nsecond, usecond, msecond, second), byte units (byte, Kbyte, Mbyte, KiB ...).
// Pure; any thread.
#pragma once

#include <QByteArrayView>

#include <optional>

namespace hotkernel {

namespace NcuValue {

// A number as printed, separators dropped; nullopt for "n/a", "", or text that is not a number.
std::optional<double> number(QByteArrayView text);
// Factor that turns a value in unit into nanoseconds; nullopt when unit is not a time.
std::optional<double> nanosecondsPer(QByteArrayView unit);
// Factor that turns a value in unit into bytes; nullopt when unit is not a size.
std::optional<double> bytesPer(QByteArrayView unit);

} // namespace NcuValue

} // namespace hotkernel
