/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <glib/gi18n-lib.h>
#include <unistd.h>

#include "ferry-fs.h"
#include "ferry-place.h"
#include "ferry-special-file.h"

/* Symlinks, FIFOs, sockets and device nodes: nothing to copy but the
 * node itself and its metadata. */

static char *
read_link (const FerryEntry *entry, int *errsv)
{
  gsize size = entry->st.st_size > 0 ? (gsize) entry->st.st_size + 1 : 256;

  for (;;)
    {
      g_autofree char *target = g_malloc (size);
      ssize_t n = readlinkat (entry->node->src_fd, entry->src_name, target, size);

      if (n < 0)
        {
          *errsv = errno;
          return NULL;
        }
      if ((gsize) n < size)
        {
          target[n] = '\0';
          return g_steal_pointer (&target);
        }
      size *= 2;
    }
}

/* The target of the source link, or NULL with @error set. */
static char *
read_link_or_fail (const FerryEntry *entry, GError **error)
{
  int errsv = 0;
  char *target = read_link (entry, &errsv);

  if (target == NULL)
    ferry_entry_fail_errno (entry, TRUE, errsv, _ ("Could not read the link “%s”"), error);
  return target;
}

/* FALSE with @error set: this entry cannot be made at all; FALSE
 * without: the call failed, errno says why. @target is the link's, for
 * a symlink. */
static gboolean
make_node (const FerryEntry *entry, const char *target, const char *name, GError **error)
{
  const struct stat *st = &entry->st;
  int errsv;
  int ret;

  if (S_ISLNK (st->st_mode))
    ret = symlinkat (target, entry->node->dst_fd, name);
  else
    ret = mknodat (entry->node->dst_fd, name, (st->st_mode & S_IFMT) | 0600, st->st_rdev);

  if (ret == 0)
    return TRUE;
  errsv = errno;
  if (errsv == EPERM && (S_ISCHR (st->st_mode) || S_ISBLK (st->st_mode) || S_ISSOCK (st->st_mode)))
    return ferry_entry_fail (
        entry, TRUE, FERRY_ERROR_SKIPPED,
        S_ISSOCK (st->st_mode)
            ? _ ("“%s” is a socket, which cannot be made here; skipped")
            : _ ("“%s” is a device node; only the administrator can create one, so it was skipped"),
        error);
  errno = errsv;
  return FALSE;
}

static gboolean
fail_to_create (FerryEntry *entry, int errsv, GError **error)
{
  /* A FUSE filesystem that cannot hold a FIFO or socket (exfat-fuse)
   * answers EIO: this entry failed, not the device. */
  entry->destination_failed = ferry_errno_is_device_failure (errsv)
                              && !(errsv == EIO && ferry_fs_is_fuse (entry->node->dst_fd));
  return ferry_entry_fail_errno (entry, FALSE, errsv, _ ("Could not create “%s”"), error);
}

/* Whether the link open as @fd reads exactly @target. */
static gboolean
link_reads (int fd, const char *target)
{
  gsize size = strlen (target) + 1;
  g_autofree char *now = g_malloc (size);
  ssize_t n = readlinkat (fd, "", now, size);

  return n >= 0 && (gsize) n == size - 1 && memcmp (now, target, n) == 0;
}

/* Whether @made, open as @fd, is the node Ferry made for @entry. A
 * FIFO, socket or device node must be ours. A symlink needs no owner
 * check (on sshfs, or a share mounted with uid=, the link Ferry made
 * shows another owner): one with the same target, of someone else's
 * making, given the source's owner and times is just what the copy
 * would have been; a second name of someone else's link (a hard link,
 * where fs.protected_hardlinks allows it) has more than one name. */
static gboolean
is_node_made (const FerryEntry *entry,
              int fd,
              const struct stat *made,
              const char *target,
              uid_t euid)
{
  if ((made->st_mode & S_IFMT) != (entry->st.st_mode & S_IFMT))
    return FALSE;
  if (S_ISLNK (made->st_mode))
    return made->st_nlink == 1 && link_reads (fd, target);
  if (made->st_uid != euid)
    return FALSE;
  return !(S_ISCHR (made->st_mode) || S_ISBLK (made->st_mode))
         || made->st_rdev == entry->st.st_rdev;
}

