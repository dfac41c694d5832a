// A Wayland client for the e2e guest: one fullscreen window, and a line for every wl_touch and
// wl_pointer event it receives, with the monotonic time it came. What a kiosk app would see.
//   touch-log [LOG]      (LOG: where the lines go; stdout by default)
// TOUCH_LOG_TILED=1: a window as the compositor lays it out, not fullscreen (sway draws its top
// layer, an on-screen keyboard's, under a fullscreen window).
// Lines: "<seconds> ready W H", "size W H" (a later size), "<seconds> touch down ID X Y", "touch motion ID X Y",
// "touch up ID", "touch cancel", "touch frame", "pointer enter X Y", "pointer leave",
// "pointer motion X Y", "pointer button BUTTON pressed|released", "pointer axis AXIS VALUE",
// "seat touch on|off", "seat pointer on|off", and last, on SIGTERM or when the compositor goes,
// "<seconds> summary downs=N ups=N cancels=N down=N presses=N releases=N held=N axes=N".
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>

#include "xdg-shell-client-protocol.h"

static FILE *out;
static struct wl_compositor *compositor;
static struct wl_shm *shm;
static struct wl_seat *seat;
static struct xdg_wm_base *wm_base;
static struct wl_surface *surface;
static struct wl_touch *touch;
static struct wl_pointer *pointer;
static int width = 1280, height = 720, configured, drawn, drawn_width, drawn_height;
static volatile sig_atomic_t stop;

// What the summary counts. A touch point is down from its down to its up or a cancel.
#define MAX_POINTS 64
static int32_t points[MAX_POINTS];
static int npoints, downs, ups, cancels, presses, releases, axes;
static int held_buttons;

static void say(const char *fmt, ...) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    fprintf(out, "%ld.%06ld ", (long)ts.tv_sec, ts.tv_nsec / 1000);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fputc('\n', out);
    fflush(out);
}

static void point_down(int32_t id) {
    for (int i = 0; i < npoints; i++)
        if (points[i] == id) return;
    if (npoints < MAX_POINTS) points[npoints++] = id;
}

static void point_up(int32_t id) {
    for (int i = 0; i < npoints; i++)
        if (points[i] == id) {
            points[i] = points[--npoints];
            return;
        }
}

// A buffer of the window's size in shared memory, one colour: enough for the compositor to map it.
static struct wl_buffer *make_buffer(void) {
    int stride = width * 4, size = stride * height;
    int fd = memfd_create("touch-log", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, size) != 0) return NULL;
    uint32_t *pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (pixels == MAP_FAILED) {
        close(fd);
        return NULL;
    }
    for (int i = 0; i < width * height; i++) pixels[i] = 0xff204060;
    munmap(pixels, size);
    struct wl_shm_pool *pool = wl_shm_create_pool(shm, fd, size);
    struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, width, height, stride, WL_SHM_FORMAT_XRGB8888);
    wl_shm_pool_destroy(pool);
    close(fd);
    return buffer;
}

static void draw(void) {
    struct wl_buffer *buffer = make_buffer();
    if (!buffer) {
        say("error no buffer: %s", strerror(errno));
        stop = 1;
        return;
    }
    wl_surface_attach(surface, buffer, 0, 0);
    wl_surface_damage(surface, 0, 0, width, height);
    wl_surface_commit(surface);
    if (!drawn) say("ready %d %d", width, height);
    // A later size: the compositor gave the window less room (a keyboard's exclusive zone).
    else if (width != drawn_width || height != drawn_height) say("size %d %d", width, height);
    drawn = 1;
    drawn_width = width;
    drawn_height = height;
}

