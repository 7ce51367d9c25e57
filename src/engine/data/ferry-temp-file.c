/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "ferry-fs.h"
#include "ferry-journal.h"
#include "ferry-temp-file.h"

#define TEMP_PREFIX ".ferry-"
#define TEMP_SUFFIX ".part"
#define JOURNAL_TAG "-j"
#define FOLDER_TAG  "-d"

/* ".ferry-BOOT-PID-START-RANDOM.part": the process that made the file
 * is in its name (FerryProcessId), so another run can tell a file whose
 * maker is gone from one being written, even in the moment between
 * making it and locking it. */
char *
ferry_temp_name_new (void)
{
  return ferry_temp_name_new_for (NULL);
}

/* ".ferry-BOOT-PID-START-RANDOM-jJOURNAL.part": a file a transfer's
 * journal (@journal_id) may continue, spared by the sweep while that
 * journal is kept. */
char *
ferry_temp_name_new_for (const char *journal_id)
{
  const FerryProcessId *self = ferry_process_self ();

  return g_strdup_printf (TEMP_PREFIX "%08x-%d-%" G_GUINT64_FORMAT "-%08x%s%s" TEMP_SUFFIX,
                          self->boot, (int) self->pid, self->start, g_random_int (),
                          journal_id != NULL ? JOURNAL_TAG : "", journal_id ? journal_id : "");
}

/* ".ferry-BOOT-PID-START-RANDOM-d.part": a folder built whole under a
 * hidden name (a name of its own: a folder named as temporary files are
 * is not Ferry's). */
char *
ferry_temp_name_new_folder (void)
{
  const FerryProcessId *self = ferry_process_self ();

  return g_strdup_printf (TEMP_PREFIX "%08x-%d-%" G_GUINT64_FORMAT "-%08x" FOLDER_TAG TEMP_SUFFIX,
                          self->boot, (int) self->pid, self->start, g_random_int ());
}

/* What follows the random part: the suffix, or a journal's tag and then
 * the suffix. */
static gboolean
take_ending (const char *p, char **journal_id)
{
  gsize id_length;

  if (strcmp (p, TEMP_SUFFIX) == 0)
    return TRUE;
  if (!g_str_has_prefix (p, JOURNAL_TAG) || !g_str_has_suffix (p, TEMP_SUFFIX))
    return FALSE;
  p += strlen (JOURNAL_TAG);
  id_length = strlen (p) - strlen (TEMP_SUFFIX);
  if (id_length == 0 || strspn (p, "0123456789abcdef") != id_length)
    return FALSE;
  if (journal_id != NULL)
    *journal_id = g_strndup (p, id_length);
  return TRUE;
}

/* Exactly eight lowercase hex digits. */
static gboolean
take_hex8 (const char **p, guint32 *value)
{
  for (guint i = 0; i < 8; i++)
    if (!g_ascii_isxdigit ((*p)[i]) || g_ascii_isupper ((*p)[i]))
      return FALSE;
  *value = (guint32) g_ascii_strtoull (*p, NULL, 16);
  *p += 8;
  return TRUE;
}

/* Decimal digits up to @max, without a leading zero, then a '-'. */
static gboolean
take_decimal (const char **p, guint64 max, guint64 *value)
{
  gsize n = strspn (*p, "0123456789");

  if (n == 0 || n > 20 || (*p)[n] != '-' || ((*p)[0] == '0' && n > 1))
    return FALSE;
  errno = 0;
  *value = g_ascii_strtoull (*p, NULL, 10);
  if (errno != 0 || *value > max)
    return FALSE;
  *p += n + 1;
  return TRUE;
}

/* The name up to the end of its random part, and its maker. */
static const char *
parse_maker (const char *name, FerryProcessId *owner)
{
  const char *p = name;
  guint32 boot, random;
  guint64 pid, start;

  if (!g_str_has_prefix (p, TEMP_PREFIX))
    return NULL;
  p += strlen (TEMP_PREFIX);
  if (!take_hex8 (&p, &boot) || *p++ != '-' || !take_decimal (&p, G_MAXINT, &pid) || pid == 0
      || !take_decimal (&p, G_MAXUINT64, &start) || !take_hex8 (&p, &random))
    return NULL;
  if (owner != NULL)
    *owner = (FerryProcessId){ boot, (pid_t) pid, start };
  return p;
}

/**
 * ferry_temp_name_parse:
 * Whether @name is exactly a name ferry_temp_name_new() or
 * ferry_temp_name_new_for() gives, and of which process (@owner may be
 * NULL).
 */
