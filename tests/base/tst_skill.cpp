// SPDX-License-Identifier: Apache-2.0
// The skill may only name tools that exist, and every tool must be well described.
#include "session/toolregistry.h"
#include "tools/builtintools.h"

#include <QFile>
#include <QRegularExpression>
#include <QTest>

using namespace hotkernel;

class TestSkill : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void everyToolNamedInTheSkillExists()
    {
        QFile file(QStringLiteral(HOTKERNEL_SOURCE_DIR "/skills/kernel-speedrun/SKILL.md"));
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.fileName()));
        const QString text = QString::fromUtf8(file.readAll());
        const ToolRegistry registry = builtinTools();

        // Tools are written as calls, `name(...)`.
        static const QRegularExpression call(QStringLiteral("`([a-z][a-z0-9_]*)\\("));
        QSet<QString> named;
        for (auto it = call.globalMatch(text); it.hasNext();) {
            const QString name = it.next().captured(1);
            named.insert(name);
            QVERIFY2(registry.find(name),
                     qPrintable(QStringLiteral("SKILL.md names %1(), which is no tool").arg(name)));
        }
        QVERIFY2(named.size() >= 8, "the skill should walk through the loop's tools");
        // CLI verbs it mentions must exist too.
        static const QRegularExpression verb(QStringLiteral("`hotkernel ([a-z-]+)"));
        for (auto it = verb.globalMatch(text); it.hasNext();) {
            const QString v = it.next().captured(1);
            const bool known = registry.findByCliVerb(v) || v == QLatin1String("calibrate") ||
                               v == QLatin1String("leaderboard") || v == QLatin1String("mcp") ||
                               v == QLatin1String("VERB");
            QVERIFY2(known,
                     qPrintable(QStringLiteral("SKILL.md names `hotkernel %1`, which is no verb").arg(v)));
        }
    }

    void everyToolIsWellFormed()
    {
        static const QRegularExpression validName(QStringLiteral("^[A-Za-z0-9._-]{1,128}$"));
        const ToolRegistry registry = builtinTools();
        QCOMPARE(registry.all().size(), size_t(10));
        for (const ToolSpec &spec : registry.all()) {
            QVERIFY2(validName.match(spec.name).hasMatch(), qPrintable(spec.name));
            QVERIFY2(!spec.description.trimmed().isEmpty(),
                     qPrintable(spec.name + QStringLiteral(": empty description")));
            QVERIFY2(!spec.title.trimmed().isEmpty(),
                     qPrintable(spec.name + QStringLiteral(": empty title")));
            QVERIFY2(!spec.cliVerb.isEmpty(), qPrintable(spec.name + QStringLiteral(": no CLI verb")));
            QCOMPARE(spec.inputSchema.value("type", std::string()), std::string("object"));
            QCOMPARE(spec.outputSchema.value("type", std::string()), std::string("object"));
            const Json properties =
                spec.inputSchema.value("properties", Json::object()); // items() must not outlive it
            for (const auto &[property, schema] : properties.items()) {
                QVERIFY2(
                    !schema.value("description", std::string()).empty(),
                    qPrintable(QStringLiteral("%1.%2 has no description").arg(spec.name, toQt(property))));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestSkill)
#include "tst_skill.moc"