// --- wl_touch
static void touch_down(void *d, struct wl_touch *t, uint32_t serial, uint32_t time, struct wl_surface *s, int32_t id,
                       wl_fixed_t x, wl_fixed_t y) {
    downs++;
    point_down(id);
    say("touch down %d %.1f %.1f", id, wl_fixed_to_double(x), wl_fixed_to_double(y));
}
static void touch_up(void *d, struct wl_touch *t, uint32_t serial, uint32_t time, int32_t id) {
    ups++;
    point_up(id);
    say("touch up %d", id);
}
static void touch_motion(void *d, struct wl_touch *t, uint32_t time, int32_t id, wl_fixed_t x, wl_fixed_t y) {
    say("touch motion %d %.1f %.1f", id, wl_fixed_to_double(x), wl_fixed_to_double(y));
}
static void touch_frame(void *d, struct wl_touch *t) { say("touch frame"); }
static void touch_cancel(void *d, struct wl_touch *t) {
    cancels++;
    npoints = 0;  // a cancel ends every point of the client's
    say("touch cancel");
}
static const struct wl_touch_listener touch_listener = {touch_down, touch_up, touch_motion, touch_frame, touch_cancel};

// --- wl_pointer (version 5: the axis source, stop and discrete events too)
static void pointer_enter(void *d, struct wl_pointer *p, uint32_t serial, struct wl_surface *s, wl_fixed_t x, wl_fixed_t y) {
    say("pointer enter %.1f %.1f", wl_fixed_to_double(x), wl_fixed_to_double(y));
}
static void pointer_leave(void *d, struct wl_pointer *p, uint32_t serial, struct wl_surface *s) { say("pointer leave"); }
static void pointer_motion(void *d, struct wl_pointer *p, uint32_t time, wl_fixed_t x, wl_fixed_t y) {
    say("pointer motion %.1f %.1f", wl_fixed_to_double(x), wl_fixed_to_double(y));
}
static void pointer_button(void *d, struct wl_pointer *p, uint32_t serial, uint32_t time, uint32_t button, uint32_t state) {
    int pressed = state == WL_POINTER_BUTTON_STATE_PRESSED;
    if (pressed) {
        presses++;
        held_buttons++;
    } else {
        releases++;
        if (held_buttons > 0) held_buttons--;
    }
    say("pointer button %u %s", button, pressed ? "pressed" : "released");
}
static void pointer_axis(void *d, struct wl_pointer *p, uint32_t time, uint32_t axis, wl_fixed_t value) {
    axes++;
    say("pointer axis %u %.2f", axis, wl_fixed_to_double(value));
}
static void pointer_frame(void *d, struct wl_pointer *p) {}
static void pointer_axis_source(void *d, struct wl_pointer *p, uint32_t source) {}
static void pointer_axis_stop(void *d, struct wl_pointer *p, uint32_t time, uint32_t axis) {}
static void pointer_axis_discrete(void *d, struct wl_pointer *p, uint32_t axis, int32_t discrete) {}
static const struct wl_pointer_listener pointer_listener = {
    pointer_enter, pointer_leave, pointer_motion, pointer_button, pointer_axis,
    pointer_frame, pointer_axis_source, pointer_axis_stop, pointer_axis_discrete,
};

// --- wl_seat: a capability that comes (a new device, the mirror made) gets a new object.
static void seat_capabilities(void *d, struct wl_seat *s, uint32_t caps) {
    int has_touch = caps & WL_SEAT_CAPABILITY_TOUCH, has_pointer = caps & WL_SEAT_CAPABILITY_POINTER;
    if (has_touch && !touch) {
        touch = wl_seat_get_touch(seat);
        wl_touch_add_listener(touch, &touch_listener, NULL);
        say("seat touch on");
    } else if (!has_touch && touch) {
        wl_touch_release(touch);
        touch = NULL;
        say("seat touch off");
    }
    if (has_pointer && !pointer) {
        pointer = wl_seat_get_pointer(seat);
        wl_pointer_add_listener(pointer, &pointer_listener, NULL);
        say("seat pointer on");
    } else if (!has_pointer && pointer) {
        wl_pointer_release(pointer);
        pointer = NULL;
        say("seat pointer off");
    }
}
static void seat_name(void *d, struct wl_seat *s, const char *name) {}
static const struct wl_seat_listener seat_listener = {seat_capabilities, seat_name};