gboolean
ferry_temp_name_parse (const char *name, FerryProcessId *owner)
{
  const char *ending = parse_maker (name, owner);

  return ending != NULL && take_ending (ending, NULL);
}

/* Whether @name is exactly a name ferry_temp_name_new_for() gives for
 * the journal @journal_id. */
gboolean
ferry_temp_name_is_for (const char *name, const char *journal_id)
{
  const char *ending = parse_maker (name, NULL);
  g_autofree char *id = NULL;

  return ending != NULL && take_ending (ending, &id) && g_strcmp0 (id, journal_id) == 0;
}

/* Whether @name is exactly a name ferry_temp_name_new_folder() gives,
 * and of which process (@owner may be NULL). */
gboolean
ferry_temp_name_parse_folder (const char *name, FerryProcessId *owner)
{
  const char *ending = parse_maker (name, owner);

  return ending != NULL && strcmp (ending, FOLDER_TAG TEMP_SUFFIX) == 0;
}

/* A named temporary file is locked while its maker owns it; the kernel
 * lets go of the lock when the process ends, however it ends. FUSE
 * filesystems without locks of their own (exfat-fuse, ntfs-3g, fusefat)
 * get the kernel's local ones. Where locks are refused, the name alone
 * speaks for the file, and it is never taken for stale. */
