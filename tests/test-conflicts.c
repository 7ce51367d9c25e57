/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What a copy does with what already exists at the destination: by
 * policy (skip, overwrite, newer, keep both, fail) and by asking the
 * caller through FerryJob::conflict. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "ferry-test-util.h"

/* A job that has not ended by then hangs. */
#define JOB_DEADLINE_SECONDS 20

typedef FerryTestFixture Fixture;

/* ------------------------------------------------------------------ */
/* Files and their states                                              */

static char *
path_in (const char *dir, const char *name)
{
  return g_build_filename (dir, name, NULL);
}

static void
write_at (const char *dir, const char *name, const char *text, gint64 sec, long nsec)
{
  g_autofree char *path = path_in (dir, name);

  ferry_test_write_text (path, text);
  ferry_test_set_times (path, sec, nsec);
}

static void
assert_content (const char *dir, const char *name, const char *text)
{
  g_autofree char *path = path_in (dir, name);
  g_autofree char *data = NULL;
  gsize len = 0;
  g_autoptr (GError) error = NULL;

  g_file_get_contents (path, &data, &len, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (data, len, text, strlen (text));
}

static char *
describe (const char *dir, const char *name)
{
  g_autofree char *path = path_in (dir, name);

  return ferry_test_describe_tree (path);
}

static void
assert_same_entry (const char *src_dir, const char *dst_dir, const char *name)
{
  g_autofree char *a = path_in (src_dir, name);
  g_autofree char *b = path_in (dst_dir, name);

  ferry_test_assert_trees_equal (a, b, FERRY_TEST_COMPARE_ALL);
}

static void
assert_copied_as (const char *src_dir, const char *name, const char *dst_dir, const char *new_name)
{
  g_autofree char *a = path_in (src_dir, name);
  g_autofree char *b = path_in (dst_dir, new_name);

  ferry_test_assert_trees_equal (a, b, FERRY_TEST_COMPARE_CONTENT);
}

static void
assert_message_names (const char *message, const char *what)
{
  if (strstr (message, what) == NULL)
    g_error ("the message “%s” does not name “%s”", message, what);
}

/* ------------------------------------------------------------------ */
/* Running jobs                                                        */

/* Like ferry_test_run_job(), but a job that does not end soon (a
 * conflict nobody answers) fails the test instead of hanging it. */
static gboolean
run_job_bounded (FerryJob *job, GError **error)
{
  g_auto (FerryTestJobRun) run = { 0 };

  ferry_test_job_start (job, &run);
  ferry_test_job_wait (&run, JOB_DEADLINE_SECONDS * 1000);
  if (run.error != NULL)
    g_propagate_error (error, g_steal_pointer (&run.error));
  return run.ok;
}

static FerryJob *
job_new (const char *const *sources, const char *dest, FerryConflictPolicy policy)
{
  FerryJob *job = ferry_test_job_new (sources, dest);

  ferry_job_set_conflict_policy (job, policy);
  return job;
}

/* Runs @job, which must succeed with every file handled and accounted. */
static void
run_ok (FerryJob *job, const char *dest)
{
  g_autoptr (GError) error = NULL;
  g_auto (FerryProgress) progress = { 0 };

  if (!run_job_bounded (job, &error))
    {
      g_autofree char *failures = ferry_test_describe_failures (job);
      g_error ("copy failed: %s\n%s", error->message, failures);
    }
  ferry_job_get_progress (job, &progress);
  g_assert_cmpint (progress.phase, ==, FERRY_PHASE_DONE);
  g_assert_cmpuint (progress.files_failed, ==, 0);
  g_assert_cmpuint (progress.files_done, ==, progress.files_total);
  g_assert_cmpuint (progress.bytes_written, ==, progress.bytes_total);
  g_assert_cmpuint (ferry_test_count_temp_files (dest), ==, 0);
}

static void
copy_ok (const char *const *sources, const char *dest, FerryConflictPolicy policy)
{
  g_autoptr (FerryJob) job = job_new (sources, dest, policy);

  run_ok (job, dest);
}

static void
assert_progress (FerryJob *job, guint64 files_skipped, guint64 bytes_written)
{
  g_auto (FerryProgress) progress = { 0 };

  ferry_job_get_progress (job, &progress);
  g_assert_cmpuint (progress.files_skipped, ==, files_skipped);
  g_assert_cmpuint (progress.bytes_written, ==, bytes_written);
  g_assert_cmpuint (progress.bytes_total, ==, bytes_written);
}

/* The job's only failure: its error, which must be @code and name @path. */
static void
assert_one_failure (FerryJob *job, int code, const char *path)
{
  g_autoptr (GPtrArray) failures = ferry_job_dup_failures (job);
  FerryFailure *failure;

  g_assert_cmpuint (failures->len, ==, 1);
  g_assert_cmpuint (ferry_job_get_n_failures (job), ==, 1);
  failure = g_ptr_array_index (failures, 0);
  g_assert_error (failure->error, FERRY_ERROR, code);
  assert_message_names (failure->error->message, path);
  g_assert_cmpstr (g_file_peek_path (failure->destination), ==, path);
}

/* ------------------------------------------------------------------ */
/* Policies                                                            */

static void
test_skip (Fixture *f, gconstpointer data)
{
  g_autofree char *a = path_in (f->src, "a.txt");
  g_autofree char *b = path_in (f->src, "b.txt");
  const char *sources[] = { a, b, NULL };
  g_autoptr (FerryJob) job = job_new (sources, f->dst, FERRY_CONFLICT_POLICY_SKIP);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  write_at (f->src, "a.txt", "new content\n", 1700000000, 0);
  write_at (f->src, "b.txt", "no conflict\n", 1700000000, 0);
  write_at (f->dst, "a.txt", "old\n", 1500000000, 5);
  before = describe (f->dst, "a.txt");

  run_ok (job, f->dst);
  after = describe (f->dst, "a.txt");
  g_assert_cmpstr (after, ==, before);
  assert_same_entry (f->src, f->dst, "b.txt");
  assert_progress (job, 1, strlen ("no conflict\n"));
}

/* The replacement takes the source's content and metadata, by a new
 * file renamed over the old name: other names of the old file keep it,
 * a symlink in the way is replaced rather than written through, and a
 * read-only file is replaced all the same. */
static void
test_overwrite (Fixture *f, gconstpointer data)
{
  g_autofree char *a = path_in (f->src, "a.txt");
  g_autofree char *link_src = path_in (f->src, "link");
  g_autofree char *b = path_in (f->src, "b.txt");
  g_autofree char *old = path_in (f->dst, "a.txt");
  g_autofree char *old_other_name = path_in (f->dst, "other-name.txt");
  g_autofree char *old_b = path_in (f->dst, "b.txt");
  g_autofree char *outside_before = NULL;
  g_autofree char *outside_after = NULL;
  const char *sources[] = { a, link_src, b, NULL };
  g_autoptr (FerryJob) job = job_new (sources, f->dst, FERRY_CONFLICT_POLICY_OVERWRITE);
  const char *old_text = "the old content, longer than the new one\n";

  write_at (f->src, "a.txt", "new\n", 1600000000, 111111111);
  g_assert_cmpint (chmod (a, 0640), ==, 0);
  g_assert_cmpint (setxattr (a, "user.ferry.tag", "new", 3, 0), ==, 0);
  ferry_test_set_times (a, 1600000000, 111111111);
  g_assert_cmpint (symlink ("somewhere/else", link_src), ==, 0);
  write_at (f->src, "b.txt", "new b\n", 1600000000, 0);

  write_at (f->dst, "a.txt", old_text, 1800000000, 0);
  g_assert_cmpint (setxattr (old, "user.ferry.stale", "x", 1, 0), ==, 0);
  g_assert_cmpint (chmod (old, 0444), ==, 0);
  g_assert_cmpint (link (old, old_other_name), ==, 0);
  write_at (f->dst, "link", "a file where the link goes\n", 1800000000, 0);
  write_at (f->scratch, "outside.txt", "must not be written through a link\n", 1800000000, 0);
  g_assert_cmpint (symlink ("../outside.txt", old_b), ==, 0);
  outside_before = describe (f->scratch, "outside.txt");

  run_ok (job, f->dst);
  assert_same_entry (f->src, f->dst, "a.txt");
  assert_same_entry (f->src, f->dst, "link");
  assert_same_entry (f->src, f->dst, "b.txt");
  assert_content (f->dst, "other-name.txt", old_text);
  outside_after = describe (f->scratch, "outside.txt");
  g_assert_cmpstr (outside_after, ==, outside_before);
  assert_progress (job, 0, strlen ("new\n") + strlen ("new b\n"));
}

/* Newer by one nanosecond replaces; older by one, or as old, is kept. */
static void
test_newer (Fixture *f, gconstpointer data)
{
  g_autofree char *older = path_in (f->src, "older.txt");
  g_autofree char *newer = path_in (f->src, "newer.txt");
  g_autofree char *same = path_in (f->src, "same-age.txt");
  const char *sources[] = { older, newer, same, NULL };
  g_autoptr (FerryJob) job = job_new (sources, f->dst, FERRY_CONFLICT_POLICY_NEWER);
  g_autofree char *older_before = NULL;
  g_autofree char *same_before = NULL;
  g_autofree char *older_after = NULL;
  g_autofree char *same_after = NULL;

  write_at (f->src, "older.txt", "source, older\n", 1650000000, 100);
  write_at (f->dst, "older.txt", "destination, newer\n", 1650000000, 101);
  write_at (f->src, "newer.txt", "source, newer\n", 1650000000, 101);
  write_at (f->dst, "newer.txt", "destination, older\n", 1650000000, 100);
  write_at (f->src, "same-age.txt", "source, same age\n", 1650000000, 999999999);
  write_at (f->dst, "same-age.txt", "destination, same age\n", 1650000000, 999999999);
  older_before = describe (f->dst, "older.txt");
  same_before = describe (f->dst, "same-age.txt");

  run_ok (job, f->dst);
  assert_same_entry (f->src, f->dst, "newer.txt");
  older_after = describe (f->dst, "older.txt");
  same_after = describe (f->dst, "same-age.txt");
  g_assert_cmpstr (older_after, ==, older_before);
  g_assert_cmpstr (same_after, ==, same_before);
  assert_progress (job, 2, strlen ("source, newer\n"));
}

static void
test_keep_both_numbering (Fixture *f, gconstpointer data)
{
  g_autofree char *a = path_in (f->src, "a.txt");
  const char *sources[] = { a, NULL };
  g_autofree char *original = NULL;
  g_autofree char *second = NULL;
  g_autofree char *original_after = NULL;
  g_autofree char *second_after = NULL;

  write_at (f->src, "a.txt", "second\n", 1600000000, 0);
  write_at (f->dst, "a.txt", "first\n", 1500000000, 0);
  original = describe (f->dst, "a.txt");

  copy_ok (sources, f->dst, FERRY_CONFLICT_POLICY_KEEP_BOTH);
  assert_copied_as (f->src, "a.txt", f->dst, "a (2).txt");
  second = describe (f->dst, "a (2).txt");

  write_at (f->src, "a.txt", "third\n", 1700000000, 0);
  copy_ok (sources, f->dst, FERRY_CONFLICT_POLICY_KEEP_BOTH);
  assert_copied_as (f->src, "a.txt", f->dst, "a (3).txt");

  original_after = describe (f->dst, "a.txt");
  second_after = describe (f->dst, "a (2).txt");
  g_assert_cmpstr (original_after, ==, original);
  g_assert_cmpstr (second_after, ==, second);
  g_assert_cmpuint (ferry_test_count_entries (f->dst), ==, 3);
}

typedef struct
{
  const char *name;
  const char *kept_as;
} KeptName;

static void
test_keep_both_names (Fixture *f, gconstpointer data)
{
  static const KeptName files[] = {
    { "archive.tar.gz", "archive (2).tar.gz" },
    { ".bashrc", ".bashrc (2)" },
    { "photo (2).jpg", "photo (3).jpg" },
    { "notes", "notes (2)" },
    { "v1.2.txt", "v1.2 (2).txt" },
  };
  g_autoptr (GPtrArray) sources = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) before = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *folder = path_in (f->src, "photos.2020");
  g_autofree char *inner = path_in (folder, "inside.jpg");
  g_autofree char *link_src = path_in (f->src, "link");
  g_autofree char *link_copy = path_in (f->dst, "link (2)");
  g_autofree char *target = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *text = g_strdup_printf ("new %s\n", files[i].name);
      write_at (f->src, files[i].name, text, 1600000000, 0);
      write_at (f->dst, files[i].name, "old\n", 1500000000, 0);
      g_ptr_array_add (sources, path_in (f->src, files[i].name));
    }
  /* A folder is numbered as a whole: its dots are no extension. */
  ferry_test_make_dirs (folder);
  ferry_test_write_text (inner, "inside\n");
  write_at (f->dst, "photos.2020", "a file with the folder's name\n", 1500000000, 0);
  g_ptr_array_add (sources, g_strdup (folder));
  g_assert_cmpint (symlink ("target-of-link", link_src), ==, 0);
  write_at (f->dst, "link", "a file with the link's name\n", 1500000000, 0);
  g_ptr_array_add (sources, g_strdup (link_src));
  g_ptr_array_add (sources, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    g_ptr_array_add (before, describe (f->dst, files[i].name));

  copy_ok ((const char *const *) sources->pdata, f->dst, FERRY_CONFLICT_POLICY_KEEP_BOTH);

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *after = describe (f->dst, files[i].name);
      g_assert_cmpstr (after, ==, before->pdata[i]);
      assert_copied_as (f->src, files[i].name, f->dst, files[i].kept_as);
    }
  assert_copied_as (f->src, "photos.2020", f->dst, "photos.2020 (2)");
  assert_content (f->dst, "photos.2020", "a file with the folder's name\n");
  target = g_file_read_link (link_copy, NULL);
  g_assert_cmpstr (target, ==, "target-of-link");
  assert_content (f->dst, "link", "a file with the link's name\n");
  /* The originals, their copies, and the file inside the folder. */
  g_assert_cmpuint (ferry_test_count_entries (f->dst), ==, 2 * (G_N_ELEMENTS (files) + 2) + 1);
}

