#include "dashboardfixture.h"

#include <QAbstractAxis>
#include <QAbstractScrollArea>
#include <QAbstractButton>
#include <QApplication>
#include <QChartView>
#include <QEvent>
#include <QFile>
#include <QFontMetrics>
#include <QGraphicsTextItem>
#include <QLabel>
#include <QMessageBox>
#include <QRegularExpression>
#include <QScrollBar>
#include <QTextDocument>
#include <QTemporaryDir>
#include <QTimer>
#include <QWidget>

#include "dashboardmodel.h"
#include "latencystaircase.h"

using namespace Qt::StringLiterals;

namespace dashboardtest {

CallRecord record(const QByteArray &id, Outcome outcome, qint64 receivedAt, qint64 endAt, int status)
{
    CallRecord r;
    r.requestId = id;
    r.route = "/v1/chat/completions";
    r.upstream = "openai";
    r.model = u"gpt-4o-mini"_s;
    r.keyFingerprint = "a1b2c3d4e5f6";
    r.credentialFingerprint = "0f1e2d3c4b5a";
    r.outcome = outcome;
    r.status = status;
    r.breakerState = "closed";
    r.receivedAtMs = receivedAt;
    r.endAtMs = endAt;
    if (outcome == Outcome::Miss || outcome == Outcome::Bypass) {
        r.upstreamStartAtMs = receivedAt + 2;
        r.firstByteAtMs = endAt - 10;
        r.costUsd = 0.002;
        r.inputTokens = 12;
        r.outputTokens = 30;
    } else if (outcome == Outcome::Joined || outcome == Outcome::Hit) {
        r.costSavedUsd = 0.002;
    }
    return r;
}

BreakerTransition transition(qint64 at, BreakerState from, BreakerState to, const QString &reason)
{
    return {u"openai"_s, at, from, to, reason};
}

ProxySnapshot snapshot(qint64 at, BreakerState openaiState, int running, int queued)
{
    ProxySnapshot s;
    s.atMs = at;
    s.upstreams = {{"openai", openaiState, running, queued, 64}, {"anthropic", BreakerState::Closed, 0, 0, 64}};
    // The proxy lists every flight too, oldest first: the running ones, then the queue.
    for (int i = 0; i < running + queued; ++i) {
        InFlight flight;
        flight.requestId = "flight-" + QByteArray::number(i);
        flight.upstream = "openai";
        flight.startedAtMs = at - 1000 + i;
        flight.state = i < running ? InFlight::State::Waiting : InFlight::State::Queued;
        flight.queuePosition = i < running ? 0 : i - running + 1;
        s.flights.append(flight);
    }
    return s;
}

FleetView fleet(int instances)
{
    FleetView view;
    view.enabled = true;
    view.shared = true;
    for (int i = 0; i < instances; ++i) {
        FleetInstance instance;
        instance.id = QByteArray::number(4100 + i) + "-9f3c2a";
        instance.label = u"dev-laptop-%1:%2"_s.arg(i + 1).arg(41435 + i);
        instance.calls = i + 3;
        instance.misses = i + 1;
        instance.joined = 4;
        instance.hits = 3 * i;
        instance.requests = instance.misses + instance.joined + instance.hits;
        instance.lastSeenMs = T;
        instance.ageMs = i == 0 ? 0 : 200 * i;
        instance.self = i == 0;
        view.instances.append(instance);
    }
    return view;
}

Recording recording()
{
    Recording rec;
    rec.records.append(record("herd-0", Outcome::Miss, T + 1000, T + 2500));
    for (int i = 1; i < 10; ++i)
        rec.records.append(record("herd-" + QByteArray::number(i), Outcome::Joined, T + 1000 + i * 5, T + 2502));
    for (int i = 0; i < 3; ++i)
        rec.records.append(record("hit-" + QByteArray::number(i), Outcome::Hit, T + 3000 + i * 100, T + 3001 + i * 100));
    rec.records.append(record("bypass-0", Outcome::Bypass, T + 4000, T + 4400));
    for (int i = 0; i < 5; ++i)
        rec.records.append(record("fail-" + QByteArray::number(i), Outcome::Miss, T + 6000 + i * 800, T + 6400 + i * 800, 503));
    rec.transitions.append(transition(T + 9600, BreakerState::Closed, BreakerState::Open,
                                      u"5 consecutive failures (last: 503)"_s));
    for (int i = 0; i < 4; ++i)
        rec.records.append(record("refused-" + QByteArray::number(i), Outcome::BreakerRefused, T + 11000 + i * 2000,
                                  T + 11001 + i * 2000, 503));
    rec.transitions.append(transition(T + 20000, BreakerState::Open, BreakerState::HalfOpen, u"probe succeeded"_s));
    rec.transitions.append(transition(T + 21000, BreakerState::HalfOpen, BreakerState::Closed, u"trial succeeded"_s));
    rec.records.append(record("after-0", Outcome::Miss, T + 20500, T + 21000));
    return rec;
}

void feed(DashboardModel &model, const Recording &rec)
{
    model.setSnapshot(snapshot(T, BreakerState::Closed, 0, 0));
    // Interleave as the proxy would publish them: in order of time.
    qsizetype t = 0;
    for (const CallRecord &r : rec.records) {
        while (t < rec.transitions.size() && rec.transitions[t].atMs <= r.endAtMs)
            model.addTransition(rec.transitions[t++]);
        model.addRecord(r);
    }
    while (t < rec.transitions.size())
        model.addTransition(rec.transitions[t++]);
    model.setSnapshot(snapshot(T + 25000, BreakerState::Closed, 3, 2));
}

bool containsColour(const QImage &image, const QColor &colour, int tolerance)
{
    const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
    for (int y = 0; y < rgb.height(); ++y) {
        const auto *line = reinterpret_cast<const QRgb *>(rgb.constScanLine(y));
        for (int x = 0; x < rgb.width(); ++x) {
            if (std::abs(qRed(line[x]) - colour.red()) <= tolerance && std::abs(qGreen(line[x]) - colour.green()) <= tolerance
                && std::abs(qBlue(line[x]) - colour.blue()) <= tolerance)
                return true;
        }
    }
    return false;
}

bool singleColour(const QImage &image)
{
    const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
    const QRgb first = rgb.pixel(0, 0);
    for (int y = 0; y < rgb.height(); ++y) {
        for (int x = 0; x < rgb.width(); ++x) {
            if (rgb.pixel(x, y) != first)
                return false;
        }
    }
    return true;
}

PaintCounter::PaintCounter(QList<QWidget *> widgets)
{
    for (QWidget *widget : widgets)
        widget->installEventFilter(this);
}

bool PaintCounter::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::Paint)
        ++paints;
    return QObject::eventFilter(watched, event);
}

