// The fault rule's text form, parsed in one place: every kind and option, the canonical text each
// becomes (and parses back to), the JSON form of the control API, and a clear error naming what
// is wrong for each bad text.

#include "faults/faultrule.h"

#include <QJsonObject>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

class TestFaultRule final : public QObject
{
    Q_OBJECT
private slots:
    void goodText_parsesToItsCanonicalForm_data();
    void goodText_parsesToItsCanonicalForm();
    void fields_areSetFromTheText();
    void badText_isRefusedNamingWhatIsWrong_data();
    void badText_isRefusedNamingWhatIsWrong();
    void json_takesTheTextOrTheFields();
};

void TestFaultRule::goodText_parsesToItsCanonicalForm_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("canonical");
    QTest::addColumn<QByteArray>("kind");
    QTest::newRow("503") << u"503"_s << u"503"_s << "503"_ba;
    QTest::newRow("500") << u"500"_s << u"500"_s << "500"_ba;
    QTest::newRow("502") << u"502"_s << u"502"_s << "502"_ba;
    QTest::newRow("529 at 30 %") << u"529:p=30"_s << u"529:p=30"_s << "529"_ba;
    QTest::newRow("429 default retry-after") << u"429"_s << u"429"_s << "429"_ba;
    QTest::newRow("429 retry-after, count") << u"429:retry-after=2:count=5"_s << u"429:retry-after=2s:count=5"_s << "429"_ba;
    QTest::newRow("503 retry-after in ms") << u"503:retry-after=1500ms"_s << u"503:retry-after=1500ms"_s << "503"_ba;
    QTest::newRow("hang for 30 s") << u"hang:for=30s"_s << u"hang:for=30s"_s << "hang"_ba;
    QTest::newRow("for in plain seconds") << u"hang:for=1.5"_s << u"hang:for=1500ms"_s << "hang"_ba;
    QTest::newRow("for in minutes") << u"reset:for=2m"_s << u"reset:for=120s"_s << "reset"_ba;
    QTest::newRow("delay") << u"delay=2s"_s << u"delay=2s"_s << "delay"_ba;
    QTest::newRow("delay in seconds") << u"delay=0.25"_s << u"delay=250ms"_s << "delay"_ba;
    QTest::newRow("slow-stream") << u"slow-stream=500ms"_s << u"slow-stream=500ms"_s << "slow-stream"_ba;
    QTest::newRow("cut") << u"cut=3"_s << u"cut=3"_s << "cut"_ba;
    QTest::newRow("cut at once") << u"cut=0"_s << u"cut=0"_s << "cut"_ba;
    QTest::newRow("error-event") << u"error-event=2"_s << u"error-event=2"_s << "error-event"_ba;
    QTest::newRow("reset") << u"reset"_s << u"reset"_s << "reset"_ba;
    QTest::newRow("garbage") << u"garbage"_s << u"garbage"_s << "garbage"_ba;
    QTest::newRow("scope in canonical order") << u"503:model=gpt-4o:route=/v1/chat/completions:upstream=openai"_s
                                              << u"503:upstream=openai:route=/v1/chat/completions:model=gpt-4o"_s << "503"_ba;
    QTest::newRow("a model with colons") << u"cut=1:model=ft:gpt-4o-mini:acme:p=50"_s
                                         << u"cut=1:model=ft:gpt-4o-mini:acme:p=50"_s << "cut"_ba;
    QTest::newRow("spaces around") << u"  garbage:count=1 "_s << u"garbage:count=1"_s << "garbage"_ba;
    QTest::newRow("p=0") << u"503:p=0"_s << u"503:p=0"_s << "503"_ba;
    QTest::newRow("p=100 is the default") << u"503:p=100"_s << u"503"_s << "503"_ba;
}

