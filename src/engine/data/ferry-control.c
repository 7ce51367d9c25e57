/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <stdatomic.h>

#include "ferry-control.h"

/**
 * FerryControl:
 * What every worker of a job checks between files and between chunks:
 * whether to wait (paused), and whether to go on at all (cancelled, or
 * stopped by a failure that ends the job, whose reason is kept once here
 * rather than reported by every worker).
 */
struct _FerryControl
{
  GCancellable *cancellable;
  GMutex lock;
  GCond pause_cond;
  gboolean paused;
  atomic_bool stopping;
  GError *stop_error;
};

FerryControl *
ferry_control_new (void)
{
  FerryControl *self = g_new0 (FerryControl, 1);

  self->cancellable = g_cancellable_new ();
  g_mutex_init (&self->lock);
  g_cond_init (&self->pause_cond);
  return self;
}

void
ferry_control_free (FerryControl *self)
{
  g_clear_object (&self->cancellable);
  g_clear_error (&self->stop_error);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->pause_cond);
  g_free (self);
}

GCancellable *
ferry_control_get_cancellable (FerryControl *self)
{
  return self->cancellable;
}

/* Also wakes every worker held by a pause. */
void
ferry_control_cancel (FerryControl *self)
{
  g_cancellable_cancel (self->cancellable);
  g_mutex_lock (&self->lock);
  g_cond_broadcast (&self->pause_cond);
  g_mutex_unlock (&self->lock);
}

gboolean
ferry_control_is_cancelled (FerryControl *self)
{
  return g_cancellable_is_cancelled (self->cancellable);
}

/* Pausing holds every worker at its next check (between chunks of a
 * large file, or between files); nothing is closed or lost. Returns
 * whether that changed anything. */
gboolean
ferry_control_set_paused (FerryControl *self, gboolean paused)
{
  gboolean changed;

  g_mutex_lock (&self->lock);
  changed = self->paused != paused;
  self->paused = paused;
  g_cond_broadcast (&self->pause_cond);
  g_mutex_unlock (&self->lock);
  return changed;
}

gboolean
ferry_control_get_paused (FerryControl *self)
{
  gboolean paused;

  g_mutex_lock (&self->lock);
  paused = self->paused;
  g_mutex_unlock (&self->lock);
  return paused;
}

static void
wait_while_paused (FerryControl *self)
{
  g_mutex_lock (&self->lock);
  while (self->paused && !g_cancellable_is_cancelled (self->cancellable))
    g_cond_wait_until (&self->pause_cond, &self->lock,
                       g_get_monotonic_time () + G_USEC_PER_SEC / 10);
  g_mutex_unlock (&self->lock);
}

/* Called between files and between chunks: waits while the job is
 * paused and says whether to go on. A job that stops answers
 * G_IO_ERROR_CANCELLED here; why it stopped is ferry_control_dup_stop_error(). */
gboolean
ferry_control_check (FerryControl *self, GError **error)
{
  wait_while_paused (self);
  if (ferry_control_is_ending (self))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, _ ("The copy was stopped"));
      return FALSE;
    }
  return TRUE;
}

/* Stopping or cancelled, without waiting out a pause. */
gboolean
ferry_control_is_ending (FerryControl *self)
{
  return atomic_load (&self->stopping) || g_cancellable_is_cancelled (self->cancellable);
}

/* The first reason given is the one kept: TRUE for that one. */
gboolean
ferry_control_stop (FerryControl *self, const GError *error)
{
  gboolean first;

  g_mutex_lock (&self->lock);
  first = self->stop_error == NULL && error != NULL;
  if (first)
    self->stop_error = g_error_copy (error);
  g_mutex_unlock (&self->lock);
  atomic_store (&self->stopping, TRUE);
  return first;
}

GError *
ferry_control_dup_stop_error (FerryControl *self)
{
  GError *error = NULL;

  g_mutex_lock (&self->lock);
  if (self->stop_error != NULL)
    error = g_error_copy (self->stop_error);
  g_mutex_unlock (&self->lock);
  return error;
}
