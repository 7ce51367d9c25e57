/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <stdio.h>
#include <unistd.h>

#include "ferry-cli-enum-types.h"
#include "ferry-cli-options.h"
#include "ferry-cli-output.h"

#define MAX_WORKERS 256
/* -j not given (any number given is checked, 0 too) */
#define WORKERS_UNSET G_MININT

/* The command line as GOptionContext leaves it, before any checking. */
typedef struct
{
  GStrv paths;
  char *conflict;
  char *unsupported;
  char *on_error;
  char *progress;
  char *device;
  char *slow_method;
  gboolean no_preserve;
  gboolean verify;
  gboolean dry_run;
  gboolean version;
  gboolean restart;
  gboolean resume;
  gboolean discard;
  gboolean cp_habit;
  gint workers;
} RawOptions;

static void
raw_options_clear (RawOptions *raw)
{
  g_clear_pointer (&raw->paths, g_strfreev);
  g_clear_pointer (&raw->conflict, g_free);
  g_clear_pointer (&raw->unsupported, g_free);
  g_clear_pointer (&raw->on_error, g_free);
  g_clear_pointer (&raw->progress, g_free);
  g_clear_pointer (&raw->device, g_free);
  g_clear_pointer (&raw->slow_method, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (RawOptions, raw_options_clear)

/* An option whose words are the nicks of a GEnum. */
typedef struct
{
  const char *word;         /* as given, or NULL to keep the default */
  GType type;
  const char *refused_nick; /* a nick that is no word of the option, or NULL */
  const char *message;      /* for a wrong word: the option and its words */
  gint *value;              /* GLib keeps enum values as gint, as GEnumValue does */
} EnumOption;

/* The options that go on with or forget what was cut short, --version,
 * cp's habits and the paths: after those of a copy, in the help too. */
static void
add_other_entries (GOptionContext *context, RawOptions *raw)
{
  const GOptionEntry entries[]
      = { { "restart", 0, 0, G_OPTION_ARG_NONE, &raw->restart,
            N_ ("Copy everything again, not continuing a run that was cut short"), NULL },
          { "resume", 0, 0, G_OPTION_ARG_NONE, &raw->resume,
            N_ ("[ID…|all]: without IDs, list unfinished transfers; else continue those named, or "
                "all"),
            NULL },
          { "discard", 0, 0, G_OPTION_ARG_NONE, &raw->discard,
            N_ ("ID…|all: forget the unfinished transfers named, or all, and what they left on "
                "their drives"),
            NULL },
          { "version", 0, 0, G_OPTION_ARG_NONE, &raw->version, N_ ("Show the version"), NULL },
          /* What hands used to cp type: "-r" and "-R" (folders are always
           * copied whole) and "-a" (everything is always kept). Accepted
           * and unlisted, so a habit does not end in a usage error. */
          { "recursive", 'r', G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &raw->cp_habit, NULL,
            NULL },
          { "Recursive", 'R', G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &raw->cp_habit, NULL,
            NULL },
          { "archive", 'a', G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &raw->cp_habit, NULL, NULL },
          { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &raw->paths, NULL,
            N_ ("SOURCE… DESTINATION") },
          { NULL } };

  /* The context copies the entries; their pointers lead into @raw. */
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
}

static GOptionContext *
option_context_new (RawOptions *raw)
{
  const GOptionEntry entries[]
      = { { "conflict", 0, 0, G_OPTION_ARG_STRING, &raw->conflict,
            N_ ("What to do when a file exists: ask, skip, overwrite, newer, keep-both (default: "
                "ask when standard input and standard error are terminals, else stop at the first "
                "one)"),
            N_ ("POLICY") },
          { "unsupported", 0, 0, G_OPTION_ARG_STRING, &raw->unsupported,
            N_ ("What to do with what a FAT32, exFAT or NTFS drive cannot store as it is (names, "
                "links, files too large): ask, adapt, skip, stop (default: ask when standard input "
                "and standard error are terminals, else stop before writing anything)"),
            N_ ("POLICY") },
          { "on-error", 0, 0, G_OPTION_ARG_STRING, &raw->on_error,
            N_ ("After a file fails: skip it and go on, or stop (default: skip)"),
            N_ ("skip|stop") },
          { "no-preserve", 0, 0, G_OPTION_ARG_NONE, &raw->no_preserve,
            N_ ("Do not keep owner, permissions, times and extended attributes"), NULL },
          { "verify", 0, 0, G_OPTION_ARG_NONE, &raw->verify,
            N_ ("Read every copy back from the disk and compare it"), NULL },
          { "progress", 0, 0, G_OPTION_ARG_STRING, &raw->progress,
            N_ ("How to show progress: bar, json (one object per line on standard output) or none "
                "(default: bar when standard error is a terminal, else none)"),
            N_ ("STYLE") },
          { "device", 0, 0, G_OPTION_ARG_STRING, &raw->device,
            N_ ("Treat the destination's device as auto (its class, then measured), fast or slow"),
            N_ ("auto|fast|slow") },
          { "slow-method", 0, 0, G_OPTION_ARG_STRING, &raw->slow_method,
            N_ ("How to write to a slow device: window (default) or chunk-sync (for comparison: "
                "it keeps no journal to go on from)"), N_ ("METHOD") },
          { "dry-run", 0, 0, G_OPTION_ARG_NONE, &raw->dry_run,
            N_ ("Only plan: report what would be copied and what would become of files already "
                "there; without --conflict and with no terminal to ask on, stop at the first of "
                "them (exit 1)"),
            NULL },
          { "jobs", 'j', 0, G_OPTION_ARG_INT, &raw->workers,
            N_ ("Copy with N threads (default: one per core)"), N_ ("N") },
          { NULL } };
  /* The other two ways to call it, on lines of the usage after the
   * first: GOption writes an option's placeholder only as "--resume=ID",
   * which --resume and --discard do not take. */
  GOptionContext *context = g_option_context_new (
      N_ ("\n  ferry-copy [OPTION…] --resume [ID…|all]\n  ferry-copy --discard ID…|all"));

  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_set_summary (context, _ ("Copy files and folders, keeping everything, and "
                                            "return only when the copies are safely on the disk."));
  g_option_context_set_description (
      context, _ ("Exit status: 0 only when everything was copied and is durable; 1 when some "
                  "files failed, or --resume left a transfer for later; 2 on bad usage; 130 when "
                  "interrupted."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  add_other_entries (context, raw);
  return context;
}

/* What was wrong, then the help: always FALSE, for the caller to return. */
static gboolean
report_usage_error (GOptionContext *context, const char *message)
{
  g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);

  ferry_cli_print_error (message);
  fprintf (stderr, "\n%s", help);
  return FALSE;
}

static void
set_defaults (FerryCliOptions *self)
{
  /* Only a person at a terminal can answer a question or watch a bar;
   * a script gets the first conflict as a failure ("stop at the first
   * one") and no bar in its log. */
  gboolean person = isatty (STDIN_FILENO) && isatty (STDERR_FILENO);

  self->conflict_policy = person ? FERRY_CONFLICT_POLICY_ASK : FERRY_CONFLICT_POLICY_FAIL;
  self->unsupported_policy = person ? FERRY_UNSUPPORTED_POLICY_ASK : FERRY_UNSUPPORTED_POLICY_STOP;
  self->progress_style
      = isatty (STDERR_FILENO) ? FERRY_CLI_PROGRESS_STYLE_BAR : FERRY_CLI_PROGRESS_STYLE_NONE;
  self->error_policy = FERRY_ERROR_POLICY_SKIP;
  self->device_mode = FERRY_DEVICE_MODE_AUTO;
  self->slow_method = FERRY_SLOW_METHOD_WINDOW;
}

/* Those of the options given that --resume chooses again unless given
 * anew. How a run shows itself (--progress), how hard it works (-j,
 * --device, --slow-method) and when it gives up (--on-error) are the
 * run's own; these decide what the transfer leaves on the drive. */
static FerryChoices
choices_given (const RawOptions *raw)
{
  FerryChoices chosen = FERRY_CHOICE_NONE;

  if (raw->conflict != NULL)
    chosen |= FERRY_CHOICE_CONFLICT;
  if (raw->unsupported != NULL)
    chosen |= FERRY_CHOICE_UNSUPPORTED;
  if (raw->no_preserve)
    chosen |= FERRY_CHOICE_PRESERVE;
  if (raw->verify)
    chosen |= FERRY_CHOICE_VERIFY;
  return chosen;
}

/* The one way every word-taking option is read: the word must be a nick
 * of the option's GEnum; without a word the default stays. */
static gboolean
parse_enum_option (const EnumOption *option)
{
  g_autoptr (GEnumClass) enum_class = NULL;
  const GEnumValue *found;

  if (option->word == NULL)
    return TRUE;
  enum_class = g_type_class_ref (option->type);
  found = g_enum_get_value_by_nick (enum_class, option->word);
  if (found == NULL || g_strcmp0 (found->value_nick, option->refused_nick) == 0)
    return FALSE;
  *option->value = found->value;
  return TRUE;
}

static gboolean
parse_enum_options (FerryCliOptions *self, const RawOptions *raw, GOptionContext *context)
{
  /* In the order their errors have always been reported. "fail" is what
   * a script gets without --conflict; the option does not offer it. */
  const EnumOption options[] = {
    { raw->conflict, FERRY_TYPE_CONFLICT_POLICY, "fail",
      _ ("--conflict takes ask, skip, overwrite, newer or keep-both"),
      (gint *) &self->conflict_policy },
    { raw->unsupported, FERRY_TYPE_UNSUPPORTED_POLICY, NULL,
      _ ("--unsupported takes ask, adapt, skip or stop"), (gint *) &self->unsupported_policy },
    { raw->progress, FERRY_TYPE_CLI_PROGRESS_STYLE, NULL, _ ("--progress takes bar, json or none"),
      (gint *) &self->progress_style },
    { raw->on_error, FERRY_TYPE_ERROR_POLICY, NULL, _ ("--on-error takes skip or stop"),
      (gint *) &self->error_policy },
    { raw->device, FERRY_TYPE_DEVICE_MODE, NULL, _ ("--device takes auto, fast or slow"),
      (gint *) &self->device_mode },
    { raw->slow_method, FERRY_TYPE_SLOW_METHOD, NULL,
      _ ("--slow-method takes window or chunk-sync"), (gint *) &self->slow_method },
  };

  for (guint i = 0; i < G_N_ELEMENTS (options); i++)
    if (!parse_enum_option (&options[i]))
      return report_usage_error (context, options[i].message);
  return TRUE;
}

/* The paths go to the engine as typed: a GFile would collapse "lnk/.."
 * as text and drop a trailing "/" or "/.", which change what is copied. */
static void
set_paths (FerryCliOptions *self, char **paths, guint n_paths)
{
  self->sources = g_new0 (char *, n_paths);
  for (guint i = 0; i + 1 < n_paths; i++)
    self->sources[i] = g_strdup (paths[i]);
  self->destination = g_strdup (paths[n_paths - 1]);
}

/* --discard ID…|all: nothing else goes with it. */
static gboolean
parse_discard (FerryCliOptions *self, RawOptions *raw, GOptionContext *context)
{
  if (raw->resume || raw->restart)
    return report_usage_error (context, _ ("--discard goes with neither --resume nor --restart"));
  if (raw->paths == NULL || raw->paths[0] == NULL)
    return report_usage_error (
        context, _ ("--discard takes the IDs of unfinished transfers (see --resume), or all"));
  set_defaults (self);
  self->discard = TRUE;
  self->sources = g_steal_pointer (&raw->paths);
  return TRUE;
}

/* --resume [ID…|all]: the rest of the options apply to every run, in
 * place of what a transfer was asked when it began. */
static gboolean
parse_resume (FerryCliOptions *self, RawOptions *raw, GOptionContext *context)
{
  set_defaults (self);
  if (!parse_enum_options (self, raw, context))
    return FALSE;
  self->resume = TRUE;
  self->sources = raw->paths != NULL ? g_steal_pointer (&raw->paths) : g_new0 (char *, 1);
  self->n_workers = raw->workers != WORKERS_UNSET ? (guint) raw->workers : g_get_num_processors ();
  self->preserve = !raw->no_preserve;
  self->verify = raw->verify;
  self->chosen = choices_given (raw);
  return TRUE;
}

/* A copy of the command line with "-j4" spelled "--jobs=4", as make and
 * cp's habits type it. GOption takes a short option's value only from
 * the next argument: "-j4 --dry-run SRC DST" read "--dry-run" as the
 * number. Nothing after "--" is touched (a file may be named "-j4"). */
static GStrv
spell_out_attached_jobs (int argc, char **argv)
{
  GStrv args = g_new0 (char *, argc + 1);
  gboolean options_ended = FALSE;

  for (int i = 0; i < argc; i++)
    {
      const char *arg = argv[i];

      options_ended |= i > 0 && g_str_equal (arg, "--");
      if (!options_ended && i > 0 && g_str_has_prefix (arg, "-j") && g_ascii_isdigit (arg[2]))
        args[i] = g_strconcat ("--jobs=", arg + 2, NULL);
      else
        args[i] = g_strdup (arg);
    }
  return args;
}

/**
 * ferry_cli_options_parse:
 * Reads the command line into @self. A usage error is printed with the
 * help, and FALSE returned for the caller to exit with status 2. With
 * --version nothing else is checked.
 */
gboolean
ferry_cli_options_parse (FerryCliOptions *self, int argc, char **argv)
{
  g_auto (RawOptions) raw = { .workers = WORKERS_UNSET };
  g_autoptr (GOptionContext) context = option_context_new (&raw);
  g_auto (GStrv) args = spell_out_attached_jobs (argc, argv);
  g_autoptr (GError) error = NULL;
  guint n_paths;

  if (!g_option_context_parse_strv (context, &args, &error))
    return report_usage_error (context, error->message);
  self->show_version = raw.version;
  if (raw.version)
    return TRUE;

  n_paths = raw.paths != NULL ? g_strv_length (raw.paths) : 0;
  if (raw.workers != WORKERS_UNSET && (raw.workers < 1 || raw.workers > MAX_WORKERS))
    return report_usage_error (context, _ ("--jobs takes a number from 1 to 256"));
  if (raw.resume && raw.restart)
    return report_usage_error (context, _ ("--resume and --restart do not go together"));
  /* Both act at once: a plan only is what they must not do silently. */
  if (raw.dry_run && (raw.resume || raw.discard))
    return report_usage_error (context, _ ("--dry-run goes with neither --resume nor --discard"));
  if (raw.discard)
    return parse_discard (self, &raw, context);
  if (raw.resume)
    return parse_resume (self, &raw, context);
  if (n_paths < 2)
    return report_usage_error (context, n_paths == 0 ? _ ("missing SOURCE and DESTINATION")
                                                     : _ ("missing DESTINATION"));
  set_defaults (self);
  if (!parse_enum_options (self, &raw, context))
    return FALSE;
  set_paths (self, raw.paths, n_paths);
  self->n_workers = raw.workers != WORKERS_UNSET ? (guint) raw.workers : g_get_num_processors ();
  self->preserve = !raw.no_preserve;
  self->verify = raw.verify;
  self->chosen = choices_given (&raw);
  self->dry_run = raw.dry_run;
  self->restart = raw.restart;
  return TRUE;
}

void
ferry_cli_options_clear (FerryCliOptions *self)
{
  g_clear_pointer (&self->sources, g_strfreev);
  g_clear_pointer (&self->destination, g_free);
}
