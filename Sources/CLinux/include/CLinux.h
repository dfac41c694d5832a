// Linux APIs that Swift's Glibc module does not expose (epoll, timerfd, signalfd, SO_PEERCRED),
// or exposes awkwardly (struct epoll_event is packed on x86_64; prctl is variadic). Each helper
// says why it exists. Headers only: every function is static inline.
#ifndef CLINUX_H
#define CLINUX_H

// No _GNU_SOURCE: it would give glibc's structs (fd_set) other member names than Swift's Glibc
// module sees, and the two modules would disagree.
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

// struct epoll_event is __attribute__((packed)) on x86_64: fill it here rather than from Swift.
static inline int cl_epoll_ctl(int ep, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = events;
    ev.data.u64 = data;
    return epoll_ctl(ep, op, fd, &ev);
}

// Waits and unpacks the events into two plain arrays.
static inline int cl_epoll_wait(int ep, uint64_t *datas, uint32_t *events, int max, int timeout_ms) {
    struct epoll_event evs[64];
    if (max > 64) max = 64;
    int n = epoll_wait(ep, evs, max, timeout_ms);
    for (int i = 0; i < n; i++) {
        datas[i] = evs[i].data.u64;
        events[i] = evs[i].events;
    }
    return n;
}

static inline int cl_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

static const uint32_t CL_EPOLLIN = EPOLLIN;
static const uint32_t CL_EPOLLOUT = EPOLLOUT;
static const uint32_t CL_EPOLLERR = EPOLLERR;
static const uint32_t CL_EPOLLHUP = EPOLLHUP;
static const uint32_t CL_EPOLLRDHUP = EPOLLRDHUP;

// The monotonic clock in nanoseconds (evdev timestamps use it too).
static inline int64_t cl_monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline int cl_timerfd_create(void) {
    return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
}

// Arms a timer at an absolute CLOCK_MONOTONIC time (ns); 0 disarms it.
static inline int cl_timerfd_set_absolute(int fd, int64_t ns) {
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    if (ns > 0) {
        its.it_value.tv_sec = ns / 1000000000LL;
        its.it_value.tv_nsec = ns % 1000000000LL;
    }
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL);
}

// A periodic timer (the systemd watchdog); 0 disarms it.
static inline int cl_timerfd_set_interval(int fd, int64_t ns) {
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    its.it_value.tv_sec = ns / 1000000000LL;
    its.it_value.tv_nsec = ns % 1000000000LL;
    its.it_interval = its.it_value;
    return timerfd_settime(fd, 0, &its, NULL);
}

// read(2)'s result (-1 and errno on failure: the Swift side retries EINTR); `n`: the count.
static inline ssize_t cl_timerfd_read(int fd, uint64_t *n) {
    *n = 0;
    return read(fd, n, sizeof *n);
}

// The daemon's signals: SIGTERM, SIGINT, SIGQUIT and SIGHUP; SIGCHLD (an action's command
// ended); and every other signal whose default action would end the daemon and that another
// process may send it (SIGUSR1, SIGUSR2, SIGALRM, ... and the real-time ones): they arrive on
// the signalfd too, where they are logged and ignored, never fatal. (Faults such as SIGSEGV are
// left alone: blocked, a real fault would still kill the process, and its core would be lost.)
// SIGRTMIN is a glibc function (it keeps the first two for its threads): a C function.
static inline void cl_daemon_signals(sigset_t *set) {
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGQUIT);
    sigaddset(set, SIGHUP);
    sigaddset(set, SIGCHLD);
    sigaddset(set, SIGUSR1);
    sigaddset(set, SIGUSR2);
    sigaddset(set, SIGALRM);
    sigaddset(set, SIGVTALRM);
    sigaddset(set, SIGPROF);
    sigaddset(set, SIGIO);
    sigaddset(set, SIGPWR);
    sigaddset(set, SIGSTKFLT);
    // At real-time priority, LimitRTTIME's soft limit (the loop ran that long without sleeping):
    // logged; the hard limit's SIGKILL cannot be blocked.
    sigaddset(set, SIGXCPU);
    // The input thread's wake (readwake.c), unblocked on that thread alone: blocked here, one from
    // outside goes to it (a read ended early) or, with no input thread, is logged.
    sigaddset(set, SIGURG);
    for (int s = SIGRTMIN; s <= SIGRTMAX; s++) sigaddset(set, s);
}

// The real-time signals' range (macros that call into glibc).
static inline int cl_sigrtmin(void) { return SIGRTMIN; }
static inline int cl_sigrtmax(void) { return SIGRTMAX; }

