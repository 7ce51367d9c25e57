/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "ferry-format.h"
#include "ferry-revealer.h"
#include "ferry-time-left.h"
#include "ferry-transfer-row.h"
#include "ferry-transfer-title.h"
#include "ferry-unsupported-text.h"

/**
 * FerryTransferRow:
 * One transfer in the queue: what goes where, in which phase, and a bar
 * whose solid part is what is on the device and whose lighter part is
 * what was handed to the kernel but is not there yet. Rate and time left
 * follow the device. The row follows its job's notifications (progress
 * at most ten times a second) by itself. Pause, resume and cancel act on
 * the job; dismiss, retry and eject are asked of the window through
 * signals. While paused or waiting for an answer the row says so instead
 * of a rate it does not have. It can be marked to eject its drive when
 * done. Once done, the row says what became of the items the drive
 * could not store as they were, and lists the files that failed.
 */
struct _FerryTransferRow
{
  GtkListBoxRow parent_instance;

  FerryJob *job;
  FerryDestination *destination;
  gboolean finished;
  gboolean no_room; /* refused: the copy does not fit */
  guint questions;  /* asked and not answered yet */
  GError *outcome; /* why the job did not copy everything, once finished */
  FerryEjectState eject_state;

  GtkImage *icon;
  GtkLabel *title;
  GtkLabel *status;
  GtkToggleButton *eject_when_done_button;
  GtkButton *pause_button;
  GtkButton *cancel_button;
  GtkButton *dismiss_button;
  GtkWidget *bars;
  GtkLabel *legend; /* the bars' tooltip, kept while no tooltip shows it */
  GtkProgressBar *written_bar;
  GtkProgressBar *durable_bar;
  GtkLabel *files;
  GtkWidget *adapted_list;
  AdwExpanderRow *adapted_row;
  GtkRevealer *errors_revealer;
  GtkListBox *errors;
  GtkRevealer *eject_revealer;
  GtkLabel *eject_label;
  GtkButton *eject_button;
};

G_DEFINE_FINAL_TYPE (FerryTransferRow, ferry_transfer_row, GTK_TYPE_LIST_BOX_ROW)

enum
{
  SIGNAL_DISMISS,
  SIGNAL_RETRY,
  SIGNAL_EJECT,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* Where the transfer goes: the drive's name, or a folder on it as the
 * drive list would name it ("KINGSTON › p2"): two transfers of
 * "photos", one to the drive and one to a folder on it, had read alike. */
static char *
describe_where (FerryJob *job, FerryDestination *destination)
{
  GFile *folder = ferry_job_get_destination (job);

  if (ferry_destination_get_kind (destination) == FERRY_DESTINATION_DRIVE
      && !g_file_equal (folder, ferry_destination_get_root (destination)))
    return ferry_destination_name_paths (destination, g_file_peek_path (folder));
  return g_strdup (ferry_destination_get_name (destination));
}

static char *
describe_sources (FerryJob *job, FerryDestination *destination)
{
  GPtrArray *sources = ferry_job_get_sources (job);
  g_autofree char *where = describe_where (job, destination);

  return ferry_transfer_title (sources->len, g_ptr_array_index (sources, 0), where);
}

/* A title cut short shows whole as its tooltip; one that fits has none,
 * which would only repeat it. */
static gboolean
on_title_query_tooltip (GtkLabel *title, int x, int y, gboolean keyboard, GtkTooltip *tooltip)
{
  if (!pango_layout_is_ellipsized (gtk_label_get_layout (title)))
    return FALSE;
  gtk_tooltip_set_text (tooltip, gtk_label_get_label (title));
  return TRUE;
}

static gboolean
writes_to_slow_device (FerryJob *job)
{
  return ferry_copy_method_is_slow (ferry_job_get_copy_method (job));
}

static char *
format_rate_and_time (FerryTransferRow *self, const FerryProgress *p)
{
  g_autofree char *rate = NULL;
  g_autofree char *left = NULL;

  if (p->stalled)
    /* TRANSLATORS: added after the items copied while the drive takes
     * nothing, like "3 of 12 items · waiting for SanDisk Cruzer"; keep
     * the spaces and the dot */
    return g_strdup_printf (_ (" · waiting for %s"),
                            ferry_destination_get_name (self->destination));
  if (p->rate <= 0)
    return g_strdup ("");
  rate = g_format_size ((guint64) p->rate);
  if (p->eta < 0)
    /* TRANSLATORS: a transfer rate, added after the items copied, like
     * "3 of 12 items · 38.2 MB/s"; keep the spaces and the dot */
    return g_strdup_printf (_ (" · %s/s"), rate);
  left = ferry_time_left_text (p->eta);
  /* TRANSLATORS: a transfer rate and the time left, added after the items
   * copied, like "3 of 12 items · 38.2 MB/s · 12 seconds left"; keep the
   * spaces and the dots */
  return g_strdup_printf (_ (" · %s/s · %s"), rate, left);
}

/* "3 of 12 items", and "3 of 12 items…" while the total still grows. The
 * numbers go in as text, grouped as the locale writes them ("1,200 of
 * 60,000 items"); xgettext cannot see through G_GUINT64_FORMAT either. */
static char *
format_item_count (guint64 done, guint64 total, gboolean growing)
{
  g_autofree char *done_str = ferry_format_count (done);
  g_autofree char *total_str = ferry_format_count (total);

  if (growing)
    return g_strdup_printf (
        /* TRANSLATORS: files and folders copied, and those found so far while
         * Ferry is still looking, like "3 of 12 items…" */
        g_dngettext (GETTEXT_PACKAGE, "%s of %s item…", "%s of %s items…", total), done_str,
        total_str);
  /* TRANSLATORS: files and folders copied, and all there are, like "3 of 12 items" */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s of %s item", "%s of %s items", total),
                          done_str, total_str);
}

