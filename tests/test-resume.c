/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A copy to an emulated slow stick cut short (ferry-copy killed with
 * SIGKILL, or the stick pulled out) and run again: what the journal says
 * is on the device is kept, the file in flight continues from its
 * durable offset, whatever changed since is copied again, and the
 * journal never claims more than the device has. Root only. */
#include "config.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <inttypes.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ferry-journal.h"
#include "ferry-test-stick.h"
#include "ferry-test-util.h"

#define MB       1000000
#define RATE     (20 * MB)
/* About 10 s at RATE: a run is killed once its journal says enough, and
 * with 128 MiB a run on a loaded machine sometimes finished first. */
#define BIG_SIZE (192 * 1024 * 1024)
/* A second run writes at most what was not durable and this much more
 * (metadata, the window compared, folders' times). */
#define SLACK (16 * MB)
/* Through a FUSE daemon the next point starts as the last returns, and
 * the last one's files are named while it runs: their names ride on the
 * point after, a window (0.4 s of the device) later than on a kernel
 * filesystem. */
#define NAMES_BEHIND_FUSE (2 * RATE / 5)

typedef struct
{
  char *scratch;
  char *src;   /* the tree copied: src/tree */
  char *state; /* $XDG_STATE_HOME: the journals */
  FerryTestStick *stick;
  char *dst;
} Fixture;

static char *state_dir; /* set before GLib reads it */

/* Half the small files at the top, copied first (ferry-copy runs with
 * one worker, which copies a folder's files before its subfolders), half
 * in a/b. It treats the stick as slow from the start: whether "auto"
 * finds it slow before the kill depends on the machine's load. */
static void
make_tree (const char *root, guint n_small, gsize small_size)
{
  ferry_test_make_dirs (ferry_test_path (root, "a", "b", NULL));
  for (guint i = 0; i < n_small; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%03u", i);
      ferry_test_write_random (ferry_test_path (root, i % 2 ? "." : "a/b", name, NULL), small_size,
                               i + 1);
    }
  chmod (ferry_test_path (root, "a", NULL), 0750);
  ferry_test_set_times (ferry_test_path (root, "a", "b", NULL), 1500000000, 123456789);
  ferry_test_set_times (ferry_test_path (root, "a", NULL), 1400000000, 5);
}

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  g_autofree char *reason = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *workdir = NULL;

  f->scratch = ferry_test_scratch_new ("resume");
  f->src = g_build_filename (f->scratch, "src", "tree", NULL);
  ferry_test_make_dirs (f->src);
  ferry_test_remove_tree (state_dir);
  f->state = g_strdup (state_dir);
  /* @data: the stick's filesystem (ext4 when NULL) */
  if (!ferry_test_stick_is_supported_fs (GPOINTER_TO_INT (data), &reason))
    {
      g_test_skip (reason);
      return;
    }
  workdir = g_build_filename (f->scratch, "stick", NULL);
  f->stick = ferry_test_stick_new_full (
      &(FerryTestStickOptions){ .workdir = workdir, .label = "FERRYTEST", .size_bytes = 400 * MB,
                                .rate_bytes_per_sec = RATE, .fs = GPOINTER_TO_INT (data) },
      &error);
  g_assert_no_error (error);
  f->dst = g_strdup (ferry_test_stick_get_mountpoint (f->stick));
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_clear_pointer (&f->stick, ferry_test_stick_free);
  ferry_test_remove_tree (f->scratch);
  ferry_test_remove_tree (f->state);
  g_free (f->scratch);
  g_free (f->src);
  g_free (f->state);
  g_free (f->dst);
}

static GSubprocess *
spawn_copy (const char *source, const char *destination, const char *extra, const char *extra2)
{
  const char *argv[] = {
    g_getenv ("FERRY_COPY"), "--progress=none", "--jobs=1", "--device=slow", source, destination,
    extra, extra2, NULL,
  };
  g_autoptr (GError) error = NULL;
  GSubprocess *copy;

  g_assert_nonnull (argv[0]);
  copy = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                            &error);
  g_assert_no_error (error);
  return copy;
}

/* Runs ferry-copy to its end, which must end well; its standard error
 * in @err, and in the log when it does not. */
static void
run_copy (const char *source,
          const char *destination,
          const char *extra,
          const char *extra2,
          char **err)
{
  g_autoptr (GSubprocess) copy = spawn_copy (source, destination, extra, extra2);
  g_autoptr (GError) error = NULL;

  g_subprocess_communicate_utf8 (copy, NULL, NULL, NULL, err, &error);
  g_assert_no_error (error);
  if (g_subprocess_get_exit_status (copy) != 0)
    g_test_message ("ferry-copy failed: %s", *err);
  g_assert_cmpint (g_subprocess_get_exit_status (copy), ==, 0);
}

/* The only journal kept, read as Ferry reads it (its log too), or NULL. */
static FerryJournal *
load_journal (Fixture *f)
{
  g_autofree char *dir_path = g_build_filename (f->state, "ferry", NULL);
  g_autoptr (GDir) dir = g_dir_open (dir_path, 0, NULL);
  g_autoptr (FerryJournal) journal = NULL;
  const char *name;
  guint found = 0;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (name, ".journal"))
      {
        g_autofree char *path = g_build_filename (dir_path, name, NULL);
        g_autofree char *id = g_strndup (name, strlen (name) - strlen (".journal"));
        found++;
        g_clear_object (&journal);
        if ((journal = ferry_journal_load_file (path, id, NULL)) == NULL)
          return NULL;
      }
  g_assert_cmpuint (found, <=, 1);
  return g_steal_pointer (&journal);
}

/* The big file's durable offset and temporary name in @journal. */
static guint64
in_flight_offset (FerryJournal *journal, char **temp_name)
{
  g_auto (FerryJournalInFlight) in_flight = { 0 };

  if (journal == NULL || !ferry_journal_find_in_flight (journal, "tree/z/big.bin", &in_flight))
    return 0;
  if (temp_name != NULL)
    *temp_name = g_steal_pointer (&in_flight.temp_name);
  return in_flight.durable;
}

/* What the journal says: bytes durable in all, of the file in flight,
 * and how many files are complete. */
typedef struct
{
  guint64 durable;
  guint64 in_flight;
  guint64 complete;
} JournalSays;

static JournalSays
read_journal (Fixture *f)
{
  g_autoptr (FerryJournal) journal = load_journal (f);

  if (journal == NULL)
    return (JournalSays){ 0 };
  return (JournalSays){
    ferry_journal_get_bytes_durable (journal),
    in_flight_offset (journal, NULL),
    ferry_journal_get_files_complete (journal),
  };
}

static gboolean
journal_reached (Fixture *f, const JournalSays *goal)
{
  JournalSays now = read_journal (f);

  return now.durable >= goal->durable && now.in_flight >= goal->in_flight
         && now.complete >= goal->complete;
}

typedef struct
{
  gboolean called;
  gboolean exited;
} Watch;

static void
on_exited (GObject *copy, GAsyncResult *result, gpointer user_data)
{
  Watch *watch = user_data;

  watch->exited = g_subprocess_wait_finish (G_SUBPROCESS (copy), result, NULL);
  watch->called = TRUE;
}

static void
fail_ended (GSubprocess *copy)
{
  g_autofree char *err = NULL;
  g_autoptr (GDataInputStream) in = g_data_input_stream_new (g_subprocess_get_stderr_pipe (copy));

  err = g_data_input_stream_read_upto (in, "", 0, NULL, NULL, NULL);
  if (g_subprocess_get_if_signaled (copy))
    g_error ("ferry-copy was killed by signal %d before its journal said enough: %s",
             g_subprocess_get_term_sig (copy), err);
  g_error ("ferry-copy ended (status %d) before its journal said enough: %s",
           g_subprocess_get_exit_status (copy), err);
}

/* Waits until the journal says as much as @goal. */
static void
wait_for_journal (Fixture *f, GSubprocess *copy, const JournalSays *goal)
{
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  Watch watch = { FALSE, FALSE };

  g_subprocess_wait_async (copy, cancellable, on_exited, &watch);
  for (guint i = 0; i < 1200 && !journal_reached (f, goal); i++)
    {
      while (g_main_context_iteration (NULL, FALSE))
        ;
      if (watch.exited)
        fail_ended (copy);
      g_usleep (50000);
    }
  /* The watch ends before @watch goes. */
  g_cancellable_cancel (cancellable);
  while (!watch.called)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (journal_reached (f, goal));
}

static void
kill_copy (GSubprocess *copy)
{
  g_subprocess_send_signal (copy, SIGKILL);
  g_subprocess_wait (copy, NULL, NULL);
}

/* Ctrl+C on @copy: it ends as cancelled (exit 130); what it said. */
static char *
interrupt_copy (GSubprocess *copy)
{
  g_autoptr (GError) error = NULL;
  char *err = NULL;

  g_subprocess_send_signal (copy, SIGINT);
  g_subprocess_communicate_utf8 (copy, NULL, NULL, NULL, &err, &error);
  g_assert_no_error (error);
  g_test_message ("the run interrupted said: %s", err);
  g_assert_cmpint (g_subprocess_get_exit_status (copy), ==, 130);
  return err;
}

/* ferry-copy killed once the journal says as much as @goal: every file
 * at the top of the tree complete, and the file in flight or the whole
 * copy this far along. */
static void
copy_to_and_kill (Fixture *f, const char *dst, guint64 bytes, gboolean in_flight)
{
  g_autoptr (GSubprocess) copy = spawn_copy (f->src, dst, NULL, NULL);
  JournalSays goal = { in_flight ? 0 : bytes, in_flight ? bytes : 0, 20 };

  wait_for_journal (f, copy, &goal);
  kill_copy (copy);
}

/* The same, into the stick's top folder. */
static void
copy_and_kill (Fixture *f, guint64 bytes, gboolean in_flight)
{
  copy_to_and_kill (f, f->dst, bytes, in_flight);
}

/* The emulator at full speed. A second run goes so: it is judged by
 * what it writes and what it leaves, not by its pace, and this keeps the
 * suite short (each second run of the big tree took 8-10 s at RATE). */
static void
lift_throttle (Fixture *f)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (ferry_test_stick_set_rate (f->stick, 0, &error));
  g_assert_no_error (error);
}

static guint64
device_bytes (Fixture *f)
{
  return ferry_test_stick_get_sectors_written (f->stick) * 512;
}

/* Runs the same command again: it ends well, the copy is the source in
 * full (folders' modes and times too), no journal or temporary file is
 * left, and it wrote at most what was not yet durable (and SLACK). */
static void
run_again (Fixture *f, guint64 total, guint64 durable, const char *extra)
{
  g_autofree char *err = NULL;
  g_autofree char *copy = g_build_filename (f->dst, "tree", NULL);
  guint64 before, written;

  lift_throttle (f);
  before = device_bytes (f);
  run_copy (f->src, f->dst, extra, NULL, &err);
  written = device_bytes (f) - before;
  /* exFAT keeps no modes, and times only to its granularity */
  ferry_test_assert_trees_equal (
      f->src, copy,
      ferry_test_stick_get_fs (f->stick) == FERRY_TEST_STICK_FS_EXT4
          ? FERRY_TEST_COMPARE_CONTENT | FERRY_TEST_COMPARE_MODE | FERRY_TEST_COMPARE_TIMES
          : FERRY_TEST_COMPARE_CONTENT);
  g_assert_null (load_journal (f));
  g_assert_cmpuint (ferry_test_count_temp_files (copy), ==, 0);
  g_test_message ("second run wrote %" G_GUINT64_FORMAT " bytes of %" G_GUINT64_FORMAT
                  ", %" G_GUINT64_FORMAT " durable before; %s",
                  written, total, durable, err);
  if (extra == NULL)
    {
      guint64 slack = ferry_test_stick_get_fs (f->stick) == FERRY_TEST_STICK_FS_EXT4
                          ? SLACK
                          : SLACK + NAMES_BEHIND_FUSE;

      g_assert_cmpuint (written, <=, total - durable + slack);
      g_assert_nonnull (strstr (err, "Carried over"));
    }
}

