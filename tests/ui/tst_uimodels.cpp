// SPDX-License-Identifier: Apache-2.0
// Every model of the window under QAbstractItemModelTester, plus what each adds: delta rows,
// numeric sorting, hot lines, the diff alignment, the feed following jobs, target discovery.
#include "agentfeedmodel.h"
#include "base/job.h"
#include "highlighting.h"
#include "inspect/sassparser.h"
#include "kernelfilterproxy.h"
#include "kerneltablemodel.h"
#include "kerneltableview.h"
#include "sassdiff.h"
#include "sassmodel.h"
#include "session/session.h"
#include "targetsmodel.h"
#include "tools/builtintools.h"
#include "verifyhistorymodel.h"

#include <KSyntaxHighlighting/Repository>
#include <QAbstractItemModelTester>
#include <QFile>
#include <QHeaderView>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace hotkernel;

namespace {

KernelStat kernel(const QString &name, double avgNs, int calls, double share)
{
    KernelStat k;
    k.name = name;
    k.calls = calls;
    k.avgNs = avgNs;
    k.totalNs = avgNs * calls;
    k.share = share;
    k.registersPerThread = 32;
    return k;
}

QStringList names(std::initializer_list<const char *> list)
{
    QStringList out;
    for (const char *n : list)
        out.append(QString::fromLatin1(n));
    return out;
}

QStringList namesInOrder(const QAbstractItemModel &model)
{
    QStringList names;
    for (int r = 0; r < model.rowCount(); ++r)
        names.append(model.index(r, 0).data(KernelTableModel::KernelNameRole).toString());
    return names;
}

SassFunction realFunction()
{
    QFile f(QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/ui/rmsnorm.cuobjdump.sass"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    auto functions = SassParser::parseSass(f.readAll());
    return functions.empty() ? SassFunction{} : functions.front();
}

} // namespace

class TestUiModels : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void kernelTable()
    {
        KernelTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        KernelTable before;
        before.kernels = {kernel(QStringLiteral("a"), 1000, 10, 0.6),
                          kernel(QStringLiteral("gone"), 500, 1, 0.4)};
        KernelTable after;
        after.kernels = {kernel(QStringLiteral("a"), 500, 10, 0.7),
                         kernel(QStringLiteral("new"), 200, 2, 0.3)};
        model.setTable(after);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), int(KernelTableModel::ColumnCount));
        QCOMPARE(model.index(0, KernelTableModel::NameColumn).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("a"));
        model.setDelta(before, after);
        QCOMPARE(model.rowCount(), 3); // a, new, gone
        QCOMPARE(model.index(0, 0).data(KernelTableModel::DeltaRole).toDouble(), -0.5);
        QCOMPARE(model.index(0, KernelTableModel::DeltaColumn).data().toString(), QStringLiteral("-50.0 %"));
        QCOMPARE(model.index(1, KernelTableModel::DeltaColumn).data().toString(), QStringLiteral("added"));
        QCOMPARE(model.index(2, 0).data().toString(), QStringLiteral("gone"));
        QCOMPARE(model.index(2, KernelTableModel::DeltaColumn).data().toString(), QStringLiteral("removed"));
    }

    void kernelShortNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("shortName");
        QTest::newRow("plain") << QStringLiteral("_rmsnorm_kernel") << QStringLiteral("_rmsnorm_kernel");
        QTest::newRow("no operation")
            << QStringLiteral("void at::native::(anonymous namespace)::vectorized_kernel<float, 4>(int, T1)")
            << QStringLiteral("vectorized_kernel<…>");
        // As ncu wrote them (profiles/rmsnorm_baseline-20261203-194233.raw.csv).
        QTest::newRow("ncu direct_copy")
            << QStringLiteral("void unrolled_elementwise_kernel<direct_copy_kernel_cuda(TensorIteratorBase "
                              "&)::[lambda() (instance 3)]::operator ()() const::[lambda() (instance "
                              "7)]::operator ()() const::[lambda(float) (instance 1)], std::array<char *, "
                              "2>, 4, TrivialOffsetCalculator<1, unsigned int>, TrivialOffsetCalculator<1, "
                              "unsigned int>, memory::LoadWithCast<1>, memory::StoreWithCast<1>>(int, T1, "
                              "T2, T4, T5, T6, T7)")
            << QStringLiteral("unrolled_elementwise_kernel<direct_copy…>");
        QTest::newRow("ncu pow")
            << QStringLiteral("void vectorized_elementwise_kernel<4, void "
                              "unnamed>::pow_tensor_scalar_kernel_impl<float, float>(TensorIteratorBase &, "
                              "T2)::[lambda(float) (instance 1)], std::array<char *, 2>>(int, T2, T3)")
            << QStringLiteral("vectorized_elementwise_kernel<pow…>");
        QTest::newRow("ncu Mean")
            << QStringLiteral("void reduce_kernel<512, 1, ReduceOp<float, MeanOps<float, float, float, "
                              "float>, unsigned int, float, 4, 4>>(T3)")
            << QStringLiteral("reduce_kernel<Mean…>");
        QTest::newRow("ncu add") << QStringLiteral(
                                        "void vectorized_elementwise_kernel<4, CUDAFunctorOnSelf_add<float>, "
                                        "std::array<char *, 2>>(int, T2, T3)")
                                 << QStringLiteral("vectorized_elementwise_kernel<add…>");
        QTest::newRow("ncu rsqrt")
            << QStringLiteral("void vectorized_elementwise_kernel<4, rsqrt_kernel_cuda(TensorIteratorBase "
                              "&)::[lambda() (instance 2)]::operator ()() const::[lambda() (instance "
                              "2)]::operator ()() const::[lambda(float) (instance 1)], std::array<char *, "
                              "2>>(int, T2, T3)")
            << QStringLiteral("vectorized_elementwise_kernel<rsqrt…>");
        QTest::newRow("ncu Mul")
            << QStringLiteral("void elementwise_kernel<128, 2, void gpu_kernel_impl_nocast<BinaryFunctor<fl"
                              "oat, float, float, binary_internal::MulFunctor<float>>>(TensorIteratorBase "
                              "&, const T1 &)::[lambda(int) (instance 1)]>(int, T3)")
            << QStringLiteral("elementwise_kernel<Mul…>");
        QTest::newRow("ncu bf16_copy")
            << QStringLiteral("void vectorized_elementwise_kernel<8, bfloat16_copy_kernel_cuda(TensorIterat"
                              "orBase &)::[lambda(float) (instance 1)], std::array<char *, 2>>(int, T2, T3)")
            << QStringLiteral("vectorized_elementwise_kernel<bf16_copy…>");
        // As the torch profiler wrote them (profiles/rmsnorm_candidate-20261202-115607.trace.jsonl).
        QTest::newRow("torch normal")
            << QStringLiteral("void at::native::(anonymous namespace)::distribution_elementwise_grid_stride"
                              "_kernel<float, 4, at::native::templates::cuda::normal_and_transform<c10::BFl"
                              "oat16, float, at::CUDAGeneratorImpl*, at::native::templates::cuda::normal_ke"
                              "rnel<at::CUDAGeneratorImpl*>(at::TensorBase const&, double, double, "
                              "at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() "
                              "const::{lambda()#4}::operator()() const::{lambda(float)#1}>(at::TensorIterat"
                              "orBase&, at::CUDAGeneratorImpl*, at::native::templates::cuda::normal_kernel<"
                              "at::CUDAGeneratorImpl*>(at::TensorBase const&, double, double, "
                              "at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() "
                              "const::{lambda()#4}::operator()() const::{lambda(float)#1})::{lambda(curandS"
                              "tatePhilox4_32_10*)#2}, at::native::(anonymous "
                              "namespace)::distribution_nullary_kernel<c10::BFloat16, float, float4, "
                              "at::CUDAGeneratorImpl*, at::native::templates::cuda::normal_and_transform<c1"
                              "0::BFloat16, float, at::CUDAGeneratorImpl*, "
                              "at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl*>(at::Tenso"
                              "rBase const&, double, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operato"
                              "r()() const::{lambda()#4}::operator()() "
                              "const::{lambda(float)#1}>(at::TensorIteratorBase&, at::CUDAGeneratorImpl*, "
                              "at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl*>(at::Tenso"
                              "rBase const&, double, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operato"
                              "r()() const::{lambda()#4}::operator()() "
                              "const::{lambda(float)#1})::{lambda(curandStatePhilox4_32_10*)#2}, "
                              "at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl*>(at::Tenso"
                              "rBase const&, double, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operato"
                              "r()() const::{lambda()#4}::operator()() "
                              "const::{lambda(float)#1}>(at::TensorIteratorBase&, at::CUDAGeneratorImpl*, "
                              "at::native::templates::cuda::normal_and_transform<c10::BFloat16, float, "
                              "at::CUDAGeneratorImpl*, at::native::templates::cuda::normal_kernel<at::CUDAG"
                              "eneratorImpl*>(at::TensorBase const&, double, double, "
                              "at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() "
                              "const::{lambda()#4}::operator()() const::{lambda(float)#1}>(at::TensorIterat"
                              "orBase&, at::CUDAGeneratorImpl*, at::native::templates::cuda::normal_kernel<"
                              "at::CUDAGeneratorImpl*>(at::TensorBase const&, double, double, "
                              "at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() "
                              "const::{lambda()#4}::operator()() const::{lambda(float)#1})::{lambda(curandS"
                              "tatePhilox4_32_10*)#2} const&, at::native::templates::cuda::normal_kernel<at"
                              "::CUDAGeneratorImpl*>(at::TensorBase const&, double, double, "
                              "at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() "
                              "const::{lambda()#4}::operator()() const::{lambda(float)#1})::{lambda(int, "
                              "float)#1}>(long, at::PhiloxCudaState, at::native::templates::cuda::normal_an"
                              "d_transform<c10::BFloat16, float, at::CUDAGeneratorImpl*, "
                              "at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl*>(at::Tenso"
                              "rBase const&, double, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operato"
                              "r()() const::{lambda()#4}::operator()() "
                              "const::{lambda(float)#1}>(at::TensorIteratorBase&, at::CUDAGeneratorImpl*, "
                              "at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl*>(at::Tenso"
                              "rBase const&, double, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operato"
                              "r()() const::{lambda()#4}::operator()() "
                              "const::{lambda(float)#1})::{lambda(curandStatePhilox4_32_10*)#2}, "
                              "at::native::(anonymous namespace)::distribution_nullary_kernel<c10::BFloat16"
                              ", float, float4, at::CUDAGeneratorImpl*, "
                              "at::native::templates::cuda::normal_and_transform<c10::BFloat16, float, "
                              "at::CUDAGeneratorImpl*, at::native::templates::cuda::normal_kernel<at::CUDAG"
                              "eneratorImpl*>(at::TensorBase const&, double, double, "
                              "at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() "
                              "const::{lambda()#4}::operator()() const::{lambda(float)#1}>(at::TensorIterat"
                              "orBase&, at::CUDAGeneratorImpl*, at::native::templates::cuda::normal_kernel<"
                              "at::CUDAGeneratorImpl*>(at::TensorBase const&, double, double, "
                              "at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() "
                              "const::{lambda()#4}::operator()() const::{lambda(float)#1})::{lambda(curandS"
                              "tatePhilox4_32_10*)#2}, at::native::templates::cuda::normal_kernel<at::CUDAG"
                              "eneratorImpl*>(at::TensorBase const&, double, double, "
                              "at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() "
                              "const::{lambda()#4}::operator()() const::{lambda(float)#1}>(at::TensorIterat"
                              "orBase&, at::CUDAGeneratorImpl*, at::native::templates::cuda::normal_and_tra"
                              "nsform<c10::BFloat16, float, at::CUDAGeneratorImpl*, "
                              "at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl*>(at::Tenso"
                              "rBase const&, double, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operato"
                              "r()() const::{lambda()#4}::operator()() "
                              "const::{lambda(float)#1}>(at::TensorIteratorBase&, at::CUDAGeneratorImpl*, "
                              "at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl*>(at::Tenso"
                              "rBase const&, double, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operato"
                              "r()() const::{lambda()#4}::operator()() "
                              "const::{lambda(float)#1})::{lambda(curandStatePhilox4_32_10*)#2} const&, "
                              "at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl*>(at::Tenso"
                              "rBase const&, double, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operato"
                              "r()() const::{lambda()#4}::operator()() "
                              "const::{lambda(float)#1})::{lambda(int, float)#1})")
            << QStringLiteral("distribution_elementwise_grid_stride_kernel<normal…>");
        QTest::newRow("torch or")
            << QStringLiteral("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<bool, "
                              "at::native::func_wrapper_t<bool, at::native::or_kernel_cuda(at::TensorIterat"
                              "or&)::{lambda()#1}::operator()() const::{lambda()#12}::operator()() "
                              "const::{lambda(bool, bool)#1}>, unsigned int, bool, 4, 4> "
                              ">(at::native::ReduceOp<bool, at::native::func_wrapper_t<bool, "
                              "at::native::or_kernel_cuda(at::TensorIterator&)::{lambda()#1}::operator()() "
                              "const::{lambda()#12}::operator()() const::{lambda(bool, bool)#1}>, unsigned "
                              "int, bool, 4, 4>)")
            << QStringLiteral("reduce_kernel<or…>");
        QTest::newRow("torch CompareEq (unary)")
            << QStringLiteral("void at::native::vectorized_elementwise_kernel<4, "
                              "at::native::AUnaryFunctor<float, float, bool, at::native::(anonymous "
                              "namespace)::CompareEqFunctor<float> >, std::array<char*, 2ul> >(int, "
                              "at::native::AUnaryFunctor<float, float, bool, at::native::(anonymous "
                              "namespace)::CompareEqFunctor<float> >, std::array<char*, 2ul>)")
            << QStringLiteral("vectorized_elementwise_kernel<CompareEq…>");
        QTest::newRow("torch Mul (bool)")
            << QStringLiteral("void at::native::vectorized_elementwise_kernel<4, "
                              "at::native::BinaryFunctor<bool, bool, bool, "
                              "at::native::binary_internal::MulFunctor<bool> >, std::array<char*, 3ul> "
                              ">(int, at::native::BinaryFunctor<bool, bool, bool, "
                              "at::native::binary_internal::MulFunctor<bool> >, std::array<char*, 3ul>)")
            << QStringLiteral("vectorized_elementwise_kernel<Mul…>");
        QTest::newRow("torch add") << QStringLiteral(
                                          "void at::native::vectorized_elementwise_kernel<4, "
                                          "at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, "
                                          "at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)")
                                   << QStringLiteral("vectorized_elementwise_kernel<add…>");
        QTest::newRow("torch MaxNan")
            << QStringLiteral("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
                              "at::native::func_wrapper_t<float, at::native::MaxNanFunctor<float> >, "
                              "unsigned int, float, 4, 4> >(at::native::ReduceOp<float, "
                              "at::native::func_wrapper_t<float, at::native::MaxNanFunctor<float> >, "
                              "unsigned int, float, 4, 4>)")
            << QStringLiteral("reduce_kernel<MaxNan…>");
        QTest::newRow("torch Fill") << QStringLiteral(
                                           "void at::native::vectorized_elementwise_kernel<2, "
                                           "at::native::FillFunctor<long>, std::array<char*, 1ul> >(int, "
                                           "at::native::FillFunctor<long>, std::array<char*, 1ul>)")
                                    << QStringLiteral("vectorized_elementwise_kernel<Fill…>");
    }

    void kernelShortNames()
    {
        // The demo's kernels, whose operation was cut in the Kernels pane (issue 22): the function
        // whole, then the operation without ATen's wrapper, kernel and overload words.
        QFETCH(QString, name);
        QFETCH(QString, shortName);
        QCOMPARE(KernelTableModel::shortName(name), shortName);
    }

    void kernelOperationWords()
    {
        QCOMPARE(KernelTableModel::operationWord(QStringLiteral("CUDAFunctorOnSelf_add")),
                 QStringLiteral("add"));
        QCOMPARE(KernelTableModel::operationWord(QStringLiteral("pow_tensor_tensor_kernel")),
                 QStringLiteral("pow"));
        QCOMPARE(KernelTableModel::operationWord(QStringLiteral("bfloat16_copy_kernel_cuda")),
                 QStringLiteral("bf16_copy"));
        QCOMPARE(KernelTableModel::operationWord(QStringLiteral("WelfordOps")), QStringLiteral("Welford"));
        // A word that is all suffix stays itself rather than vanish.
        QCOMPARE(KernelTableModel::operationWord(QStringLiteral("Functor")), QStringLiteral("Functor"));
        QCOMPARE(KernelTableModel::operationWord(QStringLiteral("_tensor")), QStringLiteral("_tensor"));
        // Element types are skipped for the operation after them.
        QCOMPARE(KernelTableModel::distinctiveWord(QStringLiteral("c10::BFloat16, float4, uint8_t, "
                                                                  "at::native::sigmoid_kernel_cuda"),
                                                   QStringLiteral("k")),
                 QStringLiteral("sigmoid"));
    }

    void kernelTableOpensByShareDescending()
    {
        // What weighs most comes first, and the header's arrow sits on Share: in a comparison of
        // one-call profiles Time (the old sort column) is hidden, and its arrow with it.
        KernelTableView view;
        KernelTable before;
        before.kernels = {kernel(QStringLiteral("gone"), 100, 1, 1.0)};
        KernelTable after; // report order is not share order
        after.kernels = {kernel(QStringLiteral("light"), 10, 1, 0.1),
                         kernel(QStringLiteral("heavy"), 60, 1, 0.6),
                         kernel(QStringLiteral("middle"), 30, 1, 0.3)};
        view.setTables({after, before});
        QCOMPARE(view.model()->sortColumn(), int(KernelTableModel::ShareColumn));
        QCOMPARE(view.model()->sortOrder(), Qt::DescendingOrder);
        QHeaderView *header = view.table()->horizontalHeader();
        QVERIFY(header->isSortIndicatorShown());
        QCOMPARE(header->sortIndicatorSection(), int(KernelTableModel::ShareColumn));
        QCOMPARE(header->sortIndicatorOrder(), Qt::DescendingOrder);
        QCOMPARE(namesInOrder(*view.proxy()), names({"heavy", "middle", "light"}));
        view.showReports(0, 1);
        QVERIFY(view.model()->isDelta());
        QVERIFY(view.table()->isColumnHidden(KernelTableModel::TotalColumn));
        QVERIFY(!view.table()->isColumnHidden(KernelTableModel::ShareColumn));
        QCOMPARE(header->sortIndicatorSection(), int(KernelTableModel::ShareColumn));
        const QStringList order = namesInOrder(*view.proxy());
        QCOMPARE(order.first(), QStringLiteral("heavy"));
        QCOMPARE(order.last(), QStringLiteral("gone")); // removed: no share in the after report
        double largest = 0;
        for (int r = 0; r < view.proxy()->rowCount(); ++r)
            largest =
                std::max(largest, view.proxy()->index(r, 0).data(KernelTableModel::ShareRole).toDouble());
        QCOMPARE(view.proxy()->index(0, 0).data(KernelTableModel::ShareRole).toDouble(), largest);
    }

    void kernelProxySortsNumbersAndFilters()
    {
        KernelTableModel model;
        KernelFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        KernelTable t;
        // 9 < 10 as numbers but "9" > "10" as text: the proxy must compare numbers.
        t.kernels = {kernel(QStringLiteral("k_small"), 9, 1, 0.1),
                     kernel(QStringLiteral("k_big"), 10, 1, 0.9), kernel(QStringLiteral("other"), 5, 1, 0.0)};
        model.setTable(t);
        proxy.sort(KernelTableModel::AverageColumn, Qt::DescendingOrder);
        QCOMPARE(proxy.index(0, 0).data(KernelTableModel::KernelNameRole).toString(),
                 QStringLiteral("k_big"));
        proxy.setNameFilter(QStringLiteral("K_"));
        QCOMPARE(proxy.rowCount(), 2);
    }

    void kernelSortOrders()
    {
        KernelTableModel model;
        KernelFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester modelTester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        KernelTable t; // report order: heaviest first
        t.kernels = {
            kernel(QStringLiteral("beta_k"), 100, 10, 0.4), kernel(QStringLiteral("Alpha_k"), 30, 20, 0.3),
            kernel(QStringLiteral("Gamma"), 9, 50, 0.2), kernel(QStringLiteral("delta_k"), 1000, 1, 0.1)};
        t.kernels[1].grid = QStringLiteral("(4096, 1, 1)");
        t.kernels[2].grid = QStringLiteral("(512, 2, 1)");
        t.kernels[3].grid = QStringLiteral("(96, 1, 1)");
        model.setTable(t);
        QCOMPARE(namesInOrder(proxy), names({"beta_k", "Alpha_k", "Gamma", "delta_k"}));

        // Totals 1000, 600, 450, 1000: ties keep the report's order.
        proxy.sort(KernelTableModel::TotalColumn, Qt::DescendingOrder);
        QCOMPARE(namesInOrder(proxy), names({"beta_k", "delta_k", "Alpha_k", "Gamma"}));
        proxy.sort(KernelTableModel::AverageColumn, Qt::AscendingOrder);
        QCOMPARE(namesInOrder(proxy), names({"Gamma", "Alpha_k", "beta_k", "delta_k"}));
        // Names without regard to case: a plain compare would put "Gamma" before "beta_k".
        proxy.sort(KernelTableModel::NameColumn, Qt::AscendingOrder);
        QCOMPARE(namesInOrder(proxy), names({"Alpha_k", "beta_k", "delta_k", "Gamma"}));
        proxy.sort(KernelTableModel::NameColumn, Qt::DescendingOrder);
        QCOMPARE(namesInOrder(proxy), names({"Gamma", "delta_k", "beta_k", "Alpha_k"}));
        // Launch shapes by size ((512, 2, 1) is 1024 > 96 although "(5" < "(9" as text); unknown last.
        proxy.sort(KernelTableModel::GridColumn, Qt::AscendingOrder);
        QCOMPARE(namesInOrder(proxy), names({"delta_k", "Gamma", "Alpha_k", "beta_k"}));
        proxy.sort(KernelTableModel::GridColumn, Qt::DescendingOrder);
        QCOMPARE(namesInOrder(proxy), names({"Alpha_k", "Gamma", "delta_k", "beta_k"}));

        // Filtering keeps the sorted order, and sorting a filtered view sorts what is shown.
        proxy.sort(KernelTableModel::CallsColumn, Qt::DescendingOrder);
        proxy.setNameFilter(QStringLiteral("_K"));
        QCOMPARE(namesInOrder(proxy), names({"Alpha_k", "beta_k", "delta_k"}));
        proxy.sort(KernelTableModel::AverageColumn, Qt::DescendingOrder);
        QCOMPARE(namesInOrder(proxy), names({"delta_k", "beta_k", "Alpha_k"}));
        proxy.sort(KernelTableModel::NameColumn, Qt::AscendingOrder);
        QCOMPARE(namesInOrder(proxy), names({"Alpha_k", "beta_k", "delta_k"}));
        proxy.setNameFilter(QString());
        QCOMPARE(namesInOrder(proxy), names({"Alpha_k", "beta_k", "delta_k", "Gamma"}));
        // A real regular expression goes through Qt's own matching; a fixed string holding an
        // expression's special characters stays literal.
        proxy.setFilterRegularExpression(QStringLiteral("^(alpha|gamma)"));
        QCOMPARE(namesInOrder(proxy), names({"Alpha_k", "Gamma"}));
        proxy.setNameFilter(QStringLiteral("HA_"));
        QCOMPARE(namesInOrder(proxy), names({"Alpha_k"}));
        proxy.setNameFilter(QStringLiteral("a|g"));
        QCOMPARE(proxy.rowCount(), 0);
        proxy.setNameFilter(QString());

        // The order survives a new table, and -1 gives the report's order back.
        KernelTable other = t;
        std::reverse(other.kernels.begin(), other.kernels.end());
        model.setTable(other);
        QCOMPARE(namesInOrder(proxy), names({"Alpha_k", "beta_k", "delta_k", "Gamma"}));
        model.sort(-1);
        QCOMPARE(namesInOrder(proxy), names({"delta_k", "Gamma", "Alpha_k", "beta_k"}));
    }

    void kernelSortKeepsSelectionAndUnknownLast()
    {
        KernelTableView view;
        KernelTable before;
        before.kernels = {kernel(QStringLiteral("a"), 100, 1, 0.5), kernel(QStringLiteral("b"), 100, 1, 0.3),
                          kernel(QStringLiteral("c"), 100, 1, 0.2)};
        KernelTable after;
        // a: -50 %, b: +100 %, new: no delta (NaN) -> last both ways; c went away -> no delta either.
        after.kernels = {kernel(QStringLiteral("a"), 50, 1, 0.2), kernel(QStringLiteral("b"), 200, 1, 0.7),
                         kernel(QStringLiteral("new"), 10, 1, 0.1)};
        view.setTables({after, before});
        view.showReports(0, 1);
        QAbstractItemModelTester tester(view.proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(view.selectKernel(QStringLiteral("b")));
        view.table()->sortByColumn(KernelTableModel::DeltaColumn, Qt::AscendingOrder);
        QCOMPARE(namesInOrder(*view.proxy()).mid(0, 2), names({"a", "b"}));
        view.table()->sortByColumn(KernelTableModel::DeltaColumn, Qt::DescendingOrder);
        QCOMPARE(namesInOrder(*view.proxy()).mid(0, 2), names({"b", "a"}));
        // The selection follows its kernel through every sort (persistent indexes moved).
        QCOMPARE(view.selectedKernel(), QStringLiteral("b"));
        QCOMPARE(view.table()->selectionModel()->selectedRows().size(), 1);
        QCOMPARE(view.table()
                     ->selectionModel()
                     ->selectedRows()
                     .first()
                     .data(KernelTableModel::KernelNameRole)
                     .toString(),
                 QStringLiteral("b"));
        view.table()->sortByColumn(KernelTableModel::NameColumn, Qt::DescendingOrder);
        QCOMPARE(namesInOrder(*view.proxy()), names({"new", "c", "b", "a"}));
        QCOMPARE(view.table()->currentIndex().row(), 2);
        QCOMPARE(view.selectedKernel(), QStringLiteral("b"));
    }

    void sassModel()
    {
        SassFunction f = realFunction();
        QVERIFY(f.instructions.size() > 50);
        // Stall samples on two lines (test values): both are among the hot lines, others are not.
        f.instructions[10].stallSamples = 900;
        f.instructions[20].stallSamples = 100;
        f.instructions[30].stallSamples = 0;
        SassModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setFunction(f);
        QCOMPARE(model.rowCount(), int(f.instructions.size()));
        QVERIFY(model.index(10, 0).data(SassModel::IsHotRole).toBool());
        QVERIFY(model.index(20, 0).data(SassModel::IsHotRole).toBool());
        QVERIFY(!model.index(30, 0).data(SassModel::IsHotRole).toBool());
        QCOMPARE(model.index(10, 0).data(SassModel::HotnessRole).toDouble(), 1.0);
        const int row = model.find(QStringLiteral("SHFL.BFLY"), 0);
        QVERIFY(row > 0);
        QVERIFY(model.lineText(row).contains(QLatin1String("SHFL.BFLY")));
        QTextLayout *layout = model.layout(row, QFont());
        QVERIFY(layout);
        QVERIFY(!layout->formats().isEmpty()); // highlighted
        const quint64 address = model.index(row, 0).data(SassModel::AddressRole).toULongLong();
        QCOMPARE(model.rowForAddress(address), row);
        model.setTheme(Highlighting::repository().defaultTheme(KSyntaxHighlighting::Repository::DarkTheme));
        QVERIFY(model.layout(row, QFont()));
    }

    void sassDiff()
    {
        const SassFunction a = realFunction();
        SassFunction b = a;
        b.instructions.erase(b.instructions.begin() + 5);
        SassInstruction extra;
        extra.text = QStringLiteral("NOP ;");
        b.instructions.insert(b.instructions.begin() + 40, extra);
        const SassDiff diff = SassDiff::align(a, b);
        QCOMPARE(diff.left.size(), diff.right.size());
        QCOMPARE(diff.changedLines, 2);
        SassModel left;
        QAbstractItemModelTester tester(&left, QAbstractItemModelTester::FailureReportingMode::QtTest);
        left.setFunction(a, diff.left);
        int removed = 0;
        for (int r = 0; r < left.rowCount(); ++r)
            removed += left.index(r, 0).data(SassModel::DiffStatusRole).toInt() == SassModel::Removed;
        QCOMPARE(removed, 1);
    }

    void verifyHistory()
    {
        VerifyHistoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        VerifyRecord r;
        r.target = QStringLiteral("t");
        r.verdict = QStringLiteral("faster");
        r.n = 7;
        r.baselineMeanMs = 2;
        r.candidateMeanMs = 1;
        r.speedup = 2;
        r.recorded = true;
        VerifyRecord other = r;
        other.target = QStringLiteral("u");
        model.setRecords({r, other});
        QCOMPARE(model.rowCount(), 2);
        model.setTarget(QStringLiteral("t"));
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, VerifyHistoryModel::SpeedupColumn).data().toString(),
                 QStringLiteral("2.00x"));
        QCOMPARE(model.index(0, VerifyHistoryModel::VerdictColumn).data(Qt::ForegroundRole).value<QColor>(),
                 VerifyHistoryModel::verdictColor(QStringLiteral("faster")));
        model.addRecord(other); // another target: not shown
        QCOMPARE(model.rowCount(), 1);
        model.addRecord(r);
        QCOMPARE(model.rowCount(), 2);
    }

    void agentFeed()
    {
        QTemporaryDir dir;
        Session session(builtinTools(), [&] {
            SessionOptions o;
            o.workDir = dir.path();
            return o;
        }());
        AgentFeedModel model(&session);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        RunSummary old;
        old.tool = QStringLiteral("bench");
        old.client = QStringLiteral("cli");
        old.reloaded = true;
        model.setReloadedRuns({old});
        Job *job = session.start(QStringLiteral("no_such_tool"), Json::object(), QStringLiteral("agent"));
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(1, AgentFeedModel::ClientColumn).data().toString(), QStringLiteral("agent"));
        QVERIFY(model.index(1, 0).data(AgentFeedModel::RunningRole).toBool());
        QTRY_COMPARE(job->state(), Job::State::Failed);
        QTRY_VERIFY(!model.index(1, 0).data(AgentFeedModel::RunningRole).toBool());
        QVERIFY(model.index(1, AgentFeedModel::ResultColumn)
                    .data()
                    .toString()
                    .contains(QLatin1String("no_such_tool")));
        QCOMPARE(model.index(0, AgentFeedModel::JobIdRole).data().toULongLong(), 0u);

        // An agent leaving is a line of its own, after the jobs, and never mistaken for a job.
        model.addEvent(QStringLiteral("claude"), QStringLiteral("disconnected"),
                       QStringLiteral("agent claude disconnected; 1 job ended"));
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.index(2, AgentFeedModel::ClientColumn).data().toString(), QStringLiteral("claude"));
        QCOMPARE(model.index(2, AgentFeedModel::ResultColumn).data().toString(),
                 QStringLiteral("agent claude disconnected; 1 job ended"));
        QCOMPARE(model.index(2, 0).data(AgentFeedModel::StateRole).toString(), QStringLiteral("event"));
        QVERIFY(!model.index(2, 0).data(AgentFeedModel::RunningRole).toBool());
        QVERIFY(!model.jobAt(2));
        QCOMPARE(model.rowForJob(job->id()), 1);
    }

    void targets()
    {
        QTemporaryDir dir;
        for (const char *name :
             {"rmsnorm_baseline.py", "rmsnorm_candidate.py", "solo_baseline.py", "notes.py"}) {
            QFile f(dir.filePath(QString::fromLatin1(name)));
            QVERIFY(f.open(QIODevice::WriteOnly));
        }
        TargetsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        RunSummary bench;
        bench.tool = QStringLiteral("bench");
        bench.kind = ToolSpec::ResultKind::Bench; // what the model reads: no tool names in ui/
        bench.arguments = QStringLiteral("script=rmsnorm_candidate.py");
        bench.summary = QStringLiteral("mean 1.0 ms");
        VerifyRecord r;
        r.target = QStringLiteral("rmsnorm");
        r.recorded = true;
        r.speedup = 1.5;
        r.who = QStringLiteral("agent");
        model.refresh(dir.path(), {bench}, {r});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(0, TargetsModel::NameColumn).data().toString(), QStringLiteral("rmsnorm"));
        // Which script the bench timed is said (the column stands beside Candidate).
        QCOMPARE(model.index(0, TargetsModel::LatestBenchColumn).data().toString(),
                 QStringLiteral("candidate: mean 1.0 ms"));
        QCOMPARE(model.index(0, TargetsModel::RecordsColumn).data().toInt(), 1);
        QCOMPARE(model.index(1, TargetsModel::CandidateColumn).data().toString(), QStringLiteral("missing"));
    }
};

QTEST_MAIN(TestUiModels)
#include "tst_uimodels.moc"
