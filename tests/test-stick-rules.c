/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What an exFAT or NTFS stick cannot store as it is, found before the
 * first byte (issue 13): on sticks the test makes (loop device, mkfs,
 * exfat-fuse or ntfs-3g), as root; skipped with the reason elsewhere.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "ferry-engine.h"
#include "ferry-test-stick.h"
#include "ferry-test-util.h"

#define MB 1000000

typedef struct
{
  char *scratch;
  char *tree;
  FerryTestStick *stick;
  const char *mnt;
} Fixture;

/* Everything a Windows-formatted stick refuses, beside plain files. */
static char *
make_problem_tree (const char *scratch)
{
  g_autofree char *tree = g_build_filename (scratch, "Problems", NULL);

  ferry_test_make_dirs (ferry_test_path (tree, "Plain", NULL));
  ferry_test_write_random (ferry_test_path (tree, "Plain", "photo.jpg", NULL), 300000, 1);
  ferry_test_write_text (ferry_test_path (tree, "Plain", "notes.txt", NULL), "plain\n");
  ferry_test_write_text (ferry_test_path (tree, "readme.txt", NULL), "lower\n");
  ferry_test_write_text (ferry_test_path (tree, "README.txt", NULL), "UPPER\n");
  ferry_test_write_text (ferry_test_path (tree, "ratio 16:9.txt", NULL), "ratio\n");
  ferry_test_write_text (ferry_test_path (tree, "why?.txt", NULL), "why\n");
  ferry_test_write_text (ferry_test_path (tree, "a*b.txt", NULL), "star\n");
  ferry_test_write_text (ferry_test_path (tree, "in|out.txt", NULL), "pipe\n");
  ferry_test_write_text (ferry_test_path (tree, "CON.txt", NULL), "con\n");
  ferry_test_write_text (ferry_test_path (tree, "ends with dot.", NULL), "dot\n");
  ferry_test_write_text (ferry_test_path (tree, "target.txt", NULL), "target\n");
  g_assert_cmpint (symlink ("target.txt", ferry_test_path (tree, "link.txt", NULL)), ==, 0);
  ferry_test_write_text (ferry_test_path (tree, "one.bin", NULL), "twice\n");
  g_assert_cmpint (link (ferry_test_path (tree, "one.bin", NULL),
                         ferry_test_path (tree, "two.bin", NULL)),
                   ==, 0);
  /* A link to a file of two names, which NTFS keeps as one file. */
  g_assert_cmpint (symlink ("one.bin", ferry_test_path (tree, "to one.bin", NULL)), ==, 0);
  g_assert_cmpint (mkfifo (ferry_test_path (tree, "pipe", NULL), 0644), ==, 0);
  return g_steal_pointer (&tree);
}

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  FerryTestStickFs fs = GPOINTER_TO_INT (data);
  g_autofree char *workdir = NULL;
  FerryTestStickOptions options = { .label = "FERRYRULES", .size_bytes = 300 * MB, .fs = fs };

  f->scratch = ferry_test_scratch_new ("stick-rules");
  workdir = g_build_filename (f->scratch, "stick", NULL);
  options.workdir = workdir;
  f->tree = make_problem_tree (f->scratch);
  f->stick = ferry_test_stick_new_or_skip_full (&options);
  if (f->stick != NULL)
    f->mnt = ferry_test_stick_get_mountpoint (f->stick);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_clear_pointer (&f->stick, ferry_test_stick_free);
  ferry_test_remove_tree (f->scratch);
  g_free (f->scratch);
  g_free (f->tree);
}

static FerryJob *
job_for (const char *source, const char *destination, FerryUnsupportedPolicy policy)
{
  g_autoptr (GFile) src = g_file_new_for_path (source);
  g_autoptr (GFile) dst = g_file_new_for_path (destination);
  FerryJob *job = ferry_job_new (&src, 1, dst);

  ferry_job_set_unsupported_policy (job, policy);
  return job;
}

/* A job of @source as typed: "dir/." stays (a GFile would make it
 * "dir"), to copy the folder's entries into @destination itself. */
static FerryJob *
job_for_typed (const char *source, const char *destination)
{
  const char *sources[] = { source, NULL };
  FerryJob *job = ferry_job_new_for_paths (sources, 1, destination);

  ferry_job_set_unsupported_policy (job, FERRY_UNSUPPORTED_POLICY_STOP);
  return job;
}

static gboolean
report_has (FerryUnsupportedReport *report,
            FerryUnsupportedKind kind,
            const char *path,
            const char *adapted)
{
  GPtrArray *items = ferry_unsupported_report_get_items (report);

  for (guint i = 0; i < items->len; i++)
    {
      FerryUnsupportedItem *item = g_ptr_array_index (items, i);
      if (item->kind == kind && g_str_equal (item->path, path)
          && g_strcmp0 (item->adapted, adapted) == 0)
        return TRUE;
    }
  g_test_message ("not in the report: %d %s → %s", kind, path, adapted);
  return FALSE;
}

/* The problems both filesystems share. */
static void
assert_windows_problems (FerryUnsupportedReport *report)
{
  g_assert_true (report_has (report, FERRY_UNSUPPORTED_NAME_CHARACTERS, "Problems/ratio 16:9.txt",
                             "ratio 16：9.txt"));
  g_assert_true (report_has (report, FERRY_UNSUPPORTED_NAME_CHARACTERS, "Problems/why?.txt",
                             "why？.txt"));
  g_assert_true (
      report_has (report, FERRY_UNSUPPORTED_NAME_CHARACTERS, "Problems/a*b.txt", "a＊b.txt"));
  g_assert_true (
      report_has (report, FERRY_UNSUPPORTED_NAME_CHARACTERS, "Problems/in|out.txt", "in｜out.txt"));
  g_assert_true (
      report_has (report, FERRY_UNSUPPORTED_NAME_RESERVED, "Problems/CON.txt", "CON_.txt"));
  g_assert_true (report_has (report, FERRY_UNSUPPORTED_NAME_ENDING, "Problems/ends with dot.",
                             "ends with dot"));
  g_assert_true (
      report_has (report, FERRY_UNSUPPORTED_SYMLINK, "Problems/link.txt", "link.txt"));
  g_assert_true (report_has (report, FERRY_UNSUPPORTED_SPECIAL_FILE, "Problems/pipe", NULL));
}

/* Without a decision nothing is written, and the error and the report
 * name every problem. */
static void
test_refused (Fixture *f, gconstpointer data)
{
  FerryTestStickFs fs = GPOINTER_TO_INT (data);
  g_autoptr (FerryJob) job = NULL;
  g_autoptr (FerryUnsupportedReport) report = NULL;
  g_autoptr (GError) error = NULL;

  if (f->stick == NULL)
    return;
  job = job_for (f->tree, f->mnt, FERRY_UNSUPPORTED_POLICY_STOP);
  g_assert_false (ferry_test_run_job (job, &error));
  g_assert_error (error, FERRY_ERROR, FERRY_ERROR_UNSUPPORTED);
  g_test_message ("%s", error->message);
  report = ferry_job_dup_unsupported_report (job);
  g_assert_nonnull (report);
  g_assert_cmpint (ferry_unsupported_report_get_action (report), ==,
                   FERRY_UNSUPPORTED_ACTION_NONE);
  assert_windows_problems (report);
  if (fs == FERRY_TEST_STICK_FS_EXFAT)
    {
      g_assert_cmpstr (ferry_unsupported_report_get_filesystem (report), ==, "exFAT");
      g_assert_true (report_has (report, FERRY_UNSUPPORTED_CASE_COLLISION, "Problems/readme.txt",
                                 "readme (2).txt"));
      g_assert_true (
          report_has (report, FERRY_UNSUPPORTED_HARDLINK, "Problems/two.bin", "two.bin"));
      g_assert_cmpuint (ferry_unsupported_report_get_items (report)->len, ==, 11);
    }
  else
    {
      g_assert_cmpstr (ferry_unsupported_report_get_filesystem (report), ==, "NTFS");
      g_assert_cmpuint (ferry_unsupported_report_get_items (report)->len, ==, 9);
    }
  /* The drive is untouched. */
  g_assert_false (g_file_test (ferry_test_path (f->mnt, "Problems", NULL), G_FILE_TEST_EXISTS));
}

static void
assert_file_text (const char *path, const char *text)
{
  g_autofree char *contents = NULL;
  g_autoptr (GError) error = NULL;

  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (contents, ==, text);
}

/* On NTFS the two names of one file stay one file, and the link to them,
 * copied as the file it points to, is a file of its own: editing it
 * must not change them (nor may it take the place of their second name). */
static void
assert_names_of_one_file (const char *copy)
{
  ino_t one = ferry_test_inode_of (ferry_test_path (copy, "one.bin", NULL));

  g_assert_cmpuint (ferry_test_inode_of (ferry_test_path (copy, "two.bin", NULL)), ==, one);
  g_assert_cmpuint (ferry_test_inode_of (ferry_test_path (copy, "to one.bin", NULL)), !=, one);
}

