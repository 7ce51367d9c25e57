/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The journal of a transfer, on the home disk: a save after each
 * durability point writes what that point changed, not every file the
 * transfer has done, and what is read back is what was saved, whatever
 * a kill cut short. No root, no device: the journal alone. */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "ferry-journal.h"
#include "ferry-test-util.h"

#define ID "0123456789abcdef"

static char *
journal_file (void)
{
  g_autofree char *dir = ferry_journal_dir ();

  return g_build_filename (dir, ID ".journal", NULL);
}

static char *
log_file (void)
{
  g_autofree char *dir = ferry_journal_dir ();

  return g_build_filename (dir, ID ".journal-log", NULL);
}

static FerryJournal *
new_journal (void)
{
  FerryJournal *journal = ferry_journal_new (ID);
  const char *sources[] = { "/home/someone/Photos", NULL };
  FerryFsId filesystem = { .dev = 2049, .label = (char *) "STICK" };

  ferry_journal_set_transfer (journal, sources, "/media/someone/STICK", &filesystem);
  return journal;
}

static FerryJournalStamp
stamp_of (guint i)
{
  return (FerryJournalStamp){ 1000 + i, 1700000000 + i, i % 1000000000 };
}

static char *
relpath_of (guint i)
{
  /* A space, a semicolon and a non-ASCII name: they must come back as they went. */
  return g_strdup_printf ("Photos/%u/IMG %u;é.jpg", i / 100, i);
}

static void
complete (FerryJournal *journal, guint from, guint to)
{
  for (guint i = from; i < to; i++)
    {
      g_autofree char *relpath = relpath_of (i);
      FerryJournalStamp stamp = stamp_of (i);

      ferry_journal_complete (journal, relpath, &stamp);
    }
}

/* The size of the files complete() lists from @from to @to. */
static guint64
sizes_of (guint from, guint to)
{
  guint64 bytes = 0;

  for (guint i = from; i < to; i++)
    bytes += stamp_of (i).size;
  return bytes;
}

static void
save (FerryJournal *journal)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (ferry_journal_save (journal, &error));
  g_assert_no_error (error);
}

static FerryJournal *
load (void)
{
  g_autoptr (GError) error = NULL;
  FerryJournal *journal = ferry_journal_load (ID, &error);

  g_assert_no_error (error);
  g_assert_nonnull (journal);
  return journal;
}

static void
assert_complete (FerryJournal *journal, guint files)
{
  g_assert_cmpuint (ferry_journal_get_files_complete (journal), ==, files);
  for (guint i = 0; i < files; i++)
    {
      g_autofree char *relpath = relpath_of (i);
      FerryJournalStamp stamp, expected = stamp_of (i);

      g_assert_true (ferry_journal_find_complete (journal, relpath, &stamp));
      g_assert_cmpuint (stamp.size, ==, expected.size);
      g_assert_cmpint (stamp.mtime_sec, ==, expected.mtime_sec);
      g_assert_cmpint (stamp.mtime_nsec, ==, expected.mtime_nsec);
    }
}

static guint64
file_size (const char *path)
{
  struct stat st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  return st.st_size;
}

static void
remove_journal (void)
{
  g_autoptr (FerryJournal) journal = ferry_journal_new (ID);

  ferry_journal_remove (journal);
}

/* 20,000 files done 500 at a time, a save after each batch: the whole
 * journal is written a few times, not 40, and the home disk takes about
 * what it holds, not the sum of every save's whole journal. */
