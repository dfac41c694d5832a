// The input thread's wake-up (InputThread): with one panel and nothing due, the thread blocks
// in read(2) on it (one system call a frame, where epoll_wait and then read are two), and a
// signal sent to it alone (SIGURG) ends that read. The handler sets O_NONBLOCK on the
// descriptor the thread named: the read, restarted or retried, then says EAGAIN at once. A flag
// alone would lose a signal landing between the thread's last look and its call; this cannot,
// since the thread clears O_NONBLOCK before it looks, and reads after. C because a signal
// handler must be async-signal-safe (fcntl is; Swift code is not known to be).
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>

// The descriptor this thread blocks on (-1: none). Per thread, so that two input threads (the
// tests') never touch each other's; initial-exec, so the handler's access allocates nothing.
static __thread volatile sig_atomic_t wake_fd __attribute__((tls_model("initial-exec"))) = -1;

static void on_wake(int signo) {
    (void)signo;
    int saved = errno;
    int fd = wake_fd;
    // A constant, not F_GETFL's value with O_NONBLOCK added: no read-modify-write the handler
    // could interleave with (a panel's descriptor has no other flag F_SETFL sets).
    if (fd >= 0) fcntl(fd, F_SETFL, O_NONBLOCK);
    errno = saved;
}

// SIGURG: a standard signal, so a send never fails for want of room (a real-time one is queued
// and counts against RLIMIT_SIGPENDING; a standard one pending already absorbs the next), and one
// nothing else of the daemon's raises (no socket of its has an owner for out-of-band data). Every
// other thread blocks it (cl_daemon_signals).
int cl_read_wake_signal(void) { return SIGURG; }

int cl_read_wake_install(void) {
    struct sigaction sa;
    sa.sa_handler = on_wake;
    sigemptyset(&sa.sa_mask);
    // SA_RESTART: the thread's other calls (its locks' futexes, a write) go on; a restarted
    // read is a new call and meets O_NONBLOCK.
    sa.sa_flags = SA_RESTART;
    if (sigaction(cl_read_wake_signal(), &sa, NULL) != 0) return -1;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, cl_read_wake_signal());
    int rc = pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    return 0;
}

void cl_read_wake_watch(int fd) { wake_fd = fd; }

int cl_set_blocking(int fd, int blocking) { return fcntl(fd, F_SETFL, blocking ? 0 : O_NONBLOCK); }

int cl_read_wake_send(unsigned long thread) {
    int rc = pthread_kill((pthread_t)thread, cl_read_wake_signal());
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    return 0;
}

unsigned long cl_thread_self(void) { return (unsigned long)pthread_self(); }
