/* SPDX-License-Identifier: GPL-3.0-or-later */
/* How copies fail: every failure names the path and the reason, nothing
 * half-written ever appears under a final name, no temporary file is left
 * behind, and a job can be paused, resumed and cancelled mid-file.
 *
 * Tests that mount something (a small tmpfs, an XFS image, the emulated
 * stick) mount it in the test process, run the copy and its assertions in
 * a child (g_test_trap_subprocess) working in the same scratch folder,
 * and take the mount down in the parent before checking that the child
 * passed: a failed assertion never leaves anything mounted or attached. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "ferry-control.h"
#include "ferry-test-stick.h"
#include "ferry-test-util.h"
#include "ferry-verify.h"

#define MiB (1024 * 1024)

/* Where each test's scratch folder is made: one per test, named after
 * the test, so a child started by run_in_child() finds its parent's. Set
 * once in main(), before any thread exists, and inherited by children. */
#define SESSION_ENV "FERRY_TEST_FAILURES_SESSION"
/* A child that hangs is killed, so the parent still tears down. */
#define CHILD_TIMEOUT_USEC (60 * G_USEC_PER_SEC)
#define JOB_TIMEOUT_MS     60000
/* Long enough for a worker to reach its next check after a pause. */
#define SETTLE_MS 100

#define NOBODY 65534

typedef struct
{
  char *scratch;
  char *src;
  char *dst;
  gboolean adopted; /* a child in its parent's scratch folder */
} Fixture;

static char *
scratch_for_current_test (void)
{
  /* "/failures/a/b" -> "failures-a-b" */
  g_autofree char *name = g_strdelimit (g_strdup (g_test_get_path () + 1), "/", '-');

  return g_build_filename (g_getenv (SESSION_ENV), name, NULL);
}

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  f->scratch = scratch_for_current_test ();
  f->src = g_build_filename (f->scratch, "src", NULL);
  f->dst = g_build_filename (f->scratch, "dst", NULL);
  /* A child works in what its parent prepared. */
  f->adopted = g_test_subprocess ();
  if (!f->adopted)
    {
      g_assert_cmpint (mkdir (f->scratch, 0755), ==, 0);
      ferry_test_make_dirs (f->src);
      ferry_test_make_dirs (f->dst);
    }
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  /* The parent removes what it made, after its own teardown. */
  if (!f->adopted)
    ferry_test_remove_tree (f->scratch);
  g_free (f->scratch);
  g_free (f->src);
  g_free (f->dst);
}

/* Runs the current test again in a child process, in the same scratch
 * folder; the caller tears down, then calls g_test_trap_assert_passed(). */
