/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "ferry-format.h"
#include "ferry-unsupported-dialog.h"
#include "ferry-unsupported-text.h"

/**
 * FerryUnsupportedDialog:
 * The one question a copy to a FAT32, exFAT or NTFS drive asks before it
 * writes anything: what to do with the items the drive cannot store as
 * they are. They are listed by what is wrong with them, with the first
 * few names of each kind and the names Adapt would give them, so the
 * answer is an informed one. Its answer goes to the report; the copy
 * waits for it on its own thread. A dialog that goes away unanswered
 * (its window was closed) cancels: nothing was agreed to.
 */
struct _FerryUnsupportedDialog
{
  AdwMessageDialog parent_instance;

  FerryUnsupportedReport *report;
};

G_DEFINE_FINAL_TYPE (FerryUnsupportedDialog, ferry_unsupported_dialog, ADW_TYPE_MESSAGE_DIALOG)

/* Names shown for each kind: enough to recognise them, and the list
 * stays short. */
#define NAMES_SHOWN 3

/* Beyond this, the list scrolls: the responses stay on screen. */
#define LIST_MAX_HEIGHT 280

/* Text in full contrast: names are what a person checks. Long names
 * without spaces break anywhere, so the dialog fits narrow windows. */
static GtkWidget *
new_label (const char *text, const char *css_class)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  if (css_class != NULL)
    gtk_widget_add_css_class (label, css_class);
  return label;
}

/* The first names of the items of @kind, one a line, with the names
 * Adapt gives them, and how many more there are. */
static char *
describe_names (GPtrArray *items, FerryUnsupportedKind kind, guint n)
{
  GString *text = g_string_new (NULL);
  guint shown = 0;

  for (guint i = 0; i < items->len && shown < NAMES_SHOWN; i++)
    {
      FerryUnsupportedItem *item = g_ptr_array_index (items, i);
      g_autofree char *line = NULL;

      if (item->kind != kind)
        continue;
      line = ferry_unsupported_text_item (item, item->adapted != NULL);
      if (shown++ > 0)
        g_string_append_c (text, '\n');
      g_string_append (text, line);
    }
  if (n > shown)
    {
      g_autofree char *count = ferry_format_count (n - shown);

      g_string_append_c (text, '\n');
      g_string_append_printf (
          text,
          /* TRANSLATORS: after the first few names of a group: "and 4 more" */
          g_dngettext (GETTEXT_PACKAGE, "and %s more", "and %s more", n - shown), count);
    }
  return g_string_free (text, FALSE);
}

static GtkWidget *
new_group_row (FerryUnsupportedReport *report, FerryUnsupportedKind kind, guint n)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  g_autofree char *title = ferry_unsupported_text_group (report, kind, n);
  g_autofree char *names = describe_names (ferry_unsupported_report_get_items (report), kind, n);

  gtk_widget_set_margin_top (box, 12);
  gtk_widget_set_margin_bottom (box, 12);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_box_append (GTK_BOX (box), new_label (title, "heading"));
  gtk_box_append (GTK_BOX (box), new_label (names, NULL));
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  return row;
}

/* One row for each kind of trouble, in the order of FerryUnsupportedKind:
 * names first, then what no name can fix. */
static GtkWidget *
new_groups_list (FerryUnsupportedReport *report)
{
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkWidget *list = gtk_list_box_new ();

  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "boxed-list");
  /* Room for the list's outline, which the scrolled window would cut. */
  gtk_widget_set_margin_top (list, 2);
  gtk_widget_set_margin_bottom (list, 2);
  gtk_widget_set_margin_start (list, 2);
  gtk_widget_set_margin_end (list, 2);
  for (int kind = FERRY_UNSUPPORTED_NAME_CHARACTERS; kind <= FERRY_UNSUPPORTED_SPECIAL_FILE; kind++)
    {
      guint n = ferry_unsupported_report_count (report, kind);

      if (n > 0)
        gtk_list_box_append (GTK_LIST_BOX (list), new_group_row (report, kind, n));
    }
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scrolled), TRUE);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scrolled), LIST_MAX_HEIGHT);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), list);
  return scrolled;
}

