/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <string.h>
#include <unistd.h>

#include "ferry-fs-id.h"
#include "ferry-fs.h"
#include "ferry-job-private.h"
#include "ferry-journal.h"
#include "ferry-temp-file.h"
#include "ferry-temp-folder.h"
#include "ferry-unfinished.h"

struct _FerryUnfinished
{
  GObject parent_instance;
  char *id;
  FerryJournal *journal; /* NULL when it is damaged: */
  const char *damage;    /* ... what is wrong with it */
  char *destination_now; /* as last found (see ferry_unfinished_is_present()) */
  gboolean looked;       /* ... which was asked at least once */
};

G_DEFINE_FINAL_TYPE (FerryUnfinished, ferry_unfinished, G_TYPE_OBJECT)

static void
ferry_unfinished_finalize (GObject *object)
{
  FerryUnfinished *self = FERRY_UNFINISHED (object);

  g_free (self->id);
  g_clear_object (&self->journal);
  g_free (self->destination_now);
  G_OBJECT_CLASS (ferry_unfinished_parent_class)->finalize (object);
}

static void
ferry_unfinished_class_init (FerryUnfinishedClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ferry_unfinished_finalize;
}

static void
ferry_unfinished_init (FerryUnfinished *self)
{
}

/* What is wrong with a journal that @error says cannot be read back,
 * in words for the person who may remove it. */
static const char *
describe_damage (const GError *error)
{
  if (error->domain == FERRY_JOURNAL_ERROR)
    switch ((FerryJournalError) error->code)
      {
      case FERRY_JOURNAL_ERROR_EMPTY:
        return _ ("it is empty");
      case FERRY_JOURNAL_ERROR_GARBLED:
        return _ ("its text is garbled");
      case FERRY_JOURNAL_ERROR_INCOMPLETE:
        return _ ("parts of it are missing");
      }
  return _ ("it cannot be read");
}

/**
 * ferry_unfinished_lookup:
 * The unfinished transfer @id, its journal whole or damaged
 * (ferry_unfinished_get_damage()); NULL with @error when there is none.
 */
FerryUnfinished *
ferry_unfinished_lookup (const char *id, GError **error)
{
  g_autoptr (GError) local_error = NULL;
  FerryJournal *journal = ferry_journal_load (id, &local_error);
  FerryUnfinished *self;

  /* gone meanwhile is none: the transfer ended well or was discarded */
  if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT)
      || g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  self = g_object_new (FERRY_TYPE_UNFINISHED, NULL);
  self->id = g_strdup (id);
  self->journal = journal;
  if (journal == NULL)
    self->damage = describe_damage (local_error);
  return self;
}

/* Those whose journal is damaged, or else those that can be continued. */
static GPtrArray *
list_damaged_or_not (gboolean damaged)
{
  g_auto (GStrv) ids = ferry_journal_list_ids ();
  GPtrArray *list = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; ids[i] != NULL; i++)
    {
      FerryUnfinished *found = ferry_unfinished_lookup (ids[i], NULL);

      if (found != NULL && (found->damage != NULL) == damaged)
        g_ptr_array_add (list, found);
      else if (found != NULL)
        g_object_unref (found);
    }
  return list;
}

/**
 * ferry_unfinished_list:
 * Returns: (transfer full) (element-type FerryUnfinished): every
 * unfinished transfer that can be continued, its drive present or not;
 * not those whose journal is damaged (ferry_unfinished_list_damaged()).
 */
GPtrArray *
ferry_unfinished_list (void)
{
  return list_damaged_or_not (FALSE);
}

/**
 * ferry_unfinished_list_damaged:
 * Returns: (transfer full) (element-type FerryUnfinished): every
 * unfinished transfer whose journal is damaged: it cannot be continued,
 * only discarded, and says nothing but its ID and its damage.
 */
GPtrArray *
ferry_unfinished_list_damaged (void)
{
  return list_damaged_or_not (TRUE);
}

/**
 * ferry_unfinished_get_damage:
 * What is wrong with the transfer's journal, in a person's words ("it is
 * empty"), or NULL when it is whole.
 */
const char *
ferry_unfinished_get_damage (FerryUnfinished *self)
{
  g_return_val_if_fail (FERRY_IS_UNFINISHED (self), NULL);
  return self->damage;
}

