/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "ferry-stick-fs.h"

#include "ferry-stick-sys.h"

#define MAX_OPTIONS 8

/* One filesystem: its format command is FORMAT_TOOL FORMAT_OPTIONS…
 * LABEL_OPTION LABEL TARGET (LABEL_OPTION is -L unless the recipe says),
 * its mount command MOUNT_TOOL MOUNT_OPTIONS… DEVICE DIR. */
typedef struct
{
  const char *name;
  const char *label_option;
  const char *format_tool;
  const char *format_package;
  const char *format_options[MAX_OPTIONS];
  const char *mount_tool;
  const char *mount_package;
  const char *mount_options[MAX_OPTIONS];
  /* -o OPTION=DEVICE: a FUSE daemon that would name itself as the
   * mount's source names the device (so the guardian finds the mount
   * to take down, and the mount says what it stands on). */
  const char *source_option;
  /* What repairs a filesystem the daemon refuses to mount once a device
   * failed under it, as GNOME Disks' "Repair Filesystem" runs it:
   * REPAIR_TOOL REPAIR_OPTIONS… DEVICE. */
  const char *repair_tool;
  const char *repair_options[MAX_OPTIONS];
  gboolean is_fuse;
} FsRecipe;

/* FAT of @bits bits: no vfat module here either, so fusefat, writable
 * with rw+. */
#define FUSEFAT_RECIPE(fs_name, bits)                                                             \
  {                                                                                                \
    .name = fs_name, .format_tool = "mkfs.vfat", .format_package = "dosfstools",                  \
    .format_options = { "-F", bits }, .label_option = "-n", .mount_tool = "fusefat",               \
    .mount_package = "fusefat", .mount_options = { "-o", "rw+" }, .source_option = "fsname",       \
    .is_fuse = TRUE,                                                                               \
  }

static const FsRecipe recipes[] = {
  [FERRY_TEST_STICK_FS_EXT4] = {
    .name = "ext4",
    .format_tool = "mkfs.ext4",
    .format_package = "e2fsprogs",
    /* Inode tables and journal are written now, so no lazy init thread
     * competes for the throttled bandwidth during a test. */
    .format_options = { "-q", "-F", "-m", "0", "-E",
                        "lazy_itable_init=0,lazy_journal_init=0,nodiscard" },
    .mount_tool = "mount",
    .mount_package = "mount",
    .mount_options = { "-t", "ext4" },
  },
  [FERRY_TEST_STICK_FS_EXFAT] = {
    .name = "exfat",
    .format_tool = "mkfs.exfat",
    .format_package = "exfatprogs",
    /* The kernel here has no exfat driver; desktops without one mount
     * exFAT sticks through this FUSE daemon. */
    .mount_tool = "mount.exfat-fuse",
    .mount_package = "exfat-fuse",
    .is_fuse = TRUE,
  },
  [FERRY_TEST_STICK_FS_NTFS] = {
    .name = "ntfs",
    .format_tool = "mkntfs",
    .format_package = "ntfs-3g",
    /* Quick (no zeroing), and forced: the target may be a plain file. */
    .format_options = { "-Q", "-F", "-q" },
    .mount_tool = "ntfs-3g",
    .mount_package = "ntfs-3g",
    /* Fixes what ntfs-3g can: the $MFT mirror, the journal, the dirty
     * flag; Windows' chkdsk does the rest. */
    .repair_tool = "ntfsfix",
    .repair_options = { "-d" },
    .is_fuse = TRUE,
  },
  [FERRY_TEST_STICK_FS_FAT32] = FUSEFAT_RECIPE ("fat32", "32"),
  [FERRY_TEST_STICK_FS_FAT16] = FUSEFAT_RECIPE ("fat16", "16"),
  [FERRY_TEST_STICK_FS_NONE] = {
    .name = "none",
  },
};

static const FsRecipe *
recipe_for (FerryTestStickFs fs)
{
  g_return_val_if_fail ((guint) fs < G_N_ELEMENTS (recipes), &recipes[FERRY_TEST_STICK_FS_NONE]);
  return &recipes[fs];
}

const char *
ferry_test_stick_fs_to_string (FerryTestStickFs fs)
{
  return recipe_for (fs)->name;
}

gboolean
ferry_test_stick_fs_from_string (const char *name, FerryTestStickFs *fs)
{
  for (guint i = 0; i < G_N_ELEMENTS (recipes); i++)
    if (g_strcmp0 (recipes[i].name, name) == 0)
      {
        *fs = (FerryTestStickFs) i;
        return TRUE;
      }
  return FALSE;
}

gboolean
ferry_stick_fs_is_fuse (FerryTestStickFs fs)
{
  return recipe_for (fs)->is_fuse;
}

static void
check_tool (GPtrArray *missing, const char *tool, const char *package)
{
  g_autofree char *path = NULL;

  if (tool == NULL)
    return;
  path = ferry_stick_sys_find_tool (tool);
  if (path == NULL)
    g_ptr_array_add (missing, g_strdup_printf ("%s not found (package %s)", tool, package));
}

void
ferry_stick_fs_check_tools (FerryTestStickFs fs, GPtrArray *missing)
{
  const FsRecipe *recipe = recipe_for (fs);

  check_tool (missing, recipe->format_tool, recipe->format_package);
  check_tool (missing, recipe->mount_tool, recipe->mount_package);
}

/* @tool, @options up to the first NULL, then @tail up to its NULL, and
 * the NULL that ends an argv; the array owns copies of the strings. */
static GPtrArray *
make_argv (const char *tool, const char *const *options, const char *const *tail)
{
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);

  g_ptr_array_add (argv, g_strdup (tool));
  for (guint i = 0; i < MAX_OPTIONS && options[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (options[i]));
  for (guint i = 0; tail[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (tail[i]));
  g_ptr_array_add (argv, NULL);
  return argv;
}

GPtrArray *
ferry_stick_fs_format_argv (FerryTestStickFs fs, const char *label, const char *target)
{
  const FsRecipe *recipe = recipe_for (fs);
  const char *const tail[]
      = { recipe->label_option != NULL ? recipe->label_option : "-L", label, target, NULL };

  if (recipe->format_tool == NULL)
    return NULL;
  return make_argv (recipe->format_tool, recipe->format_options, tail);
}

GPtrArray *
ferry_stick_fs_mount_argv (FerryTestStickFs fs, const char *device, const char *mountpoint)
{
  const FsRecipe *recipe = recipe_for (fs);
  g_autofree char *source = recipe->source_option != NULL
                                ? g_strdup_printf ("%s=%s", recipe->source_option, device)
                                : NULL;
  const char *const with_source[] = { "-o", source, device, mountpoint, NULL };
  const char *const plain[] = { device, mountpoint, NULL };

  if (recipe->mount_tool == NULL)
    return NULL;
  return make_argv (recipe->mount_tool, recipe->mount_options, source != NULL ? with_source : plain);
}

GPtrArray *
ferry_stick_fs_repair_argv (FerryTestStickFs fs, const char *device)
{
  const FsRecipe *recipe = recipe_for (fs);
  const char *const tail[] = { device, NULL };

  if (recipe->repair_tool == NULL)
    return NULL;
  return make_argv (recipe->repair_tool, recipe->repair_options, tail);
}
