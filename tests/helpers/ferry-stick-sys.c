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
  char *source; /* "/dev/loop3"; NULL if the line has none */
} MountEntry;

static void
mount_entry_clear (MountEntry *entry)
{
  g_clear_pointer (&entry->maj_min, g_free);
  g_clear_pointer (&entry->mount_point, g_free);
  g_clear_pointer (&entry->source, g_free);
}

/* mountinfo escapes blanks and backslashes in paths as octal (\040),
 * which g_strcompress() undoes. The source comes after a variable number
 * of optional fields, past the "-" that ends them, and the filesystem type. */
static gboolean
parse_mountinfo_line (const char *line, MountEntry *entry)
{
  g_auto (GStrv) fields = g_strsplit (line, " ", 0);
  guint n_fields = g_strv_length (fields);

  if (n_fields < 5)
    return FALSE;

  entry->maj_min = g_strdup (fields[2]);
  entry->mount_point = g_strcompress (fields[4]);
  for (guint i = 6; i + 2 < n_fields; i++)
    if (g_str_equal (fields[i], "-"))
      {
        entry->source = g_strcompress (fields[i + 2]);
        break;
      }
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

/* A FUSE filesystem on the device (exfat-fuse, ntfs-3g) names it as its
 * source, whatever device number its superblock has. */
static gboolean
entry_is_on (const MountEntry *entry, const char *maj_min, const char *device)
{
  return (maj_min != NULL && g_str_equal (entry->maj_min, maj_min))
         || g_strcmp0 (entry->source, device) == 0;
}

GPtrArray *
ferry_stick_sys_list_mounts_of_block (const char *block_name)
{
  g_autoptr (GPtrArray) mount_points = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *maj_min = ferry_stick_sys_read_block_attribute (block_name, "dev");
  g_autofree char *device = g_build_filename ("/dev", block_name, NULL);
  g_auto (GStrv) lines = read_mountinfo_lines ();

  for (guint i = 0; lines[i] != NULL; i++)
    {
      MountEntry entry = { 0 };

      if (parse_mountinfo_line (lines[i], &entry) && entry_is_on (&entry, maj_min, device))
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

char *
ferry_stick_sys_find_tool (const char *name)
{
  static const char *const fallback_dirs[] = { "/usr/sbin", "/sbin", "/usr/bin", "/bin" };
  char *path = g_find_program_in_path (name);

  for (guint i = 0; path == NULL && i < G_N_ELEMENTS (fallback_dirs); i++)
    {
      g_autofree char *candidate = g_build_filename (fallback_dirs[i], name, NULL);

      if (g_file_test (candidate, G_FILE_TEST_IS_EXECUTABLE))
        path = g_steal_pointer (&candidate);
    }

  return path;
}
