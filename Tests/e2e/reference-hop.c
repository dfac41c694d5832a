// The floor of any user-space hop, for the pass-through benchmark (passthrough_load): the least a
// program can do between a panel and a virtual touchscreen. It grabs the panel, makes a uinput
// device with the panel's axes, keys and properties, prints that device's node on stdout, then
// reads the panel (blocking reads, no event loop) and writes each frame, up to its SYN_REPORT, to
// the uinput device in one write. Events after a SYN_DROPPED are skipped to the next SYN_REPORT.
//   reference-hop PANEL [--policy fifo|other] [--priority N] [--touch-pages N] [--epoll 1] [--busy-us N] [--relay-us N] [--trace FILE]
// --touch-pages N (a diagnostic, E2E_REF_PAGES): before each write, one byte of each of N pages of
// its own is read and written, so the hop's working set is N pages larger (what a bigger program
// touches between its wake-up and its write).
// --epoll 1 (a diagnostic, E2E_REF_EPOLL): the panel read as an event loop reads it, non-blocking,
// after epoll_wait says it is ready: two system calls a wake-up instead of one blocking read.
// --busy-us N (a diagnostic, E2E_REF_BUSY): after each write, N µs of work on the CPU (as a
// loop that runs its gestures after the frame's write), before the next read.
// --relay-us N (a diagnostic, E2E_REF_RELAY): after each write, the frame sent over a socket pair
// to a second thread (its policy the hop's), which wakes, reads it and works N µs on it: the
// daemon's shape, an input thread relaying each read to the loop that runs the gestures.
// --trace FILE (compositor_latency, passthrough_load): a line a frame written, the daemon's
// --trace-hops rows: when the read that brought it returned, when its write started and ended,
// the frame's own kernel stamp (its last event's: CLOCK_MONOTONIC ns). The
// line is one more write(2) a frame, made after the frame's write: the hop itself carries only
// the clock's three reads, and the line's write falls before the next read.
// It runs until the panel goes away or a signal ends it.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BITS(n) (((n) + 8 * sizeof(unsigned long) - 1) / (8 * sizeof(unsigned long)))
#define HAS(bit, a) ((a[(bit) / (8 * sizeof(unsigned long))] >> ((bit) % (8 * sizeof(unsigned long)))) & 1)

static int fail(const char *what) {
    fprintf(stderr, "reference-hop: %s: %s\n", what, strerror(errno));
    return 1;
}

// The panel's capabilities copied onto the uinput device `out`.
static int copy_device(int in, int out) {
    unsigned long ev[BITS(EV_MAX + 1)] = {0}, codes[BITS(KEY_MAX + 1)], props[BITS(INPUT_PROP_MAX + 1)] = {0};
    if (ioctl(in, EVIOCGBIT(0, sizeof ev), ev) < 0) return fail("EVIOCGBIT");
    static const struct { int type, max, set; } kinds[] = {
        {EV_KEY, KEY_MAX, UI_SET_KEYBIT}, {EV_ABS, ABS_MAX, UI_SET_ABSBIT}, {EV_MSC, MSC_MAX, UI_SET_MSCBIT}};
    ioctl(out, UI_SET_EVBIT, EV_SYN);
    for (unsigned k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if (!HAS(kinds[k].type, ev)) continue;
        memset(codes, 0, sizeof codes);
        if (ioctl(in, EVIOCGBIT(kinds[k].type, sizeof codes), codes) < 0) return fail("EVIOCGBIT");
        if (ioctl(out, UI_SET_EVBIT, kinds[k].type) < 0) return fail("UI_SET_EVBIT");
        for (int c = 0; c <= kinds[k].max; c++) {
            if (!HAS(c, codes)) continue;
            if (ioctl(out, kinds[k].set, c) < 0) return fail("UI_SET_*BIT");
            if (kinds[k].type != EV_ABS) continue;
            struct uinput_abs_setup abs = {.code = c};
            if (ioctl(in, EVIOCGABS(c), &abs.absinfo) < 0) return fail("EVIOCGABS");
            if (ioctl(out, UI_ABS_SETUP, &abs) < 0) return fail("UI_ABS_SETUP");
        }
    }
    if (ioctl(in, EVIOCGPROP(sizeof props), props) >= 0)
        for (int p = 0; p <= INPUT_PROP_MAX; p++)
            if (HAS(p, props)) ioctl(out, UI_SET_PROPBIT, p);
    struct uinput_setup setup = {.id = {.bustype = BUS_VIRTUAL, .vendor = 0x7467, .product = 0x0002, .version = 1}};
    snprintf(setup.name, sizeof setup.name, "reference hop");
    if (ioctl(out, UI_DEV_SETUP, &setup) < 0) return fail("UI_DEV_SETUP");
    if (ioctl(out, UI_DEV_CREATE) < 0) return fail("UI_DEV_CREATE");
    return 0;
}

static int set_policy(const char *policy, int priority) {
    struct sched_param p = {.sched_priority = 0};
    int which = SCHED_OTHER;
    if (strcmp(policy, "fifo") == 0) {
        which = SCHED_FIFO;
        p.sched_priority = priority;
    }
    if (sched_setscheduler(0, which | SCHED_RESET_ON_FORK, &p) < 0) return fail("sched_setscheduler");
    return 0;
}

