/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ferry-fs.h"
#include "ferry-journal.h"

#define GROUP_TRANSFER  "transfer"
#define GROUP_COMPLETE  "complete"
#define GROUP_IN_FLIGHT "in-flight"
#define GROUP_CHOICES   "choices"
#define SUFFIX          ".journal"
#define LOG_SUFFIX      "-log"
#define LOCK_SUFFIX     ".lock"
#define ID_LENGTH       16
/* The log is folded into a new whole journal once it holds as many
 * records as the journal has files (and at least this many): each
 * record is then written about twice in all, whatever the file count. */
#define LOG_MIN_RECORDS 4096

/**
 * FerryJournal:
 * What a transfer has on its device, kept on the home disk under
 * $XDG_STATE_HOME/ferry/ so that a run cut short (a kill, an unplug) can
 * be continued: the sources, the destination folder and its
 * filesystem, the files complete and durable, and for each file in
 * flight its hidden temporary name and how much of it is durable; and
 * what the person chose for it (--unsupported=adapt, say), for the run
 * that continues it to choose the same.
 *
 * It is written only right after a durability point returned, with
 * what that point covered: the bytes a file had handed to the kernel
 * when the point started. So it never claims more than the device has,
 * and it costs the device nothing (the home disk takes the write).
 * Any thread may use it.
 *
 * On disk it is two files: "ID.journal", the whole journal as of one
 * generation, written under a temporary name and renamed; and
 * "ID.journal-log", what each point changed since, one line a file,
 * appended. A point thus writes what it changed, not every file the
 * transfer has done (rewriting those made a copy of many small files
 * slower the longer it ran). A log of another generation than the
 * journal's is an older one, already folded in, and is ignored, as is a
 * line a kill cut short.
 *
 * A point's save goes to a thread of the journal's own: the one who
 * made the point goes on at once. The flusher's next syncfs on a device
 * Ferry measures had waited for each save's fdatasync on the home disk,
 * and the device sat idle meanwhile (the fat tree behind the slower
 * disk's emulator: 0.6-0.9 s of 6.2-6.7 s). Saves that queue up while
 * one is written become one, of the newest state, which never claims
 * more than the last point returned.
 */
struct _FerryJournal
{
  GObject parent_instance;
  char *id;
  GStrv sources;
  char *destination;
  gboolean names_copy; /* the destination is the copy of the one source, not a folder it goes into */
  FerryFsId filesystem;
  char *mount_point; /* where that filesystem was mounted when the transfer began; or NULL */
  guint64 bytes_total;

  GMutex lock;           /* guards what workers, the syncer and choices change: */
  GHashTable *choices;   /* option → word, as chosen for the transfer */
  guint64 bytes_placed; /* on a device fast by its class, whose journal lists no files */
  GHashTable *complete;  /* relpath → FerryJournalStamp */
  GHashTable *in_flight; /* relpath → InFlight */
  GHashTable *held;      /* hidden folder → its complete files, relpath → FerryJournalStamp */
  GHashTable *changed;   /* relpaths whose record changed since the last save */
  gboolean tracking;     /* a whole journal is written: changes from then on go to the log */
  guint64 generation;    /* of the whole journal on disk; 0: none yet */
  guint log_records;     /* in the log of that generation */
  gboolean whole_wanted; /* a save failed, or the log was read back: the next writes all */
  GThread *saver;        /* started by the first point */
  GCond saved;           /* the saver waits here for work, and others for the saver */
  gboolean save_queued;  /* a point returned since the saver last began */
  gboolean saving;
  gboolean saver_ends;   /* it saves what is queued, then returns; no save is queued after */
  GError *save_error;    /* why the saver's last save failed; NULL when it was saved */
};

G_DEFINE_FINAL_TYPE (FerryJournal, ferry_journal, G_TYPE_OBJECT)
G_DEFINE_QUARK (ferry-journal-error-quark, ferry_journal_error)

typedef struct
{
  char *temp_name;
  guint64 written;   /* handed to the kernel, front to back */
  guint64 candidate; /* written when the point under way started */
  guint64 durable;
  FerryJournalStamp stamp;
} InFlight;

static void
in_flight_free (InFlight *record)
{
  g_free (record->temp_name);
  g_free (record);
}

static void stop_saver (FerryJournal *self);
static gboolean make_dir (GError **error);

/* What a point queued is saved before the journal goes: a job that
 * stopped leaves its last point for the next run. */
static void
ferry_journal_dispose (GObject *object)
{
  stop_saver (FERRY_JOURNAL (object));
  G_OBJECT_CLASS (ferry_journal_parent_class)->dispose (object);
}

static void
ferry_journal_finalize (GObject *object)
{
  FerryJournal *self = FERRY_JOURNAL (object);

  g_free (self->id);
  g_strfreev (self->sources);
  g_free (self->destination);
  g_free (self->mount_point);
  ferry_fs_id_clear (&self->filesystem);
  g_hash_table_unref (self->complete);
  g_hash_table_unref (self->in_flight);
  g_hash_table_unref (self->held);
  g_hash_table_unref (self->changed);
  g_hash_table_unref (self->choices);
  g_clear_error (&self->save_error);
  g_cond_clear (&self->saved);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (ferry_journal_parent_class)->finalize (object);
}

static void
ferry_journal_class_init (FerryJournalClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = ferry_journal_dispose;
  G_OBJECT_CLASS (klass)->finalize = ferry_journal_finalize;
}

static void
ferry_journal_init (FerryJournal *self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->saved);
  self->complete = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->in_flight
      = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) in_flight_free);
  self->changed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->held = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_hash_table_unref);
  self->choices = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

char *
ferry_journal_dir (void)
{
  return g_build_filename (g_get_user_state_dir (), "ferry", NULL);
}

static char *
state_path (const char *id, const char *suffix)
{
  g_autofree char *dir = ferry_journal_dir ();
  g_autofree char *name = g_strconcat (id, suffix, NULL);

  return g_build_filename (dir, name, NULL);
}

static char *
journal_path (const char *id)
{
  return state_path (id, SUFFIX);
}

static char *
log_path_for (const char *journal_path)
{
  return g_strconcat (journal_path, LOG_SUFFIX, NULL);
}