/* One whose journal was read back: what it says can be asked. */
static gboolean
is_whole (FerryUnfinished *self)
{
  return FERRY_IS_UNFINISHED (self) && self->journal != NULL;
}

const char *
ferry_unfinished_get_id (FerryUnfinished *self)
{
  g_return_val_if_fail (FERRY_IS_UNFINISHED (self), NULL);
  return self->id;
}

const char *const *
ferry_unfinished_get_sources (FerryUnfinished *self)
{
  g_return_val_if_fail (is_whole (self), NULL);
  return ferry_journal_get_sources (self->journal);
}

/* Where the destination folder is: where ferry_unfinished_is_present()
 * last found it (its drive mounted elsewhere since, the same folder
 * there), else where the transfer began. */
const char *
ferry_unfinished_get_destination (FerryUnfinished *self)
{
  g_return_val_if_fail (is_whole (self), NULL);
  if (self->destination_now != NULL)
    return self->destination_now;
  return ferry_journal_get_destination (self->journal);
}

/* The drive's label, or else its mount folder's name. */
const char *
ferry_unfinished_get_label (FerryUnfinished *self)
{
  g_return_val_if_fail (is_whole (self), NULL);
  return ferry_journal_get_filesystem (self->journal)->label;
}

guint64
ferry_unfinished_get_bytes_durable (FerryUnfinished *self)
{
  g_return_val_if_fail (is_whole (self), 0);
  return ferry_journal_get_bytes_durable (self->journal);
}

guint64
ferry_unfinished_get_bytes_total (FerryUnfinished *self)
{
  g_return_val_if_fail (is_whole (self), 0);
  return ferry_journal_get_bytes_total (self->journal);
}

/**
 * ferry_unfinished_is_present:
 * Whether the transfer's filesystem is mounted, told by its UUID (else
 * its device), never by its label: at the destination folder, or
 * elsewhere since it was plugged in again (/media/ana/STICK1), which
 * ferry_unfinished_get_destination() then says.
 */
gboolean
ferry_unfinished_is_present (FerryUnfinished *self)
{
  char *found;

  g_return_val_if_fail (is_whole (self), FALSE);
  self->looked = TRUE;
  found = ferry_journal_find_destination (self->journal);
  if (found == NULL)
    return FALSE;
  /* kept while it says the same: a caller may hold it */
  if (g_strcmp0 (found, self->destination_now) == 0)
    g_free (found);
  else
    {
      g_free (self->destination_now);
      self->destination_now = found;
    }
  return TRUE;
}

/* The journal's name for what @job copies: from the paths as typed for
 * a job made of paths (a command line), which are what its run names its
 * journal by ("STICK/" is not "STICK" there), else from its files. */
static char *
journal_id_of_job (FerryJob *job)
{
  GPtrArray *sources = ferry_job_get_sources (job);
  g_autoptr (GPtrArray) paths = NULL;
  g_autofree char *destination = NULL;

  if (_ferry_job_get_typed_sources (job) != NULL)
    return ferry_journal_id_for (_ferry_job_get_typed_sources (job),
                                 _ferry_job_get_typed_destination (job));
  if ((destination = g_file_get_path (ferry_job_get_destination (job))) == NULL)
    return NULL;
  paths = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < sources->len; i++)
    g_ptr_array_add (paths, g_file_get_path (g_ptr_array_index (sources, i)));
  g_ptr_array_add (paths, NULL);
  return ferry_journal_id_for ((const char *const *) paths->pdata, destination);
}

/**
 * ferry_unfinished_is_of_job:
 * Whether @job (one keeping a journal) copies what the transfer copies:
 * its journal is the one @job keeps.
 */
gboolean
ferry_unfinished_is_of_job (FerryUnfinished *self, FerryJob *job)
{
  g_autofree char *id = NULL;
  g_autofree char *id_here = NULL;

  g_return_val_if_fail (is_whole (self), FALSE);
  id = journal_id_of_job (job);
  if (id == NULL)
    return FALSE;
  if (g_str_equal (id, ferry_unfinished_get_id (self)))
    return TRUE;
  /* its drive mounted elsewhere, the job copies to the same folder there;
   * where that is, is looked for here if no one asked yet (once: a list
   * of jobs asks for each) */
  if (!self->looked)
    ferry_unfinished_is_present (self);
  if (self->destination_now == NULL)
    return FALSE;
  id_here = ferry_journal_id_for (ferry_journal_get_sources (self->journal), self->destination_now);
  return g_str_equal (id, id_here);
}

