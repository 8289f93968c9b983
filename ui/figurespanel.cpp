#include "figurespanel.h"

#include <algorithm>

#include <QDateTime>
#include <QFrame>
#include <QGridLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "dashboardmodel.h"
#include "dashboardstyle.h"

using namespace Qt::StringLiterals;

namespace {
constexpr int kTilesPerRow = 14;

// The failures by kind ("503", "timeout"; upstream errors by status), most frequent first.
QList<std::pair<qint64, QString>> failureKinds(const DashboardModel::Totals &totals)
{
    QList<std::pair<qint64, QString>> kinds;
    for (auto it = totals.upstreamErrorStatuses.cbegin(); it != totals.upstreamErrorStatuses.cend(); ++it)
        kinds.append({it.value(), QString::number(it.key())});
    for (const Ending ending : dashboardstyle::failureEndings()) {
        if (ending != Ending::UpstreamError && totals.count(ending) > 0)
            kinds.append({totals.count(ending), dashboardstyle::failureLabel(ending)});
    }
    std::stable_sort(kinds.begin(), kinds.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    return kinds;
}

QString countedKind(const std::pair<qint64, QString> &kind)
{
    return u"%1 ×%2"_s.arg(kind.second).arg(kind.first);
}
}

FiguresPanel::FiguresPanel(QWidget *parent)
    : QWidget(parent)
{
    m_layout = new QGridLayout(this);
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setHorizontalSpacing(6);
    m_layout->setVerticalSpacing(6);
    // Fixed tiles first, in the order a reader asks the questions: how much, how much reached the
    // provider, how much was saved, what is happening now.
    tile(u"requests"_s, u"requests"_s, u"Client requests answered"_s);
    tile(u"upstream"_s, u"upstream calls"_s, u"Calls that reached a provider (misses + bypasses): what is billed"_s);
    tile(u"joined"_s, u"joined"_s, u"Requests that rode along on an identical call in flight"_s);
    tile(u"hits"_s, u"cache hits"_s, u"Requests answered from the answer cache"_s);
    tile(u"refused"_s, u"refused"_s,
         u"Refused without an upstream call: open breaker, spend limit, full queue or bad input"_s);
    tile(u"failed"_s, u"failed"_s, m_failedHelp);
    tile(u"spent"_s, u"cost spent"_s, u"Cost of the upstream calls made"_s);
    tile(u"saved"_s, u"cost saved"_s, u"Cost of the calls that joined or cache hits did not make"_s);
    tile(u"inflight"_s, u"in flight"_s, u"Upstream calls running now"_s);
    tile(u"oldest"_s, u"oldest in flight"_s, u"How long the oldest request not yet answered has waited"_s);
    tile(u"queued"_s, u"queued"_s, u"Upstream calls waiting for a free pool slot"_s);
    for (const QString &key : m_tiles.keys())
        setValue(key, u"0"_s);
    setValue(u"oldest"_s, u"–"_s);
    m_history = new QLabel(this);
    m_history->setForegroundRole(QPalette::PlaceholderText);
    m_history->hide();
    m_layout->addWidget(m_history, 2, 0, 1, kTilesPerRow);
}

void FiguresPanel::refresh(const DashboardModel &model, qint64 nowMs)
{
    const DashboardModel::Totals &totals = model.totals();
    using Category = DashboardModel::Category;
    setValue(u"requests"_s, QString::number(totals.requests));
    setValue(u"upstream"_s, QString::number(totals.upstreamCalls()));
    setValue(u"joined"_s, QString::number(totals.count(Category::Joined)));
    setValue(u"hits"_s, QString::number(totals.count(Category::Hit)));
    setValue(u"refused"_s, QString::number(totals.count(Category::Refused)));
    setValue(u"failed"_s, QString::number(totals.failures()));
    // The caption stays short, so the tiles fit a laptop's width: one kind is named (the figure is
    // its count), several by the most frequent and how many more; the tooltip has them all.
    const QList<std::pair<qint64, QString>> kinds = failureKinds(totals);
    Tile &failed = m_tiles[u"failed"_s];
    QString failedCaption = u"failed"_s;
    if (kinds.size() == 1)
        failedCaption = u"failed: "_s + kinds.first().second;
    else if (kinds.size() > 1)
        // "+5 other" counts failures, not kinds: "+1 more" for five 503s read as one more failure.
        failedCaption = u"failed: %1 +%2 other"_s.arg(countedKind(kinds.first())).arg(totals.failures() - kinds.first().first);
    QStringList all;
    for (const auto &kind : kinds)
        all.append(countedKind(kind));
    const QString failedTip = all.isEmpty() ? m_failedHelp : m_failedHelp + u"\n"_s + all.join(u", "_s);
    if (failed.frame->toolTip() != failedTip)
        failed.frame->setToolTip(failedTip);
    if (failed.caption->text() != failedCaption) {
        failed.caption->setText(failedCaption);
        failed.value->setStyleSheet(totals.failures() > 0
            ? u"color: %1;"_s.arg(dashboardstyle::outcomeColor(Category::Failed).darker(130).name()) : QString());
    }
    const bool priced = totals.pricedCalls > 0 || totals.costSavedUsd > 0;
    setValue(u"spent"_s, dashboardstyle::formatUsd(totals.costSpentUsd, priced));
    setValue(u"saved"_s, dashboardstyle::formatUsd(totals.costSavedUsd, priced));
    setValue(u"inflight"_s, QString::number(model.inFlight()));
    setValue(u"queued"_s, QString::number(model.queued()));
    // The demo's second proxy (the bursts at concurrency 1 and 4) counts too, and says so.
    setCaption(u"inflight"_s, model.sideInFlight() > 0 ? u"in flight, %1 on 2nd proxy"_s.arg(model.sideInFlight())
                                                       : u"in flight"_s);
    setCaption(u"queued"_s, model.sideQueued() > 0 ? u"queued, %1 on 2nd proxy"_s.arg(model.sideQueued()) : u"queued"_s);
    const qint64 oldest = model.oldestFlightStartMs();
    const qint64 now = nowMs > 0 ? nowMs : model.latestEventMs();
    setValue(u"oldest"_s, oldest > 0 ? dashboardstyle::formatDuration(std::max<qint64>(now - oldest, 0)) : u"–"_s);

    const DashboardModel::History &history = model.history();
    const auto hhmm = [](qint64 ms) { return QDateTime::fromMSecsSinceEpoch(ms).toString(u"HH:mm"_s); };
    const QString historyLine = history.calls == 0 ? QString()
        : u"history from %1 to %2 (%3 calls from the call log, counted above)"_s
              .arg(hhmm(history.fromMs), hhmm(history.toMs)).arg(history.calls);
    if (m_history->text() != historyLine) {
        m_history->setText(historyLine);
        m_history->setVisible(!historyLine.isEmpty());
    }

    for (const QString &upstream : model.upstreams()) {
        const QString key = u"breaker:"_s + upstream;
        Tile &breaker = tile(key, upstream + u" breaker"_s,
                             u"State of the %1 upstream's circuit breaker"_s.arg(upstream));
        const BreakerState state = model.breakerState(upstream);
        const QString label = dashboardstyle::breakerLabel(state);
        if (breaker.value->text() != label) {
            breaker.value->setText(label);
            const QColor colour = dashboardstyle::breakerColor(state);
            breaker.frame->setStyleSheet(u"QFrame#tile { background: %1; border-radius: 6px; }"
                                         " QLabel { color: white; }"_s.arg(colour.name()));
        }
    }
}

QString FiguresPanel::figure(const QString &key) const
{
    const auto it = m_tiles.constFind(key);
    return it == m_tiles.constEnd() ? QString() : it->value->text();
}

QString FiguresPanel::caption(const QString &key) const
{
    const auto it = m_tiles.constFind(key);
    return it == m_tiles.constEnd() ? QString() : it->caption->text();
}

QString FiguresPanel::toolTip(const QString &key) const
{
    const auto it = m_tiles.constFind(key);
    return it == m_tiles.constEnd() ? QString() : it->frame->toolTip();
}

QString FiguresPanel::historyText() const
{
    return m_history->text();
}

FiguresPanel::Tile &FiguresPanel::tile(const QString &key, const QString &caption, const QString &help)
{
    auto it = m_tiles.find(key);
    if (it != m_tiles.end())
        return *it;
    Tile created;
    auto *frame = new QFrame(this);
    frame->setObjectName(u"tile"_s);
    frame->setStyleSheet(u"QFrame#tile { background: palette(base); border: 1px solid palette(mid);"
                         " border-radius: 6px; }"_s);
    frame->setToolTip(help);
    auto *layout = new QVBoxLayout(frame);
    layout->setContentsMargins(10, 4, 10, 4);
    layout->setSpacing(0);
    created.frame = frame;
    created.value = new QLabel(frame);
    QFont big = created.value->font();
    big.setPointSizeF(big.pointSizeF() * 1.5);
    big.setBold(true);
    created.value->setFont(big);
    created.caption = new QLabel(caption, frame);
    layout->addWidget(created.value);
    layout->addWidget(created.caption);
    m_layout->addWidget(frame, m_nextColumn / kTilesPerRow, m_nextColumn % kTilesPerRow);
    ++m_nextColumn;
    return *m_tiles.insert(key, created);
}

void FiguresPanel::setValue(const QString &key, const QString &value)
{
    Tile &target = m_tiles[key];
    if (target.value && target.value->text() != value)   // setText repaints: skip when unchanged
        target.value->setText(value);
}

void FiguresPanel::setCaption(const QString &key, const QString &caption)
{
    Tile &target = m_tiles[key];
    if (target.caption && target.caption->text() != caption)
        target.caption->setText(caption);
}