/* Called with the lock. Until a whole journal is written (and on the
 * fast path, which saves none) there is nothing to keep apart. */
static void
note_changed (FerryJournal *self, const char *relpath)
{
  if (self->tracking)
    g_hash_table_add (self->changed, g_strdup (relpath));
}

/**
 * ferry_journal_id_for:
 * The id of the transfer of @sources into @destination: the same
 * command run again finds the journal of the run it continues.
 */
char *
ferry_journal_id_for (const char *const *sources, const char *destination)
{
  g_autoptr (GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);

  g_checksum_update (checksum, (const guchar *) destination, strlen (destination) + 1);
  for (guint i = 0; sources[i] != NULL; i++)
    g_checksum_update (checksum, (const guchar *) sources[i], strlen (sources[i]) + 1);
  return g_strndup (g_checksum_get_string (checksum), ID_LENGTH);
}

static gboolean
is_id (const char *id)
{
  if (strlen (id) != ID_LENGTH)
    return FALSE;
  for (const char *p = id; *p != '\0'; p++)
    if (!g_ascii_isxdigit (*p) || g_ascii_isupper (*p))
      return FALSE;
  return TRUE;
}

/* A journal is saved under "ID.journal.XXXXXX" and renamed: a process
 * killed between the two leaves that name behind. A save takes
 * milliseconds, so one a minute old belongs to nobody. A log is made
 * after its journal and removed before it: one without a journal is a
 * removal cut short. */
static void
remove_if_stale_save (const char *dir_path, const char *name)
{
  g_autofree char *path = NULL;
  const char *suffix = strstr (name, SUFFIX ".");
  GStatBuf st;

  if (g_str_has_suffix (name, SUFFIX LOG_SUFFIX))
    {
      g_autofree char *journal = g_strndup (name, strlen (name) - strlen (LOG_SUFFIX));
      g_autofree char *journal_path = g_build_filename (dir_path, journal, NULL);
      path = g_build_filename (dir_path, name, NULL);
      if (g_lstat (journal_path, &st) != 0 && errno == ENOENT)
        g_unlink (path);
      return;
    }
  if (suffix == NULL || strlen (suffix) != strlen (SUFFIX) + 7)
    return;
  path = g_build_filename (dir_path, name, NULL);
  if (g_lstat (path, &st) == 0 && S_ISREG (st.st_mode)
      && (gint64) st.st_mtime + 60 < g_get_real_time () / G_USEC_PER_SEC)
    g_unlink (path);
}

static char *
lock_path (const char *id)
{
  return state_path (id, LOCK_SUFFIX);
}

/* The lock file at @path, locked, while it still has that name: one
 * that ended meanwhile removed it, and the lock then holds nothing. */
static int
lock_at (const char *path, int *errsv)
{
  for (;;)
    {
      ferry_autofd fd = open (path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
      struct stat held, named;

      if (fd < 0 || flock (fd, LOCK_EX | LOCK_NB) != 0)
        {
          *errsv = errno;
          return -1;
        }
      if (fstat (fd, &held) == 0 && lstat (path, &named) == 0 && held.st_ino == named.st_ino
          && held.st_dev == named.st_dev)
        return ferry_fd_steal (&fd);
    }
}

/**
 * ferry_journal_hold_transfer:
 * @destination: for the message, as the person gave it
 *
 * Holds the transfer @id for this process until
 * ferry_journal_let_go_transfer(): two runs of the same transfer at once
 * would share one journal and one set of temporary files, each taking
 * the other's for its own. FALSE with G_IO_ERROR_BUSY when another run
 * holds it. TRUE with *@lock_fd -1 where nothing can be held (the folder
 * for journals cannot be made: saving the journal then says so).
 */
gboolean
ferry_journal_hold_transfer (const char *id, const char *destination, int *lock_fd, GError **error)
{
  g_autofree char *path = lock_path (id);
  int errsv = 0;

  *lock_fd = make_dir (NULL) ? lock_at (path, &errsv) : -1;
  if (*lock_fd >= 0 || errsv != EWOULDBLOCK)
    return TRUE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_BUSY,
               _ ("The same files are being copied into “%s” already: wait until that copy "
                  "ends, or stop it first"),
               destination);
  return FALSE;
}

/* The hold of ferry_journal_hold_transfer() ends; its lock file goes. */
void
ferry_journal_let_go_transfer (const char *id, int lock_fd)
{
  g_autofree char *path = NULL;

  if (lock_fd < 0)
    return;
  path = lock_path (id);
  g_unlink (path);
  close (lock_fd);
}

/* The ids of every journal kept, oldest name first. */
GStrv
ferry_journal_list_ids (void)
{
  g_autofree char *dir_path = ferry_journal_dir ();
  g_autoptr (GDir) dir = g_dir_open (dir_path, 0, NULL);
  g_autoptr (GStrvBuilder) ids = g_strv_builder_new ();
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *id = NULL;

      if (!g_str_has_suffix (name, SUFFIX))
        {
          remove_if_stale_save (dir_path, name);
          continue;
        }
      id = g_strndup (name, strlen (name) - strlen (SUFFIX));
      if (is_id (id))
        g_strv_builder_add (ids, id);
    }
  return g_strv_builder_end (ids);
}

FerryJournal *
ferry_journal_new (const char *id)
{
  FerryJournal *self = g_object_new (FERRY_TYPE_JOURNAL, NULL);

  self->id = g_strdup (id);
  return self;
}

const char *
ferry_journal_get_id (FerryJournal *self)
{
  return self->id;
}

static void
copy_choices (GHashTable *to, GHashTable *from)
{
  GHashTableIter iter;
  gpointer option, word;

  g_hash_table_remove_all (to);
  g_hash_table_iter_init (&iter, from);
  while (g_hash_table_iter_next (&iter, &option, &word))
    g_hash_table_insert (to, g_strdup (option), g_strdup (word));
}

/**
 * ferry_journal_set_choices:
 * @choices: (element-type utf8 utf8): option → word
 *
 * What the transfer was asked this time (--unsupported=adapt, say), in
 * place of what its journal says it was asked before, for a run that
 * continues it to ask the same: saved with the next whole journal, which
 * the next save writes.
 */
