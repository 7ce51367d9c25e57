/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * How each filesystem of a test stick is made and mounted: the commands,
 * and the packages that have them. Internal to the test stick.
 */
#pragma once

#include <glib.h>

#include "ferry-test-stick.h"

G_BEGIN_DECLS

/* Whether @fs is mounted by a user-space daemon (exfat-fuse, ntfs-3g):
 * its mounts name the loop device as their source, and after an unmount
 * the daemon may hold the device a moment longer. */
gboolean ferry_stick_fs_is_fuse (FerryTestStickFs fs);

/* Adds to @missing ("mkfs.exfat not found (package exfatprogs)") each
 * tool that making and mounting @fs needs and that is not installed. */
void ferry_stick_fs_check_tools (FerryTestStickFs fs, GPtrArray *missing);

/* The command that formats @target (a file or a device) as @fs, NULL for
 * FERRY_TEST_STICK_FS_NONE. NULL-terminated, for run_toolv(). */
GPtrArray *ferry_stick_fs_format_argv (FerryTestStickFs fs, const char *label, const char *target);

/* The command that mounts @device on @mountpoint, NULL for
 * FERRY_TEST_STICK_FS_NONE. */
GPtrArray *ferry_stick_fs_mount_argv (FerryTestStickFs fs,
                                      const char *device,
                                      const char *mountpoint);

/* The command that repairs @fs on @device, NULL where none is needed
 * (ext4 replays its journal when mounted). */
GPtrArray *ferry_stick_fs_repair_argv (FerryTestStickFs fs, const char *device);

G_END_DECLS