/* Paused, or waiting while the window asks about a file: no rate or
 * time left holds, and the row says what holds it. */
static gboolean
is_held (FerryTransferRow *self, const FerryProgress *p)
{
  return p->paused || self->questions > 0;
}

/* What a person reads under the bar while the job runs: "3 of 12 items
 * · 4.1 MB/s · 2 minutes left". The rate and time left change often and
 * by a few characters: here, on a line of their own, they never make the
 * status wrap onto another line and move the bar under the pointer. */
static char *
describe_count (FerryTransferRow *self, const FerryProgress *p)
{
  g_autofree char *items = format_item_count (p->files_done, p->files_total, !p->planning_done);
  g_autofree char *tail = NULL;

  if (is_held (self, p))
    return g_steal_pointer (&items);
  tail = format_rate_and_time (self, p);
  return g_strconcat (items, tail, NULL);
}

/* How much is done, for a job held: "120 MB of 500 MB on SanDisk
 * Cruzer" where the drive confirms what it has, else "1.2 GB of 2.9 GB
 * copied"; NULL before anything is counted. */
static char *
describe_amount (FerryTransferRow *self, const FerryProgress *p)
{
  g_autofree char *done = g_format_size (p->bytes_durable);
  g_autofree char *total = g_format_size (p->bytes_total);

  if (p->phase == FERRY_PHASE_QUEUED || p->phase == FERRY_PHASE_PLANNING)
    return NULL;
  if (writes_to_slow_device (self->job))
    /* TRANSLATORS: bytes on the drive, bytes in all, the drive, like
     * "120 MB of 500 MB on SanDisk Cruzer" */
    return g_strdup_printf (_ ("%s of %s on %s"), done, total,
                            ferry_destination_get_name (self->destination));
  /* TRANSLATORS: bytes copied, bytes in all, like "1.2 GB of 2.9 GB copied" */
  return g_strdup_printf (_ ("%s of %s copied"), done, total);
}

/* A job paused, or waiting while the window asks about a file: what
 * holds it first, then how far it got ("Paused: 1.2 GB of 2.9 GB
 * copied"), not what it would be doing ("Copying: …"). */
static char *
describe_held (FerryTransferRow *self, const FerryProgress *p)
{
  g_autofree char *amount = describe_amount (self, p);

  if (p->paused && amount != NULL)
    /* TRANSLATORS: a transfer's state while paused, then how far it got,
     * like "Paused: 1.2 GB of 2.9 GB copied" */
    return g_strdup_printf (_ ("Paused: %s"), amount);
  if (p->paused)
    return g_strdup (_ ("Paused"));
  if (amount != NULL)
    /* TRANSLATORS: a transfer that asked the person something (a file
     * already there), then how far it got, like "Waiting for your answer:
     * 1.2 GB of 2.9 GB copied" */
    return g_strdup_printf (_ ("Waiting for your answer: %s"), amount);
  return g_strdup (_ ("Waiting for your answer"));
}