void
ferry_journal_set_choices (FerryJournal *self, GHashTable *choices)
{
  g_mutex_lock (&self->lock);
  copy_choices (self->choices, choices);
  self->whole_wanted = TRUE;
  g_mutex_unlock (&self->lock);
}

/**
 * ferry_journal_get_choice:
 * The word chosen for @option (a property of the job, "conflict-policy"
 * say) when the transfer was last run, or NULL: not chosen, or by a
 * Ferry that kept no choices.
 */
const char *
ferry_journal_get_choice (FerryJournal *self, const char *option)
{
  const char *word;

  g_mutex_lock (&self->lock);
  word = g_hash_table_lookup (self->choices, option);
  g_mutex_unlock (&self->lock);
  return word;
}

void
ferry_journal_set_transfer (FerryJournal *self,
                            const char *const *sources,
                            const char *destination,
                            const FerryFsId *filesystem)
{
  g_strfreev (self->sources);
  self->sources = g_strdupv ((char **) sources);
  g_free (self->destination);
  self->destination = g_strdup (destination);
  ferry_fs_id_clear (&self->filesystem);
  ferry_fs_id_copy (&self->filesystem, filesystem);
  g_clear_pointer (&self->mount_point, g_free);
  ferry_fs_find_mount_point (filesystem->dev, NULL, NULL, &self->mount_point);
}

/**
 * ferry_journal_set_names_copy:
 * Whether the destination is the name the copy of the transfer's one
 * source was given (cp's meaning of a name not there yet), rather than
 * a folder the copies go into. Once the copy has that name it is a
 * folder there, and the run that continues the transfer must not copy
 * into it: the paths the journal keeps are below the folder that holds
 * the destination.
 */
void
ferry_journal_set_names_copy (FerryJournal *self, gboolean names_copy)
{
  self->names_copy = names_copy;
}

gboolean
ferry_journal_get_names_copy (FerryJournal *self)
{
  return self->names_copy;
}

/* @path below @mount_point, without the slashes around it ("" for the
 * top folder); NULL when it is not below it. */
static char *
below_mount (const char *path, const char *mount_point)
{
  const char *rest;

  if (path == NULL || mount_point == NULL || !g_str_has_prefix (path, mount_point))
    return NULL;
  rest = path + strlen (mount_point);
  if (*rest != '\0' && *rest != '/' && strcmp (mount_point, "/") != 0)
    return NULL;
  while (*rest == '/')
    rest++;
  return ferry_path_trim_slashes (rest);
}

/**
 * ferry_journal_find_destination:
 * Where the transfer's destination folder is now: where it was, or, its
 * drive mounted elsewhere since (plugged in again as /media/ana/STICK1),
 * the same folder there. NULL when its drive is not plugged in.
 */
char *
ferry_journal_find_destination (FerryJournal *self)
{
  g_auto (FerryFsId) now = { 0 };
  g_autofree char *below = below_mount (self->destination, self->mount_point);
  g_autofree char *mount_point = NULL;

  if (ferry_fs_id_read_path (&now, self->destination) && ferry_fs_id_same (&self->filesystem, &now))
    return g_strdup (self->destination);
  if (below == NULL || (mount_point = ferry_fs_id_find_mount_point (&self->filesystem)) == NULL)
    return NULL;
  /* a trailing "/" stays, as the destination was typed */
  return g_strconcat (mount_point, *below != '\0' ? "/" : "", below,
                      g_str_has_suffix (self->destination, "/") ? "/" : "", NULL);
}

/**
 * ferry_journal_is_of_place:
 * Whether @destination on the filesystem @filesystem, mounted at
 * @mount_point, is the transfer's destination folder, its drive mounted
 * elsewhere since the transfer began.
 */
gboolean
ferry_journal_is_of_place (FerryJournal *self,
                           const char *destination,
                           const FerryFsId *filesystem,
                           const char *mount_point)
{
  g_autofree char *was = below_mount (self->destination, self->mount_point);
  g_autofree char *is = below_mount (destination, mount_point);

  return was != NULL && is != NULL && ferry_fs_id_same (&self->filesystem, filesystem)
         && strcmp (was, is) == 0;
}

const char *const *
ferry_journal_get_sources (FerryJournal *self)
{
  return (const char *const *) self->sources;
}

const char *
ferry_journal_get_destination (FerryJournal *self)
{
  return self->destination;
}

const FerryFsId *
ferry_journal_get_filesystem (FerryJournal *self)
{
  return &self->filesystem;
}

guint64
ferry_journal_get_bytes_total (FerryJournal *self)
{
  return self->bytes_total;
}

/**
 * ferry_journal_get_bytes_durable:
 * What a run that continues the transfer finds on the device and keeps:
 * the files listed complete and what points vouched for of those in
 * flight; on a device fast by its class, whose journal lists no files,
 * what its points said is under final names. Not every byte a point
 * found on the device: a small file's temporary file, and a hidden
 * folder's files, are removed when a copy stops, and a claim that
 * counted them said "17.3 MB of 50.0 MB is on STICK" where the next run
 * carried nothing.
 */
guint64
ferry_journal_get_bytes_durable (FerryJournal *self)
{
  GHashTableIter iter;
  gpointer value;
  guint64 bytes = 0;

  g_mutex_lock (&self->lock);
  g_hash_table_iter_init (&iter, self->complete);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    bytes += ((FerryJournalStamp *) value)->size;
  g_hash_table_iter_init (&iter, self->in_flight);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    bytes += ((InFlight *) value)->durable;
  bytes = MAX (bytes, self->bytes_placed);
  /* Never more than the transfer: the total is counted anew by each run
   * (sources may have gone since), what was placed is kept across runs. */
  if (self->bytes_total > 0)
    bytes = MIN (bytes, self->bytes_total);
  g_mutex_unlock (&self->lock);
  return bytes;
}

gboolean
ferry_journal_find_complete (FerryJournal *self, const char *relpath, FerryJournalStamp *stamp)
{
  FerryJournalStamp *found;

  g_mutex_lock (&self->lock);
  found = g_hash_table_lookup (self->complete, relpath);
  if (found != NULL)
    *stamp = *found;
  g_mutex_unlock (&self->lock);
  return found != NULL;
}

