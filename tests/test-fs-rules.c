/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The destination filesystem's rules (sys/ferry-fs-rules): which names
 * FAT, exFAT and NTFS accept and how Ferry adapts the others, how they
 * compare names, round sizes and times; and, as root, that real images
 * mounted like on a desktop (exfat-fuse, ntfs-3g, fusefat) are recognised
 * with their cluster size. */
#include "config.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ferry-fs-id.h"
#include "ferry-fs-rules.h"
#include "ferry-stick-sys.h"
#include "ferry-test-util.h"

#define MiB (1024 * 1024)
#define NSEC_PER_SEC G_GINT64_CONSTANT (1000000000)

static const FerryFsKind windows_kinds[] = {
  FERRY_FS_KIND_FAT, FERRY_FS_KIND_EXFAT, FERRY_FS_KIND_NTFS,
};

static const char *
kind_name (FerryFsKind kind)
{
  static const char *const names[] = { "OTHER", "FAT", "exFAT", "NTFS" };
  return names[kind];
}

static gsize
utf16_units (const char *name)
{
  gsize units = 0;

  for (const char *p = name; *p != '\0'; p = g_utf8_next_char (p))
    units += g_utf8_get_char (p) > 0xFFFF ? 2 : 1;
  return units;
}

/* ------------------------------------------------------------ kinds */

