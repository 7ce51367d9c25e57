/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Read-only queries about mounts and loop devices, shared by the slow-disk
 * daemon (which tears a stick down when its test dies) and the test fixture
 * (which cleans what a crashed run left behind).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Mount points of every mount of the block device @block_name ("loop3"):
 * by its device number, or, for FUSE filesystems such as ntfs-3g and
 * exfat-fuse, by the source they name. The most recent first, which is
 * the order they can be unmounted in. */
GPtrArray *ferry_stick_sys_list_mounts_of_block (const char *block_name);

/* Whether something is mounted on @path (absolute, canonical) in this
 * mount namespace. */
gboolean ferry_stick_sys_is_mounted (const char *path);

/* Names ("loop3") of the loop devices whose backing file is @path. */
GPtrArray *ferry_stick_sys_list_loops_backed_by (const char *path);

/* Contents of /sys/block/<block_name>/<attribute>, without the trailing
 * newline, or NULL if it cannot be read (a detached loop device has no
 * "loop/backing_file"). */
char *ferry_stick_sys_read_block_attribute (const char *block_name, const char *attribute);

/* Whether the loop device @block_name is bound to a backing file. */
gboolean ferry_stick_sys_loop_is_attached (const char *block_name);

/* The path of the program @name, looked for in PATH and then in the sbin
 * folders, which a test runner's PATH may lack; NULL if not installed. */
char *ferry_stick_sys_find_tool (const char *name);

G_END_DECLS
