#include "proxypanel.h"

#include <tuple>

#include <QApplication>
#include <QClipboard>
#include <QGridLayout>
#include <QLabel>
#include <QHBoxLayout>
#include <QHostAddress>
#include <QPushButton>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

#include "dashboardmodel.h"
#include "dashboardstyle.h"
#include "fittedlabel.h"

using namespace Qt::StringLiterals;

namespace {

// The health line's parts, in the order they read; on a narrow strip the less needed ones give way
// first (FittedLabel): the reasons in parentheses, then the protocol, the URL, and last the state.
QList<FittedLabel::Part> healthParts(const UpstreamSnapshot &u, const QString &url)
{
    QList<FittedLabel::Part> parts{{{url.isEmpty() ? ProxyPanel::tr("(URL unknown)") : url, url, QString()}, 2}};
    // What the latest answer came over: HTTP/2 multiplexes the calls on one connection.
    if (!u.protocol.isEmpty())
        parts.append({{QString::fromLatin1(u.protocol), QString()}, 4});
    parts.append({{dashboardstyle::breakerLabel(u.breakerState)}, 99});
    if (u.failureThreshold > 0) {
        // Past the threshold (an open breaker's failed trials count on) "6 of 5" read as a wrong sum.
        if (u.consecutiveFailures <= u.failureThreshold)
            parts.append({{ProxyPanel::tr("%1 of %2 failures in a row").arg(u.consecutiveFailures).arg(u.failureThreshold),
                           ProxyPanel::tr("%1 of %2 failures").arg(u.consecutiveFailures).arg(u.failureThreshold)}, 2});
        else
            parts.append({{ProxyPanel::tr("%1 failures in a row (opens at %2)").arg(u.consecutiveFailures).arg(u.failureThreshold),
                           ProxyPanel::tr("%1 failures in a row").arg(u.consecutiveFailures)}, 1});
    }
    if (u.breakerState == BreakerState::Open && u.cooldownLeftMs > 0) {
        // At most: a probe that sees the provider answer half-opens the breaker sooner (the injected
        // hang's breaker half-opened 1.4 s after "cool-down 59 s left").
        const QString left = dashboardstyle::formatCountdown(u.cooldownLeftMs);
        parts.append({{ProxyPanel::tr("trial in ≤ %1 (sooner if a probe answers)").arg(left),
                       ProxyPanel::tr("trial in ≤ %1").arg(left)}, 1});
    }
    if (u.lastFailureAtMs > 0) {
        const QString at = dashboardstyle::formatClock(u.lastFailureAtMs, false);
        parts.append({{ProxyPanel::tr("last error %1 at %2").arg(u.lastFailure.translated(), at), ProxyPanel::tr("last error at %1").arg(at),
                       QString()}, 3});
    } else {
        parts.append({{ProxyPanel::tr("no errors")}, 6});
    }
    // The probe asks only while the breaker is open: its newest answer says whether the provider is
    // back (a 401 counts: it answered), and "no probe yet" while the first is awaited.
    // An "up" answer older than the newest failure while still open is not the state: it half-
    // opened the breaker and the trial failed after it (issue 27: "probe 200 (up)" beside open).
    const bool trialFailedSince = u.breakerState == BreakerState::Open && u.lastProbeAlive
        && u.lastFailureAtMs >= u.lastProbeAtMs;
    const QString probedAt = dashboardstyle::formatClock(u.lastProbeAtMs, false);
    if (u.lastProbeAtMs > 0 && trialFailedSince)
        parts.append({{ProxyPanel::tr("probe %1 (up) at %2, then the trial failed: open again").arg(u.lastProbeResult, probedAt),
                       ProxyPanel::tr("probe up at %1, trial failed").arg(probedAt), QString()}, 1});
    else if (u.lastProbeAtMs > 0)
        parts.append({{ProxyPanel::tr("probe %1 (%2) at %3").arg(u.lastProbeResult,
                                                                 u.lastProbeAlive ? ProxyPanel::tr("up") : ProxyPanel::tr("down"), probedAt),
                       ProxyPanel::tr("probe %1 at %2").arg(u.lastProbeAlive ? ProxyPanel::tr("up") : ProxyPanel::tr("down"), probedAt),
                       QString()}, 1});
    else if (u.breakerState == BreakerState::Open)
        parts.append({{ProxyPanel::tr("no probe yet"), ProxyPanel::tr("no probe yet"), QString()}, 2});
    return parts;
}

} // namespace

