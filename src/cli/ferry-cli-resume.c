/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <stdio.h>

#include "ferry-cli-output.h"
#include "ferry-cli-resume.h"
#include "ferry-cli-run.h"
#include "ferry-format.h"

/* ferry-copy --resume: the unfinished transfers listed, one a line, or
 * those named (or all) continued, each on its own drive only. */

/* How much is on the drive, like "1.2 GB of 3.0 GB on STICK". */
static char *
describe_amount (FerryUnfinished *unfinished)
{
  g_autofree char *durable = g_format_size (ferry_unfinished_get_bytes_durable (unfinished));
  g_autofree char *total = g_format_size (ferry_unfinished_get_bytes_total (unfinished));
  const char *label = ferry_unfinished_get_label (unfinished);

  if (label == NULL)
    /* TRANSLATORS: how much of a transfer is on a drive with no name, like "1.2 GB of 3.0 GB" */
    return g_strdup_printf (_ ("%s of %s"), durable, total);
  /* TRANSLATORS: how much of a transfer is on its drive, like "1.2 GB of 3.0 GB on STICK" */
  return g_strdup_printf (_ ("%s of %s on %s"), durable, total, label);
}

static void
print_unfinished (FerryUnfinished *unfinished)
{
  gboolean present = ferry_unfinished_is_present (unfinished);
  g_autofree char *folder = ferry_format_path (ferry_unfinished_get_destination (unfinished));
  g_autofree char *amount = describe_amount (unfinished);
  g_autofree char *destination = NULL;

  if (present)
    destination = g_strdup (folder);
  else
    /* TRANSLATORS: a destination whose drive is away, like "/media/me/STICK (not plugged in)" */
    destination = g_strdup_printf (_ ("%s (not plugged in)"), folder);
  printf ("%s  %s  → %s\n", ferry_unfinished_get_id (unfinished), amount, destination);
}

/* One whose journal is damaged has one line, which says what a person
 * can do: only a disk fault or a hand damages a journal, and it would
 * stay in the state folder for good. */
static void
print_damaged (FerryUnfinished *unfinished)
{
  const char *id = ferry_unfinished_get_id (unfinished);
  g_autofree char *line = NULL;

  /* TRANSLATORS: a transfer --resume lists, by its ID, whose journal is
   * damaged, and why: "0123456789abcdef  damaged (it is empty): cannot
   * be continued; --discard 0123456789abcdef removes it" */
  line = g_strdup_printf (_ ("%s  damaged (%s): cannot be continued; --discard %s removes it"), id,
                          ferry_unfinished_get_damage (unfinished), id);
  printf ("%s\n", line);
}

static FerryCliExit
list_unfinished (void)
{
  g_autoptr (GPtrArray) list = ferry_unfinished_list ();
  g_autoptr (GPtrArray) damaged = ferry_unfinished_list_damaged ();

  if (list->len == 0 && damaged->len == 0)
    printf ("%s\n", _ ("No unfinished transfers"));
  for (guint i = 0; i < list->len; i++)
    print_unfinished (g_ptr_array_index (list, i));
  for (guint i = 0; i < damaged->len; i++)
    print_damaged (g_ptr_array_index (damaged, i));
  return FERRY_CLI_EXIT_OK;
}

/* Why a transfer cannot go on: its drive is not plugged in, named by its
 * label, or, one with no label, by the folder the transfer went to. */
static char *
describe_absent (FerryUnfinished *unfinished)
{
  const char *label = ferry_unfinished_get_label (unfinished);
  g_autofree char *folder = NULL;

  if (label != NULL)
    return g_strdup_printf (_ ("“%s” is not plugged in"), label);
  folder = ferry_format_path (ferry_unfinished_get_destination (unfinished));
  /* TRANSLATORS: the folder a transfer cut short was copying to, on a
   * drive with no name: "The drive of “/media/me/1A2B-3C4D” is not
   * plugged in" */
  return g_strdup_printf (_ ("The drive of “%s” is not plugged in"), folder);
}

/* A transfer named by its ID says why it cannot go on; one of "all" says
 * which it is too, for the line to stand among the others. */
static void
print_absent (FerryUnfinished *unfinished, gboolean among_all)
{
  g_autofree char *why = describe_absent (unfinished);
  g_autofree char *message = NULL;

  if (among_all)
    /* TRANSLATORS: a transfer --resume all could not continue, by its ID,
     * and why: "0123456789abcdef left for later: “STICK” is not plugged in" */
    message = g_strdup_printf (_ ("%s left for later: %s"), ferry_unfinished_get_id (unfinished),
                               why);
  ferry_cli_print_error (message != NULL ? message : why);
}

/* Why a transfer whose journal is damaged is not continued; among
 * "all", which it is too. */