static void
test_kinds (void)
{
  static const struct
  {
    FerryFsKind kind;
    const char *label;
    guint64 max_file_size;
    gboolean folds, windows, hardlinks, others;
    gint64 granularity;
  } rows[] = {
    { FERRY_FS_KIND_OTHER, NULL, G_MAXUINT64, FALSE, FALSE, TRUE, TRUE, 1 },
    { FERRY_FS_KIND_FAT, "FAT32", 4 * G_GUINT64_CONSTANT (1024) * MiB - 1, TRUE, TRUE, FALSE, FALSE, 2 * NSEC_PER_SEC },
    { FERRY_FS_KIND_EXFAT, "exFAT", G_MAXUINT64, TRUE, TRUE, FALSE, FALSE, 10 * 1000 * 1000 },
    { FERRY_FS_KIND_NTFS, "NTFS", G_MAXUINT64, FALSE, TRUE, TRUE, FALSE, 100 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      FerryFsRules rules;

      ferry_fs_rules_for_kind (rows[i].kind, 0, &rules);
      g_assert_cmpint (rules.kind, ==, rows[i].kind);
      g_assert_cmpstr (rules.label, ==, rows[i].label);
      g_assert_cmpuint (rules.cluster_size, ==, 4096);
      g_assert_cmpuint (rules.max_file_size, ==, rows[i].max_file_size);
      g_assert_cmpint (rules.folds_case, ==, rows[i].folds);
      g_assert_cmpint (rules.windows_names, ==, rows[i].windows);
      g_assert_cmpint (rules.utf16_names, ==, rows[i].windows);
      g_assert_cmpint (rules.keeps_hardlinks, ==, rows[i].hardlinks);
      g_assert_cmpint (rules.keeps_symlinks, ==, rows[i].others);
      g_assert_cmpint (rules.keeps_special_files, ==, rows[i].others);
      g_assert_cmpint (rules.keeps_owners, ==, rows[i].others);
      g_assert_cmpint (rules.time_granularity_ns, ==, rows[i].granularity);

      ferry_fs_rules_for_kind (rows[i].kind, 131072, &rules);
      g_assert_cmpuint (rules.cluster_size, ==, 131072);
    }
}

/* ------------------------------------------------------------ names */

typedef struct
{
  const char *name;
  FerryNameProblem problem;
  const char *adapted; /* NULL: the name itself */
} NameRow;

/* FAT, exFAT and NTFS alike: Windows' rules. */
static const NameRow windows_rows[] = {
  { "readme.txt", FERRY_NAME_OK, NULL },
  { ".hidden", FERRY_NAME_OK, NULL },
  { "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac", FERRY_NAME_OK, NULL },
  { "a:b.txt", FERRY_NAME_FORBIDDEN_CHARACTERS, "a\xef\xbc\x9a" "b.txt" },
  { "what?", FERRY_NAME_FORBIDDEN_CHARACTERS, "what\xef\xbc\x9f" },
  { "<tag>", FERRY_NAME_FORBIDDEN_CHARACTERS, "\xef\xbc\x9ctag\xef\xbc\x9e" },
  { "say \"hi\"", FERRY_NAME_FORBIDDEN_CHARACTERS, "say \xef\xbc\x82hi\xef\xbc\x82" },
  { "a*b", FERRY_NAME_FORBIDDEN_CHARACTERS, "a\xef\xbc\x8a" "b" },
  { "back\\slash", FERRY_NAME_FORBIDDEN_CHARACTERS, "back\xef\xbc\xbcslash" },
  { "pipe|d", FERRY_NAME_FORBIDDEN_CHARACTERS, "pipe\xef\xbd\x9c" "d" },
  { "tab\there", FERRY_NAME_FORBIDDEN_CHARACTERS, "tab_here" },
  { "bell\x01\x1f", FERRY_NAME_FORBIDDEN_CHARACTERS, "bell__" },
  { "a:b.", FERRY_NAME_FORBIDDEN_CHARACTERS, "a\xef\xbc\x9a" "b" },
  { "notes.", FERRY_NAME_TRAILING_DOT_OR_SPACE, "notes" },
  { "notes. . ", FERRY_NAME_TRAILING_DOT_OR_SPACE, "notes" },
  { "...", FERRY_NAME_TRAILING_DOT_OR_SPACE, "_" },
  { " ", FERRY_NAME_TRAILING_DOT_OR_SPACE, "_" },
  { "CON", FERRY_NAME_RESERVED, "CON_" },
  { "con.txt", FERRY_NAME_RESERVED, "con_.txt" },
  { "Lpt9.tar.gz", FERRY_NAME_RESERVED, "Lpt9_.tar.gz" },
  { "nUl", FERRY_NAME_RESERVED, "nUl_" },
  { "aux.", FERRY_NAME_TRAILING_DOT_OR_SPACE, "aux_" },
  { "COM\xc2\xb9.log", FERRY_NAME_RESERVED, "COM\xc2\xb9_.log" },
  { "COM0", FERRY_NAME_OK, NULL },
  { "CONSOLE", FERRY_NAME_OK, NULL },
  { "nul_", FERRY_NAME_OK, NULL },
  { "x.con", FERRY_NAME_OK, NULL },
  { "caf\xe9", FERRY_NAME_NOT_UTF8, "caf_" },
  { "\xff\xfe.txt", FERRY_NAME_NOT_UTF8, "__.txt" },
  { "bad\xc3:", FERRY_NAME_NOT_UTF8, "bad_\xef\xbc\x9a" },
};

/* ext4 and friends take any byte but "/" and NUL. */
static const NameRow other_rows[] = {
  { "readme.txt", FERRY_NAME_OK, NULL },
  { "a:b?", FERRY_NAME_OK, NULL },
  { "notes.", FERRY_NAME_OK, NULL },
  { "CON", FERRY_NAME_OK, NULL },
  { "caf\xe9", FERRY_NAME_OK, NULL },
  { "tab\there", FERRY_NAME_OK, NULL },
};

static void
check_rows (FerryFsKind kind, const NameRow *rows, gsize n_rows)
{
  FerryFsRules rules;

  ferry_fs_rules_for_kind (kind, 0, &rules);
  for (gsize i = 0; i < n_rows; i++)
    {
      g_autofree char *adapted = ferry_fs_rules_adapt_name (&rules, rows[i].name);
      const char *expected = rows[i].adapted != NULL ? rows[i].adapted : rows[i].name;

      g_autofree char *shown = g_strescape (rows[i].name, NULL);

      g_test_message ("%s: \"%s\"", kind_name (kind), shown);
      g_assert_cmpint (ferry_fs_rules_check_name (&rules, rows[i].name), ==, rows[i].problem);
      g_assert_cmpstr (adapted, ==, expected);
      g_assert_cmpint (ferry_fs_rules_check_name (&rules, adapted), ==, FERRY_NAME_OK);
    }
}

static void
test_names (void)
{
  for (gsize k = 0; k < G_N_ELEMENTS (windows_kinds); k++)
    check_rows (windows_kinds[k], windows_rows, G_N_ELEMENTS (windows_rows));
  check_rows (FERRY_FS_KIND_OTHER, other_rows, G_N_ELEMENTS (other_rows));
}

static char *
repeat (const char *piece, guint times)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < times; i++)
    g_string_append (out, piece);
  return g_string_free (out, FALSE);
}