/* Adapted, every file's content is on the drive: plain files at their
 * own paths byte for byte, the others under the names the report gave. */
static void
test_adapted (Fixture *f, gconstpointer data)
{
  g_autofree char *copy = NULL;
  g_autoptr (FerryJob) job = NULL;
  g_autoptr (GError) error = NULL;

  if (f->stick == NULL)
    return;
  copy = g_build_filename (f->mnt, "Problems", NULL);
  job = job_for (f->tree, f->mnt, FERRY_UNSUPPORTED_POLICY_ADAPT);
  if (!ferry_test_run_job (job, &error))
    g_error ("%s\n%s", error->message, ferry_test_describe_failures (job));

  ferry_test_assert_trees_equal (ferry_test_path (f->tree, "Plain", NULL),
                                 ferry_test_path (copy, "Plain", NULL), FERRY_TEST_COMPARE_CONTENT);
  assert_file_text (ferry_test_path (copy, "README.txt", NULL), "UPPER\n");
  assert_file_text (ferry_test_path (copy, GPOINTER_TO_INT (data) == FERRY_TEST_STICK_FS_EXFAT
                                               ? "readme (2).txt"
                                               : "readme.txt",
                                     NULL),
                    "lower\n");
  assert_file_text (ferry_test_path (copy, "ratio 16：9.txt", NULL), "ratio\n");
  assert_file_text (ferry_test_path (copy, "why？.txt", NULL), "why\n");
  assert_file_text (ferry_test_path (copy, "a＊b.txt", NULL), "star\n");
  assert_file_text (ferry_test_path (copy, "in｜out.txt", NULL), "pipe\n");
  assert_file_text (ferry_test_path (copy, "CON_.txt", NULL), "con\n");
  assert_file_text (ferry_test_path (copy, "ends with dot", NULL), "dot\n");
  assert_file_text (ferry_test_path (copy, "link.txt", NULL), "target\n");
  assert_file_text (ferry_test_path (copy, "one.bin", NULL), "twice\n");
  assert_file_text (ferry_test_path (copy, "two.bin", NULL), "twice\n");
  assert_file_text (ferry_test_path (copy, "to one.bin", NULL), "twice\n");
  if (GPOINTER_TO_INT (data) == FERRY_TEST_STICK_FS_NTFS)
    assert_names_of_one_file (copy);
  g_assert_false (g_file_test (ferry_test_path (copy, "pipe", NULL), G_FILE_TEST_EXISTS));
  g_assert_cmpuint (ferry_test_count_temp_files (copy), ==, 0);
}

/* The names of the folder's entries on the drive, sorted, as one line. */
static char *
list_folder (const char *path)
{
  g_autoptr (GPtrArray) names = ferry_test_list_sorted (path);

  g_ptr_array_add (names, NULL);
  return g_strjoinv (" / ", (char **) names->pdata);
}

/* Copied again, adapted again: each entry gets the name it got the first
 * time, and meets its earlier copy as a conflict (skipped here), where
 * before the second copy made "readme (3).txt" beside "readme (2).txt".
 * A run that continues one cut short names them so too. */
static void
test_adapted_again (Fixture *f, gconstpointer data)
{
  g_autofree char *copy = NULL;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autoptr (FerryJob) job = NULL;
  g_autoptr (FerryJob) again = NULL;
  g_autoptr (GError) error = NULL;

  if (f->stick == NULL)
    return;
  copy = g_build_filename (f->mnt, "Problems", NULL);
  job = job_for (f->tree, f->mnt, FERRY_UNSUPPORTED_POLICY_ADAPT);
  g_assert_true (ferry_test_run_job (job, NULL));
  first = list_folder (copy);
  g_assert_nonnull (strstr (first, "readme (2).txt"));
  again = job_for (f->tree, f->mnt, FERRY_UNSUPPORTED_POLICY_ADAPT);
  ferry_job_set_conflict_policy (again, FERRY_CONFLICT_POLICY_SKIP);
  if (!ferry_test_run_job (again, &error))
    g_error ("%s\n%s", error->message, ferry_test_describe_failures (again));
  second = list_folder (copy);
  g_assert_cmpstr (second, ==, first);
  assert_file_text (ferry_test_path (copy, "readme (2).txt", NULL), "lower\n");
}

static gboolean
answer_skip (FerryJob *job, FerryUnsupportedReport *report, gpointer user_data)
{
  guint *asked = user_data;

  (*asked)++;
  ferry_unsupported_report_answer (report, FERRY_UNSUPPORTED_ACTION_SKIP);
  return TRUE;
}

