// SPDX-License-Identifier: Apache-2.0
// What Record... asks the record tool for: which verify (the selected history row, else the newest
// one nobody recorded that this session can vouch for) and the dialog's arguments. Pure.
#pragma once

#include "base/json.h"
#include "record/verifyrecord.h"

#include <functional>
#include <vector>

namespace hotkernel::RecordRequest {

// shown: the history rows on view; current: the selected row, or -1; recordable: whether this
// session holds that verify's result and vouches for it (record refuses an earlier session's
// verify: issue 19). Null when there is nothing to record.
const VerifyRecord *choose(const std::vector<VerifyRecord> &shown, int current,
                           const std::function<bool(const VerifyRecord &)> &recordable);

// The dialog's fields: target, who and a note saying the outcome.
Json fields(const VerifyRecord &verify, const QString &who);
// The arguments the dialog passes unseen: by id (issue 44), else the result by value.
Json hidden(const VerifyRecord &verify, const Json &result);

} // namespace hotkernel::RecordRequest