gboolean
ferry_journal_find_in_flight (FerryJournal *self,
                              const char *relpath,
                              FerryJournalInFlight *in_flight)
{
  InFlight *found;

  g_mutex_lock (&self->lock);
  found = g_hash_table_lookup (self->in_flight, relpath);
  if (found != NULL)
    *in_flight = (FerryJournalInFlight){ g_strdup (found->temp_name), found->durable,
                                         found->stamp };
  g_mutex_unlock (&self->lock);
  return found != NULL;
}

/* The temporary files of the files in flight, below the destination. */
GStrv
ferry_journal_dup_temp_paths (FerryJournal *self)
{
  GPtrArray *paths = g_ptr_array_new ();
  GHashTableIter iter;
  const char *relpath;
  InFlight *record;

  g_mutex_lock (&self->lock);
  g_hash_table_iter_init (&iter, self->in_flight);
  while (g_hash_table_iter_next (&iter, (gpointer *) &relpath, (gpointer *) &record))
    {
      g_autofree char *folder = g_path_get_dirname (relpath);
      g_ptr_array_add (paths, g_build_filename (folder, record->temp_name, NULL));
    }
  g_mutex_unlock (&self->lock);
  g_ptr_array_add (paths, NULL);
  return (GStrv) g_ptr_array_free (paths, FALSE);
}

guint
ferry_journal_get_files_complete (FerryJournal *self)
{
  guint files;

  g_mutex_lock (&self->lock);
  files = g_hash_table_size (self->complete);
  g_mutex_unlock (&self->lock);
  return files;
}

/* The size of the files complete. */
guint64
ferry_journal_get_bytes_complete (FerryJournal *self)
{
  GHashTableIter iter;
  FerryJournalStamp *stamp;
  guint64 bytes = 0;

  g_mutex_lock (&self->lock);
  g_hash_table_iter_init (&iter, self->complete);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &stamp))
    bytes += stamp->size;
  g_mutex_unlock (&self->lock);
  return bytes;
}

void
ferry_journal_in_flight_clear (FerryJournalInFlight *in_flight)
{
  g_clear_pointer (&in_flight->temp_name, g_free);
}

/* @relpath's data goes into @temp_name, of which @durable bytes are on
 * the device already (a file continued). */
void
ferry_journal_begin_file (FerryJournal *self,
                          const char *relpath,
                          const char *temp_name,
                          const FerryJournalStamp *stamp,
                          guint64 durable)
{
  InFlight *record = g_new0 (InFlight, 1);

  record->temp_name = g_strdup (temp_name);
  record->written = record->candidate = record->durable = durable;
  record->stamp = *stamp;
  g_mutex_lock (&self->lock);
  g_hash_table_insert (self->in_flight, g_strdup (relpath), record);
  note_changed (self, relpath);
  g_mutex_unlock (&self->lock);
}

/* The file's bytes up to @end were handed to the kernel. */
void
ferry_journal_wrote (FerryJournal *self, const char *relpath, guint64 end)
{
  InFlight *record;

  g_mutex_lock (&self->lock);
  record = g_hash_table_lookup (self->in_flight, relpath);
  if (record != NULL)
    record->written = MAX (record->written, end);
  g_mutex_unlock (&self->lock);
}

/* Its temporary file is gone: nothing of it can be continued, and what
 * a point vouched for of it is no longer on the device. */
void
ferry_journal_drop_file (FerryJournal *self, const char *relpath)
{
  InFlight *record;

  g_mutex_lock (&self->lock);
  record = g_hash_table_lookup (self->in_flight, relpath);
  if (record != NULL)
    {
      g_hash_table_remove (self->in_flight, relpath);
      note_changed (self, relpath);
    }
  g_mutex_unlock (&self->lock);
}

/* @relpath has its name, and the name is on the device. */
void
ferry_journal_complete (FerryJournal *self, const char *relpath, const FerryJournalStamp *stamp)
{
  g_mutex_lock (&self->lock);
  g_hash_table_remove (self->in_flight, relpath);
  g_hash_table_insert (self->complete, g_strdup (relpath), g_memdup2 (stamp, sizeof *stamp));
  note_changed (self, relpath);
  g_mutex_unlock (&self->lock);
}

/**
 * ferry_journal_hold_complete:
 * @folder: the hidden folder the file is in (any pointer that stands for
 *   it until it is released)
 *
 * The file @relpath is complete under its final name inside a folder
 * that is still hidden: it is listed complete once the folder has its
 * name (ferry_journal_release_held()). Until then its path leads
 * nowhere, and a folder that never gets it (another took the name)
 * must not make the journal speak for what is there.
 */
void
ferry_journal_hold_complete (FerryJournal *self,
                             gconstpointer folder,
                             const char *relpath,
                             const FerryJournalStamp *stamp)
{
  GHashTable *files;

  g_mutex_lock (&self->lock);
  files = g_hash_table_lookup (self->held, folder);
  if (files == NULL)
    {
      files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      g_hash_table_insert (self->held, (gpointer) folder, files);
    }
  g_hash_table_insert (files, g_strdup (relpath), g_memdup2 (stamp, sizeof *stamp));
  g_mutex_unlock (&self->lock);
}

/* The hidden @folder got its name (@named), its files then listed
 * complete: a sync had all it holds before the rename. Or it did not,
 * and they are forgotten. */
void
ferry_journal_release_held (FerryJournal *self, gconstpointer folder, gboolean named)
{
  GHashTable *files;
  GHashTableIter iter;
  gpointer relpath, stamp;

  g_mutex_lock (&self->lock);
  files = g_hash_table_lookup (self->held, folder);
  if (files != NULL && named)
    {
      g_hash_table_iter_init (&iter, files);
      while (g_hash_table_iter_next (&iter, &relpath, &stamp))
        {
          g_hash_table_iter_steal (&iter);
          g_hash_table_remove (self->in_flight, relpath);
          g_hash_table_replace (self->complete, relpath, stamp);
          note_changed (self, relpath);
        }
    }
  g_hash_table_remove (self->held, folder);
  g_mutex_unlock (&self->lock);
}

