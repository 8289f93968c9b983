// The details pane of the Requests view, offscreen, with records a real Breakwater made: it shows a
// call's headers (credentials redacted), what made its key, its stream's events and verdict and its
// retry attempt; the table counts the attempts of a logical call; "Copy as curl" puts a command on
// the clipboard with the credential as a variable; "Export HAR" writes the selected calls.

#include "dashboardmodel.h"
#include "latencystaircase.h"
#include "proxyharness.h"
#include "requestpanel.h"
#include "requesttablemodel.h"

#include <QApplication>
#include <QClipboard>
#include <QFile>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPushButton>
#include <QTableView>
#include <QTemporaryDir>
#include <QScopeGuard>
#include <QTest>

#include <sys/stat.h>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {

constexpr int kWait = 30000;

// Calls the proxy one after another and waits for each record.
void callAll(ProxyHarness &harness, const QList<HeaderList> &attempts, const QByteArray &body)
{
    for (const HeaderList &headers : attempts) {
        const qsizetype before = harness.records.size();
        LoopbackClient *call = harness.start("/v1/chat/completions", body, headers);
        QVERIFY(QTest::qWaitFor([&] { return call->isFinished() && harness.records.size() > before; }, kWait));
    }
}

// The table row showing the record with this request id.
int rowOf(const RequestPanel &panel, const QByteArray &requestId)
{
    const auto *view = panel.findChild<QTableView *>();
    for (int row = 0; row < view->model()->rowCount(); ++row) {
        if (view->model()->index(row, RequestTableModel::RequestId).data().toByteArray() == requestId)
            return row;
    }
    return -1;
}

} // namespace

class TestCallDetails final : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void details_showHeadersKeyInputsStreamAndAttempt();
    void fallback_isAColumnBesideTheUpstream_inTheDetails_andItsOwnColourOnTheStaircase();
    void copyAsCurl_putsTheCommandOnTheClipboard();
    void exportHar_writesTheSelectedCalls();
    void exportHar_isOwnerOnlyAndHoldsNoKeyFromTheQuery();

private:
    QList<CallRecord> m_records;   // a streamed call, then a failed call and its retry
};

void TestCallDetails::initTestCase()
{
    ProxyHarness harness;
    harness.mock()->setChunkInterval(20ms);
    HeaderList stream = kOpenAiAuth;
    stream.emplaceBack("X-Stainless-Retry-Count", "0");
    callAll(harness, {stream}, chatBody(u"stream it"_s, true));
    harness.mock()->setMode(MockProvider::Mode::Error503);
    HeaderList first = kOpenAiAuth;
    first.emplaceBack("X-Stainless-Retry-Count", "0");
    HeaderList retry = kOpenAiAuth;
    retry.emplaceBack("X-Stainless-Retry-Count", "1");
    callAll(harness, {first, retry}, chatBody(u"fails"_s));
    m_records = harness.records;
    QCOMPARE(m_records.size(), 3);
}

void TestCallDetails::details_showHeadersKeyInputsStreamAndAttempt()
{
    DashboardModel model;
    for (const CallRecord &record : std::as_const(m_records))
        model.addRecord(record);
    RequestPanel panel;
    panel.resize(1200, 700);
    panel.show();
    panel.refresh(model);
    QCOMPARE(panel.rowCount(), 3);

    panel.selectRow(rowOf(panel, m_records[0].requestId));
    const QString stream = panel.detailsText();
    QVERIFY2(stream.contains(u"request headers\n"_s) && stream.contains(u"\n  Authorization: [redacted]\n"_s), qPrintable(stream));
    QVERIFY2(!stream.contains(u"sk-test-1"_s), qPrintable(stream));
    QVERIFY2(stream.contains(u"response headers\n"_s) && stream.contains(u"x-breakwater-dedup: miss"_s), qPrintable(stream));
    QVERIFY2(stream.contains(u"key inputs (what made the dedup key)\n  route: /v1/chat/completions\n"_s), qPrintable(stream));
    QVERIFY2(stream.contains(u"credential authorization: sha256 "_s), qPrintable(stream));
    QVERIFY2(stream.contains(u"  verdict: complete\n"_s), qPrintable(stream));
    QVERIFY2(stream.contains(u"  events: "_s) && stream.contains(u"  time to first token: "_s)
                 && stream.contains(u"  largest gap between events: "_s), qPrintable(stream));
    QVERIFY2(stream.contains(u"1 of 1  (X-Stainless-Retry-Count 0)"_s), qPrintable(stream));

    // The failed call and its retry: one logical call of two attempts, the error body kept.
    const int retryRow = rowOf(panel, m_records[2].requestId);
    panel.selectRow(retryRow);
    const QString failed = panel.detailsText();
    QVERIFY2(failed.contains(u"2 of 2  (X-Stainless-Retry-Count 1)"_s), qPrintable(failed));
    QVERIFY2(failed.contains(u"upstream error body\n"_s), qPrintable(failed));
    const auto *view = panel.findChild<QTableView *>();
    QCOMPARE(view->model()->index(retryRow, RequestTableModel::Attempt).data().toString(), u"2 of 2"_s);
    QCOMPARE(view->model()->index(rowOf(panel, m_records[1].requestId), RequestTableModel::Attempt).data().toString(),
             u"1 of 2"_s);
}

