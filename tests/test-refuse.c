/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What a job refuses before it writes anything: a folder into itself, a
 * file onto itself, paths that do not exist, a destination that cannot be
 * written or cannot hold the copy, and bad usage. Every refusal must leave
 * the job failed and every folder exactly as it was. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "ferry-device.h"
#include "ferry-plan.h"
#include "ferry-test-stick.h"
#include "ferry-test-util.h"

/* A test's child process works in its parent's scratch folder, where the
 * parent mounted what the child needs. */
#define PARENT_SCRATCH_ENV "FERRY_TEST_PARENT_SCRATCH"
#define CHILD_TIMEOUT_USEC (20 * G_USEC_PER_SEC)

typedef struct
{
  char *scratch;
  char *src;
  char *dst;
  char *mnt; /* where a test may mount something */
  gboolean owns_scratch;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  if (g_test_subprocess ())
    {
      f->scratch = g_strdup (g_getenv (PARENT_SCRATCH_ENV));
      g_assert_nonnull (f->scratch);
    }
  else
    {
      f->scratch = ferry_test_scratch_new ("refuse");
      f->owns_scratch = TRUE;
    }
  f->src = g_build_filename (f->scratch, "src", NULL);
  f->dst = g_build_filename (f->scratch, "dst", NULL);
  f->mnt = g_build_filename (f->scratch, "mnt", NULL);
  if (f->owns_scratch)
    {
      ferry_test_make_dirs (f->src);
      ferry_test_make_dirs (f->dst);
    }
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  if (f->owns_scratch)
    ferry_test_remove_tree (f->scratch);
  g_free (f->scratch);
  g_free (f->src);
  g_free (f->dst);
  g_free (f->mnt);
}

/* ------------------------------------------------------------------ */
/* Snapshots: "unchanged" means every entry has the same type, mode,   */
/* inode, size, modification time and content (a folder's time moves   */
/* when anything is made or removed in it, even a temporary file).      */

/* ------------------------------------------------------------------ */
/* Running refused jobs                                                */

static void
assert_message_names (const GError *error, const char *what)
{
  if (strstr (error->message, what) == NULL)
    g_error ("the message “%s” does not name “%s”", error->message, what);
}

/* Runs @job, which must be refused before it copies anything; returns
 * the refusal. */
static GError *
run_refused (FerryJob *job)
{
  g_auto (FerryProgress) progress = { 0 };
  g_autoptr (GPtrArray) failures = NULL;
  GError *error = NULL;

  g_assert_false (ferry_test_run_job (job, &error));
  g_assert_nonnull (error);
  g_assert_cmpint (ferry_job_get_phase (job), ==, FERRY_PHASE_FAILED);
  ferry_job_get_progress (job, &progress);
  g_assert_cmpint (progress.phase, ==, FERRY_PHASE_FAILED);
  g_assert_cmpuint (progress.files_done, ==, 0);
  g_assert_cmpuint (progress.bytes_written, ==, 0);
  /* A refusal is the job's, not a file's. */
  failures = ferry_job_dup_failures (job);
  g_assert_cmpuint (failures->len, ==, 0);
  return error;
}

/* Copies @sources to @dest, expects the refusal @domain / @code naming
 * @named, and checks nothing under @watch changed. Returns the refusal
 * for more checks. */
static GError *
assert_refused (const char *const *sources,
                const char *dest,
                const char *watch,
                GQuark domain,
                int code,
                const char *named)
{
  g_autofree char *before = ferry_test_describe_tree (watch);
  g_autofree char *after = NULL;
  g_autoptr (FerryJob) job = ferry_test_job_new (sources, dest);
  GError *error = run_refused (job);

  g_assert_error (error, domain, code);
  if (named != NULL)
    assert_message_names (error, named);
  after = ferry_test_describe_tree (watch);
  g_assert_cmpstr (after, ==, before);
  return error;
}

static void
assert_refused_quietly (const char *const *sources,
                        const char *dest,
                        const char *watch,
                        GQuark domain,
                        int code,
                        const char *named)
{
  g_autoptr (GError) error = assert_refused (sources, dest, watch, domain, code, named);
}

static char *
make_small_tree (const char *parent, const char *name)
{
  char *root = g_build_filename (parent, name, NULL);
  g_autofree char *deep = g_build_filename (root, "a", "b", NULL);
  g_autofree char *top_file = g_build_filename (root, "top.txt", NULL);
  g_autofree char *deep_file = g_build_filename (deep, "deep.bin", NULL);

  ferry_test_make_dirs (deep);
  ferry_test_write_text (top_file, "top\n");
  ferry_test_write_random (deep_file, 10000, 7);
  return root;
}

/* ------------------------------------------------------------------ */
/* Mounts and child processes                                          */

static gboolean
mount_or_skip (const char *source,
               const char *target,
               const char *type,
               unsigned long flags,
               const char *options)
{
  ferry_test_make_dirs (target);
  if (mount (source, target, type, flags, options) == 0)
    return TRUE;
  if (errno == EPERM)
    {
      g_test_skip ("mounting needs CAP_SYS_ADMIN, which this root lacks");
      return FALSE;
    }
  g_error ("could not mount %s on %s: %s", source, target, g_strerror (errno));
  return FALSE;
}

/* Runs this test again in a child process sharing the scratch folder;
 * the caller checks the outcome after cleaning up. */
