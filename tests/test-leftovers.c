/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What a copy killed with SIGKILL leaves behind (issue 14): temporary
 * files, which the next run into the same folder removes (counting them
 * as free space first), and folders, which are never left where their
 * owner cannot open them, and which a later complete run gives the
 * source's mode and times.
 *
 * Every kill lands at a known point: once a temporary file on a
 * throttled exFAT stick has reached a size (it cannot finish before the
 * throttle lets it), or by strace injecting SIGKILL into the Nth call of
 * a system call. Sticks need root; strace needs ptrace. Tests that cannot
 * have them skip, saying why.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ferry-test-stick.h"
#include "ferry-test-util.h"

#define MB       1000000
#define MIB      (1024 * 1024)
#define NOBODY   65534
#define UMASK    022
#define DEADLINE (120 * G_USEC_PER_SEC)

typedef FerryTestFixture Fixture;

/* A NULL-terminated argument list, for the arguments after "ferry-copy". */
#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* ------------------------------------------------------------------ */
/* Running ferry-copy                                                  */

static void
child_setup (gpointer data)
{
  umask (UMASK);
}

/* Runs ferry-copy (under @prefix) to its end with umask 022 and no
 * input; returns its wait status, standard error in @err. */
static int
run_copy_under (const char *const *prefix, const char *const *args, char **err)
{
  g_auto (GStrv) argv = ferry_test_copy_argv (prefix, args);
  g_autoptr (GError) error = NULL;
  int status;

  g_spawn_sync (NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDIN_FROM_DEV_NULL,
                child_setup, NULL, NULL, err, &status, &error);
  g_assert_no_error (error);
  return status;
}

/* Runs ferry-copy and expects it to succeed. */
static void
copy_ok (const char *const *args)
{
  g_autofree char *err = NULL;
  int status = run_copy_under (NULL, args, &err);

  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    g_error ("ferry-copy failed (wait status %d):\n%s", status, err);
}

/* Runs ferry-copy until its @nth call of @call, which gets SIGKILL
 * instead of running (all threads followed). */
static void
copy_killed_at (const char *call, guint nth, const char *const *args)
{
  g_autofree char *strace = ferry_test_strace_path ();
  g_autofree char *trace = g_strdup_printf ("trace=%s", call);
  g_autofree char *inject = g_strdup_printf ("inject=%s:signal=KILL:when=%u", call, nth);
  const char *prefix[] = { strace, "-f", "-qq", "-o", "/dev/null", "-e", trace, "-e", inject, NULL };
  g_autofree char *err = NULL;
  int status = run_copy_under (prefix, args, &err);

  /* strace ends itself with the signal its tracee died of. */
  if (!WIFSIGNALED (status) || WTERMSIG (status) != SIGKILL)
    g_error ("ferry-copy was not killed at %s #%u (wait status %d):\n%s", call, nth, status, err);
}

/* ------------------------------------------------------------------ */
/* Temporary files                                                     */

/* The boot, as a temporary file's name gives it: the first 8 hex digits
 * of the kernel's boot id. */
static char *
boot_tag (void)
{
  g_autofree char *text = NULL;

  g_assert_true (g_file_get_contents ("/proc/sys/kernel/random/boot_id", &text, NULL, NULL));
  return g_strndup (text, 8);
}

/* Field 22 of /proc/self/stat: when this process started. */
static char *
own_start_time (void)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) fields = NULL;

  g_assert_true (g_file_get_contents ("/proc/self/stat", &text, NULL, NULL));
  fields = g_strsplit (strrchr (text, ')') + 2, " ", 0);
  return g_strdup (fields[19]);
}

/* A pid no process has now: a child that has been waited for. */
static int
dead_pid (void)
{
  pid_t pid = fork ();
  int status;

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    _exit (0);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  return pid;
}

/* A name as Ferry gives its temporary files: .ferry-BOOT-PID-START-RANDOM.part */
static char *
temp_name (const char *boot, int pid, const char *start, const char *random)
{
  return g_strdup_printf (".ferry-%s-%d-%s-%s.part", boot, pid, start, random);
}