static guint64
make_big_tree (Fixture *f)
{
  make_tree (f->src, 40, 64 * 1024);
  ferry_test_make_dirs (ferry_test_path (f->src, "z", NULL));
  ferry_test_write_random (ferry_test_path (f->src, "z", "big.bin", NULL), BIG_SIZE, 77);
  return BIG_SIZE + 40 * 64 * 1024;
}

/* Killed in the middle of a big file: it goes on from where the device
 * has it. */
static void
test_kill_mid_big_file (Fixture *f, gconstpointer data)
{
  guint64 total, durable;

  if (f->stick == NULL)
    return;
  total = make_big_tree (f);
  copy_and_kill (f, 24 * MB, TRUE);
  durable = read_journal (f).durable;
  run_again (f, total, durable, NULL);
}

/* Killed in the middle of a tree of small files: those complete are not
 * written again, and every folder ends with its source's mode and times. */
static void
test_kill_mid_tree (Fixture *f, gconstpointer data)
{
  guint64 total = 1000 * 100 * 1000, durable;

  if (f->stick == NULL)
    return;
  make_tree (f->src, 1000, 100 * 1000);
  copy_and_kill (f, 16 * MB, FALSE);
  durable = read_journal (f).durable;
  run_again (f, total, durable, NULL);
}

/* What ferry-copy said (@err) after a run cut short: how much of the
 * transfer (100 kB files, @total bytes) the journal has on FERRYTEST,
 * then @how_to_go_on. The same command then carries that over. */
static void
assert_says_how_to_go_on (Fixture *f, guint64 total, const char *err, const char *how_to_go_on)
{
  guint64 durable = read_journal (f).durable;
  g_autofree char *durable_text = g_format_size (durable);
  g_autofree char *total_text = g_format_size (total);
  g_autofree char *kept = NULL;

  g_assert_cmpuint (durable, >=, 16 * MB);
  kept = g_strdup_printf ("%s of %s is on FERRYTEST. %s\n", durable_text, total_text, how_to_go_on);
  g_assert_nonnull (strstr (err, kept));
  run_again (f, total, durable, NULL);
}

/* Ctrl+C on a copy to a stick keeps its journal, as a kill does; and
 * ferry-copy says so: how much is on the stick, and that the same
 * command goes on from there. That command then carries it over. */
static void
test_interrupt_says_how_to_go_on (Fixture *f, gconstpointer data)
{
  g_autoptr (GSubprocess) copy = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *err = NULL;

  if (f->stick == NULL)
    return;
  make_tree (f->src, 1000, 100 * 1000);
  /* typed as people type a folder (its journal is named by the paths as
   * typed), by this run and the next */
  g_free (f->dst);
  f->dst = g_strconcat (ferry_test_stick_get_mountpoint (f->stick), "/", NULL);
  copy = spawn_copy (f->src, f->dst, NULL, NULL);
  wait_for_journal (f, copy, &(JournalSays){ 16 * MB, 0, 20 });
  err = interrupt_copy (copy);
  g_assert_nonnull (strstr (err, "The copy was cancelled\n"));
  assert_says_how_to_go_on (f, 1000 * 100 * 1000, err,
                            "Run the same command again to go on from there, or add --restart "
                            "to copy everything anew.");
}

/* The stick fills up mid-copy (another program wrote to it): ferry-copy
 * names the file that did not fit, then says how much of the whole
 * transfer is on the stick (not the part of the file that failed, which
 * is gone) and that, with room made, the same command goes on from
 * there. It does. */
static void
test_full_says_how_to_go_on (Fixture *f, gconstpointer data)
{
  g_autoptr (GSubprocess) copy = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *err = NULL;
  g_autofree char *filler = NULL;

  if (f->stick == NULL)
    return;
  make_tree (f->src, 1000, 100 * 1000);
  copy = spawn_copy (f->src, f->dst, NULL, NULL);
  wait_for_journal (f, copy, &(JournalSays){ 16 * MB, 0, 20 });
  filler = ferry_test_fill_leaving (f->dst, 4 * MB);
  lift_throttle (f);
  g_subprocess_communicate_utf8 (copy, NULL, NULL, NULL, &err, &error);
  g_assert_no_error (error);
  g_test_message ("the run that filled the stick said: %s", err);
  g_assert_cmpint (g_subprocess_get_exit_status (copy), ==, 1);
  g_assert_nonnull (strstr (err, "No space left on device"));
  g_assert_cmpint (unlink (filler), ==, 0);
  assert_says_how_to_go_on (
      f, 1000 * 100 * 1000, err,
      "Make room on it and run the same command again to go on from there.");
}

/* A stick Ferry measures and finds fast (here 150 MB/s, over twice what
 * it calls slow) is copied to by the fast strategy, whose syncs the
 * journal follows too: killed once a sync vouched for some files, the
 * same command goes on from there instead of asking about the folder
 * it finds. (Before, only the slow strategy's points saved the journal,
 * and such a copy left none.) There a file gets its name once a sync
 * has its data, and the next sync carries the name: the journal lists
 * it complete only then, and the files named in between are written
 * again. So the bound is what the journal did not list complete. The
 * files are many and small: a sync comes every few thousand files
 * waiting for their names, where a tree within the writer's 256 MiB
 * lead had its second sync cover all of it, and ended before the
 * journal listed a file. */
static void
test_kill_measured_fast (Fixture *f, gconstpointer data)
{
  guint64 total = 20000 * 8 * 1024, complete;
  g_autoptr (GSubprocess) copy = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (FerryJournal) journal = NULL;

  if (f->stick == NULL)
    return;
  make_tree (f->src, 20000, 8 * 1024);
  g_assert_true (ferry_test_stick_set_rate (f->stick, 150 * MB, &error));
  g_assert_no_error (error);
  copy = spawn_copy (f->src, f->dst, "--device=auto", NULL);
  wait_for_journal (f, copy, &(JournalSays){ 1, 0, 20 });
  kill_copy (copy);
  journal = load_journal (f);
  g_assert_nonnull (journal);
  complete = ferry_journal_get_bytes_complete (journal);
  run_again (f, total, complete, NULL);
}

/* What a copy cut short left under @dir: the regular files under final
 * names, each path with its inode and change time into @files, their
 * bytes added to *@in_place; and what Ferry's hidden folders hold on the
 * disk, added to *@hidden (@inside_hidden: @dir is in one). */
typedef struct
{
  GHashTable *files;
  guint64 in_place;
  guint64 hidden;
} Survey;

static void
survey_tree (const char *dir, gboolean inside_hidden, Survey *survey)
{
  g_autoptr (GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;

  while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      gboolean hidden = inside_hidden || g_str_has_prefix (name, ".ferry-");
      struct stat st;

      if (lstat (path, &st) != 0)
        continue;
      if (S_ISDIR (st.st_mode))
        survey_tree (path, hidden, survey);
      else if (hidden)
        survey->hidden += (guint64) st.st_blocks * 512;
      else if (S_ISREG (st.st_mode))
        {
          survey->in_place += st.st_size;
          g_hash_table_insert (survey->files, g_steal_pointer (&path),
                               g_strdup_printf ("%ju %jd.%09ld", (uintmax_t) st.st_ino,
                                                (intmax_t) st.st_ctim.tv_sec, st.st_ctim.tv_nsec));
        }
    }
}

static Survey
survey_new (const char *dir)
{
  Survey survey = { g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free), 0, 0 };

  survey_tree (dir, FALSE, &survey);
  return survey;
}

/* On a device fast by its class (--device=fast takes that path: never
 * measured) a folder that was not there is built hidden and named once
 * durable, and a kill leaves it for the next run to remove; files named
 * in a folder merged into stay. The journal is saved once a sync
 * vouched for some of those, claiming no more than is under final names,
 * and the same command carries them over, each left as it is, instead of
 * meeting each as a file that exists. (Before, there was no journal on
 * such a device, and the same command stopped at the first file.) The
 * emulator's flush writes all the stick holds, so a sync returns once
 * the writer's whole lead is written: the files merged into come first,
 * many and small, and the new folder after them holds 128 MiB more, so
 * the copy is still on its way when the journal has a point. (What the
 * second run writes is not bounded here as elsewhere: removing the
 * killed run's hidden folder of thousands of files costs ext4 journal
 * writes of its own.) The stick is then filled so that the copy fits
 * only with the files in place counted as carried, as on a disk near
 * full. */
static void
test_kill_fast_by_class_merged (Fixture *f, gconstpointer data)
{
  guint64 total = 20000 * 8 * 1024 + 4 * 32 * 1024 * 1024, durable;
  g_autoptr (GSubprocess) copy = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *merged = NULL;
  g_autofree char *err = NULL;
  g_autoptr (GHashTable) kept = NULL;
  g_autoptr (GHashTable) after = NULL;
  Survey left;
  GHashTableIter iter;
  gpointer path, stamp;

  if (f->stick == NULL)
    return;
  make_tree (f->src, 20000, 8 * 1024);
  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *name = g_strdup_printf ("big%u", i);
      ferry_test_write_random (ferry_test_path (f->src, "a", "b", name, NULL), 32 * 1024 * 1024,
                               100 + i);
    }
  merged = g_build_filename (f->dst, "tree", NULL);
  ferry_test_make_dirs (merged);
  g_assert_true (ferry_test_stick_set_rate (f->stick, 150 * MB, &error));
  g_assert_no_error (error);
  copy = spawn_copy (f->src, f->dst, "--device=fast", NULL);
  wait_for_journal (f, copy, &(JournalSays){ 1, 0, 0 });
  kill_copy (copy);
  durable = read_journal (f).durable;
  left = survey_new (merged);
  kept = left.files;
  g_test_message ("the journal claims %" G_GUINT64_FORMAT " bytes, %" G_GUINT64_FORMAT
                  " are under final names, %" G_GUINT64_FORMAT " hidden",
                  durable, left.in_place, left.hidden);
  g_assert_cmpuint (durable, <=, left.in_place);
  /* Room for what is not in place, and the hidden folder's (removed
   * first), with 24 MB to spare: the copy fits only with the files in
   * place counted as carried, not needed again. */
  g_free (ferry_test_fill_leaving (f->dst, total - left.in_place - left.hidden + 24 * MB));

  lift_throttle (f);
  run_copy (f->src, f->dst, "--device=fast", NULL, &err);
  g_test_message ("the second run said: %s", err);
  g_assert_nonnull (strstr (err, "Carried over"));
  ferry_test_assert_trees_equal (f->src, merged,
                                 FERRY_TEST_COMPARE_CONTENT | FERRY_TEST_COMPARE_MODE
                                     | FERRY_TEST_COMPARE_TIMES);
  g_assert_null (load_journal (f));
  g_assert_cmpuint (ferry_test_count_temp_files (merged), ==, 0);
  after = survey_new (merged).files;
  g_hash_table_iter_init (&iter, kept);
  while (g_hash_table_iter_next (&iter, &path, &stamp))
    if (g_strcmp0 (g_hash_table_lookup (after, path), stamp) != 0)
      g_error ("%s was written again, though whole under its name", (char *) path);
}

