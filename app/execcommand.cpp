#include "execcommand.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QProcess>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>

#include <csignal>
#include <functional>
#include <cstdio>
#include <limits>
#include <memory>

#include "accounting/calllog.h"
#include "accounting/harexport.h"
#include "commandline.h"
#include "drill/drillsummary.h"
#include "drill/faulttimeline.h"
#include "drill/faultwindows.h"
#include "drill/junitreport.h"
#include "faults/faultinjector.h"
#include "mockprovider.h"
#include "proxyserver.h"
#include "quitonsignal.h"
#include "services.h"
#include "servicethread.h"

using namespace Qt::StringLiterals;

namespace {

// The SDKs' base-URL variables, each pointed at the private Breakwater (`origin` is
// http://127.0.0.1:PORT). A provider Breakwater serves later (Gemini's) gets its line here.
struct BaseUrlVariable
{
    QString name;
    std::function<QString(const QString &origin)> url;
};
const QList<BaseUrlVariable> &baseUrlVariables()
{
    static const QList<BaseUrlVariable> list{
        {u"OPENAI_BASE_URL"_s, [](const QString &origin) -> QString { return origin + u"/v1"_s; }},
        {u"ANTHROPIC_BASE_URL"_s, [](const QString &origin) -> QString { return origin; }},
    };
    return list;
}

void say(const QString &text)
{
    std::fprintf(stderr, "breakwater exec: %s\n", qPrintable(text));
    std::fflush(stderr);
}

// COMMAND's program as a shell finds it: a name with a slash is a path, another is looked up in
// PATH. A failure carries the shell's status: 127 not found, 126 found but not executable.
struct Program
{
    QString path;
    int failure = 0;
    QString error;
};
Program findProgram(const QString &name)
{
    if (name.contains(u'/')) {
        const QFileInfo file(name);
        if (!file.exists())
            return {{}, 127, u"%1: No such file or directory"_s.arg(name)};
        if (file.isDir() || !file.isExecutable())
            return {{}, 126, u"%1: %2"_s.arg(name, file.isDir() ? u"Is a directory"_s : u"Permission denied"_s)};
        return {file.absoluteFilePath(), 0, {}};
    }
    const QString found = name.isEmpty() ? QString() : QStandardPaths::findExecutable(name);
    if (found.isEmpty())
        return {{}, 127, u"%1: command not found"_s.arg(name)};
    return {found, 0, {}};
}

// The shell's way of telling a signal from an exit: 128 + the signal's number.
int exitStatusOf(const QProcess &process)
{
    return process.exitStatus() == QProcess::CrashExit ? 128 + process.exitCode() : process.exitCode();
}

// COMMAND as a shell would take it back: words with anything but safe characters single-quoted.
QString shellWords(const QStringList &words)
{
    static const QRegularExpression safe(u"\\A[A-Za-z0-9_@%+=:,./-]+\\z"_s);
    QStringList quoted;
    for (const QString &word : words)
        quoted.append(safe.match(word).hasMatch() ? word : u"'"_s + QString(word).replace(u"'"_s, u"'\\''"_s) + u"'"_s);
    return quoted.join(u' ');
}

QString signalName(int number)
{
    return number == SIGINT ? u"SIGINT"_s : number == SIGTERM ? u"SIGTERM"_s : u"signal %1"_s.arg(number);
}

bool writeFile(const QString &path, const QByteArray &bytes, const QString &what)
{
    QSaveFile file(path);
    if (file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size() && file.commit())
        return true;
    say(u"cannot write the %1 to %2: %3"_s.arg(what, path, file.errorString()));
    return false;
}

// Ends the private Breakwater's calls still in flight (COMMAND has gone, so nobody waits for them)
// and waits until each has been published to the call log.
void endCallsInFlight(ProxyServer *proxy)
{
    QEventLoop loop;
    QObject::connect(proxy, &ProxyServer::drained, &loop, &QEventLoop::quit, Qt::QueuedConnection);
    QMetaObject::invokeMethod(proxy, [proxy] { proxy->drain(std::chrono::milliseconds(0)); });
    loop.exec();
}

} // namespace