static void
run_in_child (void)
{
  g_test_trap_subprocess (NULL, CHILD_TIMEOUT_USEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
}

static char *
scratch_path (Fixture *f, const char *name)
{
  return g_build_filename (f->scratch, name, NULL);
}

/* ------------------------------------------------------------------ */
/* Running jobs                                                        */

static FerryJob *
job_new_one_worker (const char *source, const char *destination)
{
  const char *sources[] = { source, NULL };
  FerryJob *job = ferry_test_job_new (sources, destination);

  /* One worker copies in listing order: which file is in flight, and
   * which come after it, is then known. */
  ferry_job_set_n_workers (job, 1);
  return job;
}

/* Starts @job and holds it inside its first file. Returns the source
 * path of the file in flight, as the progress names it. */
static char *
pause_in_first_file (FerryJob *job, FerryTestJobRun *run, guint64 file_size)
{
  g_auto (FerryProgress) progress = { 0 };

  ferry_test_job_start (job, run);
  ferry_test_wait_for_bytes (job, 1);
  ferry_job_pause (job);
  /* The worker stops at its next check, after the chunk it is copying. */
  ferry_test_spin (SETTLE_MS);
  ferry_job_get_progress (job, &progress);
  g_assert_true (progress.paused);
  g_assert_true (ferry_job_get_paused (job));
  g_assert_cmpint (progress.phase, ==, FERRY_PHASE_COPYING);
  /* Less than one file: the first one is still in flight, and with one
   * worker the next one has not started. */
  g_assert_cmpuint (progress.bytes_written, >, 0);
  g_assert_cmpuint (progress.bytes_written, <, file_size);
  g_assert_nonnull (progress.current);
  return g_strdup (progress.current);
}

static guint64
get_bytes_written (FerryJob *job)
{
  g_auto (FerryProgress) progress = { 0 };

  ferry_job_get_progress (job, &progress);
  return progress.bytes_written;
}

/* ------------------------------------------------------------------ */
/* Assertions                                                          */

static void
assert_mentions (const char *message, const char *part)
{
  if (strstr (message, part) == NULL)
    g_error ("“%s” does not mention “%s”", message, part);
}

static GPtrArray *
dup_failures_expecting (FerryJob *job, guint n)
{
  GPtrArray *failures = ferry_job_dup_failures (job);

  if (failures->len != n)
    {
      g_autofree char *described = ferry_test_describe_failures (job);
      g_error ("%u failures reported, %u expected:\n%s", failures->len, n, described);
    }
  g_assert_cmpuint (ferry_job_get_n_failures (job), ==, n);
  return failures;
}

/* @failure is about @source_path: its source, and its message naming the
 * file and @reason. */
static void
assert_failure_of (FerryFailure *failure, const char *source_path, const char *reason)
{
  g_autofree char *reported = g_file_get_path (failure->source);

  g_assert_cmpstr (reported, ==, source_path);
  assert_mentions (failure->error->message, source_path);
  assert_mentions (failure->error->message, reason);
}

/* The job reported exactly one failure: @source_path, with this error. */
static void
assert_one_failure (FerryJob *job,
                    const char *source_path,
                    GQuark domain,
                    int code,
                    const char *reason)
{
  g_autoptr (GPtrArray) failures = dup_failures_expecting (job, 1);
  FerryFailure *failure = g_ptr_array_index (failures, 0);
  g_auto (FerryProgress) progress = { 0 };

  g_assert_error (failure->error, domain, code);
  assert_failure_of (failure, source_path, reason);
  ferry_job_get_progress (job, &progress);
  g_assert_cmpuint (progress.files_failed, ==, 1);
}

static void
assert_phase (FerryJob *job, FerryPhase phase)
{
  g_assert_cmpstr (ferry_phase_to_string (ferry_job_get_phase (job)), ==,
                   ferry_phase_to_string (phase));
}

static void
assert_absent (const char *path)
{
  struct stat st;

  if (lstat (path, &st) == 0)
    g_error ("“%s” exists; it must not", path);
  g_assert_cmpint (errno, ==, ENOENT);
}

/* No temporary file is left in @dst, named or unnamed: an unnamed one
 * (O_TMPFILE, which the filesystems here support) has no name to find,
 * but one not discarded is still open, as "@dst/#1234 (deleted)". A sync
 * that a cancel gave up keeps the folder open until the kernel has done
 * it, which on a busy machine may take a while. */
/* No file below @dst is held open any more (waiting a moment for
 * threads that are still ending). */
static void
assert_none_open (const char *dst)
{
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

  while (ferry_test_count_open_below (dst) > 0 && g_get_monotonic_time () < deadline)
    ferry_test_spin (10);
  g_assert_cmpuint (ferry_test_count_open_below (dst), ==, 0);
}

static void
assert_no_temp_files (const char *dst)
{
  g_assert_cmpuint (ferry_test_count_temp_files (dst), ==, 0);
  assert_none_open (dst);
}

/* ------------------------------------------------------------------ */
/* Unreadable files and folders                                        */

#define N_READABLE 8
#define N_LOCKED   2

typedef struct
{
  gboolean folders;
  FerryErrorPolicy policy;
} UnreadableCase;

static char *
readable_name (guint i)
{
  return g_strdup_printf ("file-%02u", i);
}

static char *
locked_name (guint i)
{
  return g_strdup_printf ("locked-%u", i);
}

/* src/ holds N_READABLE files and N_LOCKED entries with mode 0000 (files,
 * or folders with a file inside) that only root can open. */
static void
make_tree_with_locked (Fixture *f, gboolean folders)
{
  for (guint i = 0; i < N_READABLE; i++)
    {
      g_autofree char *name = readable_name (i);
      g_autofree char *path = g_build_filename (f->src, name, NULL);
      ferry_test_write_random (path, 64 * 1024 + i, 10 + i);
    }
  for (guint i = 0; i < N_LOCKED; i++)
    {
      g_autofree char *name = locked_name (i);
      g_autofree char *path = g_build_filename (f->src, name, NULL);

      if (folders)
        {
          g_autofree char *inside = g_build_filename (path, "inside.txt", NULL);
          ferry_test_make_dirs (path);
          ferry_test_write_text (inside, "secret\n");
        }
      else
        ferry_test_write_random (path, 100000, 20 + i);
      g_assert_cmpint (chmod (path, 0), ==, 0);
    }
  /* The copy may run as nobody, who must be able to write it. */
  g_assert_cmpint (chmod (f->dst, 0777), ==, 0);
}

/* No figure of a job's progress contradicts another: nothing durable
 * that is not written, nothing written beyond the total, and the items
 * done (copied or skipped) and failed are among those counted. */
static void
assert_figures_agree (const FerryProgress *p)
{
  g_assert_cmpuint (p->bytes_durable, <=, p->bytes_written);
  g_assert_cmpuint (p->bytes_written, <=, p->bytes_total);
  g_assert_cmpuint (p->bytes_failed, <=, p->bytes_total);
  g_assert_cmpuint (p->files_done + p->files_failed, <=, p->files_total);
}

/* Root reads everything, whatever the mode. */
static void
become_nobody (void)
{
  g_assert_cmpint (setgroups (0, NULL), ==, 0);
  g_assert_cmpint (setgid (NOBODY), ==, 0);
  g_assert_cmpint (setuid (NOBODY), ==, 0);
  g_assert_cmpint (geteuid (), ==, NOBODY);
}

static void
assert_readable_copied (Fixture *f, const char *name)
{
  g_autofree char *source = g_build_filename (f->src, name, NULL);
  g_autofree char *copy = g_build_filename (f->dst, "src", name, NULL);

  ferry_test_assert_files_equal (source, copy);
}

/* Under FERRY_ERROR_POLICY_SKIP each locked entry is reported and left
 * out; everything else is copied. */
static void
check_locked_skipped (Fixture *f, FerryJob *job, const GError *error)
{
  g_autoptr (GPtrArray) failures = dup_failures_expecting (job, N_LOCKED);
  g_autofree char *copy = g_build_filename (f->dst, "src", NULL);
  g_auto (FerryProgress) progress = { 0 };

  g_assert_error (error, FERRY_ERROR, FERRY_ERROR_PARTIAL);
  for (guint i = 0; i < N_LOCKED; i++)
    {
      g_autofree char *name = locked_name (i);
      g_autofree char *source = g_build_filename (f->src, name, NULL);
      g_autofree char *target = g_build_filename (copy, name, NULL);
      gboolean reported = FALSE;

      for (guint j = 0; j < failures->len; j++)
        {
          FerryFailure *failure = g_ptr_array_index (failures, j);
          g_autofree char *failed = g_file_get_path (failure->source);

          if (g_str_equal (failed, source))
            {
              g_assert_error (failure->error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
              assert_failure_of (failure, source, "Permission denied");
              reported = TRUE;
            }
        }
      g_assert_true (reported);
      assert_absent (target);
    }
  for (guint i = 0; i < N_READABLE; i++)
    {
      g_autofree char *name = readable_name (i);
      assert_readable_copied (f, name);
    }
  g_assert_cmpuint (ferry_test_count_entries (copy), ==, N_READABLE);

  ferry_job_get_progress (job, &progress);
  g_assert_cmpuint (progress.files_failed, ==, N_LOCKED);
  /* src itself, its files and the locked entries (their insides cannot
   * be listed, so they never counted). */
  g_assert_cmpuint (progress.files_total, ==, 1 + N_READABLE + N_LOCKED);
  /* What failed is not done, and its bytes stay in the total: the row
   * had counted failed files among those copied. */
  g_assert_cmpuint (progress.files_done, ==, 1 + N_READABLE);
  g_assert_cmpuint (progress.bytes_written + progress.bytes_failed, ==, progress.bytes_total);
  assert_figures_agree (&progress);
}

/* Under FERRY_ERROR_POLICY_STOP the first locked entry ends the job with
 * its own error: the other one is never tried. The folder "src" was new
 * to the destination, built under a hidden name: the job that stopped
 * removes it whole, so nothing of it is left. */
static void
check_locked_stops (Fixture *f, FerryJob *job, const GError *error)
{
  g_autoptr (GPtrArray) failures = dup_failures_expecting (job, 1);
  FerryFailure *failure = g_ptr_array_index (failures, 0);
  g_autofree char *failed = g_file_get_path (failure->source);
  g_autofree char *failed_name = g_path_get_basename (failed);

  g_assert_true (g_str_has_prefix (failed_name, "locked-"));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  assert_mentions (error->message, failed);
  assert_mentions (error->message, "Permission denied");
  g_assert_error (failure->error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  assert_failure_of (failure, failed, "Permission denied");
  g_assert_cmpuint (ferry_test_count_entries (f->dst), ==, 0);
}

static void
check_unreadable (Fixture *f, const UnreadableCase *c)
{
  g_autoptr (FerryJob) job = job_new_one_worker (f->src, f->dst);
  g_autoptr (GError) error = NULL;

  ferry_job_set_error_policy (job, c->policy);
  g_assert_false (ferry_test_run_job (job, &error));
  assert_phase (job, FERRY_PHASE_FAILED);
  if (c->policy == FERRY_ERROR_POLICY_SKIP)
    check_locked_skipped (f, job, error);
  else
    check_locked_stops (f, job, error);
  assert_no_temp_files (f->dst);
}

static void
test_unreadable (Fixture *f, gconstpointer data)
{
  const UnreadableCase *c = data;

  if (g_test_subprocess ())
    {
      become_nobody ();
      check_unreadable (f, c);
      return;
    }
  make_tree_with_locked (f, c->folders);
  if (!ferry_test_is_root ())
    {
      /* Mode 0000 keeps out even the owner without root's privileges. */
      check_unreadable (f, c);
      return;
    }
  /* Root would read them anyway: copy as nobody, which a process cannot
   * undo, so in a child. */
  run_in_child ();
  g_test_trap_assert_passed ();
}

/* ------------------------------------------------------------------ */
/* Sources that vanish or change while they are copied                 */

#define BIG_FILE_SIZE (64 * MiB)

typedef struct
{
  char *a;
  char *b;
  char *in_flight;
  char *waiting; /* listed after the one in flight */
} TwoFiles;

static void
two_files_clear (TwoFiles *files)
{
  g_free (files->a);
  g_free (files->b);
  g_free (files->in_flight);
  g_free (files->waiting);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (TwoFiles, two_files_clear)

static void
make_two_big_files (Fixture *f, TwoFiles *files)
{
  files->a = g_build_filename (f->src, "A", NULL);
  files->b = g_build_filename (f->src, "B", NULL);
  ferry_test_write_random (files->a, BIG_FILE_SIZE, 1);
  ferry_test_write_random (files->b, BIG_FILE_SIZE, 2);
}

/* Pauses @job inside the first of @files and says which one that is. */
static void
pause_in_one_of_two (FerryJob *job, FerryTestJobRun *run, TwoFiles *files)
{
  files->in_flight = pause_in_first_file (job, run, BIG_FILE_SIZE);
  if (g_str_equal (files->in_flight, files->a))
    files->waiting = g_strdup (files->b);
  else if (g_str_equal (files->in_flight, files->b))
    files->waiting = g_strdup (files->a);
  else
    g_error ("the progress names “%s” as the file in flight, neither A nor B", files->in_flight);
}

static char *
copy_path_of (Fixture *f, const char *source)
{
  g_autofree char *name = g_path_get_basename (source);
  return g_build_filename (f->dst, "src", name, NULL);
}

/* The file after the one in flight is deleted: when its turn comes it is
 * reported as vanished, and the rest of the copy is unharmed. */
static void
test_vanished_waiting (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryJob) job = job_new_one_worker (f->src, f->dst);
  g_auto (FerryTestJobRun) run = { 0 };
  g_auto (TwoFiles) files = { 0 };
  g_autofree char *in_flight_copy = NULL;
  g_autofree char *waiting_copy = NULL;

  make_two_big_files (f, &files);
  pause_in_one_of_two (job, &run, &files);
  g_assert_cmpint (unlink (files.waiting), ==, 0);
  ferry_job_resume (job);
  ferry_test_job_wait (&run, JOB_TIMEOUT_MS);

  g_assert_false (run.ok);
  g_assert_error (run.error, FERRY_ERROR, FERRY_ERROR_PARTIAL);
  assert_phase (job, FERRY_PHASE_FAILED);
  assert_one_failure (job, files.waiting, FERRY_ERROR, FERRY_ERROR_VANISHED, "disappeared");
  in_flight_copy = copy_path_of (f, files.in_flight);
  waiting_copy = copy_path_of (f, files.waiting);
  ferry_test_assert_files_equal (files.in_flight, in_flight_copy);
  assert_absent (waiting_copy);
  assert_no_temp_files (f->dst);
}

/* The file in flight is deleted: its open descriptor still reads, but a
 * copy of a deleted file is not kept. */
static void
test_vanished_in_flight (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryJob) job = job_new_one_worker (f->src, f->dst);
  g_auto (FerryTestJobRun) run = { 0 };
  g_auto (TwoFiles) files = { 0 };
  g_autofree char *in_flight_copy = NULL;
  g_autofree char *waiting_copy = NULL;

  make_two_big_files (f, &files);
  pause_in_one_of_two (job, &run, &files);
  g_assert_cmpint (unlink (files.in_flight), ==, 0);
  ferry_job_resume (job);
  ferry_test_job_wait (&run, JOB_TIMEOUT_MS);

  g_assert_false (run.ok);
  g_assert_error (run.error, FERRY_ERROR, FERRY_ERROR_PARTIAL);
  assert_one_failure (job, files.in_flight, FERRY_ERROR, FERRY_ERROR_VANISHED,
                      "deleted while it was being copied");
  in_flight_copy = copy_path_of (f, files.in_flight);
  waiting_copy = copy_path_of (f, files.waiting);
  assert_absent (in_flight_copy);
  ferry_test_assert_files_equal (files.waiting, waiting_copy);
  assert_no_temp_files (f->dst);
}

/* The file in flight is replaced, a new file renamed over it (as
 * editors and downloads save): discarded, and said to be replaced, not
 * deleted, for a file is there. */
static void
test_replaced_in_flight (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryJob) job = job_new_one_worker (f->src, f->dst);
  g_auto (FerryTestJobRun) run = { 0 };
  g_auto (TwoFiles) files = { 0 };
  g_autofree char *new_version = g_build_filename (f->scratch, "new-version", NULL);
  g_autofree char *in_flight_copy = NULL;

  make_two_big_files (f, &files);
  pause_in_one_of_two (job, &run, &files);
  ferry_test_write_random (new_version, 1000, 3);
  g_assert_cmpint (rename (new_version, files.in_flight), ==, 0);
  ferry_job_resume (job);
  ferry_test_job_wait (&run, JOB_TIMEOUT_MS);

  g_assert_false (run.ok);
  assert_one_failure (job, files.in_flight, FERRY_ERROR, FERRY_ERROR_CHANGED,
                      "was replaced by another file while it was being copied");
  in_flight_copy = copy_path_of (f, files.in_flight);
  assert_absent (in_flight_copy);
  assert_no_temp_files (f->dst);
}

typedef enum
{
  CHANGE_APPEND,
  CHANGE_TRUNCATE,
} Change;

static void
change_size (const char *path, Change change)
{
  int fd = open (path, O_WRONLY | O_APPEND | O_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  if (change == CHANGE_APPEND)
    g_assert_cmpint (write (fd, "more\n", 5), ==, 5);
  else
    g_assert_cmpint (ftruncate (fd, MiB), ==, 0);
  g_assert_cmpint (close (fd), ==, 0);
}

/* A file that grows or shrinks while it is copied is a copy of neither
 * version: discarded, and reported as changed. */
static void
test_changed_size (Fixture *f, gconstpointer data)
{
  Change change = GPOINTER_TO_INT (data);
  g_autofree char *source = g_build_filename (f->src, "growing", NULL);
  g_autofree char *copy = g_build_filename (f->dst, "growing", NULL);
  g_autoptr (FerryJob) job = job_new_one_worker (source, f->dst);
  g_auto (FerryTestJobRun) run = { 0 };
  g_autofree char *in_flight = NULL;

  ferry_test_write_random (source, BIG_FILE_SIZE, 3);
  in_flight = pause_in_first_file (job, &run, BIG_FILE_SIZE);
  g_assert_cmpstr (in_flight, ==, source);
  change_size (source, change);
  ferry_job_resume (job);
  ferry_test_job_wait (&run, JOB_TIMEOUT_MS);

  g_assert_false (run.ok);
  g_assert_error (run.error, FERRY_ERROR, FERRY_ERROR_PARTIAL);
  assert_one_failure (job, source, FERRY_ERROR, FERRY_ERROR_CHANGED,
                      "changed while it was being copied");
  assert_absent (copy);
  g_assert_cmpuint (ferry_test_count_entries (f->dst), ==, 0);
  assert_no_temp_files (f->dst);
}

/* ------------------------------------------------------------------ */
/* A full destination                                                  */

/* Lazily when a child that died left a file open there: the mount must
 * go whatever happened. */
static void
unmount (const char *mountpoint)
{
  if (umount2 (mountpoint, 0) != 0)
    g_assert_cmpint (umount2 (mountpoint, MNT_DETACH), ==, 0);
}

#define SMALL_FS_SIZE   "40M"
#define N_SPACE_FILES   4
#define SPACE_FILE_SIZE (8 * MiB)
/* Room for one more file, and a little: the second one cannot fit. */
#define LEFT_FREE (SPACE_FILE_SIZE + 3 * MiB)

static char *
space_file_name (guint i)
{
  return g_strdup_printf ("eight-%u", i);
}

/* The copy that filled the disk names the file it could not write. The
 * folder it went into was new, so it was built under a hidden name and
 * the failure removed it whole: nothing is under a final name, not even
 * the file that fit before the disk was full. */
static void
check_no_space_outcome (Fixture *f, const char *small, const GError *error)
{
  g_autofree char *copy = g_build_filename (small, "src", NULL);
  guint n_named = 0;

  for (guint i = 0; i < N_SPACE_FILES; i++)
    {
      g_autofree char *name = space_file_name (i);
      g_autofree char *target = g_build_filename (copy, name, NULL);

      n_named += strstr (error->message, target) != NULL;
    }
  g_assert_cmpuint (n_named, ==, 1);
  assert_absent (copy);
  /* Only the filler is left. */
  g_assert_cmpuint (ferry_test_count_entries (small), ==, 1);
}

static void
check_no_space (Fixture *f)
{
  g_autofree char *small = scratch_path (f, "small");
  g_autoptr (FerryJob) job = job_new_one_worker (f->src, small);
  g_autoptr (GPtrArray) failures = NULL;
  g_auto (FerryTestJobRun) run = { 0 };
  g_auto (FerryProgress) progress = { 0 };

  /* Paused before it starts, the job plans (and checks that everything
   * fits) and then holds before its first file: the disk fills up
   * between the check and the copy, as when another program writes. */
  ferry_job_pause (job);
  ferry_test_job_start (job, &run);
  ferry_test_wait_for_phase (job, FERRY_PHASE_COPYING);
  ferry_test_spin (SETTLE_MS);
  g_assert_cmpuint (get_bytes_written (job), ==, 0);
  g_free (ferry_test_fill_leaving (small, LEFT_FREE));
  ferry_job_resume (job);
  ferry_test_job_wait (&run, JOB_TIMEOUT_MS);

  g_assert_false (run.ok);
  g_assert_error (run.error, G_IO_ERROR, G_IO_ERROR_NO_SPACE);
  assert_mentions (run.error->message, small);
  assert_mentions (run.error->message, "No space left on device");
  assert_phase (job, FERRY_PHASE_FAILED);
  /* The destination failing stops the job: one failure, not one per
   * remaining file. */
  failures = dup_failures_expecting (job, 1);
  g_assert_cmpstr (((FerryFailure *) g_ptr_array_index (failures, 0))->error->message, ==,
                   run.error->message);
  check_no_space_outcome (f, small, run.error);
  assert_no_temp_files (small);
  /* The total stays what the copy set out to write, and nothing is done:
   * a file onto a stick filled mid-copy had read "29.1 MB of 0 bytes on
   * the drive · 1 of 1 item". */
  ferry_job_get_progress (job, &progress);
  g_assert_cmpuint (progress.bytes_total, ==, N_SPACE_FILES * SPACE_FILE_SIZE);
  g_assert_cmpuint (progress.files_failed, ==, 1);
  /* The failed file is not done; the folder was, when it was made. */
  g_assert_cmpuint (progress.files_done, <=, 1);
  assert_figures_agree (&progress);
}

static void
test_no_space (Fixture *f, gconstpointer data)
{
  g_autofree char *small = scratch_path (f, "small");

  if (!ferry_test_is_root ())
    {
      g_test_skip ("mounting a small tmpfs needs root (CI runs as root)");
      return;
    }
  if (g_test_subprocess ())
    {
      check_no_space (f);
      return;
    }

  for (guint i = 0; i < N_SPACE_FILES; i++)
    {
      g_autofree char *name = space_file_name (i);
      g_autofree char *path = g_build_filename (f->src, name, NULL);
      ferry_test_write_random (path, SPACE_FILE_SIZE, 30 + i);
    }
  ferry_test_make_dirs (small);
  g_assert_cmpint (mount ("ferry-test", small, "tmpfs", MS_NOSUID | MS_NODEV,
                          "size=" SMALL_FS_SIZE ",mode=0755"),
                   ==, 0);
  run_in_child ();
  unmount (small);
  g_test_trap_assert_passed ();
}

/* ------------------------------------------------------------------ */
/* Failing devices                                                     */

#define STICK_SIZE    (64 * MiB)
#define STICK_RATE    (200 * 1000 * 1000)
#define N_STICK_FILES 3

static char *
stick_mountpoint (Fixture *f)
{
  return scratch_path (f, "stick");
}

/* NULL after g_test_skip() where no stick can be made. */
static FerryTestStick *
new_stick_or_skip (Fixture *f)
{
  g_autofree char *workdir = scratch_path (f, "stick-work");
  g_autofree char *mountpoint = stick_mountpoint (f);

  return ferry_test_stick_new_or_skip (workdir, mountpoint, "FERRYFAIL", STICK_SIZE, STICK_RATE);
}

static char *
stick_file_name (guint i)
{
  return g_strdup_printf ("on-stick-%u", i);
}

/* Reading the folder and the files' inodes brings them into the cache,
 * while the files' data stays on the "device": the copy then gets as
 * far as reading the data. */
static void
cache_metadata_only (const char *dir)
{
  for (guint i = 0; i < N_STICK_FILES; i++)
    {
      g_autofree char *name = stick_file_name (i);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      struct stat st;

      g_assert_cmpint (lstat (path, &st), ==, 0);
    }
  g_assert_cmpuint (ferry_test_count_entries (dir), ==, N_STICK_FILES);
}

/* Where the copy goes: the local disk, or another folder on the stick,
 * where the kernel may copy inside the filesystem (copy_file_range) and
 * Ferry must still tell that the read failed, not the write. */
static char *
read_error_destination (Fixture *f, gboolean onto_stick)
{
  g_autofree char *mountpoint = stick_mountpoint (f);

  if (onto_stick)
    return g_build_filename (mountpoint, "copies", NULL);
  return g_strdup (f->dst);
}

static void
check_source_read_errors (Fixture *f, gboolean onto_stick)
{
  g_autofree char *mountpoint = stick_mountpoint (f);
  g_autofree char *source = g_build_filename (mountpoint, "src", NULL);
  g_autofree char *dst = read_error_destination (f, onto_stick);
  g_autofree char *copy = g_build_filename (dst, "src", NULL);
  g_autoptr (FerryJob) job = job_new_one_worker (source, dst);
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) failures = NULL;

  g_assert_false (ferry_test_run_job (job, &error));
  g_assert_error (error, FERRY_ERROR, FERRY_ERROR_PARTIAL);
  assert_phase (job, FERRY_PHASE_FAILED);
  /* A failing source is not a failing destination: every file is tried. */
  failures = dup_failures_expecting (job, N_STICK_FILES);
  for (guint i = 0; i < failures->len; i++)
    {
      FerryFailure *failure = g_ptr_array_index (failures, i);
      g_autofree char *failed = g_file_get_path (failure->source);

      g_assert_true (g_str_has_prefix (failed, source));
      g_assert_true (failure->error->domain == G_IO_ERROR);
      assert_failure_of (failure, failed, "Could not read");
      assert_mentions (failure->error->message, "Input/output error");
    }
  g_assert_cmpuint (ferry_test_count_entries (copy), ==, 0);
  assert_no_temp_files (dst);
}

/* The source's drive pulled out once the copy began: its reads fail,
 * and it is gone from where it was mounted. The first failure ends the
 * job, saying so, instead of each file failing alone with
 * "Input/output error" (a card of 1,000 photos pulled out at the 430th
 * gave 570 such lines). Nothing is left half-copied. */
static void
check_source_pulled_out (Fixture *f)
{
  g_autofree char *mountpoint = stick_mountpoint (f);
  g_autofree char *source = g_build_filename (mountpoint, "src", NULL);
  g_autofree char *copy = g_build_filename (f->dst, "src", NULL);
  g_autoptr (FerryJob) job = job_new_one_worker (source, f->dst);
  g_autoptr (GPtrArray) failures = NULL;
  g_auto (FerryTestJobRun) run = { 0 };

  /* planned (the sources opened) before the drive goes */
  ferry_job_pause (job);
  ferry_test_job_start (job, &run);
  ferry_test_wait_for_phase (job, FERRY_PHASE_COPYING);
  g_assert_cmpint (umount2 (mountpoint, MNT_DETACH), ==, 0);
  ferry_job_resume (job);
  ferry_test_job_wait (&run, JOB_TIMEOUT_MS);

  g_assert_false (run.ok);
  g_assert_error (run.error, FERRY_ERROR, FERRY_ERROR_SOURCE_GONE);
  assert_mentions (run.error->message, source);
  assert_mentions (run.error->message, "its drive was unplugged");
  assert_phase (job, FERRY_PHASE_FAILED);
  failures = dup_failures_expecting (job, 1);
  g_assert_false (g_file_test (copy, G_FILE_TEST_EXISTS) && ferry_test_count_entries (copy) > 0);
  assert_no_temp_files (f->dst);
}

/* The folder a copy goes into deleted by someone meanwhile (in a file
 * manager, as a person does who changed their mind): the first file
 * that fails for it ends the job, naming the folder, instead of each
 * file left failing alone with "No such file or directory" (189 lines
 * for a folder deleted on an exFAT stick). Nothing comes back under
 * the deleted folder's name. */
static void
test_destination_deleted (Fixture *f, gconstpointer data)
{
  g_autofree char *album = g_build_filename (f->src, "Album", NULL);
  g_autofree char *copy = g_build_filename (f->dst, "Album", NULL);
  g_autoptr (FerryJob) job = NULL;
  g_autoptr (GPtrArray) failures = NULL;
  g_auto (FerryTestJobRun) run = { 0 };

  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/clip%u.mov", album, i);

      ferry_test_make_dirs (album);
      ferry_test_write_random (path, BIG_FILE_SIZE, i);
    }
  /* copied into the folder of an earlier copy, which a person sees */
  ferry_test_make_dirs (copy);
  job = job_new_one_worker (album, f->dst);
  g_free (pause_in_first_file (job, &run, BIG_FILE_SIZE));
  ferry_test_remove_tree (copy);
  ferry_job_resume (job);
  ferry_test_job_wait (&run, JOB_TIMEOUT_MS);

  g_assert_false (run.ok);
  g_assert_error (run.error, FERRY_ERROR, FERRY_ERROR_DESTINATION_DELETED);
  assert_mentions (run.error->message, copy);
  assert_mentions (run.error->message, "was deleted during the copy");
  assert_phase (job, FERRY_PHASE_FAILED);
  failures = dup_failures_expecting (job, 1);
  g_assert_false (g_file_test (copy, G_FILE_TEST_EXISTS));
  assert_no_temp_files (f->dst);
}