/* Asked once; "skip these" copies only what the drive can store. */
static void
test_asked_skip (Fixture *f, gconstpointer data)
{
  g_autofree char *copy = NULL;
  g_autoptr (FerryJob) job = NULL;
  g_autoptr (GError) error = NULL;
  guint asked = 0;

  if (f->stick == NULL)
    return;
  copy = g_build_filename (f->mnt, "Problems", NULL);
  job = job_for (f->tree, f->mnt, FERRY_UNSUPPORTED_POLICY_ASK);
  g_signal_connect (job, "unsupported", G_CALLBACK (answer_skip), &asked);
  if (!ferry_test_run_job (job, &error))
    g_error ("%s\n%s", error->message, ferry_test_describe_failures (job));
  g_assert_cmpuint (asked, ==, 1);
  ferry_test_assert_trees_equal (ferry_test_path (f->tree, "Plain", NULL),
                                 ferry_test_path (copy, "Plain", NULL), FERRY_TEST_COMPARE_CONTENT);
  assert_file_text (ferry_test_path (copy, "README.txt", NULL), "UPPER\n");
  assert_file_text (ferry_test_path (copy, "target.txt", NULL), "target\n");
  g_assert_false (g_file_test (ferry_test_path (copy, "why？.txt", NULL), G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (ferry_test_path (copy, "link.txt", NULL), G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (ferry_test_path (copy, "CON_.txt", NULL), G_FILE_TEST_EXISTS));
}

/* 10,000 one-byte files take 10,000 clusters (32 KiB on a 300 MB exFAT
 * stick: 328 MB), not 40 MB: refused before anything is written. */
static void
test_fit_in_clusters (Fixture *f, gconstpointer data)
{
  g_autofree char *tree = NULL;
  g_autoptr (FerryJob) job = NULL;
  g_autoptr (GError) error = NULL;

  if (f->stick == NULL)
    return;
  tree = g_build_filename (f->scratch, "Tiny", NULL);
  ferry_test_make_dirs (tree);
  for (guint i = 0; i < 10000; i++)
    {
      g_autofree char *name = g_strdup_printf ("%05u.txt", i);
      ferry_test_write_text (ferry_test_path (tree, name, NULL), "x");
    }
  job = job_for (tree, f->mnt, FERRY_UNSUPPORTED_POLICY_STOP);
  g_assert_false (ferry_test_run_job (job, &error));
  g_assert_error (error, FERRY_ERROR, FERRY_ERROR_NOT_ENOUGH_SPACE);
  g_test_message ("%s", error->message);
  g_assert_false (g_file_test (ferry_test_path (f->mnt, "Tiny", NULL), G_FILE_TEST_EXISTS));
}

/* A stick of @size_bytes beside the fixture's (whose 300 MB take long to
 * fill, and are more than FAT32 needs to report its size through
 * fusefat), SMALL. */
static FerryTestStick *
new_small_stick (Fixture *f, FerryTestStickFs fs, guint64 size_bytes)
{
  g_autofree char *workdir = g_build_filename (f->scratch, "small-stick", NULL);
  FerryTestStick *stick = ferry_test_stick_new_or_skip_full (
      &(FerryTestStickOptions){ .workdir = workdir, .label = "SMALL", .size_bytes = size_bytes, .fs = fs });

  g_assert_nonnull (stick); /* the fixture's was made the same way */
  return stick;
}

/* A copy the check says fits, fits. On NTFS each file also takes a
 * record of 1 KiB and its place in the folder's index, over 1,200 bytes
 * beyond its clusters: counted as FAT's 96 bytes, 3,000 files of 3,000
 * bytes (16 MB on the stick) were said to need 12.7 MB, and with 14 MB
 * free the copy ran out of space at its 2,000th file or so. Now it is
 * refused before anything is written; with 18 MB free it is copied. On
 * a stick of its own: filling the fixture's through ntfs-3g took 16 s. */
static void
test_said_to_fit_fits (Fixture *f, gconstpointer data)
{
  g_autofree char *tree = g_build_filename (f->scratch, "Notes", NULL);
  g_autoptr (FerryTestStick) stick = NULL;
  g_autoptr (FerryJob) refused = NULL;
  g_autoptr (FerryJob) fits = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *filler = NULL;
  const char *mnt, *copy;
  struct stat st;

  if (f->stick == NULL)
    return;
  stick = new_small_stick (f, GPOINTER_TO_INT (data), 40 * MB);
  mnt = ferry_test_stick_get_mountpoint (stick);
  copy = ferry_test_path (mnt, "Notes", NULL);
  for (guint i = 0; i < 3000; i++)
    {
      g_autofree char *folder = g_strdup_printf ("week%02u", i / 100);
      g_autofree char *name = g_strdup_printf ("note%04u.txt", i);

      ferry_test_make_dirs (ferry_test_path (tree, folder, NULL));
      ferry_test_write_random (ferry_test_path (tree, folder, name, NULL), 3000, i);
    }
  filler = ferry_test_fill_leaving (mnt, 14 * MB);
  refused = job_for (tree, mnt, FERRY_UNSUPPORTED_POLICY_STOP);
  g_assert_false (ferry_test_run_job (refused, &error));
  g_test_message ("%s", error->message);
  g_assert_error (error, FERRY_ERROR, FERRY_ERROR_NOT_ENOUGH_SPACE);
  g_assert_false (g_file_test (copy, G_FILE_TEST_EXISTS));

  /* 4 MB more free */
  g_assert_cmpint (stat (filler, &st), ==, 0);
  g_assert_cmpint (truncate (filler, st.st_size - 4 * MB), ==, 0);
  fits = job_for (tree, mnt, FERRY_UNSUPPORTED_POLICY_STOP);
  g_assert_true (ferry_test_run_job (fits, NULL));
  ferry_test_assert_trees_equal (tree, copy, FERRY_TEST_COMPARE_CONTENT);
}

/* The top folder of a FAT16 drive holds 512 entries, whatever the space
 * (a long name takes one more for each 13 characters): 200 songs with
 * long names copied there are refused before anything is written, with
 * a way out, where the drive said it was full (fusefat: "Operation not
 * permitted" for each file past the limit, then its mount died). In a
 * folder there they fit. */
static void
test_top_folder_full (Fixture *f, gconstpointer data)
{
  g_autofree char *music = g_build_filename (f->scratch, "Music", NULL);
  g_autofree char *contents = g_strconcat (music, "/.", NULL);
  g_autoptr (FerryJob) refused = NULL;
  g_autoptr (FerryJob) into_folder = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) top = NULL;

  if (f->stick == NULL)
    return;
  ferry_test_make_dirs (music);
  for (guint i = 0; i < 200; i++)
    {
      g_autofree char *name = g_strdup_printf ("%03u - A song with a long name.mp3", i);
      ferry_test_write_text (ferry_test_path (music, name, NULL), "la\n");
    }
  refused = job_for_typed (contents, f->mnt);
  g_assert_false (ferry_test_run_job (refused, &error));
  g_test_message ("%s", error->message);
  g_assert_error (error, FERRY_ERROR, FERRY_ERROR_NOT_ENOUGH_SPACE);
  g_assert_nonnull (strstr (error->message, "holds only 512 entries"));
  g_assert_nonnull (strstr (error->message, "copy into a folder on the drive instead"));
  top = ferry_test_list_sorted (f->mnt);
  for (guint i = 0; i < top->len; i++)
    g_assert_false (g_str_has_suffix (g_ptr_array_index (top, i), ".mp3"));

  /* Planned only: fusefat garbles a FAT16 folder of many long names
   * that files are renamed into (a phantom "~51", two files of other
   * bytes; FAT32 and cp's direct writes are fine), which is not what
   * this test is about. */
  into_folder = job_for (music, f->mnt, FERRY_UNSUPPORTED_POLICY_STOP);
  ferry_job_set_dry_run (into_folder, TRUE);
  g_assert_true (ferry_test_run_job (into_folder, NULL));
}

/* Any FAT folder holds 65,536 entries, and a camera's long names take 4
 * each: 16,400 photos in one folder are refused before anything is
 * written, naming the folder and a way out, where the drive would say
 * it is full at the 16,384th with space to spare. 16,000 fit. */
static void
test_folder_full (Fixture *f, gconstpointer data)
{
  g_autofree char *camera = g_build_filename (f->scratch, "Camera", NULL);
  g_autofree char *copy = g_build_filename (f->mnt, "Camera", NULL);
  g_autoptr (FerryJob) refused = NULL;
  g_autoptr (FerryJob) fits = NULL;
  g_autoptr (GError) error = NULL;

  if (f->stick == NULL)
    return;
  ferry_test_make_dirs (camera);
  for (guint i = 0; i < 16400; i++)
    {
      g_autofree char *name = g_strdup_printf ("IMG_20231005_143022_%05u.jpg", i);
      ferry_test_write_text (ferry_test_path (camera, name, NULL), "");
    }
  refused = job_for (camera, f->mnt, FERRY_UNSUPPORTED_POLICY_STOP);
  g_assert_false (ferry_test_run_job (refused, &error));
  g_test_message ("%s", error->message);
  g_assert_error (error, FERRY_ERROR, FERRY_ERROR_NOT_ENOUGH_SPACE);
  g_assert_nonnull (strstr (error->message, copy));
  g_assert_nonnull (strstr (error->message, "would hold 65602 entries, and a folder on a FAT32 "
                                            "drive holds 65536"));
  g_assert_nonnull (strstr (error->message, "split it into smaller folders"));
  g_assert_false (g_file_test (copy, G_FILE_TEST_EXISTS));

  for (guint i = 16000; i < 16400; i++)
    {
      g_autofree char *name = g_strdup_printf ("IMG_20231005_143022_%05u.jpg", i);
      g_assert_cmpint (unlink (ferry_test_path (camera, name, NULL)), ==, 0);
    }
  fits = job_for (camera, f->mnt, FERRY_UNSUPPORTED_POLICY_STOP);
  ferry_job_set_dry_run (fits, TRUE);
  g_assert_true (ferry_test_run_job (fits, NULL));
}

/* A folder's contents copied into the top folder of a FAT32 stick
 * ("Plain/."): that folder has no entry of its own, so nothing to give
 * the source folder's times; fusefat died when asked to, and the stick's
 * mount was "Transport endpoint is not connected" after the files. */
static void
test_into_top_folder (Fixture *f, gconstpointer data)
{
  g_autofree char *contents = g_strconcat (f->tree, "/Plain/.", NULL);
  g_autoptr (FerryJob) job = NULL;
  g_autoptr (GError) error = NULL;
  struct stat st;

  if (f->stick == NULL)
    return;
  job = job_for_typed (contents, f->mnt);
  if (!ferry_test_run_job (job, &error))
    g_error ("%s\n%s", error->message, ferry_test_describe_failures (job));
  g_assert_cmpint (stat (f->mnt, &st), ==, 0);
  g_assert_true (ferry_test_stick_unmount_lazily (f->stick, &error));
  g_assert_true (ferry_test_stick_mount_again (f->stick, &error));
  g_assert_no_error (error);
  assert_file_text (ferry_test_path (f->mnt, "notes.txt", NULL), "plain\n");
  ferry_test_assert_files_equal (ferry_test_path (f->tree, "Plain", "photo.jpg", NULL),
                                 ferry_test_path (f->mnt, "photo.jpg", NULL));
}

/* fusefat reports no size (0 blocks, 0 free) for FAT32 whose clusters
 * are under 1 KiB, as mkfs.vfat makes them below 260 MB: a copy there is
 * not refused for want of room it cannot measure (before: "only 0 bytes
 * are available", whatever the copy). */
static void
test_size_unknown (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestStick) stick = NULL;
  g_autoptr (FerryJob) job = NULL;
  g_autoptr (GError) error = NULL;
  struct statvfs vfs;
  const char *mnt;

  if (f->stick == NULL)
    return;
  stick = new_small_stick (f, GPOINTER_TO_INT (data), 100 * MB);
  mnt = ferry_test_stick_get_mountpoint (stick);
  g_assert_cmpint (statvfs (mnt, &vfs), ==, 0);
  g_assert_cmpuint (vfs.f_blocks, ==, 0);
  job = job_for (ferry_test_path (f->tree, "Plain", NULL), mnt, FERRY_UNSUPPORTED_POLICY_STOP);
  g_assert_true (ferry_test_run_job (job, &error));
  g_assert_no_error (error);
  ferry_test_assert_trees_equal (ferry_test_path (f->tree, "Plain", NULL),
                                 ferry_test_path (mnt, "Plain", NULL), FERRY_TEST_COMPARE_CONTENT);
}

/* ferry-copy of @source onto the stick, without a terminal, with
 * @policy (an --unsupported= option) or its default; whether it
 * succeeded, and in @err what it said. */
static gboolean
copy_by_cli (Fixture *f, const char *source, const char *policy, char **err)
{
  const char *argv[] = { g_getenv ("FERRY_COPY"), "--progress=none", source, f->mnt, NULL, NULL };
  g_autoptr (GError) error = NULL;
  int status;

  g_assert_nonnull (argv[0]);
  if (policy != NULL)
    {
      argv[4] = argv[3];
      argv[3] = argv[2];
      argv[2] = policy;
    }
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDIN_FROM_DEV_NULL,
                NULL, NULL, NULL, err, &status, &error);
  g_assert_no_error (error);
  g_test_message ("%s", *err);
  return g_spawn_check_wait_status (status, NULL);
}