/* What a person reads under the title while the job goes on. */
static char *
describe_going (FerryTransferRow *self, const FerryProgress *p)
{
  g_autofree char *done = g_format_size (p->bytes_durable);
  g_autofree char *total = g_format_size (p->bytes_total);
  const char *where = ferry_destination_get_name (self->destination);

  switch (p->phase)
    {
      case FERRY_PHASE_QUEUED:
        return g_strdup (_ ("Waiting for the copy before it to the same drive"));
      case FERRY_PHASE_PLANNING:
        return g_strdup (_ ("Preparing…"));
      case FERRY_PHASE_SYNCING:
        {
          g_autofree char *left
              = g_format_size (p->bytes_written - MIN (p->bytes_written, p->bytes_durable));
          /* TRANSLATORS: "Finishing: 32.1 MB still to reach SanDisk Cruzer" */
          return g_strdup_printf (_ ("Finishing: %s still to reach %s"), left, where);
        }
      default:
        if (writes_to_slow_device (self->job))
          /* TRANSLATORS: the drive, bytes on it, bytes in all, like
           * "Writing to SanDisk Cruzer: 120 MB of 500 MB on the drive" */
          return g_strdup_printf (_ ("Writing to %s: %s of %s on the drive"), where, done, total);
        if (ferry_job_get_verify (self->job))
          /* TRANSLATORS: "Copying and verifying: 1.2 GB of 2.9 GB" */
          return g_strdup_printf (_ ("Copying and verifying: %s of %s"), done, total);
        /* TRANSLATORS: bytes copied, bytes in all, like "Copying: 1.2 GB of 2.9 GB" */
        return g_strdup_printf (_ ("Copying: %s of %s"), done, total);
    }
}

/* What a person reads under the title while the job runs. */
static char *
describe_progress (FerryTransferRow *self, const FerryProgress *p)
{
  if (is_held (self, p))
    return describe_held (self, p);
  return describe_going (self, p);
}

/* "0 of 0 items" says nothing: nothing counted yet, or nothing to count. */
static void
show_count (FerryTransferRow *self, const char *text, guint64 total)
{
  gtk_label_set_label (self->files, text);
  gtk_widget_set_visible (GTK_WIDGET (self->files), total > 0);
}

/* The bar's legend, as a tooltip and for screen readers, which cannot
 * see its two tones: "42 MB safe on SanDisk Cruzer · 12 MB still in
 * memory" (in the kernel's cache, lost if the drive is pulled out). The
 * tooltip is a label of the row's own, changed in place: setting a
 * widget's tooltip text makes GTK start its half-second wait for the
 * tooltip again, so a legend that changed more often than that never
 * showed while a person pointed at the bar. */
static void
describe_bar (FerryTransferRow *self, const FerryProgress *p)
{
  const char *where = ferry_destination_get_name (self->destination);
  guint64 in_memory = p->bytes_written - MIN (p->bytes_written, p->bytes_durable);
  g_autofree char *safe = g_format_size (p->bytes_durable);
  g_autofree char *memory = g_format_size (in_memory);
  g_autofree char *text = NULL;

  if (in_memory == 0)
    /* TRANSLATORS: the legend of a transfer's bar, like "42.0 MB safe on SanDisk Cruzer" */
    text = g_strdup_printf (_ ("%s safe on %s"), safe, where);
  else
    /* TRANSLATORS: the legend of a transfer's bar: bytes the drive confirmed,
     * then bytes written but still in the computer's memory, like
     * "42.0 MB safe on SanDisk Cruzer · 12.3 MB still in memory" */
    text = g_strdup_printf (_ ("%s safe on %s · %s still in memory"), safe, where, memory);
  gtk_label_set_label (self->legend, text);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->durable_bar),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->written_bar),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
}

/* The pause button offers what the job is not doing now. Changed only
 * when that changes: setting a tooltip, even to the text it has, makes
 * GTK start its wait for the tooltip under the pointer again, so setting
 * it at each progress change kept every tooltip of the window from
 * showing while a copy ran. */
static void
show_paused (FerryTransferRow *self, gboolean paused)
{
  GtkWidget *button = GTK_WIDGET (self->pause_button);
  const char *offer = paused ? _ ("Resume") : _ ("Pause");

  if (g_strcmp0 (gtk_widget_get_tooltip_text (button), offer) == 0)
    return;
  gtk_button_set_icon_name (self->pause_button, paused ? "media-playback-start-symbolic"
                                                       : "media-playback-pause-symbolic");
  gtk_widget_set_tooltip_text (button, offer);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, offer,
                                  -1);
}

/* Once finished, the row shows the outcome, which only the window hears
 * of; a last progress notification must not cover it. */
static void
update (FerryTransferRow *self)
{
  g_auto (FerryProgress) p = { 0 };
  g_autofree char *status = NULL;
  g_autofree char *files = NULL;

  if (self->finished)
    return;

  ferry_job_get_progress (self->job, &p);
  status = describe_progress (self, &p);
  gtk_label_set_label (self->status, status);
  gtk_progress_bar_set_fraction (
      self->durable_bar, p.bytes_total ? MIN (1.0, (double) p.bytes_durable / p.bytes_total) : 0);
  gtk_progress_bar_set_fraction (
      self->written_bar, p.bytes_total ? MIN (1.0, (double) p.bytes_written / p.bytes_total) : 0);
  describe_bar (self, &p);
  files = describe_count (self, &p);
  show_count (self, files, p.files_total);
  show_paused (self, p.paused);
}

