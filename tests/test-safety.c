/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Nobody let in (issue 14): what another user can do to a copy running
 * as root, with a real racing process.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ferry-engine.h"
#include "ferry-test-util.h"

#define N_FIFOS 400
#define N_PAIRS 300
#define NOBODY  65534
#define ROUNDS  3

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* As nobody, for ever: every FIFO that appears in @dir is swapped for a
 * symlink to @victim, as fast as it can. */
static void G_GNUC_NORETURN
race (const char *dir, const char *victim)
{
  char path[4096], temp[4096];

  if (setgid (NOBODY) != 0 || setuid (NOBODY) != 0)
    _exit (2);
  for (guint round = 0;; round++)
    for (guint i = 0; i < N_FIFOS; i++)
      {
        struct stat st;

        snprintf (path, sizeof path, "%s/p-%03u", dir, i);
        if (lstat (path, &st) != 0 || !S_ISFIFO (st.st_mode))
          continue;
        snprintf (temp, sizeof temp, "%s/.swap-%u-%u", dir, round, i);
        if (symlink (victim, temp) == 0 && rename (temp, path) != 0)
          unlink (temp);
      }
}

/* A scratch folder everyone may enter, with the paths of its source
 * folder and of the folder to share; NULL (the test skipped) without
 * root. */
static char *
race_scratch_new (char **src, char **dst)
{
  char *scratch;

  if (!ferry_test_is_root ())
    {
      g_test_skip ("racing another user needs root (CI runs as root)");
      return NULL;
    }
  scratch = ferry_test_scratch_new ("safety");
  g_assert_cmpint (chmod (scratch, 0755), ==, 0);
  *src = g_build_filename (scratch, "src", NULL);
  *dst = g_build_filename (scratch, "shared", NULL);
  return scratch;
}

typedef void (*RaceFunc) (const char *dir, const char *victim);

/* Runs @job into @dst while @racer_main, a process of its own, works on @dst. */
static void
run_while_racing (FerryJob *job, const char *dst, RaceFunc racer_main, const char *victim)
{
  g_autoptr (GError) error = NULL;
  pid_t racer = fork ();

  g_assert_cmpint (racer, >=, 0);
  if (racer == 0)
    racer_main (dst, victim);
  ferry_job_set_error_policy (job, FERRY_ERROR_POLICY_SKIP);
  ferry_test_run_job (job, &error);
  kill (racer, SIGKILL);
  waitpid (racer, NULL, 0);
}

/* A job copying @names (freed) from @src into @dst. */
static FerryJob *
job_for_names (const char *src, GPtrArray *names, const char *dst)
{
  g_autoptr (GPtrArray) owned = names;
  g_autoptr (GPtrArray) sources = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GFile) destination = g_file_new_for_path (dst);

  for (guint i = 0; i < owned->len; i++)
    g_ptr_array_add (sources, g_file_new_for_path (ferry_test_path (src, owned->pdata[i], NULL)));
  return ferry_job_new ((GFile *const *) sources->pdata, sources->len, destination);
}

static FerryJob *
job_for_fifos (const char *src, const char *dst)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < N_FIFOS; i++)
    g_ptr_array_add (names, g_strdup_printf ("p-%03u", i));
  return job_for_names (src, names, dst);
}

/* One copy of the FIFOs into @dst while the racer runs; how many of
 * them it swapped. */
static guint
copy_while_racing (const char *src, const char *dst, const char *victim)
{
  g_autoptr (FerryJob) job = job_for_fifos (src, dst);
  guint swapped = 0;

  run_while_racing (job, dst, race, victim);
  for (guint i = 0; i < N_FIFOS; i++)
    {
      g_autofree char *name = g_strdup_printf ("p-%03u", i);
      struct stat st;
      if (lstat (ferry_test_path (dst, name, NULL), &st) == 0 && S_ISLNK (st.st_mode))
        swapped++;
    }
  return swapped;
}

static void
empty_folder (const char *dir)
{
  ferry_test_remove_tree (dir);
  g_assert_cmpint (mkdir (dir, 0755), ==, 0);
  g_assert_cmpint (chown (dir, NOBODY, NOBODY), ==, 0);
}

/* Root copies FIFOs (mode 0644) into a folder another user can write
 * to; that user swaps each new FIFO for a symlink to a file of root's.
 * Setting the FIFO's mode must not reach the file: it stays 0600. */
