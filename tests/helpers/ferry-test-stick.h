/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An emulated slow USB stick for tests and benchmarks (root only).
 *
 * Stack, bottom up: a sparse backing file in the work directory, served by
 * ferry-slow-disk as <workdir>/ferry-stick-fuse/disk with writes throttled
 * to a device rate; a loop device on that file; ext4 on the loop device,
 * mounted with ordinary options so a real writeback queue builds up in
 * front of the slow device.
 *
 * The stick is taken down by ferry_test_stick_free(), and also when the
 * test process dies without calling it: the daemon watches a pipe whose
 * other end only this process holds. ferry_test_stick_new() first clears
 * whatever a crashed run left at the same work directory and mount point.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _FerryTestStick FerryTestStick;

/* FALSE, with @reason (free it) saying what is missing, when sticks cannot
 * be made here: not root, no FUSE or loop devices, a tool not installed.
 * Meant for g_test_skip(). */
gboolean ferry_test_stick_is_supported (char **reason);

/* Creates and mounts a stick of @size_bytes whose writes drain at
 * @rate_bytes_per_sec (0: unthrottled). @workdir holds the backing file
 * and the FUSE mount; @mountpoint is where ext4 is mounted ("/media/LABEL"
 * makes GIO list it as a drive), created if missing, NULL for a directory
 * inside @workdir. Formatting happens before the throttle applies. */
FerryTestStick *ferry_test_stick_new (const char *workdir,
                                      const char *mountpoint,
                                      const char *label,
                                      guint64 size_bytes,
                                      guint64 rate_bytes_per_sec,
                                      GError **error);

/* ferry_test_stick_new() for a GTest case: NULL after g_test_skip() with
 * the reason where sticks cannot be made; a failure to make one where they
 * can is a test failure. */
FerryTestStick *ferry_test_stick_new_or_skip (const char *workdir,
                                              const char *mountpoint,
                                              const char *label,
                                              guint64 size_bytes,
                                              guint64 rate_bytes_per_sec);

/* Where the ext4 is mounted. */
const char *ferry_test_stick_get_mountpoint (FerryTestStick *self);
/* "/dev/loop3" */
const char *ferry_test_stick_get_loop_device (FerryTestStick *self);
/* "loop3", for /sys/block/<name>/... */
const char *ferry_test_stick_get_block_name (FerryTestStick *self);
/* The FUSE mount point, holding "disk" and "control". */
const char *ferry_test_stick_get_fuse_mountpoint (FerryTestStick *self);
/* The file the disk's contents live in. */
const char *ferry_test_stick_get_backing_file (FerryTestStick *self);

/* Sectors (512 bytes) the loop device has completed writing: field 7 of
 * /sys/block/<name>/stat. The throttle completes them at the set rate, so
 * this is how much really reached the "device". 0 if unreadable. */
guint64 ferry_test_stick_get_sectors_written (FerryTestStick *self);

/* Bytes per second; 0 lifts the throttle. Takes effect at once, also for a
 * write already waiting. */
gboolean ferry_test_stick_set_rate (FerryTestStick *self,
                                    guint64 rate_bytes_per_sec,
                                    GError **error);
/* While on, writes reaching the device fail with EIO (so fsync() does). */
gboolean ferry_test_stick_set_fail_writes (FerryTestStick *self, gboolean fail, GError **error);
/* While on, reads reaching the device fail with EIO (remount first, so the
 * page cache does not answer them). */
gboolean ferry_test_stick_set_fail_reads (FerryTestStick *self, gboolean fail, GError **error);

/* Unmounts and mounts the ext4 again, which drops its page cache. Dirty
 * data is written first, at the current rate. */
gboolean ferry_test_stick_remount (FerryTestStick *self, GError **error);

/* Unmounts the ext4 (its dirty data is written unthrottled), detaches the
 * loop device, stops the daemon and deletes the backing file. Problems are
 * reported with g_message() only. NULL is allowed. */
void ferry_test_stick_free (FerryTestStick *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryTestStick, ferry_test_stick_free)

G_END_DECLS
