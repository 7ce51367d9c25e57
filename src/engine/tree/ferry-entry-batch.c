/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "ferry-entry-batch.h"

struct _FerryEntryBatch
{
  gatomicrefcount refs;
  GByteArray *names; /* each entry: d_type, name, NUL */
  GArray *starts;    /* guint: where each entry begins in names */
  gint next;         /* the next entry to claim (atomic) */
};

FerryEntryBatch *
ferry_entry_batch_new (void)
{
  FerryEntryBatch *self = g_new0 (FerryEntryBatch, 1);

  g_atomic_ref_count_init (&self->refs);
  self->names = g_byte_array_new ();
  self->starts = g_array_new (FALSE, FALSE, sizeof (guint));
  return self;
}

FerryEntryBatch *
ferry_entry_batch_ref (FerryEntryBatch *self)
{
  g_atomic_ref_count_inc (&self->refs);
  return self;
}

void
ferry_entry_batch_unref (FerryEntryBatch *self)
{
  if (!g_atomic_ref_count_dec (&self->refs))
    return;
  g_byte_array_unref (self->names);
  g_array_unref (self->starts);
  g_free (self);
}

/* Returns how many entries the batch holds now. */
guint
ferry_entry_batch_add (FerryEntryBatch *self, const char *name, unsigned char d_type)
{
  guint start = self->names->len;

  g_array_append_val (self->starts, start);
  g_byte_array_append (self->names, &d_type, 1);
  g_byte_array_append (self->names, (const guint8 *) name, strlen (name) + 1);
  return self->starts->len;
}

/* Takes the next entry no one has taken; FALSE once none is left. The
 * name lives as long as the batch. */
gboolean
ferry_entry_batch_claim (FerryEntryBatch *self, const char **name, unsigned char *d_type)
{
  guint i = (guint) g_atomic_int_add (&self->next, 1);
  guint start;

  if (i >= self->starts->len)
    return FALSE;
  start = g_array_index (self->starts, guint, i);
  *d_type = self->names->data[start];
  *name = (const char *) self->names->data + start + 1;
  return TRUE;
}
