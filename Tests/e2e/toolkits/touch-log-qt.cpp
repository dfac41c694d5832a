// The toolkit cases' Qt app (Qt 6, Debian's packages): a full-screen window that logs each touch
// point it gets, as a kiosk app built on Qt would get it (no compositor: linuxfb, with Qt's
// libinput or evdevtouch input, as the case sets in the environment).
//   touch-log-qt LOG
// LOG gets "screen W H" once the window is shown, then per touch point
// "SECONDS down|move|up|cancel ID X Y" (X, Y in the window's pixels).
#include <QGuiApplication>
#include <QPainter>
#include <QRasterWindow>
#include <QScreen>
#include <QTouchEvent>
#include <QSocketNotifier>
#include <csignal>
#include <cstdio>
#include <unistd.h>

namespace {
FILE *out;
int termPipe[2];

const char *stateName(QEventPoint::State s, bool cancelled) {
    if (cancelled) return "cancel";
    switch (s) {
    case QEventPoint::State::Pressed: return "down";
    case QEventPoint::State::Released: return "up";
    default: return "move";
    }
}

class TouchWindow : public QRasterWindow {
protected:
    bool event(QEvent *e) override {
        switch (e->type()) {
        case QEvent::TouchBegin:
        case QEvent::TouchUpdate:
        case QEvent::TouchEnd:
        case QEvent::TouchCancel: {
            auto *t = static_cast<QTouchEvent *>(e);
            const bool cancelled = e->type() == QEvent::TouchCancel;
            for (const QEventPoint &p : t->points()) {
                if (!cancelled && p.state() == QEventPoint::State::Stationary) continue;
                std::fprintf(out, "%.6f %s %d %.1f %.1f\n", t->timestamp() / 1000.0, stateName(p.state(), cancelled), p.id(),
                             p.position().x(), p.position().y());
            }
            std::fflush(out);
            e->accept();
            return true;
        }
        default:
            return QRasterWindow::event(e);
        }
    }
    void paintEvent(QPaintEvent *) override { QPainter(this).fillRect(QRect(QPoint(0, 0), size()), Qt::darkGray); }
    void exposeEvent(QExposeEvent *e) override {
        QRasterWindow::exposeEvent(e);
        if (!shown && isExposed()) {
            shown = true;
            const QSize s = screen()->size();  // full screen: the window is the screen
            std::fprintf(out, "screen %d %d\n", s.width(), s.height());
            std::fflush(out);
        }
    }

private:
    bool shown = false;
};
}  // namespace

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: touch-log-qt LOG\n");
        return 2;
    }
    out = std::fopen(argv[1], "a");
    if (!out) return 1;
    QGuiApplication app(argc, argv);
    // SIGTERM ends the event loop (through a pipe: a handler may only write), so Qt gives the
    // console its modes back as it closes.
    if (pipe(termPipe) != 0) return 1;
    std::signal(SIGTERM, [](int) { (void)!write(termPipe[1], "q", 1); });
    QSocketNotifier term(termPipe[0], QSocketNotifier::Read);
    QObject::connect(&term, &QSocketNotifier::activated, &app, &QCoreApplication::quit);
    TouchWindow w;
    w.showFullScreen();
    return app.exec();
}
