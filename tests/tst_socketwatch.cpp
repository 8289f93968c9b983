// The engine's socket glue: every change of interest curl can ask for (read, write, both, none),
// a descriptor number that comes back as a new socket, and a descriptor forgotten while a batch of
// readiness is being delivered. Real sockets (socketpair), the real event loop.

#include "upstream/socketwatch.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QTest>

namespace {

constexpr int kWait = 10000;

struct Pair
{
    int ours = -1;     // the end the watch holds
    int theirs = -1;   // the end the test writes to or reads from
    // `number`: the descriptor number our end must have (a number just closed, as the kernel
    // would hand it out again); -1: any.
    explicit Pair(int number = -1)
    {
        int fds[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) != 0)
            qFatal("socketpair failed");
        ours = fds[0];
        theirs = fds[1];
        if (number >= 0 && number != ours) {
            if (::dup3(ours, number, O_CLOEXEC) != number)
                qFatal("dup3 failed");
            ::close(ours);
            ours = number;
        }
    }
    ~Pair() { close(); }
    void close()
    {
        if (ours >= 0)
            ::close(ours);
        if (theirs >= 0)
            ::close(theirs);
        ours = theirs = -1;
    }
    void send() const { QCOMPARE(::write(theirs, "x", 1), ssize_t(1)); }
    void drain() const
    {
        char buffer[64];
        while (::read(ours, buffer, sizeof buffer) > 0) { }
    }
};

struct Seen
{
    int fd;
    int ready;
};

} // namespace

class tst_SocketWatch final : public QObject
{
    Q_OBJECT
private slots:
    void everyInterest_isReportedAsAsked();
    void forgotten_isNotReported();
    void reusedNumber_isWatchedAsTheNewSocket();
    void closedWithoutForget_numberCanBeWatchedAgain();
    void forgottenDuringBatch_staleReadinessIsSkipped();
};

void tst_SocketWatch::everyInterest_isReportedAsAsked()
{
    QList<Seen> seen;
    SocketWatch watch([&](int fd, int ready) { seen.append({fd, ready}); });
    QVERIFY(watch.isValid());
    Pair pair;

    // Read: nothing until the peer writes.
    watch.watch(pair.ours, SocketWatch::Read);
    pair.send();
    QTRY_VERIFY_WITH_TIMEOUT(!seen.isEmpty(), kWait);
    QCOMPARE(seen.last().fd, pair.ours);
    QCOMPARE(seen.last().ready, int(SocketWatch::CanRead));
    pair.drain();

    // Read -> Write: a connected socket can always be written.
    seen.clear();
    watch.watch(pair.ours, SocketWatch::Write);
    QTRY_VERIFY_WITH_TIMEOUT(!seen.isEmpty(), kWait);
    QCOMPARE(seen.last().ready, int(SocketWatch::CanWrite));

    // Write -> both, with something to read: both at once.
    seen.clear();
    pair.send();
    watch.watch(pair.ours, SocketWatch::ReadWrite);
    QTRY_VERIFY_WITH_TIMEOUT(!seen.isEmpty(), kWait);
    QCOMPARE(seen.last().ready, int(SocketWatch::CanRead | SocketWatch::CanWrite));

    // Both -> Read only: writability is no longer reported.
    pair.drain();
    watch.watch(pair.ours, SocketWatch::Read);
    seen.clear();
    pair.send();
    QTRY_VERIFY_WITH_TIMEOUT(!seen.isEmpty(), kWait);
    QCOMPARE(seen.last().ready, int(SocketWatch::CanRead));
    pair.drain();

    // The peer hangs up: reported as readable (curl reads the end of the stream).
    seen.clear();
    ::close(pair.theirs);
    pair.theirs = -1;
    QTRY_VERIFY_WITH_TIMEOUT(!seen.isEmpty(), kWait);
    QVERIFY(seen.last().ready & SocketWatch::CanRead);

    const SocketWatch::Counts counts = watch.counts();
    QCOMPARE(counts.added, 1);
    QCOMPARE(counts.changed, 3);
    watch.forget(pair.ours);
    QCOMPARE(watch.counts().removed, 1);
    QCOMPARE(watch.watchedCount(), 0);
}

