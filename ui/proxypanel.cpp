#include "proxypanel.h"

#include <QApplication>
#include <QClipboard>
#include <QGridLayout>
#include <QLabel>
#include <QHBoxLayout>
#include <QPushButton>
#include <QToolButton>

#include "dashboardmodel.h"
#include "dashboardstyle.h"

using namespace Qt::StringLiterals;

namespace {

// A label that may be cut short when the window is narrow (its tooltip keeps the whole text),
// rather than forcing the window wider than a small screen.
QLabel *shrinkingLabel(QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

QString healthText(const UpstreamSnapshot &u, const QString &url)
{
    QStringList parts{url.isEmpty() ? u"(URL unknown)"_s : url};
    // What the latest answer came over: HTTP/2 multiplexes the calls on one connection.
    if (!u.protocol.isEmpty())
        parts << QString::fromLatin1(u.protocol);
    parts << dashboardstyle::breakerLabel(u.breakerState);
    if (u.failureThreshold > 0)
        // Past the threshold (an open breaker's failed trials count on) "6 of 5" read as a wrong sum.
        parts << (u.consecutiveFailures <= u.failureThreshold
                      ? u"%1 of %2 failures in a row"_s.arg(u.consecutiveFailures).arg(u.failureThreshold)
                      : u"%1 failures in a row (opens at %2)"_s.arg(u.consecutiveFailures).arg(u.failureThreshold));
    if (u.breakerState == BreakerState::Open && u.cooldownLeftMs > 0)
        // At most: a probe that sees the provider answer half-opens the breaker sooner (the injected
        // hang's breaker half-opened 1.4 s after "cool-down 59 s left").
        parts << u"trial in ≤ %1 (sooner if a probe answers)"_s.arg(dashboardstyle::formatCountdown(u.cooldownLeftMs));
    parts << (u.lastFailureAtMs > 0 ? u"last error %1 at %2"_s.arg(u.lastFailure, dashboardstyle::formatClock(u.lastFailureAtMs, false))
                                    : u"no errors"_s);
    // The probe asks only while the breaker is open: its newest answer says whether the provider is
    // back (a 401 counts: it answered), and "no probe yet" while the first is awaited. Last, as the
    // part a narrow window may cut: the error says what went wrong.
    // An "up" answer older than the newest failure while still open is not the state: it half-
    // opened the breaker and the trial failed after it (issue 27: "probe 200 (up)" beside open).
    const bool trialFailedSince = u.breakerState == BreakerState::Open && u.lastProbeAlive
        && u.lastFailureAtMs >= u.lastProbeAtMs;
    if (u.lastProbeAtMs > 0 && trialFailedSince)
        parts << u"probe %1 (up) at %2, then the trial failed: open again"_s.arg(
            u.lastProbeResult, dashboardstyle::formatClock(u.lastProbeAtMs, false));
    else if (u.lastProbeAtMs > 0)
        parts << u"probe %1 (%2) at %3"_s.arg(u.lastProbeResult, u.lastProbeAlive ? u"up"_s : u"down"_s,
                                              dashboardstyle::formatClock(u.lastProbeAtMs, false));
    else if (u.breakerState == BreakerState::Open)
        parts << u"no probe yet"_s;
    return parts.join(u"  ·  "_s);
}

} // namespace

ProxyPanel::ProxyPanel(QWidget *parent)
    : QWidget(parent)
{
    m_layout = new QGridLayout(this);
    m_layout->setContentsMargins(2, 0, 2, 0);
    m_layout->setHorizontalSpacing(8);
    m_layout->setVerticalSpacing(2);
    auto *title = new QLabel(u"Listening on"_s, this);
    m_listen = shrinkingLabel(this);
    QFont bold = m_listen->font();
    bold.setBold(true);
    m_listen->setFont(bold);
    auto *copy = new QPushButton(u"Copy"_s, this);
    copy->setToolTip(u"Copy the OpenAI base URL (the Anthropic one is the same without /v1)"_s);
    connect(copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(m_listen->text()); });
    m_mode = shrinkingLabel(this);
    // Refused, not held: a held client would meet its own timeout (README, "Live control").
    m_pause = new QToolButton(this);
    m_pause->setObjectName(u"pauseAdmission"_s);
    m_pause->setCheckable(true);
    m_pause->setText(u"Pause admission"_s);
    m_pause->setToolTip(u"Refuse new calls with 503 `paused` (x-should-retry: false); calls in flight go on"_s);
    connect(m_pause, &QToolButton::clicked, this, &ProxyPanel::admissionPauseRequested);
    m_layout->addWidget(title, 0, 0);
    m_layout->addWidget(m_listen, 0, 1);
    m_layout->addWidget(copy, 0, 2);
    m_layout->addWidget(m_mode, 1, 0, 1, 2);
    m_layout->addWidget(m_pause, 1, 2);
    m_layout->setColumnStretch(1, 2);
    m_layout->setColumnStretch(4, 5);
}