/* A durability point starts: what was written until now is what it
 * covers once it returns. */
void
ferry_journal_point_started (FerryJournal *self)
{
  GHashTableIter iter;
  InFlight *record;

  g_mutex_lock (&self->lock);
  g_hash_table_iter_init (&iter, self->in_flight);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &record))
    record->candidate = record->written;
  g_mutex_unlock (&self->lock);
}

static gpointer
saver_main (gpointer data)
{
  FerryJournal *self = data;

  g_mutex_lock (&self->lock);
  for (;;)
    {
      g_autoptr (GError) error = NULL;

      while (!self->save_queued && !self->saver_ends)
        g_cond_wait (&self->saved, &self->lock);
      if (!self->save_queued)
        break;
      self->save_queued = FALSE;
      self->saving = TRUE;
      g_mutex_unlock (&self->lock);
      ferry_journal_save (self, &error);
      g_mutex_lock (&self->lock);
      g_clear_error (&self->save_error);
      self->save_error = g_steal_pointer (&error);
      self->saving = FALSE;
      g_cond_broadcast (&self->saved);
    }
  g_mutex_unlock (&self->lock);
  return NULL;
}

/* Called with the lock held. */
static void
queue_save (FerryJournal *self)
{
  if (self->saver_ends)
    return;
  self->save_queued = TRUE;
  if (self->saver == NULL)
    self->saver = g_thread_new ("ferry-journal", saver_main, self);
  g_cond_broadcast (&self->saved);
}

/* The saver writes what is queued and returns. */
static void
stop_saver (FerryJournal *self)
{
  GThread *saver;

  g_mutex_lock (&self->lock);
  self->saver_ends = TRUE;
  g_cond_broadcast (&self->saved);
  saver = g_steal_pointer (&self->saver);
  g_mutex_unlock (&self->lock);
  if (saver != NULL)
    g_thread_join (saver);
}

/**
 * ferry_journal_save_at_stop:
 * A job stopped (a cancel, its drive full or gone): what changed since
 * the last point is saved too, files complete that got their names on
 * the stop, whole in the page cache, as files named at once do. A
 * journal never saved is saved only when it has something to carry:
 * a stop at once leaves no transfer to continue. @bytes_total: of the
 * transfer, which only points said before. Returns once saved (or the
 * save failed).
 */
void
ferry_journal_save_at_stop (FerryJournal *self, guint64 bytes_total)
{
  GHashTableIter iter;
  InFlight *record;
  gboolean worth;

  g_mutex_lock (&self->lock);
  worth = self->generation > 0 || self->saver != NULL || g_hash_table_size (self->complete) > 0;
  g_hash_table_iter_init (&iter, self->in_flight);
  while (!worth && g_hash_table_iter_next (&iter, NULL, (gpointer *) &record))
    worth = record->durable > 0;
  /* Before its first save a journal tracks no changes: it is written whole. */
  if (worth && (!self->tracking || g_hash_table_size (self->changed) > 0))
    {
      self->bytes_total = bytes_total;
      queue_save (self);
    }
  g_mutex_unlock (&self->lock);
  ferry_journal_wait_saved (self);
}

/**
 * ferry_journal_wait_saved:
 * Returns once every point done before the call is saved (or its save
 * failed).
 */
void
ferry_journal_wait_saved (FerryJournal *self)
{
  g_mutex_lock (&self->lock);
  while (self->save_queued || self->saving)
    g_cond_wait (&self->saved, &self->lock);
  g_mutex_unlock (&self->lock);
}

/**
 * ferry_journal_dup_save_error:
 * Why the last save failed (the folder for journals cannot be made or
 * written, the home disk is full), or NULL while saves succeed: a run
 * continuing the transfer would not know what a cut-short copy left.
 */
GError *
ferry_journal_dup_save_error (FerryJournal *self)
{
  GError *error;

  g_mutex_lock (&self->lock);
  error = self->save_error != NULL ? g_error_copy (self->save_error) : NULL;
  g_mutex_unlock (&self->lock);
  return error;
}

/* The point returned, the device having it all: the journal says so, on
 * the saver's thread. @bytes_placed: on a device fast by its class, what
 * is under final names in folders that were there before (its journal
 * lists no files); 0 elsewhere. A journal that cannot be written leaves
 * the copy going on as it is; only a copy cut short loses, which then
 * keeps none of its temporary files (ferry_journal_dup_save_error()). */
void
ferry_journal_point_done (FerryJournal *self, guint64 bytes_placed, guint64 bytes_total)
{
  GHashTableIter iter;
  const char *relpath;
  InFlight *record;

  g_mutex_lock (&self->lock);
  g_hash_table_iter_init (&iter, self->in_flight);
  while (g_hash_table_iter_next (&iter, (gpointer *) &relpath, (gpointer *) &record))
    if (record->candidate > record->durable)
      {
        record->durable = record->candidate;
        note_changed (self, relpath);
      }
  self->bytes_placed = MAX (self->bytes_placed, bytes_placed);
  self->bytes_total = bytes_total;
  queue_save (self);
  g_mutex_unlock (&self->lock);
}

/* Keys are paths, which may hold any byte but NUL: escaped. */
static char *
key_for (const char *relpath)
{
  return g_uri_escape_string (relpath, NULL, FALSE);
}

static void
write_transfer (FerryJournal *self, GKeyFile *file)
{
  g_key_file_set_string_list (file, GROUP_TRANSFER, "sources",
                              (const char *const *) self->sources,
                              self->sources ? g_strv_length (self->sources) : 0);
  g_key_file_set_string (file, GROUP_TRANSFER, "destination", self->destination);
  if (self->names_copy)
    g_key_file_set_boolean (file, GROUP_TRANSFER, "names-copy", TRUE);
  g_key_file_set_uint64 (file, GROUP_TRANSFER, "fs-dev", self->filesystem.dev);
  if (self->filesystem.uuid != NULL)
    g_key_file_set_string (file, GROUP_TRANSFER, "fs-uuid", self->filesystem.uuid);
  if (self->filesystem.label != NULL)
    g_key_file_set_string (file, GROUP_TRANSFER, "fs-label", self->filesystem.label);
  if (self->mount_point != NULL)
    g_key_file_set_string (file, GROUP_TRANSFER, "fs-mount", self->mount_point);
  g_key_file_set_uint64 (file, GROUP_TRANSFER, "bytes-total", self->bytes_total);
  g_key_file_set_uint64 (file, GROUP_TRANSFER, "bytes-durable", self->bytes_placed);
}

