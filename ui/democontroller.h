#pragma once

#include <map>
#include <memory>

#include <QList>
#include <QObject>

#include "clock.h"
#include "demoscenarios.h"
#include "proxyconfig.h"

class CallLog;
class DashboardModel;
class MockProvider;
class ProxyServer;
class QAction;
class QMenu;
template <typename Service> class ServiceThread;

// `--demo`'s scenarios for the window and the tray: one set of actions (herd, outage, hang, burst,
// stop) that both menus show, and the status line they report to.
//
// The burst's concurrency choice: the running proxy's concurrency is fixed when it starts, so a
// burst "one at a time" (or 4 at a time) goes through a second, real ProxyServer on its own thread
// and port, with that concurrency and the same mock upstream, built on first use and kept until
// exit. Its records feed the same dashboard, so the staircase shows what that proxy did (in flight
// too), its pools count in "in flight" and "queued", and it writes the same call log: every proxied
// call is on record.
//
// The fallback scenario goes the same way through a third ProxyServer, whose upstream for the
// demo's model ("primary", the mock) names a fallback ("backup", a second mock on its own thread):
// while the mock answers 529, the dashboard shows the calls the backup answered.
class DemoController final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DemoController)
public:
    DemoController(DashboardModel *model, quint16 proxyPort, MockProvider *mock, const ProxyConfig &config,
                   QObject *parent = nullptr);
    ~DemoController() override;

    // Adds the scenario actions to `menu` (shared actions: a second menu shows the same state);
    // each time it opens, the hang scenarios name the timeout in the proxy's latest snapshot.
    void populate(QMenu *menu);
    void showTimeout(std::chrono::milliseconds timeout);
    DemoScenarios *scenarios() const { return m_scenarios; }
    // Runs the burst through a proxy with this concurrency (a second proxy unless it is the main one's).
    bool startBurst(int concurrency);
    quint16 sideProxyPort(int concurrency) const;
    // Runs the fallback scenario through the proxy with a fallback (built on first use).
    bool startFallback();
    quint16 fallbackProxyPort() const;
    // The call log the second proxies write to (may be null); before the first burst through one.
    void setCallLog(CallLog *log) { m_callLog = log; }
    QString status() const { return m_status; }

Q_SIGNALS:
    void statusChanged(const QString &text);

private:
    quint16 ensureSideProxy(int concurrency);
    quint16 ensureFallbackProxy();
    // A second proxy with `config`, on its own thread, feeding the dashboard and the call log as
    // `source`; null when it cannot listen.
    std::unique_ptr<ServiceThread<ProxyServer>> startSideProxy(const QString &name, const ProxyConfig &config,
                                                               const QString &source);
    void onRunningChanged();

    DashboardModel *m_model;
    CallLog *m_callLog = nullptr;
    quint16 m_proxyPort;
    ProxyConfig m_config;
    SystemClock m_clock;   // the second proxies' clock; outlives them (declared first)
    std::map<int, std::unique_ptr<ServiceThread<ProxyServer>>> m_sideProxies;
    // The fallback scenario's stand-in provider, then its proxy (destroyed first: it calls the mock).
    std::unique_ptr<ServiceThread<MockProvider>> m_backupMock;
    std::unique_ptr<ServiceThread<ProxyServer>> m_fallbackProxy;
    DemoScenarios *m_scenarios = nullptr;
    QList<QAction *> m_actions;   // scenario starters, disabled while one runs
    QList<QAction *> m_burstActions;
    QAction *m_stop = nullptr;
    QAction *m_hang = nullptr;
    QAction *m_injectedHang = nullptr;
    QString m_status;
};
