// SPDX-License-Identifier: Apache-2.0
#include "hostselector.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>

namespace hotkernel {

namespace {
const QString kRecentHosts = QStringLiteral("recent/hosts");
constexpr int kRecentHostCount = 8;
} // namespace

HostSelector::HostSelector(QWidget *parent)
    : QWidget(parent), m_label(new QLabel(tr("Host:"), this)), m_combo(new QComboBox(this))
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_label);
    layout->addWidget(m_combo);
    m_label->setBuddy(m_combo);
    m_combo->setEditable(true);
    // Entries come from remember(), only for hosts the session took; typing adds nothing.
    m_combo->setInsertPolicy(QComboBox::NoInsert);
    m_combo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_combo->setMinimumContentsLength(18);
    m_combo->lineEdit()->setPlaceholderText(QStringLiteral("ssh://user@host/workdir"));
    m_combo->setObjectName(QStringLiteral("hostSelector"));
    // A pick from the list, or Enter in the line edit (with NoInsert, Qt 6.4's combo box does not
    // report that as activated); the same host again is no request.
    const auto request = [this](const QString &text) {
        const QString host = text.trimmed().isEmpty() ? QStringLiteral("local") : text.trimmed();
        if (host != m_current)
            Q_EMIT hostRequested(host);
    };
    connect(m_combo, &QComboBox::textActivated, this, request);
    connect(m_combo->lineEdit(), &QLineEdit::returnPressed, this,
            [this, request] { request(m_combo->lineEdit()->text()); });
    fill(QStringLiteral("local"));
}

void HostSelector::fill(const QString &current)
{
    m_current = current;
    QStringList hosts{QStringLiteral("local")};
    for (const QString &h : QSettings().value(kRecentHosts).toStringList()) {
        if (!hosts.contains(h))
            hosts.append(h);
    }
    if (!hosts.contains(current))
        hosts.append(current);
    const QSignalBlocker blocker(m_combo);
    m_combo->clear();
    m_combo->addItems(hosts);
    m_combo->setCurrentIndex(int(hosts.indexOf(current)));
}

void HostSelector::showHost(const QString &host, const QString &problem)
{
    fill(host);
    m_combo->setToolTip(
        problem.isEmpty()
            ? tr("Where bench, verify and record run their workers: local, or "
                 "ssh://[user@]host[:port][/workdir][?python=PATH], or a Slurm allocation, "
                 "slurm://[partition][?gres=gpu:1&time=60] (docs/remote.md). Type a host and press "
                 "Enter; refused while a job runs.")
            : problem);
}

void HostSelector::remember(const QString &host)
{
    if (host == QLatin1String("local"))
        return;
    QSettings settings;
    QStringList recent = settings.value(kRecentHosts).toStringList();
    recent.removeAll(host);
    recent.prepend(host);
    settings.setValue(kRecentHosts, recent.mid(0, kRecentHostCount));
}

} // namespace hotkernel