/* Writing in @dir brings the allocation metadata it needs into the
 * cache, so that writing there later needs no read from the device. */
static void
cache_for_writing (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "warm-up", NULL);
  int fd;

  ferry_test_write_random (path, 2 * MiB, 60);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (fsync (fd), ==, 0);
  g_assert_cmpint (close (fd), ==, 0);
  g_assert_cmpint (unlink (path), ==, 0);
}

/* How the source fails: its reads (copied to the local disk, or
 * within the stick), or its drive pulled out. */
typedef enum
{
  SOURCE_FAILS_READS,
  SOURCE_FAILS_READS_SAME_DEVICE,
  SOURCE_PULLED_OUT,
} SourceFailure;

/* A source whose device fails reads: each file is reported with its
 * path and the reason, none is left half-copied; once its drive is
 * pulled out, the job ends at the first. */
static void
test_source_read_error (Fixture *f, gconstpointer data)
{
  SourceFailure how = GPOINTER_TO_INT (data);
  gboolean onto_stick = how == SOURCE_FAILS_READS_SAME_DEVICE;
  g_autoptr (FerryTestStick) stick = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *mountpoint = stick_mountpoint (f);
  g_autofree char *source = g_build_filename (mountpoint, "src", NULL);
  g_autofree char *dst = read_error_destination (f, onto_stick);

  if (g_test_subprocess ())
    {
      if (how == SOURCE_PULLED_OUT)
        check_source_pulled_out (f);
      else
        check_source_read_errors (f, onto_stick);
      return;
    }
  if ((stick = new_stick_or_skip (f)) == NULL)
    return;

  ferry_test_make_dirs (source);
  ferry_test_make_dirs (dst);
  for (guint i = 0; i < N_STICK_FILES; i++)
    {
      g_autofree char *name = stick_file_name (i);
      g_autofree char *path = g_build_filename (source, name, NULL);
      ferry_test_write_random (path, MiB + i, 40 + i);
    }
  /* Remounting drops the page cache, so reads reach the device. */
  ferry_test_stick_remount (stick, &error);
  g_assert_no_error (error);
  cache_metadata_only (source);
  if (onto_stick)
    cache_for_writing (dst);
  ferry_test_stick_set_fail_reads (stick, TRUE, &error);
  g_assert_no_error (error);

  run_in_child ();
  g_clear_pointer (&stick, ferry_test_stick_free);
  g_test_trap_assert_passed ();
}

