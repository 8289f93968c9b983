// breakwater: the composition root. Everything is built and wired here; nothing else creates services.

#include "accounting/calllog.h"
#include "attachedapp.h"
#include "accounting/duplicatereport.h"
#include "commandline.h"
#include "controltoken.h"
#include "controlgate.h"
#include "desktopapp.h"
#include "execcommand.h"
#include "faultclient.h"
#include "mockprovider.h"
#include "proxyserver.h"
#include "quitonsignal.h"
#include "remotetokens.h"
#include "services.h"
#include "servicethread.h"

#include <QCoreApplication>
#include <QDate>
#include <QEventLoop>
#include <QJsonDocument>

#include <cstdio>
#include <memory>
#include <utility>

using namespace Qt::StringLiterals;

namespace {
// `breakwater report`: the field test's duplicate analysis on the user's own call log.
int printReport(const CommandLine &options)
{
    const QString path = options.logDb.isEmpty() ? CallLog::defaultPath() : options.logDb;
    const Expected<DuplicateReport> report = DuplicateReport::compute(path);
    if (!report.ok()) {
        std::fprintf(stderr, "breakwater: %s\n", qPrintable(report.error()));
        return 1;
    }
    if (options.reportJson)
        std::fputs(QJsonDocument(report->json()).toJson(QJsonDocument::Indented).constData(), stdout);
    else
        std::fputs(qPrintable(report->table()), stdout);
    return 0;
}
// Breakwater does not start without its port or its control token: said on stderr, and in a dialog
// for the desktop app, whose user sees no terminal. Exit status 1.
int refuseToStart(bool desktop, const QString &why)
{
    std::fprintf(stderr, "breakwater: %s\n", qPrintable(why));
    if (desktop)
        showStartupFailure(why);
    return 1;
}
// Graceful shutdown: the proxy stops accepting and its calls in flight finish (or are ended after
// `grace`), each with its record published to the call log. The event loop runs meanwhile, so a
// second SIGTERM or SIGINT can end them at once.
void drain(ProxyServer *proxy, std::chrono::milliseconds grace)
{
    QEventLoop loop;
    QObject::connect(proxy, &ProxyServer::drained, &loop, &QEventLoop::quit, Qt::QueuedConnection);
    onSignals([proxy] {
        std::fprintf(stderr, "breakwater: ending the calls in flight now\n");
        QMetaObject::invokeMethod(proxy, [proxy] { proxy->drain(std::chrono::milliseconds(0)); });
    });
    QMetaObject::invokeMethod(proxy, [proxy, grace] { proxy->drain(grace); }, Qt::BlockingQueuedConnection);
    std::fprintf(stderr, "breakwater: stopping; calls in flight get up to %.0f s to finish\n",
                 std::chrono::duration<double>(grace).count());
    loop.exec();
}
// `breakwater --attach URL`: the dashboard and tray of a remote Breakwater; no proxy starts here.
int attach(const CommandLine &options, int &argc, char **argv)
{
    if (options.headless) {
        std::fprintf(stderr, "breakwater: --attach opens the desktop app for a remote Breakwater; it cannot be --headless\n");
        return 2;
    }
    if (!displayAvailable()) {
        std::fprintf(stderr, "breakwater: --attach needs a display (DISPLAY/WAYLAND_DISPLAY unset)\n");
        return 2;
    }
    const std::unique_ptr<QCoreApplication> app = createApplication(argc, argv, true);
    QCoreApplication::setApplicationName(u"breakwater"_s);
    QCoreApplication::setApplicationVersion(QStringLiteral(BREAKWATER_VERSION));
    // The remote owner's token: --control-token FILE (a copy of its control-token file, kept as
    // private as the original); else the one kept for this remote, else this user's own. Without
    // --control-token, a token the remote refuses is asked for in the window (attachedsession.h).
    AttachTarget target{options.attach, {}, options.config.caFile, options.minimized, {}};
    if (!options.controlTokenFile.isEmpty()) {
        const Expected<QByteArray> token = readControlToken(options.controlTokenFile);
        if (!token.ok())
            return refuseToStart(true, token.error());
        target.controlToken = token.value();
    } else {
        target.tokensFile = RemoteTokens::defaultPath();
        target.controlToken = RemoteTokens(target.tokensFile).tokenFor(options.attach);
        if (const Expected<QByteArray> own = readControlToken(defaultControlTokenFile());
            target.controlToken.isEmpty() && own.ok())
            target.controlToken = own.value();
    }
    quitOnSignals();
    return runAttached(target);
}
} // namespace

