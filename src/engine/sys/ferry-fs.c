/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gi18n-lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "ferry-error.h"
#include "ferry-fs.h"

void
ferry_fd_closep (int *fd)
{
  if (*fd >= 0)
    {
      int errsv = errno;
      close (*fd);
      errno = errsv;
    }
  *fd = -1;
}

int
ferry_fd_steal (int *fd)
{
  int ret = *fd;
  *fd = -1;
  return ret;
}

void
ferry_dir_reader_init (FerryDirReader *reader, int fd, gsize buffer_size)
{
  reader->fd = fd;
  reader->size = buffer_size;
  reader->len = 0;
  reader->pos = 0;
  reader->buf = g_malloc (buffer_size);
}

void
ferry_dir_reader_clear (FerryDirReader *reader)
{
  g_clear_pointer (&reader->buf, g_free);
}

/* Returns FALSE at the end of the directory or on error (*errsv != 0).
 * "." and ".." are never returned. */
gboolean
ferry_dir_reader_next (FerryDirReader *reader, const char **name, unsigned char *d_type, int *errsv)
{
  *errsv = 0;
  for (;;)
    {
      if (reader->pos >= reader->len)
        {
          reader->len = getdents64 (reader->fd, reader->buf, reader->size);
          reader->pos = 0;
          if (reader->len < 0)
            {
              *errsv = errno;
              reader->len = 0;
              return FALSE;
            }
          if (reader->len == 0)
            return FALSE;
        }

      struct dirent64 *entry = (struct dirent64 *) (reader->buf + reader->pos);
      reader->pos += entry->d_reclen;
      if (ferry_is_dot_or_dotdot (entry->d_name))
        continue;
      *name = entry->d_name;
      *d_type = entry->d_type;
      return TRUE;
    }
}

/**
 * ferry_dir_list_names:
 * The names in the folder @dir_fd (which may be an O_PATH descriptor, or
 * -1), read from a descriptor of their own: an empty list when it cannot
 * be read. @buffer_size: for getdents64.
 */
GPtrArray *
ferry_dir_list_names (int dir_fd, gsize buffer_size)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  int fd = dir_fd >= 0 ? openat (dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
  FerryDirReader reader;
  const char *name;
  unsigned char d_type;
  int errsv;

  if (fd < 0)
    return names;
  ferry_dir_reader_init (&reader, fd, buffer_size);
  while (ferry_dir_reader_next (&reader, &name, &d_type, &errsv))
    g_ptr_array_add (names, g_strdup (name));
  ferry_dir_reader_clear (&reader);
  close (fd);
  return names;
}

gboolean
ferry_is_dot_or_dotdot (const char *name)
{
  return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

/* Paths as a person typed them are resolved by the kernel, name by name,
 * never collapsed as text: "lnk/../f" is the "f" beside the folder lnk
 * leads to, not the one beside lnk (g_canonicalize_filename() and
 * g_file_new_for_path() would say the latter). */

/* @path without the slashes that end it ("/" stays "/"). */
char *
ferry_path_trim_slashes (const char *path)
{
  gsize len = strlen (path);

  while (len > 1 && path[len - 1] == '/')
    len--;
  return g_strndup (path, len);
}

/* Whether @path names a folder whatever its last name is: it ends in "/",
 * "." or "..", so the kernel follows a link there, and "." and ".." mean
 * the folder itself rather than an entry of it. */
gboolean
ferry_path_names_folder (const char *path)
{
  g_autofree char *trimmed = ferry_path_trim_slashes (path);
  g_autofree char *base = g_path_get_basename (trimmed);

  return strcmp (trimmed, path) != 0 || ferry_is_dot_or_dotdot (base);
}

/**
 * ferry_path_resolve:
 * The absolute path, free of "." and "..", of what @path names: the folder
 * holding its last name resolved through links as the kernel does, the
 * last name kept as it is (it may be a link), unless @path names a folder
 * (ferry_path_names_folder()). A path that does not resolve is only
 * collapsed as text, for display.
 */
char *
ferry_path_resolve (const char *path)
{
  g_autofree char *trimmed = ferry_path_trim_slashes (path);
  g_autofree char *base = g_path_get_basename (trimmed);
  g_autofree char *dir = g_path_get_dirname (trimmed);
  g_autofree char *real = realpath (ferry_path_names_folder (path) ? path : dir, NULL);

  if (real == NULL)
    return g_canonicalize_filename (path, NULL);
  if (ferry_path_names_folder (path))
    return g_steal_pointer (&real);
  return g_build_filename (real, base, NULL);
}

/* File names are bytes; messages are UTF-8 and one line. Keep valid
 * printable UTF-8 as it is and show anything else as \xNN (or \n, \t) so
 * a person can still tell which file is meant. */
char *
ferry_path_display (const char *path)
{
  GString *out = g_string_sized_new (strlen (path) + 8);
  const char *p = path;

  while (*p != '\0')
    {
      gunichar c = g_utf8_get_char_validated (p, -1);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          g_string_append_printf (out, "\\x%02X", (guchar) *p);
          p++;
          continue;
        }
      if (c == '\n')
        g_string_append (out, "\\n");
      else if (c == '\t')
        g_string_append (out, "\\t");
      else if (c == '\\')
        g_string_append (out, "\\\\");
      else if (g_unichar_iscntrl (c))
        g_string_append_printf (out, "\\x%02X", c);
      else
        g_string_append_unichar (out, c);
      p = g_utf8_next_char (p);
    }
  return g_string_free (out, FALSE);
}

