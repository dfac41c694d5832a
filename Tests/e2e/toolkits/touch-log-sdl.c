// The toolkit cases' SDL 2 app (Debian's libsdl2): SDL with no compositor, on its kmsdrm video
// driver, whose input is SDL's own evdev reader (every udev ID_INPUT_TOUCHSCREEN device), as a
// kiosk app built on SDL gets touches; it logs each finger event.
//   touch-log-sdl LOG
// LOG gets "screen W H DRIVER" once SDL runs, then per finger event
// "SECONDS down|move|up FINGER X Y" (X, Y from 0 to 1 across the device).
#include <SDL.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: touch-log-sdl LOG\n");
        return 2;
    }
    FILE *out = fopen(argv[1], "a");
    if (!out) return 1;
    SDL_SetHint(SDL_HINT_TOUCH_MOUSE_EVENTS, "0");
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "SDL_Init: %s\n", SDL_GetError());
        return 1;
    }
    SDL_DisplayMode mode = {0};
    SDL_GetCurrentDisplayMode(0, &mode);
    // A window where the driver can make one (kmsdrm needs EGL for it); touches come without.
    SDL_Window *window = SDL_CreateWindow("touch-log-sdl", 0, 0, mode.w, mode.h, SDL_WINDOW_FULLSCREEN);
    if (!window) fprintf(stderr, "no window: %s\n", SDL_GetError());
    fprintf(out, "screen %d %d %s\n", mode.w, mode.h, SDL_GetCurrentVideoDriver());
    fflush(out);
    SDL_Event e;
    while (SDL_WaitEvent(&e)) {
        const char *what = NULL;
        switch (e.type) {
        case SDL_FINGERDOWN: what = "down"; break;
        case SDL_FINGERUP: what = "up"; break;
        case SDL_FINGERMOTION: what = "move"; break;
        case SDL_QUIT: SDL_Quit(); return 0;  // (SIGTERM: the console's modes given back)
        default: break;
        }
        if (!what) continue;
        fprintf(out, "%.3f %s %lld %.4f %.4f\n", e.tfinger.timestamp / 1000.0, what, (long long)e.tfinger.fingerId, e.tfinger.x, e.tfinger.y);
        fflush(out);
    }
    return 0;
}
