/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "ferry-fs.h"
#include "ferry-metadata.h"

void
ferry_meta_policy_init (FerryMetaPolicy *policy, gboolean preserve, const FerryFsRules *rules)
{
  policy->preserve = preserve;
  policy->rules = rules;
  policy->euid = geteuid ();
  policy->egid = getegid ();
  policy->is_root = policy->euid == 0;
  policy->umask = ferry_get_umask ();
  for (guint i = 0; i < FERRY_META_XATTRLESS_MAX; i++)
    atomic_init (&policy->xattrless_devs[i], 0);
}

static gboolean
is_xattrless (const FerryMetaPolicy *policy, dev_t dev)
{
  for (guint i = 0; i < FERRY_META_XATTRLESS_MAX; i++)
    if (atomic_load (&policy->xattrless_devs[i]) == (guint64) dev + 1)
      return TRUE;
  return FALSE;
}

/* The policy is shared read-only by the workers but for this table,
 * which only ever gains entries: a full table just means more listing. */
static void
remember_xattrless (const FerryMetaPolicy *policy, dev_t dev)
{
  FerryMetaPolicy *learning = (FerryMetaPolicy *) policy;

  for (guint i = 0; i < FERRY_META_XATTRLESS_MAX && !is_xattrless (policy, dev); i++)
    {
      uint_fast64_t free_slot = 0;

      if (atomic_compare_exchange_strong (&learning->xattrless_devs[i], &free_slot,
                                          (guint64) dev + 1))
        return;
    }
}

/* A filesystem that refuses to list extended attributes has none on any
 * file (exFAT and FAT through FUSE, most network shares). An empty list
 * says nothing of the next file: ext4 keeps them per file. */
static gboolean
refuses_xattrs (int errsv)
{
  return errsv == ENOTSUP || errsv == EOPNOTSUPP;
}

/* A filesystem that cannot keep some kind of metadata (FAT has no owners
 * and no extended attributes) is not a reason to fail a copy. */
static gboolean
is_unsupported (int errsv)
{
  return errsv == EPERM || errsv == ENOTSUP || errsv == EOPNOTSUPP || errsv == ENOSYS
         || errsv == EINVAL;
}

static gboolean
xattr_wanted (const FerryMetaPolicy *policy, const char *name)
{
  if (g_str_has_prefix (name, "user."))
    return TRUE;
  if (strcmp (name, "system.posix_acl_access") == 0
      || strcmp (name, "system.posix_acl_default") == 0)
    return TRUE;
  if (g_str_has_prefix (name, "security.") || g_str_has_prefix (name, "trusted."))
    return policy->is_root;
  return FALSE;
}

static ssize_t
list_xattrs (FerryMetaTarget t, char *buf, size_t size)
{
  if (t.fd >= 0)
    return flistxattr (t.fd, buf, size);
  g_autofree char *path = ferry_proc_fd_path (t.dir_fd, t.name);
  return llistxattr (path, buf, size);
}

static ssize_t
get_xattr (FerryMetaTarget t, const char *name, void *buf, size_t size)
{
  if (t.fd >= 0)
    return fgetxattr (t.fd, name, buf, size);
  g_autofree char *path = ferry_proc_fd_path (t.dir_fd, t.name);
  return lgetxattr (path, name, buf, size);
}

/* fsetxattr() refuses an O_PATH descriptor, and setxattrat(), which
 * takes one, is too new to count on: a pinned entry is reached as
 * /proc/self/fd/N (see FerryMetaTarget). */
static int
set_xattr (FerryMetaTarget dst, const char *name, const void *value, size_t size)
{
  if (dst.pinned)
    {
      g_autofree char *pinned = ferry_proc_fd_path (dst.fd, NULL);
      return setxattr (pinned, name, value, size, 0);
    }
  return fsetxattr (dst.fd, name, value, size, 0);
}

static int
remove_xattr (FerryMetaTarget dst, const char *name)
{
  if (dst.pinned)
    {
      g_autofree char *pinned = ferry_proc_fd_path (dst.fd, NULL);
      return removexattr (pinned, name);
    }
  return fremovexattr (dst.fd, name);
}

/* An attribute the destination has no room for (ext4 keeps a file's
 * attributes in its inode and one block, 1 KiB on a small volume) is
 * one it cannot store, as FAT stores none: the file is copied without
 * it. Not when the volume is full: that fails the file, as data would. */
static gboolean
has_no_room_for (FerryMetaTarget dst, int errsv)
{
  struct statvfs fs;

  if (errsv == E2BIG)
    return TRUE;
  return errsv == ENOSPC && !dst.pinned && fstatvfs (dst.fd, &fs) == 0
         && (guint64) fs.f_bfree * fs.f_frsize >= 1024 * 1024;
}

/* Reads a variable-size xattr list or value, growing the buffer when the
 * size changed between the two calls. */