#define N_FOLDERS        24
#define FILES_PER_FOLDER 40
#define N_KILLS          5

/* Folders of files only, as a camera card or an album has. */
static void
make_folders_of_files (const char *root)
{
  for (guint d = 0; d < N_FOLDERS; d++)
    {
      g_autofree char *folder = g_strdup_printf ("d%02u", d);

      ferry_test_make_dirs (ferry_test_path (root, folder, NULL));
      for (guint i = 0; i < FILES_PER_FOLDER; i++)
        {
          g_autofree char *name = g_strdup_printf ("f%02u", i);

          ferry_test_write_random (ferry_test_path (root, folder, name, NULL), 16 * 1024,
                                   d * 100 + i + 1);
        }
    }
}

/* What a killed run left of the folders in @copy: each one under its
 * own name is complete, and equal to its source's; returns how many
 * there were. */
static guint
check_named_folders (const char *src, const char *copy)
{
  guint named = 0;

  for (guint d = 0; d < N_FOLDERS; d++)
    {
      g_autofree char *name = g_strdup_printf ("d%02u", d);
      g_autofree char *folder = g_build_filename (copy, name, NULL);
      g_autofree char *source = g_build_filename (src, name, NULL);

      if (!g_file_test (folder, G_FILE_TEST_IS_DIR))
        continue;
      ferry_test_assert_trees_equal (source, folder, FERRY_TEST_COMPARE_CONTENT);
      named++;
    }
  return named;
}

/* A whole copy to the stick measured; @extra: one more option, or NULL. */
static gint64
time_measured_copy (Fixture *f, const char *dst, const char *extra)
{
  gint64 start = g_get_monotonic_time ();
  g_autofree char *err = NULL;

  run_copy (f->src, dst, "--device=auto", extra, &err);
  return g_get_monotonic_time () - start;
}

/* A stick Ferry measures and finds fast (here not throttled, so that it
 * stays so): a folder that holds only files is built under a hidden
 * name and gets its own once a sync has its files. Kills land at spread
 * moments of the copy: every folder under its own name is then
 * complete, none half-filled; what is left hidden is removed by the
 * next run, which completes the copy. */
static void
test_kill_measured_folders (Fixture *f, gconstpointer data)
{
  g_autofree char *timed = NULL;
  gint64 whole;
  guint named_total = 0, hidden_total = 0;

  if (f->stick == NULL)
    return;
  make_folders_of_files (f->src);
  lift_throttle (f);
  timed = g_build_filename (f->dst, "timed", NULL);
  ferry_test_make_dirs (timed);
  whole = time_measured_copy (f, timed, NULL);
  ferry_test_remove_tree (timed);
  g_test_message ("a whole copy takes %" G_GINT64_FORMAT " ms", whole / 1000);
  for (guint k = 0; k < N_KILLS; k++)
    {
      g_autofree char *dst = g_strdup_printf ("%s/kill-%u", f->dst, k);
      g_autofree char *copy = g_build_filename (dst, "tree", NULL);
      g_autoptr (GSubprocess) process = NULL;
      gint64 delay = whole * (k + 1) / (N_KILLS + 2)
                     + g_test_rand_int_range (0, (int) (whole / (2 * N_KILLS) + 1));
      guint named, hidden;

      ferry_test_make_dirs (dst);
      process = spawn_copy (f->src, dst, "--device=auto", NULL);
      g_usleep (delay);
      kill_copy (process);
      named = check_named_folders (f->src, copy);
      hidden = ferry_test_count_hidden_folders (copy);
      g_test_message ("killed after %" G_GINT64_FORMAT " ms: %u folders named, %u hidden",
                      delay / 1000, named, hidden);
      named_total += named;
      hidden_total += hidden;

      /* A kill that came after the job had done all (its journal gone)
       * leaves a whole copy, which a run that continues nothing would
       * ask about: as a person would, it skips what is there. */
      time_measured_copy (f, dst, "--conflict=skip");
      g_assert_cmpuint (ferry_test_count_hidden_folders (copy), ==, 0);
      g_assert_cmpuint (ferry_test_count_temp_files (copy), ==, 0);
      ferry_test_assert_trees_equal (f->src, copy, FERRY_TEST_COMPARE_CONTENT);
      g_assert_null (load_journal (f));
      ferry_test_remove_tree (dst);
    }
  g_test_message ("kills left %u folders named, %u hidden", named_total, hidden_total);
}

#define N_PARTS 8

/* A file fMM (@file) the journal lists complete in a folder dNN of the
 * tree or of one of its partK folders, its path below the stick in
 * @relpath; FALSE when it lists none. */
static gboolean
find_complete_in_folder (FerryJournal *journal, guint file, char **relpath)
{
  FerryJournalStamp stamp;

  for (guint k = 0; k <= N_PARTS; k++)
    for (guint d = 0; d < N_FOLDERS; d++)
      {
        g_autofree char *part = k < N_PARTS ? g_strdup_printf ("part%u/", k) : g_strdup ("");
        g_autofree char *path = g_strdup_printf ("tree/%sd%02u/f%02u", part, d, file);

        if (ferry_journal_find_complete (journal, path, &stamp))
          {
            *relpath = g_steal_pointer (&path);
            return TRUE;
          }
      }
  return FALSE;
}

static void
append_text (const char *path, const char *text)
{
  int fd = open (path, O_WRONLY | O_APPEND | O_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, text, strlen (text)), ==, (gssize) strlen (text));
  g_assert_cmpint (close (fd), ==, 0);
}

/* Killed on a stick Ferry measures and finds fast, where folders of
 * files are built hidden and get their names once a sync has their
 * files; then one such file changes at the source and another is
 * written to on the stick. The journal lists both complete (the run cut
 * short made them): each is copied again, the rest carried over. Before,
 * the journal did not list the files of a folder so named, and the same
 * command stopped at the first that differed: "… already exists". */
static void
test_changed_in_named_folder (Fixture *f, gconstpointer data)
{
  g_autoptr (GSubprocess) copy = NULL;
  g_autoptr (FerryJournal) journal = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *at_source = NULL;
  g_autofree char *on_stick = NULL;
  g_autofree char *err = NULL;
  g_autofree char *tree = NULL;

  if (f->stick == NULL)
    return;
  for (guint k = 0; k < N_PARTS; k++)
    {
      g_autofree char *part = g_strdup_printf ("part%u", k);
      make_folders_of_files (ferry_test_path (f->src, part, NULL));
    }
  make_folders_of_files (f->src);
  g_assert_true (ferry_test_stick_set_rate (f->stick, 150 * MB, &error));
  g_assert_no_error (error);
  copy = spawn_copy (f->src, f->dst, "--device=auto", NULL);
  wait_for_journal (f, copy, &(JournalSays){ 1, 0, 2 * FILES_PER_FOLDER });
  kill_copy (copy);
  journal = load_journal (f);
  g_assert_true (find_complete_in_folder (journal, 0, &at_source));
  g_assert_true (find_complete_in_folder (journal, 1, &on_stick));
  tree = g_build_filename (f->dst, "tree", NULL);
  append_text (ferry_test_path (f->src, at_source + strlen ("tree/"), NULL), "more");
  append_text (ferry_test_path (f->dst, on_stick, NULL), "junk");

  lift_throttle (f);
  run_copy (f->src, f->dst, "--device=auto", NULL, &err);
  g_test_message ("after %s and %s changed, the same command said: %s", at_source, on_stick, err);
  g_assert_nonnull (strstr (err, "Carried over"));
  ferry_test_assert_trees_equal (f->src, tree, FERRY_TEST_COMPARE_CONTENT);
  g_assert_cmpuint (ferry_test_count_temp_files (tree), ==, 0);
  g_assert_null (load_journal (f));
}

/* The last value of "@key": N in ferry-copy's JSON lines @out. */
static guint64
last_json_count (const char *out, const char *key)
{
  g_autofree char *pattern = g_strdup_printf ("\"%s\":([0-9]+)", key);
  g_autoptr (GRegex) regex = g_regex_new (pattern, 0, 0, NULL);
  g_autoptr (GMatchInfo) match = NULL;
  guint64 last = 0;
  gboolean found = FALSE;

  g_regex_match (regex, out, 0, &match);
  for (; g_match_info_matches (match); g_match_info_next (match, NULL))
    {
      g_autofree char *number = g_match_info_fetch (match, 1);

      last = g_ascii_strtoull (number, NULL, 10);
      found = TRUE;
    }
  g_assert_true (found);
  return last;
}

/* The same command again at full speed, which must end well, with
 * --progress=json: its JSON lines. */
static char *
run_again_in_json (Fixture *f)
{
  const char *argv[] = { g_getenv ("FERRY_COPY"), "--progress=json", "--jobs=1", "--device=slow",
                         f->src, f->dst, NULL };
  g_autofree char *out = NULL;
  g_autoptr (GError) error = NULL;
  int status;

  lift_throttle (f);
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
                &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return g_steal_pointer (&out);
}

/* Ctrl+C on a copy to a stick Ferry measures, into a folder it builds
 * hidden: what ferry-copy then says is on the stick is what the same
 * command carries over. (It said "17.3 MB of 50.0 MB is on FERRYSTICK",
 * every byte a sync had found written, while the cancel removed the
 * hidden folder and the next run carried nothing.) */
static void
test_interrupt_measured_claims_carried (Fixture *f, gconstpointer data)
{
  g_autoptr (GSubprocess) copy = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (FerryJournal) journal = NULL;
  g_autofree char *err = NULL, *out = NULL;
  guint64 durable, carried, before;

  if (f->stick == NULL)
    return;
  before = device_bytes (f);
  ferry_test_make_dirs (ferry_test_path (f->src, "z", NULL));
  ferry_test_write_random (ferry_test_path (f->src, "z", "one.bin", NULL), 24 * MB, 5);
  ferry_test_write_random (ferry_test_path (f->src, "z", "two.bin", NULL), 24 * MB, 6);
  copy = spawn_copy (f->src, f->dst, "--device=auto", NULL);
  for (guint i = 0; i < 600 && device_bytes (f) - before < 14 * MB; i++)
    g_usleep (50000);
  err = interrupt_copy (copy);
  journal = load_journal (f);
  durable = journal != NULL ? ferry_journal_get_bytes_durable (journal) : 0;
  if (durable == 0)
    g_assert_null (strstr (err, " is on FERRYTEST"));

  out = run_again_in_json (f);
  carried = last_json_count (out, "bytes_carried");
  g_test_message ("%" G_GUINT64_FORMAT " bytes carried over, %" G_GUINT64_FORMAT
                  " said to be on the stick",
                  carried, durable);
  g_assert_cmpuint (carried, >=, durable);
  ferry_test_assert_trees_equal (f->src, ferry_test_path (f->dst, "tree", NULL),
                                 FERRY_TEST_COMPARE_CONTENT);
}

/* ferry-copy of @source into @destination, its progress read as it
 * comes until a point has made some of it durable. */