static void
write_choices (FerryJournal *self, GKeyFile *file)
{
  GHashTableIter iter;
  gpointer option, word;

  g_hash_table_iter_init (&iter, self->choices);
  while (g_hash_table_iter_next (&iter, &option, &word))
    g_key_file_set_string (file, GROUP_CHOICES, option, word);
}

static char *
stamp_text (const FerryJournalStamp *stamp)
{
  return g_strdup_printf ("%" G_GUINT64_FORMAT ";%" G_GINT64_FORMAT ";%" G_GINT64_FORMAT,
                          stamp->size, stamp->mtime_sec, stamp->mtime_nsec);
}

/* "TEMP;DURABLE;SIZE;SEC;NSEC": the temporary name (Ferry's own) holds
 * no ';' and no space. */
static char *
in_flight_text (const InFlight *record)
{
  g_autofree char *stamp = stamp_text (&record->stamp);

  return g_strdup_printf ("%s;%" G_GUINT64_FORMAT ";%s", record->temp_name, record->durable, stamp);
}

/* Called with the lock. */
static void
write_files (FerryJournal *self, GKeyFile *file)
{
  GHashTableIter iter;
  const char *relpath;
  gpointer value;

  g_hash_table_iter_init (&iter, self->complete);
  while (g_hash_table_iter_next (&iter, (gpointer *) &relpath, &value))
    {
      g_autofree char *key = key_for (relpath);
      g_autofree char *text = stamp_text (value);
      g_key_file_set_string (file, GROUP_COMPLETE, key, text);
    }
  g_hash_table_iter_init (&iter, self->in_flight);
  while (g_hash_table_iter_next (&iter, (gpointer *) &relpath, &value))
    {
      g_autofree char *key = key_for (relpath);
      g_autofree char *text = in_flight_text (value);
      g_key_file_set_string (file, GROUP_IN_FLIGHT, key, text);
    }
}

static gboolean
make_dir (GError **error)
{
  g_autofree char *dir = ferry_journal_dir ();
  int errsv;

  if (g_mkdir_with_parents (dir, 0700) == 0)
    return TRUE;
  errsv = errno;
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
               _ ("Could not create the folder “%s”: %s"), dir, g_strerror (errsv));
  return FALSE;
}

/* Called with the lock: the whole journal, as the next generation. */
static char *
whole_text (FerryJournal *self, gsize *length)
{
  g_autoptr (GKeyFile) file = g_key_file_new ();

  write_transfer (self, file);
  g_key_file_set_uint64 (file, GROUP_TRANSFER, "generation", self->generation + 1);
  write_choices (self, file);
  write_files (self, file);
  g_hash_table_remove_all (self->changed);
  self->tracking = TRUE;
  return g_key_file_to_data (file, length, NULL);
}

/* Replaces the log with an empty one of @generation. */
static gboolean
start_log (const char *path, guint64 generation, GError **error)
{
  g_autofree char *header = g_strdup_printf ("generation %" G_GUINT64_FORMAT "\n", generation);

  return g_file_set_contents_full (path, header, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0600, error);
}

/* Written whole under a temporary name, then renamed over the last one
 * (a kill leaves one journal or the other, never half of one); only then
 * is the log emptied for the new generation: a log left of the one
 * before is ignored. */
static gboolean
save_whole (FerryJournal *self, GError **error)
{
  g_autofree char *path = journal_path (self->id);
  g_autofree char *log_path = log_path_for (path);
  g_autofree char *data = NULL;
  guint64 generation;
  gsize length;
  gboolean ok;

  g_mutex_lock (&self->lock);
  data = whole_text (self, &length);
  generation = self->generation + 1;
  g_mutex_unlock (&self->lock);
  ok = make_dir (error)
       && g_file_set_contents_full (path, data, length, G_FILE_SET_CONTENTS_CONSISTENT, 0600,
                                    error);
  if (ok)
    ok = start_log (log_path, generation, error);
  g_mutex_lock (&self->lock);
  if (ok)
    {
      self->generation = generation;
      self->log_records = 0;
    }
  self->whole_wanted = !ok;
  g_mutex_unlock (&self->lock);
  return ok;
}

/* One file's lines, each value as in the whole journal: "c KEY
 * SIZE;SEC;NSEC" complete (and so not in flight), then "f KEY
 * TEMP;DURABLE;SIZE;SEC;NSEC" in flight, or "x KEY" no longer in
 * flight. */
static guint
append_file (FerryJournal *self, GString *text, const char *relpath)
{
  g_autofree char *key = key_for (relpath);
  FerryJournalStamp *stamp = g_hash_table_lookup (self->complete, relpath);
  InFlight *record = g_hash_table_lookup (self->in_flight, relpath);
  g_autofree char *complete = stamp != NULL ? stamp_text (stamp) : NULL;
  g_autofree char *in_flight = record != NULL ? in_flight_text (record) : NULL;

  if (complete != NULL)
    g_string_append_printf (text, "c %s %s\n", key, complete);
  if (in_flight != NULL)
    g_string_append_printf (text, "f %s %s\n", key, in_flight);
  else if (complete == NULL)
    g_string_append_printf (text, "x %s\n", key);
  return (complete != NULL && in_flight != NULL) ? 2 : 1;
}

/* Called with the lock: the lines of what changed since the last save,
 * and "b PLACED TOTAL". */
static GString *
changes_text (FerryJournal *self)
{
  GString *text = g_string_new (NULL);
  GHashTableIter iter;
  const char *relpath;

  g_hash_table_iter_init (&iter, self->changed);
  while (g_hash_table_iter_next (&iter, (gpointer *) &relpath, NULL))
    self->log_records += append_file (self, text, relpath);
  g_string_append_printf (text, "b %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n",
                          self->bytes_placed, self->bytes_total);
  self->log_records++;
  g_hash_table_remove_all (self->changed);
  return text;
}

