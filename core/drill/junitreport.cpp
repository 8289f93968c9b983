#include "drill/junitreport.h"

#include <QDateTime>
#include <QHostInfo>
#include <QXmlStreamWriter>

using namespace Qt::StringLiterals;

namespace {

QString seconds(double value)
{
    return QString::number(std::max(value, 0.0), 'f', 3);
}

} // namespace

QByteArray JUnitReport::xml(const Drill &drill, const QList<WindowVerdict> &windows)
{
    int failures = 0, skipped = 0;
    for (const WindowVerdict &verdict : windows) {
        failures += verdict.state == WindowVerdict::State::Failed;
        skipped += verdict.state == WindowVerdict::State::NotArmed || verdict.state == WindowVerdict::State::NoCalls;
    }
    const QString tests = QString::number(windows.size());
    const QString elapsed = seconds(double(drill.endedAtMs - drill.startedAtMs) / 1000.0);
    const QString name = u"breakwater drill: %1"_s.arg(drill.command);

    QByteArray out;
    QXmlStreamWriter xml(&out);
    xml.setAutoFormatting(true);
    xml.writeStartDocument();
    xml.writeStartElement(u"testsuites"_s);
    xml.writeAttribute(u"name"_s, name);
    xml.writeAttribute(u"tests"_s, tests);
    xml.writeAttribute(u"failures"_s, QString::number(failures));
    xml.writeAttribute(u"errors"_s, u"0"_s);
    xml.writeAttribute(u"time"_s, elapsed);   // no `skipped` here: Jenkins' schema allows it only on <testsuite>

    xml.writeStartElement(u"testsuite"_s);
    xml.writeAttribute(u"name"_s, name);
    xml.writeAttribute(u"tests"_s, tests);
    xml.writeAttribute(u"failures"_s, QString::number(failures));
    xml.writeAttribute(u"errors"_s, u"0"_s);
    xml.writeAttribute(u"skipped"_s, QString::number(skipped));
    xml.writeAttribute(u"time"_s, elapsed);
    // JUnit's own form: local time without an offset.
    xml.writeAttribute(u"timestamp"_s, QDateTime::fromMSecsSinceEpoch(drill.startedAtMs).toString(u"yyyy-MM-ddTHH:mm:ss"_s));
    xml.writeAttribute(u"hostname"_s, QHostInfo::localHostName());

    xml.writeStartElement(u"properties"_s);
    for (const auto &[key, value] : {std::pair{u"command"_s, drill.command},
                                     std::pair{u"exit_status"_s, QString::number(drill.exitStatus)}}) {
        xml.writeStartElement(u"property"_s);
        xml.writeAttribute(u"name"_s, key);
        xml.writeAttribute(u"value"_s, value);
        xml.writeEndElement();
    }
    xml.writeEndElement();

    for (const WindowVerdict &verdict : windows) {
        xml.writeStartElement(u"testcase"_s);
        xml.writeAttribute(u"name"_s, verdict.title);
        xml.writeAttribute(u"classname"_s, u"breakwater.drill"_s);
        xml.writeAttribute(u"time"_s, seconds(verdict.seconds));
        switch (verdict.state) {
        case WindowVerdict::State::Failed:
            xml.writeStartElement(u"failure"_s);
            xml.writeAttribute(u"type"_s, u"unrecovered"_s);
            xml.writeAttribute(u"message"_s, u"%1 of %2 calls ended in errors the app did not recover from"_s
                                                 .arg(verdict.unrecoveredCount()).arg(verdict.calls));
            xml.writeCharacters(verdict.unrecoveredCalls.join(u'\n'));
            xml.writeEndElement();
            break;
        case WindowVerdict::State::NotArmed:
        case WindowVerdict::State::NoCalls:
            xml.writeStartElement(u"skipped"_s);
            xml.writeAttribute(u"message"_s, verdict.outcomeText());
            xml.writeEndElement();
            break;
        case WindowVerdict::State::Passed:
            break;
        }
        xml.writeTextElement(u"system-out"_s, verdict.outcomeText());
        xml.writeEndElement();
    }
    xml.writeTextElement(u"system-out"_s, drill.summary);
    xml.writeEndElement();   // testsuite
    xml.writeEndElement();   // testsuites
    xml.writeEndDocument();
    return out;
}
