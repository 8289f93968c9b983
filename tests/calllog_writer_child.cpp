// A process that writes call records under load until it is killed, for tst_calllog's crash test.
// Usage: calllog_writer_child DB_PATH. Every 100 ms it prints "<elapsed ms> <rows appended>" so the
// test knows how many rows were handed to the log, and when.

#include <cstdio>

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QTimer>

#include "accounting/calllog.h"

using namespace Qt::StringLiterals;

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    if (app.arguments().size() != 2) {
        std::fprintf(stderr, "usage: calllog_writer_child DB_PATH\n");
        return 2;
    }
    CallLog log;
    if (const Result opened = log.open(app.arguments().at(1)); !opened.ok()) {
        std::fprintf(stderr, "%s\n", qPrintable(opened.error()));
        return 1;
    }

    QElapsedTimer elapsed;
    elapsed.start();
    qint64 appended = 0;
    CallRecord record;
    record.route = "/v1/chat/completions";
    record.upstream = "openai";
    record.model = u"gpt-4o-mini"_s;
    record.outcome = Outcome::Miss;
    record.status = 200;
    record.breakerState = "closed";
    record.clientAddress = u"127.0.0.1"_s;

    // A few rows a millisecond (thousands a second): far more than a proxy logs, one row per request,
    // yet within what the writer commits even in a sanitizer build on a busy machine.
    QTimer load;
    QObject::connect(&load, &QTimer::timeout, &app, [&] {
        for (int i = 0; i < 4; ++i) {
            record.requestId = QByteArray::number(appended);
            record.keyFingerprint = QByteArray::number(appended % 977, 16).rightJustified(12, '0');
            record.receivedAtMs = QDateTime::currentMSecsSinceEpoch();
            record.endAtMs = record.receivedAtMs + 5;
            log.append(record);
            ++appended;
        }
    });
    load.start(1);

    QTimer report;
    QObject::connect(&report, &QTimer::timeout, &app, [&] {
        std::printf("%lld %lld\n", static_cast<long long>(elapsed.elapsed()), static_cast<long long>(appended));
        std::fflush(stdout);
    });
    report.start(100);
    return app.exec();
}