static void
print_refused (FerryUnfinished *unfinished, gboolean among_all)
{
  const char *id = ferry_unfinished_get_id (unfinished);
  g_autofree char *message = NULL;

  if (among_all)
    /* TRANSLATORS: a transfer --resume all did not continue, by its ID, and
     * why: "0123456789abcdef left alone: its journal is damaged (it is
     * empty); --discard 0123456789abcdef removes it" */
    message = g_strdup_printf (_ ("%s left alone: its journal is damaged (%s); --discard %s "
                                  "removes it"),
                               id, ferry_unfinished_get_damage (unfinished), id);
  else
    /* TRANSLATORS: "The journal of 0123456789abcdef is damaged (it is
     * empty): it cannot be continued; --discard 0123456789abcdef removes it" */
    message = g_strdup_printf (_ ("The journal of %s is damaged (%s): it cannot be continued; "
                                  "--discard %s removes it"),
                               id, ferry_unfinished_get_damage (unfinished), id);
  ferry_cli_print_error (message);
}

static void
print_left (FerryUnfinished *unfinished, gboolean among_all)
{
  if (ferry_unfinished_get_damage (unfinished) != NULL)
    print_refused (unfinished, among_all);
  else
    print_absent (unfinished, among_all);
}

static FerryCliExit
run_one (FerryUnfinished *unfinished, const FerryCliOptions *options)
{
  g_autoptr (FerryJob) job = ferry_unfinished_new_job (unfinished);
  g_auto (FerryCliOutcome) outcome = { 0 };

  ferry_cli_job_apply_options (job, options);
  ferry_unfinished_continue_choices (unfinished, job, options->chosen);
  ferry_cli_run (job, options->progress_style, &outcome);
  return ferry_cli_report (job, options, &outcome);
}

static gboolean
names_all (const FerryCliOptions *options)
{
  return g_strv_length (options->sources) == 1 && g_str_equal (options->sources[0], "all");
}

/* Those named, or with "all" every one, its drive plugged in or not. */
static GPtrArray *
find_named (const FerryCliOptions *options, FerryCliExit *status)
{
  GPtrArray *found;

  if (names_all (options))
    {
      g_autoptr (GPtrArray) damaged = ferry_unfinished_list_damaged ();

      found = ferry_unfinished_list ();
      g_ptr_array_extend_and_steal (found, g_steal_pointer (&damaged));
      return found;
    }
  found = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; options->sources[i] != NULL; i++)
    {
      g_autoptr (GError) error = NULL;
      FerryUnfinished *unfinished = ferry_unfinished_lookup (options->sources[i], &error);

      if (unfinished != NULL)
        g_ptr_array_add (found, unfinished);
      else
        {
          g_autofree char *message
              = g_strdup_printf (_ ("No unfinished transfer “%s”"), options->sources[i]);
          ferry_cli_print_error (message);
          *status = FERRY_CLI_EXIT_FAILED;
        }
    }
  return found;
}

FerryCliExit
ferry_cli_resume (const FerryCliOptions *options)
{
  g_autoptr (GPtrArray) named = NULL;
  g_autoptr (GPtrArray) left = NULL; /* by "all", their drives not plugged in, or damaged */
  FerryCliExit status = FERRY_CLI_EXIT_OK;

  if (options->sources[0] == NULL)
    return list_unfinished ();
  named = find_named (options, &status);
  left = g_ptr_array_new ();
  for (guint i = 0; i < named->len; i++)
    {
      FerryUnfinished *unfinished = g_ptr_array_index (named, i);
      FerryCliExit one = FERRY_CLI_EXIT_FAILED;

      if (ferry_unfinished_get_damage (unfinished) == NULL
          && ferry_unfinished_is_present (unfinished))
        one = run_one (unfinished, options);
      else if (names_all (options))
        g_ptr_array_add (left, unfinished);
      else
        print_left (unfinished, FALSE);
      if (one != FERRY_CLI_EXIT_OK && status == FERRY_CLI_EXIT_OK)
        status = one;
    }
  /* below what the others said, where a person reads last */
  for (guint i = 0; i < left->len; i++)
    print_left (g_ptr_array_index (left, i), TRUE);
  return status;
}

static void
print_discarded_damaged (FerryUnfinished *unfinished)
{
  g_autofree char *line = NULL;

  /* TRANSLATORS: after "Discarded:", a transfer whose journal was
   * damaged: "0123456789abcdef  damaged (it is empty)" */
  line = g_strdup_printf (_ ("%s  damaged (%s)"), ferry_unfinished_get_id (unfinished),
                          ferry_unfinished_get_damage (unfinished));
  printf ("%s\n", line);
}

/**
 * ferry_cli_discard:
 * --discard ID…|all: forgets those transfers, as the window's Discard
 * does, and removes what they kept on their drives (now, when a drive is
 * plugged in; else with the next copy into its folder). Each is listed
 * as it goes.
 */
FerryCliExit
ferry_cli_discard (const FerryCliOptions *options)
{
  FerryCliExit status = FERRY_CLI_EXIT_OK;
  g_autoptr (GPtrArray) named = find_named (options, &status);

  for (guint i = 0; i < named->len; i++)
    {
      FerryUnfinished *unfinished = g_ptr_array_index (named, i);

      /* TRANSLATORS: before a transfer as --resume lists it, forgotten */
      printf ("%s ", _ ("Discarded:"));
      if (ferry_unfinished_get_damage (unfinished) != NULL)
        print_discarded_damaged (unfinished);
      else
        print_unfinished (unfinished);
      ferry_unfinished_discard (unfinished);
    }
  return status;
}
