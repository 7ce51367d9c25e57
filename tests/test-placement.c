/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Folder-level placement on a fast disk (issue 17, item 3): a folder
 * that did not exist at the destination is built under a hidden name
 * (".ferry-*.part"), its files made under their final names inside it,
 * and renamed into place once a sync vouched for all it holds. A kill
 * at any moment leaves nothing of it, or all of it, under its final
 * name, plus at most the hidden folder, which the next run removes; a
 * cancel leaves nothing; a folder that was there takes files one by
 * one, as before.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ferry-test-util.h"

#define N_FOLDERS      8
#define FILES_A_FOLDER 60
#define N_KILLS        6
#define WAIT_US        (20 * G_USEC_PER_SEC)

typedef FerryTestFixture Fixture;

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* ------------------------------------------------------------------ */
/* Running ferry-copy                                                  */

/* Waits for @process to end; returns its standard error. */
static char *
wait_copy (GSubprocess *process)
{
  g_autoptr (GError) error = NULL;
  char *err = NULL;

  g_subprocess_communicate_utf8 (process, NULL, NULL, NULL, &err, &error);
  g_assert_no_error (error);
  return err;
}

static void
copy_ok (const char *const *args)
{
  g_autoptr (GSubprocess) process = ferry_test_spawn_copy (NULL, args);
  g_autofree char *err = wait_copy (process);

  if (!g_subprocess_get_successful (process))
    g_error ("ferry-copy failed:\n%s", err);
}

/* ------------------------------------------------------------------ */
/* Trees                                                               */

/* top/dN/fM (1 B to 48 KiB) and top/dN/inner/fM: new folders inside a
 * new folder, which need no name of their own. */
static void
make_tree (const char *top)
{
  for (guint d = 0; d < N_FOLDERS; d++)
    {
      g_autofree char *folder = g_strdup_printf ("%s/d%u", top, d);
      g_autofree char *inner = g_build_filename (folder, "inner", NULL);

      ferry_test_make_dirs (inner);
      for (guint i = 0; i < FILES_A_FOLDER; i++)
        {
          g_autofree char *name = g_strdup_printf ("%s/f%u", i % 6 == 0 ? inner : folder, i);
          ferry_test_write_random (name, 1 + (d * 7919 + i * 104729) % (48 * 1024), d * 1000 + i);
        }
    }
}

static gboolean
is_hidden_name (const char *name)
{
  return g_str_has_prefix (name, ".ferry-") && g_str_has_suffix (name, ".part");
}

typedef struct
{
  guint hidden;   /* hidden folders left */
  gboolean final; /* the copy under its final name */
  guint other;    /* anything else */
} Left;

/* What is directly in @dst, whose only entry a copy of "top" makes. */
static Left
look_at (const char *dst)
{
  g_autoptr (GDir) listing = g_dir_open (dst, 0, NULL);
  Left left = { 0 };
  const char *name;

  g_assert_nonnull (listing);
  while ((name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *path = g_build_filename (dst, name, NULL);

      if (is_hidden_name (name) && g_file_test (path, G_FILE_TEST_IS_DIR))
        left.hidden++;
      else if (strcmp (name, "top") == 0)
        left.final = TRUE;
      else
        left.other++;
    }
  return left;
}

static void
remove_scratch (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_EXISTS))
    ferry_test_remove_tree (path);
}

/* ------------------------------------------------------------------ */
/* Kills                                                               */

/* How long a whole copy of @top takes here, start to end. */
static gint64
time_whole_copy (const char *top, const char *scratch)
{
  g_autofree char *dst = g_build_filename (scratch, "timed", NULL);
  gint64 start;

  ferry_test_make_dirs (dst);
  start = g_get_monotonic_time ();
  copy_ok (ARGS ("--progress=none", top, dst));
  start = g_get_monotonic_time () - start;
  remove_scratch (dst);
  return start;
}