char *
ferry_path_display_join (const char *dir, const char *name)
{
  g_autofree char *joined = g_build_filename (dir, name, NULL);
  return ferry_path_display (joined);
}

/* Sets a G_IO_ERROR from errno with a message such as
 * "Could not read “/a/b”: Permission denied". Always returns FALSE. */
gboolean
ferry_set_error_from_errno (GError **error,
                            int errsv,
                            const char *format_with_path,
                            const char *path)
{
  g_autofree char *display = ferry_path_display (path);
  g_autofree char *what = NULL;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  what = g_strdup_printf (format_with_path, display);
#pragma GCC diagnostic pop

  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
               /* Translators: what failed, then the system's reason, like
                * "Could not read “/a/b”: Permission denied" */
               _ ("%s: %s"), what, g_strerror (errsv));
  return FALSE;
}

/* Sets one of Ferry's own errors, @format_with_path naming @path in its
 * display form. Always returns FALSE. */
gboolean
ferry_set_ferry_error (GError **error, int code, const char *format_with_path, const char *path)
{
  g_autofree char *display = ferry_path_display (path);

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  g_set_error (error, FERRY_ERROR, code, format_with_path, display);
#pragma GCC diagnostic pop
  return FALSE;
}

/* Failures that mean the destination as a whole is gone, full or
 * failing, so every later file would fail too. */
gboolean
ferry_errno_is_device_failure (int errsv)
{
  switch (errsv)
    {
      case ENOSPC:
      case EDQUOT:
      case EIO:
      case EROFS:
      case ENODEV:
      case ENXIO:
      case ESHUTDOWN:
      case ENOTCONN:
        return TRUE;
      default:
        return FALSE;
    }
}

/* Whether @dir_fd is the top folder of its filesystem (where it is
 * mounted). */
