// SPDX-License-Identifier: Apache-2.0
// Grows the real ncu captures in tests/data/inspect/ by repeating their rows (a 100k-instruction
// source page, a 50 MB details page, a 50 MB raw page) and times the parsers on them.
#include "inspect/csvreader.h"
#include "inspect/hotinstructions.h"
#include "inspect/ncudetailsparser.h"
#include "inspect/ncurawparser.h"
#include "inspect/ncusourceparser.h"
#include "inspect/sassparser.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>

#include <cstdio>
#include <functional>

using namespace hotkernel;

namespace {

QByteArray fixture(const char *name)
{
    QFile file(QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/inspect/") + QString::fromLatin1(name));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("missing %s", qPrintable(file.fileName()));
    return file.readAll();
}

// Header line(s) kept once; data lines repeated with their first quoted field (ID or address)
// rewritten so the grown file holds distinct launches or instructions.
QByteArray grow(const QByteArray &data, int headerLines, qsizetype targetBytes, qsizetype targetRows,
                const std::function<QByteArray(qsizetype)> &firstField)
{
    const QList<QByteArray> lines = data.split('\n');
    QByteArray out;
    for (int i = 0; i < headerLines; ++i)
        out += lines[i] + '\n';
    QList<QByteArray> body;
    for (qsizetype i = headerLines; i < lines.size(); ++i)
        if (lines[i].startsWith('"') && !lines[i].startsWith("\"Kernel Name\"") && !lines[i].startsWith("\"Address\""))
            body.append(lines[i]);
    qsizetype rows = 0;
    for (qsizetype round = 0; out.size() < targetBytes || rows < targetRows; ++round) {
        for (const QByteArray &line : body) {
            const qsizetype close = line.indexOf("\",");
            out += '"' + firstField(round * body.size() + rows % body.size()) + line.mid(close) + '\n';
            ++rows;
            if (targetRows > 0 && rows >= targetRows)
                break;
        }
        if (targetRows > 0 && rows >= targetRows)
            break;
    }
    return out;
}

double seconds(const std::function<void()> &work)
{
    QElapsedTimer clock;
    clock.start();
    work();
    return clock.nsecsElapsed() / 1e9;
}

void row(const char *what, qsizetype bytes, qsizetype units, const char *unitName, double s)
{
    std::printf("| %-44s | %8.1f MB | %9lld %-12s | %7.3f s | %s |\n", what, bytes / 1e6, static_cast<long long>(units),
                unitName, s, s < 1.0 ? "ok" : "SLOW");
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    std::printf("| parse | size | rows | time | < 1 s |\n|---|---|---|---|---|\n");

    // Details page: eager.ncu-details.csv (12 launches of 8 PyTorch kernels) grown to 50 MB, each
    // repetition of a launch's rows under a new ID.
    const QByteArray details = fixture("eager.ncu-details.csv");
    const QByteArray bigDetails = grow(details, 1, 50'000'000, 0, [](qsizetype i) { return QByteArray::number(i / 52); });
    qsizetype csvRows = 0;
    const double csvOnly = seconds([&] {
        CsvReader csv(bigDetails);
        while (csv.readRow())
            ++csvRows;
    });
    row("CsvReader alone (details, 50 MB)", bigDetails.size(), csvRows, "rows", csvOnly);
    KernelTable table;
    const double detailsTime = seconds([&] { table = NcuDetailsParser::parse(bigDetails); });
    int launches = 0;
    for (const KernelStat &k : table.kernels)
        launches += k.calls;
    row("NcuDetailsParser -> KernelTable (50 MB)", bigDetails.size(), launches, "launches", detailsTime);

    // Raw page: one wide row per launch, 2238 columns (templated.ncu-raw.csv), grown to 50 MB.
    const QByteArray raw = fixture("templated.ncu-raw.csv");
    const QByteArray bigRaw = grow(raw, 2, 50'000'000, 0, [](qsizetype i) { return QByteArray::number(i); });
    KernelTable rawTable;
    const double rawTime = seconds([&] { rawTable = NcuRawParser::parse(bigRaw); });
    row("NcuRawParser -> KernelTable (50 MB)", bigRaw.size(), rawTable.kernels.empty() ? 0 : rawTable.kernels[0].calls,
        "launches", rawTime);

    // Source page: the Triton rmsnorm kernel's 320 instructions repeated to 100k instructions
    // at consecutive addresses, then joined onto a SASS listing of the same length.
    const QByteArray source = fixture("triton-rmsnorm.ncu-source-sass.csv");
    const qsizetype instructions = 100'000;
    const QByteArray bigSource = grow(source, 2, 0, instructions, [](qsizetype i) -> QByteArray {
        return "0x" + QByteArray::number(0x7f0000000000LL + i * 16, 16);
    });
    std::vector<SourceReport> reports;
    const double sourceTime = seconds([&] { reports = NcuSourceParser::parse(bigSource); });
    row("NcuSourceParser (100k instructions)", bigSource.size(), qsizetype(reports.at(0).rows.size()), "instructions", sourceTime);

    const QByteArray sass = fixture("triton-rmsnorm.cuobjdump-sass.txt");
    QByteArray bigSass = "\tcode for sm_90a\n\t\tFunction : rmsnorm_kernel\n";
    const QList<QByteArray> sassLines = sass.split('\n');
    QList<QByteArray> code;
    for (const QByteArray &line : sassLines)
        if (line.trimmed().startsWith("/*") && line.contains("*/ ") && !line.trimmed().startsWith("/* 0x"))
            code.append(line.mid(line.indexOf("*/") + 2));
    for (qsizetype i = 0; i < instructions; ++i)
        bigSass += "        /*" + QByteArray::number(i * 16, 16).rightJustified(4, '0') + "*/" + code[i % code.size()] + '\n';
    std::vector<SassFunction> functions;
    const double sassTime = seconds([&] { functions = SassParser::parseSass(bigSass); });
    row("SassParser (cuobjdump -sass, 100k instructions)", bigSass.size(), qsizetype(functions.at(0).instructions.size()),
        "instructions", sassTime);
    AttachSummary summary;
    const double attachTime = seconds([&] { summary = HotInstructions::attach(functions[0], reports[0]); });
    row("HotInstructions::attach (100k instructions)", 0, summary.matched, "matched", attachTime);
    return 0;
}
