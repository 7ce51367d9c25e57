/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <gio/gunixinputstream.h>
#include <glib/gi18n.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ferry-cli-prompt.h"
#include "ferry-cli-unsupported.h"
#include "ferry-format.h"

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
  FerryUnsupportedReport *pending_report;
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
  g_clear_object (&self->pending_report);
  g_free (self);
}

gboolean
ferry_cli_prompt_is_asking (FerryCliPrompt *self)
{
  return self->pending != NULL || self->pending_report != NULL;
}

static gboolean
action_fits (FerryConflictAction action, gboolean source_is_dir)
{
  if (action == FERRY_CONFLICT_ACTION_REPLACE)
    return !source_is_dir;
  if (action == FERRY_CONFLICT_ACTION_MERGE)
    return source_is_dir;
  return TRUE;
}

typedef struct
{
  const char *key;
  FerryConflictAction action;
} AnswerKey;

typedef enum
{
  KEY_UNKNOWN,      /* none of the keys */
  KEY_DOES_NOT_FIT, /* a key, for another kind of conflict */
  KEY_FITS,         /* a key that answers this conflict: the action is set */
} KeyMatch;

/* Whether @first is one of @keys, and whether it answers this kind of
 * conflict; @action is set when it does. */
static KeyMatch
match_key (const AnswerKey *keys,
           guint n_keys,
           gunichar first,
           gboolean source_is_dir,
           FerryConflictAction *action)
{
  KeyMatch match = KEY_UNKNOWN;

  for (guint i = 0; i < n_keys; i++)
    if (g_unichar_tolower (g_utf8_get_char (keys[i].key)) == first)
      {
        match = KEY_DOES_NOT_FIT;
        if (action_fits (keys[i].action, source_is_dir))
          {
            *action = keys[i].action;
            return KEY_FITS;
          }
      }
  return match;
}

/* "r", "replace", "s!", "keep-both!" …: the first letter decides, a
 * trailing "!" applies the answer to every later conflict. The letters
 * are those the question shows in the person's language; the English
 * ones are understood too, unless the language uses the letter itself. */
gboolean
ferry_cli_prompt_parse (const char *line,
                        gboolean source_is_dir,
                        FerryConflictAction *action,
                        gboolean *apply_to_all)
{
  const AnswerKey translated[] = {
    /* TRANSLATORS: the letter to type for “[R]eplace” in the question
     * about a file that already exists; use the letter your translation
     * of that question puts in brackets */
    { C_ ("conflict answer", "r"), FERRY_CONFLICT_ACTION_REPLACE },
    /* TRANSLATORS: the letter to type for “[M]erge” (folders) */
    { C_ ("conflict answer", "m"), FERRY_CONFLICT_ACTION_MERGE },
    /* TRANSLATORS: the letter to type for “[S]kip” */
    { C_ ("conflict answer", "s"), FERRY_CONFLICT_ACTION_SKIP },
    /* TRANSLATORS: the letter to type for “[K]eep both” */
    { C_ ("conflict answer", "k"), FERRY_CONFLICT_ACTION_KEEP_BOTH },
    /* TRANSLATORS: the letter to type for “[C]ancel” */
    { C_ ("conflict answer", "c"), FERRY_CONFLICT_ACTION_CANCEL },
  };
  const AnswerKey english[] = {
    { "r", FERRY_CONFLICT_ACTION_REPLACE }, { "m", FERRY_CONFLICT_ACTION_MERGE },
    { "s", FERRY_CONFLICT_ACTION_SKIP },    { "k", FERRY_CONFLICT_ACTION_KEEP_BOTH },
    { "c", FERRY_CONFLICT_ACTION_CANCEL },  { "q", FERRY_CONFLICT_ACTION_CANCEL },
  };
  g_autofree char *answer = NULL;
  KeyMatch match;
  gunichar first;
  gsize len;

  *apply_to_all = FALSE;
  if (!g_utf8_validate (line, -1, NULL))
    return FALSE;
  answer = g_strstrip (g_utf8_strdown (line, -1));
  len = strlen (answer);
  if (len == 0)
    return FALSE;
  *apply_to_all = answer[len - 1] == '!';
  first = g_utf8_get_char (answer);

  /* A letter of the person's language means what the translation says,
   * even when it does not answer this conflict; the English letters are
   * understood too, for those the translation leaves free. */
  match = match_key (translated, G_N_ELEMENTS (translated), first, source_is_dir, action);
  if (match == KEY_UNKNOWN)
    match = match_key (english, G_N_ELEMENTS (english), first, source_is_dir, action);
  return match == KEY_FITS;
}