bool wholeInWindow(const QWidget *widget)
{
    if (!widget || !widget->isVisible())
        return false;
    if (const auto *view = qobject_cast<const QAbstractScrollArea *>(widget))
        widget = view->viewport();   // a chart view is covered by its viewport, which paints
    const QRect inWindow(widget->mapTo(widget->window(), QPoint(0, 0)), widget->size());
    return widget->window()->rect().contains(inWindow) && widget->visibleRegion().boundingRect() == widget->rect();
}

void answerMessageBox(const QString &answer)
{
    auto *poll = new QTimer;
    QObject::connect(poll, &QTimer::timeout, poll, [poll, answer] {
        auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
        if (!box)
            return;
        for (QAbstractButton *button : box->buttons()) {
            if (button->text() == answer)
                button->click();
        }
        poll->deleteLater();
    });
    poll->start(10);
}

void useLaptopScreen()
{
    // The config file is read when the platform starts (in QApplication's constructor): it lives
    // as long as the test.
    static QTemporaryDir configDir;
    if (qgetenv("QT_QPA_PLATFORM") == "offscreen") {
        QFile config(configDir.filePath(u"screens.json"_s));
        if (config.open(QIODevice::WriteOnly)) {
            config.write(R"({"screens": [{"name": "laptop", "x": 0, "y": 0, "width": 1366, "height": 768,
                             "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})");
            config.close();
            qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + config.fileName().toLocal8Bit());
        }
    }
}