/* The one temporary file directly in @dir, or NULL. */
static char *
find_temp (const char *dir)
{
  g_autoptr (GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;
  char *found = NULL;

  while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
    if (g_str_has_prefix (name, ".ferry-") && g_str_has_suffix (name, ".part"))
      {
        g_assert_null (found);
        found = g_build_filename (dir, name, NULL);
      }
  return found;
}

static guint64
file_size (const char *path)
{
  struct stat st;

  return stat (path, &st) == 0 ? (guint64) st.st_size : 0;
}

/* Waits until ferry-copy's temporary file in @dir holds @at_least bytes,
 * failing if the copy ends first; returns its path. */
static char *
wait_for_temp (GSubprocess *process, const char *dir, guint64 at_least)
{
  gint64 deadline = g_get_monotonic_time () + DEADLINE;

  for (;;)
    {
      g_autofree char *temp = find_temp (dir);

      if (temp != NULL && file_size (temp) >= at_least)
        return g_steal_pointer (&temp);
      if (g_subprocess_get_identifier (process) == NULL)
        g_error ("ferry-copy ended before its temporary file in %s held %" G_GUINT64_FORMAT
                 " bytes",
                 dir, at_least);
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_usleep (10000);
    }
}

static void
kill_copy (GSubprocess *process)
{
  g_autoptr (GError) error = NULL;

  g_subprocess_force_exit (process);
  g_subprocess_wait (process, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_signaled (process));
}

static guint64
free_bytes (const char *dir)
{
  struct statvfs vfs;

  g_assert_cmpint (statvfs (dir, &vfs), ==, 0);
  return (guint64) vfs.f_bfree * vfs.f_frsize;
}

/* Leaves @keep bytes free on the filesystem of @dir, with a file @path. */
static void
fill_to (const char *dir, const char *path, guint64 keep)
{
  guint64 now = free_bytes (dir);

  g_assert_cmpuint (now, >, keep);
  ferry_test_write_random (path, now - keep, 99);
  g_assert_cmpint (truncate (path, now - keep), ==, 0);
  sync ();
  g_test_message ("%" G_GUINT64_FORMAT " bytes free after filling", free_bytes (dir));
}

static FerryTestStick *
new_stick (const char *scratch, FerryTestStickFs fs, guint64 size, guint64 rate)
{
  g_autofree char *workdir = g_build_filename (scratch, "stick", NULL);
  FerryTestStickOptions options = {
    .workdir = workdir,
    .label = "LEFTOVERS",
    .size_bytes = size,
    .rate_bytes_per_sec = rate,
    .fs = fs,
  };

  return ferry_test_stick_new_or_skip_full (&options);
}

/* Six kills during a 120 MB overwrite left six temporary files on an
 * exFAT stick, and later runs were refused for want of space. Now a
 * file killed mid-copy is removed by the next run, which counts its
 * space as free: here the copy fits only that way. */
static void
test_stale_temp_exfat (Fixture *f, gconstpointer data)
{
  g_autofree char *big = g_build_filename (f->src, "big.bin", NULL);
  g_autoptr (FerryTestStick) stick = new_stick (f->scratch, FERRY_TEST_STICK_FS_EXFAT, 96 * MB, 8 * MB);
  g_autoptr (GSubprocess) process = NULL;
  g_autofree char *temp = NULL;
  g_autofree char *filler = NULL;
  g_autofree char *err = NULL;
  const char *mnt;
  int status;

  if (stick == NULL)
    return;
  mnt = ferry_test_stick_get_mountpoint (stick);
  ferry_test_write_random (big, 40 * MB, 1);
  process = ferry_test_spawn_copy (NULL, ARGS ("--progress=none", "--device=slow", big, mnt));
  temp = wait_for_temp (process, mnt, 24 * MB);
  kill_copy (process);
  g_assert_true (g_file_test (temp, G_FILE_TEST_IS_REGULAR));
  g_assert_false (g_file_test (ferry_test_path (mnt, "big.bin", NULL), G_FILE_TEST_EXISTS));

  /* 20 MB free and at least 24 MB in the stale file: 40 MB fit only
   * with the stale file counted. */
  g_assert_true (ferry_test_stick_set_rate (stick, 0, NULL));
  filler = g_build_filename (mnt, "filler.bin", NULL);
  fill_to (mnt, filler, 20 * MB);
  status = run_copy_under (NULL, ARGS ("--progress=none", big, mnt), &err);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    g_error ("the copy that fits only once the stale temporary file is gone failed:\n%s", err);
  g_assert_false (g_file_test (temp, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (ferry_test_count_temp_files (mnt), ==, 0);
  ferry_test_assert_files_equal (big, ferry_test_path (mnt, "big.bin", NULL));
}

/* A temporary file a running ferry-copy is writing is left alone by
 * another run into the same folder, which removes only what is certainly
 * a dead run's. */
static void
test_live_temp_exfat (Fixture *f, gconstpointer data)
{
  g_autofree char *big = g_build_filename (f->src, "big.bin", NULL);
  g_autofree char *small = g_build_filename (f->src, "small.txt", NULL);
  g_autoptr (FerryTestStick) stick = new_stick (f->scratch, FERRY_TEST_STICK_FS_EXFAT, 96 * MB, 2 * MB);
  g_autoptr (GSubprocess) process = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *temp = NULL;
  const char *mnt;

  if (stick == NULL)
    return;
  mnt = ferry_test_stick_get_mountpoint (stick);
  ferry_test_write_random (big, 40 * MB, 2);
  ferry_test_write_text (small, "small\n");
  process = ferry_test_spawn_copy (NULL, ARGS ("--progress=none", "--device=slow", big, mnt));
  temp = wait_for_temp (process, mnt, 1);

  copy_ok (ARGS ("--progress=none", small, mnt));
  g_assert_nonnull (g_subprocess_get_identifier (process));
  g_assert_true (g_file_test (temp, G_FILE_TEST_IS_REGULAR));

  g_assert_true (ferry_test_stick_set_rate (stick, 0, NULL));
  g_subprocess_wait_check (process, NULL, &error);
  g_assert_no_error (error);
  ferry_test_assert_files_equal (big, ferry_test_path (mnt, "big.bin", NULL));
  ferry_test_assert_files_equal (small, ferry_test_path (mnt, "small.txt", NULL));
  g_assert_cmpuint (ferry_test_count_temp_files (mnt), ==, 0);
}

/* What ferry_test_count_temp_files() would count, but Ferry must keep:
 * names near Ferry's but not exactly its, files whose maker lives or
 * whose lock is held, and what is no regular file. Returns the names;
 * @locked_fd holds the lock of one. */
static GPtrArray *
plant_not_stale (const char *dir, int *locked_fd)
{
  g_autofree char *boot = boot_tag ();
  g_autofree char *start = own_start_time ();
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  int dead = dead_pid ();
  g_autofree char *locked = temp_name (boot, dead, "1", "0000000c");
  g_autofree char *link_name = temp_name (boot, dead, "1", "0000000d");
  g_autofree char *folder = temp_name (boot, dead, "1", "0000000e");
  g_autofree char *fifo = temp_name (boot, dead, "1", "0000000f");

  g_ptr_array_add (names, g_strdup (".ferry-0123456789abcdef.part")); /* the old names */
  g_ptr_array_add (names, temp_name (boot, getpid (), start, "0000000a")); /* alive */
  g_ptr_array_add (names, temp_name ("ABCDEF01", dead, "1", "0000000b"));
  g_ptr_array_add (names, temp_name (boot, dead, "01", "0000000b"));
  g_ptr_array_add (names, temp_name (boot, dead, "1", "000000b"));
  g_ptr_array_add (names, g_strdup_printf (".ferry-%s-%d-1-0000000b.part.old", boot, dead));
  g_ptr_array_add (names, g_strdup_printf (".ferry-%s-%d-0000000b.part", boot, dead));
  for (guint i = 0; i < names->len; i++)
    ferry_test_write_text (ferry_test_path (dir, g_ptr_array_index (names, i), NULL), "keep\n");

  /* Another user's: theirs to go on from (root can make one). */
  if (ferry_test_is_root ())
    {
      char *others = temp_name (boot, dead, "1", "00000010");

      ferry_test_write_text (ferry_test_path (dir, others, NULL), "theirs\n");
      g_assert_cmpint (chown (ferry_test_path (dir, others, NULL), 65534, 65534), ==, 0);
      g_ptr_array_add (names, others);
    }
  ferry_test_write_text (ferry_test_path (dir, locked, NULL), "held\n");
  *locked_fd = open (ferry_test_path (dir, locked, NULL), O_RDONLY | O_CLOEXEC);
  g_assert_cmpint (flock (*locked_fd, LOCK_EX | LOCK_NB), ==, 0);
  ferry_test_write_text (ferry_test_path (dir, "target.txt", NULL), "target\n");
  g_assert_cmpint (symlink ("target.txt", ferry_test_path (dir, link_name, NULL)), ==, 0);
  ferry_test_make_dirs (ferry_test_path (dir, folder, NULL));
  g_assert_cmpint (mkfifo (ferry_test_path (dir, fifo, NULL), 0600), ==, 0);
  g_ptr_array_add (names, g_steal_pointer (&locked));
  g_ptr_array_add (names, g_steal_pointer (&link_name));
  g_ptr_array_add (names, g_steal_pointer (&folder));
  g_ptr_array_add (names, g_steal_pointer (&fifo));
  return names;
}

/* Only what is certainly a dead run's goes: a regular file named exactly
 * as Ferry names them, whose maker has ended and whose lock is free; in
 * the destination folder and in the folders the copy merges into. */
static void
test_stale_names (Fixture *f, gconstpointer data)
{
  g_autofree char *boot = boot_tag ();
  g_autofree char *tree = g_build_filename (f->src, "tree", NULL);
  g_autofree char *merged = g_build_filename (f->dst, "tree", "sub", NULL);
  g_autofree char *stale_top = temp_name (boot, dead_pid (), "12345", "00000001");
  g_autofree char *stale_deep = temp_name (boot, dead_pid (), "67890", "00000002");
  g_autoptr (GPtrArray) kept = NULL;
  int locked_fd;

  ferry_test_make_dirs (ferry_test_path (tree, "sub", NULL));
  ferry_test_write_text (ferry_test_path (tree, "sub", "a.txt", NULL), "a\n");
  ferry_test_make_dirs (merged);
  ferry_test_write_text (ferry_test_path (f->dst, stale_top, NULL), "stale\n");
  ferry_test_write_text (ferry_test_path (merged, stale_deep, NULL), "stale\n");
  kept = plant_not_stale (f->dst, &locked_fd);

  copy_ok (ARGS ("--progress=none", "--conflict=skip", tree, f->dst));
  g_assert_false (g_file_test (ferry_test_path (f->dst, stale_top, NULL), G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (ferry_test_path (merged, stale_deep, NULL), G_FILE_TEST_EXISTS));
  for (guint i = 0; i < kept->len; i++)
    {
      const char *name = g_ptr_array_index (kept, i);
      struct stat st;
      if (lstat (ferry_test_path (f->dst, name, NULL), &st) != 0)
        g_error ("%s was removed, but it is not certainly a dead run's", name);
    }
  g_assert_true (g_file_test (ferry_test_path (f->dst, "target.txt", NULL), G_FILE_TEST_IS_REGULAR));
  close (locked_fd);
}

/* A folder named as Ferry names the folders it builds hidden. */
static char *
hidden_folder_name (const char *boot, int pid, const char *start, const char *random)
{
  return g_strdup_printf (".ferry-%s-%d-%s-%s-d.part", boot, pid, start, random);
}

/* A hidden folder a killed run left, holding a file, a read-only folder
 * with a file and a link to a file outside: the next run into its
 * parent removes all of it, and nothing the link leads to. Kept: one
 * whose maker lives, one whose lock is held, a folder named as
 * temporary files are, and what has the name but is no folder. */
static void
test_stale_hidden_folders (Fixture *f, gconstpointer data)
{
  g_autofree char *boot = boot_tag ();
  g_autofree char *start = own_start_time ();
  g_autofree char *tree = g_build_filename (f->src, "tree", NULL);
  g_autofree char *outside = g_build_filename (f->scratch, "outside.txt", NULL);
  int dead = dead_pid ();
  g_autofree char *stale = hidden_folder_name (boot, dead, "1", "00000001");
  g_autofree char *stale_path = g_build_filename (f->dst, stale, NULL);
  const char *kept[] = {
    hidden_folder_name (boot, getpid (), start, "00000002"), /* alive */
    hidden_folder_name (boot, dead, "1", "00000003"),        /* locked */
    temp_name (boot, dead, "1", "00000004"),                 /* a file's name */
    hidden_folder_name (boot, dead, "1", "00000005"),        /* a regular file */
  };
  int locked_fd;

  ferry_test_make_dirs (tree);
  ferry_test_write_text (ferry_test_path (tree, "a.txt", NULL), "a\n");
  ferry_test_write_text (outside, "outside\n");
  ferry_test_make_dirs (ferry_test_path (stale_path, "ro", NULL));
  ferry_test_write_text (ferry_test_path (stale_path, "file", NULL), "stale\n");
  ferry_test_write_text (ferry_test_path (stale_path, "ro", "file", NULL), "stale\n");
  g_assert_cmpint (symlink (outside, ferry_test_path (stale_path, "link", NULL)), ==, 0);
  g_assert_cmpint (chmod (ferry_test_path (stale_path, "ro", NULL), 0500), ==, 0);
  for (guint i = 0; i < 3; i++)
    ferry_test_make_dirs (ferry_test_path (f->dst, kept[i], NULL));
  ferry_test_write_text (ferry_test_path (f->dst, kept[3], NULL), "keep\n");
  locked_fd = open (ferry_test_path (f->dst, kept[1], NULL), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  g_assert_cmpint (flock (locked_fd, LOCK_EX | LOCK_NB), ==, 0);

  copy_ok (ARGS ("--progress=none", tree, f->dst));
  g_assert_false (g_file_test (stale_path, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (outside, G_FILE_TEST_IS_REGULAR));
  for (guint i = 0; i < G_N_ELEMENTS (kept); i++)
    {
      if (!g_file_test (ferry_test_path (f->dst, kept[i], NULL), G_FILE_TEST_EXISTS))
        g_error ("%s was removed, but it is not certainly a dead run's", kept[i]);
      g_free ((char *) kept[i]);
    }
  g_assert_true (
      g_file_test (ferry_test_path (f->dst, "tree", "a.txt", NULL), G_FILE_TEST_IS_REGULAR));
  close (locked_fd);
}

/* Four files of 10 MB in the folder @dir, made first. */
static void
write_parts (const char *dir, guint seed)
{
  ferry_test_make_dirs (dir);
  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *name = g_strdup_printf ("part%u.bin", i);
      ferry_test_write_random (ferry_test_path (dir, name, NULL), 10 * MB, seed + i);
    }
}

/* On a disk fast by its class a new folder is built whole under a hidden
 * name, so a kill leaves most of what was copied in it. The next run
 * removes it before it writes, and counts its space as free: here a
 * killed run's new subfolder in a folder merged into holds 40 MB, 20 MB
 * are free, and copying the 40 MB again fits only that way. (Before,
 * the same command was refused for want of space.) */
static void
test_stale_hidden_folder_space (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestStick) stick = new_stick (f->scratch, FERRY_TEST_STICK_FS_EXT4, 96 * MB, 0);
  g_autofree char *boot = boot_tag ();
  g_autofree char *stale = hidden_folder_name (boot, dead_pid (), "1", "00000006");
  g_autofree char *tree = g_build_filename (f->src, "tree", NULL);
  g_autofree char *filler = NULL;
  g_autofree char *stale_path = NULL;
  g_autofree char *err = NULL;
  const char *mnt;
  int status;

  if (stick == NULL)
    return;
  mnt = ferry_test_stick_get_mountpoint (stick);
  write_parts (ferry_test_path (tree, "photos", NULL), 60);
  stale_path = g_build_filename (mnt, "tree", stale, NULL);
  write_parts (stale_path, 70);
  filler = g_build_filename (mnt, "filler.bin", NULL);
  fill_to (mnt, filler, 20 * MB);

  status = run_copy_under (NULL, ARGS ("--progress=none", "--device=fast", tree, mnt), &err);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    g_error ("the copy that fits only once the stale hidden folder is gone failed:\n%s", err);
  g_assert_false (g_file_test (stale_path, G_FILE_TEST_EXISTS));
  ferry_test_assert_trees_equal (tree, ferry_test_path (mnt, "tree", NULL),
                                 FERRY_TEST_COMPARE_CONTENT);
}

/* Where the kernel has O_TMPFILE, a file that replaces another is still
 * named aside for a moment (no call links a file over a name): a kill in
 * that moment, here inside the rename over the old file, leaves the
 * complete copy there. The next run into the folder removes it. */
static void
test_overwrite_kill (Fixture *f, gconstpointer data)
{
  g_autofree char *tree = g_build_filename (f->src, "tree", NULL);
  g_autofree char *copy = g_build_filename (f->dst, "tree", NULL);

  if (ferry_test_skip_without_strace ())
    return;
  for (guint d = 0; d < 3; d++)
    {
      g_autofree char *folder = g_strdup_printf ("%s/d%u", tree, d);
      ferry_test_make_dirs (folder);
      for (guint i = 0; i < 4; i++)
        {
          g_autofree char *name = g_strdup_printf ("%s/f%u", folder, i);
          ferry_test_write_random (name, 5000 + i, d * 10 + i);
        }
    }
  copy_ok (ARGS ("--progress=none", tree, f->dst));

  copy_killed_at ("renameat", 3,
                  ARGS ("--progress=none", "--conflict=overwrite", "-j", "1", tree, f->dst));
  g_assert_cmpuint (ferry_test_count_temp_files (f->dst), ==, 1);

  copy_ok (ARGS ("--progress=none", "--conflict=overwrite", tree, f->dst));
  g_assert_cmpuint (ferry_test_count_temp_files (f->dst), ==, 0);
  ferry_test_assert_trees_equal (tree, copy, FERRY_TEST_COMPARE_CONTENT);
}

/* The same on a nearly full ext4 stick with a large file: the copy
 * left in that moment holds as much again, and the next run fits only
 * counting it as free. */
static void
test_overwrite_kill_fit (Fixture *f, gconstpointer data)
{
  g_autofree char *big = g_build_filename (f->src, "big.bin", NULL);
  g_autofree char *workdir = g_build_filename (f->scratch, "stick", NULL);
  FerryTestStickOptions options = { .workdir = workdir, .label = "LEFTOVERS", .size_bytes = 96 * MB };
  g_autoptr (FerryTestStick) stick = NULL;
  g_autofree char *filler = NULL;
  g_autofree char *err = NULL;
  const char *mnt;
  int status;

  if (ferry_test_skip_without_strace ()
      || (stick = ferry_test_stick_new_or_skip_full (&options)) == NULL)
    return;
  mnt = ferry_test_stick_get_mountpoint (stick);
  ferry_test_write_random (big, 30 * MB, 3);
  copy_ok (ARGS ("--progress=none", big, mnt));
  copy_killed_at ("renameat", 1, ARGS ("--progress=none", "--conflict=overwrite", big, mnt));
  g_assert_cmpuint (ferry_test_count_temp_files (mnt), ==, 1);

  filler = g_build_filename (mnt, "filler.bin", NULL);
  fill_to (mnt, filler, 15 * MB);
  status = run_copy_under (NULL, ARGS ("--progress=none", "--conflict=overwrite", big, mnt), &err);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    g_error ("the copy that fits only once the stale temporary file is gone failed:\n%s", err);
  g_assert_cmpuint (ferry_test_count_temp_files (mnt), ==, 0);
  ferry_test_assert_files_equal (big, ferry_test_path (mnt, "big.bin", NULL));
}

/* ------------------------------------------------------------------ */
/* Sources without extended attributes                                 */

/* @days folders day-0, day-1... in @root, each with @per_day files
 * @stem-00.@ext, @stem-01.@ext..., of a few KB. */
static void
write_days (const char *root, guint days, guint per_day, const char *stem, const char *ext)
{
  for (guint d = 0; d < days; d++)
    for (guint i = 0; i < per_day; i++)
      {
        g_autofree char *day = g_strdup_printf ("day-%u", d);
        g_autofree char *dir = g_build_filename (root, day, NULL);
        g_autofree char *name = g_strdup_printf ("%s-%02u.%s", stem, i, ext);
        g_autofree char *path = g_build_filename (dir, name, NULL);

        ferry_test_make_dirs (dir);
        ferry_test_write_random (path, 2000 + i * 100, d * 100 + i);
      }
}

/* How many calls of @call (with its l/f forms) ferry-copy made. */
static guint
count_calls (const char *call, const char *const *args)
{
  g_autofree char *traced = g_strdup_printf ("%s,f%s,l%s", call, call, call);

  return ferry_test_count_traced_calls (traced, call, args);
}

/* exfat-fuse refuses a rename that may not replace (RENAME_NOREPLACE),
 * and has no hard links either: through the daemon each refusal is a
 * round trip, so a copy onto an exFAT stick asks once, then checks the
 * name is free and renames (it used to ask for each of the 40 files). */
static void
test_rename_asked_once_exfat (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestStick) stick = NULL;
  g_autofree char *copy = NULL;
  guint calls;

  if (ferry_test_skip_without_strace ()
      || (stick = new_stick (f->scratch, FERRY_TEST_STICK_FS_EXFAT, 64 * MB, 0)) == NULL)
    return;
  write_days (f->src, 4, 10, "note", "txt");
  calls = ferry_test_count_traced_calls ("renameat2", "renameat2",
                              ARGS ("--progress=none", "-j", "1", f->src,
                                    ferry_test_stick_get_mountpoint (stick)));
  g_test_message ("%u renames asked not to replace", calls);
  g_assert_cmpuint (calls, ==, 1);
  copy = g_build_filename (ferry_test_stick_get_mountpoint (stick), "src", NULL);
  ferry_test_assert_trees_equal (f->src, copy, FERRY_TEST_COMPARE_CONTENT);
  g_assert_cmpuint (ferry_test_count_temp_files (copy), ==, 0);
}

/* The tree of a copy killed while its first large file (named for the
 * transfer's journal) and a folder built hidden were on their way, with
 * nothing durable yet, as a tester met it. */
static void
make_discarded_tree (const char *tree)
{
  ferry_test_make_dirs (ferry_test_path (tree, "sub1", "deep", NULL));
  ferry_test_make_dirs (ferry_test_path (tree, "sub2", NULL));
  ferry_test_write_random (ferry_test_path (tree, "big1.bin", NULL), 40 * MIB, 7);
  ferry_test_write_random (ferry_test_path (tree, "sub1", "big2.bin", NULL), 25 * MIB, 8);
  ferry_test_write_random (ferry_test_path (tree, "sub1", "mid.bin", NULL), 12 * MIB, 9);
  for (guint i = 0; i < 60; i++)
    {
      g_autofree char *name = g_strdup_printf ("small-%02u.txt", i);
      ferry_test_write_random (ferry_test_path (tree, "sub2", name, NULL), 3000, 100 + i);
    }
  for (guint i = 0; i < 30; i++)
    {
      g_autofree char *name = g_strdup_printf ("deep-%02u.txt", i);
      ferry_test_write_random (ferry_test_path (tree, "sub1", "deep", name, NULL), 2000, 200 + i);
    }
}

/* The size of the largest temporary file directly in @dir. */
static guint64
largest_temp (const char *dir)
{
  g_autoptr (GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;
  guint64 largest = 0;

  while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
    if (g_str_has_prefix (name, ".ferry-") && !g_str_has_suffix (name, "-d.part"))
      largest = MAX (largest, file_size (ferry_test_path (dir, name, NULL)));
  return largest;
}

/* Waits until the copy into @copy has a temporary file of @at_least
 * bytes and a folder built hidden there. */
static void
wait_for_temp_and_hidden (GSubprocess *process, const char *copy, guint64 at_least)
{
  gint64 deadline = g_get_monotonic_time () + DEADLINE;

  while (ferry_test_count_hidden_folders (copy) == 0 || largest_temp (copy) < at_least)
    {
      g_assert_nonnull (g_subprocess_get_identifier (process));
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_usleep (10000);
    }
}

/* ferry-copy --discard, the stick plugged in, removes now what the copy
 * it discards left: the temporary file named for it (which no save of
 * its journal recorded) and the folder built hidden. It left them, and
 * said "0 bytes of 89.1 MB", until a later copy into the folder. Ferry's
 * file of another transfer and a file only named like Ferry's stay. */
static void
test_discard_removes_leftovers (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestStick) stick = new_stick (f->scratch, FERRY_TEST_STICK_FS_EXT4, 200 * MB, 15 * MB);
  g_autofree char *tree = g_build_filename (f->src, "tree", NULL);
  g_autofree char *state = g_build_filename (f->scratch, "state", NULL);
  g_autofree char *boot = boot_tag ();
  g_autofree char *other_temp = NULL;
  g_autoptr (GSubprocess) process = NULL;
  const char *mnt;
  const char *copy;

  if (stick == NULL)
    return;
  mnt = ferry_test_stick_get_mountpoint (stick);
  copy = ferry_test_path (mnt, "tree", NULL);
  make_discarded_tree (tree);
  g_setenv ("XDG_STATE_HOME", state, TRUE);
  process = ferry_test_spawn_copy (NULL, ARGS ("--progress=none", tree, mnt));
  wait_for_temp_and_hidden (process, copy, 8 * MB);
  kill_copy (process);

  other_temp = g_strdup_printf (".ferry-%s-%d-1-0a0b0c0d-j0123456789abcdef.part", boot, dead_pid ());
  ferry_test_write_text (ferry_test_path (copy, other_temp, NULL), "another transfer's\n");
  ferry_test_write_text (ferry_test_path (copy, ".ferry-mine.part", NULL), "not Ferry's\n");
  copy_ok (ARGS ("--discard", "all"));
  g_unsetenv ("XDG_STATE_HOME");

  g_assert_cmpuint (ferry_test_count_hidden_folders (copy), ==, 0);
  g_assert_cmpuint (ferry_test_count_temp_files (mnt), ==, 2);
  g_assert_true (g_file_test (ferry_test_path (copy, other_temp, NULL), G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (ferry_test_path (copy, ".ferry-mine.part", NULL), G_FILE_TEST_IS_REGULAR));
}

/* exFAT keeps no extended attributes: the copy learns it from the first
 * file it asks about and asks no more (it used to ask for each of the 43
 * entries). One thread, so that no other asks at the same moment. */
static void
test_xattrless_source_exfat (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestStick) stick = NULL;
  g_autofree char *tree = NULL;
  guint calls;

  if (ferry_test_skip_without_strace ()
      || (stick = new_stick (f->scratch, FERRY_TEST_STICK_FS_EXFAT, 64 * MB, 0)) == NULL)
    return;
  tree = g_build_filename (ferry_test_stick_get_mountpoint (stick), "photos", NULL);
  write_days (tree, 3, 13, "img", "jpg");
  calls = count_calls ("listxattr", ARGS ("--progress=none", "-j", "1", tree, f->dst));
  g_test_message ("%u calls listed extended attributes", calls);
  g_assert_cmpuint (calls, ==, 1);
  ferry_test_assert_trees_equal (tree, ferry_test_path (f->dst, "photos", NULL),
                                 FERRY_TEST_COMPARE_CONTENT);
}

/* ------------------------------------------------------------------ */
/* Folders                                                             */

/* Modes that let their owner in, and one that does not let Ferry write
 * (0555): made 0700 until its contents are in. */
static const mode_t folder_modes[] = { 0755, 0750, 0700, 0555, 0711, 0751 };

#define N_FOLDERS G_N_ELEMENTS (folder_modes)
#define FOLDER_TIME 1500000000

/* top/sN/{x,y,z}/file, sN with folder_modes[N]; as root, all nobody's.
 * Every folder gets an old time, after its contents. */
static void
make_folder_tree (const char *top)
{
  ferry_test_make_dirs (top);
  for (guint n = 0; n < N_FOLDERS; n++)
    {
      g_autofree char *folder = g_strdup_printf ("%s/s%u", top, n);
      for (const char *sub = "xyz"; *sub != '\0'; sub++)
        {
          g_autofree char *inner = g_strdup_printf ("%s/%c", folder, *sub);
          ferry_test_make_dirs (inner);
          ferry_test_write_random (ferry_test_path (inner, "file", NULL), 3000, n);
          ferry_test_set_times (inner, FOLDER_TIME + n, 0);
          if (ferry_test_is_root ())
            g_assert_cmpint (lchown (inner, NOBODY, NOBODY), ==, 0);
        }
      g_assert_cmpint (chmod (folder, folder_modes[n]), ==, 0);
      ferry_test_set_times (folder, FOLDER_TIME + 100 + n, 0);
      if (ferry_test_is_root ())
        g_assert_cmpint (lchown (folder, NOBODY, NOBODY), ==, 0);
    }
  g_assert_cmpint (chmod (top, 0751), ==, 0);
  ferry_test_set_times (top, FOLDER_TIME + 200, 0);
  if (ferry_test_is_root ())
    g_assert_cmpint (lchown (top, NOBODY, NOBODY), ==, 0);
}

typedef struct
{
  guint checked;
  guint unfinished; /* not yet with the source's mode */
} FolderCheck;

/* Every folder of the copy is its source's owner's, and lets that owner
 * list and enter it; one with the source's owner bits complete already
 * has the source's mode, any other has it or 0700. */
static void
assert_folders_open (const char *src, const char *dst, FolderCheck *check)
{
  g_autoptr (GDir) listing = g_dir_open (dst, 0, NULL);
  const char *name;
  struct stat s, d;

  g_assert_cmpint (lstat (src, &s), ==, 0);
  g_assert_cmpint (lstat (dst, &d), ==, 0);
  g_assert_cmpuint (d.st_uid, ==, s.st_uid);
  if ((d.st_mode & 0500) != 0500)
    g_error ("%s is left with mode %04o: its owner cannot list it", dst, d.st_mode & 07777);
  if ((s.st_mode & S_IRWXU) == S_IRWXU || (d.st_mode & 0777) != S_IRWXU)
    if ((d.st_mode & 0777) != (s.st_mode & 0777))
      g_error ("%s is left with mode %04o; its source's is %04o", dst, d.st_mode & 07777,
               s.st_mode & 07777);
  check->checked++;
  check->unfinished += (d.st_mode & 0777) != (s.st_mode & 0777);

  while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *sub_src = g_build_filename (src, name, NULL);
      g_autofree char *sub_dst = g_build_filename (dst, name, NULL);
      if (g_file_test (sub_dst, G_FILE_TEST_IS_DIR) && !g_file_test (sub_dst, G_FILE_TEST_IS_SYMLINK))
        assert_folders_open (sub_src, sub_dst, check);
    }
}

/* A kill leaves every folder made so far openable by its owner, with its
 * final mode where that lets the owner in (they were all 0700, and
 * root's, before); a complete run with --conflict=skip then gives every
 * folder, merged into, the source's mode and time (57 stayed 0700). The
 * copy runs on one thread and is killed at its ninth mkdirat: the top
 * folder and its six are made, and one of those is being filled. */
/* The path of a folder directly in @dir named as Ferry names the
 * folders it builds hidden, or NULL. */
static char *
find_hidden_folder (const char *dir)
{
  g_autoptr (GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;

  while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
    if (g_str_has_prefix (name, ".ferry-") && g_str_has_suffix (name, "-d.part"))
      return g_build_filename (dir, name, NULL);
  return NULL;
}

static void
test_folders_after_kill (Fixture *f, gconstpointer data)
{
  g_autofree char *top = g_build_filename (f->src, "top", NULL);
  g_autofree char *copy = g_build_filename (f->dst, "top", NULL);
  g_autofree char *hidden = NULL;
  FolderCheck check = { 0 };

  if (ferry_test_skip_without_strace ())
    return;
  make_folder_tree (top);
  copy_killed_at ("mkdirat", 9, ARGS ("--progress=none", "-j", "1", top, f->dst));

  /* On a fast disk the new folder is built under a hidden name, and
   * renamed only once complete: the folders made so far are in there. */
  hidden = find_hidden_folder (f->dst);
  assert_folders_open (top, hidden != NULL ? hidden : copy, &check);
  g_test_message ("after the kill: %u folders, %u not yet finished", check.checked,
                  check.unfinished);
  g_assert_cmpuint (check.checked, ==, 1 + N_FOLDERS + 1);

  copy_ok (ARGS ("--progress=none", "--conflict=skip", top, f->dst));
  ferry_test_assert_trees_equal (top, copy,
                                 FERRY_TEST_COMPARE_CONTENT | FERRY_TEST_COMPARE_MODE
                                     | FERRY_TEST_COMPARE_OWNER | FERRY_TEST_COMPARE_TIMES);
  g_assert_null (find_hidden_folder (f->dst));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ferry_engine_init ();
#define ADD(path, func)                                                                            \
  g_test_add (path, Fixture, NULL, ferry_test_fixture_set_up, func, ferry_test_fixture_tear_down)
  ADD ("/leftovers/stale-temp/exfat", test_stale_temp_exfat);
  ADD ("/leftovers/live-temp/exfat", test_live_temp_exfat);
  ADD ("/leftovers/stale-names", test_stale_names);
  ADD ("/leftovers/stale-hidden-folders", test_stale_hidden_folders);
  ADD ("/leftovers/stale-hidden-folder-space", test_stale_hidden_folder_space);
  ADD ("/leftovers/overwrite-kill/local", test_overwrite_kill);
  ADD ("/leftovers/overwrite-kill/fit-ext4-stick", test_overwrite_kill_fit);
  ADD ("/leftovers/folders-after-kill", test_folders_after_kill);
  ADD ("/leftovers/discard-removes-leftovers", test_discard_removes_leftovers);
  ADD ("/leftovers/xattrless-source/exfat", test_xattrless_source_exfat);
  ADD ("/leftovers/rename-asked-once/exfat", test_rename_asked_once_exfat);
#undef ADD
  return g_test_run ();
}
