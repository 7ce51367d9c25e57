/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "ferry-answer-private.h"
#include "ferry-conflict-request-private.h"
#include "ferry-enum-types.h"

struct _FerryConflictRequest
{
  GObject parent_instance;

  GFile *source;
  GFile *destination;
  gboolean source_is_dir;
  gboolean destination_is_dir;
  guint64 source_size;
  guint64 destination_size;
  GDateTime *source_modified;
  GDateTime *destination_modified;
  char *suggested_name;

  FerryAnswer *answer;
};

G_DEFINE_FINAL_TYPE (FerryConflictRequest, ferry_conflict_request, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_SOURCE,
  PROP_DESTINATION,
  PROP_SOURCE_IS_DIR,
  PROP_DESTINATION_IS_DIR,
  PROP_ANSWERED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static GDateTime *
date_time_from_timespec (const struct timespec *ts)
{
  g_autoptr (GDateTime) seconds = g_date_time_new_from_unix_utc (ts->tv_sec);
  return g_date_time_add (seconds, ts->tv_nsec / 1000);
}

FerryConflictRequest *
_ferry_conflict_request_new (GFile *source,
                             GFile *destination,
                             const struct stat *source_st,
                             const struct stat *destination_st,
                             FerryAnswer **answer)
{
  FerryConflictRequest *self = g_object_new (FERRY_TYPE_CONFLICT_REQUEST, "source", source,
                                             "destination", destination, NULL);

  self->source_is_dir = S_ISDIR (source_st->st_mode);
  self->destination_is_dir = S_ISDIR (destination_st->st_mode);
  self->source_size = source_st->st_size;
  self->destination_size = destination_st->st_size;
  self->source_modified = date_time_from_timespec (&source_st->st_mtim);
  self->destination_modified = date_time_from_timespec (&destination_st->st_mtim);
  *answer = _ferry_answer_ref (self->answer);
  return self;
}

void
_ferry_conflict_request_set_suggested_name (FerryConflictRequest *self, const char *name)
{
  g_free (self->suggested_name);
  self->suggested_name = g_strdup (name);
}

static void
ferry_conflict_request_finalize (GObject *object)
{
  FerryConflictRequest *self = FERRY_CONFLICT_REQUEST (object);

  _ferry_answer_give (self->answer, FERRY_CONFLICT_ACTION_NONE, FALSE);
  _ferry_answer_unref (self->answer);
  g_clear_object (&self->source);
  g_clear_object (&self->destination);
  g_clear_pointer (&self->source_modified, g_date_time_unref);
  g_clear_pointer (&self->destination_modified, g_date_time_unref);
  g_free (self->suggested_name);

  G_OBJECT_CLASS (ferry_conflict_request_parent_class)->finalize (object);
}

static void
ferry_conflict_request_get_property (GObject *object,
                                     guint prop_id,
                                     GValue *value,
                                     GParamSpec *pspec)
{
  FerryConflictRequest *self = FERRY_CONFLICT_REQUEST (object);

  switch (prop_id)
    {
      case PROP_SOURCE:
        g_value_set_object (value, self->source);
        break;
      case PROP_DESTINATION:
        g_value_set_object (value, self->destination);
        break;
      case PROP_SOURCE_IS_DIR:
        g_value_set_boolean (value, self->source_is_dir);
        break;
      case PROP_DESTINATION_IS_DIR:
        g_value_set_boolean (value, self->destination_is_dir);
        break;
      case PROP_ANSWERED:
        g_value_set_boolean (value, ferry_conflict_request_get_answered (self));
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ferry_conflict_request_set_property (GObject *object,
                                     guint prop_id,
                                     const GValue *value,
                                     GParamSpec *pspec)
{
  FerryConflictRequest *self = FERRY_CONFLICT_REQUEST (object);

  switch (prop_id)
    {
      case PROP_SOURCE:
        self->source = g_value_dup_object (value);
        break;
      case PROP_DESTINATION:
        self->destination = g_value_dup_object (value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ferry_conflict_request_class_init (FerryConflictRequestClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ferry_conflict_request_finalize;
  object_class->get_property = ferry_conflict_request_get_property;
  object_class->set_property = ferry_conflict_request_set_property;

  properties[PROP_SOURCE]
      = g_param_spec_object ("source", NULL, NULL, G_TYPE_FILE,
                             G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_DESTINATION]
      = g_param_spec_object ("destination", NULL, NULL, G_TYPE_FILE,
                             G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SOURCE_IS_DIR] = g_param_spec_boolean ("source-is-dir", NULL, NULL, FALSE,
                                                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_DESTINATION_IS_DIR] = g_param_spec_boolean (
      "destination-is-dir", NULL, NULL, FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_ANSWERED]
      = g_param_spec_boolean ("answered", NULL, NULL, FALSE,
                              G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ferry_conflict_request_init (FerryConflictRequest *self)
{
  self->answer = _ferry_answer_new ();
}

GFile *
ferry_conflict_request_get_source (FerryConflictRequest *self)
{
  g_return_val_if_fail (FERRY_IS_CONFLICT_REQUEST (self), NULL);
  return self->source;
}

GFile *
ferry_conflict_request_get_destination (FerryConflictRequest *self)
{
  g_return_val_if_fail (FERRY_IS_CONFLICT_REQUEST (self), NULL);
  return self->destination;
}

gboolean
ferry_conflict_request_get_source_is_dir (FerryConflictRequest *self)
{
  g_return_val_if_fail (FERRY_IS_CONFLICT_REQUEST (self), FALSE);
  return self->source_is_dir;
}

gboolean
ferry_conflict_request_get_destination_is_dir (FerryConflictRequest *self)
{
  g_return_val_if_fail (FERRY_IS_CONFLICT_REQUEST (self), FALSE);
  return self->destination_is_dir;
}

guint64
ferry_conflict_request_get_source_size (FerryConflictRequest *self)
{
  g_return_val_if_fail (FERRY_IS_CONFLICT_REQUEST (self), 0);
  return self->source_size;
}

guint64
ferry_conflict_request_get_destination_size (FerryConflictRequest *self)
{
  g_return_val_if_fail (FERRY_IS_CONFLICT_REQUEST (self), 0);
  return self->destination_size;
}

GDateTime *
ferry_conflict_request_get_source_modified (FerryConflictRequest *self)
{
  g_return_val_if_fail (FERRY_IS_CONFLICT_REQUEST (self), NULL);
  return self->source_modified;
}

GDateTime *
ferry_conflict_request_get_destination_modified (FerryConflictRequest *self)
{
  g_return_val_if_fail (FERRY_IS_CONFLICT_REQUEST (self), NULL);
  return self->destination_modified;
}

/**
 * ferry_conflict_request_get_suggested_name:
 * Returns: (nullable): a name free beside the one taken, as Keep Both
 * would name the copy ("notes (2).txt"), to offer as the new name.
 */
const char *
ferry_conflict_request_get_suggested_name (FerryConflictRequest *self)
{
  g_return_val_if_fail (FERRY_IS_CONFLICT_REQUEST (self), NULL);
  return self->suggested_name;
}

gboolean
ferry_conflict_request_get_answered (FerryConflictRequest *self)
{
  g_return_val_if_fail (FERRY_IS_CONFLICT_REQUEST (self), FALSE);
  return _ferry_answer_is_given (self->answer);
}

/**
 * ferry_conflict_request_answer:
 * @action: what to do with this file or folder
 * @apply_to_all: do the same for every later conflict of the same kind
 *   (files, or folders) in this job, without asking again
 *
 * Answers the request; may be called from any thread, once.
 */
void
ferry_conflict_request_answer (FerryConflictRequest *self,
                               FerryConflictAction action,
                               gboolean apply_to_all)
{
  g_return_if_fail (FERRY_IS_CONFLICT_REQUEST (self));
  g_return_if_fail (action != FERRY_CONFLICT_ACTION_MERGE || self->source_is_dir);
  g_return_if_fail (action != FERRY_CONFLICT_ACTION_RENAME);

  if (_ferry_answer_give (self->answer, action, apply_to_all))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANSWERED]);
}

/**
 * ferry_conflict_request_answer_rename:
 * @name: the name the copy gets instead, in the same folder
 *
 * Answers the request: the file or folder is copied under @name, for
 * this conflict only. A name that is taken as well gets a number, as
 * Keep Both does ("@name (2)"); a name that is no name ("", ".", "..",
 * one with a "/") makes the entry fail. May be called from any thread,
 * once.
 */
void
ferry_conflict_request_answer_rename (FerryConflictRequest *self, const char *name)
{
  g_return_if_fail (FERRY_IS_CONFLICT_REQUEST (self));
  g_return_if_fail (name != NULL);

  if (_ferry_answer_give_name (self->answer, FERRY_CONFLICT_ACTION_RENAME, name))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANSWERED]);
}
