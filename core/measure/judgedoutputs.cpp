// SPDX-License-Identifier: Apache-2.0
#include "measure/judgedoutputs.h"

#include "base/boundedfile.h"
#include "base/json.h"
#include "measure/runline.h"

#include <map>

namespace hotkernel {

namespace {

// Element sizes of the dtypes the contract writes (its _JUDGED_DTYPES).
const std::map<QString, qint64> &elementSizes()
{
    static const std::map<QString, qint64> sizes{
        {QStringLiteral("bfloat16"), 2}, {QStringLiteral("float16"), 2}, {QStringLiteral("float32"), 4},
        {QStringLiteral("float64"), 8},  {QStringLiteral("int8"), 1},    {QStringLiteral("uint8"), 1},
        {QStringLiteral("int16"), 2},    {QStringLiteral("int32"), 4},   {QStringLiteral("int64"), 8},
        {QStringLiteral("bool"), 1}};
    return sizes;
}

bool isInt(const Json &v)
{
    return v.is_number_integer();
}

} // namespace

QString JudgedOutputsParser::fileName(int run)
{
    return QStringLiteral("run-%1.judged").arg(run);
}

std::optional<JudgedHeader> JudgedOutputsParser::parse(const QByteArray &start, qint64 fileSize,
                                                       const JudgedExpectation &expected, QString *error)
{
    const auto fail = [error](const QString &why) -> std::optional<JudgedHeader> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    const qsizetype newline = start.indexOf('\n');
    if (newline < 0)
        return fail(start.isEmpty() ? QStringLiteral("the file is empty")
                                    : QStringLiteral("the file has no complete header line (truncated)"));
    QString parseError;
    const auto parsed = parseJson(start.left(newline), &parseError);
    if (!parsed || !parsed->is_object())
        return fail(QStringLiteral("the header is not a JSON object (%1)").arg(parseError));
    const Json &j = *parsed;
    if (stringField(j, "format") != QLatin1String("hotkernel-judged-outputs"))
        return fail(QStringLiteral("the header's format is not hotkernel-judged-outputs"));
    if (!isInt(j.value("protocol", Json())) || j["protocol"].get<int>() != RunLineParser::kProtocol)
        return fail(QStringLiteral("the header speaks protocol %1, not %2")
                        .arg(toQt(j.value("protocol", Json()).dump()))
                        .arg(RunLineParser::kProtocol));
    JudgedHeader h;
    h.headerBytes = newline + 1;
    if (!isInt(j.value("run", Json())) || (h.run = j["run"].get<int>()) != expected.run)
        return fail(QStringLiteral("the header is for run %1, not run %2")
                        .arg(toQt(j.value("run", Json()).dump()))
                        .arg(expected.run));
    if (!j.value("judge_seed", Json()).is_number_unsigned() ||
        (h.judgeSeed = j["judge_seed"].get<quint64>()) != expected.judgeSeed)
        return fail(QStringLiteral("the header names judge seed %1, not this run's %2")
                        .arg(toQt(j.value("judge_seed", Json()).dump()))
                        .arg(expected.judgeSeed));
    h.inputsSha256 = stringField(j, "judge_inputs_sha256");
    h.targetSha256 = stringField(j, "target_sha256");
    if (!expected.inputsSha256.isEmpty() && h.inputsSha256 != expected.inputsSha256)
        return fail(
            QStringLiteral("the header claims judged inputs %1, but judge seed %2 draws %3: the outputs "
                           "were not computed on the judged inputs")
                .arg(h.inputsSha256.isEmpty() ? QStringLiteral("none") : h.inputsSha256.left(12))
                .arg(expected.judgeSeed)
                .arg(expected.inputsSha256.left(12)));
    // "cuda_ipc": the outputs stay in the candidate's GPU memory and the header names them by IPC
    // handle, for the baseline worker to open; nothing follows the header.
    const QString transport = stringField(j, "transport");
    const bool shared = transport == QLatin1String("cuda_ipc");
    h.transport = shared ? transport : QStringLiteral("file");
    if (!transport.isEmpty() && !shared && transport != QLatin1String("file"))
        return fail(
            QStringLiteral("the header names transport %1, neither file nor cuda_ipc").arg(transport));
    const Json outputs = j.value("outputs", Json());
    if (!outputs.is_array() || outputs.empty())
        return fail(QStringLiteral("the header lists no outputs"));
    qint64 payload = 0;
    for (const Json &o : outputs) {
        if (!o.is_object() || !isInt(o.value("set", Json())) || !isInt(o.value("index", Json())) ||
            !isInt(o.value("bytes", Json())) || !o.value("shape", Json()).is_array())
            return fail(QStringLiteral("an output entry lacks set, index, shape or bytes: %1")
                            .arg(toQt(o.dump()).left(160)));
        JudgedOutput out;
        out.set = o["set"].get<int>();
        out.index = o["index"].get<int>();
        out.dtype = stringField(o, "dtype");
        out.bytes = o["bytes"].get<qint64>();
        const auto size = elementSizes().find(out.dtype);
        if (size == elementSizes().end())
            return fail(QStringLiteral("output %1 of set %2 has dtype %3, which the judge does not read")
                            .arg(out.index)
                            .arg(out.set)
                            .arg(out.dtype.isEmpty() ? QStringLiteral("(none)") : out.dtype));
        qint64 elements = 1;
        for (const Json &d : o["shape"]) {
            if (!isInt(d) || d.get<qint64>() < 0)
                return fail(QStringLiteral("output %1 of set %2 has a bad shape %3")
                                .arg(out.index)
                                .arg(out.set)
                                .arg(toQt(o["shape"].dump())));
            out.shape.push_back(d.get<qint64>());
            elements *= d.get<qint64>();
        }
        if (out.bytes != elements * size->second)
            return fail(QStringLiteral("output %1 of set %2 says %3 bytes, its shape %4 of %5 needs %6")
                            .arg(out.index)
                            .arg(out.set)
                            .arg(out.bytes)
                            .arg(toQt(o["shape"].dump()), out.dtype)
                            .arg(elements * size->second));
        if (shared && out.bytes > 0 && !o.value("ipc", Json()).is_object())
            return fail(QStringLiteral("output %1 of set %2 is shared by CUDA IPC but names no handle")
                            .arg(out.index)
                            .arg(out.set));
        if (!shared)
            payload += out.bytes;
        h.outputs.push_back(std::move(out));
    }
    if (fileSize - h.headerBytes != payload)
        return fail(QStringLiteral("the file holds %1 bytes of outputs, its header lists %2 (%3)")
                        .arg(fileSize - h.headerBytes)
                        .arg(payload)
                        .arg(fileSize - h.headerBytes < payload ? QStringLiteral("truncated")
                                                                : QStringLiteral("bytes appended")));
    return h;
}

std::optional<JudgedHeader> JudgedOutputsParser::read(const QString &path, const JudgedExpectation &expected,
                                                      QString *error)
{
    // The candidate's process wrote it and could have put a FIFO, a device or a link there: read
    // without following or waiting (issue 39).
    const BoundedFile::Read head = BoundedFile::readStart(path, kHeaderMax - 1, BoundedFile::Links::Refuse);
    if (!head.ok()) {
        if (error)
            *error = QStringLiteral("the file ") + head.error;
        return std::nullopt;
    }
    const qsizetype newline = head.bytes.indexOf('\n');
    const QByteArray start = newline < 0 ? head.bytes : head.bytes.left(newline + 1);
    return parse(start, head.size, expected, error);
}

} // namespace hotkernel