static void
run_in_child (Fixture *f)
{
  g_setenv (PARENT_SCRATCH_ENV, f->scratch, TRUE);
  g_test_trap_subprocess (NULL, CHILD_TIMEOUT_USEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_unsetenv (PARENT_SCRATCH_ENV);
}

typedef gboolean (*PrepareFunc) (Fixture *f);
typedef void (*CheckFunc) (Fixture *f);

/* @prepare mounts on f->mnt (as root); @check runs in a child so the
 * mount is taken down even when one of its assertions fails. */
static void
check_with_mount (Fixture *f, PrepareFunc prepare, CheckFunc check)
{
  int unmounted;

  if (g_test_subprocess ())
    {
      check (f);
      return;
    }
  if (!ferry_test_is_root ())
    {
      g_test_skip ("mounting needs root (CI runs as root)");
      return;
    }
  if (!prepare (f))
    return;
  run_in_child (f);
  unmounted = umount2 (f->mnt, MNT_DETACH);
  g_test_trap_assert_passed ();
  g_assert_cmpint (unmounted, ==, 0);
}

static void
drop_privileges (void)
{
  g_assert_cmpint (setgroups (0, NULL), ==, 0);
  g_assert_cmpint (setgid (65534), ==, 0);
  g_assert_cmpint (setuid (65534), ==, 0);
  g_assert_cmpint (geteuid (), ==, 65534);
}

/* ------------------------------------------------------------------ */
/* A folder into itself                                                */

static void
test_into_itself_same_folder (Fixture *f, gconstpointer data)
{
  g_autofree char *tree = make_small_tree (f->src, "tree");
  g_autofree char *with_slash = g_strconcat (tree, "/", NULL);
  const char *sources[] = { tree, NULL };
  const char *slashed[] = { with_slash, NULL };

  g_autofree char *expected = g_strdup_printf ("The folder “%s” cannot be copied into itself", tree);
  g_autoptr (GError) plain = NULL;
  g_autoptr (GError) with_slashes = NULL;

  /* The folder is its own destination, not inside itself: the message
   * says so without a second path. */
  plain = assert_refused (sources, tree, f->scratch, FERRY_ERROR, FERRY_ERROR_INTO_ITSELF, tree);
  g_assert_cmpstr (plain->message, ==, expected);
  with_slashes = assert_refused (slashed, with_slash, f->scratch, FERRY_ERROR,
                                 FERRY_ERROR_INTO_ITSELF, tree);
  g_assert_cmpstr (with_slashes->message, ==, expected);
}

static void
test_into_itself_subtree (Fixture *f, gconstpointer data)
{
  g_autofree char *tree = make_small_tree (f->src, "tree");
  g_autofree char *inside = g_build_filename (tree, "a", "b", NULL);
  g_autofree char *new_name = g_build_filename (tree, "a", "copy-of-tree", NULL);
  const char *sources[] = { tree, NULL };
  g_autoptr (GError) error = NULL;

  error = assert_refused (sources, inside, f->scratch, FERRY_ERROR, FERRY_ERROR_INTO_ITSELF, tree);
  assert_message_names (error, inside);
  /* A new name inside the source is inside it too. */
  assert_refused_quietly (sources, new_name, f->scratch, FERRY_ERROR, FERRY_ERROR_INTO_ITSELF,
                          tree);
}

static void
test_into_itself_through_symlink (Fixture *f, gconstpointer data)
{
  g_autofree char *tree = make_small_tree (f->src, "tree");
  g_autofree char *inside = g_build_filename (tree, "a", NULL);
  g_autofree char *shortcut = g_build_filename (f->scratch, "shortcut", NULL);
  g_autofree char *through = g_build_filename (shortcut, "b", NULL);
  const char *sources[] = { tree, NULL };

  g_assert_cmpint (symlink (inside, shortcut), ==, 0);
  assert_refused_quietly (sources, through, f->scratch, FERRY_ERROR, FERRY_ERROR_INTO_ITSELF, tree);
  assert_refused_quietly (sources, shortcut, f->scratch, FERRY_ERROR, FERRY_ERROR_INTO_ITSELF,
                          tree);
}

static gboolean
bind_source_folder (Fixture *f)
{
  g_autofree char *tree = make_small_tree (f->src, "tree");
  return mount_or_skip (f->src, f->mnt, NULL, MS_BIND, NULL);
}

/* f->mnt shows f->src: paths through it name the same inodes. */
static void
check_into_itself_through_bind (Fixture *f)
{
  g_autofree char *tree = g_build_filename (f->src, "tree", NULL);
  g_autofree char *tree_via_bind = g_build_filename (f->mnt, "tree", NULL);
  g_autofree char *inside_via_bind = g_build_filename (f->mnt, "tree", "a", NULL);
  g_autofree char *inside = g_build_filename (f->src, "tree", "a", "b", NULL);
  const char *sources[] = { tree, NULL };
  const char *sources_via_bind[] = { tree_via_bind, NULL };

  assert_refused_quietly (sources, inside_via_bind, f->src, FERRY_ERROR, FERRY_ERROR_INTO_ITSELF,
                          tree);
  assert_refused_quietly (sources, tree_via_bind, f->src, FERRY_ERROR, FERRY_ERROR_INTO_ITSELF,
                          tree);
  assert_refused_quietly (sources_via_bind, inside, f->src, FERRY_ERROR, FERRY_ERROR_INTO_ITSELF,
                          tree_via_bind);
}

static void
test_into_itself_through_bind_mount (Fixture *f, gconstpointer data)
{
  check_with_mount (f, bind_source_folder, check_into_itself_through_bind);
}

static gboolean
bind_folder_of_source (Fixture *f)
{
  g_autofree char *tree = make_small_tree (f->src, "tree");
  g_autofree char *inside = g_build_filename (tree, "a", NULL);

  return mount_or_skip (inside, f->mnt, NULL, MS_BIND, NULL);
}

/* f->mnt shows the folder "a" of the source: its ".." is f->mnt's
 * parent, not the source, so only where each lies in the filesystem
 * says the one is inside the other. Copied, the folder would meet its
 * own copy inside itself, again and again. */
static void
check_into_itself_through_bind_of_subfolder (Fixture *f)
{
  g_autofree char *tree = g_build_filename (f->src, "tree", NULL);
  g_autofree char *below = g_build_filename (f->mnt, "b", NULL);
  g_autofree char *new_name = g_build_filename (f->mnt, "copy-of-tree", NULL);
  const char *sources[] = { tree, NULL };
  g_autoptr (GError) error = NULL;

  error = assert_refused (sources, f->mnt, f->src, FERRY_ERROR, FERRY_ERROR_INTO_ITSELF, tree);
  assert_message_names (error, f->mnt);
  assert_refused_quietly (sources, below, f->src, FERRY_ERROR, FERRY_ERROR_INTO_ITSELF, tree);
  assert_refused_quietly (sources, new_name, f->src, FERRY_ERROR, FERRY_ERROR_INTO_ITSELF, tree);
}

static void
test_into_itself_through_bind_of_subfolder (Fixture *f, gconstpointer data)
{
  check_with_mount (f, bind_folder_of_source, check_into_itself_through_bind_of_subfolder);
}

/* ------------------------------------------------------------------ */
/* A file onto itself                                                  */

static void
test_same_file_same_path (Fixture *f, gconstpointer data)
{
  g_autofree char *file = g_build_filename (f->src, "a.txt", NULL);
  const char *sources[] = { file, NULL };

  ferry_test_write_text (file, "myself\n");
  assert_refused_quietly (sources, file, f->scratch, FERRY_ERROR, FERRY_ERROR_SAME_FILE, file);
  /* Into its own folder, under its own name. */
  assert_refused_quietly (sources, f->src, f->scratch, FERRY_ERROR, FERRY_ERROR_SAME_FILE, file);
}

/* A folder into the folder that already holds it: itself again. */
static void
test_folder_into_its_parent (Fixture *f, gconstpointer data)
{
  g_autofree char *tree = make_small_tree (f->src, "tree");
  g_autofree char *parent_with_slash = g_strconcat (f->src, "/", NULL);
  const char *sources[] = { tree, NULL };

  assert_refused_quietly (sources, f->src, f->scratch, FERRY_ERROR, FERRY_ERROR_SAME_FILE, tree);
  assert_refused_quietly (sources, parent_with_slash, f->scratch, FERRY_ERROR,
                          FERRY_ERROR_SAME_FILE, tree);
}

static void
test_same_file_hard_link (Fixture *f, gconstpointer data)
{
  g_autofree char *file = g_build_filename (f->src, "a.txt", NULL);
  g_autofree char *other_name = g_build_filename (f->dst, "b.txt", NULL);
  g_autofree char *same_name = g_build_filename (f->dst, "a.txt", NULL);
  const char *sources[] = { file, NULL };
  g_autoptr (GError) error = NULL;

  ferry_test_write_text (file, "two names\n");
  g_assert_cmpint (link (file, other_name), ==, 0);
  g_assert_cmpint (link (file, same_name), ==, 0);

  error
      = assert_refused (sources, other_name, f->scratch, FERRY_ERROR, FERRY_ERROR_SAME_FILE, file);
  assert_message_names (error, other_name);
  /* Into a folder that holds another link under the source's name. */
  assert_refused_quietly (sources, f->dst, f->scratch, FERRY_ERROR, FERRY_ERROR_SAME_FILE,
                          same_name);
}

static gboolean
bind_folder_with_file (Fixture *f)
{
  g_autofree char *file = g_build_filename (f->src, "a.txt", NULL);

  ferry_test_write_text (file, "seen twice\n");
  return mount_or_skip (f->src, f->mnt, NULL, MS_BIND, NULL);
}

static void
check_same_file_through_bind (Fixture *f)
{
  g_autofree char *file = g_build_filename (f->src, "a.txt", NULL);
  g_autofree char *file_via_bind = g_build_filename (f->mnt, "a.txt", NULL);
  const char *sources[] = { file, NULL };

  assert_refused_quietly (sources, file_via_bind, f->src, FERRY_ERROR, FERRY_ERROR_SAME_FILE, file);
  assert_refused_quietly (sources, f->mnt, f->src, FERRY_ERROR, FERRY_ERROR_SAME_FILE, file);
}

static void
test_same_file_through_bind_mount (Fixture *f, gconstpointer data)
{
  check_with_mount (f, bind_folder_with_file, check_same_file_through_bind);
}

/* ------------------------------------------------------------------ */
/* Missing paths                                                       */

static void
test_source_missing (Fixture *f, gconstpointer data)
{
  g_autofree char *missing = g_build_filename (f->src, "not-here.txt", NULL);
  g_autofree char *missing_parent = g_build_filename (f->src, "no-folder", "file", NULL);
  const char *sources[] = { missing, NULL };
  const char *deeper[] = { missing_parent, NULL };

  assert_refused_quietly (sources, f->dst, f->scratch, FERRY_ERROR, FERRY_ERROR_SOURCE_MISSING,
                          missing);
  assert_refused_quietly (deeper, f->dst, f->scratch, FERRY_ERROR, FERRY_ERROR_SOURCE_MISSING,
                          missing_parent);
}

/* One missing source stops the whole job before any other is copied. */
static void
test_source_missing_among_others (Fixture *f, gconstpointer data)
{
  g_autofree char *first = g_build_filename (f->src, "first.txt", NULL);
  g_autofree char *missing = g_build_filename (f->src, "gone.txt", NULL);
  g_autofree char *tree = make_small_tree (f->src, "tree");
  const char *missing_last[] = { first, tree, missing, NULL };
  const char *missing_first[] = { missing, first, tree, NULL };

  ferry_test_write_random (first, 300000, 3);
  assert_refused_quietly (missing_last, f->dst, f->scratch, FERRY_ERROR, FERRY_ERROR_SOURCE_MISSING,
                          missing);
  assert_refused_quietly (missing_first, f->dst, f->scratch, FERRY_ERROR,
                          FERRY_ERROR_SOURCE_MISSING, missing);
  g_assert_cmpuint (ferry_test_count_entries (f->dst), ==, 0);
}

static void
test_destination_folder_missing (Fixture *f, gconstpointer data)
{
  g_autofree char *file = g_build_filename (f->src, "a.txt", NULL);
  g_autofree char *folder = g_build_filename (f->scratch, "nowhere", NULL);
  g_autofree char *new_name = g_build_filename (folder, "a-copy.txt", NULL);
  g_autofree char *deeper_folder = g_build_filename (folder, "deeper", NULL);
  g_autofree char *deeper_name = g_build_filename (deeper_folder, "a-copy.txt", NULL);
  const char *sources[] = { file, NULL };

  ferry_test_write_text (file, "no place to go\n");
  assert_refused_quietly (sources, new_name, f->scratch, FERRY_ERROR, FERRY_ERROR_SOURCE_MISSING,
                          folder);
  assert_refused_quietly (sources, deeper_name, f->scratch, FERRY_ERROR, FERRY_ERROR_SOURCE_MISSING,
                          deeper_folder);
  g_assert_false (g_file_test (folder, G_FILE_TEST_EXISTS));
}

/* ------------------------------------------------------------------ */
/* A destination that cannot be written                                */

static void
check_permission_denied (Fixture *f)
{
  g_autofree char *file = g_build_filename (f->src, "a.txt", NULL);
  g_autofree char *new_name = g_build_filename (f->dst, "renamed.txt", NULL);
  g_autofree char *tree = g_build_filename (f->src, "tree", NULL);
  const char *sources[] = { file, NULL };
  const char *several[] = { file, tree, NULL };
  g_autoptr (GError) error = NULL;

  error = assert_refused (sources, f->dst, f->scratch, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                          f->dst);
  g_assert_nonnull (strstr (error->message, "permission"));
  assert_refused_quietly (sources, new_name, f->scratch, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                          f->dst);
  assert_refused_quietly (several, f->dst, f->scratch, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                          f->dst);
}

/* Root writes anywhere, so the check runs in a child without root. */
static void
test_permission_denied (Fixture *f, gconstpointer data)
{
  g_autofree char *file = g_build_filename (f->src, "a.txt", NULL);
  g_autofree char *tree = NULL;

  if (g_test_subprocess ())
    {
      drop_privileges ();
      check_permission_denied (f);
      return;
    }
  ferry_test_write_text (file, "nowhere to write\n");
  tree = make_small_tree (f->src, "tree");
  g_assert_cmpint (chmod (f->dst, 0555), ==, 0);
  if (!ferry_test_is_root ())
    {
      check_permission_denied (f);
      return;
    }
  run_in_child (f);
  g_test_trap_assert_passed ();
}

static gboolean
mount_read_only (Fixture *f)
{
  g_autofree char *file = g_build_filename (f->src, "a.txt", NULL);

  ferry_test_write_text (file, "read-only destination\n");
  return mount_or_skip ("tmpfs", f->mnt, "tmpfs", MS_RDONLY, "size=1m");
}

/* What the window asks of a read-only drive's folder, before anything
 * is dropped on it. */
static gboolean
folder_is_write_protected (const char *folder)
{
  int fd = open (folder, O_PATH | O_DIRECTORY | O_CLOEXEC);
  gboolean write_protected;

  g_assert_cmpint (fd, >=, 0);
  write_protected = ferry_device_is_write_protected_for_fd (fd);
  close (fd);
  return write_protected;
}

static void
check_read_only (Fixture *f)
{
  g_autofree char *file = g_build_filename (f->src, "a.txt", NULL);
  const char *sources[] = { file, NULL };
  g_autoptr (GError) error = NULL;
  g_autofree char *lower = NULL;

  error = assert_refused (sources, f->mnt, f->mnt, G_IO_ERROR, G_IO_ERROR_READ_ONLY, f->mnt);
  lower = g_ascii_strdown (error->message, -1);
  g_assert_nonnull (strstr (lower, "read-only"));
  g_assert_null (strstr (lower, "write-protected"));
  g_assert_false (folder_is_write_protected (f->mnt));
  g_assert_cmpuint (ferry_test_count_entries (f->mnt), ==, 0);
}

static void
test_read_only_mount (Fixture *f, gconstpointer data)
{
  check_with_mount (f, mount_read_only, check_read_only);
}

/* An ext4 image of @size, made with mkfs.ext4 @mkfs_options, mounted
 * with @mount_options on a loop device, which goes with the unmount. */
static gboolean
mount_ext4 (Fixture *f, const char *size, const char *mkfs_options, const char *mount_options)
{
  g_autofree char *image = g_build_filename (f->scratch, "drive.img", NULL);
  g_autofree char *mkfs
      = g_strdup_printf ("mkfs.ext4 -q -F %s '%s' %s", mkfs_options, image, size);
  g_autofree char *mount
      = g_strdup_printf ("mount -o loop%s '%s' '%s'", mount_options, image, f->mnt);
  int status;

  ferry_test_make_dirs (f->mnt);
  if (!g_spawn_command_line_sync (mkfs, NULL, NULL, &status, NULL)
      || !g_spawn_check_wait_status (status, NULL))
    {
      g_test_skip ("mkfs.ext4 is not there to make a drive image");
      return FALSE;
    }
  if (!g_spawn_command_line_sync (mount, NULL, NULL, &status, NULL)
      || !g_spawn_check_wait_status (status, NULL))
    {
      g_test_skip ("a loop device cannot be made here");
      return FALSE;
    }
  return TRUE;
}

/* A drive that refuses writes itself (an SD card's lock switch on): an
 * ext4 image on a loop device made read-only, as the kernel makes a
 * locked card's device. */
static gboolean
mount_write_protected (Fixture *f)
{
  ferry_test_write_text (ferry_test_path (f->src, "a.txt", NULL), "to a locked card\n");
  return mount_ext4 (f, "8M", "", ",ro");
}

/* Said to be write-protected, with the way out a person would not guess. */
static void
check_write_protected (Fixture *f)
{
  const char *sources[] = { ferry_test_path (f->src, "a.txt", NULL), NULL };
  g_autoptr (GError) error = NULL;

  error = assert_refused (sources, f->mnt, f->mnt, G_IO_ERROR, G_IO_ERROR_READ_ONLY, f->mnt);
  assert_message_names (error, "its drive is write-protected. If it is an SD card or has a lock "
                               "switch, slide the switch to unlock it and plug it in again");
  g_assert_true (folder_is_write_protected (f->mnt));
}

static void
test_write_protected (Fixture *f, gconstpointer data)
{
  check_with_mount (f, mount_write_protected, check_write_protected);
}

/* ------------------------------------------------------------------ */
/* Not enough room                                                     */

#define BIG_FILE_SIZE (4 * 1024 * 1024)
#define N_BIG_FILES   3
#define N_SMALL_FILES 200

static gboolean
mount_small_tmpfs_for_big_tree (Fixture *f)
{
  g_autofree char *tree = g_build_filename (f->src, "big", NULL);

  ferry_test_make_dirs (tree);
  for (guint i = 0; i < N_BIG_FILES; i++)
    {
      g_autofree char *name = g_strdup_printf ("part-%u.bin", i);
      g_autofree char *path = g_build_filename (tree, name, NULL);
      ferry_test_write_random (path, BIG_FILE_SIZE, 40 + i);
    }
  return mount_or_skip ("tmpfs", f->mnt, "tmpfs", 0, "size=8m");
}

static void
check_not_enough_space (Fixture *f)
{
  g_autofree char *tree = g_build_filename (f->src, "big", NULL);
  const char *sources[] = { tree, NULL };
  g_autoptr (GError) error = NULL;
  g_autofree char *needed = NULL;
  g_autofree char *available = NULL;
  struct statvfs vfs;

  g_assert_cmpint (statvfs (f->mnt, &vfs), ==, 0);
  /* The data, plus a block for the folder; root may use every free block. */
  needed = g_format_size ((guint64) N_BIG_FILES * BIG_FILE_SIZE + 4096);
  available = g_format_size ((guint64) vfs.f_bfree * vfs.f_frsize);

  error
      = assert_refused (sources, f->mnt, f->mnt, FERRY_ERROR, FERRY_ERROR_NOT_ENOUGH_SPACE, f->mnt);
  assert_message_names (error, needed);
  assert_message_names (error, available);
  /* what to do, not only what is wrong */
  g_assert_true (g_str_has_suffix (error->message, ". Make room there, or choose another destination."));
  g_assert_null (strstr (error->message, "Trash"));
  g_assert_cmpuint (ferry_test_count_entries (f->mnt), ==, 0);
  g_assert_cmpuint (ferry_test_count_temp_files (f->mnt), ==, 0);
}

static void
test_not_enough_space (Fixture *f, gconstpointer data)
{
  check_with_mount (f, mount_small_tmpfs_for_big_tree, check_not_enough_space);
}

/* The big tree copied once already, one more file added to it since:
 * copied again onto the 8 MiB drive, the files there take no more room
 * where they are skipped ("skip", and "newer" for files no newer), and
 * the copy fits. Replaced, each new copy is written beside the file it
 * replaces, and keeping both copies of each takes room for both: those
 * do not fit. */
static gboolean
mount_small_tmpfs_with_copy (Fixture *f)
{
  g_autofree char *tree = g_build_filename (f->src, "big", NULL);
  const char *sources[] = { tree, NULL };
  g_autoptr (FerryJob) job = NULL;
  g_autoptr (GError) error = NULL;

  if (!mount_small_tmpfs_for_big_tree (f))
    return FALSE;
  /* One part of the three: 4 MiB of 8. */
  g_assert_no_errno (unlink (ferry_test_path (tree, "part-1.bin", NULL)));
  g_assert_no_errno (unlink (ferry_test_path (tree, "part-2.bin", NULL)));
  job = ferry_test_job_new (sources, f->mnt);
  g_assert_true (ferry_test_run_job (job, &error));
  g_assert_no_error (error);
  ferry_test_write_random (ferry_test_path (tree, "new.bin", NULL), BIG_FILE_SIZE / 4, 49);
  return TRUE;
}

static void
check_room_of_files_there (Fixture *f)
{
  g_autofree char *tree = g_build_filename (f->src, "big", NULL);
  g_autofree char *copy = g_build_filename (f->mnt, "big", NULL);
  const char *sources[] = { tree, NULL };
  const FerryConflictPolicy refused[] = { FERRY_CONFLICT_POLICY_KEEP_BOTH,
                                          FERRY_CONFLICT_POLICY_OVERWRITE };
  const FerryConflictPolicy fitting[] = { FERRY_CONFLICT_POLICY_NEWER, FERRY_CONFLICT_POLICY_SKIP };

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr (FerryJob) job = ferry_test_job_new (sources, f->mnt);
      g_autoptr (GError) error = NULL;

      ferry_job_set_conflict_policy (job, refused[i]);
      error = run_refused (job);
      g_assert_error (error, FERRY_ERROR, FERRY_ERROR_NOT_ENOUGH_SPACE);
    }
  g_assert_false (g_file_test (ferry_test_path (copy, "new.bin", NULL), G_FILE_TEST_EXISTS));
  for (guint i = 0; i < G_N_ELEMENTS (fitting); i++)
    {
      g_autoptr (FerryJob) job = ferry_test_job_new (sources, f->mnt);
      g_autoptr (GError) error = NULL;

      ferry_job_set_conflict_policy (job, fitting[i]);
      g_assert_true (ferry_test_run_job (job, &error));
      g_assert_no_error (error);
      ferry_test_assert_trees_equal (tree, copy, FERRY_TEST_COMPARE_CONTENT);
    }
  g_assert_cmpuint (ferry_test_count_temp_files (f->mnt), ==, 0);
}

