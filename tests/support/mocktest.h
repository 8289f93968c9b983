#pragma once

#include <memory>

#include <QByteArray>
#include <QObject>

#include "mockprovider.h"
#include "servicethread.h"
#include "loopbackclient.h"

inline const HeaderList kJsonContentType{{"Content-Type", "application/json"}};

// The fixture of the mock provider's own tests: a fresh mock on a thread of its own for every test
// function (as the app runs it), and calls to it through the raw client, so what a test checks is
// what went over the wire. Its init() and cleanup() slots are the derived test's: QtTest finds
// inherited slots by name. Not final: test classes derive from it.
class MockTest : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MockTest)
public:
    explicit MockTest(QObject *parent = nullptr);
    ~MockTest() override;

protected:
    MockProvider *mock() const { return m_mock->service(); }
    quint16 port() const { return mock()->port(); }
    LoopbackResponse post(const QByteArray &path, const QByteArray &body,
                      const HeaderList &headers = kJsonContentType) const;
    LoopbackResponse get(const QByteArray &path, const HeaderList &headers = {}) const;

private slots:
    void init();
    void cleanup();

private:
    std::unique_ptr<ServiceThread<MockProvider>> m_mock;
};