// The device's /dev/input node (its sysfs directory, inputN, has an eventM in it once the
// kernel made it: up to 2 s), on stdout.
static int print_node(const char *sysname) {
    char dir[128];
    snprintf(dir, sizeof dir, "/sys/devices/virtual/input/%s", sysname);
    for (int tries = 0; tries < 200; tries++) {
        DIR *d = opendir(dir);
        struct dirent *entry;
        while (d && (entry = readdir(d)))
            if (strncmp(entry->d_name, "event", 5) == 0) {
                printf("/dev/input/%s\n", entry->d_name);
                fflush(stdout);
                closedir(d);
                return 0;
            }
        if (d) closedir(d);
        usleep(10000);
    }
    errno = ENOENT;
    return fail(dir);
}

static long long ns(struct timespec t) { return t.tv_sec * 1000000000LL + t.tv_nsec; }

// Work on the CPU for `us` microseconds (the clock read in a loop).
static void busy(int us) {
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do {
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((now.tv_sec - start.tv_sec) * 1000000L + (now.tv_nsec - start.tv_nsec) / 1000 < us);
}

// The relay's other end (--relay-us): each message read, then `relay_us` µs of work on it.
static int relay_us;
static void *relay_loop(void *arg) {
    int fd = *(int *)arg;
    struct input_event got[256];
    while (read(fd, got, sizeof got) > 0) busy(relay_us);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: reference-hop PANEL [--policy fifo|other] [--priority N]\n");
        return 2;
    }
    const char *policy = "other";
    int priority = 10, pages = 0, use_epoll = 0, busy_us = 0, trace = -1;
    struct timespec tr = {0}, ts = {0}, te = {0};
    for (int i = 2; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--policy") == 0) policy = argv[i + 1];
        else if (strcmp(argv[i], "--priority") == 0) priority = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--touch-pages") == 0) pages = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--epoll") == 0) use_epoll = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--busy-us") == 0) busy_us = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--relay-us") == 0) relay_us = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--trace") == 0 && (trace = open(argv[i + 1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
            return fail(argv[i + 1]);
    }
    if (pages < 0 || pages > 65536) pages = 0;
    volatile unsigned char *working = pages ? calloc((size_t)pages, 4096) : NULL;
    if (pages && !working) return fail("calloc");
    for (int p = 0; p < pages; p++) working[(size_t)p * 4096] = 1;
    if (set_policy(policy, priority)) return 1;
    int in = open(argv[1], O_RDONLY | O_CLOEXEC | (use_epoll ? O_NONBLOCK : 0));
    if (in < 0) return fail(argv[1]);
    int ep = -1;
    if (use_epoll) {
        struct epoll_event want = {.events = EPOLLIN};
        ep = epoll_create1(EPOLL_CLOEXEC);
        if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, in, &want) < 0) return fail("epoll");
    }
    int clock = CLOCK_MONOTONIC;
    ioctl(in, EVIOCSCLOCKID, &clock);
    if (ioctl(in, EVIOCGRAB, 1) < 0) return fail("EVIOCGRAB");
    int out = open("/dev/uinput", O_WRONLY | O_CLOEXEC);
    if (out < 0) return fail("/dev/uinput");
    if (copy_device(in, out)) return 1;
    char name[64] = "";
    if (ioctl(out, UI_GET_SYSNAME(sizeof name), name) < 0) return fail("UI_GET_SYSNAME");
    if (print_node(name)) return 1;
    // The relay's thread is made after the policy is set: it inherits it, as the daemon's loop
    // shares its input thread's.
    static int pair[2] = {-1, -1};
    if (relay_us > 0) {
        pthread_t relay;
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0) return fail("socketpair");
        if (pthread_create(&relay, NULL, relay_loop, &pair[1]) != 0) return fail("pthread_create");
    }
    // A frame is at most 256 events here; a longer one is written in parts.
    struct input_event batch[64], frame[256];
    int pending = 0, dropping = 0;
    for (;;) {
        struct epoll_event ready;
        if (ep >= 0 && epoll_wait(ep, &ready, 1, -1) < 0 && errno != EINTR) return fail("epoll_wait");
        ssize_t n = read(in, batch, sizeof batch);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n <= 0) break;
        if (trace >= 0) clock_gettime(CLOCK_MONOTONIC, &tr);
        for (size_t i = 0; i < (size_t)n / sizeof batch[0]; i++) {
            const struct input_event *e = &batch[i];
            if (e->type == EV_SYN && e->code == SYN_DROPPED) {
                dropping = 1;
                pending = 0;
                continue;
            }
            int ends = e->type == EV_SYN && e->code == SYN_REPORT;
            if (dropping) {
                dropping = !ends;
                continue;
            }
            frame[pending++] = *e;
            if (ends || pending == 256) {
                for (int p = 0; p < pages; p++) working[(size_t)p * 4096] += 1;
                if (trace >= 0) clock_gettime(CLOCK_MONOTONIC, &ts);
                if (write(out, frame, pending * sizeof frame[0]) < 0) return fail("write");
                if (trace >= 0) {
                    clock_gettime(CLOCK_MONOTONIC, &te);
                    // The frame's own kernel stamp last (monotonic: EVIOCSCLOCKID), as --trace-hops writes it.
                    long long stamp = (long long)e->input_event_sec * 1000000000LL + (long long)e->input_event_usec * 1000LL;
                    dprintf(trace, "%lld %lld %lld %lld\n", ns(tr), ns(ts), ns(te), stamp);
                }
                if (busy_us > 0) busy(busy_us);
                if (relay_us > 0 && send(pair[0], frame, pending * sizeof frame[0], MSG_DONTWAIT) < 0 && errno != EAGAIN)
                    return fail("send");
                pending = 0;
            }
        }
    }
    ioctl(out, UI_DEV_DESTROY);
    return 0;
}
