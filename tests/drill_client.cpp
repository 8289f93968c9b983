// drill_client: the app under test in tst_exec's drills. It calls the OpenAI-compatible API at
// $OPENAI_BASE_URL (http://127.0.0.1:PORT/v1, as `breakwater exec` sets it) as the official SDKs do,
// retries included (SdkLikeClient), one call after another, and prints what each ended with.
//
//   drill_client [--calls N] [--exit-status N] [--wait-for-signal]
//
// Exits with --exit-status when given, else 0 when every call was answered 200 and 1 otherwise.
// With --wait-for-signal it then prints "drill_client: waiting for a signal" and waits to be ended.

#include <QCoreApplication>
#include <QUrl>

#include <cstdio>

#include "proxyharness.h"
#include "sdklikeclient.h"

using namespace Qt::StringLiterals;

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    const QStringList args = QCoreApplication::arguments();
    int calls = 1;
    int exitStatus = -1;
    bool waitForSignal = false;
    for (qsizetype i = 1; i < args.size(); ++i) {
        if (args[i] == u"--calls"_s && i + 1 < args.size())
            calls = args[++i].toInt();
        else if (args[i] == u"--exit-status"_s && i + 1 < args.size())
            exitStatus = args[++i].toInt();
        else if (args[i] == u"--wait-for-signal"_s)
            waitForSignal = true;
    }
    const QUrl base(qEnvironmentVariable("OPENAI_BASE_URL"));
    if (base.port() <= 0 || base.host() != u"127.0.0.1"_s) {
        std::fprintf(stderr, "drill_client: OPENAI_BASE_URL is not http://127.0.0.1:PORT/v1: %s\n", qPrintable(base.toString()));
        return 2;
    }
    const QByteArray path = base.path().toUtf8() + "/chat/completions";
    bool allOk = true;
    for (int i = 0; i < calls; ++i) {
        SdkLikeClient call(quint16(base.port()), path, kOpenAiAuth, chatBody(u"drill call %1"_s.arg(i)),
                           std::chrono::seconds(60));
        QEventLoop loop;
        QObject::connect(&call, &SdkLikeClient::finished, &loop, &QEventLoop::quit);
        call.start();
        loop.exec();
        std::printf("drill_client: call %d: %d after %d attempts\n", i, call.response().status, call.attempts());
        std::fflush(stdout);
        allOk = allOk && call.response().status == 200;
    }
    if (waitForSignal) {
        std::printf("drill_client: waiting for a signal\n");
        std::fflush(stdout);
        return app.exec();
    }
    return exitStatus >= 0 ? exitStatus : (allOk ? 0 : 1);
}