ProxyPanel::ProxyPanel(QWidget *parent)
    : QWidget(parent)
{
    // The listen address and the mode on the first line, then one full-width line per upstream:
    // at 1366x768 a line beside the address had room for half of an upstream's health.
    auto *strip = new QVBoxLayout(this);
    strip->setContentsMargins(2, 0, 2, 0);
    strip->setSpacing(2);
    auto *top = new QHBoxLayout;
    top->setSpacing(8);
    m_title = new QLabel(tr("Listening on"), this);
    m_title->setObjectName(u"listenTitle"_s);
    m_listen = new QLabel(this);
    m_listen->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = m_listen->font();
    bold.setBold(true);
    m_listen->setFont(bold);
    auto *copy = new QPushButton(tr("Copy"), this);
    copy->setToolTip(tr("Copy the OpenAI base URL (the Anthropic one is the same without /v1)"));
    copy->setAccessibleName(tr("Copy the base URL"));
    connect(copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(m_copied); });
    m_mode = new FittedLabel(this);
    // Refused, not held: a held client would meet its own timeout (README, "Live control").
    m_pause = new QToolButton(this);
    m_pause->setObjectName(u"pauseAdmission"_s);
    m_pause->setCheckable(true);
    m_pause->setText(tr("Pause admission"));
    m_pause->setToolTip(tr("Refuse new calls with 503 `paused` (x-should-retry: false); calls in flight go on"));
    connect(m_pause, &QToolButton::clicked, this, &ProxyPanel::admissionPauseRequested);
    top->addWidget(m_title);
    top->addWidget(m_listen);
    top->addWidget(copy);
    top->addWidget(m_pause);
    top->addSpacing(8);
    top->addWidget(m_mode, 1);
    strip->addLayout(top);
    m_layout = new QGridLayout;
    m_layout->setHorizontalSpacing(8);
    m_layout->setVerticalSpacing(2);
    m_layout->setColumnStretch(1, 1);
    strip->addLayout(m_layout);
}

void ProxyPanel::setListenUrl(const QString &baseUrl, bool demo)
{
    m_listen->setText(baseUrl);
    m_listen->setToolTip(baseUrl);
    m_copied = baseUrl;
    if (demo)
        m_mode->setParts({{{tr("demo mode: the built-in mock provider stands in for both upstreams"),
                            tr("demo mode: the mock provider stands in for both"), tr("demo mode (mock provider)")}, 0}},
                         {});
    else
        m_mode->setWholeText({});
}

void ProxyPanel::setAttachedTo(const QString &remote)
{
    const QUrl url(remote);
    const bool tls = url.scheme() == u"https"_s;
    const QHostAddress host(url.host());
    const bool local = url.host() == u"localhost"_s || (!host.isNull() && host.isLoopback());
    m_title->setText(tr("Attached to"));
    m_listen->setText(remote);
    m_copied = remote + u"/v1"_s;
    //: %1 is the remote's OpenAI base URL, https://host:port/v1
    m_listen->setToolTip(tr("The remote Breakwater this window shows; apps point at %1").arg(m_copied));
    if (tls)
        m_mode->setParts({{{tr("remote Breakwater, over TLS"), tr("remote, TLS"), tr("TLS")}, 0}}, {});
    else if (local)
        m_mode->setParts({{{tr("remote Breakwater, cleartext on loopback"), tr("remote, loopback"), tr("loopback")}, 0}}, {});
    else
        m_mode->setParts({{{tr("cleartext: the control token and the calls cross the network unencrypted"),
                            tr("cleartext: the token crosses the network unencrypted"), tr("cleartext (no TLS)")}, 0}},
                         {});
}

QString ProxyPanel::titleText() const
{
    return m_title->text();
}

void ProxyPanel::setUpstreamUrl(const QString &upstream, const QString &url)
{
    m_urls.insert(upstream, url);
}