/* Why one file failed. Once the copy is known to have stopped because
 * the drive was pulled out, the files its filesystem refused as it went
 * (turned read-only on losing its device) went with it too. */
static char *
describe_failure (FerryTransferRow *self, const GError *error)
{
  if (self->outcome != NULL && ferry_destination_failed_unplugged (self->destination, self->outcome)
      && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_READ_ONLY))
    return ferry_destination_describe_error (self->destination, self->outcome);
  return ferry_destination_describe_error (self->destination, error);
}

static void
add_failure_row (FerryTransferRow *self, FerryFailure *failure)
{
  GtkWidget *row = adw_action_row_new ();
  g_autofree char *basename = g_file_get_basename (failure->source);
  g_autofree char *name = g_filename_display_name (basename);
  g_autofree char *path = g_file_get_parse_name (failure->source);
  g_autofree char *escaped_name = g_markup_escape_text (name, -1);
  g_autofree char *reason = describe_failure (self, failure->error);
  g_autofree char *escaped_reason = g_markup_escape_text (reason, -1);

  /* The reason names the whole path; the title is what a person looks for. */
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), escaped_name);
  gtk_widget_set_tooltip_text (row, path);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), escaped_reason);
  adw_action_row_add_prefix (ADW_ACTION_ROW (row),
                             gtk_image_new_from_icon_name ("dialog-warning-symbolic"));
  gtk_list_box_append (self->errors, row);
}

/* The files that failed, and Retry. A transfer refused because its drive
 * is not plugged in offers Retry too, for once it is plugged in again, and
 * so does one refused for want of room, for once room is made (the Trash
 * emptied, files deleted). */
static void
show_failures (FerryTransferRow *self, const GError *error)
{
  g_autoptr (GPtrArray) failures = ferry_job_dup_failures (self->job);
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->errors))) != NULL)
    gtk_list_box_remove (self->errors, child);
  for (guint i = 0; i < failures->len; i++)
    add_failure_row (self, g_ptr_array_index (failures, i));
  gtk_widget_set_visible (GTK_WIDGET (self->errors), failures->len > 0);
  gtk_revealer_set_reveal_child (
      self->errors_revealer,
      failures->len > 0 || g_error_matches (error, FERRY_ERROR, FERRY_ERROR_NOT_PLUGGED_IN)
          || g_error_matches (error, FERRY_ERROR, FERRY_ERROR_NOT_ENOUGH_SPACE));
}

/* Enough to find a name in; more would make a heavy row. */
#define ADAPTATIONS_LISTED 200

/* An item the drive could not store as it was: its old and new name, or
 * that it was skipped, and why. */
static GtkWidget *
new_adaptation_row (FerryUnsupportedReport *report, const FerryUnsupportedItem *item)
{
  GtkWidget *row = adw_action_row_new ();
  gboolean adapted = ferry_unsupported_text_was_adapted (report, item);
  g_autofree char *title = ferry_unsupported_text_item (item, adapted);
  g_autofree char *outcome = ferry_unsupported_text_outcome (item, adapted);
  g_autofree char *escaped_title = g_markup_escape_text (title, -1);
  g_autofree char *escaped_outcome = g_markup_escape_text (outcome, -1);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), escaped_title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), escaped_outcome);
  /* Where it is on the drive, for a name found in several folders. */
  gtk_widget_set_tooltip_text (row, item->path);
  if (!adapted)
    adw_action_row_add_suffix (ADW_ACTION_ROW (row), gtk_label_new (_ ("Skipped")));
  return row;
}

/* "2 items renamed for exFAT, 1 skipped", which opens onto the items. */
static void
show_adaptations (FerryTransferRow *self)
{
  g_autoptr (FerryUnsupportedReport) report = ferry_job_dup_unsupported_report (self->job);
  g_autofree char *summary = report ? ferry_unsupported_text_summary (report) : NULL;
  g_autofree char *escaped = NULL;
  GPtrArray *items;
  guint listed;

  if (summary == NULL)
    return;
  items = ferry_unsupported_report_get_items (report);
  listed = MIN (items->len, ADAPTATIONS_LISTED);
  escaped = g_markup_escape_text (summary, -1);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->adapted_row), escaped);
  for (guint i = 0; i < listed; i++)
    adw_expander_row_add_row (self->adapted_row,
                              new_adaptation_row (report, g_ptr_array_index (items, i)));
  if (items->len > listed)
    {
      GtkWidget *more = adw_action_row_new ();
      g_autofree char *count = ferry_format_count (items->len - listed);
      g_autofree char *text = g_strdup_printf (
          /* TRANSLATORS: after the first few items adapted for a drive: "and 4 more" */
          g_dngettext (GETTEXT_PACKAGE, "and %s more", "and %s more", items->len - listed),
          count);

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (more), text);
      adw_expander_row_add_row (self->adapted_row, more);
    }
  gtk_widget_set_visible (self->adapted_list, TRUE);
}