QStringList cutChartTexts(QWidget *root)
{
    QStringList cut;
    // What a chart draws in its own scene (axis titles, tick labels), which QtCharts elides with "…"
    // where it has no room: a title must be whole.
    for (QChartView *view : root->findChildren<QChartView *>()) {
        if (!view->isVisible())
            continue;
        for (QGraphicsItem *item : view->scene()->items()) {
            auto *text = dynamic_cast<QGraphicsTextItem *>(item);
            // QtCharts' own elision (ChartPresenter::truncatedText) ends with three periods.
            if (text && text->isVisible() && (text->toPlainText().contains(u'…') || text->toPlainText().endsWith(u"..."_s)))
                cut << u"\"%1\" in a chart"_s.arg(text->toPlainText());
        }
        for (QAbstractAxis *axis : view->chart()->axes()) {
            if (axis->isVisible() && axis->isTitleVisible() && !axis->titleText().isEmpty()) {
                bool whole = false;
                for (QGraphicsItem *item : view->scene()->items()) {
                    auto *text = dynamic_cast<QGraphicsTextItem *>(item);
                    whole = whole || (text && text->isVisible() && text->toPlainText() == axis->titleText());
                }
                if (!whole)
                    cut << u"axis title \"%1\" not drawn whole"_s.arg(axis->titleText());
            }
        }
    }
    return cut;
}

QStringList cutTexts(QWidget *root)
{
    QStringList cut;
    for (QLabel *label : root->findChildren<QLabel *>()) {
        if (!label->isVisible() || label->wordWrap() || label->text().isEmpty())
            continue;
        QString text = label->text();
        if (label->textFormat() == Qt::RichText || (label->textFormat() == Qt::AutoText && Qt::mightBeRichText(text))) {
            QTextDocument document;
            document.setHtml(text);
            text = document.toPlainText();
        }
        const int room = label->contentsRect().width() - 2 * label->margin();
        // Bold parts of rich text are measured a little wider than they are; the plain ones exactly.
        int needed = 0;   // its widest line
        for (const QString &line : text.split(QRegularExpression(u"[\\n\\x{2028}]"_s)))
            needed = std::max(needed, QFontMetrics(label->font()).horizontalAdvance(line));
        if (needed > room + (label->textFormat() == Qt::PlainText ? 0 : 4))
            cut << u"\"%1\" needs %2 px, has %3"_s.arg(text).arg(needed).arg(room);
    }
    for (QAbstractScrollArea *area : root->findChildren<QAbstractScrollArea *>()) {
        if (area->isVisible() && area->horizontalScrollBar()->isVisible())
            cut << u"%1 (%2) scrolls sideways: %3 px of content in %4"_s
                       .arg(QString::fromLatin1(area->metaObject()->className()), area->objectName())
                       .arg(area->horizontalScrollBar()->maximum() + area->viewport()->width())
                       .arg(area->viewport()->width());
    }
    cut << cutChartTexts(root);
    cut << cutStaircaseTexts(root);
    return cut;
}

QStringList cutStaircaseTexts(QWidget *root)
{
    QStringList cut;
    // The staircase paints its own legend and side caption: each entry inside what of the widget
    // is shown (not under a frame's or the scroll area's edge), the caption inside its room.
    for (LatencyStaircase *staircase : root->findChildren<LatencyStaircase *>()) {
        if (!staircase->isVisible())
            continue;
        const QFontMetrics metrics(staircase->font());
        const QRect shown = staircase->visibleRegion().boundingRect();
        const QStringList labels = staircase->legendLabels();
        const QList<QRect> rects = staircase->legendRects();
        for (qsizetype i = 0; i < labels.size(); ++i) {
            if (rects[i].width() < metrics.horizontalAdvance(labels[i]) || !shown.contains(rects[i]))
                cut << u"staircase legend \"%1\" at %2..%3, shown %4..%5"_s.arg(labels[i])
                           .arg(rects[i].left()).arg(rects[i].right()).arg(shown.left()).arg(shown.right());
        }
        const QRect room = staircase->sideCaptionRoom();
        const QRect needed = metrics.boundingRect(QRect(QPoint(), room.size()), Qt::AlignCenter | Qt::TextWordWrap,
                                                  staircase->sideCaption());
        if (needed.width() > room.width() || needed.height() > room.height())
            cut << u"staircase caption \"%1\" needs %2x%3, has %4x%5"_s.arg(staircase->sideCaption())
                       .arg(needed.width()).arg(needed.height()).arg(room.width()).arg(room.height());
    }
    return cut;
}


} // namespace dashboardtest