/* Copies @name from src to a folder of its own in dst where @name already
 * exists, and returns the name the copy was kept under. */
static char *
keep_both_in_own_folder (Fixture *f, const char *name)
{
  g_autofree char *source = path_in (f->src, name);
  g_autofree char *dest = g_build_filename (f->dst, "case", NULL);
  const char *sources[] = { source, NULL };
  g_autoptr (GPtrArray) names = NULL;
  char *kept = NULL;

  ferry_test_remove_tree (dest);
  ferry_test_make_dirs (dest);
  ferry_test_write_text (source, "the copy\n");
  write_at (dest, name, "the original\n", 1500000000, 0);

  copy_ok (sources, dest, FERRY_CONFLICT_POLICY_KEEP_BOTH);
  assert_content (dest, name, "the original\n");
  names = ferry_test_list_sorted (dest);
  g_assert_cmpuint (names->len, ==, 2);
  for (guint i = 0; i < names->len; i++)
    if (strcmp (names->pdata[i], name) != 0)
      kept = g_strdup (names->pdata[i]);
  g_assert_nonnull (kept);
  assert_content (dest, kept, "the copy\n");
  unlink (source);
  return kept;
}

static char *
repeat (const char *unit, guint n)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    g_string_append (out, unit);
  return g_string_free (out, FALSE);
}