static char *
describe (GFile *file, guint64 size, GDateTime *modified, gboolean is_dir)
{
  g_autofree char *name = ferry_format_path (g_file_peek_path (file));
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
  /* TRANSLATORS: starts the line about what is already at the destination,
   * above the one starting with "copying: ": give both the same length,
   * with spaces at the end, so that what follows lines up */
  const char *existing_label = _ ("existing:");
  /* TRANSLATORS: starts the line about what is being copied, under the one
   * starting with "existing:": give both the same length */
  const char *incoming_label = _ ("copying: ");
  const char *question
      = is_dir
            /* TRANSLATORS: the person types a letter in brackets to answer;
             * put the same letters in the “conflict answer” translations */
            ? _ ("[M]erge, [S]kip, [K]eep both, [C]ancel? (add ! to apply to all)")
            /* TRANSLATORS: the person types a letter in brackets to answer;
             * put the same letters in the “conflict answer” translations */
            : _ ("[R]eplace, [S]kip, [K]eep both, [C]ancel? (add ! to apply to all)");

  fprintf (stderr, "\r\033[K%s\n  %s %s\n  %s %s\n", _ ("This already exists:"), existing_label,
           existing, incoming_label, incoming);
  fprintf (stderr, "%s ", question);
  fflush (stderr);
}

/* "a", "adapt", "s", "c": the first letter decides. As for conflicts,
 * a letter of the person's language means what the translation says;
 * the English letters are understood where the translation leaves them
 * free. */
static gboolean
parse_unsupported_answer (const char *line, FerryUnsupportedAction *action)
{
  const struct
  {
    const char *translated;
    gunichar english;
    FerryUnsupportedAction action;
  } keys[] = {
    /* TRANSLATORS: the letter to type for “[A]dapt” */
    { C_ ("unsupported answer", "a"), 'a', FERRY_UNSUPPORTED_ACTION_ADAPT },
    /* TRANSLATORS: the letter to type for “[S]kip these” */
    { C_ ("unsupported answer", "s"), 's', FERRY_UNSUPPORTED_ACTION_SKIP },
    /* TRANSLATORS: the letter to type for “[C]ancel” */
    { C_ ("unsupported answer", "c"), 'c', FERRY_UNSUPPORTED_ACTION_CANCEL },
    { C_ ("unsupported answer", "c"), 'q', FERRY_UNSUPPORTED_ACTION_CANCEL },
  };
  g_autofree char *answer = g_utf8_validate (line, -1, NULL) ? g_utf8_strdown (line, -1) : NULL;
  gunichar first = answer != NULL ? g_utf8_get_char (g_strstrip (answer)) : 0;

  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
      if (first == (pass == 0 ? g_utf8_get_char (keys[i].translated) : keys[i].english))
        {
          *action = keys[i].action;
          return TRUE;
        }
  return FALSE;
}

static void
print_unsupported_question (void)
{
  /* TRANSLATORS: the person types a letter in brackets to answer; put
   * the same letters in the “unsupported answer” translations */
  fprintf (stderr, "%s ", _ ("[A]dapt, [S]kip these, [C]ancel?"));
  fflush (stderr);
}

/* Called with an answer to the report's question. */
static void
answer_report (FerryCliPrompt *self, const char *line)
{
  FerryUnsupportedAction action = FERRY_UNSUPPORTED_ACTION_CANCEL;

  if (line != NULL && !parse_unsupported_answer (line, &action))
    {
      print_unsupported_question ();
      read_answer (self);
      return;
    }
  ferry_unsupported_report_answer (self->pending_report, action);
  g_clear_object (&self->pending_report);
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
  if (self->pending_report != NULL)
    {
      answer_report (self, line);
      return;
    }
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

/**
 * ferry_cli_prompt_ask_unsupported:
 * Lists what the drive cannot store as it is and asks once what to do.
 */
void
ferry_cli_prompt_ask_unsupported (FerryCliPrompt *self, FerryUnsupportedReport *report)
{
  GPtrArray *items = ferry_unsupported_report_get_items (report);
  g_autofree char *count = ferry_format_count (items->len);

  g_return_if_fail (self->pending == NULL && self->pending_report == NULL);
  self->pending_report = g_object_ref (report);
  fprintf (stderr, "\r\033[K");
  fprintf (stderr,
           /* TRANSLATORS: the first %s is a number, the second FAT32, exFAT or NTFS */
           g_dngettext (GETTEXT_PACKAGE, "%s item cannot be stored on this %s drive as it is:\n",
                        "%s items cannot be stored on this %s drive as they are:\n", items->len),
           count, ferry_unsupported_report_get_filesystem (report));
  ferry_cli_list_unsupported (report, stderr);
  fprintf (stderr, "%s\n",
           _ ("Adapt: rename with look-alike characters, copy links as the files they point "
              "to, skip what cannot be adapted. Nothing has been written yet."));
  print_unsupported_question ();
  read_answer (self);
}