static void
test_room_of_files_there (Fixture *f, gconstpointer data)
{
  check_with_mount (f, mount_small_tmpfs_with_copy, check_room_of_files_there);
}

/* Copies @sources onto the stick: either refused before anything is
 * written, or copied whole; never out of space halfway. TRUE when it
 * was copied. */
static gboolean
copy_fits_or_is_refused (Fixture *f, const char *const *sources)
{
  g_autofree char *before = ferry_test_describe_tree (f->mnt);
  g_autoptr (FerryJob) job = ferry_test_job_new (sources, f->mnt);
  g_autoptr (GError) error = NULL;
  g_autofree char *after = NULL;

  if (ferry_test_run_job (job, &error))
    return TRUE;
  g_assert_error (error, FERRY_ERROR, FERRY_ERROR_NOT_ENOUGH_SPACE);
  after = ferry_test_describe_tree (f->mnt);
  g_assert_cmpstr (after, ==, before);
  return FALSE;
}

static guint64
available_to_users (const char *path)
{
  struct statvfs vfs;

  g_assert_no_errno (statvfs (path, &vfs));
  return (guint64) vfs.f_bavail * vfs.f_frsize;
}

/* The blocks of a file deleted on the stick free again, as they are
 * once its journal commits; a sync of that filesystem alone, where
 * sync() waited for every disk of a busy machine. */