// --- the window
static void wm_ping(void *d, struct xdg_wm_base *b, uint32_t serial) { xdg_wm_base_pong(b, serial); }
static const struct xdg_wm_base_listener wm_listener = {wm_ping};

static void surface_configure(void *d, struct xdg_surface *xs, uint32_t serial) {
    xdg_surface_ack_configure(xs, serial);
    configured = 1;
    draw();
}
static const struct xdg_surface_listener xdg_surface_listener = {surface_configure};

static void toplevel_configure(void *d, struct xdg_toplevel *t, int32_t w, int32_t h, struct wl_array *states) {
    if (w > 0 && h > 0) {
        width = w;
        height = h;
    }
}
static void toplevel_close(void *d, struct xdg_toplevel *t) { stop = 1; }
static const struct xdg_toplevel_listener toplevel_listener = {toplevel_configure, toplevel_close};

static void global(void *d, struct wl_registry *r, uint32_t name, const char *iface, uint32_t version) {
    if (strcmp(iface, wl_compositor_interface.name) == 0)
        compositor = wl_registry_bind(r, name, &wl_compositor_interface, 4);
    else if (strcmp(iface, wl_shm_interface.name) == 0)
        shm = wl_registry_bind(r, name, &wl_shm_interface, 1);
    else if (strcmp(iface, wl_seat_interface.name) == 0 && !seat) {
        seat = wl_registry_bind(r, name, &wl_seat_interface, version < 5 ? version : 5);
        wl_seat_add_listener(seat, &seat_listener, NULL);
    } else if (strcmp(iface, xdg_wm_base_interface.name) == 0) {
        wm_base = wl_registry_bind(r, name, &xdg_wm_base_interface, 1);
        xdg_wm_base_add_listener(wm_base, &wm_listener, NULL);
    }
}
static void global_remove(void *d, struct wl_registry *r, uint32_t name) {}
static const struct wl_registry_listener registry_listener = {global, global_remove};

static void on_signal(int sig) { stop = 1; }

int main(int argc, char **argv) {
    out = argc > 1 ? fopen(argv[1], "a") : stdout;
    if (!out) return 1;
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    struct wl_display *display = wl_display_connect(NULL);
    if (!display) {
        say("error cannot connect: %s", strerror(errno));
        return 1;
    }
    struct wl_registry *registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &registry_listener, NULL);
    wl_display_roundtrip(display);
    if (!compositor || !shm || !wm_base) {
        say("error the compositor lacks wl_compositor, wl_shm or xdg_wm_base");
        return 1;
    }
    surface = wl_compositor_create_surface(compositor);
    struct xdg_surface *xs = xdg_wm_base_get_xdg_surface(wm_base, surface);
    xdg_surface_add_listener(xs, &xdg_surface_listener, NULL);
    struct xdg_toplevel *toplevel = xdg_surface_get_toplevel(xs);
    xdg_toplevel_add_listener(toplevel, &toplevel_listener, NULL);
    xdg_toplevel_set_title(toplevel, "touch-log");
    xdg_toplevel_set_app_id(toplevel, "touch-log");
    const char *tiled = getenv("TOUCH_LOG_TILED");
    if (!tiled || strcmp(tiled, "1") != 0) xdg_toplevel_set_fullscreen(toplevel, NULL);
    wl_surface_commit(surface);

    // Read the display until SIGTERM or until the compositor goes.
    int fd = wl_display_get_fd(display);
    while (!stop) {
        while (wl_display_prepare_read(display) != 0)
            if (wl_display_dispatch_pending(display) < 0) goto gone;
        if (wl_display_flush(display) < 0 && errno != EAGAIN) {
            wl_display_cancel_read(display);
            break;
        }
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, 200);
        if (r > 0) {
            if (wl_display_read_events(display) < 0) break;
        } else {
            wl_display_cancel_read(display);
        }
        if (wl_display_dispatch_pending(display) < 0) break;
    }
gone:
    say("summary downs=%d ups=%d cancels=%d down=%d presses=%d releases=%d held=%d axes=%d", downs, ups, cancels, npoints,
        presses, releases, held_buttons, axes);
    return 0;
}