/* 255 UTF-16 units fit, 256 do not; characters beyond the BMP count two. */
static void
test_long_names (void)
{
  g_autofree char *fits = repeat ("a", 255);
  g_autofree char *too_long = repeat ("a", 256);
  g_autofree char *emoji = repeat ("\xf0\x9f\x98\x80", 128); /* 😀: 256 units */
  g_autofree char *emoji_127 = repeat ("\xf0\x9f\x98\x80", 127);
  FerryFsRules rules;

  for (gsize k = 0; k < G_N_ELEMENTS (windows_kinds); k++)
    {
      g_autofree char *adapted = NULL;
      g_autofree char *adapted_emoji = NULL;

      ferry_fs_rules_for_kind (windows_kinds[k], 0, &rules);
      g_assert_cmpint (ferry_fs_rules_check_name (&rules, fits), ==, FERRY_NAME_OK);
      g_assert_cmpint (ferry_fs_rules_check_name (&rules, too_long), ==, FERRY_NAME_TOO_LONG);
      g_assert_cmpint (ferry_fs_rules_check_name (&rules, emoji), ==, FERRY_NAME_TOO_LONG);
      adapted = ferry_fs_rules_adapt_name (&rules, too_long);
      g_assert_cmpstr (adapted, ==, fits);
      adapted_emoji = ferry_fs_rules_adapt_name (&rules, emoji);
      g_assert_cmpstr (adapted_emoji, ==, emoji_127);
    }
  ferry_fs_rules_for_kind (FERRY_FS_KIND_OTHER, 0, &rules);
  g_assert_cmpint (ferry_fs_rules_check_name (&rules, too_long), ==, FERRY_NAME_OK);
}

/* A 300-character name of two- and three-byte characters keeps its
 * extension and is cut between characters. */
static void
test_long_name_keeps_extension (void)
{
  g_autofree char *e_acute = repeat ("\xc3\xa9", 150);
  g_autofree char *nihon = repeat ("\xe6\x97\xa5\xe6\x9c\xac", 72);
  g_autofree char *name = g_strconcat (e_acute, nihon, "\xf0\x9f\x98\x80", ".jpeg", NULL);

  g_assert_cmpuint (g_utf8_strlen (name, -1), ==, 300);
  for (gsize k = 0; k < G_N_ELEMENTS (windows_kinds); k++)
    {
      FerryFsRules rules;
      g_autofree char *adapted = NULL;
      gsize stem_len;

      ferry_fs_rules_for_kind (windows_kinds[k], 0, &rules);
      g_assert_cmpint (ferry_fs_rules_check_name (&rules, name), ==, FERRY_NAME_TOO_LONG);
      adapted = ferry_fs_rules_adapt_name (&rules, name);
      g_assert_true (g_utf8_validate (adapted, -1, NULL));
      g_assert_cmpuint (utf16_units (adapted), ==, 255);
      g_assert_true (g_str_has_suffix (adapted, ".jpeg"));
      stem_len = strlen (adapted) - strlen (".jpeg");
      g_assert_cmpint (strncmp (adapted, name, stem_len), ==, 0);
      g_assert_cmpint (ferry_fs_rules_check_name (&rules, adapted), ==, FERRY_NAME_OK);
    }
}

/* Whatever the name, its adaptation passes the check, and adapting twice
 * changes nothing more. */
/* Where names count bytes (ext4: 255), a name exFAT holds is shortened
 * to them: between characters, its extension kept. */
static void
test_long_names_in_bytes (void)
{
  FerryFsRules rules;
  g_autoptr (GString) acute = g_string_new (NULL);
  g_autoptr (GString) smiles = g_string_new (NULL);
  g_autofree char *adapted = NULL;

  ferry_fs_rules_for_kind (FERRY_FS_KIND_OTHER, 4096, &rules);
  rules.max_name_bytes = 255;
  for (guint i = 0; i < 200; i++)
    g_string_append (acute, "é");
  g_string_append (acute, ".txt");
  for (guint i = 0; i < 120; i++)
    g_string_append (smiles, "😀");
  g_assert_cmpint (ferry_fs_rules_check_name (&rules, acute->str), ==, FERRY_NAME_TOO_LONG);
  adapted = ferry_fs_rules_adapt_name (&rules, acute->str);
  g_assert_cmpuint (strlen (adapted), ==, 254);
  g_assert_true (g_str_has_suffix (adapted, "é.txt"));
  g_assert_cmpint (ferry_fs_rules_check_name (&rules, adapted), ==, FERRY_NAME_OK);
  g_free (adapted);
  adapted = ferry_fs_rules_adapt_name (&rules, smiles->str);
  g_assert_cmpuint (strlen (adapted), ==, 252);
  g_assert_true (g_utf8_validate (adapted, -1, NULL));
  /* 404 bytes are 204 characters: exFAT takes them. */
  ferry_fs_rules_for_kind (FERRY_FS_KIND_EXFAT, 4096, &rules);
  g_assert_cmpint (ferry_fs_rules_check_name (&rules, acute->str), ==, FERRY_NAME_OK);
}

