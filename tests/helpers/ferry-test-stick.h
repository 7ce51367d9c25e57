/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An emulated slow USB stick for tests and benchmarks (root only).
 *
 * Stack, bottom up: a sparse backing file in the work directory, served by
 * ferry-slow-disk as <workdir>/ferry-stick-fuse/disk with writes throttled
 * to a device rate, and optionally charged like flash for scattered writes
 * and flushes; a loop device on that file; ext4 on the loop device,
 * mounted with ordinary options so a real writeback queue builds up in
 * front of the slow device. Or exFAT or NTFS, mounted like on a desktop
 * without their kernel drivers: by exfat-fuse and ntfs-3g, user-space
 * daemons that write to the loop device (a "fuseblk" mount).
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

typedef enum
{
  FERRY_TEST_STICK_FS_EXT4,
  FERRY_TEST_STICK_FS_EXFAT, /* mkfs.exfat, mounted by exfat-fuse */
  FERRY_TEST_STICK_FS_NTFS,  /* mkntfs, mounted by ntfs-3g */
  FERRY_TEST_STICK_FS_FAT32, /* mkfs.vfat -F 32, mounted by fusefat */
  FERRY_TEST_STICK_FS_FAT16, /* mkfs.vfat -F 16 (a top folder of 512 entries), mounted by fusefat */
  /* No filesystem: the loop device stays blank and nothing is mounted,
   * for tests that write to the emulator's disk file themselves. */
  FERRY_TEST_STICK_FS_NONE,
} FerryTestStickFs;

/* What issue 12 calls a realistic stick: a write that does not continue
 * the previous one costs 2 ms, a flush 20 ms. */
#define FERRY_TEST_STICK_FLASH_SCATTER_COST_US 2000
#define FERRY_TEST_STICK_FLASH_FLUSH_COST_US   20000

typedef struct
{
  const char *workdir;    /* required; see ferry_test_stick_new() */
  const char *mountpoint; /* NULL: a folder inside @workdir */
  const char *label;      /* required; at most 11 characters for exFAT */
  guint64 size_bytes;
  guint64 rate_bytes_per_sec; /* 0: unthrottled */
  FerryTestStickFs fs;        /* 0: ext4 */
  guint64 scatter_cost_us;    /* per scattered write, 0: free */
  guint64 flush_cost_us;      /* per flush, 0: free */
} FerryTestStickOptions;

/* "ext4", "exfat", "ntfs", "fat32", "none". */
const char *ferry_test_stick_fs_to_string (FerryTestStickFs fs);
gboolean ferry_test_stick_fs_from_string (const char *name, FerryTestStickFs *fs);

/* FALSE, with @reason (free it) saying what is missing, when sticks cannot
 * be made here: not root, no FUSE or loop devices, a tool not installed.
 * Meant for g_test_skip(). */
gboolean ferry_test_stick_is_supported (char **reason);
/* The same for a stick of filesystem @fs, whose tools are checked too
 * (mkfs.exfat and mount.exfat-fuse, or mkntfs and ntfs-3g). */
gboolean ferry_test_stick_is_supported_fs (FerryTestStickFs fs, char **reason);

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

/* ferry_test_stick_new() with every choice: the filesystem and the flash
 * costs too. The rate and the costs apply once the filesystem is made and
 * mounted. */
FerryTestStick *ferry_test_stick_new_full (const FerryTestStickOptions *options, GError **error);
/* ferry_test_stick_new_or_skip() with every choice. */
FerryTestStick *ferry_test_stick_new_or_skip_full (const FerryTestStickOptions *options);

/* Where the filesystem is mounted (an empty folder for
 * FERRY_TEST_STICK_FS_NONE). */
