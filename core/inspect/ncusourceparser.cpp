// SPDX-License-Identifier: Apache-2.0
#include "inspect/ncusourceparser.h"

#include "base/usererror.h"
#include "inspect/csvreader.h"
#include "inspect/ncuvalue.h"

#include <QHash>

namespace hotkernel {

namespace {

struct Header
{
    qsizetype address = -1, source = -1, samples = -1, executed = -1;
    std::vector<std::pair<qsizetype, QString>> stalls; // column, reason without "stall_"
};

Header readHeader(const CsvReader &csv)
{
    Header h;
    for (qsizetype i = 0; i < csv.size(); ++i) {
        const QByteArrayView f = csv.field(i);
        if (f == "Address")
            h.address = i;
        else if (f == "Source")
            h.source = i;
        else if (f == "Warp Stall Sampling (All Samples)")
            h.samples = i;
        else if (f == "Instructions Executed")
            h.executed = i;
        else if (f.startsWith("stall_") && !f.endsWith("(Not Issued)"))
            h.stalls.emplace_back(i, QString::fromUtf8(f.sliced(6)));
    }
    return h;
}

qint64 integer(QByteArrayView text)
{
    return qint64(NcuValue::number(text).value_or(0));
}

} // namespace

QByteArray NcuSourceParser::withoutRepeatedPages(QByteArrayView data)
{
    // ncu 2025.3 printed each launch's page twice in a row for PyTorch's gelu kernel (identical
    // blocks; tests/data/inspect/journey-gelu.ncu-source-sass.csv: -c 2, four blocks), while the
    // templated kernel got one block per launch. Two launches never sample identically, so a
    // block equal to the one before it is the same page again, and summing it would double counts.
    QByteArray out;
    out.reserve(data.size());
    QByteArrayView previous;
    qsizetype start = 0;
    const QByteArrayView marker("\"Kernel Name\"");
    while (start < data.size()) {
        qsizetype next = data.indexOf(QByteArrayView("\n\"Kernel Name\""), start);
        next = next < 0 ? data.size() : next + 1;
        const QByteArrayView block = data.sliced(start, next - start);
        if (!(block.startsWith(marker) && block == previous))
            out.append(block);
        previous = block;
        start = next;
    }
    return out;
}

std::vector<SourceReport> NcuSourceParser::parse(QByteArrayView input)
{
    const QByteArray deduplicated = withoutRepeatedPages(input);
    const QByteArrayView data(deduplicated);
    std::vector<SourceReport> out;
    QHash<QString, size_t> byName;
    // Per merged report: address -> row index, so repeated launches add up.
    std::vector<QHash<quint64, size_t>> rowIndex;
    CsvReader csv(data);
    Header header;
    SourceReport *current = nullptr;
    QString pendingName;
    while (csv.readRow()) {
        if (csv.isBlank())
            continue;
        const QByteArrayView first = csv.field(0);
        if (first == "Kernel Name") {
            pendingName = csv.text(1);
            current = nullptr;
            continue;
        }
        if (first == "Address") {
            header = readHeader(csv);
            if (header.source < 0)
                continue;
            auto it = byName.constFind(pendingName);
            if (it == byName.constEnd()) {
                it = byName.insert(pendingName, out.size());
                SourceReport r;
                r.kernelName = pendingName;
                out.push_back(std::move(r));
                rowIndex.emplace_back();
            }
            current = &out[*it];
            ++current->launches;
            continue;
        }
        if (!current || header.address < 0 || csv.size() <= header.source)
            continue;
        bool ok = false;
        QByteArrayView addressText = csv.field(header.address).trimmed();
        if (addressText.startsWith("0x"))
            addressText = addressText.sliced(2);
        const quint64 address = addressText.toULongLong(&ok, 16);
        if (!ok)
            continue;
        QHash<quint64, size_t> &index = rowIndex[size_t(current - out.data())];
        auto at = index.constFind(address);
        if (at == index.constEnd()) {
            at = index.insert(address, current->rows.size());
            SourceRow row;
            row.address = address;
            row.source = QString::fromUtf8(csv.field(header.source).trimmed());
            current->rows.push_back(std::move(row));
        }
        SourceRow &row = current->rows[*at];
        const qint64 samples = header.samples >= 0 ? integer(csv.field(header.samples)) : 0;
        row.stallSamples += samples;
        current->totalSamples += samples;
        if (header.executed >= 0)
            row.executed += integer(csv.field(header.executed));
        for (const auto &[column, reason] : header.stalls) {
            if (const qint64 n = integer(csv.field(column)))
                row.stallReasons[reason] += n;
        }
    }
    if (out.empty())
        throw UserError(
            QStringLiteral("This is not an ncu source page: no \"Address\" and \"Source\" header. Export one "
                           "from a report made with `ncu --set full --import-source yes -o R ...` by "
                           "`ncu --import R.ncu-rep --csv --page source --print-source sass > source.csv`."));
    return out;
}

} // namespace hotkernel