gboolean
ferry_fs_is_mount_root (int dir_fd)
{
  struct statx stx;

  return statx (dir_fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx) == 0
         && (stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) != 0
         && (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0;
}

gboolean
ferry_stat_same_file (const struct stat *a, const struct stat *b)
{
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

guint
ferry_inode_key_hash (gconstpointer data)
{
  const FerryInodeKey *key = data;
  return (guint) (key->ino ^ (key->ino >> 32) ^ key->dev);
}

gboolean
ferry_inode_key_equal (gconstpointer a, gconstpointer b)
{
  const FerryInodeKey *ka = a, *kb = b;
  return ka->dev == kb->dev && ka->ino == kb->ino;
}

/* Deep trees keep a descriptor open per level while their children are
 * copied; the default soft limit of 1024 would cap the depth. */
void
ferry_raise_fd_limit (void)
{
  struct rlimit limit;

  if (getrlimit (RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max)
    {
      limit.rlim_cur = limit.rlim_max;
      setrlimit (RLIMIT_NOFILE, &limit);
    }
}

/* umask() can only be read by changing it, which races with other
 * threads creating files; the kernel also reports it in /proc. */
mode_t
ferry_get_umask (void)
{
  g_autofree char *status = NULL;
  const char *line;

  if (g_file_get_contents ("/proc/self/status", &status, NULL, NULL)
      && (line = strstr (status, "\nUmask:")) != NULL)
    return (mode_t) g_ascii_strtoull (line + strlen ("\nUmask:"), NULL, 8) & 0777;
  return 022;
}

/* A path through /proc that reaches @name inside the folder @fd without
 * following @name itself when used with the l*() calls: how extended
 * attributes of symlinks and special files are read relative to a folder. */
char *
ferry_proc_fd_path (int fd, const char *name)
{
  if (name == NULL)
    return g_strdup_printf ("/proc/self/fd/%d", fd);
  return g_strdup_printf ("/proc/self/fd/%d/%s", fd, name);
}

/* Opens something to read from a source. Reading must not change the
 * source, not even its access time: O_NOATIME where the kernel allows it
 * (the owner, or root), plain reading elsewhere. */
int
ferry_open_source_at (int dir_fd, const char *name, int flags)
{
  int fd = openat (dir_fd, name, flags | O_NOATIME);

  if (fd < 0 && errno == EPERM)
    fd = openat (dir_fd, name, flags);
  return fd;
}

/* Whether entries made in the folder get a group or mode other than the
 * ones Ferry asks for: a setgid folder passes on its group, a default ACL
 * replaces the umask. Unknown counts as yes. */
gboolean
ferry_folder_shapes_new_entries (int fd)
{
  struct stat st;

  if (fstat (fd, &st) != 0 || (st.st_mode & S_ISGID))
    return TRUE;
  return fgetxattr (fd, "system.posix_acl_default", NULL, 0) >= 0
         || (errno != ENODATA && errno != ENOTSUP);
}

/* FUSE filesystems report this type; linux/magic.h does not name it. */
#define FUSE_SUPER_MAGIC 0x65735546
#define EXFAT_SUPER_MAGIC 0x2011BAB0

/* Whether @fd is on a FUSE filesystem, whose daemon keeps metadata of its
 * own that only an fsync (or an unmount) makes it write. */
gboolean
ferry_fs_is_fuse (int fd)
{
  struct statfs fs;

  return fstatfs (fd, &fs) == 0 && fs.f_type == FUSE_SUPER_MAGIC;
}

/* configfs has no constant in <linux/magic.h>; this is the one the
 * kernel's fs/configfs/mount.c gives it. */
#define CONFIGFS_MAGIC 0x62656570

/**
 * ferry_fs_is_pseudo:
 * Whether @fd is on a filesystem the kernel makes up as it is read:
 * procfs, sysfs, debugfs, tracefs, configfs, securityfs, cgroupfs,
 * selinuxfs, smackfs. A file there says size 0 or 4096 whatever it
 * holds (/proc/cpuinfo says 0), and copy_file_range and sendfile copy
 * nothing of it: only reading to the end gives its content.
 */
gboolean
ferry_fs_is_pseudo (int fd)
{
  static const unsigned long pseudo[] = {
    PROC_SUPER_MAGIC, SYSFS_MAGIC,        DEBUGFS_MAGIC,      TRACEFS_MAGIC, CONFIGFS_MAGIC,
    SECURITYFS_MAGIC, CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC, SELINUX_MAGIC, SMACK_MAGIC,
  };
  struct statfs fs;

  if (fstatfs (fd, &fs) != 0)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (pseudo); i++)
    if ((unsigned long) fs.f_type == pseudo[i])
      return TRUE;
  return FALSE;
}

/* 0 while the filesystem of @fd is mounted for writing, else EROFS (or
 * why it cannot be told). ext4 turns read-only when its journal fails,
 * and from then on a sync returns 0 having written nothing. */
int
ferry_fs_check_writable (int fd)
{
  struct statfs fs;

  if (fstatfs (fd, &fs) != 0)
    return errno;
  return (fs.f_flags & ST_RDONLY) != 0 ? EROFS : 0;
}

/* linux/magic.h names it NTFS_SB_MAGIC, for the kernel's ntfs3. */
#define NTFS3_SUPER_MAGIC 0x5346544e

/* Whether the filesystem of @fd is FAT or exFAT (or, with @ntfs, NTFS),
 * or anything through FUSE, whose daemon is asked nothing; @unknown when
 * it cannot be told. */
static gboolean
is_windows_or_fuse (int fd, gboolean ntfs, gboolean unknown)
{
  struct statfs fs;

  if (fstatfs (fd, &fs) != 0)
    return unknown;
  return fs.f_type == FUSE_SUPER_MAGIC || fs.f_type == MSDOS_SUPER_MAGIC
         || fs.f_type == EXFAT_SUPER_MAGIC || (ntfs && fs.f_type == NTFS3_SUPER_MAGIC);
}

/**
 * ferry_fs_leaves_holes:
 * Whether the filesystem of @fd can leave a hole where a file is written
 * past its end. FAT and exFAT cannot: a write at an offset makes them
 * write zeros up to it first (exfat-fuse does, to the device, so a big
 * file copied in pieces at different offsets costs its size again). A
 * FUSE daemon is asked nothing and may do the same: counted as no.
 */
gboolean
ferry_fs_leaves_holes (int fd)
{
  return !is_windows_or_fuse (fd, FALSE, TRUE);
}

/**
 * ferry_fs_keeps_file_owners:
 * Whether files in the filesystem of @fd each have an owner of their
 * own. FAT, exFAT and NTFS (through FUSE or the kernel) give every file
 * the owner the mount was given: there the owner tells nothing of who
 * made a file.
 */
gboolean
ferry_fs_keeps_file_owners (int fd)
{
  return !is_windows_or_fuse (fd, TRUE, FALSE);
}

/* One line of /proc/self/mountinfo: "36 35 98:0 /mnt1 /mnt2 rw,noatime
 * master:1 - ext3 /dev/root rw,errors=continue"; the optional fields end
 * at the lone "-". Paths escape spaces as \040, which g_strcompress()
 * undoes. */
typedef struct
{
  char *fstype;
  char *source;
  char *mount_point;
} MountLine;

/* One line of /proc/self/mountinfo: its device number in *@dev and,
 * where that is *@want (or @want is NULL), its type, source and mount
 * point in @mount; a line of another device costs no copies. */
static gboolean
parse_mount_line (const char *line, const dev_t *want, dev_t *dev, MountLine *mount)
{
  g_auto (GStrv) fields = g_strsplit (line, " ", -1);
  guint n = g_strv_length (fields);
  unsigned int major_num, minor_num;

  if (n < 10 || sscanf (fields[2], "%u:%u", &major_num, &minor_num) != 2)
    return FALSE;
  *dev = makedev (major_num, minor_num);
  if (want != NULL && *dev != *want)
    return FALSE;
  for (guint i = 6; i + 2 < n; i++)
    if (strcmp (fields[i], "-") == 0)
      {
        mount->fstype = g_strdup (fields[i + 1]);
        mount->source = g_strcompress (fields[i + 2]);
        mount->mount_point = g_strcompress (fields[4]);
        return TRUE;
      }
  return FALSE;
}

static void
mount_line_clear (MountLine *mount)
{
  g_clear_pointer (&mount->fstype, g_free);
  g_clear_pointer (&mount->source, g_free);
  g_clear_pointer (&mount->mount_point, g_free);
}

typedef enum
{
  MOUNT_UNKNOWN, /* the mount table could not be read */
  MOUNT_ABSENT,
  MOUNT_FOUND,
} MountSearch;

/* The lines of this process's mount table, or NULL when it cannot be
 * read. */
static GStrv
read_mount_lines (void)
{
  g_autofree char *contents = NULL;

  if (!g_file_get_contents ("/proc/self/mountinfo", &contents, NULL, NULL))
    return NULL;
  return g_strsplit (contents, "\n", -1);
}

static MountSearch
find_mount_line (dev_t dev, MountLine *mount)
{
  g_auto (GStrv) lines = read_mount_lines ();
  dev_t found;

  if (lines == NULL)
    return MOUNT_UNKNOWN;
  for (guint i = 0; lines[i] != NULL; i++)
    if (parse_mount_line (lines[i], &dev, &found, mount))
      return MOUNT_FOUND;
  return MOUNT_ABSENT;
}

/* The mount ID of the folder or file @fd, through which it was
 * reached; FALSE on a kernel that does not say (before Linux 5.8). */
static gboolean
get_mount_id (int fd, guint64 *mount_id)
{
  struct statx stx;

  if (statx (fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) != 0 || !(stx.stx_mask & STATX_MNT_ID))
    return FALSE;
  *mount_id = stx.stx_mnt_id;
  return TRUE;
}

/* @path below @mount_point, without the leading "/": "a/b" for
 * "/mnt/a/b" in "/mnt", "" for the mount point itself; NULL when @path is
 * not below it. */
static const char *
path_below (const char *path, const char *mount_point)
{
  size_t len = strlen (mount_point);

  if (strcmp (mount_point, "/") == 0)
    return path + 1;
  if (strncmp (path, mount_point, len) != 0 || (path[len] != '/' && path[len] != '\0'))
    return NULL;
  return path[len] == '/' ? path + len + 1 : path + len;
}

/* The mount table's line of mount @mount_id, split in its fields. */
static GStrv
find_mount_fields (guint64 mount_id)
{
  g_auto (GStrv) lines = read_mount_lines ();
  g_autofree char *id = g_strdup_printf ("%" G_GUINT64_FORMAT " ", mount_id);

  for (guint i = 0; lines != NULL && lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], id))
      {
        GStrv fields = g_strsplit (lines[i], " ", -1);

        if (g_strv_length (fields) >= 5)
          return fields;
        g_strfreev (fields);
      }
  return NULL;
}