int runExec(CommandLine options, int argc, char *argv[])
{
    const ExecCommand &exec = options.exec;
    // Everything that can be refused is refused before COMMAND starts.
    QList<TimelineEntry> timeline;
    if (!exec.faultsFile.isEmpty()) {
        Expected<QList<TimelineEntry>> read = FaultTimeline::read(exec.faultsFile);
        if (!read.ok()) {
            say(u"--faults %1"_s.arg(read.error()));
            return 2;
        }
        timeline = std::move(read).value();
    }
    const Program program = findProgram(exec.command.first());
    if (program.failure != 0) {
        say(program.error);
        return program.failure;
    }

    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(u"breakwater"_s);
    // The drill says what it arms and what came of it; the proxy's own notes stay out of COMMAND's
    // terminal (QT_LOGGING_RULES still turns them on).
    QLoggingCategory::setFilterRules(u"breakwater.*.info=false"_s);
    const QString commandText = shellWords(exec.command);
    std::unique_ptr<ServiceThread<MockProvider>> mock;
    if (options.demo)
        mock = startDemoProvider(options.config);
    if (!options.given.contains(u"--listen"_s))
        options.config.listenPort = 0;   // a free port: drills run side by side, and beside a Breakwater on 8080

    // The drill's own call log, unless --log-db keeps it somewhere: the summary, the JUnit windows
    // and the HAR are read back from it, so they say what the log says.
    QTemporaryDir scratch;
    const QString logPath = options.logDb.isEmpty() ? QDir(scratch.path()).filePath(u"calls.sqlite"_s) : options.logDb;
    CallLog callLog;
    if (!scratch.isValid() && options.logDb.isEmpty()) {
        say(u"cannot make a temporary folder for the call log: %1"_s.arg(scratch.errorString()));
        return 1;
    }
    if (const Result opened = callLog.open(logPath); !opened.ok()) {
        say(u"cannot open the drill's call log: %1"_s.arg(opened.error()));
        return 1;
    }
    callLog.setStoreBodies(options.logBodies);
    options.config.recordBodies = options.logBodies;

    SystemClock clock;
    Result listening;
    const std::unique_ptr<ServiceThread<ProxyServer>> proxyThread = startProxy(options.config, clock, &listening);
    ServiceThread<ProxyServer> &proxy = *proxyThread;
    if (!proxy.service()) {
        say(u"cannot start the private Breakwater: %1"_s.arg(listening.error()));
        return 1;
    }
    // Direct: append() only queues the record, so the proxy thread never waits on disk.
    QObject::connect(proxy.service(), &ProxyServer::callCompleted, &callLog,
                     [&callLog](const CallRecord &record) { callLog.append(record); }, Qt::DirectConnection);
    const QString origin = u"http://%1:%2"_s.arg(options.config.listenAddress.toString()).arg(proxy.service()->port());
    say(u"private Breakwater on %1/v1%2, call log %3"_s.arg(origin, mock ? u" (demo: the mock provider upstream)"_s : QString(),
                                                            QDir::toNativeSeparators(logPath)));

    QProcess process;
    process.setProgram(program.path);
    process.setArguments(exec.command.mid(1));
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const BaseUrlVariable &variable : baseUrlVariables())
        environment.insert(variable.name, variable.url(origin));
    process.setProcessEnvironment(environment);
    process.setProcessChannelMode(QProcess::ForwardedChannels);
    process.setInputChannelMode(QProcess::ForwardedInputChannel);

    // The timeline, counted from COMMAND's start. An entry at 0 is armed before COMMAND starts, so
    // its first call already meets it.
    QList<FaultWindow> windows;
    for (const TimelineEntry &entry : timeline)
        windows.append({entry, {}, 0, 0});
    QElapsedTimer sinceStart;
    const auto arm = [&proxy, &windows, &sinceStart](qsizetype index) {
        FaultWindow &window = windows[index];
        const FaultRule rule = window.entry.rule;
        const FaultRule armed = proxy.blocking<FaultRule>([rule](ProxyServer *server) { return server->faults()->arm(rule); });
        window.label = armed.label();
        window.fromMs = QDateTime::currentMSecsSinceEpoch();
        say(u"+%1 s: armed %2 (timeline entry %3, at %4)"_s.arg(double(sinceStart.elapsed()) / 1000.0, 0, 'f', 1)
                .arg(window.label).arg(window.entry.number).arg(window.entry.atText));
    };
    auto timers = std::make_unique<QObject>();   // the entries still to come; gone when COMMAND ends

    int exitStatus = 0;
    QString interruptedBy;
    int signalsSeen = 0;
    QEventLoop loop;
    QObject::connect(&process, &QProcess::finished, &loop, [&] {
        exitStatus = exitStatusOf(process);
        loop.quit();
    });
    QObject::connect(&process, &QProcess::errorOccurred, &loop, [&](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return;
        say(u"%1: cannot execute: %2"_s.arg(exec.command.first(), process.errorString()));
        exitStatus = 126;   // found, but the system would not run it (no interpreter, not a program)
        loop.quit();
    });
    // Ctrl+C reaches COMMAND by itself (the terminal signals the whole foreground process group);
    // a signal sent to exec alone (kill, a CI runner cancelling the job) is passed on. A second one
    // kills COMMAND. Either way the summary follows once COMMAND has ended.
    quitOnSignals();
    onSignals([&](const ReceivedSignal &received) {
        if (process.state() == QProcess::NotRunning)
            return;
        interruptedBy = signalName(received.number);
        const auto pid = pid_t(process.processId());
        if (++signalsSeen == 1) {
            if (!received.fromTerminal)
                ::kill(pid, received.number);
            say(u"%1: stopping COMMAND (again to kill it)"_s.arg(interruptedBy));
        } else {
            ::kill(pid, SIGKILL);
        }
    });

    const qint64 startedAtMs = QDateTime::currentMSecsSinceEpoch();
    sinceStart.start();
    for (qsizetype i = 0; i < windows.size(); ++i) {
        if (windows[i].entry.at.count() == 0)
            arm(i);
        else
            QTimer::singleShot(windows[i].entry.at, Qt::PreciseTimer, timers.get(), [&arm, i] { arm(i); });
    }
    std::fflush(stdout);
    process.start();
    loop.exec();
    timers.reset();
    const qint64 endedAtMs = QDateTime::currentMSecsSinceEpoch();

    endCallsInFlight(proxy.service());
    callLog.flush();
    const QList<CallRecord> records = callLog.between(startedAtMs, std::numeric_limits<qint64>::max(),
                                                      std::numeric_limits<int>::max());
    const FaultInjector::Counts injected = proxy.blocking<FaultInjector::Counts>(
        [](ProxyServer *server) { return server->faults()->injected(); });

    FaultWindows::close(windows, records, endedAtMs);
    QList<WindowVerdict> verdicts;
    for (const FaultWindow &window : windows)
        verdicts.append(FaultWindows::judge(window, records));
    const DrillSummary summary = DrillSummary::of(records, injected);
    const QString text = summary.text({commandText, exitStatus, interruptedBy}, verdicts);
    std::fputs(qPrintable(text), stderr);

    if (!exec.junitFile.isEmpty()
        && writeFile(exec.junitFile, JUnitReport::xml({commandText, exitStatus, startedAtMs, endedAtMs, text}, verdicts),
                     u"JUnit report"_s))
        say(u"JUnit report: %1 (%2 test cases)"_s.arg(exec.junitFile).arg(verdicts.size()));
    if (!exec.harFile.isEmpty() && writeFile(exec.harFile, HarExport::toJson(records, origin), u"HAR"_s))
        say(u"HAR: %1 (%2 calls)"_s.arg(exec.harFile).arg(records.size()));
    std::fflush(stderr);
    return exitStatus;
}