/* Names of NAME_MAX bytes: the number must still fit, by shortening the
 * stem (never mid-character) and never the number. */
static void
test_keep_both_long_names (Fixture *f, gconstpointer data)
{
  g_autofree char *stem = repeat ("n", NAME_MAX - 4);
  g_autofree char *ascii = g_strconcat (stem, ".txt", NULL);
  g_autofree char *wide_stem = repeat ("\xc3\xa9", (NAME_MAX - 5) / 2);
  g_autofree char *utf8 = g_strconcat (wide_stem, ".txt", NULL);
  g_autofree char *long_ext_tail = repeat ("e", NAME_MAX - 2);
  g_autofree char *long_ext = g_strconcat ("a.", long_ext_tail, NULL);
  g_autofree char *kept = NULL;

  g_assert_cmpuint (strlen (ascii), ==, NAME_MAX);
  g_assert_cmpuint (strlen (long_ext), ==, NAME_MAX);

  kept = keep_both_in_own_folder (f, ascii);
  g_assert_cmpuint (strlen (kept), <=, NAME_MAX);
  g_assert_true (g_str_has_suffix (kept, " (2).txt"));
  g_assert_true (g_str_has_prefix (kept, "nnnnnnnnnnnnnnnnnnnn"));
  g_clear_pointer (&kept, g_free);

  kept = keep_both_in_own_folder (f, utf8);
  g_assert_cmpuint (strlen (kept), <=, NAME_MAX);
  g_assert_true (g_utf8_validate (kept, -1, NULL));
  g_assert_true (g_str_has_suffix (kept, " (2).txt"));
  g_clear_pointer (&kept, g_free);

  /* An "extension" too long to keep whole. */
  kept = keep_both_in_own_folder (f, long_ext);
  g_assert_cmpuint (strlen (kept), <=, NAME_MAX);
  g_assert_nonnull (strstr (kept, " (2)"));
}

/* Names that are not UTF-8 (an old stick's Latin-1 names) are shortened
 * by bytes: every byte that fits is kept. */
static void
test_keep_both_long_names_not_utf8 (Fixture *f, gconstpointer data)
{
  g_autofree char *high = repeat ("\x80", NAME_MAX - 5);
  g_autofree char *with_ext = g_strconcat ("x", high, ".txt", NULL);
  g_autofree char *bare = repeat ("\x80", NAME_MAX);
  g_autofree char *kept = NULL;
  g_autofree char *expected_ext = NULL;
  g_autofree char *expected_bare = NULL;

  g_assert_cmpuint (strlen (with_ext), ==, NAME_MAX);

  kept = keep_both_in_own_folder (f, with_ext);
  expected_ext = g_strdup_printf ("x%.*s (2).txt", (int) (NAME_MAX - 9), high);
  g_assert_cmpuint (strlen (kept), ==, NAME_MAX);
  g_assert_cmpmem (kept, strlen (kept), expected_ext, strlen (expected_ext));
  g_clear_pointer (&kept, g_free);

  kept = keep_both_in_own_folder (f, bare);
  expected_bare = g_strdup_printf ("%.*s (2)", (int) (NAME_MAX - 4), bare);
  g_assert_cmpuint (strlen (kept), ==, NAME_MAX);
  g_assert_cmpmem (kept, strlen (kept), expected_bare, strlen (expected_bare));
}

/* ------------------------------------------------------------------ */
/* Folders merge under every policy that does not ask                  */

typedef struct
{
  const char *test_path;
  FerryConflictPolicy policy;
  gboolean with_conflict; /* a file in the folder exists on both sides */
} MergeCase;

static void
make_merge_trees (Fixture *f, gboolean with_conflict)
{
  g_autofree char *src_sub = g_build_filename (f->src, "sub", NULL);
  g_autofree char *dst_top = path_in (f->dst, "src");
  g_autofree char *dst_sub = g_build_filename (dst_top, "sub", NULL);

  ferry_test_make_dirs (src_sub);
  ferry_test_make_dirs (dst_sub);
  write_at (f->src, "new.txt", "only in the source\n", 1600000000, 0);
  write_at (src_sub, "inner-new.txt", "only in the source, deeper\n", 1600000000, 0);
  write_at (dst_top, "old-only.txt", "only in the destination\n", 1400000000, 0);
  write_at (dst_sub, "old-inner.txt", "only in the destination, deeper\n", 1400000000, 0);
  if (with_conflict)
    {
      write_at (f->src, "shared.txt", "source version\n", 1600000000, 0);
      write_at (dst_sub, "shared.txt", "destination version\n", 1400000000, 0);
      write_at (src_sub, "shared.txt", "source version, deeper\n", 1600000000, 0);
      write_at (dst_top, "shared.txt", "destination version\n", 1400000000, 0);
    }
}

static void
assert_shared_by_policy (const char *src, const char *dst, FerryConflictPolicy policy)
{
  switch (policy)
    {
      case FERRY_CONFLICT_POLICY_SKIP:
        assert_content (dst, "shared.txt", "destination version\n");
        break;
      case FERRY_CONFLICT_POLICY_OVERWRITE:
      case FERRY_CONFLICT_POLICY_NEWER:
        assert_same_entry (src, dst, "shared.txt");
        break;
      case FERRY_CONFLICT_POLICY_KEEP_BOTH:
        assert_content (dst, "shared.txt", "destination version\n");
        assert_copied_as (src, "shared.txt", dst, "shared (2).txt");
        break;
      case FERRY_CONFLICT_POLICY_FAIL:
      case FERRY_CONFLICT_POLICY_ASK:
      default:
        g_assert_not_reached ();
    }
}

static void
test_merge (Fixture *f, gconstpointer data)
{
  const MergeCase *mc = data;
  const char *sources[] = { f->src, NULL };
  g_autoptr (FerryJob) job = job_new (sources, f->dst, mc->policy);
  g_autofree char *dst_top = path_in (f->dst, "src");
  g_autofree char *dst_sub = g_build_filename (dst_top, "sub", NULL);
  g_autofree char *src_sub = g_build_filename (f->src, "sub", NULL);
  g_autofree char *old_before = NULL;
  g_autofree char *old_inner_before = NULL;
  g_autofree char *old_after = NULL;
  g_autofree char *old_inner_after = NULL;
  g_auto (FerryProgress) progress = { 0 };

  make_merge_trees (f, mc->with_conflict);
  old_before = describe (dst_top, "old-only.txt");
  old_inner_before = describe (dst_sub, "old-inner.txt");

  run_ok (job, f->dst);
  old_after = describe (dst_top, "old-only.txt");
  old_inner_after = describe (dst_sub, "old-inner.txt");
  g_assert_cmpstr (old_after, ==, old_before);
  g_assert_cmpstr (old_inner_after, ==, old_inner_before);
  assert_same_entry (f->src, dst_top, "new.txt");
  assert_same_entry (src_sub, dst_sub, "inner-new.txt");
  if (mc->with_conflict)
    {
      assert_shared_by_policy (f->src, dst_top, mc->policy);
      assert_shared_by_policy (src_sub, dst_sub, mc->policy);
    }
  ferry_job_get_progress (job, &progress);
  g_assert_cmpuint (progress.files_skipped, ==,
                    mc->with_conflict && mc->policy == FERRY_CONFLICT_POLICY_SKIP ? 2 : 0);
}