/**
 * ferry_fs_same_mount:
 * Whether @a and @b were reached through one mount. Within one, walking
 * up with ".." from a folder meets every folder above it there, so only
 * where they differ (a bind mount, say) need they be compared by
 * ferry_fs_path_in_filesystem(). TRUE too when the kernel does not say.
 */
gboolean
ferry_fs_same_mount (int a, int b)
{
  guint64 mount_a, mount_b;

  return !get_mount_id (a, &mount_a) || !get_mount_id (b, &mount_b) || mount_a == mount_b;
}

/**
 * ferry_fs_path_in_filesystem:
 * Where @fd lies inside its filesystem, whichever mount reached it: its
 * mount's root within the filesystem (the mount table's fourth field,
 * "/top/sub" for a bind mount of that folder) joined to its path below
 * the mount point. Two folders of one filesystem are one inside the
 * other when their paths are, which walking up with ".." cannot tell
 * from the root of a bind mount (its ".." is its mount point's parent).
 * NULL when the kernel cannot tell (an entry deleted or outside this
 * process's root).
 */
char *
ferry_fs_path_in_filesystem (int fd)
{
  g_autofree char *proc_path = g_strdup_printf ("/proc/self/fd/%d", fd);
  g_autofree char *path = g_file_read_link (proc_path, NULL);
  g_auto (GStrv) fields = NULL;
  g_autofree char *root = NULL;
  g_autofree char *mount_point = NULL;
  const char *below;
  guint64 mount_id;

  if (path == NULL || path[0] != '/' || g_str_has_suffix (path, " (deleted)")
      || !get_mount_id (fd, &mount_id) || (fields = find_mount_fields (mount_id)) == NULL)
    return NULL;
  root = g_strcompress (fields[3]);
  mount_point = g_strcompress (fields[4]);
  if ((below = path_below (path, mount_point)) == NULL)
    return NULL;
  return g_build_filename (root, below, NULL);
}

