/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include "ferry-fs.h"
#include "ferry-planner.h"

/* Small: the walk keeps one buffer per level of depth. */
#define PLAN_BUFFER_SIZE (8 * 1024)
#define FLUSH_EVERY      512
#define BLOCK            4096

typedef struct
{
  FerryTreeTotals totals;
  FerryTreeTotals flushed;
  FerryCounters *counters; /* where totals stream to, or NULL */
  GHashTable *linked;      /* (dev, ino) of files with several names, counted once */
  guint since_flush;
} Walk;

static void
walk_init (Walk *walk, FerryCounters *counters)
{
  *walk = (Walk){ .counters = counters };
  walk->linked = g_hash_table_new_full (ferry_inode_key_hash, ferry_inode_key_equal, g_free, NULL);
}

static void
walk_flush (Walk *walk)
{
  if (walk->counters != NULL)
    {
      ferry_counters_add (&walk->counters->files_total, walk->totals.files - walk->flushed.files);
      atomic_fetch_add (&walk->counters->bytes_total,
                        (gint64) (walk->totals.bytes - walk->flushed.bytes));
    }
  walk->flushed = walk->totals;
  walk->since_flush = 0;
}

static void
walk_clear (Walk *walk)
{
  walk_flush (walk);
  g_hash_table_unref (walk->linked);
}

static gboolean
first_name_of (Walk *walk, const struct stat *st)
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
walk_count (Walk *walk, const struct stat *st)
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
    }
  if (++walk->since_flush >= FLUSH_EVERY)
    walk_flush (walk);
}

typedef struct
{
  int fd;
  FerryDirReader reader;
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
static void
walk_tree (Walk *walk, int parent_fd, const char *name, GCancellable *cancellable)
{
  g_autoptr (GPtrArray) stack = g_ptr_array_new_with_free_func ((GDestroyNotify) level_free);
  struct stat st;
  Level *level;

  if (fstatat (parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return;
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
          g_ptr_array_remove_index (stack, stack->len - 1);
          continue;
        }

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
  Walk walk;

  walk_init (&walk, NULL);
  walk_tree (&walk, dir_fd, name, cancellable);
  *totals = walk.totals;
  walk_clear (&walk);
  return !g_cancellable_is_cancelled (cancellable);
}

/**
 * FerryPlanner:
 * Walks the sources on its own thread while the copy already runs, and
 * streams what it finds into the job's totals; the progress is never
 * held up waiting for a full scan.
 */
struct _FerryPlanner
{
  FerryCounters *counters;
  GCancellable *cancellable;
  GArray *parent_fds;
  GPtrArray *names;
  GThread *thread;
  FerryTreeTotals totals;
};

FerryPlanner *
ferry_planner_new (FerryCounters *counters, GCancellable *cancellable)
{
  FerryPlanner *self = g_new0 (FerryPlanner, 1);

  self->counters = counters;
  self->cancellable = g_object_ref (cancellable);
  self->parent_fds = g_array_new (FALSE, FALSE, sizeof (int));
  self->names = g_ptr_array_new_with_free_func (g_free);
  return self;
}

void
ferry_planner_free (FerryPlanner *self)
{
  if (self->thread != NULL)
    ferry_planner_wait (self, NULL);
  for (guint i = 0; i < self->parent_fds->len; i++)
    close (g_array_index (self->parent_fds, int, i));
  g_array_unref (self->parent_fds);
  g_ptr_array_unref (self->names);
  g_object_unref (self->cancellable);
  g_free (self);
}

void
ferry_planner_add (FerryPlanner *self, int parent_fd, const char *name)
{
  int fd = fcntl (parent_fd, F_DUPFD_CLOEXEC, 3);

  g_array_append_val (self->parent_fds, fd);
  g_ptr_array_add (self->names, g_strdup (name));
}

static gpointer
planner_main (gpointer data)
{
  FerryPlanner *self = data;
  Walk walk;

  walk_init (&walk, self->counters);
  for (guint i = 0; i < self->names->len; i++)
    walk_tree (&walk, g_array_index (self->parent_fds, int, i), g_ptr_array_index (self->names, i),
               self->cancellable);
  self->totals = walk.totals;
  walk_clear (&walk);
  atomic_store (&self->counters->planning_done, TRUE);
  return NULL;
}

void
ferry_planner_start (FerryPlanner *self)
{
  g_return_if_fail (self->thread == NULL);
  self->thread = g_thread_new ("ferry-plan", planner_main, self);
}

void
ferry_planner_wait (FerryPlanner *self, FerryTreeTotals *totals)
{
  if (self->thread != NULL)
    g_thread_join (g_steal_pointer (&self->thread));
  if (totals != NULL)
    *totals = self->totals;
}