/* ------------------------------------------------------------------ */
/* FAIL, and types that do not match                                   */

#define N_CONFLICTS 5

static void
test_fail_stops_at_first (Fixture *f, gconstpointer data)
{
  const char *sources[] = { f->src, NULL };
  g_autoptr (FerryJob) job = job_new (sources, f->dst, FERRY_CONFLICT_POLICY_FAIL);
  g_autofree char *dst_top = path_in (f->dst, "src");
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) failures = NULL;
  FerryFailure *failure;

  ferry_test_make_dirs (dst_top);
  for (guint i = 0; i < N_CONFLICTS; i++)
    {
      g_autofree char *name = g_strdup_printf ("c%u.txt", i);
      write_at (f->src, name, "new\n", 1600000000, 0);
      write_at (dst_top, name, "old\n", 1500000000, 0);
    }
  /* Times of its own, far from the source folder's: a job that stopped
   * gives the folder it merged into none of the source's. */
  g_assert_no_errno (utimensat (AT_FDCWD, dst_top,
                                (struct timespec[]){ { 1500000000, 0 }, { 1500000000, 0 } }, 0));
  before = describe (f->dst, "src");

  g_assert_false (run_job_bounded (job, &error));
  g_assert_error (error, FERRY_ERROR, FERRY_ERROR_EXISTS);
  g_assert_cmpint (ferry_job_get_phase (job), ==, FERRY_PHASE_FAILED);
  /* One failure, naming the file: the job stopped there. */
  failures = ferry_job_dup_failures (job);
  g_assert_cmpuint (failures->len, ==, 1);
  failure = g_ptr_array_index (failures, 0);
  g_assert_error (failure->error, FERRY_ERROR, FERRY_ERROR_EXISTS);
  assert_message_names (error->message, g_file_peek_path (failure->destination));
  assert_message_names (failure->error->message, dst_top);
  g_assert_true (g_str_has_prefix (g_file_peek_path (failure->source), f->src));
  after = describe (f->dst, "src");
  g_assert_cmpstr (after, ==, before);
  g_assert_cmpuint (ferry_test_count_temp_files (f->dst), ==, 0);
}

static void
test_file_onto_folder (Fixture *f, gconstpointer data)
{
  const char *sources[] = { f->src, NULL };
  g_autoptr (FerryJob) job = job_new (sources, f->dst, FERRY_CONFLICT_POLICY_OVERWRITE);
  g_autofree char *dst_top = path_in (f->dst, "src");
  g_autofree char *folder = path_in (dst_top, "thing");
  g_autofree char *folder_file = path_in (folder, "keep.txt");
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) failures = NULL;

  write_at (f->src, "thing", "a file\n", 1600000000, 0);
  write_at (f->src, "other.txt", "copied anyway\n", 1600000000, 0);
  ferry_test_make_dirs (folder);
  ferry_test_write_text (folder_file, "stays\n");
  before = describe (dst_top, "thing");

  g_assert_false (run_job_bounded (job, &error));
  g_assert_error (error, FERRY_ERROR, FERRY_ERROR_PARTIAL);
  assert_one_failure (job, FERRY_ERROR_EXISTS, folder);
  failures = ferry_job_dup_failures (job);
  assert_message_names (((FerryFailure *) failures->pdata[0])->error->message, "is a folder");
  after = describe (dst_top, "thing");
  g_assert_cmpstr (after, ==, before);
  assert_same_entry (f->src, dst_top, "other.txt");
  g_assert_cmpuint (ferry_test_count_temp_files (f->dst), ==, 0);
}

static void
test_folder_onto_file (Fixture *f, gconstpointer data)
{
  g_autofree char *thing = path_in (f->src, "thing");
  g_autofree char *deep = g_build_filename (thing, "sub", NULL);
  g_autofree char *p = NULL;
  const char *sources[] = { thing, NULL };

  ferry_test_make_dirs (deep);
  ferry_test_write_text ((g_free (p), p = path_in (thing, "x.txt")), "x\n");
  ferry_test_write_random ((g_free (p), p = path_in (deep, "y.bin")), 5000, 1);
  ferry_test_set_times (thing, 1300000000, 5);
  write_at (f->dst, "thing", "a file where the folder goes\n", 1500000000, 0);

  copy_ok (sources, f->dst, FERRY_CONFLICT_POLICY_OVERWRITE);
  assert_same_entry (f->src, f->dst, "thing");
}

/* ------------------------------------------------------------------ */
/* Asking                                                              */

typedef struct
{
  FerryJob *job;
  FerryConflictAction file_answer;
  FerryConflictAction dir_answer;
  gboolean apply_to_all;
  guint delay_ms;      /* answer from a timeout, this much later */
  gboolean drop;       /* claim the request but let it go unanswered */
  gboolean cancel_job; /* keep the request and cancel the job instead */
  const char *const *renames; /* answer Rename: old name, new name, …, NULL */

  guint n_file_questions;
  guint n_dir_questions;
  GPtrArray *requests; /* every request seen, kept */
  guint ticks;         /* of a timeout running while an answer is pending */
  guint ticks_when_answered;
  gint64 asked_at;
  gint64 answered_at;
  FerryPhase phase_when_answered;
} Asker;

static void
asker_init (Asker *asker, FerryJob *job, FerryConflictAction file_answer)
{
  *asker = (Asker){ .job = job, .file_answer = file_answer, .dir_answer = file_answer };
  asker->requests = g_ptr_array_new_with_free_func (g_object_unref);
}

static void
asker_clear (Asker *asker)
{
  g_clear_pointer (&asker->requests, g_ptr_array_unref);
}

static const char *
new_name_for (Asker *asker, FerryConflictRequest *request)
{
  g_autofree char *name = g_file_get_basename (ferry_conflict_request_get_destination (request));

  for (const char *const *r = asker->renames; r[0] != NULL; r += 2)
    if (strcmp (r[0], name) == 0)
      return r[1];
  g_error ("no new name for %s", name);
}

static void
answer (Asker *asker, FerryConflictRequest *request)
{
  gboolean is_dir = ferry_conflict_request_get_source_is_dir (request);

  asker->answered_at = g_get_monotonic_time ();
  asker->ticks_when_answered = asker->ticks;
  asker->phase_when_answered = ferry_job_get_phase (asker->job);
  if (asker->renames != NULL)
    ferry_conflict_request_answer_rename (request, new_name_for (asker, request));
  else
    ferry_conflict_request_answer (request, is_dir ? asker->dir_answer : asker->file_answer,
                                   asker->apply_to_all);
  g_assert_true (ferry_conflict_request_get_answered (request));
}

typedef struct
{
  Asker *asker;
  FerryConflictRequest *request; /* kept alive by asker->requests */
} Later;

static gboolean
answer_later (gpointer data)
{
  Later *later = data;

  answer (later->asker, later->request);
  return G_SOURCE_REMOVE;
}

static gboolean
cancel_later (gpointer data)
{
  Asker *asker = data;

  asker->answered_at = g_get_monotonic_time ();
  ferry_job_cancel (asker->job);
  return G_SOURCE_REMOVE;
}

