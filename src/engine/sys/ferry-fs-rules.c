/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <linux/magic.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "ferry-block-facts.h"
#include "ferry-fs.h"
#include "ferry-fs-rules.h"

#ifndef EXFAT_SUPER_MAGIC
#define EXFAT_SUPER_MAGIC 0x2011BAB0
#endif
#ifndef NTFS_SB_MAGIC
#define NTFS_SB_MAGIC 0x5346544e   /* the old read-mostly ntfs driver */
#endif
#define NTFS3_SUPER_MAGIC 0x7366746e /* ntfs3 sets "ntfs", not NTFS_SB_MAGIC */

#define DEFAULT_CLUSTER_SIZE 4096
#define MAX_NAME_UTF16_UNITS 255
/* UTF-8 takes at most 3 bytes for a UTF-16 unit (4 for a pair). */
#define MAX_UTF8_BYTES_PER_UNIT 3
/* A longer "extension" is more likely part of the name: shortening keeps
 * at most this many UTF-16 units (or bytes, where names count bytes)
 * after the last dot. */
#define MAX_KEPT_EXTENSION_UNITS 16
#define NSEC_PER_SEC G_GINT64_CONSTANT (1000000000)

/* What each kind keeps. NTFS through ntfs-3g without its "permissions"
 * option (how desktops mount it) answers chmod and chown with success and
 * changes nothing (every file stays rwxrwxrwx root:root); symlink, mkfifo
 * and mknod succeed, but become Interix-style files and reparse points
 * Windows does not understand; xattrs become named streams. So only hard
 * links count as kept. The names Windows refuses (a:b, "dot.", CON) are
 * stored too, and Windows cannot open them afterwards. */
/* FAT and exFAT store a time as a local date from 1980 to 2107. The
 * kernel's drivers set the nearest they can store; through FUSE, fusefat
 * wrapped 1975 to 2103 and exfat-fuse 2150 to 2021. Ferry sets the
 * nearest itself, a day inside the range whatever the time zone. */
#define DOS_TIME_MIN_SEC G_GINT64_CONSTANT (315619200)  /* 1980-01-02 00:00 UTC */
#define DOS_TIME_MAX_SEC G_GINT64_CONSTANT (4354646400) /* 2107-12-30 00:00 UTC */

/* A FAT folder holds at most 65,536 entries of 32 bytes (Microsoft's
 * FAT specification; Linux's vfat answers ENOSPC past 2 MiB of folder,
 * FAT_MAX_DIR_SIZE), and a long name takes one more for each 13 of its
 * characters: 16,384 camera files named like IMG_20231005_143022.jpg.
 * exFAT's 256 MiB folders hold over 400,000 of the longest names. */
#define FAT_FOLDER_ENTRIES 65536

static const FerryFsRules kind_rules[] = {
  [FERRY_FS_KIND_OTHER] = {
    .kind = FERRY_FS_KIND_OTHER, .label = NULL, .max_file_size = G_MAXUINT64,
    .keeps_symlinks = TRUE, .keeps_hardlinks = TRUE, .keeps_special_files = TRUE,
    .keeps_owners = TRUE, .time_granularity_ns = 1,
  },
  [FERRY_FS_KIND_FAT] = {
    .kind = FERRY_FS_KIND_FAT, .label = "FAT32", .max_file_size = G_MAXUINT32,
    .folds_case = TRUE, .windows_names = TRUE, .utf16_names = TRUE,
    .time_granularity_ns = 2 * NSEC_PER_SEC,
    .time_min_sec = DOS_TIME_MIN_SEC, .time_max_sec = DOS_TIME_MAX_SEC,
    .folder_entries = FAT_FOLDER_ENTRIES,
  },
  [FERRY_FS_KIND_EXFAT] = {
    .kind = FERRY_FS_KIND_EXFAT, .label = "exFAT", .max_file_size = G_MAXUINT64,
    .folds_case = TRUE, .windows_names = TRUE, .utf16_names = TRUE,
    .time_granularity_ns = 10000000,
    .time_min_sec = DOS_TIME_MIN_SEC, .time_max_sec = DOS_TIME_MAX_SEC,
  },
  [FERRY_FS_KIND_NTFS] = {
    .kind = FERRY_FS_KIND_NTFS, .label = "NTFS", .max_file_size = G_MAXUINT64,
    .windows_names = TRUE, .utf16_names = TRUE, .keeps_hardlinks = TRUE,
    .time_granularity_ns = 100,
  },
};

