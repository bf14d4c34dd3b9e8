// SPDX-License-Identifier: Apache-2.0
#include "workspace/workspace.h"

#include "base/boundedfile.h"
#include "base/json.h"
#include "base/usererror.h"
#include "inspect/calibrationstore.h"
#include "inspect/cardtable.h"
#include "inspect/hotinstructions.h"
#include "inspect/kernelreportparser.h"
#include "inspect/ncusourceparser.h"
#include "inspect/sassparser.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>

#include <tuple>

namespace hotkernel {

namespace {

QStringList filesUnder(const QString &dir, const QStringList &patterns)
{
    QStringList files;
    QDirIterator it(dir, patterns, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        files.append(it.next());
    files.sort();
    return files;
}

// When a report was made: the time in the name hotkernel gives reports (<stem>-YYYYMMDD-HHMMSS.*,
// UTC), which survives copying (the demo is extracted anew each start); else the file's time.
QDateTime reportTime(const QString &path)
{
    static const QRegularExpression stamp(QStringLiteral("-(\\d{8}-\\d{6})\\.[^/]*$"));
    if (const QRegularExpressionMatch m = stamp.match(path); m.hasMatch()) {
        QDateTime t = QDateTime::fromString(m.captured(1), QStringLiteral("yyyyMMdd-HHmmss"));
        if (t.isValid()) {
            t.setTimeSpec(Qt::UTC);
            return t;
        }
    }
    return QFileInfo(path).lastModified().toUTC();
}

// The listing a saved `hotkernel --json disasm` result holds (its "function": address, text and
// opcode per instruction), so two builds of a kernel can be compared (Diff SASS) without the
// binary; nullopt for any other JSON.
std::optional<SassFunction> disasmResultFunction(const QString &path)
{
    const BoundedFile::Read file = BoundedFile::read(path, BoundedFile::kJsonLimit);
    if (!file.ok())
        return std::nullopt;
    const std::optional<Json> json = parseJson(file.bytes);
    if (!json || !json->is_object() || !json->contains("function") || !(*json)["function"].is_object() ||
        !json->contains("level"))
        return std::nullopt;
    const Json &function = (*json)["function"];
    if (!function.contains("instructions") || !function["instructions"].is_array())
        return std::nullopt;
    SassFunction f;
    f.name = stringField(function, "name");
    f.demangled = stringField(function, "demangled");
    f.arch = stringField(function, "arch");
    f.level = stringField(*json, "level");
    for (const Json &in : function["instructions"]) {
        SassInstruction i;
        if (in.contains("address") && in["address"].is_number_unsigned())
            i.address = in["address"].get<quint64>();
        i.text = stringField(in, "text");
        i.opcode = stringField(in, "opcode");
        i.label = stringField(in, "label");
        f.instructions.push_back(std::move(i));
    }
    if (json->contains("triton") && (*json)["triton"].is_object()) {
        const Json &triton = (*json)["triton"];
        if (triton.contains("num_warps") && triton["num_warps"].is_number_integer())
            f.metadata[QStringLiteral("num_warps")] = QString::number(triton["num_warps"].get<int>());
    }
    if (f.name.isEmpty() || f.instructions.empty())
        return std::nullopt;
    return f;
}

} // namespace

Workspace Workspace::load(const QString &root, const QStringList &extraReports)
{
    Workspace w;
    w.root = root;
    const QDir dir(root);
    QStringList reports = filesUnder(dir.filePath(QStringLiteral("profiles")),
                                     {QStringLiteral("*.csv"), QStringLiteral("*.jsonl"),
                                      QStringLiteral("*.txt"), QStringLiteral("*.torch-trace.json")});
    // ncu source-page exports (hot instructions) may sit beside the listings they annotate.
    reports += filesUnder(dir.filePath(QStringLiteral("sass")), {QStringLiteral("*.csv")});
    for (const QString &extra : extraReports) {
        const QString path = dir.absoluteFilePath(extra);
        if (!reports.contains(path) && QFileInfo::exists(path))
            reports.append(path);
    }
    std::vector<SourceReport> sourceReports;
    std::vector<QString> sourceFiles; // the export each of sourceReports came from
    std::vector<std::tuple<QDateTime, QString, KernelTable>> tables;
    for (const QString &path : std::as_const(reports)) {
        // ncu's raw page holds everything its details page does, plus FLOPs and bytes per kernel:
        // when both exports of one report are here, the raw page stands for it.
        if (path.endsWith(QLatin1String(".details.csv")) &&
            reports.contains(path.left(path.size() - int(qstrlen(".details.csv"))) +
                             QStringLiteral(".raw.csv")))
            continue;
        const BoundedFile::Read file = BoundedFile::read(path, BoundedFile::kReportLimit);
        if (!file.ok())
            continue;
        const QByteArray &data = file.bytes;
        const auto format = KernelReportParser::detect(data);
        try {
            if (format == KernelReportParser::Format::NcuSource) {
                for (SourceReport &r : NcuSourceParser::parse(data)) {
                    sourceReports.push_back(std::move(r));
                    sourceFiles.push_back(path);
                }
            } else if (format != KernelReportParser::Format::Unknown) {
                tables.emplace_back(reportTime(path), path, KernelReportParser::parse(data, path));
            }
        } catch (const UserError &e) {
            w.problems.append(QStringLiteral("%1: %2").arg(dir.relativeFilePath(path), e.message()));
        }
    }
    // Newest first (ties: by name, which for hotkernel's reports ends in the time too).
    std::stable_sort(tables.begin(), tables.end(), [](const auto &a, const auto &b) {
        return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) > std::get<0>(b)
                                                : std::get<1>(a) > std::get<1>(b);
    });
    for (auto &t : tables)
        w.kernelTables.push_back(std::move(std::get<2>(t)));