static gboolean
on_conflict (FerryJob *job, FerryConflictRequest *request, gpointer data)
{
  Asker *asker = data;

  /* Signals reach the caller in its main context, never a worker. */
  g_assert_true (g_main_context_is_owner (g_main_context_default ()));
  g_assert_false (ferry_conflict_request_get_answered (request));
  if (ferry_conflict_request_get_source_is_dir (request))
    asker->n_dir_questions++;
  else
    asker->n_file_questions++;
  asker->asked_at = g_get_monotonic_time ();
  if (asker->drop)
    return TRUE;

  g_ptr_array_add (asker->requests, g_object_ref (request));
  if (asker->cancel_job)
    g_timeout_add (100, cancel_later, asker);
  else if (asker->delay_ms > 0)
    {
      Later *later = g_new0 (Later, 1);
      later->asker = asker;
      later->request = request;
      g_timeout_add_full (G_PRIORITY_DEFAULT, asker->delay_ms, answer_later, later, g_free);
    }
  else
    answer (asker, request);
  return TRUE;
}

static FerryJob *
asking_job_new (const char *const *sources,
                const char *dest,
                Asker *asker,
                FerryConflictAction action)
{
  FerryJob *job = job_new (sources, dest, FERRY_CONFLICT_POLICY_ASK);

  asker_init (asker, job, action);
  g_signal_connect (job, "conflict", G_CALLBACK (on_conflict), asker);
  return job;
}

static void
make_file_conflict (Fixture *f, const char *name)
{
  g_autofree char *path = path_in (f->src, name);

  write_at (f->src, name, "from the source\n", 1600000000, 123);
  g_assert_cmpint (chmod (path, 0640), ==, 0);
  write_at (f->dst, name, "already at the destination\n", 1500000000, 456);
}

static void
test_ask_replace (Fixture *f, gconstpointer data)
{
  g_autofree char *a = path_in (f->src, "a.txt");
  const char *sources[] = { a, NULL };
  Asker asker;
  g_autoptr (FerryJob) job
      = asking_job_new (sources, f->dst, &asker, FERRY_CONFLICT_ACTION_REPLACE);

  make_file_conflict (f, "a.txt");
  run_ok (job, f->dst);
  g_assert_cmpuint (asker.n_file_questions, ==, 1);
  g_assert_cmpuint (asker.n_dir_questions, ==, 0);
  assert_same_entry (f->src, f->dst, "a.txt");
  asker_clear (&asker);
}

static void
test_ask_skip (Fixture *f, gconstpointer data)
{
  g_autofree char *a = path_in (f->src, "a.txt");
  const char *sources[] = { a, NULL };
  Asker asker;
  g_autoptr (FerryJob) job = asking_job_new (sources, f->dst, &asker, FERRY_CONFLICT_ACTION_SKIP);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  make_file_conflict (f, "a.txt");
  before = describe (f->dst, "a.txt");
  run_ok (job, f->dst);
  after = describe (f->dst, "a.txt");
  g_assert_cmpstr (after, ==, before);
  g_assert_cmpuint (asker.n_file_questions, ==, 1);
  assert_progress (job, 1, 0);
  asker_clear (&asker);
}

/* A skipped folder is skipped whole: every entry in it counts. */
static void
test_ask_skip_folder (Fixture *f, gconstpointer data)
{
  const char *sources[] = { f->src, NULL };
  Asker asker;
  g_autoptr (FerryJob) job = asking_job_new (sources, f->dst, &asker, FERRY_CONFLICT_ACTION_SKIP);
  g_autofree char *dst_top = path_in (f->dst, "src");
  g_autofree char *sub = path_in (f->src, "sub");
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  ferry_test_make_dirs (sub);
  write_at (f->src, "a.txt", "a\n", 1600000000, 0);
  write_at (sub, "b.txt", "b\n", 1600000000, 0);
  ferry_test_make_dirs (dst_top);
  before = describe (f->dst, "src");

  run_ok (job, f->dst);
  after = describe (f->dst, "src");
  g_assert_cmpstr (after, ==, before);
  g_assert_cmpuint (asker.n_dir_questions, ==, 1);
  g_assert_cmpuint (asker.n_file_questions, ==, 0);
  /* src, a.txt, sub, sub/b.txt */
  assert_progress (job, 4, 0);
  asker_clear (&asker);
}

static FerryConflictRequest *
find_request (Asker *asker, const char *source)
{
  for (guint i = 0; i < asker->requests->len; i++)
    {
      FerryConflictRequest *request = g_ptr_array_index (asker->requests, i);
      if (g_strcmp0 (g_file_peek_path (ferry_conflict_request_get_source (request)), source) == 0)
        return request;
    }
  g_error ("no question about %s", source);
  return NULL;
}

/* Keep Both, or Rename with a name for each: the copies go under new
 * names in the same folder, files and folders alike, and what was there
 * is left as it was. The name offered to be changed is Keep Both's. A
 * name given is for one conflict: the next is asked again, "apply to
 * all" or not. */
typedef struct
{
  const char *const *renames; /* NULL: Keep Both */
  const char *file_copy;
  const char *folder_copy;
} NewNameCase;

static void
test_ask_new_name (Fixture *f, gconstpointer data)
{
  const NewNameCase *c = data;
  g_autofree char *a = path_in (f->src, "a.txt");
  g_autofree char *folder = path_in (f->src, "folder");
  g_autofree char *dst_folder = path_in (f->dst, "folder");
  const char *sources[] = { a, folder, NULL };
  Asker asker;
  g_autoptr (FerryJob) job
      = asking_job_new (sources, f->dst, &asker, FERRY_CONFLICT_ACTION_KEEP_BOTH);
  g_autofree char *file_before = NULL;
  g_autofree char *folder_before = NULL;
  g_autofree char *file_after = NULL;
  g_autofree char *folder_after = NULL;

  make_file_conflict (f, "a.txt");
  ferry_test_make_dirs (folder);
  write_at (folder, "inside.txt", "new inside\n", 1600000000, 0);
  ferry_test_make_dirs (dst_folder);
  write_at (dst_folder, "inside.txt", "old inside\n", 1500000000, 0);
  file_before = describe (f->dst, "a.txt");
  folder_before = describe (f->dst, "folder");
  asker.renames = c->renames;
  asker.apply_to_all = c->renames != NULL;

  run_ok (job, f->dst);
  g_assert_cmpuint (asker.n_file_questions, ==, 1);
  g_assert_cmpuint (asker.n_dir_questions, ==, 1);
  g_assert_cmpstr (ferry_conflict_request_get_suggested_name (find_request (&asker, a)), ==,
                   "a (2).txt");
  g_assert_cmpstr (ferry_conflict_request_get_suggested_name (find_request (&asker, folder)), ==,
                   "folder (2)");
  file_after = describe (f->dst, "a.txt");
  folder_after = describe (f->dst, "folder");
  g_assert_cmpstr (file_after, ==, file_before);
  g_assert_cmpstr (folder_after, ==, folder_before);
  assert_copied_as (f->src, "a.txt", f->dst, c->file_copy);
  assert_copied_as (f->src, "folder", f->dst, c->folder_copy);
  g_assert_cmpuint (ferry_test_count_entries (f->dst), ==, 6);
  asker_clear (&asker);
}