void
ferry_fs_rules_for_kind (FerryFsKind kind, guint64 cluster_size, FerryFsRules *rules)
{
  g_return_if_fail (rules != NULL);

  if ((guint) kind >= G_N_ELEMENTS (kind_rules))
    kind = FERRY_FS_KIND_OTHER;
  *rules = kind_rules[kind];
  rules->cluster_size = cluster_size > 0 ? cluster_size : DEFAULT_CLUSTER_SIZE;
}

/* ------------------------------------------------------------- names */

static gboolean
is_forbidden_char (gunichar c)
{
  return (c > 0 && c < 0x20) || (c < 0x80 && strchr ("\"*/:<>?\\|", (int) c) != NULL);
}

static gboolean
is_trailing_char (char c)
{
  return c == '.' || c == ' ';
}

/* Windows' device names, matched on the part before the first dot
 * ("con.tar.gz" too). Microsoft's list also has COM and LPT with the
 * superscript digits ¹ ² ³, which Windows parses as digits. */
static gboolean
is_reserved_name (const char *name)
{
  static const char *const three[] = { "CON", "PRN", "AUX", "NUL" };
  static const char *const superscripts[] = { "\xc2\xb9", "\xc2\xb2", "\xc2\xb3" };
  gsize len = strcspn (name, ".");

  if (len == 3)
    {
      for (gsize i = 0; i < G_N_ELEMENTS (three); i++)
        if (g_ascii_strncasecmp (name, three[i], 3) == 0)
          return TRUE;
      return FALSE;
    }
  if (len < 4 || len > 5
      || (g_ascii_strncasecmp (name, "COM", 3) != 0 && g_ascii_strncasecmp (name, "LPT", 3) != 0))
    return FALSE;
  if (len == 4)
    return name[3] >= '1' && name[3] <= '9';
  for (gsize i = 0; i < G_N_ELEMENTS (superscripts); i++)
    if (strncmp (name + 3, superscripts[i], 2) == 0)
      return TRUE;
  return FALSE;
}

/* @len bytes of valid UTF-8, counted as Windows stores them: characters
 * beyond the Basic Multilingual Plane take a surrogate pair. */
static gsize
utf16_units (const char *text, gsize len)
{
  gsize units = 0;

  for (const char *p = text; p < text + len; p = g_utf8_next_char (p))
    units += g_utf8_get_char (p) > 0xFFFF ? 2 : 1;
  return units;
}

FerryNameProblem
ferry_fs_rules_check_name (const FerryFsRules *rules, const char *name)
{
  gsize len;

  g_return_val_if_fail (rules != NULL && name != NULL, FERRY_NAME_OK);

  len = strlen (name);
  if (rules->utf16_names && !g_utf8_validate (name, len, NULL))
    return FERRY_NAME_NOT_UTF8;
  if (rules->windows_names)
    {
      for (const char *p = name; *p != '\0'; p++)
        if (is_forbidden_char ((guchar) *p))
          return FERRY_NAME_FORBIDDEN_CHARACTERS;
      if (len > 0 && is_trailing_char (name[len - 1]))
        return FERRY_NAME_TRAILING_DOT_OR_SPACE;
      if (is_reserved_name (name))
        return FERRY_NAME_RESERVED;
    }
  if (rules->utf16_names && utf16_units (name, len) > MAX_NAME_UTF16_UNITS)
    return FERRY_NAME_TOO_LONG;
  if (rules->max_name_bytes > 0 && len > rules->max_name_bytes)
    return FERRY_NAME_TOO_LONG;
  return FERRY_NAME_OK;
}

/* Forbidden printable characters become their full-width look-alikes
 * (U+FF01..U+FF5E mirror ASCII 0x21..0x7E), so "a:b" still reads a:b;
 * control characters and bytes that are not UTF-8 become "_". */
