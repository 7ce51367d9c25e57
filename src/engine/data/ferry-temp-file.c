/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ferry-fs.h"
#include "ferry-temp-file.h"

#define TEMP_PREFIX ".ferry-"
#define TEMP_SUFFIX ".part"

char *
ferry_temp_name_new (void)
{
  return g_strdup_printf (TEMP_PREFIX "%08x%08x" TEMP_SUFFIX, g_random_int (), g_random_int ());
}

gboolean
ferry_temp_name_is_ours (const char *name)
{
  return g_str_has_prefix (name, TEMP_PREFIX) && g_str_has_suffix (name, TEMP_SUFFIX);
}

static gboolean
open_unnamed (FerryTempFile *tmp, int dir_fd, atomic_bool *unsupported, int *errsv)
{
  if (atomic_load (unsupported))
    return FALSE;

  tmp->fd = openat (dir_fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, tmp->mode);
  if (tmp->fd >= 0)
    return TRUE;

  *errsv = errno;
  if (*errsv == EOPNOTSUPP || *errsv == EISDIR || *errsv == EINVAL)
    {
      atomic_store (unsupported, TRUE);
      *errsv = 0;
    }
  return FALSE;
}

/* Calls @make with fresh hidden names until one is not taken; @make
 * returns 0 or -1 with errno, as the system calls it wraps do. */
static gboolean
make_with_temp_name (int (*make) (FerryTempFile *tmp, const char *name),
                     FerryTempFile *tmp,
                     int *errsv)
{
  for (guint attempt = 0; attempt < 100; attempt++)
    {
      g_autofree char *name = ferry_temp_name_new ();

      if (make (tmp, name) == 0)
        {
          tmp->name = g_steal_pointer (&name);
          return TRUE;
        }
      if (errno != EEXIST)
        break;
    }
  *errsv = errno;
  return FALSE;
}

static int
create_named (FerryTempFile *tmp, const char *name)
{
  tmp->fd
      = openat (tmp->dir_fd, name, O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, tmp->mode);
  return tmp->fd >= 0 ? 0 : -1;
}

/* Gives an unnamed file a name. Linking the descriptor itself
 * (AT_EMPTY_PATH) saves a path walk through /proc per file; kernels
 * before 6.10 allow it to root only, so the /proc path remains. */
static int
link_unnamed (FerryTempFile *tmp, const char *name)
{
  static atomic_bool empty_path_refused;
  g_autofree char *proc_path = NULL;

  if (!atomic_load (&empty_path_refused))
    {
      if (linkat (tmp->fd, "", tmp->dir_fd, name, AT_EMPTY_PATH) == 0)
        return 0;
      if (errno != EPERM && errno != ENOENT && errno != EINVAL)
        return -1;
      atomic_store (&empty_path_refused, TRUE);
    }
  proc_path = ferry_proc_fd_path (tmp->fd, NULL);
  return linkat (AT_FDCWD, proc_path, tmp->dir_fd, name, AT_SYMLINK_FOLLOW);
}

gboolean
ferry_temp_file_open (FerryTempFile *tmp,
                      int dir_fd,
                      mode_t mode,
                      atomic_bool *unnamed_unsupported,
                      int *errsv)
{
  *errsv = 0;
  tmp->dir_fd = dir_fd;
  /* Never more open than the copy will be; the metadata step sets the
   * rest (setuid bits, a mode the umask would cut). */
  tmp->mode = mode;
  if (open_unnamed (tmp, dir_fd, unnamed_unsupported, errsv))
    return TRUE;
  if (*errsv != 0)
    return FALSE;
  return make_with_temp_name (create_named, tmp, errsv);
}

/* renameat2 (RENAME_NOREPLACE) where the filesystem has it; elsewhere a
 * hard link (which never replaces) and an unlink of the old name. */
gboolean
ferry_rename_noreplace (int dir_fd, const char *from, const char *to, int *errsv)
{
  if (renameat2 (dir_fd, from, dir_fd, to, RENAME_NOREPLACE) == 0)
    return TRUE;
  if (errno != EINVAL && errno != ENOSYS)
    {
      *errsv = errno;
      return FALSE;
    }
  if (linkat (dir_fd, from, dir_fd, to, 0) == 0)
    {
      unlinkat (dir_fd, from, 0);
      return TRUE;
    }
  if (errno != EPERM && errno != EOPNOTSUPP)
    {
      *errsv = errno;
      return FALSE;
    }

  /* No hard links either (FAT): check, then rename. A name appearing
   * between the two calls is replaced; nothing better exists there. */
  struct stat st;
  if (fstatat (dir_fd, to, &st, AT_SYMLINK_NOFOLLOW) == 0)
    {
      *errsv = EEXIST;
      return FALSE;
    }
  if (renameat (dir_fd, from, dir_fd, to) == 0)
    return TRUE;
  *errsv = errno;
  return FALSE;
}

/* Puts the finished file under @final_name. Without @replace an existing
 * @final_name is never touched: FALSE with *errsv == EEXIST, and the
 * temporary file stays for another try. */
gboolean
ferry_temp_file_commit (FerryTempFile *tmp, const char *final_name, gboolean replace, int *errsv)
{
  *errsv = 0;
  if (tmp->name == NULL && !replace)
    {
      if (link_unnamed (tmp, final_name) == 0)
        goto committed;
      *errsv = errno;
      return FALSE;
    }

  if (tmp->name == NULL && !make_with_temp_name (link_unnamed, tmp, errsv))
    return FALSE;

  if (replace)
    {
      if (renameat (tmp->dir_fd, tmp->name, tmp->dir_fd, final_name) != 0)
        {
          *errsv = errno;
          return FALSE;
        }
    }
  else if (!ferry_rename_noreplace (tmp->dir_fd, tmp->name, final_name, errsv))
    return FALSE;

committed:
  g_clear_pointer (&tmp->name, g_free);
  ferry_fd_closep (&tmp->fd);
  return TRUE;
}

void
ferry_temp_file_discard (FerryTempFile *tmp)
{
  if (tmp->name != NULL && tmp->dir_fd >= 0)
    unlinkat (tmp->dir_fd, tmp->name, 0);
  g_clear_pointer (&tmp->name, g_free);
  ferry_fd_closep (&tmp->fd);
}