/* One run into @dst killed with SIGKILL @delay µs after it started. */
static void
copy_killed_after (const char *top, const char *dst, gint64 delay)
{
  g_autoptr (GSubprocess) process
      = ferry_test_spawn_copy (NULL, ARGS ("--progress=none", "-j", "2", top, dst));
  g_autofree char *err = NULL;

  g_usleep (delay);
  g_subprocess_force_exit (process);
  err = wait_copy (process);
}

/* Kills land at spread moments of a copy of a fresh folder (over the
 * first half of a whole run, with some randomness): every time, "top" is
 * either absent or complete, beside at most one hidden folder and
 * nothing else; the next run into the destination removes the hidden
 * folder and completes the copy. */
static void
test_kill_fresh_folder (Fixture *f, gconstpointer data)
{
  g_autofree char *top = g_build_filename (f->src, "top", NULL);
  gint64 whole;
  guint n_hidden = 0, n_final = 0;

  make_tree (top);
  whole = time_whole_copy (top, f->scratch);
  g_test_message ("a whole copy takes %" G_GINT64_FORMAT " ms", whole / 1000);
  for (guint k = 0; k < N_KILLS; k++)
    {
      g_autofree char *dst = g_strdup_printf ("%s/kill-%u", f->scratch, k);
      g_autofree char *copy = g_build_filename (dst, "top", NULL);
      /* Most of a whole run is its final sync: the kills fall in its
       * first half, where the copying is. */
      gint64 delay = whole * (k + 1) / (2 * N_KILLS + 2)
                     + g_test_rand_int_range (0, (int) (whole / (4 * N_KILLS) + 1));
      Left left;

      ferry_test_make_dirs (dst);
      copy_killed_after (top, dst, delay);
      left = look_at (dst);
      g_test_message ("killed after %" G_GINT64_FORMAT " ms: %s, %u hidden folder(s)",
                      delay / 1000, left.final ? "complete" : "absent", left.hidden);
      g_assert_cmpuint (left.other, ==, 0);
      g_assert_cmpuint (left.hidden, <=, 1);
      if (left.final)
        ferry_test_assert_trees_equal (top, copy, FERRY_TEST_COMPARE_CONTENT);
      n_hidden += left.hidden;
      n_final += left.final;

      copy_ok (ARGS ("--progress=none", "--conflict=skip", top, dst));
      left = look_at (dst);
      g_assert_cmpuint (left.hidden, ==, 0);
      g_assert_true (left.final);
      g_assert_cmpuint (ferry_test_count_temp_files (dst), ==, 0);
      ferry_test_assert_trees_equal (top, copy, FERRY_TEST_COMPARE_CONTENT);
      remove_scratch (dst);
    }
  g_test_message ("%u kills left a hidden folder, %u the complete copy", n_hidden, n_final);
}

/* ------------------------------------------------------------------ */
/* Cancel                                                              */

/* Waits until @dst holds something; FALSE if @process ended first. */
static gboolean
wait_for_entry (GSubprocess *process, const char *dst)
{
  gint64 deadline = g_get_monotonic_time () + WAIT_US;

  while (ferry_test_count_entries (dst) == 0)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      if (g_subprocess_get_identifier (process) == NULL)
        return FALSE;
      g_usleep (500);
    }
  return TRUE;
}

/* Ctrl+C (which cancels the job) once the copy has made its folder:
 * the copy stops, and leaves nothing at all, hidden or not. */
static void
test_cancel_fresh_folder (Fixture *f, gconstpointer data)
{
  g_autofree char *top = g_build_filename (f->src, "top", NULL);
  g_autoptr (GSubprocess) process = NULL;
  g_autofree char *err = NULL;

  make_tree (top);
  process = ferry_test_spawn_copy (NULL, ARGS ("--progress=none", "-j", "1", top, f->dst));
  g_assert_true (wait_for_entry (process, f->dst));
  g_subprocess_send_signal (process, SIGINT);
  err = wait_copy (process);
  g_test_message ("ferry-copy said: %s", err);
  g_assert_false (g_subprocess_get_successful (process));
  g_assert_cmpuint (ferry_test_count_entries (f->dst), ==, 0);
}