static void
append_storable_chars (const FerryFsRules *rules, const char *name, GString *out)
{
  const char *end = name + strlen (name);

  for (const char *p = name; p < end;)
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          if (rules->utf16_names)
            g_string_append_c (out, '_');
          else
            g_string_append_c (out, *p);
          p++;
          continue;
        }
      if (rules->windows_names && c < 0x20)
        g_string_append_c (out, '_');
      else if (rules->windows_names && is_forbidden_char (c))
        g_string_append_unichar (out, c + 0xFEE0);
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
      p = g_utf8_next_char (p);
    }
}

static void
strip_trailing (GString *name)
{
  while (name->len > 0 && is_trailing_char (name->str[name->len - 1]))
    g_string_truncate (name, name->len - 1);
  if (name->len == 0)
    g_string_append_c (name, '_');
}

/* The bytes of the longest start of @text (valid UTF-8, @len bytes) that
 * fits in @max_units UTF-16 units, never cutting a character. */
static gsize
prefix_within_units (const char *text, gsize len, gsize max_units)
{
  gsize units = 0;
  const char *p = text;

  while (p < text + len)
    {
      gsize char_units = g_utf8_get_char (p) > 0xFFFF ? 2 : 1;

      if (units + char_units > max_units)
        break;
      units += char_units;
      p = g_utf8_next_char (p);
    }
  return p - text;
}

/* The same in bytes: UTF-8 is cut between characters, any other name
 * (Latin-1 from an old stick) where it must. */
static gsize
prefix_within_bytes (const char *text, gsize len, gsize max_bytes)
{
  if (len <= max_bytes)
    return len;
  if (!g_utf8_validate_len (text, len, NULL))
    return max_bytes;
  while (max_bytes > 0 && ((guchar) text[max_bytes] & 0xC0) == 0x80)
    max_bytes--;
  return max_bytes;
}

/* How a limit counts a name: FAT, exFAT and NTFS in UTF-16 units,
 * ext4 and the like in bytes. */
typedef struct
{
  gboolean in_bytes;
  gsize max;
} NameLimit;

static gsize
length_in (const NameLimit *limit, const char *text, gsize len)
{
  return limit->in_bytes ? len : utf16_units (text, len);
}

static gsize
prefix_within (const NameLimit *limit, const char *text, gsize len, gsize max)
{
  return limit->in_bytes ? prefix_within_bytes (text, len, max)
                         : prefix_within_units (text, len, max);
}

/* Shortens @name (valid UTF-8 where @limit counts UTF-16 units) to
 * @limit, keeping a short extension so the file still opens with the
 * same program. */
static void
shorten (GString *name, const NameLimit *limit)
{
  const char *dot = strrchr (name->str, '.');
  gsize ext_len = 0;
  gsize ext_length = 0;
  gsize stem_len;
  g_autofree char *ext = NULL;

  if (length_in (limit, name->str, name->len) <= limit->max)
    return;
  if (dot != NULL && dot != name->str)
    {
      ext_len = name->len - (dot - name->str);
      ext_length = length_in (limit, dot, ext_len);
      if (ext_length > MAX_KEPT_EXTENSION_UNITS || ext_length >= limit->max)
        ext_len = ext_length = 0;
    }
  ext = g_strdup (name->str + name->len - ext_len);
  stem_len = prefix_within (limit, name->str, name->len - ext_len, limit->max - ext_length);
  g_string_truncate (name, stem_len);
  /* A stem cut before a dot or a space would leave "name .txt" or, with
   * no extension, a trailing dot. */
  while (name->len > 1 && is_trailing_char (name->str[name->len - 1]))
    g_string_truncate (name, name->len - 1);
  g_string_append (name, ext);
}