/**
 * ferry_fs_is_unmounted:
 * Whether no mount has the device number @dev. FALSE too when the mount
 * table cannot be read (out of descriptors: EMFILE), which is no sign
 * that a drive went away.
 */
gboolean
ferry_fs_is_unmounted (dev_t dev)
{
  MountLine mount = { NULL, NULL, NULL };
  MountSearch search = find_mount_line (dev, &mount);

  mount_line_clear (&mount);
  return search == MOUNT_ABSENT;
}

static void
device_mount_clear (gpointer data)
{
  g_free (((FerryDeviceMount *) data)->mount_point);
}

/**
 * ferry_fs_list_device_mounts:
 * Returns: (transfer full) (element-type FerryDeviceMount): the mounts
 * of a device node ("/dev/sdb1": sticks and disks, through FUSE too),
 * each device once, where it was mounted first (as
 * ferry_fs_find_mount_point() finds it), in the mount table's order.
 */
GArray *
ferry_fs_list_device_mounts (void)
{
  GArray *mounts = g_array_new (FALSE, FALSE, sizeof (FerryDeviceMount));
  g_auto (GStrv) lines = read_mount_lines ();

  g_array_set_clear_func (mounts, device_mount_clear);
  for (guint i = 0; lines != NULL && lines[i] != NULL; i++)
    {
      MountLine mount = { NULL, NULL, NULL };
      FerryDeviceMount found = { 0, NULL };
      gboolean seen = FALSE;

      if (parse_mount_line (lines[i], NULL, &found.dev, &mount)
          && g_str_has_prefix (mount.source, "/dev/"))
        {
          for (guint j = 0; j < mounts->len && !seen; j++)
            seen = g_array_index (mounts, FerryDeviceMount, j).dev == found.dev;
          found.mount_point = g_steal_pointer (&mount.mount_point);
          if (!seen)
            g_array_append_val (mounts, found);
          else
            g_free (found.mount_point);
        }
      mount_line_clear (&mount);
    }
  return mounts;
}