int main(int argc, char *argv[])
{
    // The options come first: they (and whether there is a display) decide the application type.
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments.append(QString::fromLocal8Bit(argv[i]));
    Expected<CommandLine> parsed = parseCommandLine(arguments, defaultConfigFile());
    if (!parsed.ok()) {
        std::fprintf(stderr, "breakwater: %s\n", qPrintable(parsed.error()));
        return 2;
    }
    CommandLine options = std::move(parsed).value();
    if (options.showHelp) {
        std::fputs(qPrintable(helpText()), stdout);
        return 0;
    }
    if (options.showVersion) {
        std::printf("breakwater %s\n", BREAKWATER_VERSION);
        return 0;
    }

    if (options.report) {
        QCoreApplication app(argc, argv);   // Qt SQL needs an application object for its drivers
        return printReport(options);
    }
    if (options.exec.requested)
        return runExec(options, argc, argv);
    if (options.faultCommand.action != FaultCommand::Action::None) {
        QCoreApplication app(argc, argv);   // the network manager needs an event loop
        return runFaultCommand(options);
    }

    if (!options.attach.isEmpty())
        return attach(options, argc, argv);

    // Without --headless this is the desktop app, unless there is no display to show it on.
    bool desktop = !options.headless;
    if (desktop && !displayAvailable()) {
        std::fprintf(stderr, "breakwater: no display (DISPLAY/WAYLAND_DISPLAY unset), running headless\n");
        desktop = false;
    }
    const std::unique_ptr<QCoreApplication> app = createApplication(argc, argv, desktop);
    QCoreApplication::setApplicationName(u"breakwater"_s);
    QCoreApplication::setApplicationVersion(QStringLiteral(BREAKWATER_VERSION));
    // The layers under the command line and the configuration file: saved settings, then defaults.
    options.config = withSavedDesktopSettings(options.config, options.given);

    // --demo: the built-in mock provider stands in for both upstreams, on a thread of its own.
    std::unique_ptr<ServiceThread<MockProvider>> mock;
    if (options.demo) {
        mock = startDemoProvider(options.config);
        std::printf("breakwater: demo mode, mock provider at %s\n",
                    qPrintable(options.config.openaiUpstream.toString()));
    }

    // The call log writes on a thread of its own; a database that cannot be opened turns logging off,
    // never the proxy. It is read once here so a restart keeps the day's spend.
    CallLog callLog;
    const QString logPath = options.logDb.isEmpty() ? CallLog::defaultPath() : options.logDb;
    if (const Result opened = callLog.open(logPath); opened.ok()) {
        callLog.setStoreBodies(options.logBodies);
        options.config.recordBodies = options.logBodies;
        options.config.spentTodayAtStartUsd = callLog.spentOnDay(QDate::currentDate());
    } else {
        std::fprintf(stderr, "breakwater: call log off: %s\n", qPrintable(opened.error()));
    }

    // The owner's control token for the routes under /breakwater/, made at the first start.
    const bool ownTokenFile = options.controlTokenFile.isEmpty();
    const QString tokenFile = ownTokenFile ? defaultControlTokenFile() : options.controlTokenFile;
    const Expected<QByteArray> token = loadOrCreateControlToken(tokenFile, ownTokenFile);
    if (!token.ok())
        return refuseToStart(desktop, token.error());
    options.config.controlToken = token.value();
    // A member's token must never open the control API: refused rather than left to chance.
    for (const Member &member : std::as_const(options.config.team.members)) {
        if (sameControlToken(member.token, options.config.controlToken)) {
            std::fprintf(stderr, "breakwater: --access-tokens: member '%s' has the owner's control token; "
                                 "give them a token of their own\n", qPrintable(member.name));
            return 2;
        }
    }
    if (!options.config.listenAddress.isLoopback() && options.config.tlsCertFile.isEmpty())
        std::fprintf(stderr, "breakwater: warning: listening beyond loopback without TLS: members' tokens and "
                             "prompts cross the network in clear text (give --tls-cert and --tls-key)\n");

    SystemClock clock;
    Result listening;
    const std::unique_ptr<ServiceThread<ProxyServer>> proxyThread = startProxy(options.config, clock, &listening);
    ServiceThread<ProxyServer> &proxy = *proxyThread;
    if (!proxy.service()) {
        return refuseToStart(desktop, u"cannot listen on %1:%2: %3"_s.arg(options.config.listenAddress.toString())
                                          .arg(options.config.listenPort).arg(listening.error()));
    }
    if (callLog.isOpen()) {
        // Direct: append() only queues the record, so the proxy thread never waits on disk.
        QObject::connect(proxy.service(), &ProxyServer::callCompleted, &callLog,
                         [&callLog](const CallRecord &record) { callLog.append(record); }, Qt::DirectConnection);
    }
    if (callLog.isOpen()) {
        // GET /breakwater/events opens with the latest calls, committed first so none is missed.
        QMetaObject::invokeMethod(proxy.service(), [server = proxy.service(), &callLog] {
            server->setCallHistory([&callLog](int limit) {
                callLog.flush();
                return callLog.recent(limit);
            });
        }, Qt::BlockingQueuedConnection);
    }
    std::printf("breakwater: listening on %s\n", qPrintable(proxy.service()->baseUrl()));
    std::fflush(stdout);
    for (const FaultRule &rule : options.config.faults)   // said at start too, so nobody forgets one
        std::fprintf(stderr, "breakwater: fault injection armed (--fault): %s\n", qPrintable(rule.text()));

    quitOnSignals();
    const int status = desktop ? runDesktop(proxy.service(), mock ? mock->service() : nullptr, options.config,
                                            options.given, options.minimized, callLog.isOpen() ? &callLog : nullptr)
                               : app->exec();
    drain(proxy.service(), options.config.drainTimeout);
    return status;   // then the proxy is deleted, and the call log writes the last records
}