static void
test_ask_merge (Fixture *f, gconstpointer data)
{
  const char *sources[] = { f->src, NULL };
  Asker asker;
  g_autoptr (FerryJob) job = asking_job_new (sources, f->dst, &asker, FERRY_CONFLICT_ACTION_MERGE);
  g_autofree char *dst_top = path_in (f->dst, "src");
  g_autofree char *dst_sub = g_build_filename (dst_top, "sub", NULL);
  g_autofree char *src_sub = g_build_filename (f->src, "sub", NULL);
  g_autofree char *old_before = NULL;
  g_autofree char *old_inner_before = NULL;
  g_autofree char *old_after = NULL;
  g_autofree char *old_inner_after = NULL;

  make_merge_trees (f, FALSE);
  old_before = describe (dst_top, "old-only.txt");
  old_inner_before = describe (dst_sub, "old-inner.txt");

  run_ok (job, f->dst);
  /* "src" and "src/sub" both exist: two questions, none about files. */
  g_assert_cmpuint (asker.n_dir_questions, ==, 2);
  g_assert_cmpuint (asker.n_file_questions, ==, 0);
  assert_same_entry (f->src, dst_top, "new.txt");
  assert_same_entry (src_sub, dst_sub, "inner-new.txt");
  old_after = describe (dst_top, "old-only.txt");
  old_inner_after = describe (dst_sub, "old-inner.txt");
  g_assert_cmpstr (old_after, ==, old_before);
  g_assert_cmpstr (old_inner_after, ==, old_inner_before);
  asker_clear (&asker);
}

static gboolean
tick (gpointer data)
{
  guint *ticks = data;

  (*ticks)++;
  return G_SOURCE_CONTINUE;
}

/* The worker waits for a late answer; the main loop does not. */
static void
test_ask_answer_later (Fixture *f, gconstpointer data)
{
  g_autofree char *a = path_in (f->src, "a.txt");
  const char *sources[] = { a, NULL };
  Asker asker;
  g_autoptr (FerryJob) job
      = asking_job_new (sources, f->dst, &asker, FERRY_CONFLICT_ACTION_REPLACE);
  guint ticker;

  make_file_conflict (f, "a.txt");
  asker.delay_ms = 200;
  ticker = g_timeout_add (10, tick, &asker.ticks);
  run_ok (job, f->dst);
  g_source_remove (ticker);

  g_assert_cmpuint (asker.n_file_questions, ==, 1);
  /* A timeout counts from the time its loop iteration began, a little
   * before the handler ran. */
  g_assert_cmpint (asker.answered_at - asker.asked_at, >=, 150 * 1000);
  g_assert_cmpuint (asker.ticks_when_answered, >=, 3);
  g_assert_cmpint (asker.phase_when_answered, ==, FERRY_PHASE_COPYING);
  assert_same_entry (f->src, f->dst, "a.txt");
  asker_clear (&asker);
}

static void
test_ask_apply_to_all (Fixture *f, gconstpointer data)
{
  g_autoptr (GPtrArray) sources = g_ptr_array_new_with_free_func (g_free);
  Asker asker;
  g_autoptr (FerryJob) job = NULL;

  for (guint i = 0; i < N_CONFLICTS; i++)
    {
      g_autofree char *name = g_strdup_printf ("c%u.txt", i);
      make_file_conflict (f, name);
      g_ptr_array_add (sources, path_in (f->src, name));
    }
  g_ptr_array_add (sources, NULL);
  job = asking_job_new ((const char *const *) sources->pdata, f->dst, &asker,
                        FERRY_CONFLICT_ACTION_REPLACE);
  asker.apply_to_all = TRUE;
  /* Two workers meet conflicts at once: still one question. */
  ferry_job_set_n_workers (job, 2);

  run_ok (job, f->dst);
  g_assert_cmpuint (asker.n_file_questions, ==, 1);
  for (guint i = 0; i < N_CONFLICTS; i++)
    {
      g_autofree char *name = g_strdup_printf ("c%u.txt", i);
      assert_same_entry (f->src, f->dst, name);
    }
  asker_clear (&asker);
}

/* An answer for all files says nothing about folders, and the other way
 * round: each kind is asked once, whichever comes first. */
static void
check_kinds_remembered_apart (Fixture *f, const char *const *sources)
{
  Asker asker;
  g_autoptr (FerryJob) job = asking_job_new (sources, f->dst, &asker, FERRY_CONFLICT_ACTION_SKIP);

  asker.dir_answer = FERRY_CONFLICT_ACTION_MERGE;
  asker.apply_to_all = TRUE;
  run_ok (job, f->dst);
  g_assert_cmpuint (asker.n_file_questions, ==, 1);
  g_assert_cmpuint (asker.n_dir_questions, ==, 1);
  asker_clear (&asker);
}

static void
make_folder_conflict (Fixture *f, const char *name)
{
  g_autofree char *src_dir = path_in (f->src, name);
  g_autofree char *dst_dir = path_in (f->dst, name);

  ferry_test_make_dirs (src_dir);
  ferry_test_make_dirs (dst_dir);
  write_at (src_dir, "same.txt", "new\n", 1600000000, 0);
  write_at (dst_dir, "same.txt", "old\n", 1500000000, 0);
  write_at (src_dir, "added.txt", "added\n", 1600000000, 0);
}

static void
test_ask_apply_to_all_kinds (Fixture *f, gconstpointer data)
{
  g_autofree char *d1 = path_in (f->src, "d1");
  g_autofree char *d2 = path_in (f->src, "d2");
  g_autofree char *c1 = path_in (f->src, "c1.txt");
  g_autofree char *c2 = path_in (f->src, "c2.txt");
  const char *files_last[] = { c1, c2, d1, d2, NULL };
  const char *files_first[] = { d1, d2, c1, c2, NULL };
  g_autofree char *dst_d1 = path_in (f->dst, "d1");

  make_folder_conflict (f, "d1");
  make_folder_conflict (f, "d2");
  make_file_conflict (f, "c1.txt");
  make_file_conflict (f, "c2.txt");

  check_kinds_remembered_apart (f, files_last);
  /* Skipped files, merged folders. */
  assert_content (f->dst, "c1.txt", "already at the destination\n");
  assert_content (dst_d1, "same.txt", "old\n");
  assert_content (dst_d1, "added.txt", "added\n");

  check_kinds_remembered_apart (f, files_first);
}

/* The handler claims the request and drops it: the file fails as if
 * nobody answered, and the job goes on to its end. */
static void
test_ask_lost_answer (Fixture *f, gconstpointer data)
{
  g_autofree char *a = path_in (f->src, "a.txt");
  g_autofree char *b = path_in (f->src, "b.txt");
  g_autofree char *dst_a = path_in (f->dst, "a.txt");
  const char *sources[] = { a, b, NULL };
  Asker asker;
  g_autoptr (FerryJob) job
      = asking_job_new (sources, f->dst, &asker, FERRY_CONFLICT_ACTION_REPLACE);
  g_autoptr (GError) error = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  make_file_conflict (f, "a.txt");
  write_at (f->src, "b.txt", "no conflict\n", 1600000000, 0);
  before = describe (f->dst, "a.txt");
  asker.drop = TRUE;

  g_assert_false (run_job_bounded (job, &error));
  g_assert_error (error, FERRY_ERROR, FERRY_ERROR_PARTIAL);
  g_assert_cmpint (ferry_job_get_phase (job), ==, FERRY_PHASE_FAILED);
  g_assert_cmpuint (asker.n_file_questions, ==, 1);
  assert_one_failure (job, FERRY_ERROR_EXISTS, dst_a);
  after = describe (f->dst, "a.txt");
  g_assert_cmpstr (after, ==, before);
  assert_same_entry (f->src, f->dst, "b.txt");
  asker_clear (&asker);
}