static gssize
read_sized (FerryMetaTarget t, const char *name, char **out)
{
  for (guint attempt = 0; attempt < 4; attempt++)
    {
      gssize size = name ? get_xattr (t, name, NULL, 0) : list_xattrs (t, NULL, 0);
      if (size <= 0)
        return size;

      g_autofree char *buf = g_malloc (size + 1);
      gssize got = name ? get_xattr (t, name, buf, size) : list_xattrs (t, buf, size);
      if (got >= 0)
        {
          buf[got] = '\0';
          *out = g_steal_pointer (&buf);
          return got;
        }
      if (errno != ERANGE)
        return -1;
    }
  errno = ERANGE;
  return -1;
}

static gboolean
copy_xattrs (const FerryMetaPolicy *policy,
             FerryMetaTarget src,
             FerryMetaTarget dst,
             dev_t src_dev,
             int *errsv)
{
  g_autofree char *names = NULL;
  gssize len;

  if (is_xattrless (policy, src_dev))
    return TRUE;
  len = read_sized (src, NULL, &names);
  if (len < 0)
    {
      if (refuses_xattrs (errno))
        remember_xattrless (policy, src_dev);
      if (is_unsupported (errno))
        return TRUE;
      *errsv = errno;
      return FALSE;
    }

  for (const char *name = names; name != NULL && name < names + len; name += strlen (name) + 1)
    {
      g_autofree char *value = NULL;
      gssize size;

      if (!xattr_wanted (policy, name))
        continue;
      size = read_sized (src, name, &value);
      if (size < 0)
        {
          if (errno == ENODATA || is_unsupported (errno))
            continue;
          *errsv = errno;
          return FALSE;
        }
      if (set_xattr (dst, name, value ? value : "", size) != 0 && !is_unsupported (errno)
          && !has_no_room_for (dst, errno))
        {
          *errsv = errno;
          return FALSE;
        }
    }
  return TRUE;
}

static int
change_owner (FerryMetaTarget dst, uid_t uid, gid_t gid)
{
  if (dst.pinned)
    return fchownat (dst.fd, "", uid, gid, AT_EMPTY_PATH);
  return fchown (dst.fd, uid, gid);
}

/* root keeps the owner; anyone else can at least keep a group they are
 * in, as cp -p does. *@not_kept gets the mode bits that must not be kept
 * then: setuid when the copy has another owner than the source, setgid
 * (on a file) when another group. Kept, a setuid program of one user
 * copied by another ran as the one who copied it, for anyone. */
static gboolean
copy_owner (const FerryMetaPolicy *policy,
            FerryMetaTarget dst,
            const struct stat *st,
            mode_t *not_kept,
            int *errsv)
{
  gboolean group_right = dst.made_plain && st->st_gid == policy->egid;
  gboolean owner_right = st->st_uid == policy->euid;
  int ret;

  /* A file Ferry just made is ours already; only a different owner
   * costs a call. */
  *not_kept = 0;
  if (group_right && (!policy->is_root || owner_right))
    ret = 0;
  else if (policy->is_root)
    ret = change_owner (dst, st->st_uid, st->st_gid);
  else
    ret = change_owner (dst, (uid_t) -1, st->st_gid);

  if (ret != 0 && !is_unsupported (errno))
    {
      *errsv = errno;
      return FALSE;
    }
  if (!owner_right && (ret != 0 || !policy->is_root))
    *not_kept |= S_ISUID;
  if (ret != 0 && !group_right && !S_ISDIR (st->st_mode))
    *not_kept |= S_ISGID;
  return TRUE;
}

/* A folder with a default ACL gives it to what is made in it: the copy
 * of a source with no ACL of its own then let others read what only its
 * owner could. The copy takes the source's ACLs (copied with the
 * attributes) or none, as cp -a leaves it. */