/**
 * ferry_unfinished_new_job:
 * Returns: (transfer full): a job that continues the transfer, on its
 * filesystem only.
 */
FerryJob *
ferry_unfinished_new_job (FerryUnfinished *self)
{
  const char *const *sources;
  FerryJob *job;

  g_return_val_if_fail (is_whole (self), NULL);
  sources = ferry_journal_get_sources (self->journal);
  ferry_unfinished_is_present (self);
  job = ferry_job_new_for_paths (sources, g_strv_length ((char **) sources),
                                 ferry_unfinished_get_destination (self));
  ferry_job_set_keeps_journal (job, TRUE);
  return job;
}

/* The property of a job each choice is kept as, in the journal too. */
static const struct
{
  FerryChoices choice;
  const char *property;
} choice_properties[] = {
  { FERRY_CHOICE_CONFLICT, "conflict-policy" },
  { FERRY_CHOICE_UNSUPPORTED, "unsupported-policy" },
  { FERRY_CHOICE_PRESERVE, "preserve" },
  { FERRY_CHOICE_VERIFY, "verify" },
};

/* @job's @property as a word: its nick, "true" or "false"; NULL for a
 * policy that asks. */
static char *
dup_word (FerryJob *job, const char *property)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (job), property);
  g_auto (GValue) value = G_VALUE_INIT;
  GEnumValue *found;

  g_value_init (&value, pspec->value_type);
  g_object_get_property (G_OBJECT (job), property, &value);
  if (G_VALUE_HOLDS_BOOLEAN (&value))
    return g_strdup (g_value_get_boolean (&value) ? "true" : "false");
  found = g_enum_get_value (G_PARAM_SPEC_ENUM (pspec)->enum_class, g_value_get_enum (&value));
  if (found == NULL || g_str_equal (found->value_nick, "ask"))
    return NULL;
  return g_strdup (found->value_nick);
}

/* A word this Ferry does not know (of a later one, say) is left alone. */
static gboolean
set_from_word (FerryJob *job, const char *property, const char *word)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (job), property);
  GEnumValue *found;

  if (G_IS_PARAM_SPEC_BOOLEAN (pspec))
    {
      if (!g_str_equal (word, "true") && !g_str_equal (word, "false"))
        return FALSE;
      g_object_set (job, property, g_str_equal (word, "true"), NULL);
      return TRUE;
    }
  found = g_enum_get_value_by_nick (G_PARAM_SPEC_ENUM (pspec)->enum_class, word);
  if (found == NULL)
    return FALSE;
  g_object_set (job, property, found->value, NULL);
  return TRUE;
}

/* @job keeps the words of @chosen in its journal. */
static void
keep_chosen (FerryJob *job, FerryChoices chosen)
{
  g_autoptr (GHashTable) choices = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);

  for (guint i = 0; i < G_N_ELEMENTS (choice_properties); i++)
    {
      const char *property = choice_properties[i].property;
      char *word = (chosen & choice_properties[i].choice) ? dup_word (job, property) : NULL;

      if (word != NULL)
        g_hash_table_insert (choices, (gpointer) property, word);
    }
  ferry_job_set_kept_choices (job, choices);
}

/**
 * ferry_unfinished_keep_choices:
 * Before @job (one keeping a journal) runs: what it is asked of @chosen
 * is what its transfer was asked, kept in its journal for the run that
 * continues it, in place of what the journal kept before.
 */
void
ferry_unfinished_keep_choices (FerryJob *job, FerryChoices chosen)
{
  keep_chosen (job, chosen);
}

/**
 * ferry_unfinished_continue_choices:
 * Before @job, from ferry_unfinished_new_job(), runs, @given set on it:
 * what the transfer was asked and is not asked anew in @given is asked
 * of @job as before; all of it is kept in the journal from then on.
 */