void ProxyPanel::setListenUrl(const QString &baseUrl, bool demo)
{
    m_listen->setText(baseUrl);
    m_listen->setToolTip(baseUrl);
    m_mode->setText(demo ? u"demo mode: the built-in mock provider stands in for both upstreams"_s : QString());
}

void ProxyPanel::setUpstreamUrl(const QString &upstream, const QString &url)
{
    m_urls.insert(upstream, url);
}

void ProxyPanel::refresh(const DashboardModel &model)
{
    const bool paused = model.snapshot().admissionPaused;
    if (m_pause->isChecked() != paused || m_pause->text().startsWith(u"Resume"_s) != paused) {
        m_pause->setChecked(paused);
        m_pause->setText(paused ? u"Resume admission"_s : u"Pause admission"_s);
    }
    for (const UpstreamSnapshot &u : model.snapshot().upstreams) {
        const QString name = QString::fromLatin1(u.name);
        Row &line = row(name);
        const QString text = healthText(u, m_urls.value(name));
        if (line.status->text() != text) {
            line.status->setText(text);
            line.status->setToolTip(text);
        }
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
    // The upstreams sit to the right of the listen address, one per line.
    const int index = int(m_rows.size());
    Row created{new QLabel(this), shrinkingLabel(this)};
    created.name->setTextFormat(Qt::RichText);
    auto *buttons = new QWidget(this);
    auto *buttonRow = new QHBoxLayout(buttons);
    buttonRow->setContentsMargins(0, 0, 0, 0);
    buttonRow->setSpacing(2);
    const QList<std::pair<BreakerAction, QString>> actions{
        {BreakerAction::Open, u"Open the breaker now: refuse calls for one cool-down (the probe waits)"_s},
        {BreakerAction::Close, u"Close the breaker now and forget the failures counted"_s},
        {BreakerAction::Probe, u"Ask the provider now whether it is back (half-open if it answers)"_s}};
    for (const auto &[action, tip] : actions) {
        auto *button = new QToolButton(buttons);
        const QString name = QString::fromLatin1(breakerActionName(action));
        button->setText(name.left(1).toUpper() + name.mid(1));
        button->setToolTip(u"%1: %2"_s.arg(upstream, tip));
        button->setObjectName(upstream + u'-' + name);   // tests find the buttons by name
        connect(button, &QToolButton::clicked, this,
                [this, upstream, action] { Q_EMIT breakerActionRequested(upstream, action); });
        buttonRow->addWidget(button);
        created.buttons[int(action)] = button;
    }
    m_layout->addWidget(created.name, index, 3);
    m_layout->addWidget(created.status, index, 4);
    m_layout->addWidget(buttons, index, 5);
    return *m_rows.insert(upstream, created);
}

QString ProxyPanel::listenUrl() const
{
    return m_listen->text();
}

QString ProxyPanel::listenText() const
{
    return m_listen->text() + (m_mode->text().isEmpty() ? QString() : u"  ("_s + m_mode->text() + u')');
}

QString ProxyPanel::upstreamText(const QString &upstream) const
{
    const auto it = m_rows.constFind(upstream);
    return it == m_rows.constEnd() ? QString() : upstream + u": "_s + it->status->text();
}
