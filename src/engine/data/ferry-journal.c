/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "ferry-journal.h"

#define GROUP_TRANSFER  "transfer"
#define GROUP_COMPLETE  "complete"
#define GROUP_IN_FLIGHT "in-flight"
#define SUFFIX          ".journal"
#define ID_LENGTH       16

/**
 * FerryJournal:
 * What a transfer has on its device, kept on the home disk under
 * $XDG_STATE_HOME/ferry/ so that a run cut short (a kill, an unplug) can
 * be continued: the sources, the destination folder and its
 * filesystem, the files complete and durable, and for each file in
 * flight its hidden temporary name and how much of it is durable.
 *
 * It is written only right after a durability point returned, with
 * what that point covered: the bytes a file had handed to the kernel
 * when the point started. So it never claims more than the device has,
 * and it costs the device nothing (the home disk takes the write).
 * Any thread may use it.
 */
struct _FerryJournal
{
  GObject parent_instance;
  char *id;
  GStrv sources;
  char *destination;
  FerryFsId filesystem;
  guint64 bytes_total;

  GMutex lock; /* guards what workers and the syncer change: */
  guint64 bytes_durable;
  GHashTable *complete;  /* relpath → FerryJournalStamp */
  GHashTable *in_flight; /* relpath → InFlight */
};

G_DEFINE_FINAL_TYPE (FerryJournal, ferry_journal, G_TYPE_OBJECT)

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

static void
ferry_journal_finalize (GObject *object)
{
  FerryJournal *self = FERRY_JOURNAL (object);

  g_free (self->id);
  g_strfreev (self->sources);
  g_free (self->destination);
  ferry_fs_id_clear (&self->filesystem);
  g_hash_table_unref (self->complete);
  g_hash_table_unref (self->in_flight);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (ferry_journal_parent_class)->finalize (object);
}

static void
ferry_journal_class_init (FerryJournalClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ferry_journal_finalize;
}

static void
ferry_journal_init (FerryJournal *self)
{
  g_mutex_init (&self->lock);
  self->complete = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->in_flight
      = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) in_flight_free);
}

char *
ferry_journal_dir (void)
{
  return g_build_filename (g_get_user_state_dir (), "ferry", NULL);
}

static char *
journal_path (const char *id)
{
  g_autofree char *dir = ferry_journal_dir ();
  g_autofree char *name = g_strconcat (id, SUFFIX, NULL);

  return g_build_filename (dir, name, NULL);
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
 * milliseconds, so one a minute old belongs to nobody. */
static void
remove_if_stale_save (const char *dir_path, const char *name)
{
  g_autofree char *path = NULL;
  const char *suffix = strstr (name, SUFFIX ".");
  GStatBuf st;

  if (suffix == NULL || strlen (suffix) != strlen (SUFFIX) + 7)
    return;
  path = g_build_filename (dir_path, name, NULL);
  if (g_lstat (path, &st) == 0 && S_ISREG (st.st_mode)
      && (gint64) st.st_mtime + 60 < g_get_real_time () / G_USEC_PER_SEC)
    g_unlink (path);
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

guint64
ferry_journal_get_bytes_durable (FerryJournal *self)
{
  guint64 bytes;

  g_mutex_lock (&self->lock);
  bytes = self->bytes_durable;
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

/* Its temporary file is gone: nothing of it can be continued. */
void
ferry_journal_drop_file (FerryJournal *self, const char *relpath)
{
  g_mutex_lock (&self->lock);
  g_hash_table_remove (self->in_flight, relpath);
  g_mutex_unlock (&self->lock);
}

/* @relpath has its name, and the name is on the device. */
void
ferry_journal_complete (FerryJournal *self, const char *relpath, const FerryJournalStamp *stamp)
{
  g_mutex_lock (&self->lock);
  g_hash_table_remove (self->in_flight, relpath);
  g_hash_table_insert (self->complete, g_strdup (relpath), g_memdup2 (stamp, sizeof *stamp));
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

/* The point returned, the device having it all: the journal says so. A
 * journal that cannot be written leaves the transfer as it is; only a
 * later resume loses. */
void
ferry_journal_point_done (FerryJournal *self, guint64 bytes_durable, guint64 bytes_total)
{
  GHashTableIter iter;
  InFlight *record;
  g_autoptr (GError) error = NULL;

  g_mutex_lock (&self->lock);
  g_hash_table_iter_init (&iter, self->in_flight);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &record))
    record->durable = MAX (record->durable, record->candidate);
  self->bytes_durable = MAX (self->bytes_durable, bytes_durable);
  self->bytes_total = bytes_total;
  g_mutex_unlock (&self->lock);
  if (!ferry_journal_save (self, &error))
    g_debug ("%s", error->message);
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
  g_key_file_set_uint64 (file, GROUP_TRANSFER, "fs-dev", self->filesystem.dev);
  if (self->filesystem.uuid != NULL)
    g_key_file_set_string (file, GROUP_TRANSFER, "fs-uuid", self->filesystem.uuid);
  if (self->filesystem.label != NULL)
    g_key_file_set_string (file, GROUP_TRANSFER, "fs-label", self->filesystem.label);
  g_key_file_set_uint64 (file, GROUP_TRANSFER, "bytes-total", self->bytes_total);
  g_key_file_set_uint64 (file, GROUP_TRANSFER, "bytes-durable", self->bytes_durable);
}

static char *
stamp_text (const FerryJournalStamp *stamp)
{
  return g_strdup_printf ("%" G_GUINT64_FORMAT ";%" G_GINT64_FORMAT ";%" G_GINT64_FORMAT,
                          stamp->size, stamp->mtime_sec, stamp->mtime_nsec);
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
      InFlight *record = value;
      g_autofree char *key = key_for (relpath);
      g_autofree char *stamp = stamp_text (&record->stamp);
      g_autofree char *text = g_strdup_printf ("%s;%" G_GUINT64_FORMAT ";%s", record->temp_name,
                                               record->durable, stamp);
      g_key_file_set_string (file, GROUP_IN_FLIGHT, key, text);
    }
}

/* Written whole under a temporary name, then renamed over the last one:
 * a kill leaves one journal or the other, never half of one. */
gboolean
ferry_journal_save (FerryJournal *self, GError **error)
{
  g_autoptr (GKeyFile) file = g_key_file_new ();
  g_autofree char *dir = ferry_journal_dir ();
  g_autofree char *path = journal_path (self->id);
  g_autofree char *data = NULL;
  gsize length;

  g_mutex_lock (&self->lock);
  write_transfer (self, file);
  write_files (self, file);
  g_mutex_unlock (&self->lock);
  data = g_key_file_to_data (file, &length, NULL);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _ ("Could not create the folder “%s”: %s"), dir, g_strerror (errsv));
      return FALSE;
    }
  return g_file_set_contents_full (path, data, length, G_FILE_SET_CONTENTS_CONSISTENT, 0600,
                                   error);
}