void TestFaultRule::goodText_parsesToItsCanonicalForm()
{
    QFETCH(QString, text);
    QFETCH(QString, canonical);
    QFETCH(QByteArray, kind);
    const Expected<FaultRule> rule = FaultRule::parse(text);
    QVERIFY2(rule.ok(), qPrintable(rule.error()));
    QCOMPARE(rule->text(), canonical);
    QCOMPARE(rule->kindName(), kind);
    const Expected<FaultRule> again = FaultRule::parse(rule->text());
    QVERIFY2(again.ok(), qPrintable(again.error()));
    QCOMPARE(again->text(), canonical);
}

void TestFaultRule::fields_areSetFromTheText()
{
    const FaultRule limited = FaultRule::parse(u"429:retry-after=2:count=5:upstream=anthropic:for=10"_s).value();
    QCOMPARE(limited.kind, FaultRule::Kind::Status);
    QCOMPARE(limited.status, 429);
    QCOMPARE(limited.retryAfter, 2000ms);
    QCOMPARE(limited.count, 5);
    QCOMPARE(limited.upstream, "anthropic"_ba);
    QCOMPARE(limited.lifetime, 10s);
    QCOMPARE(limited.percent, 100.0);
    QCOMPARE(FaultRule::parse(u"429"_s)->retryAfter, 1000ms);   // a 429 always says when
    QCOMPARE(FaultRule::parse(u"503"_s)->retryAfter, -1ms);     // a 503 only when asked
    const FaultRule cut = FaultRule::parse(u"cut=3:route=/v1/messages:model=claude-3-5-haiku-latest:p=12.5"_s).value();
    QCOMPARE(cut.kind, FaultRule::Kind::Cut);
    QCOMPARE(cut.events, 3);
    QCOMPARE(cut.route, "/v1/messages"_ba);
    QCOMPARE(cut.model, u"claude-3-5-haiku-latest"_s);
    QCOMPARE(cut.percent, 12.5);
    QVERIFY(cut.needsStream() && cut.shapesRealCall());
    QVERIFY(!FaultRule::parse(u"hang"_s)->shapesRealCall());
    QVERIFY(FaultRule::parse(u"delay=1s"_s)->shapesRealCall() && !FaultRule::parse(u"delay=1s"_s)->needsStream());
    QCOMPARE(FaultRule::parse(u"slow-stream=500ms"_s)->duration, 500ms);
}

void TestFaultRule::badText_isRefusedNamingWhatIsWrong_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("mention");
    QTest::newRow("empty") << u""_s << u"empty fault rule"_s;
    QTest::newRow("unknown kind") << u"teapot"_s << u"unknown kind 'teapot'"_s;
    QTest::newRow("unknown status") << u"418"_s << u"no status kind 418"_s;
    QTest::newRow("404 is no fault") << u"404:count=1"_s << u"no status kind 404"_s;
    QTest::newRow("delay without a duration") << u"delay"_s << u"delay needs a duration"_s;
    QTest::newRow("delay of 0") << u"delay=0"_s << u"delay needs a duration"_s;
    QTest::newRow("delay not a number") << u"delay=soon"_s << u"delay needs a duration"_s;
    QTest::newRow("slow-stream over an hour") << u"slow-stream=2h"_s << u"slow-stream needs a duration"_s;
    QTest::newRow("cut without a count") << u"cut"_s << u"cut needs the number of events"_s;
    QTest::newRow("cut negative") << u"cut=-1"_s << u"cut needs the number of events"_s;
    QTest::newRow("error-event not a number") << u"error-event=two"_s << u"error-event needs the number"_s;
    QTest::newRow("a value on a status") << u"503=2"_s << u"503 takes no value"_s;
    QTest::newRow("a value on reset") << u"reset=1"_s << u"reset takes no value"_s;
    QTest::newRow("p over 100") << u"503:p=200"_s << u"p is a percentage from 0 to 100, not '200'"_s;
    QTest::newRow("p negative") << u"503:p=-1"_s << u"p is a percentage"_s;
    QTest::newRow("count 0") << u"503:count=0"_s << u"count is a whole number"_s;
    QTest::newRow("count fractional") << u"503:count=1.5"_s << u"count is a whole number"_s;
    QTest::newRow("for 0") << u"hang:for=0"_s << u"for is how long"_s;
    QTest::newRow("unknown upstream") << u"503:upstream=azure"_s << u"upstream is openai or anthropic, not 'azure'"_s;
    QTest::newRow("route without a slash") << u"503:route=chat"_s << u"route is a path"_s;
    QTest::newRow("retry-after past qint64") << u"503:retry-after=1e300"_s << u"retry-after is seconds from 0 to 3600"_s;
    QTest::newRow("for past qint64") << u"hang:for=1e300"_s << u"for is how long"_s;
    QTest::newRow("retry-after on a cut") << u"cut=1:retry-after=2"_s << u"retry-after goes with a status kind"_s;
    QTest::newRow("unknown option") << u"503:colour=red"_s << u"unknown option 'colour'"_s;
    QTest::newRow("option without a value") << u"503:count"_s << u"option 'count' needs a value"_s;
    QTest::newRow("option twice") << u"503:count=1:count=2"_s << u"option count is given twice"_s;
    QTest::newRow("comma") << u"503,hang"_s << u"no commas or spaces"_s;
}