static void
test_adapt_always_passes (void)
{
  static const char *const pieces[] = {
    "a", "Z", ".", " ", ":", "?", "*", "\\", "|", "\"", "<", ">", "\x01", "\x1f",
    "\xc3\xa9", "\xe6\x97\xa5", "\xf0\x9f\x98\x80", "\xff", "\xc3", "CON", "lpt1", ".txt",
  };

  for (guint round = 0; round < 3000; round++)
    {
      g_autoptr (GString) name = g_string_new (NULL);
      guint n = g_test_rand_int_range (1, round % 10 == 0 ? 320 : 12);

      for (guint i = 0; i < n; i++)
        g_string_append (name, pieces[g_test_rand_int_range (0, G_N_ELEMENTS (pieces))]);
      for (gsize k = 0; k < G_N_ELEMENTS (windows_kinds); k++)
        {
          FerryFsRules rules;
          g_autofree char *adapted = NULL;
          g_autofree char *again = NULL;

          ferry_fs_rules_for_kind (windows_kinds[k], 0, &rules);
          adapted = ferry_fs_rules_adapt_name (&rules, name->str);
          if (ferry_fs_rules_check_name (&rules, adapted) != FERRY_NAME_OK)
            g_error ("%s: adapting \"%s\" gave \"%s\"", kind_name (windows_kinds[k]),
                     name->str, adapted);
          g_assert_cmpuint (strlen (adapted), >, 0);
          again = ferry_fs_rules_adapt_name (&rules, adapted);
          g_assert_cmpstr (again, ==, adapted);
        }
    }
}

/* ---------------------------------------------------------- folding */

static void
test_fold (void)
{
  static const struct
  {
    FerryFsKind kind;
    const char *a, *b;
    gboolean collide;
  } rows[] = {
    { FERRY_FS_KIND_FAT, "readme.txt", "README.txt", TRUE },
    { FERRY_FS_KIND_EXFAT, "readme.txt", "README.txt", TRUE },
    { FERRY_FS_KIND_NTFS, "readme.txt", "README.txt", FALSE },
    { FERRY_FS_KIND_OTHER, "readme.txt", "README.txt", FALSE },
    { FERRY_FS_KIND_FAT, "\xc3\x89t\xc3\xa9", "\xc3\xa9t\xc3\xa9", TRUE },   /* Été, été */
    { FERRY_FS_KIND_EXFAT, "\xc3\x89t\xc3\xa9", "\xc3\xa9t\xc3\x89", TRUE },
    { FERRY_FS_KIND_NTFS, "\xc3\x89t\xc3\xa9", "\xc3\xa9t\xc3\xa9", FALSE },
    { FERRY_FS_KIND_OTHER, "\xc3\x89t\xc3\xa9", "\xc3\xa9t\xc3\xa9", FALSE },
    { FERRY_FS_KIND_EXFAT, "Stra\xc3\x9f" "e", "STRASSE", FALSE },            /* Straße */
    { FERRY_FS_KIND_FAT, "Stra\xc3\x9f" "e", "STRASSE", FALSE },
    { FERRY_FS_KIND_EXFAT, "Stra\xc3\x9f" "e", "STRA\xc3\x9f" "E", TRUE },
    { FERRY_FS_KIND_EXFAT, "\xce\xa3\xce\xbf\xcf\x86", "\xcf\x83\xce\x9f\xce\xa6", TRUE }, /* Σοφ, σΟΦ */
    { FERRY_FS_KIND_EXFAT, "a.txt", "b.txt", FALSE },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      FerryFsRules rules;
      g_autofree char *fa = NULL;
      g_autofree char *fb = NULL;

      ferry_fs_rules_for_kind (rows[i].kind, 0, &rules);
      fa = ferry_fs_rules_fold_name (&rules, rows[i].a);
      fb = ferry_fs_rules_fold_name (&rules, rows[i].b);
      g_test_message ("%s: %s / %s", kind_name (rows[i].kind), rows[i].a, rows[i].b);
      g_assert_cmpint (g_strcmp0 (fa, fb) == 0, ==, rows[i].collide);
      if (!rules.folds_case)
        g_assert_cmpstr (fa, ==, rows[i].a);
    }
}

