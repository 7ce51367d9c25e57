/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <sys/stat.h>
#include <sys/types.h>

G_BEGIN_DECLS

/* A file descriptor closed when it goes out of scope. */
#define ferry_autofd __attribute__ ((cleanup (ferry_fd_closep))) int

void ferry_fd_closep (int *fd);
int ferry_fd_steal (int *fd);

/* One getdents64 pass over a directory: no allocation per entry. */
typedef struct
{
  int fd;
  gsize size;
  gssize len;
  gssize pos;
  char *buf;
} FerryDirReader;

void ferry_dir_reader_init (FerryDirReader *reader, int fd, gsize buffer_size);
void ferry_dir_reader_clear (FerryDirReader *reader);
gboolean ferry_dir_reader_next (FerryDirReader *reader,
                                const char **name,
                                unsigned char *d_type,
                                int *errsv);

GPtrArray *ferry_dir_list_names (int dir_fd, gsize buffer_size);

char *ferry_path_trim_slashes (const char *path);
gboolean ferry_path_names_folder (const char *path);
char *ferry_path_resolve (const char *path);
char *ferry_path_display (const char *path);
char *ferry_path_display_join (const char *dir, const char *name);

gboolean ferry_set_error_from_errno (GError **error,
                                     int errsv,
                                     const char *format_with_path,
                                     const char *path);
gboolean ferry_set_ferry_error (GError **error,
                                int code,
                                const char *format_with_path,
                                const char *path);
gboolean ferry_errno_is_device_failure (int errsv);

gboolean ferry_fs_is_mount_root (int dir_fd);
gboolean ferry_stat_same_file (const struct stat *a, const struct stat *b);

/* A file's identity, as a hash table key. */
typedef struct
{
  dev_t dev;
  ino_t ino;
} FerryInodeKey;

guint ferry_inode_key_hash (gconstpointer key);
gboolean ferry_inode_key_equal (gconstpointer a, gconstpointer b);
gboolean ferry_is_dot_or_dotdot (const char *name);
void ferry_raise_fd_limit (void);
mode_t ferry_get_umask (void);
char *ferry_proc_fd_path (int fd, const char *name);
int ferry_open_source_at (int dir_fd, const char *name, int flags);
int ferry_open_parent_beneath (int root_fd, const char *relpath, const char **base);
int ferry_open_folder_beneath (int root_fd, const char *relpath);
gboolean ferry_folder_shapes_new_entries (int fd);
gboolean ferry_fs_leaves_holes (int fd);
gboolean ferry_fs_keeps_file_owners (int fd);
gboolean ferry_fs_is_fuse (int fd);
gboolean ferry_fs_is_pseudo (int fd);
int ferry_fs_check_writable (int fd);
gboolean ferry_fs_find_mount (dev_t dev, char **fstype, char **source);
gboolean ferry_fs_is_unmounted (dev_t dev);
gboolean ferry_fs_same_mount (int a, int b);
char *ferry_fs_path_in_filesystem (int fd);
/* A mounted device, and where it was mounted first. */
typedef struct
{
  dev_t dev;
  char *mount_point;
} FerryDeviceMount;

GArray *ferry_fs_list_device_mounts (void);
gboolean ferry_fs_find_mount_point (dev_t dev, char **fstype, char **source, char **mount_point);

G_END_DECLS
