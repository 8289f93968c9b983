#include "upstream/socketwatch.h"

#include <array>
#include <cerrno>

#include <sys/epoll.h>
#include <unistd.h>

#include <QLoggingCategory>
#include <QSocketNotifier>

Q_LOGGING_CATEGORY(lcSocketWatch, "breakwater.upstream.sockets", QtInfoMsg)

namespace {

constexpr int kBatch = 256;   // readiness taken per turn; level-triggered, so the rest comes next turn

quint32 epollEvents(int interest)
{
    quint32 events = 0;
    if (interest & SocketWatch::Read)
        events |= EPOLLIN;
    if (interest & SocketWatch::Write)
        events |= EPOLLOUT;
    return events;
}

epoll_event entry(int fd, quint32 generation, int interest)
{
    epoll_event event{};
    event.events = epollEvents(interest);
    event.data.u64 = (quint64(generation) << 32) | quint32(fd);
    return event;
}

} // namespace

SocketWatch::SocketWatch(Handler handler, QObject *parent)
    : QObject(parent), m_handler(std::move(handler)), m_epoll(epoll_create1(EPOLL_CLOEXEC))
{
    if (m_epoll < 0) {
        qCWarning(lcSocketWatch) << "epoll_create1 failed:" << strerror(errno);
        return;
    }
    m_notifier = new QSocketNotifier(m_epoll, QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &SocketWatch::deliver);
}

SocketWatch::~SocketWatch()
{
    delete m_notifier;   // before its descriptor closes
    if (m_epoll >= 0)
        ::close(m_epoll);
}

void SocketWatch::watch(int fd, int interest)
{
    if (m_epoll < 0)
        return;
    auto it = m_watched.find(fd);
    if (it != m_watched.end()) {
        if (it->interest == interest)
            return;
        epoll_event event = entry(fd, it->generation, interest);
        // The kernel drops a descriptor from the set when it is closed; the number may since have
        // come back as a new socket that the set does not hold.
        if (epoll_ctl(m_epoll, EPOLL_CTL_MOD, fd, &event) != 0 && errno == ENOENT)
            epoll_ctl(m_epoll, EPOLL_CTL_ADD, fd, &event);
        it->interest = interest;
        ++m_counts.changed;
        return;
    }
    const quint32 generation = m_nextGeneration++;
    epoll_event event = entry(fd, generation, interest);
    if (epoll_ctl(m_epoll, EPOLL_CTL_ADD, fd, &event) != 0 && errno == EEXIST)
        epoll_ctl(m_epoll, EPOLL_CTL_MOD, fd, &event);
    m_watched.insert(fd, {generation, interest});
    ++m_counts.added;
}

void SocketWatch::forget(int fd)
{
    if (m_watched.remove(fd) == 0)
        return;
    // Fails harmlessly (EBADF, ENOENT) when the descriptor was closed first.
    epoll_ctl(m_epoll, EPOLL_CTL_DEL, fd, nullptr);
    ++m_counts.removed;
}

void SocketWatch::deliver()
{
    std::array<epoll_event, kBatch> events;
    const int count = epoll_wait(m_epoll, events.data(), kBatch, 0);
    for (int i = 0; i < count; ++i) {
        const int fd = int(quint32(events[i].data.u64));
        const quint32 generation = quint32(events[i].data.u64 >> 32);
        // The handler of an earlier descriptor in this batch may have forgotten this one, or
        // forgotten it and watched a new socket under the same number.
        const auto it = m_watched.constFind(fd);
        if (it == m_watched.constEnd() || it->generation != generation) {
            ++m_counts.staleSkipped;
            continue;
        }
        const quint32 got = events[i].events;
        int ready = 0;
        if (got & (EPOLLIN | EPOLLHUP | EPOLLRDHUP))
            ready |= CanRead;   // a hang-up is read as the end of the stream
        if (got & EPOLLOUT)
            ready |= CanWrite;
        if (got & EPOLLERR)
            ready |= Failed;
        m_handler(fd, ready);
    }
}