static void
check_destination_write_error (Fixture *f)
{
  g_autofree char *mountpoint = stick_mountpoint (f);
  g_autoptr (FerryJob) job = job_new_one_worker (f->src, mountpoint);
  g_autoptr (GError) error = NULL;
  g_auto (FerryProgress) progress = { 0 };

  g_assert_false (ferry_test_run_job (job, &error));
  g_assert_true (error->domain == G_IO_ERROR);
  assert_mentions (error->message, mountpoint);
  assert_mentions (error->message, "Input/output error");
  assert_phase (job, FERRY_PHASE_FAILED);
  /* Nothing may be claimed to be on the device. */
  ferry_job_get_progress (job, &progress);
  g_assert_cmpuint (progress.bytes_durable, ==, 0);
  /* Where the device was known fast before "src" was made, that folder
   * was built under a hidden name and never renamed into place: its
   * removal fails too once the filesystem turned read-only, so it may
   * stay (for the next run to remove); nothing else of Ferry's may. */
  g_assert_cmpuint (ferry_test_count_hidden_folders (mountpoint), <=, 1);
  g_assert_cmpuint (ferry_test_count_temp_files (mountpoint), ==,
                    ferry_test_count_hidden_folders (mountpoint));
  assert_none_open (mountpoint);
}