static GSubprocess *
spawn_copy_until_durable (const char *source, const char *destination)
{
  const char *argv[] = {
    g_getenv ("FERRY_COPY"), "--progress=json", "--jobs=1", "--device=slow", source, destination,
    NULL,
  };
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) copy = NULL;
  g_autoptr (GDataInputStream) out = NULL;

  g_assert_nonnull (argv[0]);
  copy = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                            &error);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (copy));
  g_filter_input_stream_set_close_base_stream (G_FILTER_INPUT_STREAM (out), FALSE);
  for (;;)
    {
      g_autofree char *line = g_data_input_stream_read_line_utf8 (out, NULL, NULL, &error);
      const char *durable;

      g_assert_no_error (error);
      g_assert_nonnull (line);
      g_assert_null (strstr (line, "\"phase\":\"done\""));
      durable = strstr (line, "\"bytes_durable\":");
      if (durable != NULL && g_ascii_strtoull (durable + strlen ("\"bytes_durable\":"), NULL, 10) > 0)
        return g_steal_pointer (&copy);
    }
}

/* Names in @dir other than lost+found, one a line. */
static char *
list_names (const char *dir)
{
  g_autoptr (GDir) listing = g_dir_open (dir, 0, NULL);
  GString *names = g_string_new (NULL);
  const char *name;

  while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
    if (!g_str_equal (name, "lost+found"))
      g_string_append_printf (names, "%s\n", name);
  return g_string_free (names, FALSE);
}

/* Where journals cannot be saved (here their folder's name is taken by
 * a file; for a person, a home disk full or a state folder they cannot
 * write), a copy cut short keeps no temporary file no run would know,
 * and says it cannot be continued, and why. */
static void
test_interrupt_journal_unsaved (Fixture *f, gconstpointer data)
{
  const char *big = ferry_test_path (f->src, "big.bin", NULL);
  g_autofree char *blocker = g_build_filename (f->state, "ferry", NULL);
  g_autoptr (GSubprocess) copy = NULL;
  g_autofree char *err = NULL, *left = NULL;

  if (f->stick == NULL)
    return;
  ferry_test_make_dirs (f->state);
  g_assert_true (g_file_set_contents (blocker, "", 0, NULL));
  ferry_test_write_random (big, 120 * MB, 7);
  /* a point returned (its journal's save failing at once), and the
   * copy, 6 s at RATE, far from its end */
  copy = spawn_copy_until_durable (big, f->dst);
  g_usleep (100000);
  err = interrupt_copy (copy);
  left = list_names (f->dst);
  g_assert_cmpstr (left, ==, "");
  g_assert_nonnull (strstr (err, "This copy cannot be continued later"));
  g_assert_nonnull (strstr (err, blocker));
}

/* @folder holding @n files of @size bytes and nothing else: on a stick
 * Ferry measures, built under a hidden name and named whole. */
static void
make_folder_of_files (const char *folder, guint n, gsize size)
{
  ferry_test_make_dirs (folder);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%03u", i);
      ferry_test_write_random (ferry_test_path (folder, name, NULL), size, i + 1);
    }
}

/* Entries in the hidden folders (.ferry-…) directly in @dir. */
static guint
count_in_hidden_folders (const char *dir)
{
  g_autoptr (GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autoptr (GDir) inside = NULL;

      if (!g_str_has_prefix (name, ".ferry-") || (inside = g_dir_open (path, 0, NULL)) == NULL)
        continue;
      while (g_dir_read_name (inside) != NULL)
        n++;
    }
  return n;
}

/* Stopped early, before any sync had returned, on a stick Ferry
 * measures: the files of a folder of files, whole in the page cache,
 * get their names with the folder, and the journal is saved with them
 * although no point saved it before. The same command then goes on and
 * carries them; before, no journal was left, and it stopped at the
 * first of them: "already exists". */
static void
test_interrupt_early_goes_on (Fixture *f, gconstpointer data)
{
  g_autofree char *sub = g_build_filename (f->src, "sub", NULL);
  g_autofree char *copied_sub = g_build_filename (f->dst, "tree", "sub", NULL);
  g_autofree char *copied_tree = g_build_filename (f->dst, "tree", NULL);
  g_autoptr (GSubprocess) copy = NULL;
  g_autofree char *err = NULL, *again = NULL;
  g_autoptr (GPtrArray) named = NULL;

  if (f->stick == NULL)
    return;
  make_folder_of_files (sub, 300, 40 * 1000);
  copy = spawn_copy (f->src, f->dst, "--device=auto", NULL);
  for (guint i = 0; i < 2000 && count_in_hidden_folders (copied_tree) < 10; i++)
    g_usleep (5000);
  err = interrupt_copy (copy);
  named = ferry_test_list_sorted (copied_sub);
  g_test_message ("%u files in tree/sub", named->len);

  run_copy (f->src, f->dst, NULL, NULL, &again);
  ferry_test_assert_trees_equal (f->src, copied_tree, FERRY_TEST_COMPARE_CONTENT);
  g_assert_cmpuint (ferry_test_count_hidden_folders (copied_tree), ==, 0);
}

/* The same copy started again while it runs is refused at once, and
 * the first ends well: both ran, sharing one journal and taking each
 * other's temporary files for their own, and both failed ("already
 * exists", "No such file or directory"). */
static void
test_same_transfer_twice (Fixture *f, gconstpointer data)
{
  g_autoptr (GSubprocess) first = NULL, second = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *err = NULL, *first_err = NULL;
  guint64 before;

  if (f->stick == NULL)
    return;
  make_tree (f->src, 40, 1000 * 1000);
  before = device_bytes (f);
  first = spawn_copy (f->src, f->dst, NULL, NULL);
  /* the first is copying, and so holds the transfer */
  for (guint i = 0; i < 600 && device_bytes (f) - before < 4 * MB; i++)
    g_usleep (20000);
  second = spawn_copy (f->src, f->dst, NULL, NULL);
  g_subprocess_communicate_utf8 (second, NULL, NULL, NULL, &err, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_subprocess_get_exit_status (second), ==, 1);
  g_assert_nonnull (strstr (err, "The same files are being copied into"));

  g_subprocess_communicate_utf8 (first, NULL, NULL, NULL, &first_err, &error);
  g_assert_no_error (error);
  g_test_message ("the first said: %s", first_err);
  g_assert_cmpint (g_subprocess_get_exit_status (first), ==, 0);
  ferry_test_assert_trees_equal (f->src, ferry_test_path (f->dst, "tree", NULL),
                                 FERRY_TEST_COMPARE_CONTENT);
}

/* A script reading --progress=json sees what was carried over: counted
 * in bytes_durable from the start, and on its own as bytes_carried. */
static void
test_carried_in_json (Fixture *f, gconstpointer data)
{
  g_autofree char *out = NULL;
  guint64 durable_then, carried;

  if (f->stick == NULL)
    return;
  make_tree (f->src, 1000, 100 * 1000);
  copy_and_kill (f, 16 * MB, FALSE);
  durable_then = read_journal (f).durable;
  out = run_again_in_json (f);
  carried = last_json_count (out, "bytes_carried");
  g_test_message ("%" G_GUINT64_FORMAT " bytes carried over, %" G_GUINT64_FORMAT
                  " durable at the kill",
                  carried, durable_then);
  /* On ext4 a point names the files whose data it covers, and carries
   * their names with it: all the journal says was on the stick at the
   * kill is carried (it counts no file then on its way, whose temporary
   * file the next run removes). When names rode on the next point, a
   * kill between the two found 14 to 30 MB durable and not carried, in
   * about one run of ten. */
  g_assert_cmpuint (carried, >, 0);
  g_assert_cmpuint (carried, >=, durable_then);
  g_assert_cmpuint (last_json_count (out, "bytes_durable"), ==, 1000 * 100 * 1000);
}

/* Ctrl+C in the middle of a big file keeps its temporary file on the
 * stick, as a kill does: what ferry-copy then says is on the stick is
 * there, and the same command carries at least that over and ends with
 * the file whole. (The cancel removed the temporary file the journal
 * still counted, and the next run copied the file from its start.) */
static void
test_interrupt_mid_big_file (Fixture *f, gconstpointer data)
{
  g_autofree char *folder = g_build_filename (f->dst, "tree", "z", NULL);
  g_autoptr (GSubprocess) copy = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (FerryJournal) journal = NULL;
  g_autofree char *err = NULL, *kept = NULL, *temp_name = NULL, *out = NULL;
  g_autofree char *durable_text = NULL, *total_text = g_format_size (BIG_SIZE);
  guint64 durable, in_flight;
  struct stat st;

  if (f->stick == NULL)
    return;
  ferry_test_make_dirs (ferry_test_path (f->src, "z", NULL));
  ferry_test_write_random (ferry_test_path (f->src, "z", "big.bin", NULL), BIG_SIZE, 77);
  copy = spawn_copy (f->src, f->dst, NULL, NULL);
  wait_for_journal (f, copy, &(JournalSays){ 0, 24 * MB, 0 });
  err = interrupt_copy (copy);

  journal = load_journal (f);
  g_assert_nonnull (journal);
  durable = ferry_journal_get_bytes_durable (journal);
  in_flight = in_flight_offset (journal, &temp_name);
  g_assert_cmpuint (in_flight, >=, 24 * MB);
  g_assert_cmpuint (in_flight, >=, durable);
  g_assert_cmpint (stat (ferry_test_path (folder, temp_name, NULL), &st), ==, 0);
  g_assert_cmpuint (st.st_size, >=, in_flight);
  durable_text = g_format_size (durable);
  kept = g_strdup_printf ("%s of %s is on FERRYTEST. ", durable_text, total_text);
  g_assert_nonnull (strstr (err, kept));

  out = run_again_in_json (f);
  g_test_message ("%" G_GUINT64_FORMAT " bytes carried over, %" G_GUINT64_FORMAT
                  " said to be on the stick",
                  last_json_count (out, "bytes_carried"), durable);
  g_assert_cmpuint (last_json_count (out, "bytes_carried"), >=, durable);
  ferry_test_assert_files_equal (ferry_test_path (f->src, "z", "big.bin", NULL),
                                 ferry_test_path (folder, "big.bin", NULL));
  g_assert_cmpuint (ferry_test_count_temp_files (folder), ==, 0);
  g_assert_null (load_journal (f));
}

/* The stick pulled out in the middle of the big file, its writes lost
 * from then on, and plugged in again: the journal claimed no byte the
 * device did not have, and the copy goes on from there. */
/* The stick pulled out under @copy, as the desktop does it (writes
 * failing, the filesystem detached): what the run said as it failed. */
static char *
unplug_mid_copy (Fixture *f, GSubprocess *copy)
{
  g_autoptr (GError) error = NULL;
  char *err = NULL;

  g_assert_true (ferry_test_stick_set_fail_writes (f->stick, TRUE, &error));
  g_assert_true (ferry_test_stick_unmount_lazily (f->stick, &error));
  g_subprocess_communicate_utf8 (copy, NULL, NULL, NULL, &err, &error);
  g_assert_no_error (error);
  g_test_message ("the run unplugged said: %s", err);
  g_assert_cmpint (g_subprocess_get_exit_status (copy), !=, 0);
  return err;
}

/* The same command typed while the stick is away finds its mount
 * folder, left empty on the disk below: it is refused, writes nothing
 * there, and keeps the journal. It copied everything there and ended
 * well, dropping the journal of the copy on the stick. */
