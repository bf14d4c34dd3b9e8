// SPDX-License-Identifier: Apache-2.0
// Long-lived Python workers kept between verifies (filled in by the warm-worker work).
#pragma once

#include <QObject>

namespace hotkernel {

class WorkerPool : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;
};

} // namespace hotkernel