/* A destination whose device fails writes: the data sits in the page
 * cache until the final sync, which reports the failure. */
static void
test_destination_write_error (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestStick) stick = NULL;
  g_autoptr (GError) error = NULL;

  if (g_test_subprocess ())
    {
      check_destination_write_error (f);
      return;
    }
  if ((stick = new_stick_or_skip (f)) == NULL)
    return;

  for (guint i = 0; i < N_STICK_FILES; i++)
    {
      g_autofree char *name = stick_file_name (i);
      g_autofree char *path = g_build_filename (f->src, name, NULL);
      ferry_test_write_random (path, 2 * MiB + i, 50 + i);
    }
  ferry_test_stick_set_fail_writes (stick, TRUE, &error);
  g_assert_no_error (error);

  run_in_child ();
  g_clear_pointer (&stick, ferry_test_stick_free);
  g_test_trap_assert_passed ();
}

/* ------------------------------------------------------------------ */
/* A drive that stops taking data                                      */

/* The number after "@key": in a line of ferry-copy's JSON; -2 without it. */
static double
json_number (const char *line, const char *key)
{
  g_autofree char *quoted = g_strdup_printf ("\"%s\":", key);
  const char *at = strstr (line, quoted);

  return at != NULL ? g_ascii_strtod (at + strlen (quoted), NULL) : -2;
}

static char *
read_json_line (GDataInputStream *in)
{
  g_autoptr (GError) error = NULL;
  char *line = g_data_input_stream_read_line_utf8 (in, NULL, NULL, &error);

  g_assert_no_error (error);
  return line;
}

/* ferry-copy's JSON lines for @ms, the last of them returned. */
static char *
read_json_for (GDataInputStream *in, guint ms, GString *said)
{
  gint64 until = g_get_monotonic_time () + ms * 1000;
  char *line = NULL;

  while (g_get_monotonic_time () < until)
    {
      g_free (line);
      line = read_json_line (in);
      g_assert_nonnull (line);
      g_string_append_printf (said, "\n  %s", line);
    }
  return line;
}

/* ferry-copy --progress=json onto a stick that stops taking data: once
 * it has taken nothing for 3 s the lines say so, with no rate and no
 * time left, and the copy ends whole once the stick takes data again.
 * The rate had only slowed, the time left still given ("rate":632750,
 * "eta":50.3 after 6 s). */
