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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ferry-engine.h"
#include "ferry-test-util.h"

#define N_FIFOS 400
#define NOBODY  65534
#define ROUNDS  3

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

static FerryJob *
job_for_fifos (const char *src, const char *dst)
{
  g_autoptr (GPtrArray) sources = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GFile) destination = g_file_new_for_path (dst);

  for (guint i = 0; i < N_FIFOS; i++)
    {
      g_autofree char *name = g_strdup_printf ("p-%03u", i);
      g_ptr_array_add (sources, g_file_new_for_path (ferry_test_path (src, name, NULL)));
    }
  return ferry_job_new ((GFile *const *) sources->pdata, sources->len, destination);
}

/* One copy of the FIFOs into @dst while the racer runs; how many of
 * them it swapped. */
static guint
copy_while_racing (const char *src, const char *dst, const char *victim)
{
  g_autoptr (FerryJob) job = job_for_fifos (src, dst);
  g_autoptr (GError) error = NULL;
  guint swapped = 0;
  pid_t racer = fork ();

  g_assert_cmpint (racer, >=, 0);
  if (racer == 0)
    race (dst, victim);
  ferry_job_set_error_policy (job, FERRY_ERROR_POLICY_SKIP);
  ferry_test_run_job (job, &error);
  kill (racer, SIGKILL);
  waitpid (racer, NULL, 0);
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

  if (!ferry_test_is_root ())
    {
      g_test_skip ("racing another user needs root (CI runs as root)");
      return;
    }
  scratch = ferry_test_scratch_new ("safety");
  g_assert_cmpint (chmod (scratch, 0755), ==, 0);
  src = g_build_filename (scratch, "src", NULL);
  dst = g_build_filename (scratch, "shared", NULL);
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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ferry_engine_init ();
  g_test_add_func ("/safety/special-file-swapped-for-symlink", test_special_file_swapped);
  return g_test_run ();
}
