/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "ferry-unsupported-private.h"

/* Registered by hand, as FerryFailure is: G_DEFINE_BOXED_TYPE does not
 * build cleanly with -Wpedantic. */
GType
ferry_unsupported_item_get_type (void)
{
  static gsize type_id = 0;

  if (g_once_init_enter (&type_id))
    {
      GType type = g_boxed_type_register_static (
          g_intern_static_string ("FerryUnsupportedItem"),
          (GBoxedCopyFunc) ferry_unsupported_item_copy, (GBoxedFreeFunc) ferry_unsupported_item_free);
      g_once_init_leave (&type_id, type);
    }
  return type_id;
}

FerryUnsupportedItem *
_ferry_unsupported_item_new (FerryUnsupportedKind kind,
                             GFile *source,
                             const char *path,
                             const char *adapted,
                             guint64 size)
{
  FerryUnsupportedItem *item = g_new0 (FerryUnsupportedItem, 1);

  item->kind = kind;
  item->source = g_object_ref (source);
  item->path = g_strdup (path);
  item->adapted = g_strdup (adapted);
  item->size = size;
  return item;
}

FerryUnsupportedItem *
ferry_unsupported_item_copy (const FerryUnsupportedItem *item)
{
  return _ferry_unsupported_item_new (item->kind, item->source, item->path, item->adapted,
                                      item->size);
}

void
ferry_unsupported_item_free (FerryUnsupportedItem *item)
{
  g_clear_object (&item->source);
  g_free (item->path);
  g_free (item->adapted);
  g_free (item);
}

/* The last part of @path: the name as the person knows it. */
const char *
ferry_unsupported_item_get_name (const FerryUnsupportedItem *item)
{
  const char *slash = strrchr (item->path, '/');

  return slash != NULL ? slash + 1 : item->path;
}

/**
 * FerryUnsupportedReport:
 * Every entry of a job that its destination's filesystem cannot store
 * as it is, found before anything was written, and the one answer for
 * all of them: adapt, skip, or cancel. The job waits for the answer
 * (on its own thread); a report dropped unanswered answers "none", and
 * the job stops before writing.
 */
struct _FerryUnsupportedReport
{
  GObject parent_instance;

  char *filesystem;
  GFile *destination;
  GPtrArray *items; /* FerryUnsupportedItem */
  FerryAnswer *answer;
  FerryUnsupportedAction action; /* what the job did, once it decided */
};

G_DEFINE_FINAL_TYPE (FerryUnsupportedReport, ferry_unsupported_report, G_TYPE_OBJECT)

FerryUnsupportedReport *
_ferry_unsupported_report_new (const char *filesystem, GFile *destination, GPtrArray *items)
{
  FerryUnsupportedReport *self = g_object_new (FERRY_TYPE_UNSUPPORTED_REPORT, NULL);

  self->filesystem = g_strdup (filesystem);
  self->destination = g_object_ref (destination);
  self->items = g_ptr_array_ref (items);
  return self;
}

FerryAnswer *
_ferry_unsupported_report_get_answer (FerryUnsupportedReport *self)
{
  return _ferry_answer_ref (self->answer);
}

void
_ferry_unsupported_report_set_action (FerryUnsupportedReport *self, FerryUnsupportedAction action)
{
  self->action = action;
}

static void
ferry_unsupported_report_finalize (GObject *object)
{
  FerryUnsupportedReport *self = FERRY_UNSUPPORTED_REPORT (object);

  _ferry_answer_give (self->answer, FERRY_UNSUPPORTED_ACTION_NONE, FALSE);
  _ferry_answer_unref (self->answer);
  g_free (self->filesystem);
  g_clear_object (&self->destination);
  g_clear_pointer (&self->items, g_ptr_array_unref);
  G_OBJECT_CLASS (ferry_unsupported_report_parent_class)->finalize (object);
}

static void
ferry_unsupported_report_class_init (FerryUnsupportedReportClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ferry_unsupported_report_finalize;
}

static void
ferry_unsupported_report_init (FerryUnsupportedReport *self)
{
  self->answer = _ferry_answer_new ();
}

/* "FAT32", "exFAT" or "NTFS": how people know the drive's format. */
const char *
ferry_unsupported_report_get_filesystem (FerryUnsupportedReport *self)
{
  g_return_val_if_fail (FERRY_IS_UNSUPPORTED_REPORT (self), NULL);
  return self->filesystem;
}

GFile *
ferry_unsupported_report_get_destination (FerryUnsupportedReport *self)
{
  g_return_val_if_fail (FERRY_IS_UNSUPPORTED_REPORT (self), NULL);
  return self->destination;
}

/**
 * ferry_unsupported_report_get_items:
 * Returns: (transfer none) (element-type FerryUnsupportedItem): in the
 *   order the entries were found
 */
GPtrArray *
ferry_unsupported_report_get_items (FerryUnsupportedReport *self)
{
  g_return_val_if_fail (FERRY_IS_UNSUPPORTED_REPORT (self), NULL);
  return self->items;
}

guint
ferry_unsupported_report_count (FerryUnsupportedReport *self, FerryUnsupportedKind kind)
{
  guint n = 0;

  g_return_val_if_fail (FERRY_IS_UNSUPPORTED_REPORT (self), 0);
  for (guint i = 0; i < self->items->len; i++)
    n += ((FerryUnsupportedItem *) g_ptr_array_index (self->items, i))->kind == kind;
  return n;
}

/* How many entries "Adapt" would copy in another form. */
guint
ferry_unsupported_report_count_adaptable (FerryUnsupportedReport *self)
{
  guint n = 0;

  g_return_val_if_fail (FERRY_IS_UNSUPPORTED_REPORT (self), 0);
  for (guint i = 0; i < self->items->len; i++)
    n += ((FerryUnsupportedItem *) g_ptr_array_index (self->items, i))->adapted != NULL;
  return n;
}

/* What the job did with the entries: NONE while it has not decided (or
 * when it stopped because nobody answered). */
FerryUnsupportedAction
ferry_unsupported_report_get_action (FerryUnsupportedReport *self)
{
  g_return_val_if_fail (FERRY_IS_UNSUPPORTED_REPORT (self), FERRY_UNSUPPORTED_ACTION_NONE);
  return self->action;
}

/**
 * ferry_unsupported_report_answer:
 * Answers for every entry of the report; may be called from any thread,
 * once (later answers are ignored).
 */
void
ferry_unsupported_report_answer (FerryUnsupportedReport *self, FerryUnsupportedAction action)
{
  g_return_if_fail (FERRY_IS_UNSUPPORTED_REPORT (self));
  _ferry_answer_give (self->answer, action, FALSE);
}