/* An O_PATH descriptor of the node just made as @name, or -1 with errno
 * when what stands there now is not it (someone swapped it, say for a
 * symlink to a file of theirs, or of the system's, or for a file whose
 * owner and times they want changed). */
static int
pin_node (const FerryEntry *entry, const char *target, const char *name, uid_t euid)
{
  ferry_autofd fd = openat (entry->node->dst_fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  struct stat made;

  if (fd < 0 || fstat (fd, &made) != 0)
    return -1;
  if (!is_node_made (entry, fd, &made, target, euid))
    {
      errno = EEXIST;
      return -1;
    }
  return ferry_fd_steal (&fd);
}

/* The node made as @name gets its metadata, through a descriptor of it,
 * then (replacing) its name. */
static gboolean
finish_node (FerryTreeContext *ctx,
             FerryEntry *entry,
             const char *target,
             const char *name,
             GError **error)
{
  ferry_autofd pin = pin_node (entry, target, name, ctx->meta.euid);
  FerryMetaTarget src = { -1, entry->node->src_fd, entry->src_name, FALSE, 0, FALSE };
  FerryMetaTarget dst = { pin, -1, NULL, FALSE, 0, TRUE };
  int dst_fd = entry->node->dst_fd;
  int errsv = 0;

  if (pin < 0)
    return ferry_entry_fail_errno (entry, FALSE, errno,
                                   _ ("“%s” was replaced by something else while it was copied"),
                                   error);
  if (ferry_metadata_apply (&ctx->meta, src, dst, &entry->st, &errsv)
      && (!entry->replace || renameat (dst_fd, name, dst_fd, entry->dst_name) == 0))
    return TRUE;
  if (errsv == 0)
    errsv = errno;
  unlinkat (dst_fd, name, 0);
  return fail_to_create (entry, errsv, error);
}

/* A failed mknod may leave an empty file under the name on a FUSE
 * filesystem (exfat-fuse). The name was free, or the call would have
 * said EEXIST, so an empty regular file there now is that leftover. */
static void
drop_half_made (const FerryEntry *entry, const char *name)
{
  struct stat st;

  if (fstatat (entry->node->dst_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG (st.st_mode)
      && st.st_size == 0)
    unlinkat (entry->node->dst_fd, name, 0);
}

/**
 * ferry_special_file_copy:
 * Without replacing, the node is made under its final name directly
 * (there is no data to be half-written, and making it fails if the name
 * is taken); a replacement is made aside and renamed over the old one.
 */
gboolean
ferry_special_file_copy (FerryTreeContext *ctx, FerryEntry *entry, GError **error)
{
  g_autofree char *temp_name = NULL;
  g_autofree char *target = NULL;

  if (S_ISLNK (entry->st.st_mode) && (target = read_link_or_fail (entry, error)) == NULL)
    return FALSE;
  for (guint attempt = 0;; attempt++)
    {
      GError *local_error = NULL;
      int errsv;

      if (entry->replace)
        temp_name = ferry_temp_name_new ();
      if (make_node (entry, target, entry->replace ? temp_name : entry->dst_name, &local_error))
        break;
      if (local_error != NULL)
        {
          g_propagate_error (error, local_error);
          return FALSE;
        }
      errsv = errno;
      if (errsv != EEXIST)
        drop_half_made (entry, entry->replace ? temp_name : entry->dst_name);
      g_clear_pointer (&temp_name, g_free);
      if (errsv != EEXIST || attempt >= 8)
        return fail_to_create (entry, errsv, error);
      if (!ferry_place_settle_late (ctx, entry, error))
        return FALSE;
      if (entry->skip)
        return TRUE;
    }
  return finish_node (ctx, entry, target, entry->replace ? temp_name : entry->dst_name, error);
}