static void
run_while_away (Fixture *f)
{
  g_autoptr (GSubprocess) copy = spawn_copy (f->src, f->dst, NULL, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (FerryJournal) kept = NULL;
  g_autofree char *err = NULL, *left = NULL;

  g_subprocess_communicate_utf8 (copy, NULL, NULL, NULL, &err, &error);
  g_assert_no_error (error);
  g_test_message ("the same command, the stick away, said: %s", err);
  g_assert_cmpint (g_subprocess_get_exit_status (copy), ==, 1);
  g_assert_nonnull (strstr (err, "FERRYTEST"));
  g_assert_nonnull (strstr (err, "is not plugged in"));
  left = list_names (f->dst);
  g_assert_cmpstr (left, ==, "");
  kept = load_journal (f);
  g_assert_nonnull (kept);
}

/* Pulled out while a folder of files was still built under a hidden
 * name, after points had saved the journal with nothing in it: what to
 * do names the stick, where "Plug it in again … to go on from there"
 * had nothing for "it" to stand for, nor anything to go on from. */
static void
test_unplugged_before_anything_kept (Fixture *f, gconstpointer data)
{
  g_autofree char *sub = g_build_filename (f->src, "sub", NULL);
  g_autoptr (GSubprocess) copy = NULL;
  g_autofree char *err = NULL;

  if (f->stick == NULL)
    return;
  make_folder_of_files (sub, 400, 100 * 1000);
  copy = spawn_copy (f->src, f->dst, "--device=auto", NULL);
  for (guint i = 0; i < 600; i++)
    {
      g_autoptr (FerryJournal) saved = load_journal (f);

      if (saved != NULL)
        break;
      g_usleep (10000);
    }
  err = unplug_mid_copy (f, copy);
  g_assert_nonnull (strstr (err, "\nPlug FERRYTEST in again and run the same command.\n"));
}

static void
test_unplug_replug (Fixture *f, gconstpointer data)
{
  g_autoptr (GSubprocess) copy = NULL;
  g_autofree char *err = NULL;
  g_autoptr (FerryJournal) journal = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *temp_name = NULL;
  g_autofree char *on_device = NULL;
  g_autofree char *source = NULL;
  gsize length = 0;
  guint64 total, offset;

  if (f->stick == NULL)
    return;
  total = make_big_tree (f);
  copy = spawn_copy (f->src, f->dst, NULL, NULL);
  wait_for_journal (f, copy, &(JournalSays){ 0, 24 * MB, 20 });
  err = unplug_mid_copy (f, copy);
  /* how much is on the stick, by its name, and what to do */
  g_assert_nonnull (strstr (err, " is on FERRYTEST. Plug it in again and run the same command"));
  run_while_away (f);
  g_assert_true (ferry_test_stick_set_fail_writes (f->stick, FALSE, &error));
  g_assert_true (ferry_test_stick_mount_again (f->stick, &error));

  journal = load_journal (f);
  offset = in_flight_offset (journal, &temp_name);
  g_assert_cmpuint (offset, >=, 24 * MB);
  g_assert_true (g_file_get_contents (ferry_test_path (f->dst, "tree", "z", temp_name, NULL),
                                      &on_device, &length, &error));
  g_assert_true (g_file_get_contents (ferry_test_path (f->src, "z", "big.bin", NULL), &source,
                                      NULL, &error));
  g_assert_cmpuint (length, >=, offset);
  g_assert_true (memcmp (on_device, source, offset) == 0);
  run_again (f, total, ferry_journal_get_bytes_durable (journal), NULL);
}

/* Between the runs the big file and a complete one change at the source,
 * and on the stick one complete copy is deleted and another cut: each is
 * copied again, never kept. */
static void
test_changed_between_runs (Fixture *f, gconstpointer data)
{
  g_autofree char *err = NULL;
  const char *copy = NULL;

  if (f->stick == NULL)
    return;
  make_big_tree (f);
  copy_and_kill (f, 24 * MB, TRUE);
  copy = ferry_test_path (f->dst, "tree", NULL);
  for (guint i = 1; i <= 5; i += 2)
    {
      g_autofree char *name = g_strdup_printf ("f%03u", i);
      g_assert_true (g_file_test (ferry_test_path (copy, name, NULL), G_FILE_TEST_EXISTS));
    }
  ferry_test_write_random (ferry_test_path (f->src, "z", "big.bin", NULL), BIG_SIZE, 78);
  ferry_test_write_random (ferry_test_path (f->src, "f001", NULL), 64 * 1024, 999);
  g_assert_cmpint (g_remove (ferry_test_path (copy, "f003", NULL)), ==, 0);
  g_assert_cmpint (truncate (ferry_test_path (copy, "f005", NULL), 10), ==, 0);
  lift_throttle (f);
  run_copy (f->src, f->dst, NULL, NULL, &err);
  g_test_message ("%s", err);
  ferry_test_assert_trees_equal (f->src, copy,
                                 FERRY_TEST_COMPARE_CONTENT | FERRY_TEST_COMPARE_TIMES);
  g_assert_null (load_journal (f));
}

/* --restart does not continue: with --conflict=overwrite everything is
 * written again, and the temporary file the killed run kept goes. */
static void
test_restart (Fixture *f, gconstpointer data)
{
  g_autofree char *err = NULL;
  guint64 total, before;

  if (f->stick == NULL)
    return;
  total = make_big_tree (f);
  copy_and_kill (f, 24 * MB, TRUE);
  g_assert_cmpuint (ferry_test_count_temp_files (ferry_test_path (f->dst, "tree", "z", NULL)), ==, 1);
  lift_throttle (f);
  before = device_bytes (f);
  run_copy (f->src, f->dst, "--restart", "--conflict=overwrite", &err);
  g_assert_cmpuint (device_bytes (f) - before, >=, total);
  g_assert_null (strstr (err, "Carried over"));
  g_assert_cmpuint (ferry_test_count_temp_files (ferry_test_path (f->dst, "tree", "z", NULL)), ==, 0);
  ferry_test_assert_trees_equal (f->src, ferry_test_path (f->dst, "tree", NULL),
                                 FERRY_TEST_COMPARE_CONTENT | FERRY_TEST_COMPARE_TIMES);
  g_assert_null (load_journal (f));
}

/* A copy into the same folder while a transfer is unfinished leaves the
 * temporary file its journal claims; once it is discarded, the next copy
 * sweeps the file away. */
static void
test_sweep_spares_claimed (Fixture *f, gconstpointer data)
{
  g_autoptr (GPtrArray) unfinished = NULL;
  g_autofree char *err = NULL;
  const char *other = ferry_test_path (f->scratch, "other", NULL);
  const char *copy = NULL;

  if (f->stick == NULL)
    return;
  make_big_tree (f);
  copy_and_kill (f, 24 * MB, TRUE);
  copy = ferry_test_path (f->dst, "tree", "z", NULL);
  g_assert_cmpuint (ferry_test_count_temp_files (copy), ==, 1);
  ferry_test_write_text (other, "other");
  run_copy (other, copy, NULL, NULL, &err);
  g_assert_cmpuint (ferry_test_count_temp_files (copy), ==, 1);

  unfinished = ferry_unfinished_list ();
  g_assert_cmpuint (unfinished->len, ==, 1);
  ferry_unfinished_discard (g_ptr_array_index (unfinished, 0));
  g_assert_null (load_journal (f));
  g_assert_cmpuint (ferry_test_count_temp_files (copy), ==, 0);
}

/* ferry-copy @option @what (NULL: nothing more); what it printed in
 * @out, its standard error in @err; its exit status. */
static int
run_option (const char *option, const char *what, char **out, char **err)
{
  const char *argv[] = { g_getenv ("FERRY_COPY"), option, what, NULL };
  g_autoptr (GError) error = NULL;
  int status;

  g_spawn_sync (NULL, (char **) argv, NULL, out ? 0 : G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, out,
                err, &status, &error);
  g_assert_no_error (error);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

/* ferry-copy --resume @what (NULL: nothing more). */
static int
run_resume_full (const char *what, char **out, char **err)
{
  return run_option ("--resume", what, out, err);
}

static int
run_resume (const char *what, char **err)
{
  return run_resume_full (what, NULL, err);
}

/* A copy to a new name (`ferry-copy tree STICK/Backup`, as cp names the
 * copy of one source so) killed with its journal saved: Backup is a
 * folder now, which the same command must not copy into. */
static char *
copy_as_new_name_and_kill (Fixture *f)
{
  g_autofree char *named = g_build_filename (f->dst, "Backup", NULL);
  g_autoptr (GSubprocess) copy = NULL;

  make_tree (f->src, 1000, 100 * 1000);
  copy = spawn_copy (f->src, named, NULL, NULL);
  wait_for_journal (f, copy, &(JournalSays){ 16 * MB, 0, 20 });
  kill_copy (copy);
  g_assert_true (g_file_test (named, G_FILE_TEST_IS_DIR));
  return g_steal_pointer (&named);
}

/* The copy named Backup is the source's, whole, with nothing nested in
 * it and nothing left of the runs. */
static void
assert_named_copy_whole (Fixture *f, const char *named)
{
  ferry_test_assert_trees_equal (f->src, named, FERRY_TEST_COMPARE_CONTENT);
  g_assert_false (g_file_test (ferry_test_path (named, "tree", NULL), G_FILE_TEST_EXISTS));
  g_assert_cmpuint (ferry_test_count_temp_files (named), ==, 0);
  g_assert_null (load_journal (f));
}

/* The same command again goes on in Backup, the copy it had begun,
 * carrying over what is there. Before, it copied tree into Backup
 * (Backup/tree) from zero beside the first run's files. A command with
 * another source run meanwhile into that folder is not taken for the
 * continuation: its copy goes into Backup, as for any folder. */
static void
test_named_copy_same_command (Fixture *f, gconstpointer data)
{
  g_autofree char *named = NULL;
  g_autofree char *err = NULL;
  const char *other = NULL;

  if (f->stick == NULL)
    return;
  named = copy_as_new_name_and_kill (f);
  other = ferry_test_path (f->scratch, "other", NULL);
  ferry_test_write_text (other, "other");
  run_copy (other, named, NULL, NULL, &err);
  g_assert_true (g_file_test (ferry_test_path (named, "other", NULL), G_FILE_TEST_IS_REGULAR));
  g_assert_cmpint (g_remove (ferry_test_path (named, "other", NULL)), ==, 0);
  g_clear_pointer (&err, g_free);

  lift_throttle (f);
  run_copy (f->src, named, NULL, NULL, &err);
  g_test_message ("the same command again said: %s", err);
  g_assert_nonnull (strstr (err, "Carried over"));
  assert_named_copy_whole (f, named);
}

/* The id of the one unfinished transfer there is. */
static char *
dup_only_unfinished_id (void)
{
  g_autoptr (GPtrArray) unfinished = ferry_unfinished_list ();

  g_assert_cmpuint (unfinished->len, ==, 1);
  return g_strdup (ferry_unfinished_get_id (g_ptr_array_index (unfinished, 0)));
}

/* `ferry-copy --resume ID` (as the window's Resume, the same engine)
 * goes on in Backup too. Before, it copied into Backup, or was refused
 * for want of room, counting the whole copy as needed again. */
static void
test_named_copy_by_id (Fixture *f, gconstpointer data)
{
  g_autofree char *named = NULL;
  g_autofree char *err = NULL;
  g_autofree char *id = NULL;

  if (f->stick == NULL)
    return;
  named = copy_as_new_name_and_kill (f);
  id = dup_only_unfinished_id ();
  lift_throttle (f);
  g_assert_cmpint (run_resume (id, &err), ==, 0);
  g_test_message ("--resume ID said: %s", err);
  g_assert_nonnull (strstr (err, "Carried over"));
  assert_named_copy_whole (f, named);
}

/* `ferry-copy --resume ID` at full speed: the copy ends whole, with its
 * times, and no journal is left. */
static void
resume_to_the_end (Fixture *f, const char *id)
{
  g_autofree char *err = NULL;

  lift_throttle (f);
  g_assert_cmpint (run_resume (id, &err), ==, 0);
  ferry_test_assert_trees_equal (f->src, ferry_test_path (f->dst, "tree", NULL),
                                 FERRY_TEST_COMPARE_CONTENT | FERRY_TEST_COMPARE_TIMES);
  g_assert_null (load_journal (f));
}

/* ferry-copy --resume lists the transfer cut short, with how much of it
 * is on which drive, and --resume ID continues it there. */
static void
test_resume_by_id (Fixture *f, gconstpointer data)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *id = NULL;

  if (f->stick == NULL)
    return;
  make_big_tree (f);
  copy_and_kill (f, 24 * MB, TRUE);
  id = dup_only_unfinished_id ();
  g_assert_cmpint (run_resume_full (NULL, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, id));
  g_assert_nonnull (strstr (out, "on FERRYTEST"));
  resume_to_the_end (f, id);
}

/* ferry-copy --discard ID forgets a transfer cut short, as the window's
 * Discard does: its journal goes, and so does the temporary file it kept
 * on the stick; the copy's files that were complete stay. An id that is
 * none is named, and --discard alone is a usage error. Before, only the
 * window could. */
static void
test_discard_by_id (Fixture *f, gconstpointer data)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *id = NULL;

  if (f->stick == NULL)
    return;
  make_big_tree (f);
  copy_and_kill (f, 24 * MB, TRUE);
  id = dup_only_unfinished_id ();
  g_assert_cmpuint (ferry_test_count_temp_files (f->dst), >, 0);
  g_assert_cmpint (run_option ("--discard", id, &out, &err), ==, 0);
  g_assert_true (g_str_has_prefix (out, "Discarded: "));
  g_assert_nonnull (strstr (out, id));
  g_assert_null (load_journal (f));
  g_assert_cmpuint (ferry_test_count_temp_files (f->dst), ==, 0);
  g_assert_true (g_file_test (ferry_test_path (f->dst, "tree", NULL), G_FILE_TEST_IS_DIR));

  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_option ("--discard", "bogus", NULL, &err), ==, 1);
  g_assert_nonnull (strstr (err, "No unfinished transfer “bogus”"));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_option ("--discard", NULL, NULL, &err), ==, 2);
  g_assert_nonnull (strstr (err, "--discard takes the IDs"));
}

