/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "ferry-fs.h"
#include "ferry-tree-size.h"

/* Small: the walk keeps one buffer per level of depth. */
#define PLAN_BUFFER_SIZE (8 * 1024)
#define FLUSH_EVERY      512
#define BLOCK            4096

/* ext4 maps a file in extents, four in its inode and the rest in blocks
 * of their own. A file of 48 MB took 10 extents and one block more on a
 * fresh 60 MB stick (1 KiB blocks, 8 MiB block groups), one of 690 MB 9
 * extents and one block on 700 MB (4 KiB blocks): a file written whole
 * fills no more than it can from 8 MiB on, and a block for each GiB
 * begun holds an extent for every 3 MiB (84 of 1 KiB, 340 of 4 KiB). */
#define MAPPED_MIN  (8 * 1024 * 1024)
#define MAPPED_SPAN (1024 * 1024 * 1024)

/* A folder's entries on ext4: 8 bytes and the name, in 4s. Past its
 * first block the folder is an index whose blocks split half full: in
 * one folder 1,000 names of 15 characters (23 KiB of entries) took 36
 * KiB, 10,000 of them (234 KiB) 316 KiB with 4 KiB blocks and 347 KiB
 * with 1 KiB blocks. Counted twice from then on. */
#define ENTRY_HEADER 8
#define FIRST_BLOCK_ENTRIES (BLOCK - 24) /* but "." and ".." */

/**
 * FerryTreeSize:
 * Measures trees: how many entries, how many bytes of data, how much
 * room their copies take. What it finds streams out, every few hundred
 * entries, to whoever asked (a scan running beside the copy).
 */
struct _FerryTreeSize
{
  FerryTreeTotals totals;
  FerryTreeTotals flushed;
  FerryTreeSizeFunc on_more;
  gpointer user_data;
  GHashTable *linked; /* (dev, ino) of files with several names, counted once */
  guint since_flush;
  guint64 top_entries; /* the sources' entries in the destination folder */
};

FerryTreeSize *
ferry_tree_size_new (FerryTreeSizeFunc on_more, gpointer user_data)
{
  FerryTreeSize *walk = g_new0 (FerryTreeSize, 1);

  walk->on_more = on_more;
  walk->user_data = user_data;
  walk->linked = g_hash_table_new_full (ferry_inode_key_hash, ferry_inode_key_equal, g_free, NULL);
  return walk;
}

static void
walk_flush (FerryTreeSize *walk)
{
  FerryTreeTotals more = {
    walk->totals.files - walk->flushed.files,
    walk->totals.bytes - walk->flushed.bytes,
    walk->totals.needed - walk->flushed.needed,
    walk->totals.metadata - walk->flushed.metadata,
  };

  if (walk->on_more != NULL)
    walk->on_more (&more, walk->user_data);
  walk->flushed = walk->totals;
  walk->since_flush = 0;
}

static guint64
entry_bytes (const char *name)
{
  return (ENTRY_HEADER + strlen (name) + 3) / 4 * 4;
}

/* What a folder whose entries take @entries bytes takes beyond its
 * first block. */
static guint64
folder_growth (guint64 entries)
{
  if (entries <= FIRST_BLOCK_ENTRIES)
    return 0;
  return (2 * entries + BLOCK - 1) / BLOCK * BLOCK;
}

/* What was found since the last report goes out first. */
void
ferry_tree_size_free (FerryTreeSize *walk, FerryTreeTotals *totals)
{
  walk->totals.metadata += folder_growth (walk->top_entries);
  walk_flush (walk);
  if (totals != NULL)
    *totals = walk->totals;
  g_hash_table_unref (walk->linked);
  g_free (walk);
}

static gboolean
first_name_of (FerryTreeSize *walk, const struct stat *st)
{
  FerryInodeKey key = { st->st_dev, st->st_ino };

  if (st->st_nlink < 2)
    return TRUE;
  if (g_hash_table_contains (walk->linked, &key))
    return FALSE;
  g_hash_table_add (walk->linked, g_memdup2 (&key, sizeof key));
  return TRUE;
}

static void
walk_count (FerryTreeSize *walk, const struct stat *st)
{
  walk->totals.files++;
  if (S_ISDIR (st->st_mode))
    walk->totals.needed += BLOCK;
  else if (S_ISREG (st->st_mode) && first_name_of (walk, st))
    {
      guint64 size = st->st_size;
      guint64 allocated = (guint64) st->st_blocks * 512;

      walk->totals.bytes += size;
      walk->totals.needed
          += ((MIN (size, allocated > 0 ? allocated : size) + BLOCK - 1) / BLOCK) * BLOCK;
      if (size >= MAPPED_MIN)
        walk->totals.metadata += (size + MAPPED_SPAN - 1) / MAPPED_SPAN * BLOCK;
    }
  if (++walk->since_flush >= FLUSH_EVERY)
    walk_flush (walk);
}

typedef struct
{
  int fd;
  FerryDirReader reader;
  guint64 entries; /* bytes, see entry_bytes() */
} Level;

static Level *
level_open (int parent_fd, const char *name)
{
  int fd = ferry_open_source_at (parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  Level *level;

  if (fd < 0)
    return NULL;
  level = g_new0 (Level, 1);
  level->fd = fd;
  ferry_dir_reader_init (&level->reader, fd, PLAN_BUFFER_SIZE);
  return level;
}

static void
level_free (Level *level)
{
  ferry_dir_reader_clear (&level->reader);
  ferry_fd_closep (&level->fd);
  g_free (level);
}

/* Depth-first with an explicit stack: no recursion, so no depth limit
 * beyond open descriptors. Entries that cannot be read are left out; the
 * copy reports them when it reaches them. */
void
ferry_tree_size_add (FerryTreeSize *walk, int parent_fd, const char *name, GCancellable *cancellable)
{
  g_autoptr (GPtrArray) stack = g_ptr_array_new_with_free_func ((GDestroyNotify) level_free);
  struct stat st;
  Level *level;

  if (fstatat (parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return;
  if (strcmp (name, ".") != 0) /* else its entries go there, counted below */
    walk->top_entries += entry_bytes (name);
  walk_count (walk, &st);
  if (!S_ISDIR (st.st_mode) || (level = level_open (parent_fd, name)) == NULL)
    return;
  g_ptr_array_add (stack, level);

  while (stack->len > 0 && !g_cancellable_is_cancelled (cancellable))
    {
      const char *entry;
      unsigned char d_type;
      int errsv;

      level = g_ptr_array_index (stack, stack->len - 1);
      if (!ferry_dir_reader_next (&level->reader, &entry, &d_type, &errsv))
        {
          walk->totals.metadata += folder_growth (level->entries);
          g_ptr_array_remove_index (stack, stack->len - 1);
          continue;
        }
      level->entries += entry_bytes (entry);

      if (d_type != DT_REG && d_type != DT_UNKNOWN)
        {
          st.st_mode = DTTOIF (d_type);
          st.st_nlink = 1;
        }
      else if (fstatat (level->fd, entry, &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;

      walk_count (walk, &st);
      if (S_ISDIR (st.st_mode) && (level = level_open (level->fd, entry)) != NULL)
        g_ptr_array_add (stack, level);
    }
}

gboolean
ferry_tree_measure_at (int dir_fd,
                       const char *name,
                       FerryTreeTotals *totals,
                       GCancellable *cancellable)
{
  FerryTreeSize *walk = ferry_tree_size_new (NULL, NULL);

  ferry_tree_size_add (walk, dir_fd, name, cancellable);
  ferry_tree_size_free (walk, totals);
  return !g_cancellable_is_cancelled (cancellable);
}

