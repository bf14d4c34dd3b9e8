// SPDX-License-Identifier: Apache-2.0
#include "record/verifyrecord.h"

#include "record/resultlog.h"

#include <QDir>

#include <algorithm>

namespace hotkernel {

namespace {

std::optional<double> number(const Json &object, const char *key)
{
    if (!object.is_object() || !object.contains(key) || !object[key].is_number())
        return std::nullopt;
    return object[key].get<double>();
}

} // namespace

std::optional<VerifyRecord> VerifyRecord::fromJson(const Json &json)
{
    if (!json.is_object() || !json.contains("verdict") || !json.contains("baseline_stats") ||
        !json.contains("candidate_stats"))
        return std::nullopt;
    VerifyRecord r;
    const Json &b = json["baseline_stats"];
    const Json &c = json["candidate_stats"];
    r.verdict = stringField(json, "verdict");
    r.target = stringField(json, "target");
    r.n = int(number(json, "n").value_or(number(c, "n").value_or(0)));
    r.baselineMeanMs = number(b, "mean_ms").value_or(0);
    r.baselineStdMs = number(b, "std_ms").value_or(0);
    r.candidateMeanMs = number(c, "mean_ms").value_or(0);
    r.candidateStdMs = number(c, "std_ms").value_or(0);
    r.speedup = number(json, "speedup");
    r.who = stringField(json, "who");
    r.note = stringField(json, "note");
    r.recorded = json.contains("recorded_at");
    QString when = stringField(json, "recorded_at");
    if (when.isEmpty())
        when = stringField(json, "finished_at", stringField(json, "started_at"));
    r.time = QDateTime::fromString(when, Qt::ISODate);
    r.verifiedAt = stringField(json, "finished_at");
    if (json.contains("contract") && json["contract"].is_object()) {
        const Json &contract = json["contract"];
        r.card = stringField(contract, "device_name");
        r.flops = number(contract, "flops");
        r.bytes = number(contract, "bytes");
    }
    if (r.card.isEmpty() && json.contains("gpu") && json["gpu"].is_object())
        r.card = stringField(json["gpu"], "name");
    return r;
}

std::vector<VerifyRecord> VerifyRecord::readResults(const QString &root, QStringList *problems)
{
    std::vector<VerifyRecord> records;
    const ResultLog::Scan scan = ResultLog::scan(root);
    if (problems)
        problems->append(scan.warnings);
    for (const ResultLog &log : scan.logs) {
        auto r = fromJson(log.json().value("verify", Json::object()));
        if (!r)
            continue;
        r->path = QDir(root).filePath(log.relativePath());
        r->recorded = true;
        r->target = log.target();
        r->note = log.note();
        r->who = log.who();
        if (!log.card().isEmpty())
            r->card = log.card();
        if (const QDateTime at = QDateTime::fromString(log.recordedAt(), Qt::ISODateWithMs); at.isValid())
            r->time = at;
        records.push_back(std::move(*r));
    }
    std::stable_sort(records.begin(), records.end(),
                     [](const VerifyRecord &a, const VerifyRecord &b) { return a.time < b.time; });
    return records;
}

} // namespace hotkernel