/* Which drive, which format, how many items; then what Adapt does. */
static char *
describe_body (FerryUnsupportedReport *report, const char *where)
{
  guint n = ferry_unsupported_report_get_items (report)->len;
  guint adaptable = ferry_unsupported_report_count_adaptable (report);
  const char *adapt;
  g_autofree char *count = ferry_format_count (n);
  g_autofree char *what = g_strdup_printf (
      g_dngettext (GETTEXT_PACKAGE,
                   /* TRANSLATORS: the drive (or folder), its format, and how many of
                    * the files and folders being copied it cannot store: "STICK is
                    * formatted exFAT, which cannot store 7 of the items being copied
                    * as they are." */
                   "%s is formatted %s, which cannot store %s of the items being copied as "
                   "it is.",
                   "%s is formatted %s, which cannot store %s of the items being copied as "
                   "they are.",
                   n),
      where, ferry_unsupported_report_get_filesystem (report), count);

  if (adaptable == 0)
    adapt = _ ("None of them can be adapted to it: they can only be skipped.");
  else if (adaptable < n)
    adapt = _ ("Adapt gives them names the drive can store, with look-alike characters where it "
               "can, and copies links as the files they point to. What cannot be adapted is "
               "skipped.");
  else
    adapt = _ ("Adapt gives them names the drive can store, with look-alike characters where it "
               "can, and copies links as the files they point to.");
  return g_strdup_printf ("%s\n\n%s", what, adapt);
}

static FerryUnsupportedAction
action_for (const char *response)
{
  if (g_strcmp0 (response, "adapt") == 0)
    return FERRY_UNSUPPORTED_ACTION_ADAPT;
  if (g_strcmp0 (response, "skip") == 0)
    return FERRY_UNSUPPORTED_ACTION_SKIP;
  return FERRY_UNSUPPORTED_ACTION_CANCEL;
}

static void
ferry_unsupported_dialog_response (AdwMessageDialog *dialog, const char *response)
{
  FerryUnsupportedDialog *self = FERRY_UNSUPPORTED_DIALOG (dialog);

  if (self->report != NULL)
    ferry_unsupported_report_answer (self->report, action_for (response));
}

/* Adapt, suggested, when anything can be adapted; skipping otherwise. */
static void
add_responses (AdwMessageDialog *dialog, gboolean adaptable)
{
  const char *suggested = adaptable ? "adapt" : "skip";

  adw_message_dialog_add_responses (dialog, "cancel", _ ("_Cancel"), "skip", _ ("_Skip These"),
                                    NULL);
  if (adaptable)
    adw_message_dialog_add_response (dialog, "adapt", _ ("_Adapt"));
  adw_message_dialog_set_response_appearance (dialog, suggested, ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (dialog, suggested);
  adw_message_dialog_set_close_response (dialog, "cancel");
}

/**
 * ferry_unsupported_dialog_new:
 * @where: the drive or folder the copy goes to, as the window names it
 *
 * Asks over @parent what to do with the items of @report; present it.
 */
FerryUnsupportedDialog *
ferry_unsupported_dialog_new (GtkWindow *parent, FerryUnsupportedReport *report, const char *where)
{
  FerryUnsupportedDialog *self
      = g_object_new (FERRY_TYPE_UNSUPPORTED_DIALOG, "transient-for", parent, "modal", TRUE,
                      "destroy-with-parent", TRUE, NULL);
  AdwMessageDialog *dialog = ADW_MESSAGE_DIALOG (self);
  g_autofree char *body = describe_body (report, where);

  self->report = g_object_ref (report);
  adw_message_dialog_set_heading (dialog, _ ("Some Items Cannot Be Copied as They Are"));
  adw_message_dialog_set_body (dialog, body);
  adw_message_dialog_set_extra_child (dialog, new_groups_list (report));
  add_responses (dialog, ferry_unsupported_report_count_adaptable (report) > 0);
  return self;
}

FerryUnsupportedReport *
ferry_unsupported_dialog_get_report (FerryUnsupportedDialog *self)
{
  g_return_val_if_fail (FERRY_IS_UNSUPPORTED_DIALOG (self), NULL);
  return self->report;
}

/* A response, if one came, answered first: this one is then ignored. */
static void
ferry_unsupported_dialog_dispose (GObject *object)
{
  FerryUnsupportedDialog *self = FERRY_UNSUPPORTED_DIALOG (object);

  if (self->report != NULL)
    ferry_unsupported_report_answer (self->report, FERRY_UNSUPPORTED_ACTION_CANCEL);
  g_clear_object (&self->report);
  G_OBJECT_CLASS (ferry_unsupported_dialog_parent_class)->dispose (object);
}

static void
ferry_unsupported_dialog_class_init (FerryUnsupportedDialogClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = ferry_unsupported_dialog_dispose;
  ADW_MESSAGE_DIALOG_CLASS (klass)->response = ferry_unsupported_dialog_response;
}

static void
ferry_unsupported_dialog_init (FerryUnsupportedDialog *self)
{
}
