// SPDX-License-Identifier: Apache-2.0
// Test helper for tst_slurmallocation: takes an allocation for the host given as its argument,
// prints "JOBID KEEPERPID" once it runs, then holds it until it is killed. The test kills it with
// SIGKILL to show that a hotkernel that dies without a word leaves no job behind.
#include "base/usererror.h"
#include "slurm/slurmallocation.h"

#include <QCoreApplication>

#include <cstdio>

using namespace hotkernel;

namespace {
QCoro::Task<> hold(SlurmAllocation *allocation)
{
    try {
        if (co_await allocation->acquire()) {
            std::printf("%s %lld\n", qPrintable(allocation->jobId()), allocation->keeperProcessId());
            std::fflush(stdout);
            co_return;
        }
        std::fprintf(stderr, "slurmholder: cancelled\n");
    } catch (const UserError &e) {
        std::fprintf(stderr, "slurmholder: %s\n", qPrintable(e.message()));
    }
    QCoreApplication::exit(1);
}
} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    if (argc != 2) {
        std::fprintf(stderr, "usage: slurmholder slurm://...\n");
        return 2;
    }
    SlurmAllocation allocation(SlurmHost::parse(QString::fromLocal8Bit(argv[1])));
    hold(&allocation);
    return app.exec();
}