/* ------------------------------------------------------------------ */
/* Traced runs                                                         */

/* Lines of @trace holding both @call and @needle (or only @call). */
static guint
count_traced (const char *trace, const char *call, const char *needle)
{
  g_auto (GStrv) lines = g_strsplit (trace, "\n", -1);
  guint n = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    n += strstr (lines[i], call) != NULL && (needle == NULL || strstr (lines[i], needle) != NULL);
  return n;
}

/* A copy into a folder that was there: its files get their names one
 * by one (an unnamed file linked to its name each), while the one new
 * folder inside it is built hidden and renamed once; its files are made
 * under their names, never linked. */
static void
test_merge_places_per_file (Fixture *f, gconstpointer data)
{
  g_autofree char *top = g_build_filename (f->src, "top", NULL);
  g_autofree char *copy = g_build_filename (f->dst, "top", NULL);
  g_autofree char *trace_path = g_build_filename (f->scratch, "trace", NULL);
  g_autofree char *no_leak_check = ferry_test_no_leak_check_env ();
  g_autofree char *strace = ferry_test_strace_path ();
  g_autofree char *trace = NULL;
  g_autoptr (GSubprocess) process = NULL;
  g_autofree char *err = NULL;

  if (ferry_test_skip_without_strace ())
    return;
  ferry_test_make_dirs (ferry_test_path (top, "new", NULL));
  for (guint i = 0; i < 5; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%u", i);
      ferry_test_write_random (ferry_test_path (top, name, NULL), 1000 + i, i);
      ferry_test_write_random (ferry_test_path (top, "new", name, NULL), 2000 + i, 10 + i);
    }
  ferry_test_make_dirs (copy);
  ferry_test_write_text (ferry_test_path (copy, "mine.txt", NULL), "kept\n");

  process = ferry_test_spawn_copy (
      ARGS (strace, "-f", "-qq", "-E", no_leak_check, "-e", "trace=linkat,mkdirat,renameat2,openat",
            "-o", trace_path),
      ARGS ("--progress=none", "--conflict=skip", top, f->dst));
  err = wait_copy (process);
  if (!g_subprocess_get_successful (process))
    g_error ("ferry-copy failed:\n%s", err);
  g_assert_true (g_file_get_contents (trace_path, &trace, NULL, NULL));

  g_assert_cmpuint (count_traced (trace, "mkdirat(", ".ferry-"), ==, 1);
  g_assert_cmpuint (count_traced (trace, "renameat2(", "\"new\", RENAME_NOREPLACE"), ==, 1);
  g_assert_cmpuint (count_traced (trace, "linkat(", NULL), ==, 5);
  g_assert_cmpuint (count_traced (trace, "openat(", "O_CREAT|O_EXCL|O_NOFOLLOW"), >=, 5);
  ferry_test_assert_files_equal (ferry_test_path (top, "f0", NULL),
                                 ferry_test_path (copy, "f0", NULL));
  ferry_test_assert_files_equal (ferry_test_path (top, "new", "f4", NULL),
                                 ferry_test_path (copy, "new", "f4", NULL));
  g_assert_cmpuint (ferry_test_count_temp_files (f->dst), ==, 0);
}

/* Someone makes the folder's name while Ferry's syncs are held back
 * (strace delays each syncfs): the rename into place finds it taken,
 * and the copy fails naming the folder; what that someone made stays
 * as it is, and the hidden folder goes. */