/* The folder the copy went into, deleted since: --resume ID is refused,
 * and nothing is written. Before, the folder's name was taken for the
 * copy's, and the source's files went where its folder was to go
 * (KB/a where KB/tree/a was going). */
static void
test_destination_folder_deleted (Fixture *f, gconstpointer data)
{
  g_autofree char *err = NULL;
  g_autofree char *id = NULL;
  g_autoptr (FerryJournal) journal = NULL;

  g_autofree char *folder = NULL;

  if (f->stick == NULL)
    return;
  folder = g_build_filename (f->dst, "KB", NULL);
  ferry_test_make_dirs (folder);
  make_big_tree (f);
  copy_to_and_kill (f, folder, 24 * MB, TRUE);
  id = dup_only_unfinished_id ();
  ferry_test_remove_tree (folder);
  g_assert_cmpint (run_resume (id, &err), ==, 1);
  g_assert_nonnull (strstr (err, "The destination folder “"));
  g_assert_nonnull (strstr (err, "/KB” does not exist"));
  g_assert_false (g_file_test (folder, G_FILE_TEST_EXISTS));
  journal = load_journal (f);
  g_assert_nonnull (journal);
}

/* The stick plugged in again comes back mounted elsewhere, as a desktop
 * mounts it at /media/ana/FERRYTEST1 while /media/ana/FERRYTEST is still
 * held: the transfer is listed as present, where its folder is now.
 * With @by_id it goes on by `--resume ID`; else by the command typed
 * with the folder's new path, which carries over what is there. Before,
 * it was "not plugged in", and the new command met the files the first
 * run had copied as conflicts. */
/* The same command typed with the folder where the stick was mounted,
 * left empty on the disk below (as a folder of fstab's is), is refused,
 * naming where the stick is now, and writes nothing there. */
static void
run_at_old_place (Fixture *f, const char *old_place)
{
  g_autoptr (GSubprocess) copy = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *err = NULL, *left = NULL;

  ferry_test_make_dirs (old_place);
  copy = spawn_copy (f->src, old_place, NULL, NULL);
  g_subprocess_communicate_utf8 (copy, NULL, NULL, NULL, &err, &error);
  g_assert_no_error (error);
  g_test_message ("the same command at the old place said: %s", err);
  g_assert_cmpint (g_subprocess_get_exit_status (copy), ==, 1);
  g_assert_nonnull (strstr (err, "is mounted elsewhere now: copy into"));
  g_assert_nonnull (strstr (err, f->dst));
  left = list_names (old_place);
  g_assert_cmpstr (left, ==, "");
}

static void
check_moved_mount (Fixture *f, gboolean by_id)
{
  g_autoptr (GPtrArray) unfinished = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *id = NULL;
  g_autofree char *old_place = NULL;
  FerryUnfinished *found;
  guint64 durable;

  if (f->stick == NULL)
    return;
  make_tree (f->src, 1000, 100 * 1000);
  copy_and_kill (f, 16 * MB, FALSE);
  durable = read_journal (f).durable;
  g_assert_true (ferry_test_stick_mount_elsewhere (f->stick, "FERRYTEST1", &error));
  g_assert_no_error (error);
  old_place = g_steal_pointer (&f->dst);
  f->dst = g_strdup (ferry_test_stick_get_mountpoint (f->stick));
  g_assert_true (g_str_has_suffix (f->dst, "/FERRYTEST1"));
  if (!by_id)
    run_at_old_place (f, old_place);

  unfinished = ferry_unfinished_list ();
  g_assert_cmpuint (unfinished->len, ==, 1);
  found = g_ptr_array_index (unfinished, 0);
  g_assert_true (ferry_unfinished_is_present (found));
  g_assert_cmpstr (ferry_unfinished_get_destination (found), ==, f->dst);
  id = g_strdup (ferry_unfinished_get_id (found));
  g_assert_cmpint (run_resume_full (NULL, &out, &err), ==, 0);
  g_test_message ("%s", out);
  g_assert_nonnull (strstr (out, f->dst));
  g_assert_null (strstr (out, "not plugged in"));
  if (!by_id)
    {
      run_again (f, 1000 * 100 * 1000, durable, NULL);
      return;
    }
  resume_to_the_end (f, id);
}

static void
test_moved_mount_by_id (Fixture *f, gconstpointer data)
{
  check_moved_mount (f, TRUE);
}

static void
test_moved_mount_same_command (Fixture *f, gconstpointer data)
{
  check_moved_mount (f, FALSE);
}

/* The card copied from, pulled out mid-copy to a stick (its reads fail,
 * and it is no longer mounted): ferry-copy says the source is gone, how
 * much is on the stick, and to plug the card in again and run the same
 * command, which then carries that over. */
static void
test_source_pulled_out (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestStick) card = NULL;
  g_autoptr (GSubprocess) copy = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *err = NULL;
  guint64 durable;

  if (f->stick == NULL)
    return;
  card = ferry_test_stick_new (ferry_test_path (f->scratch, "card", NULL), NULL, "CARD",
                               200 * MB, 0, &error);
  g_assert_no_error (error);
  g_free (f->src);
  f->src = g_build_filename (ferry_test_stick_get_mountpoint (card), "tree", NULL);
  make_tree (f->src, 1000, 100 * 1000);
  /* read from the card itself, not from what writing it left in memory */
  g_assert_true (ferry_test_stick_remount (card, &error));
  g_assert_no_error (error);

  copy = spawn_copy (f->src, f->dst, NULL, NULL);
  wait_for_journal (f, copy, &(JournalSays){ 16 * MB, 0, 20 });
  g_assert_true (ferry_test_stick_set_fail_reads (card, TRUE, &error));
  g_assert_true (ferry_test_stick_unmount_lazily (card, &error));
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (copy, NULL, NULL, NULL, &err, &error);
  g_assert_no_error (error);
  g_test_message ("the run whose card was pulled out said: %s", err);
  g_assert_cmpint (g_subprocess_get_exit_status (copy), ==, 1);
  g_assert_nonnull (strstr (err, "its drive was unplugged"));
  durable = read_journal (f).durable;
  g_assert_cmpuint (durable, >=, 16 * MB);
  g_assert_nonnull (strstr (err, "is on FERRYTEST. Plug in the drive it copies from again and "
                                 "run the same command to go on from there.\n"));

  g_assert_true (ferry_test_stick_set_fail_reads (card, FALSE, &error));
  g_assert_true (ferry_test_stick_mount_again (card, &error));
  g_assert_no_error (error);
  run_again (f, 1000 * 100 * 1000, durable, NULL);
}

/* Another stick with the same label, where the first one was mounted, is
 * not offered the transfer: not listed as present, not resumed by
 * --resume all, refused by --resume ID. */
static void
test_other_stick_same_label (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestStick) other = NULL;
  g_autoptr (FerryJournal) kept = NULL;
  g_autoptr (GPtrArray) unfinished = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *err = NULL;
  g_autofree char *id = NULL;
  FerryUnfinished *found;

  if (f->stick == NULL)
    return;
  make_big_tree (f);
  copy_and_kill (f, 24 * MB, TRUE);
  unfinished = ferry_unfinished_list ();
  g_assert_cmpuint (unfinished->len, ==, 1);
  found = g_ptr_array_index (unfinished, 0);
  id = g_strdup (ferry_unfinished_get_id (found));
  g_assert_true (ferry_unfinished_is_present (found));
  g_assert_cmpstr (ferry_unfinished_get_label (found), ==, "FERRYTEST");

  g_assert_true (ferry_test_stick_unmount_lazily (f->stick, &error));
  other = ferry_test_stick_new (ferry_test_path (f->scratch, "other-stick", NULL), f->dst,
                                "FERRYTEST", 200 * MB, 0, &error);
  g_assert_no_error (error);
  g_assert_false (ferry_unfinished_is_present (found));

  g_assert_cmpint (run_resume ("all", &err), ==, 1);
  g_assert_nonnull (strstr (err, "left for later: “FERRYTEST” is not plugged in"));
  g_assert_false (g_file_test (ferry_test_path (f->dst, "tree", NULL), G_FILE_TEST_EXISTS));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_resume (id, &err), !=, 0);
  g_assert_nonnull (strstr (err, "is not plugged in"));
  g_assert_false (g_file_test (ferry_test_path (f->dst, "tree", NULL), G_FILE_TEST_EXISTS));
  kept = load_journal (f);
  g_assert_nonnull (kept);
}

/* A transfer cut short on a drive with no label, pulled out: listed as
 * not plugged in, and refused by --resume ID, which names the drive by
 * the folder the transfer went to, where it said "“?” is not plugged in". */