const char *ferry_test_stick_get_mountpoint (FerryTestStick *self);
FerryTestStickFs ferry_test_stick_get_fs (FerryTestStick *self);
/* "/dev/loop3" */
const char *ferry_test_stick_get_loop_device (FerryTestStick *self);
/* "loop3", for /sys/block/<name>/... */
const char *ferry_test_stick_get_block_name (FerryTestStick *self);
/* The FUSE mount point, holding "disk" and "control". */
const char *ferry_test_stick_get_fuse_mountpoint (FerryTestStick *self);
/* The file the disk's contents live in. */
const char *ferry_test_stick_get_backing_file (FerryTestStick *self);
/* The emulator's control file: commands in, 'name value' stats out. */
const char *ferry_test_stick_get_control_file (FerryTestStick *self);

/* Counts of the emulator since it started, read from its control file
 * (0 if it cannot be read): write requests that reached the disk, those
 * of them that did not start where the previous one ended, and flushes
 * (what the loop device sends for a cache flush). */
guint64 ferry_test_stick_get_writes (FerryTestStick *self);
guint64 ferry_test_stick_get_scattered_writes (FerryTestStick *self);
guint64 ferry_test_stick_get_flushes (FerryTestStick *self);
/* Bytes read from the emulated disk: what the kernel's caches did not have. */
guint64 ferry_test_stick_get_bytes_read (FerryTestStick *self);

/* Sectors (512 bytes) the loop device has completed writing: field 7 of
 * /sys/block/<name>/stat. The throttle completes them at the set rate, so
 * this is how much really reached the "device". 0 if unreadable. */
guint64 ferry_test_stick_get_sectors_written (FerryTestStick *self);

/* Bytes per second; 0 lifts the throttle. Takes effect at once, also for a
 * write already waiting. */
gboolean ferry_test_stick_set_rate (FerryTestStick *self,
                                    guint64 rate_bytes_per_sec,
                                    GError **error);
/* Microseconds of device time per scattered write and per flush; 0 makes
 * them free. Takes effect at once, also for a cost being waited. */
gboolean ferry_test_stick_set_costs (FerryTestStick *self,
                                     guint64 scatter_cost_us,
                                     guint64 flush_cost_us,
                                     GError **error);
/* While on, writes reaching the device fail with EIO (so fsync() does). */
gboolean ferry_test_stick_set_fail_writes (FerryTestStick *self, gboolean fail, GError **error);
/* While on, reads reaching the device fail with EIO (remount first, so the
 * page cache does not answer them). */
gboolean ferry_test_stick_set_fail_reads (FerryTestStick *self, gboolean fail, GError **error);

/* Unmounts and mounts the filesystem again, which drops its page cache
 * and the loop device's (where a FUSE daemon's writes wait). Dirty data
 * is written first, at the current rate and costs. */
gboolean ferry_test_stick_remount (FerryTestStick *self, GError **error);

/* What a person does when a replugged stick does not mount (ntfs-3g
 * refuses a volume whose metadata writes a failing device cut short):
 * repairs its filesystem as GNOME Disks would, and mounts it. */
gboolean ferry_test_stick_repair (FerryTestStick *self, GError **error);

/* What the desktop does once a stick is pulled out: the filesystem is
 * detached (umount --lazy) while files may still be open on it, and its
 * mount folder is left, empty, on the filesystem below, where the same
 * path now leads. With ferry_test_stick_set_fail_writes() first, the
 * device is gone too. ferry_test_stick_free() takes down the rest. */
gboolean ferry_test_stick_unmount_lazily (FerryTestStick *self, GError **error);
/* The stick plugged in again after that: its filesystem mounted again
 * where it was. */
gboolean ferry_test_stick_mount_again (FerryTestStick *self, GError **error);
/* Unmounted, and mounted at @name in its work folder instead. */
gboolean ferry_test_stick_mount_elsewhere (FerryTestStick *self, const char *name, GError **error);

/* Unmounts the filesystem (its dirty data is written unthrottled), detaches the
 * loop device, stops the daemon and deletes the backing file. Problems are
 * reported with g_message() only. NULL is allowed. */
void ferry_test_stick_free (FerryTestStick *self);
gboolean ferry_test_stick_remove_workdir (const char *workdir);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryTestStick, ferry_test_stick_free)

G_END_DECLS