void TestCallDetails::fallback_isAColumnBesideTheUpstream_inTheDetails_andItsOwnColourOnTheStaircase()
{
    DashboardModel model;
    for (const CallRecord &record : std::as_const(m_records))
        model.addRecord(record);
    CallRecord fell = m_records[0];
    fell.requestId = "bw-fell-back";
    fell.upstream = "cloud";
    fell.fallbackFrom = "local";
    fell.receivedAtMs += 1;
    fell.endAtMs += 1;
    // Its refused attempt: a row of its own by another id here, so that rowOf finds each.
    CallRecord attempt = fell;
    attempt.requestId = "bw-refused-attempt";
    attempt.outcome = Outcome::FellBack;
    attempt.upstream = "local";
    attempt.fallbackFrom.clear();
    attempt.fallbackTo = "cloud";
    attempt.status = 529;
    attempt.errorKind.clear();
    model.addRecord(attempt);
    model.addRecord(fell);
    QCOMPARE(model.totals().requests, m_records.size() + 1);   // the attempt is no request of its own
    QCOMPARE(model.records().size(), size_t(m_records.size() + 2));   // but a row of the table
    RequestPanel panel;
    panel.resize(1200, 700);
    panel.show();
    panel.refresh(model);
    const auto *view = panel.findChild<QTableView *>();
    QCOMPARE(view->model()->headerData(RequestTableModel::Fallback, Qt::Horizontal).toString(), u"fallback"_s);
    const QHeaderView *header = view->horizontalHeader();
    QCOMPARE(header->visualIndex(RequestTableModel::Fallback), header->visualIndex(RequestTableModel::Upstream) + 1);
    const int row = rowOf(panel, fell.requestId);
    QCOMPARE(view->model()->index(row, RequestTableModel::Fallback).data().toString(), u"from local"_s);
    const int attemptRow = rowOf(panel, attempt.requestId);
    QCOMPARE(view->model()->index(attemptRow, RequestTableModel::Fallback).data().toString(), u"to cloud"_s);
    QCOMPARE(view->model()->index(attemptRow, RequestTableModel::OutcomeColumn).data().toString(), u"fell_back"_s);
    QCOMPARE(view->model()->index(row, RequestTableModel::Upstream).data().toString(), u"cloud"_s);
    QCOMPARE(view->model()->index(rowOf(panel, m_records[0].requestId), RequestTableModel::Fallback).data().toString(), QString());
    panel.selectRow(row);
    const QString details = panel.detailsText();
    QVERIFY2(details.contains(u"from local (it refused the call; its fallback cloud answered)"_s), qPrintable(details));
    panel.selectRow(attemptRow);
    QVERIFY2(panel.detailsText().contains(u"529 from local → answered by its fallback cloud"_s), qPrintable(panel.detailsText()));

    LatencyStaircase staircase;
    staircase.resize(800, 400);
    staircase.refresh(model);
    QCOMPARE(staircase.barCount(), 4);   // one bar per request: the attempt has none
    QCOMPARE(staircase.fallbackBarCount(), 1);   // the failed calls keep their failure's colour; only this one
    QVERIFY(staircase.legendLabels().contains(u"fallback"_s));
}

void TestCallDetails::copyAsCurl_putsTheCommandOnTheClipboard()
{
    DashboardModel model;
    for (const CallRecord &record : std::as_const(m_records))
        model.addRecord(record);
    RequestPanel panel;
    panel.setOrigin(u"http://127.0.0.1:9999"_s);
    panel.show();
    panel.refresh(model);
    QPushButton *copy = nullptr;
    for (QPushButton *button : panel.findChildren<QPushButton *>()) {
        if (button->text() == u"Copy as curl"_s)
            copy = button;
    }
    QVERIFY(copy);
    QVERIFY(!copy->isEnabled());   // nothing selected yet
    QApplication::clipboard()->setText(u"before"_s);
    panel.selectRow(rowOf(panel, m_records[0].requestId));
    QVERIFY(copy->isEnabled());
    QTest::mouseClick(copy, Qt::LeftButton);
    const QString command = QApplication::clipboard()->text();
    QVERIFY2(command.startsWith(u"# The request body was not logged"_s), qPrintable(command));   // no --log-bodies
    QVERIFY2(command.contains(u"curl \\\n  --no-buffer \\\n  -X POST \\\n  'http://127.0.0.1:9999/v1/chat/completions'"_s),
             qPrintable(command));
    QVERIFY2(command.contains(u"-H \"Authorization: Bearer $OPENAI_API_KEY\""_s), qPrintable(command));
    QVERIFY2(!command.contains(u"sk-test-1"_s), qPrintable(command));
    QCOMPARE(command, panel.curlCommand());
}