/* The problem tree. */
static gboolean
copy_tree_by_cli (Fixture *f, const char *policy, char **err)
{
  return copy_by_cli (f, f->tree, policy, err);
}

/* Without a terminal ferry-copy stops before writing and names every
 * problem on standard error. */
static void
test_cli_refused (Fixture *f, gconstpointer data)
{
  g_autofree char *err = NULL;

  if (f->stick == NULL)
    return;
  g_assert_false (copy_tree_by_cli (f, NULL, &err));
  g_assert_nonnull (strstr (err, "cannot be stored on this exFAT drive"));
  g_assert_nonnull (strstr (err, "Problems/ratio 16:9.txt"));
  g_assert_nonnull (strstr (err, "(adapted: named “ratio 16：9.txt”)"));
  g_assert_nonnull (strstr (err, "Problems/link.txt is a symbolic link, which exFAT cannot store "
                                 "(adapted: copied as the file it points to)"));
  g_assert_nonnull (strstr (err, ".bin is another name of a file, which exFAT cannot store "
                                 "(adapted: copied as a separate file)"));
  g_assert_nonnull (strstr (err, "Problems/pipe"));
  g_assert_nonnull (strstr (err, "Problems/readme.txt"));
  g_assert_nonnull (strstr (err, "--unsupported=adapt"));
  g_assert_false (g_file_test (ferry_test_path (f->mnt, "Problems", NULL), G_FILE_TEST_EXISTS));
}

/* With --unsupported=adapt ferry-copy says, after the copy, what became
 * of each entry: the name it got, or how a link was copied. */
static void
test_cli_adapted (Fixture *f, gconstpointer data)
{
  g_autofree char *err = NULL;

  if (f->stick == NULL)
    return;
  g_assert_true (copy_tree_by_cli (f, "--unsupported=adapt", &err));
  g_assert_nonnull (strstr (err, "Adapted: Problems/why?.txt, named “why？.txt”\n"));
  g_assert_nonnull (strstr (err, "Adapted: Problems/link.txt, copied as the file it points to\n"));
  g_assert_nonnull (strstr (err, ".bin, copied as a separate file\n"));
  g_assert_nonnull (strstr (err, "Skipped: Problems/pipe\n"));
  assert_file_text (ferry_test_path (f->mnt, "Problems", "link.txt", NULL), "target\n");
  assert_file_text (ferry_test_path (f->mnt, "Problems", "two.bin", NULL), "twice\n");
}

/* Names listed as a terminal can show them: an escape sequence in a
 * name does not colour the terminal, and a newline does not split the
 * list, before the copy or after it. Bytes that are not UTF-8 are
 * escaped as in Ferry's messages: "lat\xE9.txt" and "lat\xE8.txt" were
 * both "lat\uFFFD.txt", and a person could not tell which became
 * "lat_.txt" and which "lat_ (2).txt". */
static void
test_cli_names_shown_safely (Fixture *f, gconstpointer data)
{
  g_autofree char *odd = g_build_filename (f->scratch, "Odd", NULL);
  g_autofree char *refused = NULL;
  g_autofree char *adapted = NULL;

  if (f->stick == NULL)
    return;
  ferry_test_make_dirs (odd);
  ferry_test_write_text (ferry_test_path (odd, "red\033[31m?.txt", NULL), "red\n");
  ferry_test_write_text (ferry_test_path (odd, "two\nlines?.txt", NULL), "two\n");
  ferry_test_write_text (ferry_test_path (odd, "lat\xe9.txt", NULL), "e acute\n");
  ferry_test_write_text (ferry_test_path (odd, "lat\xe8.txt", NULL), "e grave\n");
  g_assert_false (copy_by_cli (f, odd, NULL, &refused));
  g_assert_nonnull (strstr (refused, "  Odd/red\\x1B[31m?.txt uses characters"));
  g_assert_nonnull (strstr (refused, "  Odd/two\\nlines?.txt uses characters"));
  g_assert_nonnull (strstr (refused, "  Odd/lat\\xE8.txt is not valid UTF-8 (adapted: named "
                                     "“lat_.txt”)\n"));
  g_assert_true (copy_by_cli (f, odd, "--unsupported=adapt", &adapted));
  g_assert_nonnull (strstr (adapted, "Adapted: Odd/red\\x1B[31m?.txt, named “red_[31m？.txt”\n"));
  g_assert_nonnull (strstr (adapted, "Adapted: Odd/two\\nlines?.txt, named “two_lines？.txt”\n"));
  g_assert_nonnull (strstr (adapted, "Adapted: Odd/lat\\xE8.txt, named “lat_.txt”\n"));
  g_assert_nonnull (strstr (adapted, "Adapted: Odd/lat\\xE9.txt, named “lat_ (2).txt”\n"));
  g_assert_null (strchr (refused, '\033'));
  g_assert_null (strchr (adapted, '\033'));
  g_assert_null (strstr (adapted, "\xEF\xBF\xBD")); /* U+FFFD */
  assert_file_text (ferry_test_path (f->mnt, "Odd", "lat_.txt", NULL), "e grave\n");
  assert_file_text (ferry_test_path (f->mnt, "Odd", "lat_ (2).txt", NULL), "e acute\n");
}

/* With --progress=json standard output is JSON lines, the last one the
 * copy's final state: what was adapted comes as one event before it, so a
 * script that takes the last line for the result gets the result. */
static void
test_cli_json_unsupported_event (Fixture *f, gconstpointer data)
{
  const char *argv[] = { g_getenv ("FERRY_COPY"), "--progress=json", "--unsupported=adapt",
                         f->tree, f->mnt, NULL };
  g_autofree char *out = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) lines = NULL;
  guint n, event_at = 0;
  int status;

  if (f->stick == NULL)
    return;
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL | G_SPAWN_STDIN_FROM_DEV_NULL,
                NULL, NULL, &out, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_strchomp (out);
  lines = g_strsplit (out, "\n", -1);
  n = g_strv_length (lines);
  g_assert_cmpuint (n, >=, 2);
  for (guint i = 0; i < n; i++)
    {
      g_assert_true (g_str_has_prefix (lines[i], "{") && g_str_has_suffix (lines[i], "}"));
      if (g_str_has_prefix (lines[i], "{\"event\":\"unsupported\""))
        event_at = i + 1;
    }
  g_assert_cmpuint (event_at, ==, n - 1);
  g_assert_nonnull (strstr (lines[n - 2], "why？.txt"));
  g_assert_nonnull (strstr (lines[n - 1], "\"phase\":\"done\""));
}

/* An extended attribute larger than the drive has room for beside a
 * file (ext4 of under 512 MB: 1 KiB blocks) is left out and the file
 * copied, as an attribute FAT cannot store is; the rest of the folder
 * too. It had failed the file as "No space left on device" and stopped
 * the whole copy as if the drive were full. */
static void
test_attribute_too_large (Fixture *f, gconstpointer data)
{
  g_autofree char *tree = g_build_filename (f->scratch, "Tagged", NULL);
  g_autofree char *value = g_strnfill (3000, 'a');
  g_autofree char *err = NULL;

  if (f->stick == NULL)
    return;
  ferry_test_make_dirs (tree);
  for (guint i = 1; i <= 3; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%u", i);
      ferry_test_write_text (ferry_test_path (tree, name, NULL), name);
    }
  if (setxattr (ferry_test_path (tree, "f2", NULL), "user.big", value, 3000, 0) != 0)
    {
      g_test_skip ("the test's disk takes no attribute of 3000 bytes");
      return;
    }
  g_assert_true (copy_by_cli (f, tree, NULL, &err));
  ferry_test_assert_trees_equal (tree, ferry_test_path (f->mnt, "Tagged", NULL),
                                 FERRY_TEST_COMPARE_CONTENT);
}

/* On FAT32 (through fusefat): the Windows names as on exFAT, and a file
 * over 4 GiB, which can only be skipped and takes no space in the plan;
 * skipped, everything else arrives. (Skipped, not adapted: fusefat
 * refuses names beyond ASCII, the look-alikes among them, with EPERM,
 * where the kernel's vfat stores them.) */
