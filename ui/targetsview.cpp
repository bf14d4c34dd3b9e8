// SPDX-License-Identifier: Apache-2.0
#include "targetsview.h"

#include "targetsmodel.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace hotkernel {

TargetsView::TargetsView(TargetsModel *model, QWidget *parent)
    : QWidget(parent), m_model(model), m_table(new QTableView(this)), m_empty(new QLabel(this))
{
    m_table->setModel(model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    m_empty->setWordWrap(true);
    m_empty->setText(tr("No targets here. A target is <name>_baseline.py with <name>_candidate.py; "
                        "New target scaffolds one from a PyTorch function."));
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid())
                    Q_EMIT targetSelected(current.data(TargetsModel::TargetNameRole).toString());
            });
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex &index) {
        const int role = index.column() == TargetsModel::CandidateColumn ? TargetsModel::CandidatePathRole
                                                                         : TargetsModel::BaselinePathRole;
        const QString path = index.data(role).toString();
        if (!path.isEmpty())
            Q_EMIT scriptOpened(path);
    });
    auto updateEmpty = [this] {
        m_empty->setVisible(m_model->rowCount() == 0);
        // Names and the bench line whole; Best, the last column, takes the rest.
        m_table->resizeColumnsToContents();
    };
    connect(model, &QAbstractItemModel::modelReset, this, updateEmpty);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_empty);
    layout->addWidget(m_table, 1);
    updateEmpty();
}

QString TargetsView::currentTarget() const
{
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    return current.isValid() ? current.data(TargetsModel::TargetNameRole).toString() : QString();
}

void TargetsView::selectTarget(const QString &name)
{
    const int row = m_model->rowForTarget(name);
    if (row >= 0)
        m_table->selectionModel()->setCurrentIndex(
            m_model->index(row, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

} // namespace hotkernel