/* ---------------------------------------------------- space and time */

static void
test_space_for (void)
{
  static const struct
  {
    guint64 cluster, size, expected;
  } rows[] = {
    { 4096, 0, 0 },
    { 4096, 1, 4096 },
    { 4096, 4096, 4096 },
    { 4096, 4097, 8192 },
    { 4096, 10 * MiB + 1, 10 * MiB + 4096 },
    { 131072, 0, 0 },
    { 131072, 1, 131072 },
    { 131072, 131072, 131072 },
    { 131072, 131073, 262144 },
    { 131072, 1000000, 1048576 },
    { 131072, G_MAXUINT64, G_MAXUINT64 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      FerryFsRules rules;

      ferry_fs_rules_for_kind (FERRY_FS_KIND_EXFAT, rows[i].cluster, &rules);
      g_assert_cmpuint (ferry_fs_rules_space_for (&rules, rows[i].size), ==, rows[i].expected);
    }
}

#define T     G_GINT64_CONSTANT (1000000000)
#define Y1975 G_GINT64_CONSTANT (157766400)
#define Y2150 G_GINT64_CONSTANT (5680281600)

static void
test_same_time (void)
{
  static const struct
  {
    FerryFsKind kind;
    struct timespec a, b;
    gboolean same;
  } rows[] = {
    /* FAT keeps even seconds, cutting down as Linux's vfat stores them
     * (T is even, in 2001). */
    { FERRY_FS_KIND_FAT, { T, 0 }, { T + 1, 999999999 }, TRUE },
    { FERRY_FS_KIND_FAT, { T, 5 }, { T, 0 }, TRUE },
    { FERRY_FS_KIND_FAT, { T + 1, 0 }, { T + 2, 0 }, FALSE },
    { FERRY_FS_KIND_FAT, { T - 1, 999999999 }, { T, 0 }, FALSE },
    { FERRY_FS_KIND_FAT, { T - 1, 0 }, { T - 2, 0 }, TRUE },
    /* Before 1980 and after 2107 FAT and exFAT store the nearest time
     * they can, a day inside: 1975 is stored as 1980-01-02, 2150 as
     * 2107-12-30; NTFS stores both. */
    { FERRY_FS_KIND_FAT, { Y1975, 0 }, { 315619200, 0 }, TRUE },
    { FERRY_FS_KIND_FAT, { Y2150, 0 }, { 4354646400, 0 }, TRUE },
    { FERRY_FS_KIND_FAT, { Y1975, 0 }, { 315619202, 0 }, FALSE },
    { FERRY_FS_KIND_EXFAT, { Y1975, 5 }, { 315619200, 0 }, TRUE },
    { FERRY_FS_KIND_EXFAT, { Y2150, 0 }, { 4354646400, 0 }, TRUE },
    { FERRY_FS_KIND_NTFS, { Y1975, 0 }, { 315619200, 0 }, FALSE },
    { FERRY_FS_KIND_OTHER, { -1, 0 }, { 0, 0 }, FALSE },
    { FERRY_FS_KIND_EXFAT, { T, 10000000 }, { T, 19999999 }, TRUE },
    { FERRY_FS_KIND_EXFAT, { T, 9999999 }, { T, 10000000 }, FALSE },
    { FERRY_FS_KIND_EXFAT, { T, 0 }, { T + 1, 0 }, FALSE },
    { FERRY_FS_KIND_NTFS, { 5, 100 }, { 5, 199 }, TRUE },
    { FERRY_FS_KIND_NTFS, { 5, 99 }, { 5, 100 }, FALSE },
    { FERRY_FS_KIND_OTHER, { 5, 1 }, { 5, 2 }, FALSE },
    { FERRY_FS_KIND_OTHER, { 5, 1 }, { 5, 1 }, TRUE },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      FerryFsRules rules;

      ferry_fs_rules_for_kind (rows[i].kind, 0, &rules);
      g_test_message ("row %" G_GSIZE_FORMAT, i);
      g_assert_cmpint (ferry_fs_rules_same_time (&rules, &rows[i].a, &rows[i].b), ==, rows[i].same);
      g_assert_cmpint (ferry_fs_rules_same_time (&rules, &rows[i].b, &rows[i].a), ==, rows[i].same);
    }
}

/* An ordinary folder: ext4 or whatever holds the scratch folder. */
static void
test_for_fd_other (void)
{
  g_autofree char *scratch = ferry_test_scratch_new ("fs-rules");
  FerryFsRules rules;
  int fd = open (scratch, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  ferry_fs_rules_for_fd (fd, &rules);
  close (fd);
  ferry_test_remove_tree (scratch);
  g_assert_cmpint (rules.kind, ==, FERRY_FS_KIND_OTHER);
  g_assert_cmpuint (rules.cluster_size, >=, 512);
  /* ext4, XFS, Btrfs, tmpfs: 255 bytes a name, and named for people. */
  g_assert_cmpuint (rules.max_name_bytes, ==, 255);
  g_assert_nonnull (rules.label);

  /* A descriptor that is not open: still an answer. */
  ferry_fs_rules_for_fd (-1, &rules);
  g_assert_cmpint (rules.kind, ==, FERRY_FS_KIND_OTHER);
  g_assert_cmpuint (rules.cluster_size, ==, 4096);
}

/* ------------------------------------------------- real images (root) */

/* One image: "@IMAGE@", "@DEVICE@" and "@MNT@" in the commands are
 * replaced by the image file, its loop device and the mount point. */
typedef struct
{
  const char *mkfs[10];
  const char *mount[8];
  FerryFsKind kind;
  guint64 cluster_size;
  gint64 time_granularity_ns;
} ImageCase;

static const ImageCase exfat_case = {
  { "mkfs.exfat", "-c", "128K", "-L", "FERRY", "@IMAGE@", NULL },
  { "mount.exfat-fuse", "@DEVICE@", "@MNT@", NULL },
  FERRY_FS_KIND_EXFAT, 131072,
  NSEC_PER_SEC, /* exfat-fuse keeps whole seconds */
};

static const ImageCase ntfs_case = {
  { "mkntfs", "-Q", "-F", "-c", "16384", "-L", "FERRY", "@IMAGE@", NULL },
  { "ntfs-3g", "@DEVICE@", "@MNT@", NULL },
  FERRY_FS_KIND_NTFS, 16384, 100,
};

/* fusefat names itself as the source: only its subtype tells FAT, and
 * its statfs does not tell the cluster size. */
static const ImageCase fat_case = {
  { "mkfs.vfat", "-F", "32", "-s", "16", "-n", "FERRY", "@IMAGE@", NULL },
  { "fusefat", "-o", "rw+", "@DEVICE@", "@MNT@", NULL },
  FERRY_FS_KIND_FAT, 4096, 2 * NSEC_PER_SEC,
};

/* With the device as its source, the boot sector gives the cluster. */
static const ImageCase fat_named_case = {
  { "mkfs.vfat", "-F", "32", "-s", "16", "-n", "FERRY", "@IMAGE@", NULL },
  { "fusefat", "-o", "rw+,fsname=@DEVICE@", "@DEVICE@", "@MNT@", NULL },
  FERRY_FS_KIND_FAT, 8192, 2 * NSEC_PER_SEC,
};

typedef struct
{
  char *scratch;
  char *image;
  char *mnt;
  char *device; /* "/dev/loop3" once attached */
  gboolean mounted;
} Trial;

static char *
expand (const char *arg, const Trial *trial)
{
  g_autoptr (GString) out = g_string_new (arg);

  g_string_replace (out, "@IMAGE@", trial->image, 0);
  g_string_replace (out, "@MNT@", trial->mnt, 0);
  if (trial->device != NULL)
    g_string_replace (out, "@DEVICE@", trial->device, 0);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* Runs @args (its tool looked for in the sbin folders too); its output
 * in *@out when asked. Output goes through files, not pipes: a FUSE
 * daemon may keep what it inherited open long after its starter ends. */
static gboolean
run (const char *const *args, const Trial *trial, char **out, GError **error)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_autoptr (GSubprocess) process = NULL;
  g_autofree char *out_path = g_build_filename (trial->scratch, "out.log", NULL);
  g_autofree char *err_path = g_build_filename (trial->scratch, "err.log", NULL);
  g_autofree char *err_text = NULL;

  g_ptr_array_add (argv, ferry_stick_sys_find_tool (args[0]));
  if (argv->pdata[0] == NULL)
    {
      g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT, "%s is not installed", args[0]);
      return FALSE;
    }
  for (guint i = 1; args[i] != NULL; i++)
    g_ptr_array_add (argv, expand (args[i], trial));
  g_ptr_array_add (argv, NULL);
  g_unlink (out_path);
  g_unlink (err_path);
  g_subprocess_launcher_set_stdout_file_path (launcher, out_path);
  g_subprocess_launcher_set_stderr_file_path (launcher, err_path);
  process = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv->pdata, error);
  if (process == NULL)
    return FALSE;
  if (!g_subprocess_wait_check (process, NULL, error))
    {
      g_file_get_contents (err_path, &err_text, NULL, NULL);
      g_prefix_error (error, "%s: %s: ", args[0], err_text != NULL ? g_strchomp (err_text) : "");
      return FALSE;
    }
  if (out != NULL)
    {
      if (!g_file_get_contents (out_path, out, NULL, error))
        return FALSE;
      g_strchomp (*out);
    }
  return TRUE;
}