static int
append_all (int fd, const char *data, gsize length)
{
  while (length > 0)
    {
      ssize_t n = write (fd, data, length);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return errno;
      data += n;
      length -= (gsize) n;
    }
  return fdatasync (fd) == 0 ? 0 : errno;
}

/* The lines go at the end of the log, and are on the home disk when
 * this returns TRUE. A failure leaves the log to the next save, which
 * then writes the whole journal. */
static gboolean
append_changes (FerryJournal *self, GError **error)
{
  g_autofree char *path = journal_path (self->id);
  g_autofree char *log_path = log_path_for (path);
  g_autoptr (GString) text = NULL;
  ferry_autofd fd = -1;
  int errsv;

  g_mutex_lock (&self->lock);
  text = changes_text (self);
  g_mutex_unlock (&self->lock);
  fd = open (log_path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  errsv = fd < 0 ? errno : append_all (fd, text->str, text->len);
  if (errsv == 0)
    return TRUE;
  g_mutex_lock (&self->lock);
  self->whole_wanted = TRUE;
  g_mutex_unlock (&self->lock);
  return ferry_set_error_from_errno (error, errsv, _ ("Could not write “%s”"), log_path);
}

/**
 * ferry_journal_save:
 * Writes what changed since the last save at the end of the log, or,
 * when the log has grown as large as the journal (or a save failed),
 * the whole journal as a new generation.
 */
gboolean
ferry_journal_save (FerryJournal *self, GError **error)
{
  gboolean whole;
  guint files;

  g_mutex_lock (&self->lock);
  files = g_hash_table_size (self->complete) + g_hash_table_size (self->in_flight);
  whole = self->generation == 0 || self->whole_wanted
          || self->log_records >= MAX (LOG_MIN_RECORDS, files);
  g_mutex_unlock (&self->lock);
  return whole ? save_whole (self, error) : append_changes (self, error);
}

/* The transfer ended well, or is discarded: what is queued is not
 * saved, and the log goes first, so that a log is never left without its
 * journal. */
void
ferry_journal_remove (FerryJournal *self)
{
  g_autofree char *path = journal_path (self->id);
  g_autofree char *log_path = log_path_for (path);

  g_mutex_lock (&self->lock);
  self->save_queued = FALSE;
  g_mutex_unlock (&self->lock);
  stop_saver (self);

  g_unlink (log_path);
  g_unlink (path);
}

static gboolean
parse_stamp (char **fields, FerryJournalStamp *stamp)
{
  if (g_strv_length (fields) != 3)
    return FALSE;
  return g_ascii_string_to_unsigned (fields[0], 10, 0, G_MAXUINT64, &stamp->size, NULL)
         && g_ascii_string_to_signed (fields[1], 10, G_MININT64, G_MAXINT64, &stamp->mtime_sec,
                                      NULL)
         && g_ascii_string_to_signed (fields[2], 10, 0, G_MAXINT64, &stamp->mtime_nsec, NULL);
}

/* A complete file's "SIZE;SEC;NSEC" at @relpath (escaped), which is
 * then no longer in flight; FALSE for text that is not one. */
static gboolean
set_complete (FerryJournal *self, const char *key, const char *text)
{
  g_auto (GStrv) fields = g_strsplit (text ? text : "", ";", 0);
  g_autofree char *relpath = g_uri_unescape_string (key, NULL);
  FerryJournalStamp stamp;

  if (relpath == NULL || !parse_stamp (fields, &stamp))
    return FALSE;
  g_hash_table_remove (self->in_flight, relpath);
  g_hash_table_insert (self->complete, g_steal_pointer (&relpath),
                       g_memdup2 (&stamp, sizeof stamp));
  return TRUE;
}

/* A file in flight, "TEMP;DURABLE;SIZE;SEC;NSEC" (see in_flight_text()),
 * at @relpath (escaped); FALSE for text that is not one. */
static gboolean
set_in_flight (FerryJournal *self, const char *key, const char *text)
{
  g_auto (GStrv) fields = g_strsplit (text ? text : "", ";", 0);
  g_autofree char *relpath = g_uri_unescape_string (key, NULL);
  InFlight record = { 0 };

  if (relpath == NULL || g_strv_length (fields) != 5 || strchr (fields[0], '/') != NULL
      || !g_ascii_string_to_unsigned (fields[1], 10, 0, G_MAXUINT64, &record.durable, NULL)
      || !parse_stamp (fields + 2, &record.stamp))
    return FALSE;
  record.temp_name = g_strdup (fields[0]);
  record.written = record.candidate = record.durable;
  g_hash_table_insert (self->in_flight, g_steal_pointer (&relpath),
                       g_memdup2 (&record, sizeof record));
  return TRUE;
}

/* A journal of a Ferry that kept no choices has none, and its transfer
 * goes on as the one continuing it chooses. */
static gboolean
set_choice (FerryJournal *self, const char *option, const char *word)
{
  if (word != NULL)
    g_hash_table_insert (self->choices, g_strdup (option), g_strdup (word));
  return word != NULL;
}

static void
read_group (FerryJournal *self,
            GKeyFile *file,
            const char *group,
            gboolean (*set) (FerryJournal *, const char *, const char *))
{
  g_auto (GStrv) keys = g_key_file_get_keys (file, group, NULL, NULL);

  for (guint i = 0; keys != NULL && keys[i] != NULL; i++)
    {
      g_autofree char *text = g_key_file_get_string (file, group, keys[i], NULL);
      set (self, keys[i], text);
    }
}

static gboolean
read_number (GKeyFile *file, const char *key, guint64 *number)
{
  g_autoptr (GError) error = NULL;

  *number = g_key_file_get_uint64 (file, GROUP_TRANSFER, key, &error);
  return error == NULL;
}

/* FALSE when it lacks what write_transfer() writes into every journal:
 * one cut short, which cannot say where its drive is or what is on it. */
static gboolean
read_transfer (FerryJournal *self, GKeyFile *file)
{
  self->sources = g_key_file_get_string_list (file, GROUP_TRANSFER, "sources", NULL, NULL);
  self->destination = g_key_file_get_string (file, GROUP_TRANSFER, "destination", NULL);
  self->names_copy = g_key_file_get_boolean (file, GROUP_TRANSFER, "names-copy", NULL);
  self->filesystem.uuid = g_key_file_get_string (file, GROUP_TRANSFER, "fs-uuid", NULL);
  self->filesystem.label = g_key_file_get_string (file, GROUP_TRANSFER, "fs-label", NULL);
  self->mount_point = g_key_file_get_string (file, GROUP_TRANSFER, "fs-mount", NULL);
  return self->sources != NULL && self->sources[0] != NULL && self->destination != NULL
         && self->destination[0] != '\0'
         && read_number (file, "fs-dev", &self->filesystem.dev)
         && read_number (file, "bytes-total", &self->bytes_total)
         && read_number (file, "bytes-durable", &self->bytes_placed);
}

/**
 * ferry_journal_records_temp:
 * Whether the journal @id, as last saved, goes on with the temporary
 * file @temp_name. A run killed between making a large file's temporary
 * file and the next save leaves one with the journal's tag that no save
 * recorded: nothing will continue it.
 */
gboolean
ferry_journal_records_temp (const char *id, const char *temp_name)
{
  g_autoptr (FerryJournal) journal = ferry_journal_load (id, NULL);
  GHashTableIter iter;
  InFlight *record;

  if (journal == NULL)
    return FALSE;
  g_hash_table_iter_init (&iter, journal->in_flight);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &record))
    if (g_strcmp0 (record->temp_name, temp_name) == 0)
      return TRUE;
  return FALSE;
}