static void
hold (int fd)
{
  (void) flock (fd, LOCK_EX | LOCK_NB);
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

/* Calls @make with fresh hidden names (of the journal @journal_id, or
 * NULL) until one is not taken; @make returns 0 or -1 with errno, as the
 * system calls it wraps do. */
static gboolean
make_with_temp_name (int (*make) (FerryTempFile *tmp, const char *name),
                     FerryTempFile *tmp,
                     const char *journal_id,
                     int *errsv)
{
  for (guint attempt = 0; attempt < 100; attempt++)
    {
      g_autofree char *name = ferry_temp_name_new_for (journal_id);

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
  if (tmp->fd < 0)
    return -1;
  hold (tmp->fd);
  return 0;
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

/**
 * ferry_temp_file_drop_write:
 * An unnamed file written whole, which waits open for its name, is
 * held read-only from now on. ext4 allocates a file still open for
 * writing room to grow (a 300 KB file gets 512 KB), and its writeback
 * then leaves a gap before the next file's; a file no one writes gets
 * exactly its size, and the files that wait together are written as one
 * run. So is one made under its final name in a hidden folder; a
 * temporary one with a name keeps its descriptor: its lock (hold()) is
 * on it.
 */
void
ferry_temp_file_drop_write (FerryTempFile *tmp)
{
  g_autofree char *proc_path = NULL;
  int reader;

  if ((tmp->name != NULL && !tmp->in_place) || tmp->fd < 0)
    return;
  proc_path = ferry_proc_fd_path (tmp->fd, NULL);
  reader = open (proc_path, O_RDONLY | O_CLOEXEC);
  if (reader < 0)
    return;
  /* The reader takes the writer's place in one step (where it cannot,
   * the writer stays, as before). */
  (void) dup3 (reader, tmp->fd, O_CLOEXEC);
  close (reader);
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
  return make_with_temp_name (create_named, tmp, NULL, errsv);
}

/**
 * ferry_temp_name_is_claimed:
 * Whether @name is a temporary file the journal of a transfer not yet
 * finished records, to continue it.
 */
gboolean
ferry_temp_name_is_claimed (const char *name)
{
  const char *tag = strstr (name, JOURNAL_TAG);
  g_autofree char *journal_id = NULL;

  /* The random part is hex: the first tag after it is the journal's. */
  while (tag != NULL && !take_ending (tag, &journal_id))
    tag = strstr (tag + 1, JOURNAL_TAG);
  return journal_id != NULL && ferry_journal_records_temp (journal_id, name);
}

/* A temporary file with a name the journal @journal_id records, for its
 * data to be continued after a kill or an unplug. */
gboolean
ferry_temp_file_open_resumable (FerryTempFile *tmp,
                                int dir_fd,
                                mode_t mode,
                                const char *journal_id,
                                int *errsv)
{
  *errsv = 0;
  tmp->dir_fd = dir_fd;
  tmp->mode = mode;
  return make_with_temp_name (create_named, tmp, journal_id, errsv);
}

/* Gives the temporary file (unnamed, or under a name of its own) a name
 * the journal @journal_id records, from now on. */
gboolean
ferry_temp_file_name_for_journal (FerryTempFile *tmp, const char *journal_id, int *errsv)
{
  g_autofree char *old_name = g_steal_pointer (&tmp->name);

  *errsv = 0;
  if (old_name == NULL)
    {
      hold (tmp->fd);
      return make_with_temp_name (link_unnamed, tmp, journal_id, errsv);
    }
  /* A name of its own: another one, the journal's (random: never taken). */
  tmp->name = ferry_temp_name_new_for (journal_id);
  if (ferry_rename_noreplace (tmp->dir_fd, old_name, tmp->name, NULL, errsv))
    return TRUE;
  g_free (tmp->name);
  tmp->name = g_steal_pointer (&old_name);
  return FALSE;
}

/* The temporary file @name an earlier run left in @dir_fd, to write on:
 * a regular file, never reached through a link, that no one holds. */
gboolean
ferry_temp_file_reopen (FerryTempFile *tmp, int dir_fd, const char *name, int *errsv)
{
  ferry_autofd fd = openat (dir_fd, name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct stat st;

  *errsv = 0;
  if (fd < 0 || fstat (fd, &st) != 0)
    {
      *errsv = errno;
      return FALSE;
    }
  if (!S_ISREG (st.st_mode) || flock (fd, LOCK_EX | LOCK_NB) != 0)
    {
      *errsv = EBUSY;
      return FALSE;
    }
  tmp->fd = ferry_fd_steal (&fd);
  tmp->dir_fd = dir_fd;
  tmp->name = g_strdup (name);
  tmp->mode = st.st_mode & 07777;
  return TRUE;
}

/* renameat2 (RENAME_NOREPLACE) where the filesystem has it; elsewhere a
 * hard link (which never replaces) and an unlink of the old name. A
 * filesystem without either (exFAT, FAT) says so once: @links_refused
 * (or NULL) remembers it for the rest of the job, for through a FUSE
 * daemon each refusal costs a round trip to it (exfat-fuse refuses
 * RENAME_NOREPLACE itself, each time). */
gboolean
ferry_rename_noreplace (int dir_fd,
                        const char *from,
                        const char *to,
                        atomic_bool *links_refused,
                        int *errsv)
{
  gboolean refused = links_refused != NULL && atomic_load (links_refused);

  if (!refused && renameat2 (dir_fd, from, dir_fd, to, RENAME_NOREPLACE) == 0)
    return TRUE;
  if (!refused && errno != EINVAL && errno != ENOSYS)
    {
      *errsv = errno;
      return FALSE;
    }
  if (!refused)
    {
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
      if (links_refused != NULL)
        atomic_store (links_refused, TRUE);
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
 * temporary file stays for another try. Its descriptor stays open, for
 * ferry_temp_file_discard() to close or the caller to take. */
gboolean
ferry_temp_file_commit (FerryTempFile *tmp,
                        const char *final_name,
                        gboolean replace,
                        atomic_bool *links_refused,
                        int *errsv)
{
  *errsv = 0;
  if (tmp->in_place)
    goto committed;
  if (tmp->name == NULL && !replace)
    {
      if (link_unnamed (tmp, final_name) == 0)
        goto committed;
      *errsv = errno;
      return FALSE;
    }

  /* No call links a file over another name: an unnamed file that
   * replaces one is named aside first, and renamed over it at once. A
   * kill between the two leaves that name, locked until then, for the
   * next run into the folder to remove. */
  if (tmp->name == NULL)
    {
      hold (tmp->fd);
      if (!make_with_temp_name (link_unnamed, tmp, NULL, errsv))
        return FALSE;
    }

  if (replace)
    {
      if (renameat (tmp->dir_fd, tmp->name, tmp->dir_fd, final_name) != 0)
        {
          *errsv = errno;
          return FALSE;
        }
    }
  else if (!ferry_rename_noreplace (tmp->dir_fd, tmp->name, final_name, links_refused, errsv))
    return FALSE;

committed:
  g_clear_pointer (&tmp->name, g_free);
  tmp->in_place = FALSE;
  return TRUE;
}

/**
 * ferry_temp_file_open_in_place:
 * A file made at once under its final name @name, in a folder of the
 * copy that is itself still hidden (it gets its own name only once all
 * it holds is durable): no temporary file, and no link to name it. A
 * file that fails is removed again (ferry_temp_file_discard()). FALSE
 * with *errsv EEXIST when the name is taken.
 */
gboolean
ferry_temp_file_open_in_place (FerryTempFile *tmp,
                               int dir_fd,
                               const char *name,
                               mode_t mode,
                               int *errsv)
{
  *errsv = 0;
  tmp->dir_fd = dir_fd;
  tmp->mode = mode;
  /* No lock: the hidden folder's own speaks for all it holds. */
  tmp->fd = openat (dir_fd, name, O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, mode);
  if (tmp->fd < 0)
    {
      *errsv = errno;
      return FALSE;
    }
  tmp->name = g_strdup (name);
  tmp->in_place = TRUE;
  return TRUE;
}

void
ferry_temp_file_discard (FerryTempFile *tmp)
{
  if (tmp->name != NULL && tmp->dir_fd >= 0)
    unlinkat (tmp->dir_fd, tmp->name, 0);
  ferry_temp_file_leave (tmp);
}

/**
 * ferry_temp_file_leave:
 * Closes the temporary file and leaves it where it is, under its name:
 * a transfer cut short keeps it for the run that continues it.
 */
void
ferry_temp_file_leave (FerryTempFile *tmp)
{
  g_clear_pointer (&tmp->name, g_free);
  tmp->in_place = FALSE;
  ferry_fd_closep (&tmp->fd);
}

/* Whether @owner, the maker a temporary file's name gives, may be done
 * with it: it is gone, or, with @own_too, it is this very process. */
static gboolean
maker_let_go (const FerryProcessId *owner, gboolean own_too)
{
  const FerryProcessId *self = ferry_process_self ();

  if (own_too && owner->boot == self->boot && owner->pid == self->pid
      && owner->start == self->start)
    return TRUE;
  return ferry_process_is_gone (owner);
}

/* Opens @name in @dir_fd, holding its lock, when no one writes it (see
 * ferry_temp_file_claim_stale()); with @own_too this process may be its
 * maker too. */
static int
claim_let_go (int dir_fd, const char *name, gboolean own_too, struct stat *st)
{
  FerryProcessId owner;
  ferry_autofd fd = -1;

  if (!ferry_temp_name_parse (name, &owner) || !maker_let_go (&owner, own_too)
      || ferry_temp_name_is_claimed (name))
    return -1;
  fd = openat (dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0 || fstat (fd, st) != 0 || !S_ISREG (st->st_mode))
    return -1;
  /* Another user's is theirs: the part of a copy of theirs cut short in
   * a shared folder, which their next run goes on from (their journals
   * are not ours to read), or one in a sticky folder we could not
   * remove anyway. Not even root takes it, nor its lock. */
  if (st->st_uid != geteuid () && ferry_fs_keeps_file_owners (fd))
    return -1;
  if (flock (fd, LOCK_EX | LOCK_NB) != 0)
    return -1;
  return ferry_fd_steal (&fd);
}

/**
 * ferry_temp_file_claim_stale:
 * Opens @name in the folder @dir_fd when it is a temporary file another
 * run left: named exactly as Ferry names them, a regular file (never
 * reached through a link), its maker gone and its lock free. Returns the
 * descriptor, holding the lock so no other run takes the file meanwhile,
 * and its stat in @st; -1 for anything else.
 */
int
ferry_temp_file_claim_stale (int dir_fd, const char *name, struct stat *st)
{
  return claim_let_go (dir_fd, name, FALSE, st);
}

/* Removes @name from @dir_fd when claim_let_go() claims it. */
static gboolean
remove_let_go (int dir_fd, const char *name, gboolean own_too)
{
  struct stat claimed, now;
  ferry_autofd fd = claim_let_go (dir_fd, name, own_too, &claimed);

  /* unlinkat removes the name itself, never what it leads to; the name
   * is checked to still be the file claimed. */
  return fd >= 0 && fstatat (dir_fd, name, &now, AT_SYMLINK_NOFOLLOW) == 0
         && ferry_stat_same_file (&claimed, &now) && unlinkat (dir_fd, name, 0) == 0;
}

/**
 * ferry_temp_file_remove_stale:
 * Removes @name from the folder @dir_fd when it is a stale temporary
 * file (see ferry_temp_file_claim_stale()).
 */
gboolean
ferry_temp_file_remove_stale (int dir_fd, const char *name)
{
  return remove_let_go (dir_fd, name, FALSE);
}

/**
 * ferry_temp_file_remove_discarded:
 * Removes @name from the folder @dir_fd, the temporary file of a
 * transfer whose journal was just discarded: as
 * ferry_temp_file_remove_stale(), but its maker may be this process
 * too, which let go of it when the transfer was cut short (a cancel in
 * the window, whose Discard comes in the same process). Its lock free
 * says no job writes it any more; the sweep cannot rely on that alone,
 * for a file is locked only just after it is made.
 */
gboolean
ferry_temp_file_remove_discarded (int dir_fd, const char *name)
{
  return remove_let_go (dir_fd, name, TRUE);
}
