#pragma once

#include <QHash>
#include <QStringList>
#include <QWidget>

#include "upstream/circuitbreaker.h"   // BreakerState

class DashboardModel;
class FittedLabel;
class QHBoxLayout;
class QLabel;

// The row of headline figures at the top of the window: requests, upstream calls, joined, cache
// hits, refused, failed (its caption broken down by kind), cost spent and saved, in flight, the
// oldest call in flight, queued, and one tile per upstream's breaker; under them, when the call
// log's history is shown, the time it spans.
// Each tile is addressed by a short key ("requests", "breaker:openai") so tests can read it.
class FiguresPanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FiguresPanel)
public:
    explicit FiguresPanel(QWidget *parent = nullptr);

    // `nowMs`: the clock the oldest call in flight is aged by (0: the model's latest event).
    void refresh(const DashboardModel &model, qint64 nowMs = 0);
    QString figure(const QString &key) const;   // the value shown, empty if no such tile
    QString caption(const QString &key) const;   // the whole caption (the tile shows what fits)
    QString toolTip(const QString &key) const;
    QString historyText() const;   // "history from 10:02 to 10:15 (407 calls)", or empty
    // Puts the tiles that do not fit `width` side by side on a second row (a small or scaled
    // screen), in their order; one row when they fit.
    void wrapTo(int width);
    int rows() const { return m_split < int(m_order.size()) ? 2 : 1; }
    // Short tiles (a laptop at 125 % whose texts need taller lines than the font's, as a CJK
    // translation's do): a value and a caption as tall as their fonts' own lines, which the
    // glyphs fit centred, and thinner margins.
    void setShort(bool shortTiles);

private:
    struct Tile
    {
        QWidget *frame = nullptr;
        QLabel *value = nullptr;
        FittedLabel *caption = nullptr;
    };
    // `valueRoom` and `captionRoom`: the widest value and caption the tile keeps room for.
    Tile &tile(const QString &key, const QString &caption, const QString &help, const QString &valueRoom,
               const QString &captionRoom = {});
    void setValue(const QString &key, const QString &value);
    void setCaption(const QString &key, const QStringList &forms);   // longest first
    // A tile per upstream's breaker; past kBreakersInline upstreams, one summary tile instead.
    void refreshBreakers(const DashboardModel &model);
    void showState(Tile &tile, BreakerState state, const QString &label);   // its value and colour

    void place();   // each tile in its row, by m_split
    void shape(const Tile &tile) const;   // its margins and line heights, by m_short

    QHBoxLayout *m_rows[2] = {};        // the tiles, in order: the first m_split, then the rest
    QList<QWidget *> m_order;           // every tile's frame, in order
    int m_split = 0;                    // how many tiles the first row holds
    bool m_short = false;
    QLabel *m_history = nullptr;
    const QString m_failedHelp = tr("Served, but did not end well: upstream errors by status, timeouts, unreachable, cut streams, ...");
    QHash<QString, Tile> m_tiles;
};
