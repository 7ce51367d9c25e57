/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <gio/gunixinputstream.h>
#include <glib/gi18n.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ferry-cli-prompt.h"

/**
 * FerryCliPrompt:
 * Asks on the terminal what to do with a file that already exists, and
 * reads the answer without blocking the main loop (the progress keeps
 * its place and Ctrl+C still cancels).
 */
struct _FerryCliPrompt
{
  GDataInputStream *input;
  GCancellable *cancellable;
  FerryConflictRequest *pending;
};

FerryCliPrompt *
ferry_cli_prompt_new (void)
{
  FerryCliPrompt *self = g_new0 (FerryCliPrompt, 1);
  g_autoptr (GInputStream) stdin_stream = g_unix_input_stream_new (STDIN_FILENO, FALSE);

  self->input = g_data_input_stream_new (stdin_stream);
  self->cancellable = g_cancellable_new ();
  return self;
}

void
ferry_cli_prompt_free (FerryCliPrompt *self)
{
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->input);
  g_clear_object (&self->pending);
  g_free (self);
}

gboolean
ferry_cli_prompt_is_asking (FerryCliPrompt *self)
{
  return self->pending != NULL;
}

/* "r", "replace", "s!", "keep-both!" …: the first letter decides, a
 * trailing "!" applies the answer to every later conflict. */
gboolean
ferry_cli_prompt_parse (const char *line,
                        gboolean source_is_dir,
                        FerryConflictAction *action,
                        gboolean *apply_to_all)
{
  g_autofree char *answer = g_strstrip (g_ascii_strdown (line, -1));
  gsize len = strlen (answer);

  *apply_to_all = len > 0 && answer[len - 1] == '!';
  switch (answer[0])
    {
      case 'r':
        *action = FERRY_CONFLICT_ACTION_REPLACE;
        return !source_is_dir;
      case 'm':
        *action = FERRY_CONFLICT_ACTION_MERGE;
        return source_is_dir;
      case 's':
        *action = FERRY_CONFLICT_ACTION_SKIP;
        return TRUE;
      case 'k':
        *action = FERRY_CONFLICT_ACTION_KEEP_BOTH;
        return TRUE;
      case 'c':
      case 'q':
        *action = FERRY_CONFLICT_ACTION_CANCEL;
        return TRUE;
      default:
        return FALSE;
    }
}

static char *
describe (GFile *file, guint64 size, GDateTime *modified, gboolean is_dir)
{
  g_autofree char *name = g_file_get_parse_name (file);
  g_autofree char *when = g_date_time_format (modified, "%x %X");
  g_autofree char *size_str = g_format_size (size);

  if (is_dir)
    /* TRANSLATORS: a folder, then when it was modified */
    return g_strdup_printf (_ ("“%s” (folder, modified %s)"), name, when);
  /* TRANSLATORS: a file, its size, when it was modified */
  return g_strdup_printf (_ ("“%s” (%s, modified %s)"), name, size_str, when);
}

static void read_answer (FerryCliPrompt *self);

static void
print_question (FerryCliPrompt *self)
{
  FerryConflictRequest *r = self->pending;
  gboolean is_dir = ferry_conflict_request_get_source_is_dir (r);
  g_autofree char *existing = describe (ferry_conflict_request_get_destination (r),
                                        ferry_conflict_request_get_destination_size (r),
                                        ferry_conflict_request_get_destination_modified (r),
                                        ferry_conflict_request_get_destination_is_dir (r));
  g_autofree char *incoming
      = describe (ferry_conflict_request_get_source (r), ferry_conflict_request_get_source_size (r),
                  ferry_conflict_request_get_source_modified (r), is_dir);

  fprintf (stderr, "\r\033[K%s\n  %s %s\n  %s %s\n", _ ("This already exists:"), _ ("existing:"),
           existing, _ ("copying: "), incoming);
  fprintf (stderr, "%s ",
           is_dir ? _ ("[M]erge, [S]kip, [K]eep both, [C]ancel? (add ! to apply to all)")
                  : _ ("[R]eplace, [S]kip, [K]eep both, [C]ancel? (add ! to apply to all)"));
  fflush (stderr);
}

static void
on_line_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  FerryCliPrompt *self = user_data;
  g_autoptr (GError) error = NULL;
  g_autofree char *line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (source),
                                                                     result, NULL, &error);
  FerryConflictAction action;
  gboolean apply_to_all;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (line == NULL)
    {
      /* End of input: nobody can answer any more. */
      ferry_conflict_request_answer (self->pending, FERRY_CONFLICT_ACTION_CANCEL, FALSE);
      g_clear_object (&self->pending);
      return;
    }
  if (!ferry_cli_prompt_parse (line, ferry_conflict_request_get_source_is_dir (self->pending),
                               &action, &apply_to_all))
    {
      print_question (self);
      read_answer (self);
      return;
    }
  ferry_conflict_request_answer (self->pending, action, apply_to_all);
  g_clear_object (&self->pending);
}

static void
read_answer (FerryCliPrompt *self)
{
  g_data_input_stream_read_line_async (self->input, G_PRIORITY_DEFAULT, self->cancellable,
                                       on_line_read, self);
}

void
ferry_cli_prompt_ask (FerryCliPrompt *self, FerryConflictRequest *request)
{
  g_return_if_fail (self->pending == NULL);

  self->pending = g_object_ref (request);
  print_question (self);
  read_answer (self);
}