static void
test_ask_no_handler (Fixture *f, gconstpointer data)
{
  g_autofree char *a = path_in (f->src, "a.txt");
  g_autofree char *b = path_in (f->src, "b.txt");
  g_autofree char *dst_a = path_in (f->dst, "a.txt");
  const char *sources[] = { a, b, NULL };
  g_autoptr (FerryJob) job = job_new (sources, f->dst, FERRY_CONFLICT_POLICY_ASK);
  g_autoptr (GError) error = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_auto (FerryProgress) progress = { 0 };

  make_file_conflict (f, "a.txt");
  write_at (f->src, "b.txt", "no conflict\n", 1600000000, 0);
  before = describe (f->dst, "a.txt");

  g_assert_false (run_job_bounded (job, &error));
  g_assert_error (error, FERRY_ERROR, FERRY_ERROR_PARTIAL);
  assert_one_failure (job, FERRY_ERROR_EXISTS, dst_a);
  after = describe (f->dst, "a.txt");
  g_assert_cmpstr (after, ==, before);
  assert_same_entry (f->src, f->dst, "b.txt");
  ferry_job_get_progress (job, &progress);
  g_assert_cmpuint (progress.files_failed, ==, 1);
  /* The one copied is done; the one that failed stays in the total. */
  g_assert_cmpuint (progress.files_done, ==, 1);
  g_assert_cmpuint (progress.bytes_written + progress.bytes_failed, ==, progress.bytes_total);
}

/* A big file in a subfolder: with two workers it may be in flight when
 * the job is cancelled. */
static void
make_cancel_trees (Fixture *f)
{
  g_autofree char *sub = path_in (f->src, "sub");
  g_autofree char *big = path_in (sub, "big.bin");
  g_autofree char *dst_top = path_in (f->dst, "src");

  ferry_test_make_dirs (sub);
  ferry_test_write_random (big, 32 * 1024 * 1024, 9);
  ferry_test_make_dirs (dst_top);
  write_at (f->src, "a.txt", "new\n", 1600000000, 0);
  write_at (dst_top, "a.txt", "old\n", 1500000000, 0);
}

static void
assert_cancelled (Fixture *f, FerryJob *job, GError *error, const char *a_before)
{
  g_autofree char *dst_top = path_in (f->dst, "src");
  g_autofree char *a_after = describe (dst_top, "a.txt");

  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (ferry_job_get_phase (job), ==, FERRY_PHASE_CANCELLED);
  g_assert_cmpstr (a_after, ==, a_before);
  g_assert_cmpuint (ferry_test_count_temp_files (f->dst), ==, 0);
}

static void
test_ask_answer_cancel (Fixture *f, gconstpointer data)
{
  const char *sources[] = { f->src, NULL };
  Asker asker;
  g_autoptr (FerryJob) job = asking_job_new (sources, f->dst, &asker, FERRY_CONFLICT_ACTION_CANCEL);
  g_autoptr (GError) error = NULL;
  g_autofree char *dst_top = path_in (f->dst, "src");
  g_autofree char *before = NULL;

  make_cancel_trees (f);
  before = describe (dst_top, "a.txt");
  asker.dir_answer = FERRY_CONFLICT_ACTION_MERGE;
  asker.delay_ms = 50;
  ferry_job_set_n_workers (job, 2);

  g_assert_false (run_job_bounded (job, &error));
  g_assert_cmpuint (asker.n_file_questions, ==, 1);
  assert_cancelled (f, job, error, before);
  asker_clear (&asker);
}

static void
test_ask_cancel_job_while_pending (Fixture *f, gconstpointer data)
{
  g_autofree char *dst_top = path_in (f->dst, "src");
  const char *sources[] = { f->src, NULL };
  Asker asker;
  g_autoptr (FerryJob) job = asking_job_new (sources, f->dst, &asker, FERRY_CONFLICT_ACTION_MERGE);
  g_autoptr (GError) error = NULL;
  g_autofree char *before = NULL;
  FerryConflictRequest *pending;

  make_cancel_trees (f);
  before = describe (dst_top, "a.txt");
  /* The first question (the folder "src") is never answered. */
  asker.cancel_job = TRUE;
  ferry_job_set_n_workers (job, 2);

  g_assert_false (run_job_bounded (job, &error));
  g_assert_cmpuint (asker.n_dir_questions, ==, 1);
  g_assert_cmpuint (asker.requests->len, ==, 1);
  pending = g_ptr_array_index (asker.requests, 0);
  g_assert_false (ferry_conflict_request_get_answered (pending));
  assert_cancelled (f, job, error, before);
  /* Nothing was merged into the folder: the job never got past it. */
  g_assert_cmpuint (ferry_test_count_entries (dst_top), ==, 1);
  /* A late answer to an ended job is harmless. */
  ferry_conflict_request_answer (pending, FERRY_CONFLICT_ACTION_MERGE, FALSE);
  asker_clear (&asker);
}

static void
assert_modified (GDateTime *when, const char *path)
{
  struct stat st;

  g_assert_cmpint (lstat (path, &st), ==, 0);
  g_assert_nonnull (when);
  g_assert_cmpint (g_date_time_to_unix (when), ==, st.st_mtim.tv_sec);
  g_assert_cmpint (g_date_time_get_microsecond (when), ==, st.st_mtim.tv_nsec / 1000);
}

/* The request describes both sides exactly as they are on disk. */
static void
assert_request_describes (Asker *asker, Fixture *f, const char *name)
{
  g_autofree char *source = path_in (f->src, name);
  g_autofree char *destination = path_in (f->dst, name);
  FerryConflictRequest *request = find_request (asker, source);
  struct stat src_st, dst_st;

  g_assert_cmpint (lstat (source, &src_st), ==, 0);
  g_assert_cmpint (lstat (destination, &dst_st), ==, 0);
  g_assert_cmpstr (g_file_peek_path (ferry_conflict_request_get_destination (request)), ==,
                   destination);
  g_assert_cmpint (ferry_conflict_request_get_source_is_dir (request), ==,
                   S_ISDIR (src_st.st_mode));
  g_assert_cmpint (ferry_conflict_request_get_destination_is_dir (request), ==,
                   S_ISDIR (dst_st.st_mode));
  g_assert_cmpuint (ferry_conflict_request_get_source_size (request), ==, src_st.st_size);
  g_assert_cmpuint (ferry_conflict_request_get_destination_size (request), ==, dst_st.st_size);
  assert_modified (ferry_conflict_request_get_source_modified (request), source);
  assert_modified (ferry_conflict_request_get_destination_modified (request), destination);
}

static void
test_ask_request_getters (Fixture *f, gconstpointer data)
{
  const char *names[] = { "a.txt", "both-folders", "folder-onto-file", "file-onto-folder" };
  g_autoptr (GPtrArray) sources = g_ptr_array_new_with_free_func (g_free);
  Asker asker;
  g_autoptr (FerryJob) job = NULL;
  g_autofree char *p = NULL;
  FerryConflictRequest *request;

  write_at (f->src, "a.txt", "eleven byte", 1500000000, 123456789);
  write_at (f->dst, "a.txt", "old", 1400000000, 987654321);
  ferry_test_make_dirs ((g_free (p), p = path_in (f->src, "both-folders")));
  ferry_test_set_times (p, 1300000000, 1000);
  ferry_test_make_dirs ((g_free (p), p = path_in (f->dst, "both-folders")));
  ferry_test_set_times (p, 1200000000, 999999999);
  ferry_test_make_dirs ((g_free (p), p = path_in (f->src, "folder-onto-file")));
  write_at (f->dst, "folder-onto-file", "a file\n", 1100000000, 1);
  write_at (f->src, "file-onto-folder", "a file\n", 1100000000, 2);
  ferry_test_make_dirs ((g_free (p), p = path_in (f->dst, "file-onto-folder")));

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_ptr_array_add (sources, path_in (f->src, names[i]));
  g_ptr_array_add (sources, NULL);
  job = asking_job_new ((const char *const *) sources->pdata, f->dst, &asker,
                        FERRY_CONFLICT_ACTION_SKIP);
  run_ok (job, f->dst);

  g_assert_cmpuint (asker.requests->len, ==, G_N_ELEMENTS (names));
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    assert_request_describes (&asker, f, names[i]);
  request = find_request (&asker, sources->pdata[0]);
  g_assert_cmpuint (ferry_conflict_request_get_source_size (request), ==, 11);
  g_assert_cmpint (
      g_date_time_get_microsecond (ferry_conflict_request_get_source_modified (request)), ==,
      123456);
  asker_clear (&asker);
}