static void
test_saves_what_changed (void)
{
  g_autoptr (FerryJournal) journal = new_journal ();
  g_autoptr (FerryJournal) back = NULL;
  g_autofree char *path = journal_file ();
  g_autofree char *log = log_file ();
  guint rewrites = 0;
  ino_t inode = 0;
  guint64 written = 0;

  for (guint batch = 0; batch < 40; batch++)
    {
      complete (journal, batch * 500, (batch + 1) * 500);
      ferry_journal_point_done (journal, 0, sizes_of (0, 20000));
      ferry_journal_wait_saved (journal);
      if (ferry_test_inode_of (path) != inode)
        {
          rewrites++;
          inode = ferry_test_inode_of (path);
          written += file_size (path);
        }
    }
  written += file_size (log);
  g_assert_cmpuint (rewrites, <=, 3);
  /* The journal of the 20,000 files is about 1.2 MB; the whole of it at
   * every save would be about 25 MB. */
  g_assert_cmpuint (written, <, 4 * 1024 * 1024);

  back = load ();
  assert_complete (back, 20000);
  g_assert_cmpuint (ferry_journal_get_bytes_durable (back), ==, sizes_of (0, 20000));
  g_assert_cmpuint (ferry_journal_get_bytes_total (back), ==, sizes_of (0, 20000));
  remove_journal ();
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (log, G_FILE_TEST_EXISTS));
}

/* A file in flight, then complete, then a second one dropped: the log
 * carries each change, and what is read back is the last of each. */
static void
test_in_flight_read_back (void)
{
  g_autoptr (FerryJournal) journal = new_journal ();
  g_autoptr (FerryJournal) back = NULL;
  g_auto (FerryJournalInFlight) in_flight = { 0 };
  g_auto (FerryJournalInFlight) dropped = { 0 };
  g_auto (FerryJournalInFlight) done = { 0 };
  FerryJournalStamp stamp = stamp_of (7);

  save (journal);
  ferry_journal_begin_file (journal, "Videos/big one.mkv", ".ferry-tmp-a", &stamp, 0);
  ferry_journal_begin_file (journal, "Videos/other.mkv", ".ferry-tmp-b", &stamp, 0);
  ferry_journal_wrote (journal, "Videos/big one.mkv", 64 << 20);
  ferry_journal_wrote (journal, "Videos/other.mkv", 32 << 20);
  ferry_journal_point_started (journal);
  ferry_journal_wrote (journal, "Videos/big one.mkv", 96 << 20);
  ferry_journal_point_done (journal, 0, 1 << 30);
  ferry_journal_wait_saved (journal);
  g_assert_cmpuint (ferry_journal_get_bytes_durable (journal), ==, 96 << 20);
  /* What a point vouched for of a file dropped is no longer there. */
  ferry_journal_drop_file (journal, "Videos/other.mkv");
  ferry_journal_point_done (journal, 0, 1 << 30);
  ferry_journal_wait_saved (journal);

  back = load ();
  g_assert_true (ferry_journal_find_in_flight (back, "Videos/big one.mkv", &in_flight));
  g_assert_cmpstr (in_flight.temp_name, ==, ".ferry-tmp-a");
  /* What the point covered, not what was written after it began. */
  g_assert_cmpuint (in_flight.durable, ==, 64 << 20);
  g_assert_false (ferry_journal_find_in_flight (back, "Videos/other.mkv", &dropped));
  g_assert_cmpuint (ferry_journal_get_bytes_durable (back), ==, 64 << 20);

  ferry_journal_complete (journal, "Videos/big one.mkv", &stamp);
  ferry_journal_point_done (journal, 0, 1 << 30);
  ferry_journal_wait_saved (journal);
  g_clear_object (&back);
  back = load ();
  g_assert_false (ferry_journal_find_in_flight (back, "Videos/big one.mkv", &done));
  g_assert_true (ferry_journal_find_complete (back, "Videos/big one.mkv", &stamp));
  g_assert_cmpuint (stamp.size, ==, stamp_of (7).size);
  remove_journal ();
}

/* What the journal says is on the device is what a next run finds: its
 * files complete and what points vouched for of those in flight, not
 * every byte a point found written (a small file's temporary file and a
 * hidden folder's files go when a copy stops). On a device fast by its
 * class, whose journal lists no files, what its points said is under
 * final names. */
