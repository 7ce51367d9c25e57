/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The window's messages and questions: notices, errors, asking before
 * closing while a copy runs, and what a copy asks about: conflicts, and
 * entries its drive cannot store as they are. */
#include "config.h"

#include <glib/gi18n.h>

#include "ferry-window-private.h"

void
_ferry_window_toast (FerryWindow *self, const char *text)
{
  adw_toast_overlay_add_toast (self->toasts, adw_toast_new (text));
}

void
_ferry_window_show_error (FerryWindow *self, const char *heading, const char *body)
{
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), heading, body);

  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _ ("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ------------------------------------------------------------------ */
/* Closing                                                             */

/* After "Stop and Close" the window goes once every job has cleaned up
 * after itself. */
void
_ferry_window_close_if_stopped (FerryWindow *self)
{
  if (self->closing && !ferry_queue_get_busy (self->queue))
    gtk_window_destroy (GTK_WINDOW (self));
}

static void
on_close_response (AdwMessageDialog *dialog, const char *response, FerryWindow *self)
{
  if (g_strcmp0 (response, "stop") != 0)
    return;
  self->closing = TRUE;
  ferry_queue_cancel_all (self->queue);
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
  _ferry_window_close_if_stopped (self);
}

/* Closing while copying asks first: what is not copied yet would be
 * missing. */
gboolean
_ferry_window_close_request (GtkWindow *window)
{
  FerryWindow *self = FERRY_WINDOW (window);
  GtkWidget *dialog;

  if (self->closing || !ferry_queue_get_busy (self->queue))
    return FALSE;
  dialog = adw_message_dialog_new (window, _ ("Stop Copying?"),
                                   _ ("Files are still being copied. If you stop now, what is not "
                                      "copied yet will be missing at the destination."));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", _ ("_Keep Copying"),
                                    "stop", _ ("_Stop and Close"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "stop",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_signal_connect (dialog, "response", G_CALLBACK (on_close_response), self);
  gtk_window_present (GTK_WINDOW (dialog));
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Conflicts                                                           */

/* Unhandled once the window is going: the file then fails, as the
 * engine does with a question nobody answers. */
static gboolean
on_conflict (FerryJob *job, FerryConflictRequest *request, FerryWindow *self)
{
  FerryTransferRow *row = _ferry_window_find_transfer_row (self, job);

  if (self->conflicts == NULL)
    return FALSE;
  if (row != NULL)
    {
      ferry_transfer_row_question_asked (row);
      g_signal_connect_object (request, "notify::answered",
                               G_CALLBACK (ferry_transfer_row_question_answered), row,
                               G_CONNECT_SWAPPED);
    }
  ferry_conflict_queue_ask (self->conflicts, request);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Entries the drive cannot store                                      */

/* A copy cancelled from its row while it asks needs no answer any more. */
static void
on_asking_job_phase (FerryJob *job, GParamSpec *pspec, GtkWindow *dialog)
{
  if (ferry_job_get_phase (job) >= FERRY_PHASE_DONE)
    gtk_window_destroy (dialog);
}

/* Asked once for the whole copy, before it writes anything; the drive is
 * named as its transfer row names it. */
static gboolean
on_unsupported (FerryJob *job, FerryUnsupportedReport *report, FerryWindow *self)
{
  g_autoptr (FerryDestination) destination = NULL;
  FerryUnsupportedDialog *dialog;
  FerryTransferRow *row;

  if (self->closing)
    return FALSE;
  destination = _ferry_window_destination_for (self, ferry_job_get_destination (job));
  dialog = ferry_unsupported_dialog_new (GTK_WINDOW (self), report,
                                         ferry_destination_get_name (destination));
  g_signal_connect_object (job, "notify::phase", G_CALLBACK (on_asking_job_phase), dialog, 0);
  row = _ferry_window_find_transfer_row (self, job);
  if (row != NULL)
    {
      ferry_transfer_row_question_asked (row);
      g_signal_connect_object (dialog, "destroy", G_CALLBACK (ferry_transfer_row_question_answered),
                               row, G_CONNECT_SWAPPED);
    }
  gtk_window_present (GTK_WINDOW (dialog));
  return TRUE;
}

/* Whatever @job finds already there, or cannot store on its drive as it
 * is, is asked about in this window. */
void
_ferry_window_ask_questions_of (FerryWindow *self, FerryJob *job)
{
  g_signal_connect_object (job, "conflict", G_CALLBACK (on_conflict), self, 0);
  g_signal_connect_object (job, "unsupported", G_CALLBACK (on_unsupported), self, 0);
}
