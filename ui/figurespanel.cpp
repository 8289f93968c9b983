#include "figurespanel.h"

#include <algorithm>

#include <QDateTime>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "dashboardmodel.h"
#include "dashboardstyle.h"
#include "fittedlabel.h"

using namespace Qt::StringLiterals;

namespace {
constexpr int kBreakersInline = 2;   // what fits beside the figures at 1366 px
constexpr int kTileMargin = 7;
constexpr int kTileTopMargin = 4;   // and bottom
constexpr int kShortTileTopMargin = 1;
constexpr int kRowGap = 6;
constexpr int kShortRowGap = 2;

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

// At most five characters, so a count never outgrows the room its tile keeps: 99999, then 123k,
// then 1.2M (the exact count is in the tile's tool tip).
QString shortCount(qint64 n)
{
    if (n < 100'000)
        return QString::number(n);
    if (n < 1'000'000)
        return u"%1k"_s.arg(n / 1000);
    return u"%1M"_s.arg(double(n) / 1e6, 0, 'f', n < 10'000'000 ? 1 : 0);
}

// The widest value each kind of tile keeps room for: the tiles do not move as figures change.
const QString kCountRoom = u"00000"_s;
const QString kMoneyRoom = u"<$0.0001"_s;
const QString kDurationRoom = u"0 min 00 s"_s;
const QString kBreakerRoom = u"half-open"_s;
}

FiguresPanel::FiguresPanel(QWidget *parent)
    : QWidget(parent)
{
    // One row of tiles (two when they do not fit: wrapTo), the history line under it.
    auto *column = new QVBoxLayout(this);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(kRowGap);
    for (QHBoxLayout *&row : m_rows) {
        row = new QHBoxLayout;
        row->setSpacing(4);
        row->addStretch();   // the tiles keep their widths, at the left; each goes in before it
        column->addLayout(row);
    }
    // Fixed tiles first, in the order a reader asks the questions: how much, how much reached the
    // provider, how much was saved, what is happening now.
    tile(u"requests"_s, tr("requests"), tr("Client requests answered"), kCountRoom);
    tile(u"upstream"_s, tr("upstream calls"), tr("Calls that reached a provider (misses and bypasses, not the ones a fault rule answered instead): what is billed"), kCountRoom);
    tile(u"joined"_s, tr("joined"), tr("Requests that rode along on an identical call in flight"), kCountRoom);
    tile(u"hits"_s, tr("cache hits"), tr("Requests answered from the answer cache"), kCountRoom);
    tile(u"refused"_s, tr("refused"),
         tr("Refused without an upstream call: open breaker, spend limit, full queue or bad input"), kCountRoom);
    tile(u"failed"_s, tr("failed"), m_failedHelp, kCountRoom, tr("failed: 503 +00"));
    tile(u"spent"_s, tr("cost spent"), tr("Cost of the upstream calls made"), kMoneyRoom);
    tile(u"saved"_s, tr("cost saved"), tr("Cost of the calls that joined or cache hits did not make"), kMoneyRoom);
    tile(u"inflight"_s, tr("in flight"), tr("Upstream calls running now"), kCountRoom);
    tile(u"oldest"_s, tr("oldest in flight"), tr("How long the oldest request not yet answered has waited"), kDurationRoom);
    tile(u"queued"_s, tr("queued"), tr("Upstream calls waiting for a free pool slot"), kCountRoom);
    for (const QString &key : m_tiles.keys())
        setValue(key, u"0"_s);
    setValue(u"oldest"_s, u"–"_s);
    m_history = new QLabel(this);
    m_history->setForegroundRole(QPalette::PlaceholderText);
    m_history->hide();
    column->addWidget(m_history);
}

void FiguresPanel::refresh(const DashboardModel &model, qint64 nowMs)
{
    const DashboardModel::Totals &totals = model.totals();
    using Category = DashboardModel::Category;
    setValue(u"requests"_s, shortCount(totals.requests));
    setValue(u"upstream"_s, shortCount(totals.upstreamCalls()));
    setValue(u"joined"_s, shortCount(totals.count(Category::Joined)));
    setValue(u"hits"_s, shortCount(totals.count(Category::Hit)));
    setValue(u"refused"_s, shortCount(totals.count(Category::Refused)));
    setValue(u"failed"_s, shortCount(totals.failures()));
    // The caption stays short, so the tiles fit a laptop's width: one kind is named (the figure is
    // its count), several by the most frequent and how many more; the tooltip has them all.
    const QList<std::pair<qint64, QString>> kinds = failureKinds(totals);
    Tile &failed = m_tiles[u"failed"_s];
    // Shorter forms when the tile's width does not hold the longest (FittedLabel), never cut.
    QStringList failedCaption{tr("failed")};
    if (kinds.size() == 1) {
        failedCaption = QStringList{tr("failed: %1").arg(kinds.first().second), tr("failed")};
    } else if (kinds.size() > 1) {
        // "+5 other" counts failures, not kinds: "+1 more" for five 503s read as one more failure.
        const qint64 others = totals.failures() - kinds.first().first;
        failedCaption = QStringList{tr("failed: %1 +%2 other").arg(countedKind(kinds.first())).arg(others),
                                    tr("failed: %1 +%2").arg(kinds.first().second).arg(others), tr("failed")};
    }
    QStringList all;
    for (const auto &kind : kinds)
        all.append(countedKind(kind));
    const QString failedTip = all.isEmpty() ? m_failedHelp : m_failedHelp + u"\n"_s + all.join(u", "_s);
    if (failed.frame->toolTip() != failedTip)
        failed.frame->setToolTip(failedTip);
    if (failed.caption->wholeText() != failedCaption.first()) {
        failed.caption->setParts({{failedCaption, 0}}, {});
        failed.value->setStyleSheet(totals.failures() > 0
            ? u"color: %1;"_s.arg(dashboardstyle::outcomeColor(Category::Failed).darker(130).name()) : QString());
    }
    const bool priced = totals.pricedCalls > 0 || totals.costSavedUsd > 0;
    setValue(u"spent"_s, dashboardstyle::formatUsd(totals.costSpentUsd, priced));
    setValue(u"saved"_s, dashboardstyle::formatUsd(totals.costSavedUsd, priced));
    setValue(u"inflight"_s, QString::number(model.inFlight()));
    setValue(u"queued"_s, QString::number(model.queued()));
    // The demo's second proxy (the bursts at concurrency 1 and 4) counts too, and says so.
    setCaption(u"inflight"_s, model.sideInFlight() > 0
                                  ? QStringList{tr("in flight, %1 on 2nd proxy").arg(model.sideInFlight()),
                                                tr("in flight +%1").arg(model.sideInFlight())}
                                  : QStringList{tr("in flight")});
    setCaption(u"queued"_s, model.sideQueued() > 0 ? QStringList{tr("queued, %1 on 2nd proxy").arg(model.sideQueued()),
                                                                 tr("queued +%1").arg(model.sideQueued())}
                                                   : QStringList{tr("queued")});
    const qint64 oldest = model.oldestFlightStartMs();
    const qint64 now = nowMs > 0 ? nowMs : model.latestEventMs();
    setValue(u"oldest"_s, oldest > 0 ? dashboardstyle::formatDuration(std::max<qint64>(now - oldest, 0)) : u"–"_s);

    const DashboardModel::History &history = model.history();
    const auto hhmm = [](qint64 ms) { return QDateTime::fromMSecsSinceEpoch(ms).toString(u"HH:mm"_s); };
    const QString historyLine = history.calls == 0 ? QString()
        : tr("history from %1 to %2 (%3 calls from the call log, counted above)")
              .arg(hhmm(history.fromMs), hhmm(history.toMs)).arg(history.calls);
    if (m_history->text() != historyLine) {
        m_history->setText(historyLine);
        m_history->setVisible(!historyLine.isEmpty());
    }

    refreshBreakers(model);
}

void FiguresPanel::refreshBreakers(const DashboardModel &model)
{
    const QStringList upstreams = model.upstreams();
    for (const QString &upstream : upstreams) {
        Tile &breaker = tile(u"breaker:"_s + upstream, tr("%1 breaker").arg(upstream),
                             tr("State of the %1 upstream's circuit breaker").arg(upstream), kBreakerRoom);
        showState(breaker, model.breakerState(upstream), dashboardstyle::breakerLabel(model.breakerState(upstream)));
    }
    if (upstreams.size() <= kBreakersInline)
        return;
    // Past what fits beside the figures at 1366 px (a third upstream's tile pushed the strip
    // sideways), one tile says how many breakers are not closed, coloured by the worst; the
    // upstream strip above names each one's state, and the tool tip lists them.
    Tile &summary = tile(u"breakers"_s, tr("breakers"), tr("The upstreams' circuit breakers"), u"0 half-open"_s,
                         u"openai, anthropic"_s);
    BreakerState worst = BreakerState::Closed;
    QStringList notClosed;
    QStringList each;
    for (const QString &upstream : upstreams) {
        const BreakerState state = model.breakerState(upstream);
        each.append(tr("%1: %2").arg(upstream, dashboardstyle::breakerLabel(state)));
        if (state == BreakerState::Closed)
            continue;
        notClosed.append(upstream);
        if (state == BreakerState::Open || worst == BreakerState::Closed)
            worst = state;
    }
    qsizetype ofWorst = 0;
    for (const QString &upstream : upstreams)
        ofWorst += model.breakerState(upstream) == worst;
    showState(summary, worst, worst == BreakerState::Closed ? tr("all closed")
                                                            : tr("%1 %2").arg(ofWorst).arg(dashboardstyle::breakerLabel(worst)));
    const QString caption = notClosed.isEmpty() ? dashboardstyle::countOf(upstreams.size(), tr("breaker"), tr("breakers"))
                                                : notClosed.join(u", "_s);
    if (summary.caption->wholeText() != caption)
        summary.caption->setWholeText(caption);
    summary.frame->setToolTip(each.join(u'\n'));
    for (const QString &upstream : upstreams)
        m_tiles[u"breaker:"_s + upstream].frame->hide();   // a no-op once hidden
}

void FiguresPanel::showState(Tile &tile, BreakerState state, const QString &label)
{
    if (tile.value->text() == label && tile.frame->property("state").toInt() == int(state))
        return;
    tile.value->setText(label);
    tile.frame->setProperty("state", int(state));
    tile.frame->setStyleSheet(u"QFrame#tile { background: %1; border-radius: 6px; }"
                              " QLabel { color: white; }"_s.arg(dashboardstyle::breakerColor(state).name()));
}

QString FiguresPanel::figure(const QString &key) const
{
    const auto it = m_tiles.constFind(key);
    return it == m_tiles.constEnd() ? QString() : it->value->text();
}

QString FiguresPanel::caption(const QString &key) const
{
    const auto it = m_tiles.constFind(key);
    return it == m_tiles.constEnd() ? QString() : it->caption->wholeText();
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

FiguresPanel::Tile &FiguresPanel::tile(const QString &key, const QString &caption, const QString &help,
                                       const QString &valueRoom, const QString &captionRoom)
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
    frame->setAccessibleName(caption);
    frame->setAccessibleDescription(help);
    auto *layout = new QVBoxLayout(frame);
    layout->setSpacing(0);
    created.frame = frame;
    created.value = new QLabel(frame);
    QFont big = created.value->font();
    big.setPointSizeF(big.pointSizeF() * 1.4);
    big.setBold(true);
    created.value->setFont(big);
    created.caption = new FittedLabel(frame);
    created.caption->setWholeText(caption);
    layout->addWidget(created.value);
    layout->addWidget(created.caption);
    shape(created);
    // A fixed width, from the widest value and caption it keeps room for: a figure that grows, a
    // longer failure caption or "in flight, 3 on 2nd proxy" no longer moves the tiles after it
    // (the anthropic breaker's tile was pushed off the strip).
    const int room = std::max({QFontMetrics(big).horizontalAdvance(valueRoom),
                               created.caption->fontMetrics().horizontalAdvance(caption),
                               created.caption->fontMetrics().horizontalAdvance(captionRoom)});
    frame->setFixedWidth(room + 2 * kTileMargin + 2);   // the border
    // Shown now, not when the layout gets to it: a row holding only new tiles counts at once.
    frame->show();
    m_order.append(frame);
    m_split = int(m_order.size());   // a new tile joins the first row until the next wrapTo
    place();
    return *m_tiles.insert(key, created);
}

void FiguresPanel::setShort(bool shortTiles)
{
    if (shortTiles == m_short)
        return;
    m_short = shortTiles;
    for (const Tile &tile : std::as_const(m_tiles))
        shape(tile);
    layout()->setSpacing(m_short ? kShortRowGap : kRowGap);
    layout()->invalidate();   // the panel's size hint at once, for the strip around it
}

void FiguresPanel::shape(const Tile &tile) const
{
    const int margin = m_short ? kShortTileTopMargin : kTileTopMargin;
    tile.frame->layout()->setContentsMargins(kTileMargin, margin, kTileMargin, margin);
    for (QLabel *label : {tile.value, static_cast<QLabel *>(tile.caption)})
        label->setMaximumHeight(m_short ? label->fontMetrics().height() : QWIDGETSIZE_MAX);
    tile.frame->layout()->invalidate();
}

void FiguresPanel::wrapTo(int width)
{
    const int spacing = m_rows[0]->spacing();
    int used = 0;
    int split = int(m_order.size());
    for (int i = 0; i < int(m_order.size()); ++i) {
        if (m_order[i]->isHidden())
            continue;   // a breaker tile the summary stands in for
        used += (used > 0 ? spacing : 0) + m_order[i]->minimumWidth();   // its fixed width
        if (used > width && i > 0) {
            split = i;
            break;
        }
    }
    if (split == m_split)
        return;
    m_split = split;
    place();
}

void FiguresPanel::place()
{
    for (int i = 0; i < int(m_order.size()); ++i) {
        QHBoxLayout *row = m_rows[i < m_split ? 0 : 1];
        QWidget *frame = m_order[i];
        if (row->indexOf(frame) >= 0)
            continue;
        m_rows[i < m_split ? 1 : 0]->removeWidget(frame);
        // After the tiles before it in this row, before the stretch.
        int at = 0;
        for (int j = (i < m_split ? 0 : m_split); j < i; ++j)
            at += row->indexOf(m_order[j]) >= 0;
        row->insertWidget(at, frame);
    }
    layout()->invalidate();   // the panel's size hint says two rows (or one) at once, not next turn
}

void FiguresPanel::setValue(const QString &key, const QString &value)
{
    Tile &target = m_tiles[key];
    if (target.value && target.value->text() != value)   // setText repaints: skip when unchanged
        target.value->setText(value);
}

void FiguresPanel::setCaption(const QString &key, const QStringList &forms)
{
    Tile &target = m_tiles[key];
    if (target.caption && target.caption->wholeText() != forms.first())
        target.caption->setParts({{forms, 0}}, {});
}