static void
test_too_large (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryJob) job = NULL;
  g_autoptr (FerryUnsupportedReport) report = NULL;
  g_autoptr (GError) error = NULL;
  const guint64 film_size = G_GUINT64_CONSTANT (5) << 30;

  if (f->stick == NULL)
    return;
  ferry_test_make_sparse (ferry_test_path (f->tree, "film.mkv", NULL), film_size, 0, 4096);
  job = job_for (f->tree, f->mnt, FERRY_UNSUPPORTED_POLICY_SKIP);
  if (!ferry_test_run_job (job, &error))
    g_error ("%s\n%s", error->message, ferry_test_describe_failures (job));
  report = ferry_job_dup_unsupported_report (job);
  g_assert_cmpstr (ferry_unsupported_report_get_filesystem (report), ==, "FAT32");
  g_assert_true (report_has (report, FERRY_UNSUPPORTED_TOO_LARGE, "Problems/film.mkv", NULL));
  assert_windows_problems (report);
  g_assert_true (report_has (report, FERRY_UNSUPPORTED_CASE_COLLISION, "Problems/readme.txt",
                             "readme (2).txt"));
  g_assert_false (
      g_file_test (ferry_test_path (f->mnt, "Problems", "film.mkv", NULL), G_FILE_TEST_EXISTS));
  ferry_test_assert_trees_equal (ferry_test_path (f->tree, "Plain", NULL),
                                 ferry_test_path (f->mnt, "Problems", "Plain", NULL),
                                 FERRY_TEST_COMPARE_CONTENT);
  assert_file_text (ferry_test_path (f->mnt, "Problems", "README.txt", NULL), "UPPER\n");
  assert_file_text (ferry_test_path (f->mnt, "Problems", "target.txt", NULL), "target\n");
  g_assert_false (
      g_file_test (ferry_test_path (f->mnt, "Problems", "readme (2).txt", NULL), G_FILE_TEST_EXISTS));
}

/* Each file's modification time is its source's, as finely as FAT keeps
 * it (2 s). fusefat stamps a file with the time it is renamed, until it
 * is mounted again: copies named from a temporary file showed the time
 * of the copy. */
static void
assert_times_kept (const char *source, const char *copy)
{
  g_autoptr (GDir) dir = g_dir_open (source, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *from = g_build_filename (source, name, NULL);
      g_autofree char *to = g_build_filename (copy, name, NULL);
      struct stat a, b;

      g_assert_cmpint (stat (from, &a), ==, 0);
      g_assert_cmpint (stat (to, &b), ==, 0);
      if (S_ISDIR (a.st_mode))
        assert_times_kept (from, to);
      else if (ABS (a.st_mtim.tv_sec - b.st_mtim.tv_sec) > 2)
        g_error ("%s has the time %jd, its source %jd", to, (intmax_t) b.st_mtim.tv_sec,
                 (intmax_t) a.st_mtim.tv_sec);
    }
}

/* A new folder is built under a hidden name and renamed into place on
 * the fast path (--device=fast takes it). fusefat loses what a renamed
 * folder holds: it listed the copy as empty, and once unmounted the
 * files' clusters were free (fsck: 2 files on the stick, not 108), while
 * ferry-copy had said all was copied. There folders are made in place;
 * elsewhere renamed, and on each filesystem the copy is all there after
 * the stick is mounted again, with its times. */
static void
copy_album (Fixture *f, const char *album, const char *device, const char *into)
{
  g_autofree char *destination = g_build_filename (f->mnt, into, NULL);
  const char *argv[] = { g_getenv ("FERRY_COPY"), "--progress=none", device, album, destination,
                         NULL };
  g_autoptr (GError) error = NULL;
  g_autofree char *err = NULL;
  int status;

  g_assert_nonnull (argv[0]);
  ferry_test_make_dirs (destination);
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDIN_FROM_DEV_NULL,
                NULL, NULL, NULL, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("ferry-copy %s failed: %s", device, err);
  /* as the person (and a run that continues this one) sees them now */
  assert_times_kept (album, ferry_test_path (destination, "Album", NULL));
}

