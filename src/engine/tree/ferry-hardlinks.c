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
  char **relpaths; /* of the finished copy below the destination folder, to try in turn;
                      NULL while copying */
  FerryInodeKey copy; /* the finished copy's identity, to check a link against */
  gboolean copying;
  nlink_t names_left;
} Entry;

static void
entry_free (gpointer data)
{
  Entry *entry = data;
  g_strfreev (entry->relpaths);
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
 * Returns the paths (below the destination folder) of a finished copy of
 * the file @st describes, to link to (where it is, else where it will
 * be once the hidden folder it is in has its name), and sets *@copy to that copy's
 * identity; or NULL when the caller is to copy it, and then call
 * ferry_hardlinks_copied() or ferry_hardlinks_release(). A caller that
 * meets a file another worker is still copying waits.
 */
char **
ferry_hardlinks_claim (FerryHardlinks *self, const struct stat *st, FerryInodeKey *copy)
{
  FerryInodeKey key = { st->st_dev, st->st_ino };
  char **relpaths = NULL;
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

  if (entry->relpaths != NULL)
    {
      relpaths = g_strdupv (entry->relpaths);
      *copy = entry->copy;
      forget_name (self, entry);
    }
  else
    entry->copying = TRUE;
  g_mutex_unlock (&self->lock);
  return relpaths;
}

/* Ends a claim: the copy @copy is at @relpaths, or (NULL) it failed or
 * was skipped and the next name will copy the file. */
static void
end_claim (FerryHardlinks *self,
           const struct stat *st,
           const char *const *relpaths,
           const FerryInodeKey *copy)
{
  FerryInodeKey key = { st->st_dev, st->st_ino };
  Entry *entry;

  g_mutex_lock (&self->lock);
  entry = g_hash_table_lookup (self->files, &key);
  if (entry != NULL)
    {
      entry->copying = FALSE;
      entry->relpaths = g_strdupv ((char **) relpaths);
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
                        const char *const *relpaths,
                        const FerryInodeKey *copy)
{
  end_claim (self, st, relpaths, copy);
}

void
ferry_hardlinks_release (FerryHardlinks *self, const struct stat *st)
{
  end_claim (self, st, NULL, NULL);
}