/* A name given that is taken too is numbered as Keep Both numbers: what
 * is there is never replaced unasked. */
static void
test_ask_rename_taken (Fixture *f, gconstpointer data)
{
  const char *renames[] = { "a.txt", "b.txt", NULL };
  g_autofree char *a = path_in (f->src, "a.txt");
  const char *sources[] = { a, NULL };
  Asker asker;
  g_autoptr (FerryJob) job = asking_job_new (sources, f->dst, &asker, FERRY_CONFLICT_ACTION_SKIP);

  make_file_conflict (f, "a.txt");
  write_at (f->dst, "b.txt", "b was here\n", 1500000000, 0);
  asker.renames = renames;

  run_ok (job, f->dst);
  assert_content (f->dst, "a.txt", "already at the destination\n");
  assert_content (f->dst, "b.txt", "b was here\n");
  assert_copied_as (f->src, "a.txt", f->dst, "b (2).txt");
  g_assert_cmpuint (ferry_test_count_entries (f->dst), ==, 3);
  asker_clear (&asker);
}

/* A name that is no name, or a path out of the folder: that file fails,
 * saying why, and nothing is written anywhere; the rest is copied. */
static void
test_ask_rename_not_a_name (Fixture *f, gconstpointer data)
{
  const char *renames[] = { "a.txt", "../escaped.txt", "b.txt", "", "c.txt", "..", NULL };
  const char *names[] = { "a.txt", "b.txt", "c.txt" };
  g_autoptr (GPtrArray) sources = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *outside = path_in (f->dst, "../escaped.txt");
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) failures = NULL;
  Asker asker;
  g_autoptr (FerryJob) job = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      make_file_conflict (f, names[i]);
      g_ptr_array_add (sources, path_in (f->src, names[i]));
    }
  write_at (f->src, "d.txt", "no conflict\n", 1600000000, 0);
  g_ptr_array_add (sources, path_in (f->src, "d.txt"));
  g_ptr_array_add (sources, NULL);
  job = asking_job_new ((const char *const *) sources->pdata, f->dst, &asker,
                        FERRY_CONFLICT_ACTION_SKIP);
  asker.renames = renames;

  g_assert_false (run_job_bounded (job, &error));
  g_assert_error (error, FERRY_ERROR, FERRY_ERROR_PARTIAL);
  failures = ferry_job_dup_failures (job);
  g_assert_cmpuint (failures->len, ==, 3);
  for (guint i = 0; i < failures->len; i++)
    {
      FerryFailure *failure = g_ptr_array_index (failures, i);

      g_assert_error (failure->error, FERRY_ERROR, FERRY_ERROR_INVALID_ARGUMENT);
      assert_message_names (failure->error->message, "a name cannot be empty");
    }
  g_assert_false (g_file_test (outside, G_FILE_TEST_EXISTS));
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    assert_content (f->dst, names[i], "already at the destination\n");
  assert_same_entry (f->src, f->dst, "d.txt");
  g_assert_cmpuint (ferry_test_count_entries (f->dst), ==, 4);
  g_assert_cmpuint (ferry_test_count_temp_files (f->dst), ==, 0);
  asker_clear (&asker);
}

int
main (int argc, char **argv)
{
  static const char *const renames[]
      = { "a.txt", "a from monday.txt", "folder", "folder from monday", NULL };
  static const NewNameCase keep_both = { NULL, "a (2).txt", "folder (2)" };
  static const NewNameCase rename = { renames, "a from monday.txt", "folder from monday" };
  static const MergeCase merge_cases[] = {
    { "/conflicts/merge/skip", FERRY_CONFLICT_POLICY_SKIP, TRUE },
    { "/conflicts/merge/overwrite", FERRY_CONFLICT_POLICY_OVERWRITE, TRUE },
    { "/conflicts/merge/newer", FERRY_CONFLICT_POLICY_NEWER, TRUE },
    { "/conflicts/merge/keep-both", FERRY_CONFLICT_POLICY_KEEP_BOTH, TRUE },
    /* Under FAIL a folder still merges; only a file conflict fails. */
    { "/conflicts/merge/fail", FERRY_CONFLICT_POLICY_FAIL, FALSE },
  };

  g_test_init (&argc, &argv, NULL);
  ferry_engine_init ();

#define ADD(path, func, data)                                                                      \
  g_test_add (path, Fixture, data, ferry_test_fixture_set_up, func, ferry_test_fixture_tear_down)
  ADD ("/conflicts/skip", test_skip, NULL);
  ADD ("/conflicts/overwrite", test_overwrite, NULL);
  ADD ("/conflicts/newer", test_newer, NULL);
  ADD ("/conflicts/keep-both/numbering", test_keep_both_numbering, NULL);
  ADD ("/conflicts/keep-both/names", test_keep_both_names, NULL);
  ADD ("/conflicts/keep-both/long-names", test_keep_both_long_names, NULL);
  ADD ("/conflicts/keep-both/long-names-not-utf8", test_keep_both_long_names_not_utf8, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (merge_cases); i++)
    ADD (merge_cases[i].test_path, test_merge, &merge_cases[i]);
  ADD ("/conflicts/fail/stops-at-first", test_fail_stops_at_first, NULL);
  ADD ("/conflicts/type-mismatch/file-onto-folder", test_file_onto_folder, NULL);
  ADD ("/conflicts/type-mismatch/folder-onto-file", test_folder_onto_file, NULL);
  ADD ("/conflicts/ask/replace", test_ask_replace, NULL);
  ADD ("/conflicts/ask/skip", test_ask_skip, NULL);
  ADD ("/conflicts/ask/skip-folder", test_ask_skip_folder, NULL);
  ADD ("/conflicts/ask/keep-both", test_ask_new_name, &keep_both);
  ADD ("/conflicts/ask/merge", test_ask_merge, NULL);
  ADD ("/conflicts/ask/answer-later", test_ask_answer_later, NULL);
  ADD ("/conflicts/ask/apply-to-all", test_ask_apply_to_all, NULL);
  ADD ("/conflicts/ask/apply-to-all-kinds", test_ask_apply_to_all_kinds, NULL);
  ADD ("/conflicts/ask/lost-answer", test_ask_lost_answer, NULL);
  ADD ("/conflicts/ask/no-handler", test_ask_no_handler, NULL);
  ADD ("/conflicts/ask/answer-cancel", test_ask_answer_cancel, NULL);
  ADD ("/conflicts/ask/cancel-job-while-pending", test_ask_cancel_job_while_pending, NULL);
  ADD ("/conflicts/ask/request-getters", test_ask_request_getters, NULL);
  ADD ("/conflicts/ask/rename", test_ask_new_name, &rename);
  ADD ("/conflicts/ask/rename-taken", test_ask_rename_taken, NULL);
  ADD ("/conflicts/ask/rename-not-a-name", test_ask_rename_not_a_name, NULL);
#undef ADD

  return g_test_run ();
}
