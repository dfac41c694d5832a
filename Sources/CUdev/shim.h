// libudev (Debian's libudev-dev).
#include <libudev.h>
#include <sys/inotify.h>
#include <stdint.h>
#include <errno.h>
#include <unistd.h>

// inotify is not in Swift's Glibc module. Watch a directory for nodes coming and going.
static inline int cud_inotify_watch_dir(const char *path) {
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0) return -1;
    if (inotify_add_watch(fd, path, IN_CREATE | IN_DELETE | IN_ATTRIB) < 0) {
        int e = errno;  // (close may change it; the caller reports this one)
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

// Reads pending inotify events; calls back with (created, name) for each. Returns the count.
typedef void (*cud_inotify_callback)(void *context, int created, const char *name);
static inline int cud_inotify_drain(int fd, void *context, cud_inotify_callback cb) {
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    int count = 0;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;  // interrupted: read again (EAGAIN: drained)
        if (n <= 0) return count;
        for (char *p = buf; p < buf + n;) {
            struct inotify_event *e = (struct inotify_event *)p;
            if (e->len > 0) { cb(context, (e->mask & (IN_CREATE | IN_ATTRIB)) ? 1 : 0, e->name); count++; }
            p += sizeof(struct inotify_event) + e->len;
        }
    }
}