static gboolean
trial_set_up (Trial *trial, const ImageCase *c, GError **error)
{
  static const char *const losetup[] = { "losetup", "-f", "--show", "@IMAGE@", NULL };
  int fd;

  fd = open (trial->image, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0 || ftruncate (fd, 300 * MiB) != 0)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "cannot make %s", trial->image);
      if (fd >= 0)
        close (fd);
      return FALSE;
    }
  close (fd);
  if (!run (c->mkfs, trial, NULL, error) || !run (losetup, trial, &trial->device, error))
    return FALSE;
  if (!run (c->mount, trial, NULL, error))
    return FALSE;
  trial->mounted = TRUE;
  return TRUE;
}

/* Always, whatever failed: unmount, detach, delete. */
static void
trial_tear_down (Trial *trial)
{
  static const char *const umount[] = { "umount", "@MNT@", NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) loops = NULL;

  for (guint tries = 0; trial->mounted && tries < 50; tries++)
    {
      g_clear_error (&error);
      if (run (umount, trial, NULL, &error))
        trial->mounted = FALSE;
      else
        g_usleep (100 * 1000);
    }
  if (trial->mounted)
    g_message ("could not unmount %s: %s", trial->mnt, error->message);
  g_clear_error (&error);
  /* By the image, not by what losetup printed, in case that went wrong. */
  loops = ferry_stick_sys_list_loops_backed_by (trial->image);
  for (guint i = 0; loops != NULL && i < loops->len; i++)
    {
      g_autofree char *device = g_strconcat ("/dev/", g_ptr_array_index (loops, i), NULL);
      const char *detach[] = { "losetup", "-d", device, NULL };

      g_clear_error (&error);
      if (!run (detach, trial, NULL, &error))
        g_message ("could not detach %s: %s", device, error->message);
    }
  ferry_test_remove_tree (trial->scratch);
  g_free (trial->scratch);
  g_free (trial->image);
  g_free (trial->mnt);
  g_free (trial->device);
}

