/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "ferry-fs.h"
#include "ferry-hardlinks.h"

/**
 * FerryHardlinks:
 * Files with several names inside the copied tree are copied once; their
 * other names become hard links to that copy. Only files whose link count
 * is above one are remembered, and each is forgotten once all its names
 * were seen, so memory follows the number of such files still pending.
 */
struct _FerryHardlinks
{
  GMutex lock;
  GCond changed;
  GHashTable *files; /* FerryInodeKey -> Entry */
};

typedef struct
{
  FerryInodeKey key;
  char *relpath; /* of the finished copy below the destination folder; NULL while copying */
  FerryInodeKey copy; /* the finished copy's identity, to check a link against */
  gboolean copying;
  nlink_t names_left;
} Entry;

static void
entry_free (gpointer data)
{
  Entry *entry = data;
  g_free (entry->relpath);
  g_free (entry);
}

FerryHardlinks *
ferry_hardlinks_new (void)
{
  FerryHardlinks *self = g_new0 (FerryHardlinks, 1);

  g_mutex_init (&self->lock);
  g_cond_init (&self->changed);
  self->files
      = g_hash_table_new_full (ferry_inode_key_hash, ferry_inode_key_equal, NULL, entry_free);
  return self;
}

void
ferry_hardlinks_free (FerryHardlinks *self)
{
  g_hash_table_unref (self->files);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->changed);
  g_free (self);
}

static void
forget_name (FerryHardlinks *self, Entry *entry)
{
  if (entry->names_left > 0)
    entry->names_left--;
  if (entry->names_left == 0)
    g_hash_table_remove (self->files, &entry->key);
}

/**
 * ferry_hardlinks_claim:
 * Returns the path (below the destination folder) of a finished copy of
 * the file @st describes, to link to, and sets *@copy to that copy's
 * identity; or NULL when the caller is to copy it, and then call
 * ferry_hardlinks_copied() or ferry_hardlinks_release(). A caller that
 * meets a file another worker is still copying waits.
 */
char *
ferry_hardlinks_claim (FerryHardlinks *self, const struct stat *st, FerryInodeKey *copy)
{
  FerryInodeKey key = { st->st_dev, st->st_ino };
  char *relpath = NULL;
  Entry *entry;

  g_mutex_lock (&self->lock);
  while ((entry = g_hash_table_lookup (self->files, &key)) != NULL && entry->copying)
    g_cond_wait (&self->changed, &self->lock);

  if (entry == NULL)
    {
      entry = g_new0 (Entry, 1);
      entry->key = key;
      entry->names_left = st->st_nlink;
      g_hash_table_insert (self->files, &entry->key, entry);
    }

  if (entry->relpath != NULL)
    {
      relpath = g_strdup (entry->relpath);
      *copy = entry->copy;
      forget_name (self, entry);
    }
  else
    entry->copying = TRUE;
  g_mutex_unlock (&self->lock);
  return relpath;
}

/* Ends a claim: the copy @copy is at @relpath, or (NULL) it failed or
 * was skipped and the next name will copy the file. */
static void
end_claim (FerryHardlinks *self,
           const struct stat *st,
           const char *relpath,
           const FerryInodeKey *copy)
{
  FerryInodeKey key = { st->st_dev, st->st_ino };
  Entry *entry;

  g_mutex_lock (&self->lock);
  entry = g_hash_table_lookup (self->files, &key);
  if (entry != NULL)
    {
      entry->copying = FALSE;
      entry->relpath = g_strdup (relpath);
      if (copy != NULL)
        entry->copy = *copy;
      forget_name (self, entry);
      g_cond_broadcast (&self->changed);
    }
  g_mutex_unlock (&self->lock);
}

void
ferry_hardlinks_copied (FerryHardlinks *self,
                        const struct stat *st,
                        const char *relpath,
                        const FerryInodeKey *copy)
{
  end_claim (self, st, relpath, copy);
}

void
ferry_hardlinks_release (FerryHardlinks *self, const struct stat *st)
{
  end_claim (self, st, NULL, NULL);
}
