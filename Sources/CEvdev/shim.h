// libevdev (Debian's libevdev-dev; pkg-config adds -I/usr/include/libevdev-1.0).
#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <linux/input.h>
#include <stdint.h>
#include <string.h>

// input_event_sec/usec are macros (the struct's layout depends on the time ABI): read them here.
static inline int64_t cev_event_nanoseconds(const struct input_event *e) {
    return (int64_t)e->input_event_sec * 1000000000LL + (int64_t)e->input_event_usec * 1000LL;
}

static const int CEV_READ_FLAG_NORMAL = LIBEVDEV_READ_FLAG_NORMAL;
static const int CEV_READ_FLAG_SYNC = LIBEVDEV_READ_FLAG_SYNC;
static const int CEV_READ_STATUS_SUCCESS = LIBEVDEV_READ_STATUS_SUCCESS;
static const int CEV_READ_STATUS_SYNC = LIBEVDEV_READ_STATUS_SYNC;
static const int CEV_GRAB = LIBEVDEV_GRAB;
static const int CEV_UNGRAB = LIBEVDEV_UNGRAB;
static const int CEV_UINPUT_OPEN_MANAGED = LIBEVDEV_UINPUT_OPEN_MANAGED;

#include <sys/ioctl.h>
#include <errno.h>
#include <linux/uinput.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

// A uinput device's physical place (`phys` in sysfs), set on its /dev/uinput descriptor before
// libevdev creates the device there (libevdev's uinput does not pass a device's phys on).
// Returns 0, or -errno.
static inline int cev_uinput_set_phys(int fd, const char *phys) {
    return ioctl(fd, UI_SET_PHYS, phys) < 0 ? -errno : 0;
}

// Whether `fd` is open on /dev/uinput itself (the misc character device 10:223), checked before
// a uinput ioctl is sent to a descriptor another process passed: other drivers share its ioctl
// letter. Returns 1, 0 (open on something else), or -1 (not open).
static inline int cev_is_uinput(int fd) {
    struct stat st;
    if (fstat(fd, &st) != 0) return -1;
    return S_ISCHR(st.st_mode) && major(st.st_rdev) == 10 && minor(st.st_rdev) == 223;
}

// The name the kernel gave the uinput device made on `fd` ("input12": /sys/class/input/input12),
// into `out` (NUL-terminated). Returns 0, or -errno (ENOENT: no device made on it yet).
static inline int cev_uinput_sysname(int fd, char *out, unsigned size) {
    return ioctl(fd, UI_GET_SYSNAME(size), out) < 0 ? -errno : 0;
}

// Destroys the uinput device made on `fd` (its readers see it go); the descriptor stays open.
static inline int cev_uinput_destroy(int fd) {
    return ioctl(fd, UI_DEV_DESTROY) < 0 ? -errno : 0;
}

// The kernel's current state of a touch device, read with EVIOCG* ioctls after SYN_DROPPED (the
// kernel's documented recovery: the queue is drained, then the state is queried).
// `mt` receives `slots` values for each of ABS_MT_TRACKING_ID, ABS_MT_POSITION_X,
// ABS_MT_POSITION_Y and ABS_MT_TOOL_TYPE, one after another; `st` receives ABS_X, ABS_Y,
// BTN_TOUCH and ABS_MT_SLOT. A code the device lacks reads as 0 (-1 for tracking ids).
// Returns 0, or -errno of the first ioctl that failed for another reason than a missing code
// (-EINTR too: the Swift side retries the whole query, which reads and changes nothing).
#define CEV_MAX_SLOTS 64
static inline int cev_query_state(int fd, int slots, int32_t *mt, int32_t *st) {
    if (slots > CEV_MAX_SLOTS) slots = CEV_MAX_SLOTS;
    static const uint32_t codes[4] = {ABS_MT_TRACKING_ID, ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TOOL_TYPE};
    int32_t req[1 + CEV_MAX_SLOTS];
    for (int c = 0; c < 4; c++) {
        memset(req, 0, sizeof req);
        req[0] = (int32_t)codes[c];
        int32_t fallback = c == 0 ? -1 : 0;
        if (slots > 0 && ioctl(fd, EVIOCGMTSLOTS((1 + slots) * sizeof(int32_t)), req) < 0) {
            if (errno == ENODEV || errno == EINTR) return -errno;
            for (int s = 0; s < slots; s++) req[1 + s] = fallback;
        }
        for (int s = 0; s < slots; s++) mt[c * slots + s] = req[1 + s];
    }
    static const uint32_t axes[2] = {ABS_X, ABS_Y};
    for (int a = 0; a < 2; a++) {
        struct input_absinfo info;
        memset(&info, 0, sizeof info);
        if (ioctl(fd, EVIOCGABS(axes[a]), &info) < 0 && (errno == ENODEV || errno == EINTR)) return -errno;
        st[a] = info.value;
    }
    unsigned char keys[KEY_MAX / 8 + 1];
    memset(keys, 0, sizeof keys);
    if (ioctl(fd, EVIOCGKEY(sizeof keys), keys) < 0 && (errno == ENODEV || errno == EINTR)) return -errno;
    st[2] = (keys[BTN_TOUCH / 8] >> (BTN_TOUCH % 8)) & 1;
    struct input_absinfo slot;
    memset(&slot, 0, sizeof slot);
    if (ioctl(fd, EVIOCGABS(ABS_MT_SLOT), &slot) < 0 && (errno == ENODEV || errno == EINTR)) return -errno;
    st[3] = slot.value;
    return 0;
}