/* The transfer ended well, or is discarded. */
void
ferry_journal_remove (FerryJournal *self)
{
  g_autofree char *path = journal_path (self->id);

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

static void
read_complete (FerryJournal *self, GKeyFile *file)
{
  g_auto (GStrv) keys = g_key_file_get_keys (file, GROUP_COMPLETE, NULL, NULL);

  for (guint i = 0; keys != NULL && keys[i] != NULL; i++)
    {
      g_autofree char *text = g_key_file_get_string (file, GROUP_COMPLETE, keys[i], NULL);
      g_auto (GStrv) fields = g_strsplit (text ? text : "", ";", 0);
      g_autofree char *relpath = g_uri_unescape_string (keys[i], NULL);
      FerryJournalStamp stamp;

      if (relpath != NULL && parse_stamp (fields, &stamp))
        g_hash_table_insert (self->complete, g_steal_pointer (&relpath),
                             g_memdup2 (&stamp, sizeof stamp));
    }
}

/* "TEMP;DURABLE;SIZE;SEC;NSEC": the temporary name never holds a ';'. */
static void
read_in_flight (FerryJournal *self, GKeyFile *file)
{
  g_auto (GStrv) keys = g_key_file_get_keys (file, GROUP_IN_FLIGHT, NULL, NULL);

  for (guint i = 0; keys != NULL && keys[i] != NULL; i++)
    {
      g_autofree char *text = g_key_file_get_string (file, GROUP_IN_FLIGHT, keys[i], NULL);
      g_auto (GStrv) fields = g_strsplit (text ? text : "", ";", 0);
      g_autofree char *relpath = g_uri_unescape_string (keys[i], NULL);
      InFlight record = { 0 };

      if (relpath == NULL || g_strv_length (fields) != 5 || strchr (fields[0], '/') != NULL
          || !g_ascii_string_to_unsigned (fields[1], 10, 0, G_MAXUINT64, &record.durable, NULL)
          || !parse_stamp (fields + 2, &record.stamp))
        continue;
      record.temp_name = g_strdup (fields[0]);
      record.written = record.candidate = record.durable;
      g_hash_table_insert (self->in_flight, g_steal_pointer (&relpath),
                           g_memdup2 (&record, sizeof record));
    }
}

static void
read_transfer (FerryJournal *self, GKeyFile *file)
{
  self->sources = g_key_file_get_string_list (file, GROUP_TRANSFER, "sources", NULL, NULL);
  self->destination = g_key_file_get_string (file, GROUP_TRANSFER, "destination", NULL);
  self->filesystem.dev = g_key_file_get_uint64 (file, GROUP_TRANSFER, "fs-dev", NULL);
  self->filesystem.uuid = g_key_file_get_string (file, GROUP_TRANSFER, "fs-uuid", NULL);
  self->filesystem.label = g_key_file_get_string (file, GROUP_TRANSFER, "fs-label", NULL);
  self->bytes_total = g_key_file_get_uint64 (file, GROUP_TRANSFER, "bytes-total", NULL);
  self->bytes_durable = g_key_file_get_uint64 (file, GROUP_TRANSFER, "bytes-durable", NULL);
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

/**
 * ferry_journal_load:
 * The journal @id, as its last save left it; NULL with @error when there
 * is none, or it cannot be read.
 */
FerryJournal *
ferry_journal_load (const char *id, GError **error)
{
  g_autoptr (GKeyFile) file = g_key_file_new ();
  g_autoptr (FerryJournal) self = NULL;
  g_autofree char *path = NULL;

  if (!is_id (id))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _ ("No unfinished transfer “%s”"), id);
      return NULL;
    }
  path = journal_path (id);
  if (!g_key_file_load_from_file (file, path, G_KEY_FILE_NONE, error))
    return NULL;
  self = ferry_journal_new (id);
  read_transfer (self, file);
  if (self->sources == NULL || self->destination == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _ ("The journal “%s” names no transfer"), path);
      return NULL;
    }
  read_complete (self, file);
  read_in_flight (self, file);
  return g_steal_pointer (&self);
}