void ProxyPanel::refresh(const DashboardModel &model)
{
    const bool paused = model.snapshot().admissionPaused;
    const QString pauseText = paused ? tr("Resume admission") : tr("Pause admission");
    if (m_pause->isChecked() != paused || m_pause->text() != pauseText) {
        m_pause->setChecked(paused);
        m_pause->setText(pauseText);
    }
    for (const UpstreamSnapshot &u : model.snapshot().upstreams) {
        const QString name = QString::fromLatin1(u.name);
        Row &line = row(name);
        line.status->setParts(healthParts(u, m_urls.value(name)), u"  ·  "_s);
        const QString colour = dashboardstyle::breakerColor(u.breakerState).name();
        if (line.name->property("colour").toString() != colour) {
            line.name->setProperty("colour", colour);
            line.name->setText(u"<span style='color:%1'>●</span> <b>%2</b>"_s.arg(colour, name.toHtmlEscaped()));
        }
        // Only what would change something: the proxy ignores the others anyway.
        line.buttons[int(BreakerAction::Open)]->setEnabled(u.breakerState != BreakerState::Open);
        line.buttons[int(BreakerAction::Close)]->setEnabled(u.breakerState != BreakerState::Closed || u.consecutiveFailures > 0);
        line.buttons[int(BreakerAction::Probe)]->setEnabled(u.breakerState == BreakerState::Open);
    }
}

QToolButton *ProxyPanel::breakerButton(const QString &upstream, BreakerAction action) const
{
    const auto it = m_rows.constFind(upstream);
    return it == m_rows.constEnd() ? nullptr : it->buttons[int(action)];
}

ProxyPanel::Row &ProxyPanel::row(const QString &upstream)
{
    auto it = m_rows.find(upstream);
    if (it != m_rows.end())
        return *it;
    // One line per upstream, under the listen address.
    const int index = int(m_rows.size());
    Row created{new QLabel(this), new FittedLabel(this)};
    created.status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    created.name->setTextFormat(Qt::RichText);
    auto *buttons = new QWidget(this);
    auto *buttonRow = new QHBoxLayout(buttons);
    buttonRow->setContentsMargins(0, 0, 0, 0);
    buttonRow->setSpacing(2);
    const QList<std::tuple<BreakerAction, QString, QString>> actions{
        //: Open the circuit breaker
        {BreakerAction::Open, tr("Open"), tr("Open the breaker now: refuse calls for one cool-down (the probe waits)")},
        //: Close the circuit breaker
        {BreakerAction::Close, tr("Close"), tr("Close the breaker now and forget the failures counted")},
        {BreakerAction::Probe, tr("Probe"), tr("Ask the provider now whether it is back (half-open if it answers)")}};
    for (const auto &[action, text, tip] : actions) {
        auto *button = new QToolButton(buttons);
        const QString name = QString::fromLatin1(breakerActionName(action));
        button->setText(text);
        button->setAccessibleName(tr("%1 breaker: %2").arg(upstream, text));
        button->setToolTip(u"%1: %2"_s.arg(upstream, tip));
        button->setObjectName(upstream + u'-' + name);   // tests find the buttons by name
        connect(button, &QToolButton::clicked, this,
                [this, upstream, action] { Q_EMIT breakerActionRequested(upstream, action); });
        buttonRow->addWidget(button);
        created.buttons[int(action)] = button;
    }
    m_layout->addWidget(created.name, index, 0);
    m_layout->addWidget(created.status, index, 1);
    m_layout->addWidget(buttons, index, 2);
    return *m_rows.insert(upstream, created);
}

QString ProxyPanel::listenUrl() const
{
    return m_listen->text();
}

QString ProxyPanel::listenText() const
{
    return m_listen->text() + (m_mode->wholeText().isEmpty() ? QString() : u"  ("_s + m_mode->wholeText() + u')');
}

QString ProxyPanel::upstreamText(const QString &upstream) const
{
    const auto it = m_rows.constFind(upstream);
    return it == m_rows.constEnd() ? QString() : upstream + u": "_s + it->status->wholeText();
}