static void
test_special_file_swapped (void)
{
  g_autofree char *scratch = NULL;
  g_autofree char *src = NULL, *dst = NULL, *victim = NULL;
  guint swapped = 0;
  struct stat st;

  if ((scratch = race_scratch_new (&src, &dst)) == NULL)
    return;
  victim = g_build_filename (scratch, "victim", NULL);
  ferry_test_make_dirs (src);
  for (guint i = 0; i < N_FIFOS; i++)
    {
      g_autofree char *name = g_strdup_printf ("p-%03u", i);
      g_assert_cmpint (mkfifo (ferry_test_path (src, name, NULL), 0644), ==, 0);
      g_assert_cmpint (chmod (ferry_test_path (src, name, NULL), 0644), ==, 0);
    }
  ferry_test_write_text (victim, "root's\n");
  g_assert_cmpint (chmod (victim, 0600), ==, 0);

  for (guint round = 0; round < ROUNDS; round++)
    {
      empty_folder (dst);
      swapped += copy_while_racing (src, dst, victim);
      g_assert_cmpint (stat (victim, &st), ==, 0);
      g_assert_cmpuint (st.st_mode & 07777, ==, 0600);
      g_assert_cmpuint (st.st_uid, ==, 0);
    }
  g_test_message ("the racer swapped %u of %u FIFOs", swapped, ROUNDS * N_FIFOS);
  ferry_test_remove_tree (scratch);
}

/* As nobody, for ever: every folder "a-N" or "b-N" that appears in @dir
 * is moved aside and a symlink to @victim_dir put in its place. */
static void G_GNUC_NORETURN
race_folders (const char *dir, const char *victim_dir)
{
  char path[4096], aside[4096];

  if (setgid (NOBODY) != 0 || setuid (NOBODY) != 0)
    _exit (2);
  for (;;)
    for (guint i = 0; i < 2 * N_PAIRS; i++)
      {
        struct stat st;

        snprintf (path, sizeof path, "%s/%c-%03u", dir, i % 2 ? 'b' : 'a', i / 2);
        if (lstat (path, &st) != 0 || !S_ISDIR (st.st_mode))
          continue;
        snprintf (aside, sizeof aside, "%s/.aside-%u", dir, i);
        if (rename (path, aside) == 0)
          (void) symlink (victim_dir, path);
      }
}

static FerryJob *
job_for_pairs (const char *src, const char *dst)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < N_PAIRS; i++)
    {
      g_ptr_array_add (names, g_strdup_printf ("a-%03u", i));
      g_ptr_array_add (names, g_strdup_printf ("b-%03u", i));
    }
  return job_for_names (src, names, dst);
}

/* How many entries below @dir (not following symlinks) are the file
 * @victim describes. */
static guint
count_links_to (const char *dir, const struct stat *victim)
{
  g_autoptr (GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;
  guint found = 0;

  while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      struct stat st;

      if (lstat (path, &st) != 0)
        continue;
      if (S_ISDIR (st.st_mode))
        found += count_links_to (path, victim);
      else if (st.st_dev == victim->st_dev && st.st_ino == victim->st_ino)
        found++;
    }
  return found;
}

static void
make_pairs (const char *src)
{
  for (guint i = 0; i < N_PAIRS; i++)
    {
      g_autofree char *a = g_strdup_printf ("a-%03u", i);
      g_autofree char *b = g_strdup_printf ("b-%03u", i);
      const char *first = ferry_test_path (src, a, "f", NULL);

      ferry_test_make_dirs (ferry_test_path (src, a, NULL));
      ferry_test_make_dirs (ferry_test_path (src, b, NULL));
      ferry_test_write_text (first, "the user's\n");
      g_assert_cmpint (link (first, ferry_test_path (src, b, "f", NULL)), ==, 0);
    }
}

/* Root copies pairs of hard links ("a-N/f" and "b-N/f", one file) into
 * a folder another user can write to; that user swaps each new folder
 * for a symlink to a folder of root's holding a file "f". The second
 * name must link to the copy Ferry made, never to root's file. */
static void
test_hardlink_folder_swapped (void)
{
  g_autofree char *scratch = NULL;
  g_autofree char *src = NULL, *dst = NULL, *victim_dir = NULL;
  struct stat victim;
  guint linked = 0;

  if ((scratch = race_scratch_new (&src, &dst)) == NULL)
    return;
  victim_dir = g_build_filename (scratch, "root-only", NULL);
  make_pairs (src);
  ferry_test_make_dirs (victim_dir);
  ferry_test_write_text (ferry_test_path (victim_dir, "f", NULL), "root's\n");
  g_assert_cmpint (chmod (ferry_test_path (victim_dir, "f", NULL), 0600), ==, 0);
  g_assert_cmpint (stat (ferry_test_path (victim_dir, "f", NULL), &victim), ==, 0);

  for (guint round = 0; round < ROUNDS; round++)
    {
      g_autoptr (FerryJob) job = NULL;

      empty_folder (dst);
      job = job_for_pairs (src, dst);
      run_while_racing (job, dst, race_folders, victim_dir);
      linked += count_links_to (dst, &victim);
    }
  g_assert_cmpuint (linked, ==, 0);
  g_assert_cmpint (stat (ferry_test_path (victim_dir, "f", NULL), &victim), ==, 0);
  g_assert_cmpuint (victim.st_nlink, ==, 1);
  ferry_test_remove_tree (scratch);
}