    const QStringList listings = filesUnder(root, {QStringLiteral("*.sass"), QStringLiteral("*.ptx")});
    QSet<const SourceReport *> usedReports;
    for (const QString &path : listings) {
        if (path.contains(QLatin1String("/.hotkernel/")))
            continue;
        const BoundedFile::Read file = BoundedFile::read(path, BoundedFile::kReportLimit);
        if (!file.ok())
            continue;
        const QByteArray &data = file.bytes;
        auto functions =
            path.endsWith(QLatin1String(".ptx")) ? SassParser::parsePtx(data) : SassParser::parseSass(data);
        for (SassFunction &f : functions) {
            if (const SourceReport *report = HotInstructions::pick(sourceReports, f)) {
                HotInstructions::attach(f, *report);
                usedReports.insert(report);
            }
            f.metadata[QStringLiteral("file")] = dir.relativeFilePath(path);
            w.functions.push_back(std::move(f));
        }
    }
    // Saved disasm results at the top of the directory (disasm*.json).
    for (const QString &name : dir.entryList({QStringLiteral("disasm*.json")}, QDir::Files, QDir::Name)) {
        if (auto f = disasmResultFunction(dir.filePath(name))) {
            f->metadata[QStringLiteral("file")] = name;
            w.functions.push_back(std::move(*f));
        }
    }
    // A source page with no listing beside it (profile's own export) holds the SASS itself: its
    // kernels are shown from it alone, figures attached, no binary needed.
    for (size_t i = 0; i < sourceReports.size(); ++i) {
        if (usedReports.contains(&sourceReports[i]))
            continue;
        SassFunction f = HotInstructions::fromReport(sourceReports[i]);
        HotInstructions::attach(f, sourceReports[i]);
        f.metadata[QStringLiteral("file")] = dir.relativeFilePath(sourceFiles[i]);
        w.functions.push_back(std::move(f));
    }
    w.records = VerifyRecord::readResults(root, &w.problems);
    for (auto it = w.records.rbegin(); it != w.records.rend() && w.card.isEmpty(); ++it)
        w.card = it->card;
    w.loadCalibration();
    return w;
}

void Workspace::loadCalibration()
{
    measured.reset();
    std::optional<StoredCalibration> stored;
    if (const CardSpec *spec = card.isEmpty() ? nullptr : CardTable::builtin().find(card)) {
        stored = CalibrationStore::loadForCard(spec->id, root);
    } else if (card.isEmpty()) {
        // No record names the card: a calibration here still says which card this is.
        for (const CardSpec &c : CardTable::builtin().cards()) {
            auto candidate = CalibrationStore::loadForCard(c.id, root);
            if (candidate && (!stored || stringField(candidate->data, "measured_at") >
                                             stringField(stored->data, "measured_at")))
                stored = std::move(candidate);
        }
    }
    if (!stored)
        return;
    measured = CalibrationStore::ceilings(*stored);
    if (card.isEmpty())
        card = measured->card;
}

const SassFunction *Workspace::functionFor(const QString &kernelName) const
{
    const QString base = HotInstructions::baseName(kernelName);
    const SassFunction *byBase = nullptr;
    for (const SassFunction &f : functions) {
        if (f.name == kernelName || f.demangled == kernelName)
            return &f;
        if (!byBase && (HotInstructions::baseName(f.demangled.isEmpty() ? f.name : f.demangled) == base))
            byBase = &f;
    }
    return byBase;
}

RooflineData Workspace::roofline(const std::vector<VerifyRecord> &recordsShown, const KernelTable *kernels,
                                 const QString &dtype, const KernelTable *before) const
{
    RooflineData data;
    data.card = card;
    data.dtype = dtype;
    const CardSpec *spec = card.isEmpty() ? nullptr : CardTable::builtin().find(card);
    if (spec) {
        data.card = spec->name;
        if (const auto bw = spec->bandwidthBytesPerSecond())
            data.ceilings.push_back({QStringLiteral("DRAM %1 TB/s (spec)").arg(*bw / 1e12, 0, 'f', 2),
                                     QStringLiteral("bandwidth"), QStringLiteral("spec"), *bw});
        if (const auto peak = spec->peakFlopsPerSecond(dtype))
            data.ceilings.push_back(
                {QStringLiteral("%1 %2 TFLOP/s (spec)").arg(dtype).arg(*peak / 1e12, 0, 'f', 0),
                 QStringLiteral("compute"), QStringLiteral("spec"), *peak});
    }
    if (measured) {
        if (measured->bandwidthBytesPerSecond)
            data.ceilings.push_back({QStringLiteral("copy %1 TB/s (measured)")
                                         .arg(*measured->bandwidthBytesPerSecond / 1e12, 0, 'f', 2),
                                     QStringLiteral("bandwidth"), QStringLiteral("measured"),
                                     *measured->bandwidthBytesPerSecond});
        if (const auto it = measured->peakFlopsPerSecond.find(dtype);
            it != measured->peakFlopsPerSecond.end())
            data.ceilings.push_back(
                {QStringLiteral("%1 GEMM %2 TFLOP/s (measured)").arg(dtype).arg(it->second / 1e12, 0, 'f', 0),
                 QStringLiteral("compute"), QStringLiteral("measured"), it->second});
    } else if (spec) {
        data.notes.append(
            QStringLiteral("No measured ceilings: run `hotkernel calibrate --record` on this card."));
    }
    int kernelPoints = 0;
    if (kernels && before) {
        // The before report's reasons for missing points would repeat the after report's.
        const qsizetype notes = data.notes.size();
        kernelPoints += Roofline::addKernelPoints(data, *before, QStringLiteral("baseline"));
        data.notes.resize(notes);
        kernelPoints += Roofline::addKernelPoints(data, *kernels, QStringLiteral("candidate"));
    } else if (kernels) {
        kernelPoints += Roofline::addKernelPoints(data, *kernels);
    }
    if (kernelPoints > 0 && spec && dtype != QLatin1String("fp32")) {
        // Kernel points count FP-pipe FLOPs (ncu's counters), so their roof is the FP32 one.
        if (const auto fp32 = spec->peakFlopsPerSecond(QStringLiteral("fp32")))
            data.ceilings.push_back({QStringLiteral("fp32 %1 TFLOP/s (spec)").arg(*fp32 / 1e12, 0, 'f', 0),
                                     QStringLiteral("compute"), QStringLiteral("spec"), *fp32});
    }
    // The whole scripts once per side: the latest verify with FLOPs and bytes (every verify of a
    // target shares the contract's intensity, so older ones only stacked points on one spot).
    for (auto it = recordsShown.rbegin(); it != recordsShown.rend(); ++it) {
        const VerifyRecord &r = *it;
        if (!r.flops || !r.bytes || *r.flops <= 0 || *r.bytes <= 0)
            continue; // no FLOPs: a pure data-movement kernel has no point on a FLOP/s roofline
        const QString key = QStringLiteral("verify:%1").arg(r.target);
        if (r.baselineMeanMs > 0)
            data.points.push_back({QStringLiteral("%1 baseline script (latest verify)").arg(r.target),
                                   QStringLiteral("baseline"), *r.flops / *r.bytes,
                                   *r.flops / (r.baselineMeanMs * 1e-3), key});
        if (r.candidateMeanMs > 0)
            data.points.push_back({QStringLiteral("%1 candidate script (latest verify)").arg(r.target),
                                   QStringLiteral("candidate"), *r.flops / *r.bytes,
                                   *r.flops / (r.candidateMeanMs * 1e-3), key});
        break;
    }
    return data;
}

} // namespace hotkernel