/**
 * ferry_fs_find_mount:
 * The filesystem type and source of the mount whose device number is
 * @dev (a file's st_dev): for "fuseblk" mounts (ntfs-3g, exfat-fuse)
 * that is the block device itself, for other FUSE mounts an anonymous
 * number. FALSE when no mount has it.
 */
gboolean
ferry_fs_find_mount (dev_t dev, char **fstype, char **source)
{
  return ferry_fs_find_mount_point (dev, fstype, source, NULL);
}

/**
 * ferry_fs_find_mount_point:
 * ferry_fs_find_mount(), and where the first mount of @dev is mounted
 * (@mount_point, nullable like the others): a filesystem mounted twice
 * is found where it was mounted first.
 */
gboolean
ferry_fs_find_mount_point (dev_t dev, char **fstype, char **source, char **mount_point)
{
  MountLine mount = { NULL, NULL, NULL };

  if (find_mount_line (dev, &mount) != MOUNT_FOUND)
    return FALSE;
  if (fstype != NULL)
    *fstype = g_steal_pointer (&mount.fstype);
  if (source != NULL)
    *source = g_steal_pointer (&mount.source);
  if (mount_point != NULL)
    *mount_point = g_steal_pointer (&mount.mount_point);
  mount_line_clear (&mount);
  return TRUE;
}

/* Opens the folder @relpath below @root_fd without following a symlink
 * on the way or leaving @root_fd's tree: in a folder others can write
 * to, a path found earlier may lead anywhere by now. */
int
ferry_open_folder_beneath (int root_fd, const char *relpath)
{
  struct open_how how = {
    .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
    .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
  };

  return (int) syscall (SYS_openat2, root_fd, relpath[0] != '\0' ? relpath : ".", &how,
                        sizeof how);
}

/**
 * ferry_open_parent_beneath:
 * Opens the folder holding the last name of @relpath, a path below
 * @root_fd, never through a symlink (see ferry_open_folder_beneath()): a
 * folder someone swapped for a link since Ferry made it fails with ELOOP
 * instead of leading elsewhere. *@base points into @relpath at the last
 * name. Returns -1 with errno set on failure.
 */
int
ferry_open_parent_beneath (int root_fd, const char *relpath, const char **base)
{
  const char *slash = strrchr (relpath, '/');
  g_autofree char *parent = slash != NULL ? g_strndup (relpath, slash - relpath) : g_strdup ("");

  *base = slash != NULL ? slash + 1 : relpath;
  return ferry_open_folder_beneath (root_fd, parent);
}