static void
sync_stick (const char *mount_point)
{
  int fd = open (mount_point, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  g_assert_no_errno (syncfs (fd));
  g_assert_no_errno (close (fd));
}

/* One file, its size around what the stick has free (the tester's 49.5
 * to 50.4 MB on a 60 MB stick): root cannot fill the clusters ext4 keeps,
 * and a file of ten extents takes a block to map them. */
static void
test_ext4_file_at_the_edge (Fixture *f, gconstpointer data)
{
  g_autofree char *workdir = g_build_filename (f->scratch, "stick", NULL);
  /* 1 KiB blocks, 1,171 of them kept by ext4 for its metadata */
  FerryTestStickOptions options = { .workdir = workdir,
                                    .mountpoint = f->mnt,
                                    .label = "EDGE",
                                    .size_bytes = 60 * 1000 * 1000,
                                    .rate_bytes_per_sec = 200 * 1000 * 1000 };
  g_autoptr (FerryTestStick) stick = ferry_test_stick_new_or_skip_full (&options);
  g_autofree char *file = g_build_filename (f->src, "f.bin", NULL);
  g_autofree char *copy = g_build_filename (f->mnt, "f.bin", NULL);
  const char *sources[] = { file, NULL };
  guint64 available;
  guint copied = 0, refused = 0;

  if (stick == NULL)
    return;
  available = available_to_users (f->mnt);

  ferry_test_write_random (file, available + 8192, 52);
  for (gint64 delta = 8192; delta >= -16384; delta -= 2048)
    {
      g_assert_no_errno (truncate (file, available + delta));
      if (!copy_fits_or_is_refused (f, sources))
        {
          refused++;
          continue;
        }
      ferry_test_assert_files_equal (file, copy);
      g_assert_no_errno (unlink (copy));
      sync_stick (f->mnt);
      copied++;
    }
  g_assert_cmpuint (copied, >, 0);
  g_assert_cmpuint (refused, >, 0);
}

/* 3,000 empty files in one folder take no room for data, but their
 * entries (28 bytes each for these names) grow the folder to 28 blocks
 * and more. */
#define N_EMPTY_FILES 3000

static gboolean
mount_ext4_for_entries (Fixture *f)
{
  g_autofree char *tree = g_build_filename (f->src, "many", NULL);

  ferry_test_make_dirs (tree);
  for (guint i = 0; i < N_EMPTY_FILES; i++)
    {
      g_autofree char *name = g_strdup_printf ("empty-file-%05u.txt", i);
      ferry_test_write_text (ferry_test_path (tree, name, NULL), "");
    }
  /* as ferry-stick-run makes one, with 4 KiB blocks */
  return mount_ext4 (f, "16M", "-m 0 -b 4096 -N 8192", "");
}

/* A file that leaves about @keep bytes for anyone to write. */
static char *
fill_leaving_available (const char *dir, guint64 keep)
{
  char *path = g_build_filename (dir, "filler.bin", NULL);
  int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  guint64 size = available_to_users (dir) - keep;

  g_assert_cmpint (fd, >=, 0);
  /* its own map takes a block or two */
  while (posix_fallocate (fd, 0, (off_t) size) == ENOSPC)
    size -= 4096;
  g_assert_no_errno (close (fd));
  return path;
}

/* With the stick filled to a few blocks of what the entries take, and
 * then to a little more, the folder is refused or copied whole. */
static void
check_folder_entries (Fixture *f)
{
  g_autofree char *tree = g_build_filename (f->src, "many", NULL);
  g_autofree char *copy = g_build_filename (f->mnt, "many", NULL);
  const char *sources[] = { tree, NULL };
  const guint64 keep[] = { 64 * 1024, 96 * 1024, 256 * 1024 };
  guint copied = 0;

  for (guint i = 0; i < G_N_ELEMENTS (keep); i++)
    {
      g_autofree char *filler = fill_leaving_available (f->mnt, keep[i]);

      sync_stick (f->mnt);
      if (copy_fits_or_is_refused (f, sources))
        {
          ferry_test_assert_trees_equal (tree, copy, FERRY_TEST_COMPARE_CONTENT);
          ferry_test_remove_tree (copy);
          copied++;
        }
      g_assert_no_errno (unlink (filler));
      sync_stick (f->mnt);
    }
  g_assert_cmpuint (copied, >, 0);
}

static void
test_ext4_folder_entries (Fixture *f, gconstpointer data)
{
  check_with_mount (f, mount_ext4_for_entries, check_folder_entries);
}

/* A video deleted in a file manager, 5 MB, still in the Trash on the
 * drive (@trash, below the mount) or at home: a 6 MB copy does not fit in
 * what is left of 8 MiB, and would once the Trash is emptied. */
#define TRASHED_SIZE 5000000
#define VIDEO_SIZE   6000000

static void
put_in_trash (const char *trash)
{
  g_autofree char *files = g_build_filename (trash, "files", NULL);
  g_autofree char *info = g_build_filename (trash, "info", NULL);

  ferry_test_make_dirs (files);
  ferry_test_make_dirs (info);
  ferry_test_write_random (ferry_test_path (files, "holiday.mp4", NULL), TRASHED_SIZE, 50);
  ferry_test_write_text (ferry_test_path (info, "holiday.mp4.trashinfo", NULL),
                         "[Trash Info]\nPath=/Videos/holiday.mp4\n"
                         "DeletionDate=2026-12-01T10:00:00\n");
}

static gboolean
mount_tmpfs_for_video (Fixture *f)
{
  ferry_test_write_random (ferry_test_path (f->src, "video.mp4", NULL), VIDEO_SIZE, 51);
  if (!mount_or_skip ("tmpfs", f->mnt, "tmpfs", 0, "size=8m"))
    return FALSE;
  ferry_test_make_dirs (ferry_test_path (f->mnt, "Videos", NULL));
  return TRUE;
}

/* In the drive's own Trash folder (.Trash-$uid), where GNOME Files puts
 * what is deleted on a stick. */
static gboolean
mount_tmpfs_with_trash_on_drive (Fixture *f)
{
  g_autofree char *own = g_strdup_printf (".Trash-%u", (guint) getuid ());

  if (!mount_tmpfs_for_video (f))
    return FALSE;
  put_in_trash (ferry_test_path (f->mnt, own, NULL));
  return TRUE;
}

/* In the Trash an administrator made for everyone on the drive, in the
 * person's folder of it (.Trash/$uid). */
static gboolean
mount_tmpfs_with_shared_trash (Fixture *f)
{
  g_autofree char *uid = g_strdup_printf ("%u", (guint) getuid ());

  if (!mount_tmpfs_for_video (f))
    return FALSE;
  put_in_trash (ferry_test_path (f->mnt, ".Trash", uid, NULL));
  g_assert_cmpint (chmod (ferry_test_path (f->mnt, ".Trash", NULL), 01777), ==, 0);
  return TRUE;
}

/* In the home Trash ($XDG_DATA_HOME/Trash) on the destination's
 * filesystem: the child that checks is given that home. */
static gboolean
mount_tmpfs_with_trash_at_home (Fixture *f)
{
  const char *data_home = ferry_test_path (f->mnt, "home", ".local", "share", NULL);

  if (!mount_tmpfs_for_video (f))
    return FALSE;
  put_in_trash (ferry_test_path (data_home, "Trash", NULL));
  g_setenv ("XDG_DATA_HOME", data_home, TRUE);
  return TRUE;
}

/* The refusal says how much emptying the Trash would free, and nothing
 * is written, the Trash left as it was. */
static void
check_not_enough_space_but_trash (Fixture *f)
{
  const char *sources[] = { ferry_test_path (f->src, "video.mp4", NULL), NULL };
  const char *videos = ferry_test_path (f->mnt, "Videos", NULL);
  g_autoptr (GError) error = NULL;
  /* The trashed file's data in whole blocks, its record, and the three
   * folders of the Trash. */
  g_autofree char *trash = g_format_size ((TRASHED_SIZE + 4095) / 4096 * 4096 + 4 * 4096);
  g_autofree char *frees = g_strdup_printf ("emptying the Trash would free %s more", trash);

  error = assert_refused (sources, videos, f->mnt, FERRY_ERROR, FERRY_ERROR_NOT_ENOUGH_SPACE, videos);
  assert_message_names (error, frees);
  g_assert_cmpuint (ferry_test_count_entries (videos), ==, 0);
}

static void
test_trash_on_drive (Fixture *f, gconstpointer data)
{
  check_with_mount (f, mount_tmpfs_with_trash_on_drive, check_not_enough_space_but_trash);
}

static void
test_trash_shared (Fixture *f, gconstpointer data)
{
  check_with_mount (f, mount_tmpfs_with_shared_trash, check_not_enough_space_but_trash);
}

static void
test_trash_at_home (Fixture *f, gconstpointer data)
{
  check_with_mount (f, mount_tmpfs_with_trash_at_home, check_not_enough_space_but_trash);
  g_unsetenv ("XDG_DATA_HOME");
}

/* Plenty of bytes (more than the source's whole filesystem holds, so the
 * byte count alone would let the copy start at once) but room for only
 * 63 more files. */
static gboolean
mount_tmpfs_with_few_inodes (Fixture *f)
{
  g_autofree char *tree = g_build_filename (f->src, "many", NULL);

  ferry_test_make_dirs (tree);
  for (guint i = 0; i < N_SMALL_FILES; i++)
    {
      g_autofree char *name = g_strdup_printf ("empty-%03u", i);
      g_autofree char *path = g_build_filename (tree, name, NULL);
      ferry_test_write_text (path, "");
    }
  return mount_or_skip ("tmpfs", f->mnt, "tmpfs", 0, "size=1t,nr_inodes=64");
}

static void
check_too_many_files (Fixture *f)
{
  g_autofree char *tree = g_build_filename (f->src, "many", NULL);
  const char *sources[] = { tree, NULL };
  g_autoptr (GError) error = NULL;
  g_autofree char *files = g_strdup_printf ("%u", N_SMALL_FILES + 1);
  g_autofree char *room = NULL;
  struct statvfs vfs;

  g_assert_cmpint (statvfs (f->mnt, &vfs), ==, 0);
  g_assert_cmpuint (vfs.f_favail, <, N_SMALL_FILES);
  room = g_strdup_printf ("%" G_GUINT64_FORMAT, (guint64) vfs.f_favail);

  error
      = assert_refused (sources, f->mnt, f->mnt, FERRY_ERROR, FERRY_ERROR_NOT_ENOUGH_SPACE, f->mnt);
  assert_message_names (error, files);
  assert_message_names (error, room);
  g_assert_cmpuint (ferry_test_count_entries (f->mnt), ==, 0);
}

static void
test_too_many_files (Fixture *f, gconstpointer data)
{
  check_with_mount (f, mount_tmpfs_with_few_inodes, check_too_many_files);
}

/* ------------------------------------------------------------------ */
/* Bad usage                                                           */

static void
test_several_sources_into_non_folder (Fixture *f, gconstpointer data)
{
  g_autofree char *a = g_build_filename (f->src, "a.txt", NULL);
  g_autofree char *b = g_build_filename (f->src, "b.txt", NULL);
  g_autofree char *file = g_build_filename (f->dst, "c.txt", NULL);
  g_autofree char *missing = g_build_filename (f->dst, "new", NULL);
  const char *sources[] = { a, b, NULL };

  ferry_test_write_text (a, "A\n");
  ferry_test_write_text (b, "B\n");
  ferry_test_write_text (file, "C\n");
  assert_refused_quietly (sources, file, f->scratch, FERRY_ERROR, FERRY_ERROR_INVALID_ARGUMENT,
                          file);
  assert_refused_quietly (sources, missing, f->scratch, FERRY_ERROR, FERRY_ERROR_INVALID_ARGUMENT,
                          missing);
}

static void
test_folder_onto_file (Fixture *f, gconstpointer data)
{
  g_autofree char *tree = make_small_tree (f->src, "tree");
  g_autofree char *file = g_build_filename (f->dst, "tree", NULL);
  const char *sources[] = { tree, NULL };

  ferry_test_write_text (file, "a file, not a folder\n");
  assert_refused_quietly (sources, file, f->scratch, FERRY_ERROR, FERRY_ERROR_EXISTS, file);
}

/* A copy within one filesystem that has more room than it holds in all
 * cannot run out of space: it starts at once, not once the scan of its
 * sources has counted them (which on a tree of many files took longer
 * than a tenth of the copy). */
static void
test_room_within_one_filesystem (Fixture *f, gconstpointer data)
{
  g_autofree char *tree = g_build_filename (f->src, "tree", NULL);
  const char *sources[] = { tree, NULL };
  g_autoptr (FerryPlan) plan = NULL;
  g_autoptr (GError) error = NULL;
  struct statvfs vfs;
  guint64 used, available;

  ferry_test_make_dirs (tree);
  ferry_test_write_random (ferry_test_path (tree, "a.bin", NULL), 1000, 1);
  plan = ferry_plan_resolve (sources, f->dst, FERRY_DESTINATION_AS_FOUND, &error);
  g_assert_no_error (error);
  g_assert_cmpint (statvfs (f->dst, &vfs), ==, 0);
  used = (guint64) (vfs.f_blocks - vfs.f_bfree) * vfs.f_frsize;
  available = (guint64) (geteuid () == 0 ? vfs.f_bfree : vfs.f_bavail) * vfs.f_frsize;
  if (used + used / 4 >= available || vfs.f_files - vfs.f_ffree >= vfs.f_favail)
    {
      g_test_skip ("the scratch folder's filesystem is more than half full");
      return;
    }
  g_assert_cmpuint (((FerrySourceRoot *) g_ptr_array_index (plan->roots, 0))->st.st_dev, ==,
                    plan->dst_st.st_dev);
  g_assert_true (ferry_plan_surely_fits (plan));
}

/* ------------------------------------------------------------------ */
/* Dry run                                                             */

static void
test_dry_run_totals (Fixture *f, gconstpointer data)
{
  g_autofree char *tree = g_build_filename (f->src, "tree", NULL);
  g_autofree char *sub = g_build_filename (tree, "sub", NULL);
  g_autofree char *p = NULL;
  const char *sources[] = { tree, NULL };
  g_autoptr (FerryJob) job = ferry_test_job_new (sources, f->dst);
  g_autoptr (GError) error = NULL;
  g_auto (FerryProgress) progress = { 0 };
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

#define AT(...) (g_free (p), p = g_build_filename (tree, __VA_ARGS__, NULL))
  ferry_test_make_dirs (sub);
  ferry_test_write_random (AT ("a.bin"), 1000, 1);
  ferry_test_write_random (AT ("b.bin"), 70000, 2);
  ferry_test_write_text (AT ("empty"), "");
  ferry_test_write_random (AT ("sub", "c.bin"), 4097, 3);
  g_assert_cmpint (symlink ("../a.bin", AT ("sub", "link")), ==, 0);
  {
    g_autofree char *b = g_build_filename (tree, "b.bin", NULL);
    /* A second name of b.bin: an entry to handle, but no more data. */
    g_assert_cmpint (link (b, AT ("sub", "hard")), ==, 0);
  }
#undef AT

  before = ferry_test_describe_tree (f->scratch);
  ferry_job_set_dry_run (job, TRUE);
  g_assert_true (ferry_test_run_job (job, &error));
  g_assert_no_error (error);
  after = ferry_test_describe_tree (f->scratch);
  g_assert_cmpstr (after, ==, before);

  ferry_job_get_progress (job, &progress);
  g_assert_cmpint (progress.phase, ==, FERRY_PHASE_DONE);
  g_assert_true (progress.planning_done);
  /* tree, sub, a.bin, b.bin, empty, c.bin, link, hard */
  g_assert_cmpuint (progress.files_total, ==, 8);
  g_assert_cmpuint (progress.bytes_total, ==, 1000 + 70000 + 4097);
  g_assert_cmpuint (progress.bytes_written, ==, 0);
  g_assert_cmpuint (progress.files_failed, ==, 0);
  g_assert_cmpuint (ferry_test_count_entries (f->dst), ==, 0);
}

/* A dry run answers what the real run would: refusals included. */
static void
test_dry_run_still_refuses (Fixture *f, gconstpointer data)
{
  g_autofree char *tree = make_small_tree (f->src, "tree");
  g_autofree char *inside = g_build_filename (tree, "a", NULL);
  g_autofree char *missing = g_build_filename (f->src, "missing", NULL);
  const char *sources[] = { tree, NULL };
  const char *missing_sources[] = { tree, missing, NULL };
  g_autofree char *before = ferry_test_describe_tree (f->scratch);
  g_autofree char *after = NULL;
  g_autoptr (FerryJob) job = ferry_test_job_new (sources, inside);
  g_autoptr (FerryJob) job_missing = ferry_test_job_new (missing_sources, f->dst);
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) error_missing = NULL;

  ferry_job_set_dry_run (job, TRUE);
  error = run_refused (job);
  g_assert_error (error, FERRY_ERROR, FERRY_ERROR_INTO_ITSELF);

  ferry_job_set_dry_run (job_missing, TRUE);
  error_missing = run_refused (job_missing);
  g_assert_error (error_missing, FERRY_ERROR, FERRY_ERROR_SOURCE_MISSING);
  assert_message_names (error_missing, missing);

  after = ferry_test_describe_tree (f->scratch);
  g_assert_cmpstr (after, ==, before);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ferry_engine_init ();

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/refuse/into-itself/same-folder", test_into_itself_same_folder);
  ADD ("/refuse/into-itself/subtree", test_into_itself_subtree);
  ADD ("/refuse/into-itself/through-symlink", test_into_itself_through_symlink);
  ADD ("/refuse/into-itself/through-bind-mount", test_into_itself_through_bind_mount);
  ADD ("/refuse/into-itself/through-bind-of-subfolder",
       test_into_itself_through_bind_of_subfolder);
  ADD ("/refuse/same-file/same-path", test_same_file_same_path);
  ADD ("/refuse/same-file/folder-into-its-parent", test_folder_into_its_parent);
  ADD ("/refuse/same-file/hard-link", test_same_file_hard_link);
  ADD ("/refuse/same-file/through-bind-mount", test_same_file_through_bind_mount);
  ADD ("/refuse/missing/source", test_source_missing);
  ADD ("/refuse/missing/source-among-others", test_source_missing_among_others);
  ADD ("/refuse/missing/destination-folder", test_destination_folder_missing);
  ADD ("/refuse/not-writable/permission", test_permission_denied);
  ADD ("/refuse/not-writable/read-only-mount", test_read_only_mount);
  ADD ("/refuse/not-writable/write-protected", test_write_protected);
  ADD ("/refuse/no-room/bytes", test_not_enough_space);
  ADD ("/refuse/no-room/files", test_too_many_files);
  ADD ("/refuse/no-room/files-already-there", test_room_of_files_there);
  ADD ("/refuse/no-room/trash-on-drive", test_trash_on_drive);
  ADD ("/refuse/no-room/trash-shared", test_trash_shared);
  ADD ("/refuse/no-room/trash-at-home", test_trash_at_home);
  ADD ("/refuse/no-room/room-within-one-filesystem", test_room_within_one_filesystem);
  ADD ("/refuse/no-room/ext4-file-at-the-edge", test_ext4_file_at_the_edge);
  ADD ("/refuse/no-room/ext4-folder-entries", test_ext4_folder_entries);
  ADD ("/refuse/usage/several-sources-into-non-folder", test_several_sources_into_non_folder);
  ADD ("/refuse/usage/folder-onto-file", test_folder_onto_file);
  ADD ("/refuse/dry-run/totals", test_dry_run_totals);
  ADD ("/refuse/dry-run/still-refuses", test_dry_run_still_refuses);
#undef ADD

  return g_test_run ();
}