void TestCallDetails::exportHar_writesTheSelectedCalls()
{
    DashboardModel model;
    for (const CallRecord &record : std::as_const(m_records))
        model.addRecord(record);
    RequestPanel panel;
    panel.show();
    panel.refresh(model);
    QVERIFY(RequestPanel::harFileName().startsWith(u"breakwater-requests-"_s));
    QVERIFY(RequestPanel::harFileName().endsWith(u".har"_s));
    QTemporaryDir dir;
    QString error;
    const QString all = dir.filePath(u"all.har"_s);
    QVERIFY2(panel.exportHar(all, &error), qPrintable(error));   // nothing selected: every row shown
    QFile file(all);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject log = QJsonDocument::fromJson(file.readAll()).object().value(u"log"_s).toObject();
    QCOMPARE(log.value(u"version"_s).toString(), u"1.2"_s);
    const QJsonArray entries = log.value(u"entries"_s).toArray();
    QCOMPARE(entries.size(), 3);
    QCOMPARE(entries.at(2).toObject().value(u"response"_s).toObject().value(u"status"_s).toInt(), 503);   // oldest first

    panel.selectRow(rowOf(panel, m_records[0].requestId));
    const QString one = dir.filePath(u"one.har"_s);
    QVERIFY2(panel.exportHar(one, &error), qPrintable(error));
    QFile selected(one);
    QVERIFY(selected.open(QIODevice::ReadOnly));
    const QJsonArray picked = QJsonDocument::fromJson(selected.readAll()).object().value(u"log"_s).toObject()
                                  .value(u"entries"_s).toArray();
    QCOMPARE(picked.size(), 1);
    QCOMPARE(picked.at(0).toObject().value(u"_breakwater"_s).toObject().value(u"requestId"_s).toString(),
             QString::fromLatin1(m_records[0].requestId));
}

void TestCallDetails::exportHar_isOwnerOnlyAndHoldsNoKeyFromTheQuery()
{
    // An Azure-style key in the query, through a real Breakwater: the record keeps only REDACTED.
    const QByteArray secret = "azure-query-secret-0123456789";
    ProxyHarness harness;
    const qsizetype before = harness.records.size();
    LoopbackClient *call = harness.start("/v1/chat/completions?api-version=2024-10-21&api-key=" + secret,
                                         chatBody(u"har"_s));
    QVERIFY(QTest::qWaitFor([&] { return call->isFinished() && harness.records.size() > before; }, kWait));
    QCOMPARE(call->response().status, 200);
    QCOMPARE(harness.mock()->lastRequestQuery(), "api-version=2024-10-21&api-key=" + secret);   // the upstream got it
    DashboardModel model;
    model.addRecord(harness.records.last());
    RequestPanel panel;
    panel.refresh(model);

    QTemporaryDir dir;
    const QString path = dir.filePath(u"calls.har"_s);
    {
        QFile loose(path);   // a file already there, readable by everyone
        QVERIFY(loose.open(QIODevice::WriteOnly));
        loose.write("old");
        loose.setPermissions(loose.permissions() | QFileDevice::ReadGroup | QFileDevice::ReadOther);
    }
    const mode_t previous = ::umask(022);
    const auto restore = qScopeGuard([previous] { ::umask(previous); });
    QString error;
    QVERIFY2(panel.exportHar(path, &error), qPrintable(error));
    struct stat info {};
    QCOMPARE(::stat(QFile::encodeName(path).constData(), &info), 0);
    QCOMPARE(info.st_mode & 0777, mode_t(0600));
    const QString fresh = dir.filePath(u"fresh.har"_s);
    QVERIFY2(panel.exportHar(fresh, &error), qPrintable(error));
    QCOMPARE(::stat(QFile::encodeName(fresh).constData(), &info), 0);
    QCOMPARE(info.st_mode & 0777, mode_t(0600));

    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray har = file.readAll();
    QVERIFY2(!har.contains(secret), har.constData());
    const QJsonObject request = QJsonDocument::fromJson(har).object()[u"log"_s][u"entries"_s][0][u"request"_s].toObject();
    QVERIFY2(request.value(u"url"_s).toString().endsWith(u"?api-version=2024-10-21&api-key=REDACTED"_s),
             qPrintable(request.value(u"url"_s).toString()));
    const QJsonArray query = request.value(u"queryString"_s).toArray();
    QCOMPARE(query.size(), 2);
    QCOMPARE(query.at(1).toObject().value(u"value"_s).toString(), u"REDACTED"_s);
}

QTEST_MAIN(TestCallDetails)
#include "tst_calldetails.moc"
