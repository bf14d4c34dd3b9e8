// SPDX-License-Identifier: Apache-2.0
#include "measure/judgeseedrequest.h"

#include "base/json.h"

namespace hotkernel::JudgeSeedRequest {

bool matches(const QByteArray &line, int run)
{
    const std::optional<Json> j = parseJson(line);
    if (!j || !j->is_object() || stringField(*j, "event") != QLatin1String("judge_seed"))
        return false;
    const auto r = j->find("run");
    return r != j->end() && r->is_number_integer() && r->get<long long>() == run;
}

QByteArray answer(quint64 seed)
{
    return QByteArray("{\"op\": \"judge_seed\", \"judge_seed\": ") + QByteArray::number(seed) + "}\n";
}

} // namespace hotkernel::JudgeSeedRequest
