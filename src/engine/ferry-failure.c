/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "ferry-failure.h"

/* Registered by hand: the G_DEFINE_BOXED_TYPE macro does not build
 * cleanly with -Wpedantic. */
GType
ferry_failure_get_type (void)
{
  static gsize type_id = 0;

  if (g_once_init_enter (&type_id))
    {
      GType type = g_boxed_type_register_static (g_intern_static_string ("FerryFailure"),
                                                 (GBoxedCopyFunc) ferry_failure_copy,
                                                 (GBoxedFreeFunc) ferry_failure_free);
      g_once_init_leave (&type_id, type);
    }
  return type_id;
}

FerryFailure *
ferry_failure_new (GFile *source, GFile *destination, const GError *error)
{
  FerryFailure *failure = g_new0 (FerryFailure, 1);

  g_return_val_if_fail (error != NULL, NULL);

  failure->source = source ? g_object_ref (source) : NULL;
  failure->destination = destination ? g_object_ref (destination) : NULL;
  failure->error = g_error_copy (error);
  return failure;
}

FerryFailure *
ferry_failure_copy (const FerryFailure *failure)
{
  return ferry_failure_new (failure->source, failure->destination, failure->error);
}

void
ferry_failure_free (FerryFailure *failure)
{
  if (failure == NULL)
    return;
  g_clear_object (&failure->source);
  g_clear_object (&failure->destination);
  g_clear_error (&failure->error);
  g_free (failure);
}