static void
test_durable_is_what_is_listed (void)
{
  g_autoptr (FerryJournal) journal = new_journal ();
  g_autoptr (FerryJournal) back = NULL;
  g_autoptr (FerryJournal) placed = NULL;

  save (journal);
  complete (journal, 0, 3);
  ferry_journal_point_done (journal, 0, 50 * 1000 * 1000);
  ferry_journal_wait_saved (journal);
  back = load ();
  g_assert_cmpuint (ferry_journal_get_bytes_durable (back), ==, sizes_of (0, 3));
  g_clear_object (&back);
  remove_journal ();

  placed = new_journal ();
  save (placed);
  ferry_journal_point_done (placed, 5000, 50 * 1000 * 1000);
  ferry_journal_wait_saved (placed);
  back = load ();
  g_assert_cmpuint (ferry_journal_get_bytes_durable (back), ==, 5000);
  remove_journal ();
}

/* A point's save goes on a thread of its own: the journal's last
 * reference going right after the point still leaves it saved, and a
 * journal removed right after one leaves nothing behind. */
static void
test_point_saved_when_journal_goes (void)
{
  FerryJournal *journal = new_journal ();
  g_autoptr (FerryJournal) back = NULL;
  g_autofree char *path = journal_file ();
  g_autofree char *log = log_file ();

  save (journal);
  complete (journal, 0, 300);
  ferry_journal_point_done (journal, 0, sizes_of (0, 600));
  g_object_unref (journal);

  back = load ();
  assert_complete (back, 300);
  g_assert_cmpuint (ferry_journal_get_bytes_durable (back), ==, sizes_of (0, 300));

  complete (back, 300, 600);
  ferry_journal_point_done (back, 0, sizes_of (0, 600));
  ferry_journal_remove (back);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (log, G_FILE_TEST_EXISTS));
}

static void
append_text (const char *path, const char *text)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  g_assert_true (g_file_get_contents (path, &before, NULL, &error));
  after = g_strconcat (before, text, NULL);
  g_assert_true (g_file_set_contents (path, after, -1, &error));
  g_assert_no_error (error);
}

/* A kill in the middle of an append leaves a line cut short: it and
 * whatever follows are not read, what came before is; and the run that
 * goes on from the journal writes it whole first, so its own lines do
 * not follow the cut one. */
static void
test_line_cut_short (void)
{
  g_autoptr (FerryJournal) journal = new_journal ();
  g_autoptr (FerryJournal) back = NULL;
  g_autoptr (FerryJournal) again = NULL;
  g_autofree char *log = log_file ();
  FerryJournalStamp lost;

  complete (journal, 0, 5);
  save (journal);
  complete (journal, 5, 10);
  save (journal);
  append_text (log, "c Photos%2F0%2Flost 12;17");

  back = load ();
  assert_complete (back, 10);
  g_assert_false (ferry_journal_find_complete (back, "Photos/0/lost", &lost));

  complete (back, 10, 11);
  save (back);
  again = load ();
  assert_complete (again, 11);
  remove_journal ();
}

/* A log left of the generation before (the whole journal was renamed
 * into place, then the run was killed before it emptied the log) says
 * nothing the journal does not: it is not read. */
static void
test_old_log_ignored (void)
{
  g_autoptr (FerryJournal) journal = new_journal ();
  g_autoptr (FerryJournal) back = NULL;
  g_autofree char *log = log_file ();
  g_autoptr (GError) error = NULL;
  FerryJournalStamp ghost;

  complete (journal, 0, 3);
  save (journal);
  g_assert_true (g_file_set_contents (log, "generation 0\nx Photos%2F0%2FIMG%200%3B%C3%A9.jpg\n"
                                           "c Photos%2Fghost 1;2;3\n", -1, &error));
  back = load ();
  assert_complete (back, 3);
  g_assert_false (ferry_journal_find_complete (back, "Photos/ghost", &ghost));
  remove_journal ();
}

/* A log whose journal is gone (a removal cut short) is swept when the
 * journals are listed; a journal's own log is not. */
