#ifndef CLINUX_SHIM_H
#define CLINUX_SHIM_H
// Linux kernel and glibc headers that Glibc's module map leaves out: the console (kd, vt),
// fbdev, netlink uevents, signalfd, inotify, statfs (the file system's magic), adjtimex (clock
// sync state) and timerfd (wall-clock steps). No library to link: these are system calls
// and ioctls. malloc.h: glibc's allocator settings and statistics (mallopt, malloc_trim, mallinfo2).
#include <linux/fb.h>
#include <linux/kd.h>
#include <linux/netlink.h>
#include <linux/vt.h>
#include <malloc.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/statfs.h>
#include <sys/timerfd.h>
#include <sys/timex.h>

#endif
