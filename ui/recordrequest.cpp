// SPDX-License-Identifier: Apache-2.0
#include "recordrequest.h"

#include "verifyhistorymodel.h"

namespace hotkernel::RecordRequest {

const VerifyRecord *choose(const std::vector<VerifyRecord> &shown, int current,
                           const std::function<bool(const VerifyRecord &)> &recordable)
{
    if (current >= 0 && size_t(current) < shown.size() && !shown[size_t(current)].recorded)
        return &shown[size_t(current)];
    for (auto it = shown.rbegin(); it != shown.rend(); ++it) {
        if (!it->recorded && recordable(*it))
            return &*it;
    }
    return nullptr;
}

Json fields(const VerifyRecord &verify, const QString &who)
{
    const QString note = verify.speedup ? VerifyHistoryModel::outcomeText(verify) : verify.verdict;
    return Json{{"target", toStd(verify.target)}, {"who", toStd(who)}, {"note", toStd(note)}};
}

Json hidden(const VerifyRecord &verify, const Json &result)
{
    // The session holds a result with an id; one without goes back by value.
    return !verify.verifyId.isEmpty() ? Json{{"verify_id", toStd(verify.verifyId)}}
                                      : Json{{"verify_result", result}};
}

} // namespace hotkernel::RecordRequest