void TestFaultRule::badText_isRefusedNamingWhatIsWrong()
{
    QFETCH(QString, text);
    QFETCH(QString, mention);
    const Expected<FaultRule> rule = FaultRule::parse(text);
    QVERIFY(!rule.ok());
    QVERIFY2(rule.error().contains(mention), qPrintable(rule.error()));
    if (!text.isEmpty())
        QVERIFY2(rule.error().contains(u"'%1'"_s.arg(text.trimmed())), qPrintable(rule.error()));
}

void TestFaultRule::json_takesTheTextOrTheFields()
{
    QCOMPARE(FaultRule::fromJson({{u"rule"_s, u"529:p=30"_s}})->text(), u"529:p=30"_s);
    const Expected<FaultRule> fields = FaultRule::fromJson(
        {{u"kind"_s, u"cut"_s}, {u"value"_s, 3}, {u"upstream"_s, u"anthropic"_s}, {u"count"_s, 2}, {u"for"_s, 1.5}});
    QVERIFY2(fields.ok(), qPrintable(fields.error()));
    QCOMPARE(fields->text(), u"cut=3:upstream=anthropic:count=2:for=1500ms"_s);
    QCOMPARE(FaultRule::fromJson({{u"kind"_s, 429}, {u"retry-after"_s, 2}})->text(), u"429:retry-after=2s"_s);
    QVERIFY(FaultRule::fromJson({{u"rule"_s, 503}}).error().contains(u"must be a string"_s));
    QVERIFY(FaultRule::fromJson({}).error().contains(u"\"kind\""_s));
    QVERIFY(FaultRule::fromJson({{u"kind"_s, u"503"_s}, {u"colour"_s, u"red"_s}}).error().contains(u"unknown field \"colour\""_s));
    QVERIFY(FaultRule::fromJson({{u"kind"_s, u"503"_s}, {u"p"_s, 300}}).error().contains(u"p is a percentage"_s));

    FaultRule armed = FaultRule::parse(u"503:count=3:for=10s"_s).value();
    armed.id = 7;
    armed.fired = 1;
    armed.expiresAtMs = 20'000;
    const QJsonObject json = armed.toJson(12'500);
    QCOMPARE(json.value(u"id"_s).toInt(), 7);
    QCOMPARE(json.value(u"rule"_s).toString(), u"503:count=3:for=10s"_s);
    QCOMPARE(json.value(u"label"_s).toString(), u"#7 503:count=3:for=10s"_s);
    QCOMPARE(json.value(u"kind"_s).toString(), u"503"_s);
    QCOMPARE(json.value(u"fired"_s).toInt(), 1);
    QCOMPARE(json.value(u"left"_s).toInt(), 2);
    QCOMPARE(json.value(u"expires_in_s"_s).toDouble(), 7.5);
    QVERIFY(json.value(u"upstream"_s).isNull());
}

QTEST_GUILESS_MAIN(TestFaultRule)
#include "tst_faultrule.moc"