static gboolean
can_make_images (const ImageCase *c)
{
  g_autofree char *mkfs = ferry_stick_sys_find_tool (c->mkfs[0]);
  g_autofree char *mount = ferry_stick_sys_find_tool (c->mount[0]);
  g_autofree char *losetup = ferry_stick_sys_find_tool ("losetup");
  g_autofree char *why = NULL;

  if (!ferry_test_is_root ())
    why = g_strdup ("making and mounting filesystem images needs root (CI runs as root)");
  else if (!g_file_test ("/dev/fuse", G_FILE_TEST_EXISTS)
           || !g_file_test ("/dev/loop-control", G_FILE_TEST_EXISTS))
    why = g_strdup ("this machine has no /dev/fuse or no loop devices");
  else if (mkfs == NULL || mount == NULL || losetup == NULL)
    why = g_strdup_printf ("%s, %s or losetup is not installed (build-aux/ferry-dev test installs them)",
                           c->mkfs[0], c->mount[0]);
  if (why != NULL)
    g_test_skip (why);
  return why == NULL;
}

static void
test_for_fd_image (gconstpointer data)
{
  const ImageCase *c = data;
  Trial trial = { NULL };
  g_autoptr (GError) error = NULL;
  FerryFsRules rules = { 0 };
  int fd;

  if (!can_make_images (c))
    return;
  trial.scratch = ferry_test_scratch_new ("fs-rules");
  trial.image = g_build_filename (trial.scratch, "disk.img", NULL);
  trial.mnt = g_build_filename (trial.scratch, "mnt", NULL);
  ferry_test_make_dirs (trial.mnt);
  if (trial_set_up (&trial, c, &error))
    {
      fd = open (trial.mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd >= 0)
        {
          ferry_fs_rules_for_fd (fd, &rules);
          close (fd);
        }
    }
  trial_tear_down (&trial);

  g_assert_no_error (error);
  g_assert_cmpstr (kind_name (rules.kind), ==, kind_name (c->kind));
  g_assert_cmpuint (rules.cluster_size, ==, c->cluster_size);
  g_assert_cmpint (rules.time_granularity_ns, ==, c->time_granularity_ns);
}

