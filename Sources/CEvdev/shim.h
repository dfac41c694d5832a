// libevdev (Debian's libevdev-dev; pkg-config adds -I/usr/include/libevdev-1.0).
#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <linux/input.h>
#include <stdint.h>

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