static void
test_stalled_drive_json (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestStick) stick = new_stick_or_skip (f);
  g_autofree char *copy = NULL;
  g_autofree char *line = NULL;
  g_autoptr (GSubprocess) process = NULL;
  g_autoptr (GDataInputStream) in = NULL;
  g_autoptr (GString) said = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) argv = NULL;

  if (stick == NULL)
    return;
  g_assert_true (ferry_test_stick_set_rate (stick, 6 * MiB, &error));
  ferry_test_write_random (ferry_test_path (f->src, "video.mp4", NULL), 40 * MiB, 7);
  copy = g_build_filename (ferry_test_stick_get_mountpoint (stick), "video.mp4", NULL);
  argv = ferry_test_copy_argv (NULL, (const char *const[]){ "--progress=json", "--device=slow",
                                                            ferry_test_path (f->src, "video.mp4", NULL),
                                                            ferry_test_stick_get_mountpoint (stick), NULL });
  process = g_subprocess_newv ((const char *const *) argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error);
  g_assert_no_error (error);
  in = g_data_input_stream_new (g_subprocess_get_stdout_pipe (process));
  do
    {
      g_free (line);
      line = read_json_line (in);
      g_assert_nonnull (line);
    }
  while (json_number (line, "bytes_durable") <= 0 || json_number (line, "rate") <= 0);

  /* A byte a second: nothing reaches the drive. */
  g_assert_true (ferry_test_stick_set_rate (stick, 1, &error));
  g_clear_pointer (&line, g_free);
  line = read_json_for (in, 5000, said);
  g_assert_true (ferry_test_stick_set_rate (stick, 0, &error));
  g_assert_no_error (error);
  if (strstr (line, "\"stalled\":true") == NULL || json_number (line, "rate") != 0
      || json_number (line, "eta") != -1)
    g_error ("while the stick took nothing, ferry-copy said:%s", said->str);

  g_assert_true (g_subprocess_wait_check (process, NULL, &error));
  g_assert_no_error (error);
  ferry_test_assert_files_equal (ferry_test_path (f->src, "video.mp4", NULL), copy);
}

/* ------------------------------------------------------------------ */
/* Cancel, pause and resume                                            */

#define HUGE_FILE_SIZE (256 * MiB)