static void
test_no_label_unplugged (Fixture *f, gconstpointer data)
{
  g_autofree char *folder = g_build_filename (f->scratch, "1A2B-3C4D", NULL);
  g_autofree char *journal = g_build_filename (f->state, "ferry", "0123456789abcdef.journal", NULL);
  g_autofree char *text = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *listed = NULL;
  g_autofree char *refused = NULL;
  struct stat st;

  /* A folder where the drive was mounted, now on another filesystem. */
  ferry_test_make_dirs (folder);
  g_assert_cmpint (stat (folder, &st), ==, 0);
  text = g_strdup_printf ("[transfer]\nsources=%s;\ndestination=%s\nfs-dev=%" G_GUINT64_FORMAT
                          "\nbytes-total=3000000000\nbytes-durable=1200000000\n",
                          f->src, folder, (guint64) st.st_dev + 1);
  ferry_test_make_dirs (ferry_test_path (f->state, "ferry", NULL));
  ferry_test_write_text (journal, text);

  g_assert_cmpint (run_resume_full (NULL, &out, NULL), ==, 0);
  listed = g_strdup_printf ("0123456789abcdef  1.2\u00a0GB of 3.0\u00a0GB  → %s (not plugged in)\n",
                            folder);
  g_assert_cmpstr (out, ==, listed);
  g_assert_cmpint (run_resume ("0123456789abcdef", &err), ==, 1);
  refused = g_strdup_printf ("ferry-copy: The drive of “%s” is not plugged in\n", folder);
  g_assert_cmpstr (err, ==, refused);
  g_assert_cmpuint (ferry_test_count_entries (folder), ==, 0);
  g_assert_true (g_file_test (journal, G_FILE_TEST_EXISTS));
}

/* A save killed between writing the journal's new text and renaming it
 * leaves "ID.journal.XXXXXX"; listing the journals removes one that is a
 * minute old, and leaves one being written now. */
static void
test_stale_saves_removed (Fixture *f, gconstpointer data)
{
  g_autofree char *dir = g_build_filename (f->state, "ferry", NULL);
  g_autofree char *stale = g_build_filename (dir, "0123abcd.journal.Q1W2E3", NULL);
  g_autofree char *fresh = g_build_filename (dir, "4567cdef.journal.R4T5Y6", NULL);
  g_autoptr (GPtrArray) unfinished = NULL;

  ferry_test_make_dirs (dir);
  ferry_test_write_text (stale, "[transfer]\n");
  ferry_test_write_text (fresh, "[transfer]\n");
  ferry_test_set_times (stale, g_get_real_time () / G_USEC_PER_SEC - 120, 0);
  unfinished = ferry_unfinished_list ();
  g_assert_cmpuint (unfinished->len, ==, 0);
  g_assert_false (g_file_test (stale, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (fresh, G_FILE_TEST_EXISTS));
}

/* ferry-copy --progress=none --resume @what @extra, no terminal to ask
 * on; its standard error in @err, its exit status. */
static int
resume_in_script (const char *what, const char *extra, char **err)
{
  const char *argv[] = { g_getenv ("FERRY_COPY"), "--progress=none", "--resume", what, extra, NULL };
  g_autoptr (GSubprocess) copy = NULL;
  g_autoptr (GError) error = NULL;

  copy = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                            &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (copy, NULL, NULL, NULL, err, &error);
  g_assert_no_error (error);
  g_test_message ("ferry-copy --resume %s %s said: %s", what, extra ? extra : "", *err);
  return g_subprocess_get_exit_status (copy);
}

/* A big file, then a name exFAT cannot store (in a folder below it, which
 * one worker comes to after the file), copied with @option and @option2
 * and Ctrl+C'd once 24 MB of the big file is on the stick. */
static void
copy_problems_and_interrupt (Fixture *f, const char *option, const char *option2)
{
  g_autoptr (GSubprocess) copy = NULL;
  g_autofree char *err = NULL;

  ferry_test_make_dirs (ferry_test_path (f->src, "z", "later", NULL));
  ferry_test_write_text (ferry_test_path (f->src, "z", "later", "why?.txt", NULL), "why\n");
  ferry_test_write_random (ferry_test_path (f->src, "z", "big.bin", NULL), BIG_SIZE, 78);
  ferry_test_set_times (ferry_test_path (f->src, "z", "big.bin", NULL), 1500000000, 0);
  copy = spawn_copy (f->src, f->dst, option, option2);
  wait_for_journal (f, copy, &(JournalSays){ 0, 24 * MB, 0 });
  err = interrupt_copy (copy);
  lift_throttle (f);
}

/* Started with --unsupported=adapt and --no-preserve, cut short and
 * continued by --resume all from a script: it adapts and keeps no times,
 * as it was asked when it began. (It stopped for the name as a script
 * does by default, "Nothing was written", with 24 MB on the stick.) */
static void
test_resume_keeps_choices (Fixture *f, gconstpointer data)
{
  g_autofree char *copy = g_build_filename (f->dst, "tree", NULL);
  g_autoptr (FerryJournal) journal = NULL;
  g_autofree char *err = NULL;
  struct stat st;

  if (f->stick == NULL)
    return;
  copy_problems_and_interrupt (f, "--unsupported=adapt", "--no-preserve");
  journal = load_journal (f);
  g_assert_nonnull (journal);
  g_assert_cmpstr (ferry_journal_get_choice (journal, "unsupported-policy"), ==, "adapt");
  g_assert_cmpstr (ferry_journal_get_choice (journal, "preserve"), ==, "false");
  g_assert_null (ferry_journal_get_choice (journal, "conflict-policy"));

  g_assert_cmpint (resume_in_script ("all", NULL, &err), ==, 0);
  g_assert_null (strstr (err, "Nothing was written"));
  ferry_test_assert_files_equal (ferry_test_path (f->src, "z", "later", "why?.txt", NULL),
                                 ferry_test_path (copy, "z", "later", "why？.txt", NULL));
  ferry_test_assert_files_equal (ferry_test_path (f->src, "z", "big.bin", NULL),
                                 ferry_test_path (copy, "z", "big.bin", NULL));
  g_assert_cmpint (stat (ferry_test_path (copy, "z", "big.bin", NULL), &st), ==, 0);
  g_assert_cmpint (st.st_mtime, !=, 1500000000);
  g_assert_null (load_journal (f));
}

/* What is given with --resume goes before what the transfer was asked:
 * started with --unsupported=adapt, continued with --unsupported=skip,
 * the name is skipped and the rest copied. */
static void
test_resume_choices_overridden (Fixture *f, gconstpointer data)
{
  g_autofree char *copy = g_build_filename (f->dst, "tree", NULL);
  g_autoptr (FerryJournal) journal = NULL;
  g_autofree char *err = NULL;

  if (f->stick == NULL)
    return;
  copy_problems_and_interrupt (f, "--unsupported=adapt", NULL);
  journal = load_journal (f);
  g_assert_nonnull (journal);
  g_assert_cmpint (resume_in_script (ferry_journal_get_id (journal), "--unsupported=skip", &err),
                   ==, 0);
  g_assert_nonnull (strstr (err, "Skipped: "));
  g_assert_cmpuint (ferry_test_count_entries (ferry_test_path (copy, "z", "later", NULL)), ==, 0);
  ferry_test_assert_files_equal (ferry_test_path (f->src, "z", "big.bin", NULL),
                                 ferry_test_path (copy, "z", "big.bin", NULL));
  g_assert_null (load_journal (f));
}

/* Continued with --unsupported=stop, a transfer with part of it on the
 * stick stops at the names exFAT cannot store, saying nothing more was
 * written: "Nothing was written" said that part was not there. */
static void
test_resume_stopped_by_names (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryJournal) journal = NULL;
  g_autofree char *err = NULL;

  if (f->stick == NULL)
    return;
  copy_problems_and_interrupt (f, "--unsupported=adapt", NULL);
  journal = load_journal (f);
  g_assert_nonnull (journal);
  g_assert_cmpuint (ferry_journal_get_bytes_durable (journal), >, 0);
  g_assert_cmpint (resume_in_script (ferry_journal_get_id (journal), "--unsupported=stop", &err),
                   ==, 1);
  g_assert_nonnull (strstr (err, "Nothing more was written. Run again with"));
  g_assert_null (strstr (err, "Nothing was written"));
}

/* The journal @id of a transfer of the tree into @folder, on a drive
 * labelled @label (NULL: none) that is not plugged in. */
static void
write_journal_away (Fixture *f, const char *id, const char *folder, const char *label)
{
  g_autofree char *journal = g_strdup_printf ("%s/ferry/%s.journal", f->state, id);
  g_autofree char *text = NULL;
  struct stat st;

  ferry_test_make_dirs (folder);
  g_assert_cmpint (stat (folder, &st), ==, 0);
  text = g_strdup_printf ("[transfer]\nsources=%s;\ndestination=%s\nfs-dev=%" G_GUINT64_FORMAT
                          "\n%s%s%sbytes-total=3000000000\nbytes-durable=1200000000\n",
                          f->src, folder, (guint64) st.st_dev + 1, label ? "fs-label=" : "",
                          label ? label : "", label ? "\n" : "");
  ferry_test_make_dirs (ferry_test_path (f->state, "ferry", NULL));
  ferry_test_write_text (journal, text);
}

/* --resume all continues the transfer whose stick is plugged in and says
 * of each other one, by its ID, that it is left for later and why; not
 * everything was copied, so it exits 1. (It said nothing of them and
 * exited 0.) */
static void
test_resume_all_says_left (Fixture *f, gconstpointer data)
{
  g_autofree char *away = g_build_filename (f->scratch, "T1EXT4", NULL);
  g_autofree char *nameless = g_build_filename (f->scratch, "1A2B-3C4D", NULL);
  g_autofree char *err = NULL;
  g_autofree char *expected = NULL;
  g_autoptr (GPtrArray) unfinished = NULL;

  if (f->stick == NULL)
    return;
  make_tree (f->src, 1000, 100 * 1000);
  copy_and_kill (f, 16 * MB, FALSE);
  lift_throttle (f);
  write_journal_away (f, "0123456789abcdef", away, "T1EXT4");
  write_journal_away (f, "fedcba9876543210", nameless, NULL);

  g_assert_cmpint (resume_in_script ("all", NULL, &err), ==, 1);
  ferry_test_assert_trees_equal (f->src, ferry_test_path (f->dst, "tree", NULL),
                                 FERRY_TEST_COMPARE_CONTENT);
  g_assert_nonnull (
      strstr (err, "ferry-copy: 0123456789abcdef left for later: “T1EXT4” is not plugged in\n"));
  expected = g_strdup_printf (
      "ferry-copy: fedcba9876543210 left for later: The drive of “%s” is not plugged in\n",
      nameless);
  g_assert_nonnull (strstr (err, expected));
  unfinished = ferry_unfinished_list ();
  g_assert_cmpuint (unfinished->len, ==, 2);
}

/* Journals damaged by a disk fault or by hand need no stick: a transfer
 * into a folder of the scratch disk, which is plugged in. */
static void
fixture_set_up_without_stick (Fixture *f, gconstpointer data)
{
  f->scratch = ferry_test_scratch_new ("resume");
  f->src = g_build_filename (f->scratch, "src", "tree", NULL);
  ferry_test_make_dirs (f->src);
  ferry_test_remove_tree (state_dir);
  f->state = g_strdup (state_dir);
  f->dst = g_build_filename (f->scratch, "STICK", NULL);
  ferry_test_make_dirs (f->dst);
}