/* A copy refused for want of room says on hover how much it needs and
 * how much the drive has now (read again once the copy ended). */
static void
update_room (FerryTransferRow *self)
{
  g_auto (FerryProgress) p = { 0 };
  g_autofree char *needed = NULL;
  g_autofree char *free_str = NULL;
  g_autofree char *text = NULL;

  if (!self->no_room)
    return;
  ferry_job_get_progress (self->job, &p);
  needed = g_format_size (p.bytes_total);
  free_str = g_format_size (ferry_destination_get_free (self->destination));
  /* TRANSLATORS: why a copy does not fit, like
   * "The files need 4.2 MB; SanDisk Cruzer has 2.1 MB free" */
  text = g_strdup_printf (_ ("The files need %s; %s has %s free"), needed,
                          ferry_destination_get_name (self->destination), free_str);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->status), text);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->status),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
}

/* An error is what the row is about now: libadwaita's error colour at
 * full strength and normal size, which a dimmed caption would fade to
 * 2.5:1 (WCAG AA asks 4.5:1). Anything else is said as the progress was,
 * in the row's quieter caption: a cancelled copy is what the person
 * asked for, not a failure. */
static void
show_status (FerryTransferRow *self, const char *text, gboolean is_error)
{
  GtkWidget *label = GTK_WIDGET (self->status);

  gtk_label_set_label (self->status, text);
  if (is_error)
    {
      gtk_widget_remove_css_class (label, "dim-label");
      gtk_widget_remove_css_class (label, "caption");
      gtk_widget_add_css_class (label, "error");
    }
  else
    {
      gtk_widget_remove_css_class (label, "error");
      gtk_widget_add_css_class (label, "caption");
      gtk_widget_add_css_class (label, "dim-label");
    }
}

/* The outcome, in words: said again when the drive goes, since a drive
 * failing as a pulled-out one fails is only known to be gone once the
 * desktop says so, often just after the copy stopped. */
/* "Done: 2.9 GB copied". Copies to be verified that could be read back
 * only through the drive's FUSE driver, which may give them back from
 * memory (the drive itself takes root or the "disk" group to read), are
 * not said to be verified (explain_unverified() says why). */
static char *
describe_copied (FerryTransferRow *self, guint64 bytes)
{
  g_autofree char *size = g_format_size (bytes);

  if (!ferry_job_get_verify_reads_cache (self->job))
    /* TRANSLATORS: "Done: 2.9 GB copied" */
    return g_strdup_printf (_ ("Done: %s copied"), size);
  /* TRANSLATORS: "Done: 2.9 GB copied, not verified on the drive" */
  return g_strdup_printf (_ ("Done: %s copied, not verified on the drive"), size);
}

/* What was copied, and what was skipped (already there, or what the
 * drive cannot store): a transfer whose every file was skipped copied
 * nothing, which "Done: 0 bytes copied" did not say. */
static char *
describe_done (FerryTransferRow *self, const FerryProgress *p)
{
  g_autofree char *copied = NULL;
  g_autofree char *skipped = NULL;

  if (p->files_skipped == 0)
    return describe_copied (self, p->bytes_total);
  skipped = ferry_format_count (p->files_skipped);
  if (p->files_done == p->files_skipped)
    return g_strdup_printf (
        /* TRANSLATORS: a transfer whose every item was skipped, like
         * "Nothing copied: 2 items skipped" */
        g_dngettext (GETTEXT_PACKAGE, "Nothing copied: %s item skipped",
                     "Nothing copied: %s items skipped", p->files_skipped),
        skipped);
  copied = describe_copied (self, p->bytes_total);
  return g_strdup_printf (
      /* TRANSLATORS: "Done: 2.9 GB copied" then the items skipped, like
       * "Done: 2.9 GB copied, 3 items skipped" */
      g_dngettext (GETTEXT_PACKAGE, "%s, %s item skipped", "%s, %s items skipped",
                   p->files_skipped),
      copied, skipped);
}