void
ferry_unfinished_continue_choices (FerryUnfinished *self, FerryJob *job, FerryChoices given)
{
  FerryChoices chosen = given;

  g_return_if_fail (is_whole (self));
  for (guint i = 0; i < G_N_ELEMENTS (choice_properties); i++)
    {
      const char *property = choice_properties[i].property;
      const char *word = ferry_journal_get_choice (self->journal, property);

      if (!(given & choice_properties[i].choice) && word != NULL
          && set_from_word (job, property, word))
        chosen |= choice_properties[i].choice;
    }
  keep_chosen (job, chosen);
}

/* The folder the journal's paths are below: the destination, or the
 * folder that holds it where it names the copy of the one source. */
static char *
dup_folder_of_paths (FerryUnfinished *self)
{
  g_autofree char *trimmed = NULL;

  if (!ferry_journal_get_names_copy (self->journal))
    return g_strdup (ferry_unfinished_get_destination (self));
  trimmed = ferry_path_trim_slashes (ferry_unfinished_get_destination (self));
  return g_path_get_dirname (trimmed);
}

/* The name the copy of @source has in the folder of the journal's paths
 * (as ferry_plan_resolve() names it): "." where its entries go into
 * that folder itself. */
static char *
dup_copy_name (FerryUnfinished *self, const char *source)
{
  g_autofree char *trimmed = NULL;
  g_autofree char *base = NULL;

  if (ferry_journal_get_names_copy (self->journal))
    source = ferry_unfinished_get_destination (self);
  trimmed = ferry_path_trim_slashes (source);
  base = g_path_get_basename (trimmed);
  return g_strdup (ferry_is_dot_or_dotdot (base) ? "." : base);
}

static void
add_with_parents (GHashTable *folders, const char *relpath)
{
  g_autofree char *folder = g_strdup (relpath);

  while (g_hash_table_add (folders, g_strdup (folder)) && strcmp (folder, ".") != 0)
    {
      char *parent = g_path_get_dirname (folder);
      g_free (folder);
      folder = parent;
    }
}

/* The folders below the folder of the journal's paths where the
 * transfer is known to have written: that folder, the copies of its
 * sources, and the folders of the files it had in flight. */
static GHashTable *
dup_folders_written (FerryUnfinished *self)
{
  GHashTable *folders = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  const char *const *sources = ferry_journal_get_sources (self->journal);
  g_auto (GStrv) temps = ferry_journal_dup_temp_paths (self->journal);

  g_hash_table_add (folders, g_strdup ("."));
  for (guint i = 0; sources[i] != NULL; i++)
    {
      g_autofree char *name = dup_copy_name (self, sources[i]);
      add_with_parents (folders, name);
    }
  for (guint i = 0; temps[i] != NULL; i++)
    {
      g_autofree char *folder = g_path_get_dirname (temps[i]);
      add_with_parents (folders, folder);
    }
  return folders;
}

/**
 * ferry_unfinished_discard:
 * Forgets the transfer; the temporary files it kept on its drive go
 * now when the drive is present, else with the next copy into their
 * folders. So do those it made after its journal was last saved, and
 * the hidden folders a killed run left, in the folders it wrote to.
 */
void
ferry_unfinished_discard (FerryUnfinished *self)
{
  g_autoptr (GHashTable) folders = NULL;
  g_autofree char *folder = NULL;
  ferry_autofd dst_fd = -1;
  GHashTableIter iter;
  const char *relpath;

  g_return_if_fail (FERRY_IS_UNFINISHED (self));
  if (self->journal == NULL)
    {
      /* it names no drive to look on: what the transfer left there goes
       * with the next copy into its folders, as when the drive is away */
      g_autoptr (FerryJournal) damaged = ferry_journal_new (self->id);
      ferry_journal_remove (damaged);
      return;
    }
  ferry_journal_remove (self->journal);
  if (!ferry_unfinished_is_present (self))
    return;
  folder = dup_folder_of_paths (self);
  dst_fd = open (folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dst_fd < 0)
    return;
  folders = dup_folders_written (self);
  g_hash_table_iter_init (&iter, folders);
  while (g_hash_table_iter_next (&iter, (gpointer *) &relpath, NULL))
    {
      ferry_autofd fd = ferry_open_folder_beneath (dst_fd, relpath);

      if (fd >= 0)
        ferry_temp_sweep_discarded (fd, ferry_journal_get_id (self->journal));
    }
}