/* The whole journal of a transfer of the tree into f->dst, its file
 * big1.bin complete there, as Ferry saves it, with its log; its path. */
static char *
save_whole_journal (Fixture *f, const char *id)
{
  g_autoptr (FerryJournal) journal = ferry_journal_new (id);
  g_auto (FerryFsId) filesystem = { 0 };
  g_autoptr (GError) error = NULL;
  const char *sources[] = { f->src, NULL };
  FerryJournalStamp stamp = { 100 * MB, 1700000000, 0 };

  g_assert_true (ferry_fs_id_read_path (&filesystem, f->dst));
  ferry_journal_set_transfer (journal, sources, f->dst, &filesystem);
  ferry_journal_complete (journal, "tree/big1.bin", &stamp);
  ferry_journal_point_done (journal, 0, 300 * MB);
  ferry_journal_wait_saved (journal);
  g_assert_null (ferry_journal_dup_save_error (journal));
  return g_strdup_printf ("%s/ferry/%s.journal", f->state, id);
}

/* ferry-copy --resume lists the journal @id, damaged, on one line that
 * says what is wrong with it (@damage) and what to do; the window leaves
 * it out; --resume @id refuses it, --resume all says it left it, both
 * exit 1; and --discard @discard (@id or all) removes it and its log. */
static void
assert_damaged_refused_then_discarded (Fixture *f,
                                       const char *id,
                                       const char *damage,
                                       const char *discard)
{
  g_autofree char *journal = g_strdup_printf ("%s/ferry/%s.journal", f->state, id);
  g_autofree char *log = g_strconcat (journal, "-log", NULL);
  g_autofree char *out = NULL, *err = NULL, *expected = NULL;
  g_autoptr (GPtrArray) window = ferry_unfinished_list ();

  g_assert_cmpuint (window->len, ==, 0);
  g_assert_cmpint (run_resume_full (NULL, &out, NULL), ==, 0);
  expected = g_strdup_printf ("%s  damaged (%s): cannot be continued; --discard %s removes it\n",
                              id, damage, id);
  g_assert_cmpstr (out, ==, expected);
  g_clear_pointer (&expected, g_free);

  g_assert_cmpint (run_resume (id, &err), ==, 1);
  expected = g_strdup_printf ("ferry-copy: The journal of %s is damaged (%s): it cannot be "
                              "continued; --discard %s removes it\n",
                              id, damage, id);
  g_assert_cmpstr (err, ==, expected);
  g_clear_pointer (&expected, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (resume_in_script ("all", NULL, &err), ==, 1);
  expected = g_strdup_printf ("ferry-copy: %s left alone: its journal is damaged (%s); --discard "
                              "%s removes it\n",
                              id, damage, id);
  g_assert_cmpstr (err, ==, expected);
  g_clear_pointer (&expected, g_free);
  g_clear_pointer (&out, g_free);
  g_assert_true (g_file_test (journal, G_FILE_TEST_EXISTS));

  g_assert_cmpint (run_option ("--discard", discard, &out, NULL), ==, 0);
  expected = g_strdup_printf ("Discarded: %s  damaged (%s)\n", id, damage);
  g_assert_cmpstr (out, ==, expected);
  g_assert_false (g_file_test (journal, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (log, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (ferry_test_count_entries (ferry_test_path (f->state, "ferry", NULL)), ==, 0);
}

/* A journal cut in half (a disk fault) lacks the keys of its drive and
 * its figures. Before, it was listed "0 bytes of 0 bytes → … (not
 * plugged in)" with its folder there, and left for later forever. */
static void
test_damaged_cut_in_half (Fixture *f, gconstpointer data)
{
  g_autofree char *path = save_whole_journal (f, "0123456789abcdef");
  g_autofree char *text = NULL;
  gsize length;

  g_assert_true (g_file_get_contents (path, &text, &length, NULL));
  text[length / 2] = '\0';
  g_assert_nonnull (strstr (text, "destination="));
  g_assert_null (strstr (text, "bytes-durable="));
  ferry_test_write_text (path, text);
  assert_damaged_refused_then_discarded (f, "0123456789abcdef", "parts of it are missing",
                                         "0123456789abcdef");
}

/* Before, an empty journal made "No unfinished transfers", and stayed. */
static void
test_damaged_empty (Fixture *f, gconstpointer data)
{
  g_autofree char *path = save_whole_journal (f, "0123456789abcdef");

  ferry_test_write_text (path, "");
  assert_damaged_refused_then_discarded (f, "0123456789abcdef", "it is empty", "all");
}

/* Before, random bytes in place of a journal made "No unfinished
 * transfers", and stayed. */
static void
test_damaged_random_bytes (Fixture *f, gconstpointer data)
{
  g_autofree char *path = save_whole_journal (f, "fedcba9876543210");

  ferry_test_write_random (path, 4096, 7);
  assert_damaged_refused_then_discarded (f, "fedcba9876543210", "its text is garbled",
                                         "fedcba9876543210");
}

/* Figures edited so that more is on the drive than the whole transfer
 * are not a damaged journal (a run counts the total anew, and what was
 * placed stays): the transfer is listed with no more on the drive than
 * it holds. Before, it was listed "3.5 TB of 300.0 MB on …". */
static void
test_listed_no_more_than_total (Fixture *f, gconstpointer data)
{
  g_autofree char *path = save_whole_journal (f, "0123456789abcdef");
  g_autoptr (GKeyFile) file = g_key_file_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (FerryJournal) journal = NULL;

  g_assert_true (g_key_file_load_from_file (file, path, G_KEY_FILE_KEEP_COMMENTS, &error));
  g_key_file_set_uint64 (file, "transfer", "bytes-durable", 3500000000000);
  g_assert_true (g_key_file_save_to_file (file, path, &error));
  journal = ferry_journal_load ("0123456789abcdef", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ferry_journal_get_bytes_durable (journal), ==,
                    ferry_journal_get_bytes_total (journal));
}

int
main (int argc, char **argv)
{
  const char *base = g_getenv ("FERRY_TEST_TMPDIR");

  state_dir = g_strdup_printf ("%s/resume-state-%d", base ? base : g_get_tmp_dir (), getpid ());
  g_setenv ("XDG_STATE_HOME", state_dir, TRUE);
  g_test_init (&argc, &argv, NULL);
  ferry_engine_init ();
#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/resume/kill-mid-big-file", test_kill_mid_big_file);
  /* exfat-fuse: a killed run's given-up sync may still hold the file in
   * flight for a moment after the kill */
  g_test_add ("/resume/kill-mid-big-file/exfat", Fixture, GINT_TO_POINTER (FERRY_TEST_STICK_FS_EXFAT),
              fixture_set_up, test_kill_mid_big_file, fixture_tear_down);
  ADD ("/resume/kill-mid-tree", test_kill_mid_tree);
  g_test_add ("/resume/kill-mid-tree/exfat", Fixture, GINT_TO_POINTER (FERRY_TEST_STICK_FS_EXFAT),
              fixture_set_up, test_kill_mid_tree, fixture_tear_down);
  /* ntfs-3g keeps times to 100 ns: a copy's time is the source's cut
   * down, which the next run must still know for the source's */
  g_test_add ("/resume/kill-mid-tree/ntfs", Fixture, GINT_TO_POINTER (FERRY_TEST_STICK_FS_NTFS),
              fixture_set_up, test_kill_mid_tree, fixture_tear_down);
  ADD ("/resume/interrupt-says-how-to-go-on", test_interrupt_says_how_to_go_on);
  g_test_add ("/resume/interrupt-mid-big-file/exfat", Fixture,
              GINT_TO_POINTER (FERRY_TEST_STICK_FS_EXFAT), fixture_set_up,
              test_interrupt_mid_big_file, fixture_tear_down);
  ADD ("/resume/interrupt-measured-claims-carried", test_interrupt_measured_claims_carried);
  g_test_add ("/resume/interrupt-measured-claims-carried/exfat", Fixture,
              GINT_TO_POINTER (FERRY_TEST_STICK_FS_EXFAT), fixture_set_up,
              test_interrupt_measured_claims_carried, fixture_tear_down);
  ADD ("/resume/interrupt-journal-unsaved", test_interrupt_journal_unsaved);
  ADD ("/resume/same-transfer-twice", test_same_transfer_twice);
  g_test_add ("/resume/interrupt-early-goes-on/exfat", Fixture,
              GINT_TO_POINTER (FERRY_TEST_STICK_FS_EXFAT), fixture_set_up,
              test_interrupt_early_goes_on, fixture_tear_down);
  ADD ("/resume/full-says-how-to-go-on", test_full_says_how_to_go_on);
  ADD ("/resume/source-pulled-out", test_source_pulled_out);
  ADD ("/resume/kill-measured-fast", test_kill_measured_fast);
  ADD ("/resume/kill-fast-by-class-merged", test_kill_fast_by_class_merged);
  ADD ("/resume/kill-measured-folders", test_kill_measured_folders);
  ADD ("/resume/unplug-replug", test_unplug_replug);
  ADD ("/resume/unplugged-before-anything-kept", test_unplugged_before_anything_kept);
  ADD ("/resume/changed-between-runs", test_changed_between_runs);
  ADD ("/resume/restart", test_restart);
  ADD ("/resume/sweep-spares-claimed", test_sweep_spares_claimed);
  ADD ("/resume/other-stick-same-label", test_other_stick_same_label);
  ADD ("/resume/resume-by-id", test_resume_by_id);
  ADD ("/resume/discard-by-id", test_discard_by_id);
  ADD ("/resume/destination-folder-deleted", test_destination_folder_deleted);
  ADD ("/resume/moved-mount/by-id", test_moved_mount_by_id);
  ADD ("/resume/moved-mount/same-command", test_moved_mount_same_command);
  ADD ("/resume/stale-saves-removed", test_stale_saves_removed);
  ADD ("/resume/no-label-unplugged", test_no_label_unplugged);
  ADD ("/resume/carried-in-json", test_carried_in_json);
  ADD ("/resume/named-copy/same-command", test_named_copy_same_command);
  ADD ("/resume/named-copy/by-id", test_named_copy_by_id);
  ADD ("/resume/changed-in-named-folder", test_changed_in_named_folder);
  g_test_add ("/resume/resume-keeps-choices/exfat", Fixture,
              GINT_TO_POINTER (FERRY_TEST_STICK_FS_EXFAT), fixture_set_up,
              test_resume_keeps_choices, fixture_tear_down);
  g_test_add ("/resume/resume-stopped-by-names/exfat", Fixture,
              GINT_TO_POINTER (FERRY_TEST_STICK_FS_EXFAT), fixture_set_up,
              test_resume_stopped_by_names, fixture_tear_down);
  g_test_add ("/resume/resume-choices-overridden/exfat", Fixture,
              GINT_TO_POINTER (FERRY_TEST_STICK_FS_EXFAT), fixture_set_up,
              test_resume_choices_overridden, fixture_tear_down);
  ADD ("/resume/resume-all-says-left", test_resume_all_says_left);
#undef ADD
#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up_without_stick, func, fixture_tear_down)
  ADD ("/resume/damaged/cut-in-half", test_damaged_cut_in_half);
  ADD ("/resume/damaged/empty", test_damaged_empty);
  ADD ("/resume/damaged/random-bytes", test_damaged_random_bytes);
  ADD ("/resume/listed-no-more-than-total", test_listed_no_more_than_total);
#undef ADD
  return g_test_run ();
}
