#ifndef CEVDEV_SHIM_H
#define CEVDEV_SHIM_H
#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <linux/input.h>

/* input_event_sec/usec are member-access macros (time.tv_sec on 64-bit, __sec on 32-bit
 * time64 builds such as Raspberry Pi OS armhf): Swift cannot import them. */
static inline long long cevdev_event_sec(const struct input_event *ev) { return (long long)ev->input_event_sec; }
static inline long long cevdev_event_usec(const struct input_event *ev) { return (long long)ev->input_event_usec; }
#endif