/* One line of the log (see append_file()); FALSE for a line that is
 * not one, which ends the log: a kill cut it short. */
static gboolean
replay_line (FerryJournal *self, const char *line)
{
  g_auto (GStrv) fields = g_strsplit (line, " ", 0);
  guint n = g_strv_length (fields);
  g_autofree char *relpath = NULL;

  if (n == 3 && g_str_equal (fields[0], "b"))
    return g_ascii_string_to_unsigned (fields[1], 10, 0, G_MAXUINT64, &self->bytes_placed, NULL)
           && g_ascii_string_to_unsigned (fields[2], 10, 0, G_MAXUINT64, &self->bytes_total, NULL);
  if (n == 3 && g_str_equal (fields[0], "c"))
    return set_complete (self, fields[1], fields[2]);
  if (n == 3 && g_str_equal (fields[0], "f"))
    return set_in_flight (self, fields[1], fields[2]);
  if (n != 2 || !g_str_equal (fields[0], "x")
      || (relpath = g_uri_unescape_string (fields[1], NULL)) == NULL)
    return FALSE;
  g_hash_table_remove (self->in_flight, relpath);
  return TRUE;
}

/* The log of the journal's generation, line by line, up to the first
 * line that is not whole. */
static void
replay_log (FerryJournal *self, const char *path)
{
  g_autofree char *log_path = log_path_for (path);
  g_autofree char *text = NULL;
  g_autofree char *header = NULL;
  char *line, *end;

  if (self->generation == 0 || !g_file_get_contents (log_path, &text, NULL, NULL))
    return;
  header = g_strdup_printf ("generation %" G_GUINT64_FORMAT "\n", self->generation);
  if (!g_str_has_prefix (text, header))
    return;
  for (line = text + strlen (header); (end = strchr (line, '\n')) != NULL; line = end + 1)
    {
      *end = '\0';
      if (!replay_line (self, line))
        break;
      self->log_records++;
    }
}

/* The key file at @path; NULL with @error when it cannot be read, or
 * is empty or garbled. */
static GKeyFile *
read_key_file (const char *path, GError **error)
{
  g_autoptr (GKeyFile) file = g_key_file_new ();
  g_autoptr (GError) parse_error = NULL;
  g_autofree char *text = NULL;
  gsize length;

  if (!g_file_get_contents (path, &text, &length, error))
    return NULL;
  if (length == 0)
    {
      g_set_error (error, FERRY_JOURNAL_ERROR, FERRY_JOURNAL_ERROR_EMPTY,
                   _ ("The journal “%s” is empty"), path);
      return NULL;
    }
  if (!g_key_file_load_from_data (file, text, length, G_KEY_FILE_NONE, &parse_error))
    {
      g_set_error (error, FERRY_JOURNAL_ERROR, FERRY_JOURNAL_ERROR_GARBLED,
                   _ ("The journal “%s” is garbled: %s"), path, parse_error->message);
      return NULL;
    }
  return g_steal_pointer (&file);
}

/**
 * ferry_journal_load_file:
 * The journal saved at @path (with its log), as its last save left it;
 * NULL with @error when it cannot be read, or is damaged
 * (FERRY_JOURNAL_ERROR). Its first save writes it whole: its log may
 * end in a line a kill cut short.
 */
FerryJournal *
ferry_journal_load_file (const char *path, const char *id, GError **error)
{
  g_autoptr (GKeyFile) file = read_key_file (path, error);
  g_autoptr (FerryJournal) self = NULL;

  if (file == NULL)
    return NULL;
  self = ferry_journal_new (id);
  if (!read_transfer (self, file))
    {
      g_set_error (error, FERRY_JOURNAL_ERROR, FERRY_JOURNAL_ERROR_INCOMPLETE,
                   _ ("The journal “%s” is cut short"), path);
      return NULL;
    }
  read_group (self, file, GROUP_COMPLETE, set_complete);
  read_group (self, file, GROUP_IN_FLIGHT, set_in_flight);
  read_group (self, file, GROUP_CHOICES, set_choice);
  self->generation = g_key_file_get_uint64 (file, GROUP_TRANSFER, "generation", NULL);
  replay_log (self, path);
  self->whole_wanted = TRUE;
  return g_steal_pointer (&self);
}

/**
 * ferry_journal_load:
 * The journal @id, as its last save left it; NULL with @error when there
 * is none, or it cannot be read.
 */
FerryJournal *
ferry_journal_load (const char *id, GError **error)
{
  g_autofree char *path = NULL;

  if (!is_id (id))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _ ("No unfinished transfer “%s”"), id);
      return NULL;
    }
  path = journal_path (id);
  return ferry_journal_load_file (path, id, error);
}
