/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "ferry-conflict-facts.h"

#define CHUNK (64 * 1024)

/* The source tag of the tasks (a function pointer cannot be one in ISO C). */
static char gather_source_tag[] = "ferry_conflict_facts_gather_async";

#define ATTRIBUTES                                                                                 \
  G_FILE_ATTRIBUTE_STANDARD_TYPE "," G_FILE_ATTRIBUTE_STANDARD_SIZE                                \
                                 "," G_FILE_ATTRIBUTE_STANDARD_ICON                                \
                                 "," G_FILE_ATTRIBUTE_THUMBNAIL_PATH

void
ferry_conflict_facts_free (FerryConflictFacts *facts)
{
  if (facts == NULL)
    return;
  g_clear_object (&facts->existing_icon);
  g_clear_object (&facts->incoming_icon);
  g_free (facts);
}

/* The thumbnail the desktop made of the file, else the icon of its type. */
static GIcon *
picture_of (GFileInfo *info)
{
  const char *thumbnail = g_file_info_get_attribute_byte_string (info,
                                                                 G_FILE_ATTRIBUTE_THUMBNAIL_PATH);
  GIcon *icon = g_file_info_get_icon (info);

  if (thumbnail != NULL && *thumbnail != '\0')
    {
      g_autoptr (GFile) file = g_file_new_for_path (thumbnail);
      return g_file_icon_new (file);
    }
  if (icon != NULL)
    return g_object_ref (icon);
  return g_themed_icon_new ("text-x-generic");
}

static gboolean
read_fully (GInputStream *stream, guchar *buffer, gsize *length, GCancellable *cancellable)
{
  return g_input_stream_read_all (stream, buffer, CHUNK, length, cancellable, NULL);
}

/* Byte for byte, up to the first difference. */
static gboolean
same_bytes (GFile *a, GFile *b, GCancellable *cancellable)
{
  g_autoptr (GInputStream) in_a = G_INPUT_STREAM (g_file_read (a, cancellable, NULL));
  g_autoptr (GInputStream) in_b = G_INPUT_STREAM (g_file_read (b, cancellable, NULL));
  g_autofree guchar *buf_a = g_malloc (CHUNK);
  g_autofree guchar *buf_b = g_malloc (CHUNK);
  gsize len_a = 0, len_b = 0;

  if (in_a == NULL || in_b == NULL)
    return FALSE;
  do
    {
      if (!read_fully (in_a, buf_a, &len_a, cancellable)
          || !read_fully (in_b, buf_b, &len_b, cancellable) || len_a != len_b
          || memcmp (buf_a, buf_b, len_a) != 0)
        return FALSE;
    }
  while (len_a == CHUNK);
  return TRUE;
}

/* Two regular files of one size, small enough to read both now. */
static gboolean
worth_comparing (GFileInfo *existing, GFileInfo *incoming)
{
  return g_file_info_get_file_type (existing) == G_FILE_TYPE_REGULAR
         && g_file_info_get_file_type (incoming) == G_FILE_TYPE_REGULAR
         && g_file_info_get_size (existing) == g_file_info_get_size (incoming)
         && g_file_info_get_size (existing) <= FERRY_CONFLICT_COMPARE_LIMIT;
}

static void
gather (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  FerryConflictRequest *request = source;
  GFile *existing = ferry_conflict_request_get_destination (request);
  GFile *incoming = ferry_conflict_request_get_source (request);
  g_autoptr (FerryConflictFacts) facts = g_new0 (FerryConflictFacts, 1);
  g_autoptr (GFileInfo) existing_info = NULL;
  g_autoptr (GFileInfo) incoming_info = NULL;
  GError *error = NULL;

  existing_info = g_file_query_info (existing, ATTRIBUTES, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS,
                                     cancellable, &error);
  if (existing_info != NULL)
    incoming_info = g_file_query_info (incoming, ATTRIBUTES, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS,
                                       cancellable, &error);
  if (incoming_info == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  facts->existing_icon = picture_of (existing_info);
  facts->incoming_icon = picture_of (incoming_info);
  facts->same_content = worth_comparing (existing_info, incoming_info)
                        && same_bytes (existing, incoming, cancellable);
  g_task_return_pointer (task, g_steal_pointer (&facts),
                         (GDestroyNotify) ferry_conflict_facts_free);
}

/**
 * ferry_conflict_facts_gather_async:
 * Looks at both files of @request in a thread: the disk may be a slow
 * stick, and comparing reads both files whole.
 */
void
ferry_conflict_facts_gather_async (FerryConflictRequest *request,
                                   GCancellable *cancellable,
                                   GAsyncReadyCallback callback,
                                   gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (request, cancellable, callback, user_data);

  g_task_set_source_tag (task, gather_source_tag);
  g_task_run_in_thread (task, gather);
}

FerryConflictFacts *
ferry_conflict_facts_gather_finish (FerryConflictRequest *request,
                                    GAsyncResult *result,
                                    GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, request), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