static void
explain_unverified (FerryTransferRow *self)
{
  if (self->outcome != NULL || !ferry_job_get_verify_reads_cache (self->job))
    return;
  gtk_widget_set_tooltip_text (
      GTK_WIDGET (self->status),
      _ ("The copies were read back through the drive’s FUSE driver, which may give them back "
         "from memory rather than from the drive; reading them from the drive itself takes root "
         "or the “disk” group."));
}

static void
show_outcome (FerryTransferRow *self)
{
  g_auto (FerryProgress) p = { 0 };
  g_autofree char *status = NULL;
  g_autofree char *files = NULL;
  gboolean cancelled = g_error_matches (self->outcome, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  ferry_job_get_progress (self->job, &p);
  if (self->outcome == NULL)
    status = describe_done (self, &p);
  else if (cancelled)
    status = g_strdup (_ ("Cancelled"));
  else
    status = ferry_destination_describe_error (self->destination, self->outcome);
  show_status (self, status, self->outcome != NULL && !cancelled);
  explain_unverified (self);
  files = format_item_count (p.files_done, p.files_total, FALSE);
  show_count (self, files, p.files_total);
  show_failures (self, self->outcome);
}

static void
on_plugged (FerryTransferRow *self)
{
  if (self->finished)
    show_outcome (self);
}

/**
 * ferry_transfer_row_finished:
 * The job ended (@error says why it did not copy everything): the row
 * shows the outcome, the files that failed, and what can be done next.
 */
void
ferry_transfer_row_finished (FerryTransferRow *self, const GError *error)
{
  g_return_if_fail (FERRY_IS_TRANSFER_ROW (self));
  self->finished = TRUE;
  g_clear_error (&self->outcome);
  self->outcome = error ? g_error_copy (error) : NULL;

  gtk_widget_set_visible (self->bars, FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->eject_when_done_button), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->pause_button), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->cancel_button), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->dismiss_button), TRUE);
  show_outcome (self);
  show_adaptations (self);
  self->no_room = g_error_matches (error, FERRY_ERROR, FERRY_ERROR_NOT_ENOUGH_SPACE);
  update_room (self);
}

/* Why the job did not copy everything; NULL while it runs or when it
 * copied everything. */
const GError *
ferry_transfer_row_get_outcome (FerryTransferRow *self)
{
  g_return_val_if_fail (FERRY_IS_TRANSFER_ROW (self), NULL);
  return self->outcome;
}

const char *
ferry_transfer_row_get_status (FerryTransferRow *self)
{
  g_return_val_if_fail (FERRY_IS_TRANSFER_ROW (self), NULL);
  return gtk_label_get_label (self->status);
}

/* The line under the bar: items done, then the rate and time left. */
const char *
ferry_transfer_row_get_count (FerryTransferRow *self)
{
  g_return_val_if_fail (FERRY_IS_TRANSFER_ROW (self), NULL);
  return gtk_label_get_label (self->files);
}

FerryEjectState
ferry_transfer_row_get_eject_state (FerryTransferRow *self)
{
  g_return_val_if_fail (FERRY_IS_TRANSFER_ROW (self), FERRY_EJECT_NONE);
  return self->eject_state;
}

/* What the row says once the data is on a removable drive. */
void
ferry_transfer_row_set_eject_state (FerryTransferRow *self, FerryEjectState state)
{
  const char *name = ferry_destination_get_name (self->destination);
  g_autofree char *text = NULL;

  g_return_if_fail (FERRY_IS_TRANSFER_ROW (self));
  self->eject_state = state;
  switch (state)
    {
      case FERRY_EJECT_READY:
        text = g_strdup_printf (_ ("All data is on %s."), name);
        break;
      case FERRY_EJECT_WAITING:
        text = g_strdup_printf (_ ("All data of this transfer is on %s. Another transfer to it is "
                                   "still running, so it cannot be ejected yet."),
                                name);
        break;
      case FERRY_EJECT_EJECTING:
        text = g_strdup_printf (_ ("Ejecting %s…"), name);
        break;
      case FERRY_EJECT_DONE:
        text = g_strdup_printf (_ ("You can now unplug %s."), name);
        break;
      case FERRY_EJECT_GONE:
        text = g_strdup_printf (_ ("%s was unplugged."), name);
        break;
      case FERRY_EJECT_READ_ONLY:
        /* TRANSLATORS: a drive the system remounted read-only, after an
         * error on it or its lock switch */
        text = g_strdup_printf (_ ("%s is read-only now."), name);
        break;
      case FERRY_EJECT_WRITE_PROTECTED:
        /* TRANSLATORS: a drive whose lock switch is on */
        text = g_strdup_printf (_ ("%s is write-protected."), name);
        break;
      case FERRY_EJECT_NONE:
      default:
        break;
    }
  gtk_label_set_label (self->eject_label, text ? text : "");
  gtk_widget_set_visible (GTK_WIDGET (self->eject_button), state == FERRY_EJECT_READY);
  gtk_revealer_set_reveal_child (self->eject_revealer, state != FERRY_EJECT_NONE);
}