// Blocks the daemon's signals (they wait, pending, for the signalfd) and ignores SIGPIPE. Called
// first thing in main: a SIGHUP sent while the daemon starts (a config management run) must not
// kill it with the default action; it is handled once the loop runs.
static inline int cl_block_daemon_signals(void) {
    sigset_t set;
    cl_daemon_signals(&set);
    signal(SIGPIPE, SIG_IGN);
    return sigprocmask(SIG_BLOCK, &set, NULL);
}

// Blocks the daemon's signals (they arrive on the returned signalfd) and ignores SIGPIPE
// (a client that closed gets EPIPE from write instead).
static inline int cl_signalfd_create(void) {
    sigset_t set;
    if (cl_block_daemon_signals() != 0) return -1;
    cl_daemon_signals(&set);
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

// The next signal's number, or 0 when none is pending.
// read(2)'s result (-1 and errno on failure: the Swift side retries EINTR); `signo`: the
// signal read (0 if none).
static inline ssize_t cl_signalfd_read(int fd, int *signo) {
    struct signalfd_siginfo si;
    *signo = 0;
    ssize_t n = read(fd, &si, sizeof si);
    if (n == (ssize_t)sizeof si) *signo = (int)si.ssi_signo;
    return n;
}

// SO_PEERCRED fills a struct ucred, which glibc declares only under _GNU_SOURCE; its layout is
// the kernel's ABI (pid, uid, gid).
struct cl_ucred { int32_t pid; uint32_t uid; uint32_t gid; };
static inline int cl_peer_credentials(int fd, int32_t *pid, uint32_t *uid, uint32_t *gid) {
    struct cl_ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
    *pid = cred.pid;
    *uid = cred.uid;
    *gid = cred.gid;
    return 0;
}

// Fills a sockaddr_un; a leading '@' names an abstract socket (sd_notify's convention).
// Returns the address length, or -1 when the path is too long.
static inline int cl_unix_address(const char *path, struct sockaddr_un *addr) {
    size_t n = strlen(path);
    memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    if (n == 0 || n >= sizeof addr->sun_path) return -1;
    memcpy(addr->sun_path, path, n);
    if (path[0] == '@') addr->sun_path[0] = '\0';
    return (int)(offsetof(struct sockaddr_un, sun_path) + n + (path[0] == '@' ? 0 : 1));
}

static inline int cl_bind_unix(int fd, const char *path) {
    struct sockaddr_un addr;
    int len = cl_unix_address(path, &addr);
    if (len < 0) { errno = ENAMETOOLONG; return -1; }
    return bind(fd, (struct sockaddr *)&addr, (socklen_t)len);
}

// The path a Unix socket is bound to, NUL-terminated in `out` (`size` bytes); "" when it has none
// (or an abstract one). Returns -1 on failure.
static inline int cl_unix_socket_path(int fd, char *out, size_t size) {
    struct sockaddr_un addr;
    socklen_t len = sizeof addr;
    memset(&addr, 0, sizeof addr);
    if (size == 0 || getsockname(fd, (struct sockaddr *)&addr, &len) != 0) return -1;
    out[0] = '\0';
    if (addr.sun_family != AF_UNIX || len <= offsetof(struct sockaddr_un, sun_path) || addr.sun_path[0] == '\0') return 0;
    size_t n = strnlen(addr.sun_path, sizeof addr.sun_path);
    if (n >= size) n = size - 1;
    memcpy(out, addr.sun_path, n);
    out[n] = '\0';
    return 0;
}

static inline int cl_connect_unix(int fd, const char *path) {
    struct sockaddr_un addr;
    int len = cl_unix_address(path, &addr);
    if (len < 0) { errno = ENAMETOOLONG; return -1; }
    return connect(fd, (struct sockaddr *)&addr, (socklen_t)len);
}

static inline ssize_t cl_sendto_unix(int fd, const void *buf, size_t n, const char *path) {
    struct sockaddr_un addr;
    int len = cl_unix_address(path, &addr);
    if (len < 0) { errno = ENAMETOOLONG; return -1; }
    // MSG_DONTWAIT: a notification is dropped rather than block the daemon on a full receiver.
    return sendto(fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT, (struct sockaddr *)&addr, (socklen_t)len);
}

// `buf` as one datagram to `path` with `nfds` descriptors passed beside it (SCM_RIGHTS: the
// receiver gets its own copies; systemd's FDSTORE=1). At most 16 descriptors.
static inline ssize_t cl_sendto_unix_fds(int fd, const void *buf, size_t n, const char *path, const int *fds, int nfds) {
    struct sockaddr_un addr;
    int len = cl_unix_address(path, &addr);
    if (len < 0) { errno = ENAMETOOLONG; return -1; }
    if (nfds < 0 || nfds > 16) { errno = EINVAL; return -1; }
    union { struct cmsghdr align; char bytes[CMSG_SPACE(16 * sizeof(int))]; } control;
    memset(&control, 0, sizeof control);
    struct iovec iov = {.iov_base = (void *)buf, .iov_len = n};
    struct msghdr msg = {.msg_name = &addr, .msg_namelen = (socklen_t)len, .msg_iov = &iov, .msg_iovlen = 1};
    if (nfds > 0) {
        msg.msg_control = control.bytes;
        msg.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
        memcpy(CMSG_DATA(c), fds, (size_t)nfds * sizeof(int));
    }
    return sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
}

// accept4 is declared only under _GNU_SOURCE, and accept's address argument is a transparent
// union Swift cannot pass NULL to: accept here, then make the socket non-blocking and close-on-exec.
// accept4 sets non-blocking and close-on-exec atomically: no child spawned between the accept
// and an fcntl can inherit a client's socket. glibc declares it only under _GNU_SOURCE (above).
extern int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);
static inline int cl_accept(int fd) {
    return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

// prctl is variadic: Swift cannot call it.
static inline int cl_set_process_name(const char *name) { return prctl(PR_SET_NAME, name, 0, 0, 0); }

// Starts an action's command with posix_spawn (glibc's vfork-style clone: the loop is not held up
// by copying the runner), in a session of its own (its id, the leader's pid, names every process
// the command starts that does not leave the session: the runner's ProcessTree), with an empty signal mask and default dispositions (the daemon blocks SIGTERM, SIGHUP,
// SIGCHLD and ignores SIGPIPE; a child must not inherit that), "/" as working directory, stdin
// from /dev/null, stdout and stderr into `out_fd`, and no other fd (all from 3 up are closed).
// Returns 0 and sets *pid, or returns an errno (ENOENT for a missing program).
int cl_spawn(const char *path, char *const argv[], char *const envp[], int out_fd, pid_t *pid);

// Reaps one child that has ended, without waiting: returns its pid (0: none has ended, -1: no
// children), with its exit code (or -1) and the signal that killed it (or 0).
int cl_reap(int *exit_code, int *signal);

// pipe2 with both ends close-on-exec and the read end non-blocking: fds[0] read, fds[1] write.
int cl_output_pipe(int fds[2]);

// Starts the action runner (`touchgestured --serve-actions --serve-actions-fd 3`): `fd` becomes its
// fd 3, stdin /dev/null, stdout and stderr the daemon's (the journal), no other fd, an empty signal
// mask and default dispositions. Returns 0 and sets *pid, or an errno.
int cl_spawn_runner(const char *path, char *const argv[], int fd, pid_t *pid);

// A child of a command-line tool (touchgesturectl keyboard's on-screen keyboard): `path` looked
// up in PATH, stdin from /dev/null, the caller's stdout, stderr, environment, directory and
// session, an empty signal mask and default dispositions, no fd above 2.
int cl_spawn_child(const char *path, char *const argv[], pid_t *pid);

// prctl is variadic: Swift cannot call it. Makes this process the reaper of every orphan among its
// descendants (PR_SET_CHILD_SUBREAPER): what an action's command leaves running stays in reach.
static inline int cl_become_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

// Transparent huge pages off (1) or back to the system's setting (0) for this process and what
// it starts (PR_SET_THP_DISABLE: inherited across fork and exec).
static inline int cl_set_thp_disabled(int disabled) { return prctl(PR_SET_THP_DISABLE, disabled, 0, 0, 0); }

// syscall is variadic: Swift cannot call it. A pidfd for `pid` (readable once it has exited), so
// the daemon's stop can wait for its action runner without a sleep loop.
static inline int cl_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

// A connected pair of SOCK_SEQPACKET sockets (each message arrives whole), close-on-exec and
// non-blocking: the daemon's end and the runner's.
static inline int cl_seqpacket_pair(int fds[2]) {
    return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds);
}

// sock_diag: the uid that owns the TCP socket on this machine whose local end is src:sport and
// remote end dst:dport (family AF_INET or AF_INET6; addresses 4 or 16 bytes in network order,
// ports in host order). 0 and *uid, or a negative errno (-ENOENT: no such socket here, e.g. the
// other end is on another host). sockdiag.c.
int cl_tcp_socket_uid(int family, const uint8_t *src, uint16_t sport, const uint8_t *dst, uint16_t dport, uint32_t *uid);

// The input thread's wake-up (readwake.c): the signal (SIGURG); its handler installed
// and the signal unblocked on the calling thread (0, or -1 and errno); the descriptor the
// calling thread blocks on named (-1: none); a descriptor made blocking or not (fcntl F_SETFL,
// a constant: a panel has no other such flag); the signal sent to a thread (pthread_kill: 0, or
// -1 and errno); the calling thread's id.
int cl_read_wake_signal(void);
int cl_read_wake_install(void);
void cl_read_wake_watch(int fd);
int cl_set_blocking(int fd, int blocking);
int cl_read_wake_send(unsigned long thread);
unsigned long cl_thread_self(void);

#endif