static void
test_folders_survive_remount (Fixture *f, gconstpointer data)
{
  g_autofree char *album = g_build_filename (f->scratch, "Album", NULL);
  g_autoptr (GError) error = NULL;

  if (f->stick == NULL)
    return;
  /* 3 photos, and 35 folders of 3 more */
  for (guint d = 0; d <= 35; d++)
    for (guint i = 0; i < 3; i++)
      {
        g_autofree char *folder = d == 0 ? g_strdup (".") : g_strdup_printf ("day%02u", d);
        g_autofree char *name = g_strdup_printf ("photo%u.jpg", i);
        ferry_test_make_dirs (ferry_test_path (album, folder, NULL));
        ferry_test_write_random (ferry_test_path (album, folder, name, NULL), 200000, 10 * d + i);
        /* taken long ago: a copy stamped with the time it was made shows */
        ferry_test_set_times (ferry_test_path (album, folder, name, NULL), 1600000000 + d * 60 + i,
                              0);
      }
  /* at a stick's pace (the files one by one, each named from a
   * temporary file), then on the path that builds folders hidden */
  g_assert_true (ferry_test_stick_set_rate (f->stick, 20 * MB, &error));
  g_assert_no_error (error);
  copy_album (f, album, "--device=auto", "auto");
  g_assert_true (ferry_test_stick_set_rate (f->stick, 0, &error));
  g_assert_no_error (error);
  copy_album (f, album, "--device=fast", "fast");
  g_assert_true (ferry_test_stick_unmount_lazily (f->stick, &error));
  g_assert_no_error (error);
  g_assert_true (ferry_test_stick_mount_again (f->stick, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < 2; i++)
    {
      const char *copy = ferry_test_path (f->mnt, i == 0 ? "fast" : "auto", "Album", NULL);

      ferry_test_assert_trees_equal (album, copy, FERRY_TEST_COMPARE_CONTENT);
      assert_times_kept (album, copy);
    }
}

/* "Photos" copied to a stick that has "photos" (a camera's, or one made
 * on Windows): the drive sees one name, so the copy merges into the
 * folder there, and a file there spelled otherwise ("A.JPG" for a.jpg)
 * is a conflict, settled as the job says (here: both kept). Before,
 * the copy was refused as a name the drive cannot store, or made
 * "Photos (2)" beside it. */
static void
test_merge_spelled_otherwise (Fixture *f, gconstpointer data)
{
  g_autofree char *photos = g_build_filename (f->scratch, "Photos", NULL);
  g_autofree char *there = g_build_filename (f->mnt, "photos", NULL);
  g_autoptr (FerryJob) job = NULL;
  g_autoptr (FerryUnsupportedReport) report = NULL;
  g_autoptr (GPtrArray) top = NULL;
  g_autoptr (GPtrArray) inside = NULL;
  g_autoptr (GError) error = NULL;

  if (f->stick == NULL)
    return;
  ferry_test_make_dirs (photos);
  ferry_test_write_text (ferry_test_path (photos, "a.jpg", NULL), "new a\n");
  ferry_test_write_text (ferry_test_path (photos, "b.jpg", NULL), "new b\n");
  ferry_test_make_dirs (there);
  ferry_test_write_text (ferry_test_path (there, "A.JPG", NULL), "old A\n");
  job = job_for (photos, f->mnt, FERRY_UNSUPPORTED_POLICY_STOP);
  ferry_job_set_conflict_policy (job, FERRY_CONFLICT_POLICY_KEEP_BOTH);
  if (!ferry_test_run_job (job, &error))
    g_error ("%s\n%s", error->message, ferry_test_describe_failures (job));

  report = ferry_job_dup_unsupported_report (job);
  g_assert_true (report == NULL || ferry_unsupported_report_get_items (report)->len == 0);
  top = ferry_test_list_sorted (f->mnt);
  g_assert_true (g_ptr_array_find_with_equal_func (top, "photos", g_str_equal, NULL));
  g_assert_false (g_ptr_array_find_with_equal_func (top, "Photos (2)", g_str_equal, NULL));
  inside = ferry_test_list_sorted (there);
  g_assert_cmpuint (inside->len, ==, 3);
  assert_file_text (ferry_test_path (there, "A.JPG", NULL), "old A\n");
  assert_file_text (ferry_test_path (there, "a (2).jpg", NULL), "new a\n");
  assert_file_text (ferry_test_path (there, "b.jpg", NULL), "new b\n");
}

/* Runs a job copying @source to @destination (settling a file already
 * there as @policy says), which must be refused before it writes
 * anything on the stick; returns the refusal. */
static GError *
refused_on_stick (Fixture *f,
                  const char *source,
                  const char *destination,
                  FerryConflictPolicy policy)
{
  g_autofree char *before = ferry_test_describe_tree (f->mnt);
  g_autofree char *after = NULL;
  g_autoptr (FerryJob) job = job_for (source, destination, FERRY_UNSUPPORTED_POLICY_STOP);
  GError *error = NULL;

  ferry_job_set_conflict_policy (job, policy);
  if (ferry_test_run_job (job, &error))
    g_error ("“%s” was copied to “%s”", source, destination);
  g_assert_nonnull (error);
  after = ferry_test_describe_tree (f->mnt);
  g_assert_cmpstr (after, ==, before);
  return error;
}

/* A folder on the stick copied into itself spelled in other capitals
 * ("A" into "a/sub"). exfat-fuse and fusefat give each spelling an inode
 * number of its own, so the copy was not found to go into itself: it
 * built A/sub/A/sub/… some 5,000 levels deep in the source, reading its
 * own temporary files as sources, until it ran out of descriptors. It
 * is refused as when spelled alike; on NTFS, which tells capitals apart,
 * "a" is another folder, and the copy is done. */
static void
test_into_itself_spelled_otherwise (Fixture *f, gconstpointer data)
{
  g_autofree char *folder = g_build_filename (f->mnt, "A", NULL);
  g_autofree char *inside = g_build_filename (f->mnt, "a", "sub", NULL);
  g_autofree char *itself = g_build_filename (f->mnt, "a", NULL);
  g_autoptr (GError) into_sub = NULL;
  g_autoptr (GError) into_itself = NULL;
  g_autoptr (FerryJob) job = NULL;
  g_autoptr (GError) error = NULL;

  if (f->stick == NULL)
    return;
  ferry_test_make_dirs (ferry_test_path (folder, "sub", NULL));
  ferry_test_write_text (ferry_test_path (folder, "f", NULL), "1\n");
  ferry_test_write_text (ferry_test_path (folder, "sub", "g", NULL), "2\n");
  if (GPOINTER_TO_INT (data) == FERRY_TEST_STICK_FS_NTFS)
    {
      ferry_test_make_dirs (inside);
      job = job_for (folder, inside, FERRY_UNSUPPORTED_POLICY_STOP);
      if (!ferry_test_run_job (job, &error))
        g_error ("%s\n%s", error->message, ferry_test_describe_failures (job));
      assert_file_text (ferry_test_path (inside, "A", "sub", "g", NULL), "2\n");
      g_assert_cmpuint (ferry_test_count_entries (folder), ==, 3);
      return;
    }
  into_sub = refused_on_stick (f, folder, inside, FERRY_CONFLICT_POLICY_ASK);
  g_assert_error (into_sub, FERRY_ERROR, FERRY_ERROR_INTO_ITSELF);
  g_assert_nonnull (strstr (into_sub->message, "(“"));
  into_itself = refused_on_stick (f, folder, itself, FERRY_CONFLICT_POLICY_ASK);
  g_assert_error (into_itself, FERRY_ERROR, FERRY_ERROR_INTO_ITSELF);
  g_assert_null (strstr (into_itself->message, "(“"));
}

/* A file on the stick copied onto itself spelled in other capitals
 * ("A/f" to "A/F", "A/big" to "a/BIG"): exfat-fuse and fusefat give
 * each spelling an inode number of its own, so the two were not found
 * to be one file. Replacing it renamed the stick's "big" to "BIG",
 * keeping both made "F (2)" beside it. It is refused as the same file,
 * as when spelled alike. */
static void
test_same_file_spelled_otherwise (Fixture *f, gconstpointer data)
{
  const char *file, *big;

  if (f->stick == NULL)
    return;
  file = ferry_test_path (f->mnt, "A", "f", NULL);
  big = ferry_test_path (f->mnt, "A", "big", NULL);
  ferry_test_make_dirs (ferry_test_path (f->mnt, "A", NULL));
  ferry_test_write_text (file, "1\n");
  ferry_test_write_random (big, 3 * MB, 5);
  {
    const struct
    {
      const char *source;
      const char *destination;
      FerryConflictPolicy policy;
    } tries[] = {
      { file, ferry_test_path (f->mnt, "A", "F", NULL), FERRY_CONFLICT_POLICY_KEEP_BOTH },
      { file, ferry_test_path (f->mnt, "a", NULL), FERRY_CONFLICT_POLICY_KEEP_BOTH },
      { big, ferry_test_path (f->mnt, "a", "BIG", NULL), FERRY_CONFLICT_POLICY_OVERWRITE },
    };

    for (gsize i = 0; i < G_N_ELEMENTS (tries); i++)
      {
        g_autoptr (GError) error
            = refused_on_stick (f, tries[i].source, tries[i].destination, tries[i].policy);

        g_assert_error (error, FERRY_ERROR, FERRY_ERROR_SAME_FILE);
      }
  }
  g_assert_cmpuint (ferry_test_count_entries (ferry_test_path (f->mnt, "A", NULL)), ==, 2);
}

/* Names the drive stores as they are beside names whose adapted form is
 * theirs: "CON" adapts to "CON_", "a\x01" to "a_", "x?.txt" to
 * "x？.txt". */
static char *
make_taken_names_tree (const char *scratch)
{
  g_autofree char *tree = g_build_filename (scratch, "coll", NULL);
  const char *names[] = { "CON", "CON_", "a\x01", "a_", "x?.txt", "x？.txt" };

  ferry_test_make_dirs (tree);
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    ferry_test_write_text (ferry_test_path (tree, names[i], NULL), names[i]);
  return g_steal_pointer (&tree);
}

static void
copy_taken_names (const char *tree, const char *destination, FerryUnsupportedPolicy policy)
{
  g_autoptr (FerryJob) job = job_for (tree, destination, policy);
  g_autoptr (GError) error = NULL;

  if (!ferry_test_run_job (job, &error))
    g_error ("%s\n%s", error->message, ferry_test_describe_failures (job));
}

/* A name the drive stores as it is keeps it, though another entry's
 * adapted name is the same: that one takes the number. Before, "CON_"
 * was listed as "the same name as another for NTFS (it ignores
 * capitals)", the stick's CON_ held CON's content and the real CON_
 * became "CON_ (2)"; skipping what cannot be stored left out CON_, a_
 * and x？.txt too, which collide with nothing once the others are left
 * out. */
static void
test_taken_names_kept (Fixture *f, gconstpointer data)
{
  g_autofree char *tree = make_taken_names_tree (f->scratch);
  g_autoptr (FerryJob) refused = NULL;
  g_autoptr (FerryUnsupportedReport) report = NULL;
  g_autoptr (GError) error = NULL;
  const char *adapted, *skipped;

  if (f->stick == NULL)
    return;
  refused = job_for (tree, f->mnt, FERRY_UNSUPPORTED_POLICY_STOP);
  g_assert_false (ferry_test_run_job (refused, &error));
  g_assert_error (error, FERRY_ERROR, FERRY_ERROR_UNSUPPORTED);
  report = ferry_job_dup_unsupported_report (refused);
  g_assert_true (report_has (report, FERRY_UNSUPPORTED_NAME_RESERVED, "coll/CON", "CON_ (2)"));
  g_assert_true (report_has (report, FERRY_UNSUPPORTED_NAME_CHARACTERS, "coll/a\\x01", "a_ (2)"));
  g_assert_true (
      report_has (report, FERRY_UNSUPPORTED_NAME_CHARACTERS, "coll/x?.txt", "x？ (2).txt"));
  g_assert_cmpuint (ferry_unsupported_report_get_items (report)->len, ==, 3);

  adapted = ferry_test_path (f->mnt, "adapted", NULL);
  ferry_test_make_dirs (adapted);
  copy_taken_names (tree, adapted, FERRY_UNSUPPORTED_POLICY_ADAPT);
  assert_file_text (ferry_test_path (adapted, "coll", "CON_", NULL), "CON_");
  assert_file_text (ferry_test_path (adapted, "coll", "CON_ (2)", NULL), "CON");
  assert_file_text (ferry_test_path (adapted, "coll", "a_", NULL), "a_");
  assert_file_text (ferry_test_path (adapted, "coll", "a_ (2)", NULL), "a\x01");
  assert_file_text (ferry_test_path (adapted, "coll", "x？.txt", NULL), "x？.txt");
  assert_file_text (ferry_test_path (adapted, "coll", "x？ (2).txt", NULL), "x?.txt");

  skipped = ferry_test_path (f->mnt, "skipped", NULL);
  ferry_test_make_dirs (skipped);
  copy_taken_names (tree, skipped, FERRY_UNSUPPORTED_POLICY_SKIP);
  g_assert_cmpuint (ferry_test_count_entries (ferry_test_path (skipped, "coll", NULL)), ==, 3);
  assert_file_text (ferry_test_path (skipped, "coll", "CON_", NULL), "CON_");
  assert_file_text (ferry_test_path (skipped, "coll", "a_", NULL), "a_");
  assert_file_text (ferry_test_path (skipped, "coll", "x？.txt", NULL), "x？.txt");
}

/* @n copies of @unit, then @tail. */
static char *
repeated (const char *unit, guint n, const char *tail)
{
  g_autoptr (GString) out = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    g_string_append (out, unit);
  g_string_append (out, tail);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* ferry-copy @args, without a terminal: whether it succeeded, and in
 * @err what it said. */
static gboolean
run_cli (const char *const *args, char **err)
{
  g_autoptr (GPtrArray) typed = g_ptr_array_new ();
  g_auto (GStrv) argv = NULL;
  g_autoptr (GError) error = NULL;
  int status;

  g_ptr_array_add (typed, "--progress=none");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (typed, (gpointer) args[i]);
  g_ptr_array_add (typed, NULL);
  argv = ferry_test_copy_argv (NULL, (const char *const *) typed->pdata);
  g_spawn_sync (NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDIN_FROM_DEV_NULL, NULL,
                NULL, NULL, err, &status, &error);
  g_assert_no_error (error);
  g_test_message ("%s", *err);
  return g_spawn_check_wait_status (status, NULL);
}

/* Each name in @dir at most 255 bytes of UTF-8. */
static void
assert_names_fit (const char *dir)
{
  g_autoptr (GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;

  g_assert_nonnull (listing);
  while ((name = g_dir_read_name (listing)) != NULL)
    {
      g_assert_cmpuint (strlen (name), <=, 255);
      g_assert_true (g_utf8_validate (name, -1, NULL));
    }
}

/* Names exFAT holds and ext4, XFS, Btrfs and tmpfs do not: 255 UTF-16
 * units are up to 765 bytes, those take 255. Copied from the stick to a
 * local folder, they are found before the first byte as on a stick.
 * Before, the check ran only for FAT32, exFAT and NTFS destinations: a
 * dry run said every item would be copied, the copy failed at each
 * ("File name too long"), and adapting changed nothing. */
static void
test_long_names_elsewhere (Fixture *f, gconstpointer data)
{
  g_autofree char *acute = repeated ("é", 200, ".txt");   /* 404 bytes, 204 units */
  g_autofree char *fits = repeated ("é", 125, ".txt");    /* 254 bytes: what acute shortens to */
  g_autofree char *smiles = repeated ("😀", 120, ".t");  /* 482 bytes, 242 units */
  g_autofree char *folder = repeated ("ü", 150, " dir"); /* 304 bytes */
  g_autofree char *smiles_short = repeated ("😀", 63, ".t");
  g_autofree char *folder_short = repeated ("ü", 127, "");
  g_autofree char *fits_second = repeated ("é", 123, " (2).txt");
  g_autofree char *local = g_build_filename (f->scratch, "local", NULL);
  g_autofree char *dry = NULL, *listed = NULL, *adapted_err = NULL;
  g_autoptr (FerryJob) job = NULL;
  g_autoptr (FerryUnsupportedReport) report = NULL;
  g_autoptr (GError) error = NULL;
  const char *tree, *adapted, *skipped;

  if (f->stick == NULL)
    return;
  tree = ferry_test_path (f->mnt, "Long", NULL);
  ferry_test_make_dirs (ferry_test_path (tree, folder, NULL));
  ferry_test_write_text (ferry_test_path (tree, acute, NULL), "acute");
  ferry_test_write_text (ferry_test_path (tree, fits, NULL), "fits");
  ferry_test_write_text (ferry_test_path (tree, smiles, NULL), "smiles");
  ferry_test_write_text (ferry_test_path (tree, "short.txt", NULL), "short");
  ferry_test_write_text (ferry_test_path (tree, folder, "in.txt", NULL), "inside");
  ferry_test_make_dirs (local);

  g_assert_false (run_cli ((const char *[]){ "--dry-run", tree, local, NULL }, &dry));
  g_assert_nonnull (strstr (dry, "3 items cannot be stored on this "));
  listed = g_strdup_printf ("  Long/%s is a longer name than ", smiles);
  g_assert_nonnull (strstr (dry, listed));
  g_free (listed);
  listed = g_strdup_printf ("(adapted: named “%s”)\n", smiles_short);
  g_assert_nonnull (strstr (dry, listed));

  job = job_for (tree, local, FERRY_UNSUPPORTED_POLICY_STOP);
  g_assert_false (ferry_test_run_job (job, &error));
  g_assert_error (error, FERRY_ERROR, FERRY_ERROR_UNSUPPORTED);
  report = ferry_job_dup_unsupported_report (job);
  g_assert_cmpuint (ferry_unsupported_report_get_items (report)->len, ==, 3);
  g_assert_true (report_has (report, FERRY_UNSUPPORTED_NAME_TOO_LONG,
                             ferry_test_path ("Long", acute, NULL), fits_second));
  g_assert_true (report_has (report, FERRY_UNSUPPORTED_NAME_TOO_LONG,
                             ferry_test_path ("Long", smiles, NULL), smiles_short));
  g_assert_true (report_has (report, FERRY_UNSUPPORTED_NAME_TOO_LONG,
                             ferry_test_path ("Long", folder, NULL), folder_short));
  g_assert_false (g_file_test (ferry_test_path (local, "Long", NULL), G_FILE_TEST_EXISTS));

  adapted = ferry_test_path (local, "adapted", NULL);
  ferry_test_make_dirs (adapted);
  g_assert_true (run_cli ((const char *[]){ "--unsupported=adapt", tree, adapted, NULL },
                          &adapted_err));
  assert_names_fit (ferry_test_path (adapted, "Long", NULL));
  g_assert_cmpuint (ferry_test_count_entries (ferry_test_path (adapted, "Long", NULL)), ==, 6);
  assert_file_text (ferry_test_path (adapted, "Long", fits, NULL), "fits");
  assert_file_text (ferry_test_path (adapted, "Long", fits_second, NULL), "acute");
  assert_file_text (ferry_test_path (adapted, "Long", smiles_short, NULL), "smiles");
  assert_file_text (ferry_test_path (adapted, "Long", "short.txt", NULL), "short");
  assert_file_text (ferry_test_path (adapted, "Long", folder_short, "in.txt", NULL), "inside");

  skipped = ferry_test_path (local, "skipped", NULL);
  ferry_test_make_dirs (skipped);
  g_clear_object (&job);
  job = job_for (tree, skipped, FERRY_UNSUPPORTED_POLICY_SKIP);
  g_assert_true (ferry_test_run_job (job, NULL));
  g_assert_cmpuint (ferry_test_count_entries (ferry_test_path (skipped, "Long", NULL)), ==, 2);
  assert_file_text (ferry_test_path (skipped, "Long", fits, NULL), "fits");
  assert_file_text (ferry_test_path (skipped, "Long", "short.txt", NULL), "short");
}

/* Sources given one by one share the destination folder as a folder's
 * entries do: a name the drive stores as it is keeps it. Before,
 * "ferry-copy coll/CON coll/CON_ STICK/" gave the adapted CON the name
 * "CON_", and the real CON_ became "CON_ (2)". */
static void
test_taken_names_kept_apart (Fixture *f, gconstpointer data)
{
  g_autofree char *tree = make_taken_names_tree (f->scratch);
  g_autofree char *err = NULL;
  const char *adapted;

  if (f->stick == NULL)
    return;
  adapted = ferry_test_path (f->mnt, "adapted", NULL);
  ferry_test_make_dirs (adapted);
  g_assert_true (run_cli ((const char *[]){ "--unsupported=adapt",
                                            ferry_test_path (tree, "CON", NULL),
                                            ferry_test_path (tree, "CON_", NULL),
                                            ferry_test_path (tree, "x?.txt", NULL),
                                            ferry_test_path (tree, "x？.txt", NULL), adapted, NULL },
                          &err));
  g_assert_nonnull (strstr (err, "Adapted: CON, named “CON_ (2)”\n"));
  g_assert_nonnull (strstr (err, "Adapted: x?.txt, named “x？ (2).txt”\n"));
  g_assert_null (strstr (err, "Adapted: CON_"));
  g_assert_cmpuint (ferry_test_count_entries (adapted), ==, 4);
  assert_file_text (ferry_test_path (adapted, "CON_", NULL), "CON_");
  assert_file_text (ferry_test_path (adapted, "CON_ (2)", NULL), "CON");
  assert_file_text (ferry_test_path (adapted, "x？.txt", NULL), "x？.txt");
  assert_file_text (ferry_test_path (adapted, "x？ (2).txt", NULL), "x?.txt");
}

/* --verify reads each copy back from the stick itself. exfat-fuse and
 * ntfs-3g read the device through the kernel's cache of it, which still
 * held what they had just written: a 20 MB file verified on an exFAT
 * stick was read 2.4 MB from the device. That cache is dropped too. */
static void
test_verify_reads_device (Fixture *f, gconstpointer data)
{
  g_autofree char *video = g_build_filename (f->scratch, "video.mp4", NULL);
  g_autoptr (FerryJob) job = NULL;
  g_autoptr (GError) error = NULL;
  guint64 read_before;

  if (f->stick == NULL)
    return;
  ferry_test_write_random (video, 16 * MB, 7);
  job = job_for (video, f->mnt, FERRY_UNSUPPORTED_POLICY_STOP);
  ferry_job_set_verify (job, TRUE);
  read_before = ferry_test_stick_get_bytes_read (f->stick);
  if (!ferry_test_run_job (job, &error))
    g_error ("%s\n%s", error->message, ferry_test_describe_failures (job));
  g_assert_cmpuint (ferry_test_stick_get_bytes_read (f->stick) - read_before, >=, 16 * MB);
  ferry_test_assert_files_equal (video, ferry_test_path (f->mnt, "video.mp4", NULL));
  g_assert_false (ferry_job_get_verify_reads_cache (job));
}

/* A person who may not open the drive (not root, not in "disk"): the
 * FUSE driver's cache of it cannot be dropped, and `ferry-copy --verify`
 * says that what it read back may have come from memory, not claiming a
 * check it could not make. The file copied is on the stick (where that
 * person may read it), the state folder one anyone may write. */
static void
test_verify_from_cache (Fixture *f, gconstpointer data)
{
  g_autofree char *state = NULL;
  g_autofree char *err = NULL;
  const char *video = ferry_test_path (f->mnt, "video.mp4", NULL);
  const char *copies = ferry_test_path (f->mnt, "Copies", NULL);
  g_autoptr (GError) error = NULL;
  int status;

  if (f->stick == NULL)
    return;
  state = g_dir_make_tmp ("ferry-state-XXXXXX", &error);
  g_assert_no_error (error);
  g_assert_cmpint (chmod (state, 0777), ==, 0);
  ferry_test_write_random (video, 4 * MB, 8);
  ferry_test_make_dirs (copies);
  {
    g_autofree char *state_env = g_strconcat ("XDG_STATE_HOME=", state, NULL);
    const char *argv[] = { "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                           "env", state_env, g_getenv ("FERRY_COPY"), "--verify",
                           "--progress=none", video, copies, NULL };

    g_spawn_sync (NULL, (char **) argv, NULL,
                  G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDIN_FROM_DEV_NULL,
                  NULL, NULL, NULL, &err, &status, &error);
  }
  ferry_test_remove_tree (state);
  g_assert_no_error (error);
  g_test_message ("%s", err);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (err, "Note: the copies were read back through the drive’s FUSE "
                                 "driver, which may give them back from memory"));
  ferry_test_assert_files_equal (video, ferry_test_path (copies, "video.mp4", NULL));
}

/* FAT and exFAT store times from 1980 to 2107. A file of 1975 (as tar
 * archives and reproducible builds leave them) and one dated 2150 get
 * the nearest time the drive stores, as the kernel's drivers give it,
 * seen after the stick is mounted again; through FUSE the years wrapped
 * (fusefat: 1975 to 2103; exfat-fuse: 2150 to 2021). A run that goes on
 * from this one, or asks "newer", meets those copies as the same. */
static void
test_times_out_of_range (Fixture *f, gconstpointer data)
{
  g_autofree char *tree = g_build_filename (f->scratch, "Times", NULL);
  const gint64 y1975 = 157766400, y2150 = G_GINT64_CONSTANT (5680281600);
  g_autoptr (FerryJob) job = NULL;
  g_autoptr (FerryJob) again = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (FerryProgress) progress = { 0 };
  struct stat st;

  if (f->stick == NULL)
    return;
  ferry_test_make_dirs (tree);
  ferry_test_write_text (ferry_test_path (tree, "1975.txt", NULL), "old\n");
  ferry_test_set_times (ferry_test_path (tree, "1975.txt", NULL), y1975, 0);
  ferry_test_write_text (ferry_test_path (tree, "2150.txt", NULL), "future\n");
  ferry_test_set_times (ferry_test_path (tree, "2150.txt", NULL), y2150, 0);
  job = job_for (tree, f->mnt, FERRY_UNSUPPORTED_POLICY_STOP);
  if (!ferry_test_run_job (job, &error))
    g_error ("%s\n%s", error->message, ferry_test_describe_failures (job));
  g_assert_true (ferry_test_stick_unmount_lazily (f->stick, &error));
  g_assert_no_error (error);
  g_assert_true (ferry_test_stick_mount_again (f->stick, &error));
  g_assert_no_error (error);

  g_assert_cmpint (stat (ferry_test_path (f->mnt, "Times", "1975.txt", NULL), &st), ==, 0);
  g_assert_cmpint (st.st_mtim.tv_sec, ==, 315619200); /* 1980-01-02 */
  g_assert_cmpint (stat (ferry_test_path (f->mnt, "Times", "2150.txt", NULL), &st), ==, 0);
  g_assert_cmpint (st.st_mtim.tv_sec, ==, G_GINT64_CONSTANT (4354646400)); /* 2107-12-30 */

  again = job_for (tree, f->mnt, FERRY_UNSUPPORTED_POLICY_STOP);
  ferry_job_set_conflict_policy (again, FERRY_CONFLICT_POLICY_NEWER);
  g_assert_true (ferry_test_run_job (again, &error));
  g_assert_no_error (error);
  ferry_job_get_progress (again, &progress);
  g_assert_cmpuint (progress.files_skipped, ==, 2);
  g_assert_cmpuint (progress.bytes_written, ==, 0);
}

int
main (int argc, char **argv)
{
  const gconstpointer ext4 = GINT_TO_POINTER (FERRY_TEST_STICK_FS_EXT4);
  const gconstpointer exfat = GINT_TO_POINTER (FERRY_TEST_STICK_FS_EXFAT);
  const gconstpointer ntfs = GINT_TO_POINTER (FERRY_TEST_STICK_FS_NTFS);
  const gconstpointer fat32 = GINT_TO_POINTER (FERRY_TEST_STICK_FS_FAT32);
  const gconstpointer fat16 = GINT_TO_POINTER (FERRY_TEST_STICK_FS_FAT16);

  g_test_init (&argc, &argv, NULL);
  ferry_engine_init ();
#define ADD(path, data, func)                                                                      \
  g_test_add (path, Fixture, data, fixture_set_up, func, fixture_tear_down)
  ADD ("/stick-rules/refused/exfat", exfat, test_refused);
  ADD ("/stick-rules/refused/ntfs", ntfs, test_refused);
  ADD ("/stick-rules/adapted/exfat", exfat, test_adapted);
  ADD ("/stick-rules/adapted/ntfs", ntfs, test_adapted);
  ADD ("/stick-rules/adapted-again/exfat", exfat, test_adapted_again);
  ADD ("/stick-rules/asked-skip/exfat", exfat, test_asked_skip);
  ADD ("/stick-rules/fit-in-clusters/exfat", exfat, test_fit_in_clusters);
  ADD ("/stick-rules/said-to-fit-fits/ntfs", ntfs, test_said_to_fit_fits);
  ADD ("/stick-rules/size-unknown/fat32", fat32, test_size_unknown);
  ADD ("/stick-rules/top-folder-full/fat16", fat16, test_top_folder_full);
  ADD ("/stick-rules/folder-full/fat32", fat32, test_folder_full);
  ADD ("/stick-rules/into-top-folder/fat32", fat32, test_into_top_folder);
  ADD ("/stick-rules/cli-refused/exfat", exfat, test_cli_refused);
  ADD ("/stick-rules/cli-adapted/exfat", exfat, test_cli_adapted);
  ADD ("/stick-rules/cli-names-shown-safely/exfat", exfat, test_cli_names_shown_safely);
  ADD ("/stick-rules/cli-json-unsupported-event/exfat", exfat, test_cli_json_unsupported_event);
  ADD ("/stick-rules/too-large/fat32", fat32, test_too_large);
  ADD ("/stick-rules/attribute-too-large/ext4", ext4, test_attribute_too_large);
  ADD ("/stick-rules/folders-survive-remount/fat32", fat32, test_folders_survive_remount);
  ADD ("/stick-rules/times-out-of-range/fat32", fat32, test_times_out_of_range);
  ADD ("/stick-rules/times-out-of-range/exfat", exfat, test_times_out_of_range);
  ADD ("/stick-rules/merge-spelled-otherwise/exfat", exfat, test_merge_spelled_otherwise);
  ADD ("/stick-rules/merge-spelled-otherwise/fat32", fat32, test_merge_spelled_otherwise);
  ADD ("/stick-rules/into-itself-spelled-otherwise/exfat", exfat,
       test_into_itself_spelled_otherwise);
  ADD ("/stick-rules/into-itself-spelled-otherwise/fat32", fat32,
       test_into_itself_spelled_otherwise);
  ADD ("/stick-rules/into-itself-spelled-otherwise/ntfs", ntfs,
       test_into_itself_spelled_otherwise);
  ADD ("/stick-rules/same-file-spelled-otherwise/exfat", exfat, test_same_file_spelled_otherwise);
  ADD ("/stick-rules/same-file-spelled-otherwise/fat32", fat32, test_same_file_spelled_otherwise);
  ADD ("/stick-rules/taken-names-kept/ntfs", ntfs, test_taken_names_kept);
  ADD ("/stick-rules/taken-names-kept/exfat", exfat, test_taken_names_kept);
  ADD ("/stick-rules/taken-names-kept-apart/ntfs", ntfs, test_taken_names_kept_apart);
  ADD ("/stick-rules/taken-names-kept-apart/exfat", exfat, test_taken_names_kept_apart);
  ADD ("/stick-rules/long-names-elsewhere/exfat", exfat, test_long_names_elsewhere);
  ADD ("/stick-rules/verify-reads-device/exfat", exfat, test_verify_reads_device);
  ADD ("/stick-rules/verify-reads-device/ntfs", ntfs, test_verify_reads_device);
  ADD ("/stick-rules/verify-from-cache/ntfs", ntfs, test_verify_from_cache);
  ADD ("/stick-rules/folders-survive-remount/exfat", exfat, test_folders_survive_remount);
  ADD ("/stick-rules/folders-survive-remount/ntfs", ntfs, test_folders_survive_remount);
#undef ADD
  return g_test_run ();
}