/* Which filesystem a job is bound to: the UUID decides where both have
 * one (a stick replugged as another device is the same; another stick
 * given the old device number is not), else the device number. */
static void
test_fs_id_same (void)
{
  const FerryFsId stick = { makedev (8, 17), (char *) "4E21-0A3B", (char *) "STICK" };
  const FerryFsId replugged = { makedev (8, 33), (char *) "4E21-0A3B", (char *) "STICK" };
  const FerryFsId other_stick = { makedev (8, 17), (char *) "9C0F-11D2", (char *) "OTHER" };
  const FerryFsId no_uuid = { makedev (0, 52), NULL, (char *) "share" };
  const FerryFsId no_uuid_again = { makedev (0, 52), NULL, NULL };
  const FerryFsId below = { makedev (254, 1), NULL, NULL };
  const FerryFsId unknown = { 0, NULL, NULL };

  g_assert_true (ferry_fs_id_same (&stick, &stick));
  g_assert_true (ferry_fs_id_same (&stick, &replugged));
  g_assert_false (ferry_fs_id_same (&stick, &other_stick));
  g_assert_true (ferry_fs_id_same (&no_uuid, &no_uuid_again));
  g_assert_false (ferry_fs_id_same (&stick, &below));
  g_assert_false (ferry_fs_id_same (&no_uuid, &below));
  g_assert_false (ferry_fs_id_same (&unknown, &unknown));
}

/* A path that no longer exists (a folder on a stick pulled out) is on
 * the filesystem of its nearest existing parent. */
static void
test_fs_id_of_missing_path (void)
{
  g_autofree char *scratch = ferry_test_scratch_new ("fs-id");
  g_auto (FerryFsId) here = { 0 };
  g_auto (FerryFsId) gone = { 0 };
  struct stat st;

  g_assert_cmpint (stat (scratch, &st), ==, 0);
  g_assert_true (ferry_fs_id_read_path (&here, scratch));
  g_assert_true (ferry_fs_id_read_path (&gone, ferry_test_path (scratch, "gone", "deeper", NULL)));
  g_assert_true (here.dev == st.st_dev);
  g_assert_true (ferry_fs_id_same (&here, &gone));
  ferry_test_remove_tree (scratch);
}

/* A filesystem without a label is named by the folder it is mounted on
 * ("STICK" for /media/me/STICK), but the root filesystem's "/" names
 * nothing: it has no name then, and a transfer cut short there says
 * "… is on the drive", not "… is on /". */
static void
test_fs_id_root_unnamed (void)
{
  g_auto (FerryFsId) root = { 0 };

  g_assert_true (ferry_fs_id_read_path (&root, "/"));
  g_test_message ("the root filesystem's name: %s", root.label ? root.label : "(none)");
  g_assert_cmpstr (root.label, !=, "/");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/fs-rules/kinds", test_kinds);
  g_test_add_func ("/fs-rules/names", test_names);
  g_test_add_func ("/fs-rules/long-names", test_long_names);
  g_test_add_func ("/fs-rules/long-name-keeps-extension", test_long_name_keeps_extension);
  g_test_add_func ("/fs-rules/long-names-in-bytes", test_long_names_in_bytes);
  g_test_add_func ("/fs-rules/adapt-always-passes", test_adapt_always_passes);
  g_test_add_func ("/fs-rules/fold", test_fold);
  g_test_add_func ("/fs-rules/space-for", test_space_for);
  g_test_add_func ("/fs-rules/same-time", test_same_time);
  g_test_add_func ("/fs-rules/for-fd/other", test_for_fd_other);
  g_test_add_func ("/fs-rules/fs-id/same", test_fs_id_same);
  g_test_add_func ("/fs-rules/fs-id/missing-path", test_fs_id_of_missing_path);
  g_test_add_func ("/fs-rules/fs-id/root-unnamed", test_fs_id_root_unnamed);
  g_test_add_data_func ("/fs-rules/for-fd/exfat", &exfat_case, test_for_fd_image);
  g_test_add_data_func ("/fs-rules/for-fd/ntfs", &ntfs_case, test_for_fd_image);
  g_test_add_data_func ("/fs-rules/for-fd/fat32-fusefat", &fat_case, test_for_fd_image);
  g_test_add_data_func ("/fs-rules/for-fd/fat32-fusefat-device", &fat_named_case, test_for_fd_image);

  return g_test_run ();
}