char *
ferry_fs_rules_adapt_name (const FerryFsRules *rules, const char *name)
{
  g_autoptr (GString) out = NULL;

  g_return_val_if_fail (rules != NULL && name != NULL, NULL);

  if (ferry_fs_rules_check_name (rules, name) == FERRY_NAME_OK)
    return g_strdup (name);

  out = g_string_sized_new (strlen (name) + 8);
  append_storable_chars (rules, name, out);
  if (rules->windows_names)
    {
      strip_trailing (out);
      /* "CON.txt" → "CON_.txt": the device name is the part before the dot. */
      if (is_reserved_name (out->str))
        g_string_insert_c (out, strcspn (out->str, "."), '_');
    }
  if (rules->utf16_names)
    shorten (out, &(NameLimit){ FALSE, MAX_NAME_UTF16_UNITS });
  if (rules->max_name_bytes > 0)
    shorten (out, &(NameLimit){ TRUE, rules->max_name_bytes });
  if (rules->windows_names)
    strip_trailing (out);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* exFAT compares names through its up-case table, which maps each UTF-16
 * unit to one unit (so É and é collide, but ß and SS do not, and
 * characters beyond the BMP are left alone). Windows' FAT driver folds the
 * same way. g_utf8_casefold() would fold too much: "ß" to "ss". */
char *
ferry_fs_rules_fold_name (const FerryFsRules *rules, const char *name)
{
  g_autoptr (GString) out = NULL;
  g_autofree char *valid = NULL;

  g_return_val_if_fail (rules != NULL && name != NULL, NULL);

  if (!rules->folds_case)
    return g_strdup (name);

  valid = g_utf8_make_valid (name, -1);
  out = g_string_sized_new (strlen (valid));
  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      g_string_append_unichar (out, c <= 0xFFFF ? g_unichar_toupper (c) : c);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* ------------------------------------------------------- space, time */

/* A directory entry on FAT and exFAT takes 32 bytes, plus one more for
 * each 15 (exFAT) or 13 (FAT) UTF-16 units of its name; 3 + len / 13
 * covers both. */
#define DIR_ENTRY_BYTES      32
#define NAME_UNITS_PER_ENTRY 13
/* Every file and folder on NTFS has a record of 1 KiB in the $MFT, and
 * an entry in its folder's index: 16 bytes, a $FILE_NAME of 66 bytes
 * and two a UTF-16 unit, to 8 bytes. Index blocks fill about half
 * before they split: counted three times, the entries cover what
 * ntfs-3g used (1,000 files of 3,000 bytes: 1,253 bytes a file beyond
 * their clusters with 4-unit names, 1,446 with 67; 5,000 of them:
 * 1,219). */
#define NTFS_RECORD_BYTES      1024
#define NTFS_INDEX_ENTRY_BYTES (16 + 66)
#define NTFS_INDEX_COPIES      3
/* ntfs-3g keeps a file's data inside its record while it fits: up to
 * 650 bytes with a 4-unit name, 200 with a 203-unit one (checked by
 * stat's blocks), about 668 less two bytes a unit; a margin below. */
#define NTFS_RESIDENT_BYTES 640

/**
 * ferry_fs_rules_entry_space:
 * @name_units: the length of the entry's name in UTF-16 units
 *
 * Returns: the room an entry takes besides its data: its place in its
 *   folder, and on NTFS its record.
 */
guint64
ferry_fs_rules_entry_space (const FerryFsRules *rules, guint64 name_units)
{
  g_return_val_if_fail (rules != NULL, 0);
  if (rules->kind == FERRY_FS_KIND_NTFS)
    return NTFS_RECORD_BYTES
           + NTFS_INDEX_COPIES * ((NTFS_INDEX_ENTRY_BYTES + 2 * name_units + 7) & ~(guint64) 7);
  return DIR_ENTRY_BYTES * (3 + name_units / NAME_UNITS_PER_ENTRY);
}

/**
 * ferry_fs_rules_file_space:
 * Returns: the room a regular file of @size named with @name_units
 *   UTF-16 units takes: its entry, and its data in whole clusters
 *   unless NTFS keeps it in the file's record.
 */
guint64
ferry_fs_rules_file_space (const FerryFsRules *rules, guint64 size, guint64 name_units)
{
  guint64 entry = ferry_fs_rules_entry_space (rules, name_units);

  if (rules->kind == FERRY_FS_KIND_NTFS && size + 2 * name_units <= NTFS_RESIDENT_BYTES)
    return entry;
  return entry + MIN (ferry_fs_rules_space_for (rules, size), G_MAXUINT64 - entry);
}

/* A short name FAT stores in one entry: 1 to 8 characters, a dot and 1
 * to 3 more, in capitals, digits and the few signs it allows; any other
 * name (small letters too: Linux's vfat keeps them in a long name) has
 * a long name beside it. */
static gboolean
is_fat_short_name (const char *name)
{
  const char *dot = strchr (name, '.');
  gsize base = dot != NULL ? (gsize) (dot - name) : strlen (name);
  gsize extension = dot != NULL ? strlen (dot + 1) : 0;

  if (base < 1 || base > 8 || (dot != NULL && (extension < 1 || extension > 3)))
    return FALSE;
  for (const char *c = name; *c != '\0'; c++)
    if (c != dot && !g_ascii_isupper (*c) && !g_ascii_isdigit (*c)
        && strchr ("!#$%&'()-@^_`{}~", *c) == NULL)
      return FALSE;
  return TRUE;
}

/**
 * ferry_fs_rules_fat_entries:
 * Returns: the entries @name takes in a FAT folder: its own, and for a
 *   long name one more for each 13 UTF-16 units of it.
 */
guint
ferry_fs_rules_fat_entries (const char *name)
{
  glong units = 0;
  g_autofree gunichar2 *utf16 = NULL;

  if (is_fat_short_name (name))
    return 1;
  utf16 = g_utf8_to_utf16 (name, -1, NULL, &units, NULL);
  return 1 + (guint) (units + NAME_UNITS_PER_ENTRY - 1) / NAME_UNITS_PER_ENTRY;
}

guint64
ferry_fs_rules_space_for (const FerryFsRules *rules, guint64 size)
{
  guint64 cluster;
  guint64 clusters;

  g_return_val_if_fail (rules != NULL, size);

  cluster = rules->cluster_size > 0 ? rules->cluster_size : DEFAULT_CLUSTER_SIZE;
  clusters = size / cluster + (size % cluster != 0);
  if (clusters > G_MAXUINT64 / cluster)
    return G_MAXUINT64;
  return clusters * cluster;
}

static gint64
floor_div (gint64 a, gint64 b)
{
  gint64 q = a / b;

  if (a % b != 0 && (a < 0) != (b < 0))
    q--;
  return q;
}

/**
 * ferry_fs_rules_clamp_time:
 * @time, moved into the range of times the drive stores where it lies
 * outside (a file of 1975 goes to FAT as of 1980); else unchanged.
 */
void
ferry_fs_rules_clamp_time (const FerryFsRules *rules, struct timespec *time)
{
  g_return_if_fail (rules != NULL && time != NULL);

  if (rules->time_min_sec == 0 && rules->time_max_sec == 0)
    return;
  if (time->tv_sec < rules->time_min_sec)
    *time = (struct timespec){ rules->time_min_sec, 0 };
  else if (time->tv_sec > rules->time_max_sec)
    *time = (struct timespec){ rules->time_max_sec, 0 };
}

/* Both times as the filesystem would store them: inside its range, cut
 * down to its granularity, which either divides a second (exFAT, NTFS)
 * or is whole seconds (FAT's 2 s, which Linux's vfat gets by clearing
 * the lowest bit of the seconds). Cutting down, not rounding, is what
 * the drivers do. */
gboolean
ferry_fs_rules_same_time (const FerryFsRules *rules,
                          const struct timespec *time_a,
                          const struct timespec *time_b)
{
  struct timespec stored_a, stored_b, *a = &stored_a, *b = &stored_b;
  gint64 granularity;

  g_return_val_if_fail (rules != NULL && time_a != NULL && time_b != NULL, FALSE);

  stored_a = *time_a;
  stored_b = *time_b;
  ferry_fs_rules_clamp_time (rules, a);
  ferry_fs_rules_clamp_time (rules, b);
  granularity = MAX (rules->time_granularity_ns, 1);
  if (granularity >= NSEC_PER_SEC)
    {
      gint64 seconds = granularity / NSEC_PER_SEC;

      return floor_div (a->tv_sec, seconds) == floor_div (b->tv_sec, seconds);
    }
  return a->tv_sec == b->tv_sec && a->tv_nsec / granularity == b->tv_nsec / granularity;
}

/* --------------------------------------------------------- detection */

static FerryFsKind
kind_from_magic (unsigned long magic)
{
  switch (magic)
    {
    case MSDOS_SUPER_MAGIC:
      return FERRY_FS_KIND_FAT;
    case EXFAT_SUPER_MAGIC:
      return FERRY_FS_KIND_EXFAT;
    case NTFS_SB_MAGIC:
    case NTFS3_SUPER_MAGIC:
      return FERRY_FS_KIND_NTFS;
    default:
      return FERRY_FS_KIND_OTHER;
    }
}

/* A blkid or udev TYPE ("vfat"), or a FUSE mount's subtype
 * ("fuse.ntfs-3g" mounts of an image file, "fuse.fusefat"). */
static FerryFsKind
kind_from_type_name (const char *type)
{
  static const struct { const char *name; FerryFsKind kind; } names[] = {
    { "vfat", FERRY_FS_KIND_FAT },     { "msdos", FERRY_FS_KIND_FAT },
    { "fusefat", FERRY_FS_KIND_FAT },  { "exfat", FERRY_FS_KIND_EXFAT },
    { "exfat-fuse", FERRY_FS_KIND_EXFAT }, { "ntfs", FERRY_FS_KIND_NTFS },
    { "ntfs3", FERRY_FS_KIND_NTFS },   { "ntfs-3g", FERRY_FS_KIND_NTFS },
    { "lowntfs-3g", FERRY_FS_KIND_NTFS },
  };

  if (type == NULL)
    return FERRY_FS_KIND_OTHER;
  if (g_str_has_prefix (type, "fuseblk."))
    type += strlen ("fuseblk.");
  else if (g_str_has_prefix (type, "fuse."))
    type += strlen ("fuse.");
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_ascii_strcasecmp (type, names[i].name) == 0)
      return names[i].kind;
  return FERRY_FS_KIND_OTHER;
}

/* A FUSE mount is known by its subtype or by the filesystem on the block
 * device beneath it. exfat-fuse and ntfs-3g report the cluster size as
 * statfs' f_bsize (checked: mkfs.exfat -c 128K gives 131072, mkntfs
 * -c 16384 gives 16384), so *@cluster_size stays, except for FAT. */
static FerryFsKind
kind_of_fuse_mount (int dir_fd, guint64 *cluster_size, guint *top_folder_entries)
{
  g_autofree char *fstype = NULL;
  g_autofree char *source = NULL;
  g_auto (FerryBlockFacts) facts = { 0 };
  FerryFsKind kind;
  struct stat st;

  if (fstat (dir_fd, &st) != 0 || !ferry_fs_find_mount (st.st_dev, &fstype, &source))
    return FERRY_FS_KIND_OTHER;
  kind = kind_from_type_name (fstype);
  ferry_block_facts_read (&facts, st.st_dev, source);
  if (kind == FERRY_FS_KIND_OTHER)
    kind = kind_from_type_name (facts.type);
  if (kind == FERRY_FS_KIND_FAT)
    {
      *cluster_size = facts.fat_cluster > 0 ? facts.fat_cluster : DEFAULT_CLUSTER_SIZE;
      *top_folder_entries = facts.fat_root_entries;
    }
  return kind;
}

/* The kernel's vfat does not say whether it is FAT16, whose top folder
 * has a fixed room: its boot sector does, where the device can be read. */
static guint
top_folder_entries_of_vfat (int dir_fd)
{
  g_auto (FerryBlockFacts) facts = { 0 };
  struct stat st;

  if (fstat (dir_fd, &st) != 0)
    return 0;
  ferry_block_facts_read (&facts, st.st_dev, NULL);
  return facts.fat_root_entries;
}

static guint64
sane_cluster_size (long f_bsize)
{
  /* exFAT allows clusters up to 32 MiB. */
  if (f_bsize < 512 || f_bsize > 32 * 1024 * 1024 || (f_bsize & (f_bsize - 1)) != 0)
    return DEFAULT_CLUSTER_SIZE;
  return f_bsize;
}

/* How people know the filesystems whose names count bytes, for "2 items
 * cannot be stored on this ext4 drive": ext2 and ext3 share ext4's
 * magic, and are mounted by ext4's driver. Another is named as the mount
 * table types it. */
static const char *
label_of_other (unsigned long magic, int dir_fd)
{
  static const struct { unsigned long magic; const char *label; } labels[] = {
    { EXT4_SUPER_MAGIC, "ext4" }, { XFS_SUPER_MAGIC, "XFS" }, { BTRFS_SUPER_MAGIC, "Btrfs" },
    { TMPFS_MAGIC, "tmpfs" },     { F2FS_SUPER_MAGIC, "F2FS" },
  };
  g_autofree char *fstype = NULL;
  struct stat st;

  for (gsize i = 0; i < G_N_ELEMENTS (labels); i++)
    if (labels[i].magic == magic)
      return labels[i].label;
  if (fstat (dir_fd, &st) != 0 || !ferry_fs_find_mount (st.st_dev, &fstype, NULL))
    return "Linux";
  return g_intern_string (g_str_has_prefix (fstype, "fuse.") ? fstype + strlen ("fuse.") : fstype);
}

/* Kernel drivers (vfat, exfat, ntfs3) report their cluster size as
 * statfs' f_bsize, and their own magic number; FUSE ones need a look at
 * the mount table and the device. */
void
ferry_fs_rules_for_fd (int dir_fd, FerryFsRules *rules)
{
  struct statfs sfs;
  FerryFsKind kind;
  guint64 cluster_size;
  guint top_folder_entries = 0;

  g_return_if_fail (rules != NULL);

  if (fstatfs (dir_fd, &sfs) != 0)
    {
      ferry_fs_rules_for_kind (FERRY_FS_KIND_OTHER, DEFAULT_CLUSTER_SIZE, rules);
      return;
    }
  cluster_size = sane_cluster_size (sfs.f_bsize);
  if (sfs.f_type == FUSE_SUPER_MAGIC)
    kind = kind_of_fuse_mount (dir_fd, &cluster_size, &top_folder_entries);
  else if ((kind = kind_from_magic (sfs.f_type)) == FERRY_FS_KIND_FAT)
    top_folder_entries = top_folder_entries_of_vfat (dir_fd);
  ferry_fs_rules_for_kind (kind, cluster_size, rules);
  rules->top_folder_entries = top_folder_entries;
  /* exfat-fuse writes whole seconds only (touch -d 00:00:01.123 reads
   * back 00:00:01.000), though exFAT could keep 10 ms. */
  if (sfs.f_type == FUSE_SUPER_MAGIC && kind == FERRY_FS_KIND_EXFAT)
    rules->time_granularity_ns = NSEC_PER_SEC;
  /* ext4, XFS, Btrfs and tmpfs take 255 bytes a name, where exFAT takes
   * 255 characters: 200 "é" and ".txt" are 404 bytes. */
  if (kind == FERRY_FS_KIND_OTHER && sfs.f_namelen > 0 && (guint64) sfs.f_namelen < G_MAXUINT)
    {
      rules->max_name_bytes = (guint) sfs.f_namelen;
      rules->label = label_of_other (sfs.f_type, dir_fd);
    }
}

/**
 * ferry_fs_rules_longest_name_at:
 * Returns: the bytes a name may take on the filesystem of @fd (which may
 *   be an O_PATH descriptor): statfs' f_namelen, but on FAT, exFAT and
 *   NTFS the UTF-8 of 255 UTF-16 units, 765 bytes (exfat-fuse and
 *   ntfs-3g say 255); 0 when it cannot be told.
 */
guint
ferry_fs_rules_longest_name_at (int fd)
{
  struct statfs sfs;
  guint64 cluster_size = 0;
  guint top_folder_entries = 0;
  FerryFsKind kind;

  if (fstatfs (fd, &sfs) != 0 || sfs.f_namelen <= 0)
    return 0;
  kind = sfs.f_type == FUSE_SUPER_MAGIC
             ? kind_of_fuse_mount (fd, &cluster_size, &top_folder_entries)
             : kind_from_magic (sfs.f_type);
  if (kind != FERRY_FS_KIND_OTHER)
    return MAX ((guint) sfs.f_namelen, MAX_NAME_UTF16_UNITS * MAX_UTF8_BYTES_PER_UNIT);
  return (guint) MIN ((guint64) sfs.f_namelen, G_MAXUINT);
}