static gboolean
drop_inherited_acls (FerryMetaTarget src, FerryMetaTarget dst, const struct stat *st, int *errsv)
{
  static const char *const acls[] = { "system.posix_acl_access", "system.posix_acl_default" };

  if (dst.made_plain || S_ISLNK (st->st_mode))
    return TRUE;
  for (guint i = 0; i < (S_ISDIR (st->st_mode) ? 2u : 1u); i++)
    {
      /* A source whose filesystem keeps no ACLs (exFAT) has none. */
      if (get_xattr (src, acls[i], NULL, 0) >= 0 || (errno != ENODATA && !refuses_xattrs (errno)))
        continue;
      if (remove_xattr (dst, acls[i]) != 0 && errno != ENODATA && !is_unsupported (errno))
        {
          *errsv = errno;
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
set_mode (FerryMetaTarget dst, mode_t mode, int *errsv)
{
  int ret;

  if (dst.made_plain && dst.made_mode == mode)
    return TRUE;

  if (dst.pinned)
    {
      g_autofree char *pinned = ferry_proc_fd_path (dst.fd, NULL);
      ret = fchmodat (AT_FDCWD, pinned, mode, 0);
    }
  else
    ret = fchmod (dst.fd, mode);

  if (ret != 0 && !is_unsupported (errno))
    {
      *errsv = errno;
      return FALSE;
    }
  return TRUE;
}

static gboolean
set_times (const FerryMetaPolicy *policy, FerryMetaTarget dst, const struct stat *st, int *errsv)
{
  struct timespec times[2] = { st->st_atim, st->st_mtim };
  int ret;

  ferry_fs_rules_clamp_time (policy->rules, &times[0]);
  ferry_fs_rules_clamp_time (policy->rules, &times[1]);
  if (dst.pinned)
    {
      g_autofree char *pinned = ferry_proc_fd_path (dst.fd, NULL);
      ret = utimensat (AT_FDCWD, pinned, times, 0);
    }
  else
    ret = futimens (dst.fd, times);

  if (ret != 0 && !is_unsupported (errno))
    {
      *errsv = errno;
      return FALSE;
    }
  return TRUE;
}

/**
 * ferry_metadata_apply_times:
 * The source's times on @dst again, where the job keeps them: for a
 * filesystem whose rename stamps a file with the time it was renamed
 * (FAT through fusefat). FALSE with *@errsv when they could not be set.
 */
gboolean
ferry_metadata_apply_times (const FerryMetaPolicy *policy,
                            FerryMetaTarget dst,
                            const struct stat *st,
                            int *errsv)
{
  return !policy->preserve || set_times (policy, dst, st, errsv);
}

/**
 * ferry_metadata_apply_owner:
 * Only the owner (and group) step of ferry_metadata_apply(), for an
 * entry that must belong to its owner before its contents are copied.
 */
gboolean
ferry_metadata_apply_owner (const FerryMetaPolicy *policy,
                            FerryMetaTarget dst,
                            const struct stat *st,
                            int *errsv)
{
  mode_t not_kept; /* the mode is set with the rest, later */

  *errsv = 0;
  return !policy->preserve || copy_owner (policy, dst, st, &not_kept, errsv);
}

/**
 * ferry_metadata_owner_differs:
 * Whether root keeps an owner or group for the source @st other than
 * its own: what root makes is not yet the copy's owner's.
 */
gboolean
ferry_metadata_owner_differs (const FerryMetaPolicy *policy, const struct stat *st)
{
  return policy->preserve && policy->is_root
         && (st->st_uid != policy->euid || st->st_gid != policy->egid);
}

/**
 * ferry_metadata_first_folder_mode:
 * The mode a folder is made with, before its contents are copied, so
 * that at every moment (a kill, an unplug) its owner can open it and
 * nobody else can do more than in the finished copy: the final mode
 * where that lets the owner read, enter and write (Ferry must write
 * there, so 0555 would keep it out), else 0700 until the contents are
 * in. While the folder's group is not yet the final one (@group_final
 * FALSE), its group gets nothing and others no more than that group
 * will.
 */
mode_t
ferry_metadata_first_folder_mode (const FerryMetaPolicy *policy,
                                  const struct stat *st,
                                  gboolean group_final)
{
  mode_t mode = policy->preserve ? st->st_mode & 0777 : st->st_mode & 0777 & ~policy->umask;

  if ((mode & S_IRWXU) != S_IRWXU)
    return S_IRWXU;
  if (!group_final)
    mode = (mode & ~S_IRWXG & ~S_IRWXO) | (mode & S_IRWXO & ((mode & S_IRWXG) >> 3));
  return mode;
}

/**
 * ferry_metadata_apply:
 * Gives @dst the metadata of @src (whose stat is @st), in the order that
 * keeps each step: the owner first (changing it clears setuid and
 * setgid), then extended attributes, then the mode, and the times last
 * (every other change touches them). Symlinks have no mode of their own.
 * Without preservation only the mode is set, from the source's bits
 * filtered by the umask, as a new file would get.
 */
gboolean
ferry_metadata_apply (const FerryMetaPolicy *policy,
                      FerryMetaTarget src,
                      FerryMetaTarget dst,
                      const struct stat *st,
                      int *errsv)
{
  gboolean is_link = S_ISLNK (st->st_mode);
  mode_t not_kept;

  *errsv = 0;
  if (!policy->preserve)
    return is_link || set_mode (dst, st->st_mode & 0777 & ~policy->umask, errsv);

  return copy_owner (policy, dst, st, &not_kept, errsv)
         && copy_xattrs (policy, src, dst, st->st_dev, errsv)
         && drop_inherited_acls (src, dst, st, errsv)
         && (is_link || set_mode (dst, st->st_mode & 07777 & ~not_kept, errsv))
         && set_times (policy, dst, st, errsv);
}
