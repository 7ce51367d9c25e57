/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "ferry-stick-sys.h"

#include <string.h>

#define MOUNTINFO_PATH "/proc/self/mountinfo"
#define SYS_BLOCK_PATH "/sys/block"

/* The fields of one /proc/self/mountinfo line this file cares about. */
typedef struct
{
  char *maj_min;
  char *mount_point;
} MountEntry;

static void
mount_entry_clear (MountEntry *entry)
{
  g_clear_pointer (&entry->maj_min, g_free);
  g_clear_pointer (&entry->mount_point, g_free);
}

/* mountinfo escapes blanks and backslashes in paths as octal (\040),
 * which g_strcompress() undoes. */
static gboolean
parse_mountinfo_line (const char *line, MountEntry *entry)
{
  g_auto (GStrv) fields = g_strsplit (line, " ", 0);

  if (g_strv_length (fields) < 5)
    return FALSE;

  entry->maj_min = g_strdup (fields[2]);
  entry->mount_point = g_strcompress (fields[4]);
  return TRUE;
}

static GStrv
read_mountinfo_lines (void)
{
  g_autofree char *contents = NULL;

  if (!g_file_get_contents (MOUNTINFO_PATH, &contents, NULL, NULL))
    return g_new0 (char *, 1);

  return g_strsplit (contents, "\n", 0);
}

GPtrArray *
ferry_stick_sys_list_mounts_of_device (const char *maj_min)
{
  g_autoptr (GPtrArray) mount_points = g_ptr_array_new_with_free_func (g_free);
  g_auto (GStrv) lines = read_mountinfo_lines ();

  for (guint i = 0; lines[i] != NULL; i++)
    {
      MountEntry entry = { 0 };

      if (parse_mountinfo_line (lines[i], &entry) && g_str_equal (entry.maj_min, maj_min))
        g_ptr_array_insert (mount_points, 0, g_steal_pointer (&entry.mount_point));
      mount_entry_clear (&entry);
    }

  return g_steal_pointer (&mount_points);
}

gboolean
ferry_stick_sys_is_mounted (const char *path)
{
  g_auto (GStrv) lines = read_mountinfo_lines ();
  gboolean found = FALSE;

  for (guint i = 0; lines[i] != NULL && !found; i++)
    {
      MountEntry entry = { 0 };

      if (parse_mountinfo_line (lines[i], &entry))
        found = g_str_equal (entry.mount_point, path);
      mount_entry_clear (&entry);
    }

  return found;
}

char *
ferry_stick_sys_read_block_attribute (const char *block_name, const char *attribute)
{
  g_autofree char *path = g_build_filename (SYS_BLOCK_PATH, block_name, attribute, NULL);
  g_autofree char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return NULL;

  return g_strchomp (g_steal_pointer (&contents));
}

/* The kernel appends this to the path of a backing file that was unlinked. */
#define DELETED_SUFFIX " (deleted)"

static char *
read_loop_backing_file (const char *block_name)
{
  g_autofree char *backing = ferry_stick_sys_read_block_attribute (block_name, "loop/backing_file");

  if (backing == NULL || *backing == '\0')
    return NULL;
  if (g_str_has_suffix (backing, DELETED_SUFFIX))
    backing[strlen (backing) - strlen (DELETED_SUFFIX)] = '\0';

  return g_steal_pointer (&backing);
}

gboolean
ferry_stick_sys_loop_is_attached (const char *block_name)
{
  g_autofree char *backing = read_loop_backing_file (block_name);

  return backing != NULL;
}

GPtrArray *
ferry_stick_sys_list_loops_backed_by (const char *path)
{
  g_autoptr (GPtrArray) loops = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) dir = g_dir_open (SYS_BLOCK_PATH, 0, NULL);
  const char *name;

  if (dir == NULL)
    return g_steal_pointer (&loops);

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *backing = NULL;

      if (!g_str_has_prefix (name, "loop"))
        continue;

      backing = read_loop_backing_file (name);
      if (backing != NULL && g_str_equal (backing, path))
        g_ptr_array_add (loops, g_strdup (name));
    }

  return g_steal_pointer (&loops);
}
