#pragma once

#include <QHash>
#include <QWidget>

class DashboardModel;
class QGridLayout;
class QLabel;

// The row of headline figures at the top of the window: requests, upstream calls, joined, cache
// hits, refused, cost spent and saved, in flight, queued, and one tile per upstream's breaker.
// Each tile is addressed by a short key ("requests", "breaker:openai") so tests can read it.
class FiguresPanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FiguresPanel)
public:
    explicit FiguresPanel(QWidget *parent = nullptr);

    void refresh(const DashboardModel &model);
    QString figure(const QString &key) const;   // the value shown, empty if no such tile

private:
    struct Tile
    {
        QWidget *frame = nullptr;
        QLabel *value = nullptr;
        QLabel *caption = nullptr;
    };
    Tile &tile(const QString &key, const QString &caption, const QString &help);
    void setValue(const QString &key, const QString &value);

    QGridLayout *m_layout = nullptr;
    QHash<QString, Tile> m_tiles;
    int m_nextColumn = 0;
};