static void
assert_cancelled (FerryJob *job, FerryTestJobRun *run, const char *copy, const char *dst)
{
  g_auto (FerryProgress) progress = { 0 };

  g_assert_false (run->ok);
  g_assert_error (run->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  assert_phase (job, FERRY_PHASE_CANCELLED);
  assert_absent (copy);
  g_assert_cmpuint (ferry_test_count_entries (dst), ==, 0);
  assert_no_temp_files (dst);
  /* Cancelling is not a failure, and discarded bytes do not count. */
  ferry_job_get_progress (job, &progress);
  g_assert_cmpuint (progress.files_failed, ==, 0);
  g_assert_cmpuint (ferry_job_get_n_failures (job), ==, 0);
  g_assert_cmpuint (progress.bytes_written, ==, 0);
}

static void
test_cancel_mid_file (Fixture *f, gconstpointer data)
{
  g_autofree char *source = g_build_filename (f->src, "huge", NULL);
  g_autofree char *copy = g_build_filename (f->dst, "huge", NULL);
  g_autoptr (FerryJob) job = job_new_one_worker (source, f->dst);
  g_auto (FerryTestJobRun) run = { 0 };

  ferry_test_write_random (source, HUGE_FILE_SIZE, 4);
  ferry_test_job_start (job, &run);
  ferry_test_wait_for_bytes (job, 1);
  ferry_job_cancel (job);
  ferry_test_job_wait (&run, 5000);
  assert_cancelled (job, &run, copy, f->dst);
}

static void
test_cancel_while_paused (Fixture *f, gconstpointer data)
{
  g_autofree char *source = g_build_filename (f->src, "huge", NULL);
  g_autofree char *copy = g_build_filename (f->dst, "huge", NULL);
  g_autoptr (FerryJob) job = job_new_one_worker (source, f->dst);
  g_auto (FerryTestJobRun) run = { 0 };
  g_autofree char *in_flight = NULL;

  ferry_test_write_random (source, HUGE_FILE_SIZE, 5);
  in_flight = pause_in_first_file (job, &run, HUGE_FILE_SIZE);
  g_assert_cmpstr (in_flight, ==, source);
  ferry_job_cancel (job);
  /* A paused worker wakes for the cancel; it does not wait for a resume. */
  ferry_test_job_wait (&run, 5000);
  assert_cancelled (job, &run, copy, f->dst);
}

static void
test_pause_resume (Fixture *f, gconstpointer data)
{
  g_autofree char *source = g_build_filename (f->src, "huge", NULL);
  g_autofree char *copy = g_build_filename (f->dst, "huge", NULL);
  g_autoptr (FerryJob) job = job_new_one_worker (source, f->dst);
  g_auto (FerryTestJobRun) run = { 0 };
  g_auto (FerryProgress) progress = { 0 };
  g_autofree char *in_flight = NULL;
  guint64 held_at;

  ferry_test_write_random (source, HUGE_FILE_SIZE, 6);
  in_flight = pause_in_first_file (job, &run, HUGE_FILE_SIZE);
  g_assert_cmpstr (in_flight, ==, source);
  held_at = get_bytes_written (job);
  ferry_test_spin (300);
  ferry_job_get_progress (job, &progress);
  g_assert_cmpuint (progress.bytes_written, ==, held_at);
  g_assert_true (progress.paused);
  g_assert_cmpint (progress.phase, ==, FERRY_PHASE_COPYING);
  assert_absent (copy);

  ferry_job_resume (job);
  g_assert_false (ferry_job_get_paused (job));
  ferry_test_job_wait (&run, JOB_TIMEOUT_MS);
  g_assert_no_error (run.error);
  g_assert_true (run.ok);
  assert_phase (job, FERRY_PHASE_DONE);
  g_assert_cmpuint (get_bytes_written (job), ==, HUGE_FILE_SIZE);
  ferry_test_assert_trees_equal (source, copy, FERRY_TEST_COMPARE_ALL);
  assert_no_temp_files (f->dst);
}

/* ------------------------------------------------------------------ */
/* Verification                                                        */

static void
test_verify_everything (Fixture *f, gconstpointer data)
{
  g_autofree char *tree = ferry_test_make_everything_tree (f->src);
  g_autofree char *copy = g_build_filename (f->dst, "everything", NULL);
  g_autoptr (FerryJob) job = job_new_one_worker (tree, f->dst);
  g_autoptr (GError) error = NULL;
  g_auto (FerryProgress) progress = { 0 };

  ferry_job_set_verify (job, TRUE);
  if (!ferry_test_run_job (job, &error))
    {
      g_autofree char *failures = ferry_test_describe_failures (job);
      g_error ("verified copy failed: %s\n%s", error->message, failures);
    }
  ferry_job_get_progress (job, &progress);
  g_assert_cmpuint (progress.files_failed, ==, 0);
  g_assert_cmpuint (progress.files_done, ==, progress.files_total);
  ferry_test_assert_trees_equal (tree, copy, FERRY_TEST_COMPARE_ALL);
  assert_no_temp_files (f->dst);
}

/* Rewrites the start of @path but keeps its size and modification time,
 * as a program that restores the time after writing does: the engine's
 * check after the copy cannot see it, only verification can. */
static void
change_content_silently (const char *path)
{
  struct stat st;
  struct timespec times[2];
  int fd = open (path, O_WRONLY | O_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (fstat (fd, &st), ==, 0);
  g_assert_cmpint (pwrite (fd, "changed", 7, 0), ==, 7);
  times[0] = st.st_atim;
  times[1] = st.st_mtim;
  g_assert_cmpint (futimens (fd, times), ==, 0);
  g_assert_cmpint (close (fd), ==, 0);
}

/* The part already copied is rewritten under the copy and the source's
 * modification time put back: its change time still tells, so the copy
 * never gets its final name, even without verification. */
static void
test_changed_keeping_mtime (Fixture *f, gconstpointer data)
{
  g_autofree char *source = g_build_filename (f->src, "edited", NULL);
  g_autofree char *copy = g_build_filename (f->dst, "edited", NULL);
  g_autoptr (FerryJob) job = job_new_one_worker (source, f->dst);
  g_autoptr (GPtrArray) failures = NULL;
  g_auto (FerryTestJobRun) run = { 0 };
  g_autofree char *in_flight = NULL;
  g_autofree char *failed = NULL;
  FerryFailure *failure;

  ferry_test_write_random (source, BIG_FILE_SIZE, 9);
  in_flight = pause_in_first_file (job, &run, BIG_FILE_SIZE);
  g_assert_cmpstr (in_flight, ==, source);
  change_content_silently (source);
  ferry_job_resume (job);
  ferry_test_job_wait (&run, JOB_TIMEOUT_MS);

  g_assert_false (run.ok);
  g_assert_error (run.error, FERRY_ERROR, FERRY_ERROR_PARTIAL);
  failures = dup_failures_expecting (job, 1);
  failure = g_ptr_array_index (failures, 0);
  g_assert_error (failure->error, FERRY_ERROR, FERRY_ERROR_CHANGED);
  failed = g_file_get_path (failure->source);
  g_assert_cmpstr (failed, ==, source);
  assert_mentions (failure->error->message, source);
  assert_mentions (failure->error->message, "changed while it was being copied");
  assert_absent (copy);
  assert_no_temp_files (f->dst);
}

static int
open_dir (const char *path)
{
  int fd = open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  return fd;
}

/* The file being verified is src/original on its way to dst/original. */
static char *
path_of_original (const FerryFileCopy *fc, gboolean source)
{
  const Fixture *f = fc->entry;

  return g_build_filename (source ? f->src : f->dst, "original", NULL);
}

/* Verifies @candidate as if it were the temporary file holding the copy
 * of src/original on its way to dst/original, through the engine's own
 * verification step. */
static gboolean
verify_candidate (Fixture *f, const char *candidate, GError **error)
{
  g_autoptr (FerryControl) control = ferry_control_new ();
  g_autofree char *source = g_build_filename (f->src, "original", NULL);
  FerryFileCopy fc = {
    .entry = f,
    .path_of = path_of_original,
    .tmp = FERRY_TEMP_FILE_INIT,
  };
  gboolean ok;

  fc.src_fd = open (source, O_RDONLY | O_CLOEXEC);
  g_assert_cmpint (fc.src_fd, >=, 0);
  g_assert_cmpint (fstat (fc.src_fd, &fc.st), ==, 0);
  fc.tmp.fd = open (candidate, O_RDWR | O_CLOEXEC);
  g_assert_cmpint (fc.tmp.fd, >=, 0);

  ok = ferry_verify_copy (control, &fc, -1, error);

  close (fc.src_fd);
  close (fc.tmp.fd);
  return ok;
}

static char *
write_candidate (Fixture *f, const char *name, const char *data, gsize len)
{
  char *path = scratch_path (f, name);
  g_autoptr (GError) error = NULL;

  g_file_set_contents (path, data, len, &error);
  g_assert_no_error (error);
  return path;
}

static void
assert_verify_fails (Fixture *f, const char *candidate)
{
  g_autofree char *final_path = g_build_filename (f->dst, "original", NULL);
  g_autoptr (GError) error = NULL;

  g_assert_false (verify_candidate (f, candidate, &error));
  g_assert_error (error, FERRY_ERROR, FERRY_ERROR_VERIFY_FAILED);
  assert_mentions (error->message, final_path);
  assert_mentions (error->message, "differs");
}

/* The same bytes pass; one flipped bit, or one byte missing, fail. */
static void
test_verify_mismatch (Fixture *f, gconstpointer data)
{
  g_autofree char *original = g_build_filename (f->src, "original", NULL);
  g_autofree char *bytes = NULL;
  g_autofree char *same = NULL;
  g_autofree char *flipped = NULL;
  g_autofree char *short_copy = NULL;
  g_autoptr (GError) error = NULL;
  gsize len;

  ferry_test_write_random (original, 3 * MiB + 5, 7);
  g_file_get_contents (original, &bytes, &len, &error);
  g_assert_no_error (error);

  same = write_candidate (f, "same", bytes, len);
  g_assert_true (verify_candidate (f, same, &error));
  g_assert_no_error (error);

  bytes[2 * MiB + 1] ^= 0x10;
  flipped = write_candidate (f, "flipped", bytes, len);
  assert_verify_fails (f, flipped);

  bytes[2 * MiB + 1] ^= 0x10;
  short_copy = write_candidate (f, "short", bytes, len - 1);
  assert_verify_fails (f, short_copy);
}

/* ------------------------------------------------------------------ */
/* Shared extents                                                      */

#define XFS_IMAGE_SIZE    (512 * MiB)
#define REFLINK_FILE_SIZE (64 * MiB)

static char *
find_tool (const char *name)
{
  const char *const dirs[] = { "/usr/sbin", "/sbin", "/usr/bin", "/bin" };
  char *path = g_find_program_in_path (name);

  for (guint i = 0; path == NULL && i < G_N_ELEMENTS (dirs); i++)
    {
      g_autofree char *candidate = g_build_filename (dirs[i], name, NULL);
      if (g_file_test (candidate, G_FILE_TEST_IS_EXECUTABLE))
        path = g_steal_pointer (&candidate);
    }
  return path;
}

/* Runs a tool; its standard output, stripped, in @out. */
static gboolean
run_tool (const char *const *argv, char **out, GError **error)
{
  g_autofree char *tool = find_tool (argv[0]);
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  g_autofree char *output = NULL;
  g_autofree char *errors = NULL;
  int status;

  if (tool == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s is not installed", argv[0]);
      return FALSE;
    }
  g_ptr_array_add (args, tool);
  for (guint i = 1; argv[i] != NULL; i++)
    g_ptr_array_add (args, (char *) argv[i]);
  g_ptr_array_add (args, NULL);
  if (!g_spawn_sync (NULL, (char **) args->pdata, NULL, G_SPAWN_STDIN_FROM_DEV_NULL, NULL, NULL,
                     &output, &errors, &status, error))
    return FALSE;
  if (!g_spawn_check_wait_status (status, error))
    {
      g_prefix_error (error, "%s: %s: ", argv[0], g_strstrip (errors));
      return FALSE;
    }
  if (out != NULL)
    *out = g_strdup (g_strstrip (output));
  return TRUE;
}

static gboolean
kernel_has_filesystem (const char *type)
{
  g_autofree char *list = NULL;
  g_autofree char *needle = g_strdup_printf ("\t%s\n", type);

  return g_file_get_contents ("/proc/filesystems", &list, NULL, NULL)
         && strstr (list, needle) != NULL;
}

/* Makes an XFS image with shared extents and mounts it at @mountpoint
 * through a loop device (returned). Leaves nothing attached on failure. */
static char *
mount_xfs_image (const char *image, const char *mountpoint, GError **error)
{
  const char *mkfs[] = { "mkfs.xfs", "-q", "-m", "reflink=1", image, NULL };
  const char *attach[] = { "losetup", "--find", "--show", image, NULL };
  g_autofree char *loop = NULL;
  int fd = open (image, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, XFS_IMAGE_SIZE), ==, 0);
  g_assert_cmpint (close (fd), ==, 0);
  ferry_test_make_dirs (mountpoint);
  if (!run_tool (mkfs, NULL, error) || !run_tool (attach, &loop, error))
    return NULL;
  if (mount (loop, mountpoint, "xfs", 0, NULL) != 0)
    {
      const char *detach[] = { "losetup", "--detach", loop, NULL };
      int errsv = errno;

      run_tool (detach, NULL, NULL);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "mounting %s: %s", loop,
                   g_strerror (errsv));
      return NULL;
    }
  return g_steal_pointer (&loop);
}