static void
test_orphan_log_swept (void)
{
  g_autoptr (FerryJournal) journal = new_journal ();
  g_autofree char *dir = ferry_journal_dir ();
  g_autofree char *orphan = g_build_filename (dir, "fedcba9876543210.journal-log", NULL);
  g_autofree char *log = log_file ();
  g_auto (GStrv) ids = NULL;
  g_autoptr (GError) error = NULL;

  save (journal);
  g_assert_true (g_file_set_contents (orphan, "generation 1\n", -1, &error));
  ids = ferry_journal_list_ids ();
  g_assert_cmpuint (g_strv_length (ids), ==, 1);
  g_assert_cmpstr (ids[0], ==, ID);
  g_assert_false (g_file_test (orphan, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (log, G_FILE_TEST_EXISTS));
  remove_journal ();
}

/* What a transfer was asked is in its journal from the first save,
 * read back and kept by a journal continuing it, and replaced by what a
 * later run is asked; a journal of a Ferry that kept no choices reads as
 * one with none. */
static void
test_choices_kept (void)
{
  g_autoptr (GHashTable) choices = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (FerryJournal) journal = NULL;
  g_autoptr (FerryJournal) back = NULL;
  g_autoptr (FerryJournal) again = NULL;
  g_autoptr (FerryJournal) old = NULL;
  g_autofree char *path = journal_file ();

  g_hash_table_insert (choices, "unsupported-policy", "adapt");
  g_hash_table_insert (choices, "preserve", "false");
  journal = new_journal ();
  ferry_journal_set_choices (journal, choices);
  save (journal);
  back = load ();
  g_assert_cmpstr (ferry_journal_get_choice (back, "unsupported-policy"), ==, "adapt");
  g_assert_cmpstr (ferry_journal_get_choice (back, "preserve"), ==, "false");
  g_assert_null (ferry_journal_get_choice (back, "conflict-policy"));

  g_hash_table_remove (choices, "preserve");
  g_hash_table_insert (choices, "unsupported-policy", "skip");
  ferry_journal_set_choices (back, choices);
  save (back);
  again = load ();
  g_assert_cmpstr (ferry_journal_get_choice (again, "unsupported-policy"), ==, "skip");
  g_assert_null (ferry_journal_get_choice (again, "preserve"));

  ferry_test_write_text (path, "[transfer]\nsources=/home/someone/Photos;\n"
                               "destination=/media/someone/STICK\nfs-dev=2049\n"
                               "bytes-total=3000\nbytes-durable=0\n");
  old = load ();
  g_assert_null (ferry_journal_get_choice (old, "unsupported-policy"));
  remove_journal ();
}

int
main (int argc, char **argv)
{
  /* Before GLib reads it once and for all: journals of this test only,
   * in the build's scratch folder when there is one (a failed run's are
   * left there, not in /tmp). */
  const char *base = g_getenv ("FERRY_TEST_TMPDIR");
  g_autofree char *state
      = g_build_filename (base ? base : g_get_tmp_dir (), "journal-XXXXXX", NULL);
  int status;

  if (base != NULL)
    g_mkdir_with_parents (base, 0700);
  g_assert_nonnull (g_mkdtemp (state));

  g_setenv ("XDG_STATE_HOME", state, TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/journal/saves-what-changed", test_saves_what_changed);
  g_test_add_func ("/journal/in-flight-read-back", test_in_flight_read_back);
  g_test_add_func ("/journal/point-saved-when-journal-goes", test_point_saved_when_journal_goes);
  g_test_add_func ("/journal/durable-is-what-is-listed", test_durable_is_what_is_listed);
  g_test_add_func ("/journal/line-cut-short", test_line_cut_short);
  g_test_add_func ("/journal/old-log-ignored", test_old_log_ignored);
  g_test_add_func ("/journal/orphan-log-swept", test_orphan_log_swept);
  g_test_add_func ("/journal/choices-kept", test_choices_kept);
  status = g_test_run ();
  ferry_test_remove_tree (state);
  return status;
}