static void
test_conflict_at_rename (Fixture *f, gconstpointer data)
{
  g_autofree char *top = g_build_filename (f->src, "top", NULL);
  g_autofree char *copy = g_build_filename (f->dst, "top", NULL);
  g_autofree char *strace = ferry_test_strace_path ();
  g_autofree char *no_leak_check = ferry_test_no_leak_check_env ();
  g_autoptr (GSubprocess) process = NULL;
  g_autofree char *err = NULL;

  if (ferry_test_skip_without_strace ())
    return;
  ferry_test_make_dirs (top);
  ferry_test_write_random (ferry_test_path (top, "a", NULL), 5000, 1);
  process = ferry_test_spawn_copy (ARGS (strace, "-f", "-qq", "-o", "/dev/null", "-E",
                                         no_leak_check, "-e", "trace=syncfs", "-e",
                                         "inject=syncfs:delay_enter=1500000"),
                                   ARGS ("--progress=none", top, f->dst));
  g_assert_true (wait_for_entry (process, f->dst));
  g_assert_cmpuint (look_at (f->dst).hidden, ==, 1);
  ferry_test_make_dirs (copy);
  ferry_test_write_text (ferry_test_path (copy, "theirs.txt", NULL), "theirs\n");
  err = wait_copy (process);
  g_test_message ("ferry-copy said: %s", err);

  g_assert_false (g_subprocess_get_successful (process));
  g_assert_nonnull (strstr (err, copy));
  g_assert_nonnull (strstr (err, "created by someone else"));
  g_assert_cmpuint (look_at (f->dst).hidden, ==, 0);
  g_assert_cmpuint (ferry_test_count_entries (copy), ==, 1);
  g_assert_true (g_file_test (ferry_test_path (copy, "theirs.txt", NULL), G_FILE_TEST_IS_REGULAR));
}

/* Two names of one file in two new folders of a folder merged into:
 * each new folder is built hidden and renamed on its own, the first
 * before the second name is reached (one worker), and the second name
 * still links to the first copy, now under its folder's final name. */
static void
test_links_across_new_folders (Fixture *f, gconstpointer data)
{
  g_autofree char *tree = g_build_filename (f->src, "tree", NULL);
  g_autofree char *copy = g_build_filename (f->dst, "tree", NULL);
  struct stat first, second;

  ferry_test_make_dirs (ferry_test_path (tree, "sub1", NULL));
  ferry_test_make_dirs (ferry_test_path (tree, "sub2", NULL));
  ferry_test_write_text (ferry_test_path (tree, "sub1", "x", NULL), "one file, two names\n");
  g_assert_cmpint (link (ferry_test_path (tree, "sub1", "x", NULL),
                         ferry_test_path (tree, "sub2", "y", NULL)),
                   ==, 0);
  ferry_test_make_dirs (copy);
  copy_ok (ARGS ("--progress=none", "-j", "1", "--conflict=skip", tree, f->dst));

  g_assert_cmpint (lstat (ferry_test_path (copy, "sub1", "x", NULL), &first), ==, 0);
  g_assert_cmpint (lstat (ferry_test_path (copy, "sub2", "y", NULL), &second), ==, 0);
  g_assert_cmpuint (first.st_ino, ==, second.st_ino);
  g_assert_cmpuint (first.st_nlink, ==, 2);
  g_assert_cmpuint (ferry_test_count_temp_files (f->dst), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ferry_engine_init ();
#define ADD(path, func)                                                                            \
  g_test_add (path, Fixture, NULL, ferry_test_fixture_set_up, func, ferry_test_fixture_tear_down)
  ADD ("/placement/kill-fresh-folder", test_kill_fresh_folder);
  ADD ("/placement/cancel-fresh-folder", test_cancel_fresh_folder);
  ADD ("/placement/merge-places-per-file", test_merge_places_per_file);
  ADD ("/placement/conflict-at-rename", test_conflict_at_rename);
  ADD ("/placement/links-across-new-folders", test_links_across_new_folders);
#undef ADD
  return g_test_run ();
}