/* A question of the job's is shown (a file already there, entries the
 * drive cannot store): until it is answered the row waits for it. */
void
ferry_transfer_row_question_asked (FerryTransferRow *self)
{
  g_return_if_fail (FERRY_IS_TRANSFER_ROW (self));
  self->questions++;
  update (self);
}

void
ferry_transfer_row_question_answered (FerryTransferRow *self)
{
  g_return_if_fail (FERRY_IS_TRANSFER_ROW (self));
  g_return_if_fail (self->questions > 0);
  self->questions--;
  update (self);
}

/* Eject When Done, once chosen, shows it in the accent colour and says
 * so: a flat toggle on looked as if the pointer were on it, and nothing
 * else in the row said the drive would go. */
static void
show_eject_when_done (FerryTransferRow *self)
{
  GtkWidget *button = GTK_WIDGET (self->eject_when_done_button);
  gboolean on = gtk_toggle_button_get_active (self->eject_when_done_button);
  g_autofree char *text = NULL;

  if (on)
    {
      gtk_widget_add_css_class (button, "accent");
      /* TRANSLATORS: the tooltip of a chosen Eject When Done, like
       * "SanDisk Cruzer will be ejected when done" */
      text = g_strdup_printf (_ ("%s will be ejected when done"),
                              ferry_destination_get_name (self->destination));
      gtk_widget_set_tooltip_text (button, text);
    }
  else
    {
      gtk_widget_remove_css_class (button, "accent");
      gtk_widget_set_tooltip_text (button, _ ("Eject When Done"));
    }
}

gboolean
ferry_transfer_row_get_eject_when_done (FerryTransferRow *self)
{
  g_return_val_if_fail (FERRY_IS_TRANSFER_ROW (self), FALSE);
  return gtk_toggle_button_get_active (self->eject_when_done_button);
}

void
ferry_transfer_row_set_eject_when_done (FerryTransferRow *self, gboolean eject)
{
  g_return_if_fail (FERRY_IS_TRANSFER_ROW (self));
  gtk_toggle_button_set_active (self->eject_when_done_button, eject);
}

static void
pause_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  FerryTransferRow *self = FERRY_TRANSFER_ROW (widget);

  if (ferry_job_get_paused (self->job))
    ferry_job_resume (self->job);
  else
    ferry_job_pause (self->job);
}

static void
cancel_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  ferry_job_cancel (FERRY_TRANSFER_ROW (widget)->job);
}

static void
dismiss_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  g_signal_emit (widget, signals[SIGNAL_DISMISS], 0);
}

static void
retry_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  g_signal_emit (widget, signals[SIGNAL_RETRY], 0);
}

static void
eject_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  g_signal_emit (widget, signals[SIGNAL_EJECT], 0);
}

static const char *const followed[] = {
  "notify::progress", "notify::phase", "notify::paused", "notify::strategy", "notify::device",
};

FerryTransferRow *
ferry_transfer_row_new (FerryJob *job, FerryDestination *destination)
{
  FerryTransferRow *self = g_object_new (FERRY_TYPE_TRANSFER_ROW, NULL);
  g_autofree char *title = NULL;

  self->job = g_object_ref (job);
  self->destination = g_object_ref (destination);
  title = describe_sources (job, destination);
  gtk_label_set_label (self->title, title);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self->title), TRUE);
  g_signal_connect (self->title, "query-tooltip", G_CALLBACK (on_title_query_tooltip), NULL);
  gtk_image_set_from_gicon (self->icon, ferry_destination_get_icon (destination));
  gtk_widget_set_visible (GTK_WIDGET (self->eject_when_done_button),
                          ferry_destination_get_kind (destination) == FERRY_DESTINATION_DRIVE
                              && ferry_destination_can_eject (destination));
  g_signal_connect_swapped (self->eject_when_done_button, "notify::active",
                            G_CALLBACK (show_eject_when_done), self);
  g_signal_connect_object (destination, "notify::space", G_CALLBACK (update_room), self,
                           G_CONNECT_SWAPPED);
  /* What the status says depends on the strategy and the device too. */
  for (guint i = 0; i < G_N_ELEMENTS (followed); i++)
    g_signal_connect_object (job, followed[i], G_CALLBACK (update), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (destination, "notify::plugged", G_CALLBACK (on_plugged), self,
                           G_CONNECT_SWAPPED);
  update (self);
  return self;
}

