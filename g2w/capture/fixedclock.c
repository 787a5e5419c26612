/* A faked, frame-driven clock and frame grabber for SDL2 OpenGL engines (LD_PRELOAD).
 *
 * SDL_GetTicks returns presented frames * 1000 / G2W_FPS, so the game advances exactly one
 * 1/fps step per frame however slowly the software renderer draws. Once the file G2W_TRIGGER
 * exists (the game script makes it at a game time), the back buffer is read before each swap
 * and appended to G2W_OUT as raw RGB (top row first) until G2W_FRAMES frames are written; then
 * the file G2W_DONE appears.
 * Built by g2w/capture/cube2.py with the system C compiler; only SDL and GL symbols are used.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <unistd.h>

#define GL_PACK_ALIGNMENT 0x0D05
#define GL_RGB 0x1907
#define GL_UNSIGNED_BYTE 0x1401

static uint64_t presented;
static long fps = 30, want, width, height, written;
static const char *trigger;
static int triggered;
static FILE *out;
static unsigned char *rows;
static int ready;

static void setup(void) {
  if (ready) return;
  ready = 1;
  const char *v;
  if ((v = getenv("G2W_FPS"))) fps = atol(v);
  trigger = getenv("G2W_TRIGGER");
  if ((v = getenv("G2W_FRAMES"))) want = atol(v);
  if ((v = getenv("G2W_W"))) width = atol(v);
  if ((v = getenv("G2W_H"))) height = atol(v);
  if ((v = getenv("G2W_OUT")) && want > 0 && width > 0 && height > 0) {
    out = fopen(v, "wb");
    rows = malloc((size_t)width * height * 3);
  }
}

uint32_t SDL_GetTicks(void) {
  setup();
  return (uint32_t)(presented * 1000 / fps);
}

void SDL_GL_SwapWindow(void *window) {
  static void (*swap)(void *);
  static void (*read_pixels)(int, int, int, int, unsigned, unsigned, void *);
  static void (*pixel_store)(unsigned, int);
  setup();
  if (!swap) {
    swap = (void (*)(void *))dlsym(RTLD_NEXT, "SDL_GL_SwapWindow");
    read_pixels = (void (*)(int, int, int, int, unsigned, unsigned, void *))dlsym(RTLD_DEFAULT, "glReadPixels");
    pixel_store = (void (*)(unsigned, int))dlsym(RTLD_DEFAULT, "glPixelStorei");
  }
  if (out && !triggered && trigger) triggered = access(trigger, F_OK) == 0;
  if (out && triggered && written < want && read_pixels && pixel_store) {
    pixel_store(GL_PACK_ALIGNMENT, 1);
    read_pixels(0, 0, (int)width, (int)height, GL_RGB, GL_UNSIGNED_BYTE, rows);
    for (long y = height - 1; y >= 0; y--) fwrite(rows + (size_t)y * width * 3, 1, (size_t)width * 3, out);
    if (++written == want) {
      fclose(out);
      out = NULL;
      const char *done = getenv("G2W_DONE");
      FILE *f = done ? fopen(done, "w") : NULL;
      if (f) fclose(f);
    }
  }
  swap(window);
  presented++;
}
