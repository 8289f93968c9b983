#pragma once

#include <QHash>
#include <QObject>

#include <functional>

class QSocketNotifier;

// The sockets one event loop waits on, kept in one epoll set behind a single QSocketNotifier.
// Qt's dispatchers poll every enabled notifier on every turn of the loop, so a notifier per socket
// costs time in proportion to the sockets open; with epoll the loop polls one descriptor, however
// many upstream connections are open (at 1,000 streams: 0.54 s CPU against 0.72-0.86 s per 50k
// events, measured in ../shared/reference/upstream-engine.md's probe).
//
// A descriptor's interest can change, drop and come back at any time, also from inside the
// handler while a batch of ready descriptors is being delivered. Each registration carries a
// generation, so a descriptor forgotten (or forgotten and registered again: the kernel reuses
// numbers) during a batch is not reported from that batch's stale readiness.
//
// Lives on the thread of its event loop; every call is made there.
class SocketWatch final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SocketWatch)
public:
    enum Interest : int { Read = 1, Write = 2, ReadWrite = Read | Write };
    enum Ready : int { CanRead = 1, CanWrite = 2, Failed = 4 };
    // `ready` is a combination of Ready flags.
    using Handler = std::function<void(int fd, int ready)>;

    explicit SocketWatch(Handler handler, QObject *parent = nullptr);
    ~SocketWatch() override;

    bool isValid() const { return m_epoll >= 0; }
    // Starts watching `fd`, or changes what it is watched for.
    void watch(int fd, int interest);
    // Stops watching `fd` (it may be closed already).
    void forget(int fd);
    bool isWatched(int fd) const { return m_watched.contains(fd); }
    int watchedCount() const { return int(m_watched.size()); }
    // Registrations since creation: new descriptors, changes of interest, removals. For tests.
    struct Counts
    {
        int added = 0;
        int changed = 0;
        int removed = 0;
        int staleSkipped = 0;   // readiness of a descriptor forgotten or replaced during its batch
    };
    Counts counts() const { return m_counts; }

private:
    void deliver();

    struct Registration
    {
        quint32 generation = 0;
        int interest = 0;
    };

    Handler m_handler;
    int m_epoll = -1;
    QSocketNotifier *m_notifier = nullptr;
    QHash<int, Registration> m_watched;
    quint32 m_nextGeneration = 1;
    Counts m_counts;
};
