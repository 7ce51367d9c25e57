/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "ferry-answer-private.h"

struct _FerryAnswer
{
  gatomicrefcount ref;
  GMutex lock;
  GCond cond;
  gboolean answered;
  int action;
  gboolean apply_to_all;
  char *name; /* given with the answer, or NULL */
};

FerryAnswer *
_ferry_answer_new (void)
{
  FerryAnswer *answer = g_new0 (FerryAnswer, 1);

  g_atomic_ref_count_init (&answer->ref);
  g_mutex_init (&answer->lock);
  g_cond_init (&answer->cond);
  return answer;
}

FerryAnswer *
_ferry_answer_ref (FerryAnswer *answer)
{
  g_atomic_ref_count_inc (&answer->ref);
  return answer;
}

void
_ferry_answer_unref (FerryAnswer *answer)
{
  if (!g_atomic_ref_count_dec (&answer->ref))
    return;
  g_mutex_clear (&answer->lock);
  g_cond_clear (&answer->cond);
  g_free (answer->name);
  g_free (answer);
}

static gboolean
give (FerryAnswer *answer, int action, gboolean apply_to_all, const char *name)
{
  gboolean given = FALSE;

  g_mutex_lock (&answer->lock);
  if (!answer->answered)
    {
      answer->answered = TRUE;
      answer->action = action;
      answer->apply_to_all = apply_to_all;
      answer->name = g_strdup (name);
      g_cond_broadcast (&answer->cond);
      given = TRUE;
    }
  g_mutex_unlock (&answer->lock);
  return given;
}

/* The first answer counts; later ones are ignored. */
gboolean
_ferry_answer_give (FerryAnswer *answer, int action, gboolean apply_to_all)
{
  return give (answer, action, apply_to_all, NULL);
}

/* An answer that carries a name (a new name for a file), for this one
 * question only. */
gboolean
_ferry_answer_give_name (FerryAnswer *answer, int action, const char *name)
{
  return give (answer, action, FALSE, name);
}

char *
_ferry_answer_dup_name (FerryAnswer *answer)
{
  char *name;

  g_mutex_lock (&answer->lock);
  name = g_strdup (answer->name);
  g_mutex_unlock (&answer->lock);
  return name;
}

gboolean
_ferry_answer_is_given (FerryAnswer *answer)
{
  gboolean answered;

  g_mutex_lock (&answer->lock);
  answered = answer->answered;
  g_mutex_unlock (&answer->lock);
  return answered;
}

static void
wake_waiter (GCancellable *cancellable, gpointer user_data)
{
  FerryAnswer *answer = user_data;

  g_mutex_lock (&answer->lock);
  g_cond_broadcast (&answer->cond);
  g_mutex_unlock (&answer->lock);
}

/* Blocks a job's thread (never the main loop) until the question is
 * answered, dropped, or the job is cancelled (then @on_cancel). */
int
_ferry_answer_wait (FerryAnswer *answer,
                    GCancellable *cancellable,
                    int on_cancel,
                    gboolean *apply_to_all)
{
  int action;
  gulong handler = 0;

  if (cancellable != NULL)
    handler = g_cancellable_connect (cancellable, G_CALLBACK (wake_waiter), answer, NULL);

  g_mutex_lock (&answer->lock);
  while (!answer->answered && !g_cancellable_is_cancelled (cancellable))
    g_cond_wait (&answer->cond, &answer->lock);
  action = answer->answered ? answer->action : on_cancel;
  if (apply_to_all != NULL)
    *apply_to_all = answer->answered && answer->apply_to_all;
  g_mutex_unlock (&answer->lock);

  g_cancellable_disconnect (cancellable, handler);
  return action;
}
