#pragma once

#include <QObject>
#include <QThread>

#include <functional>
#include <memory>

// Runs one QObject-based service on a thread of its own: the object is built, used and destroyed on
// that thread, so its sockets and timers belong there (the proxy thread, the demo's mock provider).
// Calls into the service from other threads go through QMetaObject::invokeMethod(service(), ...).
template <typename Service>
class ServiceThread final
{
public:
    // `build` runs on the new thread and returns the service (it may also start listening there).
    explicit ServiceThread(const QString &name, std::function<Service *()> build)
    {
        m_thread.setObjectName(name);
        m_anchor = std::make_unique<QObject>();
        m_anchor->moveToThread(&m_thread);
        m_thread.start();
        QMetaObject::invokeMethod(m_anchor.get(), [this, &build] { m_service = build(); },
                                  Qt::BlockingQueuedConnection);
    }

    ~ServiceThread()
    {
        QMetaObject::invokeMethod(m_anchor.get(), [this] {
            delete m_service;
            m_service = nullptr;
        }, Qt::BlockingQueuedConnection);
        m_thread.quit();
        m_thread.wait();
        m_anchor.reset();   // its thread has finished: nothing else can touch it now
    }

    Service *service() const { return m_service; }

    // Runs `call` on the service's thread and waits for it.
    template <typename Result>
    Result blocking(std::function<Result(Service *)> call) const
    {
        Result result{};
        QMetaObject::invokeMethod(m_service, [&] { result = call(m_service); },
                                  Qt::BlockingQueuedConnection);
        return result;
    }

    Q_DISABLE_COPY_MOVE(ServiceThread)

private:
    QThread m_thread;
    std::unique_ptr<QObject> m_anchor;
    Service *m_service = nullptr;
};