static void
unmount_and_detach (const char *mountpoint, const char *loop)
{
  const char *detach[] = { "losetup", "--detach", loop, NULL };
  g_autoptr (GError) error = NULL;

  unmount (mountpoint);
  run_tool (detach, NULL, &error);
  g_assert_no_error (error);
}

static guint64
used_bytes (const char *path)
{
  struct statvfs vfs;
  int fd = open_dir (path);

  /* Delayed allocation settles first. */
  g_assert_cmpint (syncfs (fd), ==, 0);
  g_assert_cmpint (fstatvfs (fd, &vfs), ==, 0);
  close (fd);
  return (guint64) (vfs.f_blocks - vfs.f_bfree) * vfs.f_frsize;
}

/* Checks every extent of @path is shared with another file; returns the
 * bytes they map. */
static guint64
assert_extents_shared (const char *path)
{
  const guint max_extents = 64;
  g_autofree struct fiemap *map
      = g_malloc0 (sizeof (struct fiemap) + max_extents * sizeof (struct fiemap_extent));
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  guint64 mapped = 0;
  gboolean last = FALSE;

  g_assert_cmpint (fd, >=, 0);
  map->fm_start = 0;
  while (!last)
    {
      map->fm_length = FIEMAP_MAX_OFFSET - map->fm_start;
      map->fm_flags = FIEMAP_FLAG_SYNC;
      map->fm_extent_count = max_extents;
      g_assert_cmpint (ioctl (fd, FS_IOC_FIEMAP, map), ==, 0);
      if (map->fm_mapped_extents == 0)
        break;
      for (guint i = 0; i < map->fm_mapped_extents; i++)
        {
          struct fiemap_extent *extent = &map->fm_extents[i];

          if (!(extent->fe_flags & FIEMAP_EXTENT_SHARED))
            g_error ("%s: the extent at %" G_GUINT64_FORMAT " is not shared", path,
                     (guint64) extent->fe_logical);
          mapped += extent->fe_length;
          last = (extent->fe_flags & FIEMAP_EXTENT_LAST) != 0;
          map->fm_start = extent->fe_logical + extent->fe_length;
        }
    }
  close (fd);
  return mapped;
}

static void
check_reflinked_copy (Fixture *f)
{
  g_autofree char *xfs = scratch_path (f, "xfs");
  g_autofree char *source = g_build_filename (xfs, "big", NULL);
  g_autofree char *dst = g_build_filename (xfs, "copies", NULL);
  g_autofree char *copy = g_build_filename (dst, "big", NULL);
  g_autoptr (FerryJob) job = job_new_one_worker (source, dst);
  g_autoptr (GError) error = NULL;
  guint64 used_before;

  ferry_test_make_dirs (dst);
  ferry_test_write_random (source, REFLINK_FILE_SIZE, 8);
  used_before = used_bytes (xfs);

  g_assert_true (ferry_test_run_job (job, &error));
  g_assert_no_error (error);

  g_assert_cmpuint (assert_extents_shared (copy), >=, REFLINK_FILE_SIZE);
  /* The data is not there twice: only the new inode and its mapping. */
  g_assert_cmpuint (used_bytes (xfs), <, used_before + MiB);
  ferry_test_assert_trees_equal (source, copy, FERRY_TEST_COMPARE_ALL);
  assert_no_temp_files (dst);
}

static void
test_reflink (Fixture *f, gconstpointer data)
{
  g_autofree char *image = scratch_path (f, "xfs.img");
  g_autofree char *xfs = scratch_path (f, "xfs");
  g_autofree char *loop = NULL;
  g_autoptr (GError) error = NULL;

  if (!ferry_test_is_root ())
    {
      g_test_skip ("mounting an XFS image needs root (CI runs as root)");
      return;
    }
  if (g_test_subprocess ())
    {
      check_reflinked_copy (f);
      return;
    }
  if (!kernel_has_filesystem ("xfs"))
    {
      g_test_skip ("this kernel has no XFS");
      return;
    }

  loop = mount_xfs_image (image, xfs, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    {
      g_test_skip (error->message);
      return;
    }
  g_assert_no_error (error);
  run_in_child ();
  unmount_and_detach (xfs, loop);
  g_test_trap_assert_passed ();
}

/* ------------------------------------------------------------------ */

static const UnreadableCase unreadable_files_skip = { FALSE, FERRY_ERROR_POLICY_SKIP };
static const UnreadableCase unreadable_files_stop = { FALSE, FERRY_ERROR_POLICY_STOP };
static const UnreadableCase unreadable_folders_skip = { TRUE, FERRY_ERROR_POLICY_SKIP };
static const UnreadableCase unreadable_folders_stop = { TRUE, FERRY_ERROR_POLICY_STOP };

int
main (int argc, char **argv)
{
  g_autofree char *session = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);
  ferry_engine_init ();
  if (!g_test_subprocess ())
    {
      session = ferry_test_scratch_new ("failures");
      g_setenv (SESSION_ENV, session, TRUE);
    }

#define ADD(path, func, data)                                                                      \
  g_test_add (path, Fixture, data, fixture_set_up, func, fixture_tear_down)
  ADD ("/failures/unreadable/files/skip", test_unreadable, &unreadable_files_skip);
  ADD ("/failures/unreadable/files/stop", test_unreadable, &unreadable_files_stop);
  ADD ("/failures/unreadable/folders/skip", test_unreadable, &unreadable_folders_skip);
  ADD ("/failures/unreadable/folders/stop", test_unreadable, &unreadable_folders_stop);
  ADD ("/failures/vanished/waiting", test_vanished_waiting, NULL);
  ADD ("/failures/vanished/in-flight", test_vanished_in_flight, NULL);
  ADD ("/failures/replaced/in-flight", test_replaced_in_flight, NULL);
  ADD ("/failures/changed/appended", test_changed_size, GINT_TO_POINTER (CHANGE_APPEND));
  ADD ("/failures/changed/truncated", test_changed_size, GINT_TO_POINTER (CHANGE_TRUNCATE));
  ADD ("/failures/no-space", test_no_space, NULL);
  ADD ("/failures/io-error/source", test_source_read_error,
       GINT_TO_POINTER (SOURCE_FAILS_READS));
  ADD ("/failures/io-error/source-same-device", test_source_read_error,
       GINT_TO_POINTER (SOURCE_FAILS_READS_SAME_DEVICE));
  ADD ("/failures/io-error/source-pulled-out", test_source_read_error,
       GINT_TO_POINTER (SOURCE_PULLED_OUT));
  ADD ("/failures/io-error/destination", test_destination_write_error, NULL);
  ADD ("/failures/destination-deleted", test_destination_deleted, NULL);
  ADD ("/failures/stalled-drive/json", test_stalled_drive_json, NULL);
  ADD ("/failures/cancel/mid-file", test_cancel_mid_file, NULL);
  ADD ("/failures/cancel/while-paused", test_cancel_while_paused, NULL);
  ADD ("/failures/pause-resume", test_pause_resume, NULL);
  ADD ("/failures/verify/everything", test_verify_everything, NULL);
  ADD ("/failures/verify/mismatch", test_verify_mismatch, NULL);
  ADD ("/failures/changed/rewritten-keeping-mtime", test_changed_keeping_mtime, NULL);
  ADD ("/failures/reflink", test_reflink, NULL);
#undef ADD

  status = g_test_run ();
  ferry_test_remove_tree (session);
  return status;
}