void tst_SocketWatch::forgotten_isNotReported()
{
    QList<Seen> seen;
    SocketWatch watch([&](int fd, int ready) { seen.append({fd, ready}); });
    Pair forgotten, sentinel;
    watch.watch(forgotten.ours, SocketWatch::Read);
    watch.watch(sentinel.ours, SocketWatch::Read);
    watch.forget(forgotten.ours);
    forgotten.send();
    sentinel.send();
    // The sentinel was made ready last: once it is reported, the forgotten one would have been too.
    QTRY_VERIFY_WITH_TIMEOUT(std::any_of(seen.begin(), seen.end(), [&](const Seen &s) { return s.fd == sentinel.ours; }), kWait);
    QVERIFY(std::none_of(seen.begin(), seen.end(), [&](const Seen &s) { return s.fd == forgotten.ours; }));
}

void tst_SocketWatch::reusedNumber_isWatchedAsTheNewSocket()
{
    QList<Seen> seen;
    SocketWatch watch([&](int fd, int ready) { seen.append({fd, ready}); });
    auto first = std::make_unique<Pair>();
    const int number = first->ours;
    watch.watch(number, SocketWatch::Read);
    watch.forget(number);
    first.reset();
    Pair second(number);
    QCOMPARE(second.ours, number);
    watch.watch(second.ours, SocketWatch::Read);
    second.send();
    QTRY_VERIFY_WITH_TIMEOUT(!seen.isEmpty(), kWait);
    QCOMPARE(seen.last().fd, number);
    QCOMPARE(watch.counts().added, 2);
}

void tst_SocketWatch::closedWithoutForget_numberCanBeWatchedAgain()
{
    // The kernel drops a closed descriptor from the epoll set on its own; the watch still holds the
    // number. A new socket under that number, watched with another interest, must be reported.
    QList<Seen> seen;
    SocketWatch watch([&](int fd, int ready) { seen.append({fd, ready}); });
    auto first = std::make_unique<Pair>();
    const int number = first->ours;
    watch.watch(number, SocketWatch::Write);
    first.reset();
    Pair second(number);
    watch.watch(second.ours, SocketWatch::Read);
    second.send();
    QTRY_VERIFY_WITH_TIMEOUT(std::any_of(seen.begin(), seen.end(), [&](const Seen &s) {
        return s.fd == number && (s.ready & SocketWatch::CanRead);
    }), kWait);
}

void tst_SocketWatch::forgottenDuringBatch_staleReadinessIsSkipped()
{
    // Both sockets are ready in one batch. Whichever is delivered first forgets the other, closes
    // it and watches a fresh socket under the same number (what curl does when it drops one
    // connection and opens another inside one socket action): the old readiness must not reach
    // the handler as if the fresh socket were readable.
    auto a = std::make_unique<Pair>();
    auto b = std::make_unique<Pair>();
    std::unique_ptr<Pair> fresh;
    QList<Seen> seen;
    SocketWatch *watchPointer = nullptr;
    SocketWatch watch([&](int fd, int ready) {
        seen.append({fd, ready});
        char buffer[64];
        while (::read(fd, buffer, sizeof buffer) > 0) { }   // level-triggered: take what is there
        if (seen.size() != 1)
            return;
        std::unique_ptr<Pair> &other = fd == a->ours ? b : a;
        const int number = other->ours;
        watchPointer->forget(number);
        other.reset();
        fresh = std::make_unique<Pair>(number);
        watchPointer->watch(fresh->ours, SocketWatch::Read);
    });
    watchPointer = &watch;
    watch.watch(a->ours, SocketWatch::Read);
    watch.watch(b->ours, SocketWatch::Read);
    a->send();
    b->send();
    QTRY_VERIFY_WITH_TIMEOUT(watch.counts().staleSkipped == 1, kWait);
    QCOMPARE(seen.size(), 1);
    // The fresh socket is reported once it really is ready.
    fresh->send();
    QTRY_COMPARE_WITH_TIMEOUT(seen.size(), 2, kWait);
    QCOMPARE(seen.last().fd, fresh->ours);
}

QTEST_GUILESS_MAIN(tst_SocketWatch)
#include "tst_socketwatch.moc"