/* src/lnk: a dangling link of another owner, with times of its own. */
static char *
make_owned_link (const char *src)
{
  char *link = g_build_filename (src, "lnk", NULL);

  ferry_test_make_dirs (src);
  g_assert_cmpint (symlink ("/nonexistent/target", link), ==, 0);
  g_assert_cmpint (lchown (link, 1234, 5678), ==, 0);
  ferry_test_set_times (link, 1000000000, 123456789);
  return link;
}

/* @path (not followed) has the owner and modification time of @want. */
static void
assert_owner_and_mtime (const char *path, const struct stat *want)
{
  struct stat st;

  g_assert_cmpint (lstat (path, &st), ==, 0);
  g_assert_cmpuint (st.st_mode & S_IFMT, ==, want->st_mode & S_IFMT);
  g_assert_cmpuint (st.st_uid, ==, want->st_uid);
  g_assert_cmpuint (st.st_gid, ==, want->st_gid);
  g_assert_cmpint (st.st_mtim.tv_sec, ==, want->st_mtim.tv_sec);
  g_assert_cmpint (st.st_mtim.tv_nsec, ==, want->st_mtim.tv_nsec);
}

/* Waits until @path is a symlink; FALSE if @process ended first. */
static gboolean
wait_for_link (GSubprocess *process, const char *path)
{
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
  struct stat st;

  while (lstat (path, &st) != 0 || !S_ISLNK (st.st_mode))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      if (g_subprocess_get_identifier (process) == NULL)
        return FALSE;
      g_usleep (1000);
    }
  return TRUE;
}

/* ferry-copy of @link into @dst, held for 2 s (by strace) right after
 * it made the link; meanwhile @theirs is renamed over it. Returns
 * ferry-copy's standard error; @ok: whether it succeeded. */
static char *
copy_link_swapped (const char *link, const char *dst, const char *theirs, gboolean *ok)
{
  g_autofree char *strace = ferry_test_strace_path ();
  g_autofree char *no_leak_check = ferry_test_no_leak_check_env ();
  g_autofree char *copy = g_build_filename (dst, "lnk", NULL);
  g_autoptr (GSubprocess) process = NULL;
  g_autoptr (GError) error = NULL;
  char *err = NULL;

  process = ferry_test_spawn_copy (ARGS (strace, "-f", "-qq", "-o", "/dev/null", "-E",
                                         no_leak_check, "-e", "trace=symlinkat", "-e",
                                         "inject=symlinkat:delay_exit=2000000"),
                                   ARGS ("--progress=none", link, dst));
  g_assert_true (wait_for_link (process, copy));
  g_assert_cmpint (rename (theirs, copy), ==, 0);
  g_subprocess_communicate_utf8 (process, NULL, NULL, NULL, &err, &error);
  g_assert_no_error (error);
  *ok = g_subprocess_get_successful (process);
  return err;
}

/* Root copies a link of another owner into a folder another user can
 * write to, and a file of that user's takes the link's name between its
 * making and its owner and times being set. They must not reach the
 * file (as root, a file of anyone's, hard-linked there): the entry
 * fails, naming it, and the file stays as it was. Left alone, the copy
 * keeps the link's owner and times. */
static void
test_link_swapped (void)
{
  g_autofree char *scratch = NULL;
  g_autofree char *src = NULL, *dst = NULL, *link = NULL, *copy = NULL, *theirs = NULL;
  g_autofree char *err = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (FerryJob) job = NULL;
  struct stat source, before;
  gboolean ok;

  if (ferry_test_skip_without_strace () || (scratch = race_scratch_new (&src, &dst)) == NULL)
    return;
  link = make_owned_link (src);
  copy = g_build_filename (dst, "lnk", NULL);
  theirs = g_build_filename (dst, ".theirs", NULL);
  g_assert_cmpint (lstat (link, &source), ==, 0);

  empty_folder (dst);
  job = ferry_test_job_new (ARGS (link), dst);
  g_assert_true (ferry_test_run_job (job, &error));
  g_assert_no_error (error);
  assert_owner_and_mtime (copy, &source);

  empty_folder (dst);
  ferry_test_write_text (theirs, "theirs\n");
  g_assert_cmpint (chown (theirs, NOBODY, NOBODY), ==, 0);
  ferry_test_set_times (theirs, 1500000000, 0);
  g_assert_cmpint (lstat (theirs, &before), ==, 0);
  err = copy_link_swapped (link, dst, theirs, &ok);
  g_test_message ("ferry-copy said: %s", err);
  assert_owner_and_mtime (copy, &before);
  g_assert_false (ok);
  g_assert_nonnull (strstr (err, copy));
  g_assert_nonnull (strstr (err, "was replaced by something else"));
  ferry_test_remove_tree (scratch);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ferry_engine_init ();
  g_test_add_func ("/safety/special-file-swapped-for-symlink", test_special_file_swapped);
  g_test_add_func ("/safety/hardlink-folder-swapped-for-symlink", test_hardlink_folder_swapped);
  g_test_add_func ("/safety/link-swapped-for-file", test_link_swapped);
  return g_test_run ();
}