FerryJob *
ferry_transfer_row_get_job (FerryTransferRow *self)
{
  g_return_val_if_fail (FERRY_IS_TRANSFER_ROW (self), NULL);
  return self->job;
}

FerryDestination *
ferry_transfer_row_get_destination (FerryTransferRow *self)
{
  g_return_val_if_fail (FERRY_IS_TRANSFER_ROW (self), NULL);
  return self->destination;
}

static gboolean
on_bars_query_tooltip (GtkWidget *bars,
                       int x,
                       int y,
                       gboolean keyboard_mode,
                       GtkTooltip *tooltip,
                       FerryTransferRow *self)
{
  if (*gtk_label_get_label (self->legend) == '\0')
    return FALSE;
  gtk_tooltip_set_custom (tooltip, GTK_WIDGET (self->legend));
  return TRUE;
}

static void
ferry_transfer_row_dispose (GObject *object)
{
  FerryTransferRow *self = FERRY_TRANSFER_ROW (object);

  /* The job may outlive the row, and must not reach it any more. */
  if (self->job != NULL)
    g_signal_handlers_disconnect_by_data (self->job, self);
  gtk_widget_dispose_template (GTK_WIDGET (self), FERRY_TYPE_TRANSFER_ROW);
  g_clear_object (&self->job);
  g_clear_object (&self->destination);
  g_clear_object (&self->legend);
  g_clear_error (&self->outcome);
  G_OBJECT_CLASS (ferry_transfer_row_parent_class)->dispose (object);
}

static void
ferry_transfer_row_class_init (FerryTransferRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ferry_transfer_row_dispose;

  signals[SIGNAL_DISMISS] = g_signal_new ("dismiss", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                          0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_RETRY] = g_signal_new ("retry", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                        NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_EJECT] = g_signal_new ("eject", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                        NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/ferrycopy/Ferry/ferry-transfer-row.ui");
  gtk_widget_class_bind_template_child (widget_class, FerryTransferRow, icon);
  gtk_widget_class_bind_template_child (widget_class, FerryTransferRow, title);
  gtk_widget_class_bind_template_child (widget_class, FerryTransferRow, status);
  gtk_widget_class_bind_template_child (widget_class, FerryTransferRow, eject_when_done_button);
  gtk_widget_class_bind_template_child (widget_class, FerryTransferRow, pause_button);
  gtk_widget_class_bind_template_child (widget_class, FerryTransferRow, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, FerryTransferRow, dismiss_button);
  gtk_widget_class_bind_template_child (widget_class, FerryTransferRow, bars);
  gtk_widget_class_bind_template_child (widget_class, FerryTransferRow, written_bar);
  gtk_widget_class_bind_template_child (widget_class, FerryTransferRow, durable_bar);
  gtk_widget_class_bind_template_child (widget_class, FerryTransferRow, files);
  gtk_widget_class_bind_template_child (widget_class, FerryTransferRow, adapted_list);
  gtk_widget_class_bind_template_child (widget_class, FerryTransferRow, adapted_row);
  gtk_widget_class_bind_template_child (widget_class, FerryTransferRow, errors_revealer);
  gtk_widget_class_bind_template_child (widget_class, FerryTransferRow, errors);
  gtk_widget_class_bind_template_child (widget_class, FerryTransferRow, eject_revealer);
  gtk_widget_class_bind_template_child (widget_class, FerryTransferRow, eject_label);
  gtk_widget_class_bind_template_child (widget_class, FerryTransferRow, eject_button);

  gtk_widget_class_install_action (widget_class, "transfer.pause", NULL, pause_action);
  gtk_widget_class_install_action (widget_class, "transfer.cancel", NULL, cancel_action);
  gtk_widget_class_install_action (widget_class, "transfer.dismiss", NULL, dismiss_action);
  gtk_widget_class_install_action (widget_class, "transfer.retry", NULL, retry_action);
  gtk_widget_class_install_action (widget_class, "transfer.eject", NULL, eject_action);
}

static void
ferry_transfer_row_init (FerryTransferRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  ferry_revealer_collapse_when_closed (self->errors_revealer);
  ferry_revealer_collapse_when_closed (self->eject_revealer);
  self->legend = GTK_LABEL (g_object_ref_sink (gtk_label_new (NULL)));
  gtk_widget_set_name (GTK_WIDGET (self->legend), "legend");
  gtk_label_set_wrap (self->legend, TRUE);
  gtk_label_set_max_width_chars (self->legend, 70);
  gtk_widget_set_has_tooltip (self->bars, TRUE);
  g_signal_connect (self->bars, "query-tooltip", G_CALLBACK (on_bars_query_tooltip), self);
}
