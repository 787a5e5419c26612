/* A faked, frame-driven clock and frame grabber for SDL2 OpenGL engines (LD_PRELOAD).
 *
 * SDL_GetTicks returns presented frames * 1000 / G2W_FPS, so the game advances exactly one
 * 1/fps step per frame however slowly the software renderer draws. Once the file G2W_TRIGGER
 * exists (the game script makes it at a game time), the back buffer is read before each swap
 * and appended to G2W_OUT as raw RGB (top row first) until G2W_FRAMES frames are written; then
 * the file G2W_DONE appears.
 *
 * Two more inputs are pinned so that every run of a map is the same match, frame for frame:
 * - time() counts the same frames from a fixed date: the engine seeds its random generator
 *   (bots, spawns, shots) from time(NULL) at start-up;
 * - malloc of exactly G2W_PIN_SIZE bytes on the main thread (the engine's player object) comes
 *   from a static pool, slot by slot in allocation order: the engine offsets each player's looping
 *   animations by the low 12 bits of its address, which on the heap depend on how earlier,
 *   timing-dependent allocations (X events, the GL driver) fell.
 * Built by g2w/capture/cube2.py with the system C compiler (-pthread -ldl).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define GL_PACK_ALIGNMENT 0x0D05
#define GL_RGB 0x1907
#define GL_UNSIGNED_BYTE 0x1401

#define EPOCH ((time_t)1609459200)  /* 2021-01-01 00:00:00 UTC: any fixed date will do */
#define POOL_SLOTS 256              /* players plus the ragdoll copies of dead ones */
#define POOL_SLOT_BYTES 4096

extern void *__libc_malloc(size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

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

static _Alignas(4096) unsigned char pool[POOL_SLOTS][POOL_SLOT_BYTES];
static unsigned char pool_used[POOL_SLOTS];
static size_t pin_size;
static pthread_t main_thread;

__attribute__((constructor)) static void pin_setup(void) {
  const char *v = getenv("G2W_PIN_SIZE");
  size_t n = v ? (size_t)atol(v) : 0;
  pin_size = n <= POOL_SLOT_BYTES ? n : 0;
  main_thread = pthread_self();
}

static long pool_slot(const void *p) {
  uintptr_t c = (uintptr_t)p, start = (uintptr_t)pool;
  if (c < start || c >= start + sizeof pool) return -1;
  return (long)((c - start) / POOL_SLOT_BYTES);
}

void *malloc(size_t n) {
  if (n && n == pin_size && pthread_equal(pthread_self(), main_thread)) {
    /* Slots are a page apart, so a slot's low 12 bits are its offset: 16 bytes more per slot,
       a distinct animation phase for each player, the same in every run. */
    for (long i = 0; i < POOL_SLOTS; i++)
      if (!pool_used[i]) {
        pool_used[i] = 1;
        return pool[i] + (i * 16) % (POOL_SLOT_BYTES - n + 1) / 16 * 16;
      }
  }
  return __libc_malloc(n);
}

void free(void *p) {
  long i = pool_slot(p);
  if (i >= 0) pool_used[i] = 0;
  else __libc_free(p);
}

void *realloc(void *p, size_t n) {
  long i = pool_slot(p);
  if (i < 0) return __libc_realloc(p, n);
  void *q = __libc_malloc(n);
  if (q) {
    memcpy(q, p, n < pin_size ? n : pin_size);
    pool_used[i] = 0;
  }
  return q;
}

uint32_t SDL_GetTicks(void) {
  setup();
  return (uint32_t)(presented * 1000 / fps);
}

time_t time(time_t *t) {
  setup();
  time_t now = EPOCH + (time_t)(presented / (uint64_t)fps);
  if (t) *t = now;
  return now;
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
