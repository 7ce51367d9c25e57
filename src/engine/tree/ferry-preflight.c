/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <string.h>
#include <unistd.h>

#include "ferry-conflicts.h"
#include "ferry-continue.h"
#include "ferry-error.h"
#include "ferry-format.h"
#include "ferry-free-name.h"
#include "ferry-fs.h"
#include "ferry-preflight.h"
#include "ferry-temp-file.h"
#include "ferry-temp-folder.h"
#include "ferry-tree-size.h"
#include "ferry-unsupported-private.h"

#define LISTING_BUFFER_SIZE (64 * 1024)

/**
 * FerryPreflight:
 * Walks the sources before anything is written, when the destination's
 * filesystem has rules (FAT32, exFAT, NTFS; elsewhere, names longer than
 * it takes: see ferry_preflight_set_names_only()): every entry it cannot store
 * as it is (a name it forbids, two names it sees as one, a file too
 * large, a link or special file it cannot hold) becomes one
 * FerryUnsupportedItem, with the name it would get when adapted; and the
 * space the copy takes is counted the drive's way, each file rounded up
 * to whole clusters and each folder's entries counted. Temporary files
 * a killed run left in the destination folders are found too: the copy
 * removes them first, so their space counts as free.
 */
struct _FerryPreflight
{
  FerryFsRules rules;
  GCancellable *cancellable;
  GArray *roots;       /* QueuedRoot, walked by ferry_preflight_walk() */
  gboolean names_only; /* only names can be wrong: see ferry_preflight_set_names_only() */
  GPtrArray *items;    /* FerryUnsupportedItem */
  GPtrArray *findings; /* Finding, one per item */
  GHashTable *inodes;  /* files with several names seen: FerryInodeKey */
  guint64 needed;
  GHashTable *top_existing; /* the destination folder's names, shared by the roots */
  GHashTable *top_used;
  GPtrArray *stale_temps; /* paths below the destination: files and hidden folders */
  guint64 reclaimable;    /* the space they hold, and files under the copies' names */
  gboolean resuming;
  FerryConflictPolicy conflict_policy; /* for files already under the copies' names */
  FerryPreflightExisting existing;
  /* On FAT, whose folders hold a bounded number of entries: those the
   * destination folder (shared by the roots) will hold, there already
   * and added by the copy, against top_limit (0: not counted), which is
   * rules.top_folder_entries where it is the fixed top folder of a FAT12
   * or FAT16 drive; and the first folder below that would hold more
   * than rules.folder_entries. */
  guint top_limit;
  gboolean top_is_fat_root;
  guint64 top_entries;
  char *crowded_relpath;
  guint64 crowded_entries;
};

typedef struct
{
  char *src_path;
  FerryAdaptKind adapt; /* what "Adapt" does with it */
  char *dst_name;       /* its copy's name when adapted */
} Finding;

/* One destination folder's names, compared the drive's way. */
typedef struct
{
  GHashTable *existing; /* folded → the name on the drive */
  GHashTable *used;     /* folded names this copy gives there */
  const FerryFsRules *rules;
} Names;

/* A source folder being walked, and its copy if it exists already. */
typedef struct
{
  int src_fd;
  const char *src_path;
  int dst_fd; /* -1: nothing there yet */
  const char *dst_relpath;
  Names names;
  guint64 entries; /* on FAT: the entries it will hold (see count_entry()) */
} Folder;

/* An entry of a source folder, as its listing gives it. */
typedef struct
{
  char *name;
  unsigned char type; /* d_type: DT_UNKNOWN where the filesystem does not say */
} Listed;

/* A source, its name claimed in the destination folder before any is
 * walked. */
typedef struct
{
  FerryTreeRoot root;
  gboolean walked;  /* FALSE: its names are claimed, nothing below them looked at */
  GArray *listing;  /* Listed: its source folder's entries, for a copy named "."; else itself */
  GPtrArray *kept;  /* the names claimed for them (see claim_kept_names()) */
} QueuedRoot;

static void walk_folder (FerryPreflight *self, Folder *folder);

static void
listed_clear (gpointer data)
{
  g_free (((Listed *) data)->name);
}

static void
queued_root_clear (gpointer data)
{
  QueuedRoot *queued = data;

  g_clear_pointer (&queued->listing, g_array_unref);
  g_clear_pointer (&queued->kept, g_ptr_array_unref);
}

static void
finding_free (gpointer data)
{
  Finding *finding = data;

  g_free (finding->src_path);
  g_free (finding->dst_name);
  g_free (finding);
}

/* folded → name */
static GHashTable *
new_name_map (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

static GHashTable *
new_name_set (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

FerryPreflight *
ferry_preflight_new (const FerryFsRules *rules, GCancellable *cancellable)
{
  FerryPreflight *self = g_new0 (FerryPreflight, 1);

  self->rules = *rules;
  self->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  self->roots = g_array_new (FALSE, TRUE, sizeof (QueuedRoot));
  g_array_set_clear_func (self->roots, queued_root_clear);
  self->items = g_ptr_array_new_with_free_func ((GDestroyNotify) ferry_unsupported_item_free);
  self->findings = g_ptr_array_new_with_free_func (finding_free);
  self->inodes = g_hash_table_new_full (ferry_inode_key_hash, ferry_inode_key_equal, g_free, NULL);
  self->top_existing = new_name_map ();
  self->top_used = new_name_set ();
  self->stale_temps = g_ptr_array_new_with_free_func (g_free);
  return self;
}

void
ferry_preflight_free (FerryPreflight *self)
{
  g_clear_object (&self->cancellable);
  g_array_unref (self->roots);
  g_ptr_array_unref (self->items);
  g_ptr_array_unref (self->findings);
  g_hash_table_unref (self->inodes);
  g_hash_table_unref (self->top_existing);
  g_hash_table_unref (self->top_used);
  g_ptr_array_unref (self->stale_temps);
  g_free (self->crowded_relpath);
  g_free (self->existing.first);
  g_free (self);
}

/* As FerryDirNode joins them, so the copy finds the same keys ("." adds
 * nothing). */
static char *
join (const char *parent, const char *name)
{
  gsize len = strlen (parent);

  if (strcmp (name, ".") == 0)
    return g_strdup (parent);
  if (len == 0 || parent[len - 1] == '/')
    return g_strconcat (parent, name, NULL);
  return g_strconcat (parent, "/", name, NULL);
}

/* ------------------------------------------------------------------ */
/* Names                                                               */

/* The names in the folder @dir_fd: an empty list when it cannot be
 * read, which the copy will report. */
static GPtrArray *
list_names (int dir_fd)
{
  return ferry_dir_list_names (dir_fd, LISTING_BUFFER_SIZE);
}

static int
compare_listed (gconstpointer a, gconstpointer b)
{
  return strcmp (((const Listed *) a)->name, ((const Listed *) b)->name);
}

/* The entries of the folder @dir_fd with what the listing says they
 * are, in name order, so the report reads the same every time: none
 * when it cannot be read, which the copy will report. */
static GArray *
list_entries (int dir_fd)
{
  GArray *listing = g_array_new (FALSE, FALSE, sizeof (Listed));
  ferry_autofd fd = dir_fd >= 0 ? openat (dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
  FerryDirReader reader;
  Listed entry;
  const char *name;
  int errsv;

  g_array_set_clear_func (listing, listed_clear);
  if (fd < 0)
    return listing;
  ferry_dir_reader_init (&reader, fd, LISTING_BUFFER_SIZE);
  while (ferry_dir_reader_next (&reader, &name, &entry.type, &errsv))
    {
      entry.name = g_strdup (name);
      g_array_append_val (listing, entry);
    }
  ferry_dir_reader_clear (&reader);
  g_array_sort (listing, compare_listed);
  return listing;
}

/* A temporary file a killed run left, which the copy will remove. */
static void
note_if_stale (FerryPreflight *self, const Folder *folder, const char *name)
{
  struct stat st;
  ferry_autofd fd = ferry_temp_file_claim_stale (folder->dst_fd, name, &st);

  if (fd < 0)
    return;
  g_ptr_array_add (self->stale_temps, join (folder->dst_relpath, name));
  self->reclaimable += ferry_fs_rules_space_for (&self->rules, st.st_size);
}

/* A hidden folder a killed run left (a new folder built whole, on a disk
 * fast by its class), which the copy will remove with all it holds: on a
 * disk near full it may hold most of what the copy needs again. */
static void
note_if_stale_folder (FerryPreflight *self, const Folder *folder, const char *name)
{
  ferry_autofd fd = ferry_temp_folder_claim_stale (folder->dst_fd, name);
  FerryTreeTotals held = { 0 };

  if (fd < 0)
    return;
  ferry_tree_measure_at (fd, ".", &held, self->cancellable);
  g_ptr_array_add (self->stale_temps, join (folder->dst_relpath, name));
  self->reclaimable += held.needed;
}

/* Reads what the destination folder holds already. */
static void
load_destination (FerryPreflight *self, Folder *folder)
{
  g_autoptr (GPtrArray) there = list_names (folder->dst_fd);
  Names *names = &folder->names;

  for (guint i = 0; i < there->len; i++)
    {
      const char *name = g_ptr_array_index (there, i);
      g_hash_table_replace (names->existing, ferry_fs_rules_fold_name (names->rules, name),
                            g_strdup (name));
      if (ferry_temp_name_parse (name, NULL))
        note_if_stale (self, folder, name);
      else if (ferry_temp_name_parse_folder (name, NULL))
        note_if_stale_folder (self, folder, name);
    }
}

/* Whether a "name (2).ext" is taken: by another entry of this copy, or
 * by one on the drive spelled otherwise (the drive takes them for one).
 * One on the drive spelled exactly so is no reason for the next number:
 * the copy meets it as it meets "name.ext" there, as a conflict settled
 * as the job says, and a run that continues one cut short carries the
 * earlier run's copy. Before, each run took the next number: copied
 * again, a folder with README.txt and readme.txt got "readme (3).txt"
 * beside "readme (2).txt". */
static gboolean
name_taken (const char *name, gpointer user_data)
{
  Names *names = user_data;
  g_autofree char *folded = ferry_fs_rules_fold_name (names->rules, name);
  const char *there = g_hash_table_lookup (names->existing, folded);

  return g_hash_table_contains (names->used, folded) || (there != NULL && strcmp (there, name) != 0);
}

/* Gives @name a place among the folder's names. A name the drive sees
 * as that of an entry on it is an ordinary conflict, settled as the job
 * says, spelled alike or not: "Photos" copied where "photos" is merges
 * into it, as it would were it spelled alike (before, the copy was
 * refused, or became "Photos (2)"). Two names the copy gives that the
 * drive sees as the same (README.txt beside readme.txt) are a
 * collision: the second gets "name (2).ext". */
static char *
names_claim (Names *names, const char *name, gboolean is_dir, gboolean *collided)
{
  g_autofree char *folded = ferry_fs_rules_fold_name (names->rules, name);
  char *claimed;

  *collided = g_hash_table_contains (names->used, folded);
  claimed = *collided ? ferry_free_name_find_with (name, is_dir, name_taken, names)
                      : g_strdup (name);
  g_hash_table_add (names->used, ferry_fs_rules_fold_name (names->rules, claimed));
  return claimed;
}

/* ------------------------------------------------------------------ */
/* Entries                                                             */

typedef struct
{
  const char *name; /* in the source folder */
  const char *dst_name;
  struct stat st;
  char *src_path;
  char *copy_name; /* what the copy will be called, as far as names go */
  gboolean followable; /* a symlink to a regular file */
  guint64 target_size; /* when followable: the size of that file */
} Entry;

/* What about the entry itself (not its name) the drive cannot hold;
 * -1 for nothing. */
static int
kind_problem (FerryPreflight *self, Folder *folder, Entry *entry)
{
  const struct stat *st = &entry->st;

  if (S_ISREG (st->st_mode) && (guint64) st->st_size > self->rules.max_file_size)
    return FERRY_UNSUPPORTED_TOO_LARGE;
  if (S_ISLNK (st->st_mode) && !self->rules.keeps_symlinks)
    {
      struct stat target;
      entry->followable = fstatat (folder->src_fd, entry->name, &target, 0) == 0
                          && S_ISREG (target.st_mode)
                          && (guint64) target.st_size <= self->rules.max_file_size;
      entry->target_size = entry->followable ? (guint64) target.st_size : 0;
      return FERRY_UNSUPPORTED_SYMLINK;
    }
  if ((S_ISFIFO (st->st_mode) || S_ISSOCK (st->st_mode) || S_ISCHR (st->st_mode)
       || S_ISBLK (st->st_mode))
      && !self->rules.keeps_special_files)
    return FERRY_UNSUPPORTED_SPECIAL_FILE;
  if (S_ISREG (st->st_mode) && st->st_nlink > 1 && !self->rules.keeps_hardlinks)
    {
      FerryInodeKey key = { st->st_dev, st->st_ino };
      if (g_hash_table_contains (self->inodes, &key))
        return FERRY_UNSUPPORTED_HARDLINK;
      g_hash_table_add (self->inodes, g_memdup2 (&key, sizeof key));
    }
  return -1;
}

static int
name_problem (FerryPreflight *self, const char *name)
{
  switch (ferry_fs_rules_check_name (&self->rules, name))
    {
      case FERRY_NAME_OK:
        return -1;
      case FERRY_NAME_FORBIDDEN_CHARACTERS:
        return FERRY_UNSUPPORTED_NAME_CHARACTERS;
      case FERRY_NAME_TRAILING_DOT_OR_SPACE:
        return FERRY_UNSUPPORTED_NAME_ENDING;
      case FERRY_NAME_RESERVED:
        return FERRY_UNSUPPORTED_NAME_RESERVED;
      case FERRY_NAME_TOO_LONG:
        return FERRY_UNSUPPORTED_NAME_TOO_LONG;
      case FERRY_NAME_NOT_UTF8:
      default:
        return FERRY_UNSUPPORTED_NAME_ENCODING;
    }
}

static void
record (FerryPreflight *self, Folder *folder, Entry *entry, FerryUnsupportedKind kind)
{
  g_autofree char *relpath = join (folder->dst_relpath, entry->dst_name);
  /* As Ferry's messages name files: "lat\xE9.txt" and "lat\xE8.txt" were
   * both "lat\uFFFD.txt", and a person could not tell which copy was
   * which. */
  g_autofree char *display = ferry_path_display (relpath);
  g_autoptr (GFile) source = g_file_new_for_path (entry->src_path);
  gboolean adaptable = kind != FERRY_UNSUPPORTED_TOO_LARGE && kind != FERRY_UNSUPPORTED_SPECIAL_FILE
                       && (kind != FERRY_UNSUPPORTED_SYMLINK || entry->followable);
  g_autofree char *adapted = adaptable ? g_filename_display_name (entry->copy_name) : NULL;
  Finding *finding = g_new0 (Finding, 1);

  finding->src_path = g_strdup (entry->src_path);
  finding->adapt = !adaptable                         ? FERRY_ADAPT_SKIP
                   : kind == FERRY_UNSUPPORTED_SYMLINK ? FERRY_ADAPT_FOLLOW
                                                       : FERRY_ADAPT_RENAME;
  finding->dst_name = g_strdup (entry->copy_name);
  g_ptr_array_add (self->findings, finding);
  g_ptr_array_add (self->items, _ferry_unsupported_item_new (kind, source, display, adapted,
                                                             entry->st.st_size));
}

/* The space an entry takes, the drive's way: its clusters, its place in
 * the folder, and on NTFS its record. */
static guint64
space_for (FerryPreflight *self, const Entry *entry)
{
  glong units = 0;
  g_autofree gunichar2 *utf16 = g_utf8_to_utf16 (entry->copy_name, -1, NULL, &units, NULL);
  guint64 slot = ferry_fs_rules_entry_space (&self->rules, (guint64) units);

  if (S_ISDIR (entry->st.st_mode))
    return slot + self->rules.cluster_size;
  if (entry->followable)
    return ferry_fs_rules_file_space (&self->rules, entry->target_size, (guint64) units);
  if (S_ISREG (entry->st.st_mode))
    return ferry_fs_rules_file_space (&self->rules, entry->st.st_size, (guint64) units);
  return slot;
}

/* The entries a FAT folder's names take: those of @existing, and "."
 * and ".." (or, in a drive's top folder, its label). */
static guint64
count_existing (GHashTable *existing)
{
  GHashTableIter iter;
  gpointer name;
  guint64 entries = 2;

  g_hash_table_iter_init (&iter, existing);
  while (g_hash_table_iter_next (&iter, NULL, &name))
    entries += ferry_fs_rules_fat_entries (name);
  return entries;
}

/* The first folder below the destination that would hold more entries
 * than FAT allows; the check says so before anything is written. */
static void
note_if_crowded (FerryPreflight *self, const Folder *folder)
{
  if (self->rules.folder_entries == 0 || folder->entries <= self->rules.folder_entries
      || self->crowded_relpath != NULL)
    return;
  self->crowded_relpath = g_strdup (folder->dst_relpath);
  self->crowded_entries = folder->entries;
}

static void
walk_subfolder (FerryPreflight *self, Folder *folder, Entry *entry)
{
  g_autofree char *relpath = join (folder->dst_relpath, entry->copy_name);
  ferry_autofd src_fd
      = openat (folder->src_fd, entry->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  ferry_autofd dst_fd
      = folder->dst_fd < 0 ? -1
                           : openat (folder->dst_fd, entry->copy_name,
                                     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  g_autoptr (GHashTable) existing = new_name_map ();
  g_autoptr (GHashTable) used = new_name_set ();
  Folder child = { src_fd, entry->src_path, dst_fd, relpath, { existing, used, &self->rules } };

  if (src_fd < 0)
    return; /* the copy reports it */
  load_destination (self, &child);
  if (self->rules.folder_entries > 0)
    child.entries = count_existing (existing);
  walk_folder (self, &child);
  note_if_crowded (self, &child);
}

/* A file already under a copy's name, for a dry run to tell: how many,
 * those the policy skips and their bytes, and the first of the others,
 * where a job that stops at the first conflict would stop. */
static void
note_existing (FerryPreflight *self, const Folder *folder, const Entry *entry, gboolean skipped)
{
  FerryPreflightExisting *existing = &self->existing;

  existing->files++;
  if (skipped)
    {
      existing->skipped++;
      existing->skipped_bytes += entry->st.st_size;
    }
  else if (existing->first == NULL)
    existing->first = join (folder->dst_relpath, entry->copy_name);
}

/* A file already under the copy's name that the copy will not write
 * again takes room the copy needs no more of: one a run cut short
 * completed, which the run continuing it carries (ferry_continue_carry());
 * one the conflict policy skips; and, where the person is asked (or the
 * job stops at the first conflict), one that looks the same as its
 * source (its size and time), which the question offers to skip. Before,
 * a copy run again with --conflict=skip onto a nearly full stick was
 * refused for want of the room its files already had there. A file that
 * will be replaced counts for nothing: its new copy is written beside it
 * before it goes. */
static void
note_if_there (FerryPreflight *self, const Folder *folder, const Entry *entry)
{
  struct stat there;
  gboolean looks_same, skipped;

  if (!S_ISREG (entry->st.st_mode) || folder->dst_fd < 0
      || fstatat (folder->dst_fd, entry->copy_name, &there, AT_SYMLINK_NOFOLLOW) != 0
      || !S_ISREG (there.st_mode))
    return;
  looks_same = ferry_continue_copy_matches (&self->rules, &there, &entry->st);
  if (self->resuming && looks_same)
    {
      self->reclaimable += ferry_fs_rules_space_for (&self->rules, entry->st.st_size);
      return;
    }
  skipped = ferry_conflicts_policy_skips (&self->rules, self->conflict_policy, &entry->st, &there);
  note_existing (self, folder, entry, skipped);
  if (skipped
      || (looks_same
          && (self->conflict_policy == FERRY_CONFLICT_POLICY_ASK
              || self->conflict_policy == FERRY_CONFLICT_POLICY_FAIL)))
    self->reclaimable += ferry_fs_rules_space_for (&self->rules, entry->st.st_size);
}

/* On FAT, a name the copy gives in @folder takes entries there (in the
 * destination folder, whose names are the roots' shared ones, counted
 * for all of them), but for one spelled exactly as an entry already
 * there (a conflict: the copy replaces it, merges into it or skips it). */
static void
count_entry (FerryPreflight *self, Folder *folder, const char *copy_name)
{
  g_autofree char *folded = NULL;
  const char *there;
  guint entries;

  if (self->rules.folder_entries == 0)
    return;
  folded = ferry_fs_rules_fold_name (&self->rules, copy_name);
  there = g_hash_table_lookup (folder->names.existing, folded);
  if (there != NULL && strcmp (there, copy_name) == 0)
    return;
  entries = ferry_fs_rules_fat_entries (copy_name);
  if (folder->names.existing == self->top_existing)
    self->top_entries += entries;
  else
    folder->entries += entries;
}

/* @kept: the name claimed for the entry before (see claim_kept_names()),
 * which it takes; NULL to claim one now. */
static void
walk_entry (FerryPreflight *self,
            Folder *folder,
            const char *name,
            const char *dst_name,
            char *kept)
{
  Entry entry = { name, dst_name };
  int kind, bad_name;
  gboolean collided;

  if (fstatat (folder->src_fd, name, &entry.st, AT_SYMLINK_NOFOLLOW) != 0)
    {
      g_free (kept);
      return; /* the copy reports it */
    }
  entry.src_path = join (folder->src_path, name);
  kind = kind_problem (self, folder, &entry);
  bad_name = name_problem (self, dst_name);
  if (kept != NULL)
    {
      entry.copy_name = kept;
      collided = strcmp (kept, dst_name) != 0;
    }
  else
    {
      g_autofree char *fit = bad_name >= 0 ? ferry_fs_rules_adapt_name (&self->rules, dst_name)
                                           : g_strdup (dst_name);
      entry.copy_name = names_claim (&folder->names, fit, S_ISDIR (entry.st.st_mode), &collided);
    }
  /* Where names are compared byte for byte, two sources named alike
   * are the copy's conflict, not a name the drive cannot store. */
  if (kind < 0 && bad_name < 0 && collided && !self->names_only)
    kind = FERRY_UNSUPPORTED_CASE_COLLISION;
  else if (kind < 0)
    kind = bad_name;
  if (kind >= 0)
    record (self, folder, &entry, kind);
  count_entry (self, folder, entry.copy_name);
  /* What can only be skipped takes no space (a 6 GB film on FAT32). */
  if (kind != FERRY_UNSUPPORTED_TOO_LARGE && kind != FERRY_UNSUPPORTED_SPECIAL_FILE)
    self->needed += space_for (self, &entry);
  note_if_there (self, folder, &entry);
  if (S_ISDIR (entry.st.st_mode))
    walk_subfolder (self, folder, &entry);
  g_free (entry.src_path);
  g_free (entry.copy_name);
}

/* The copy's name of an entry whose name the drive stores as it is
 * (@dst_name), claimed now; NULL where the name must be adapted. */
static char *
claim_kept_name (FerryPreflight *self, Folder *folder, const Listed *entry, const char *dst_name)
{
  g_autofree char *folded = NULL;
  gboolean is_dir = entry->type == DT_DIR, collided;
  struct stat st;

  if (name_problem (self, dst_name) >= 0)
    return NULL;
  /* Only a name that collides needs to know what it names. */
  folded = ferry_fs_rules_fold_name (&self->rules, dst_name);
  if (entry->type == DT_UNKNOWN && g_hash_table_contains (folder->names.used, folded))
    is_dir = fstatat (folder->src_fd, entry->name, &st, AT_SYMLINK_NOFOLLOW) == 0
             && S_ISDIR (st.st_mode);
  return names_claim (&folder->names, dst_name, is_dir, &collided);
}

/* The copies' names of the entries whose names the drive stores as
 * they are, claimed in name order (README.txt before readme.txt, which
 * collides with it), in @listing's places; NULL where a name must be
 * adapted. */
static GPtrArray *
claim_kept_names (FerryPreflight *self, Folder *folder, GArray *listing)
{
  GPtrArray *kept = g_ptr_array_new_full (listing->len, g_free);

  for (guint i = 0; i < listing->len; i++)
    {
      const Listed *entry = &g_array_index (listing, Listed, i);
      g_ptr_array_add (kept, claim_kept_name (self, folder, entry, entry->name));
    }
  return kept;
}

/* Whether a walk for names has to look at an entry: one whose name must
 * be adapted, or a folder, whose entries' names may. The rest cost no
 * more than their listing. */
static gboolean
names_may_matter (const Listed *entry, const char *kept)
{
  return kept == NULL || entry->type == DT_DIR || entry->type == DT_UNKNOWN;
}

/* The entries listed in @folder, their kept names claimed already. */
static void
walk_listed (FerryPreflight *self, Folder *folder, GArray *listing, GPtrArray *kept)
{
  for (guint i = 0; i < listing->len && !g_cancellable_is_cancelled (self->cancellable); i++)
    {
      const Listed *entry = &g_array_index (listing, Listed, i);
      char *kept_name = g_steal_pointer (&kept->pdata[i]);

      if (self->names_only && !names_may_matter (entry, kept_name))
        g_free (kept_name);
      else
        walk_entry (self, folder, entry->name, entry->name, kept_name);
    }
}

/* A name the drive stores as it is keeps it: the names to adapt are
 * claimed after all of those, so "CON" adapted to "CON_" becomes
 * "CON_ (2)" beside a "CON_" of the folder. Before, CON came first in
 * name order and took "CON_", and the real CON_ was listed as "the same
 * name as another" (on NTFS too, for a drive that "ignores capitals"),
 * copied as "CON_ (2)" when adapting and left out with the others when
 * skipping them, where it collides with nothing. */
static void
walk_entries (FerryPreflight *self, Folder *folder)
{
  g_autoptr (GArray) listing = list_entries (folder->src_fd);
  g_autoptr (GPtrArray) kept = claim_kept_names (self, folder, listing);

  walk_listed (self, folder, listing, kept);
}

static void
walk_folder (FerryPreflight *self, Folder *folder)
{
  self->needed += self->rules.cluster_size; /* the folder's own first cluster */
  walk_entries (self, folder);
}

/* ------------------------------------------------------------------ */

/* On FAT: what the destination folder's entries take already, and what
 * it holds, fixed where it is the top folder of a FAT12 or FAT16 drive. */
static void
count_top_folder (FerryPreflight *self, int dst_fd)
{
  self->top_is_fat_root = self->rules.top_folder_entries > 0 && ferry_fs_is_mount_root (dst_fd);
  self->top_limit
      = self->top_is_fat_root ? self->rules.top_folder_entries : self->rules.folder_entries;
  /* the top folder has no "." or "..", but its label's entry */
  self->top_entries = count_existing (self->top_existing) - (self->top_is_fat_root ? 1 : 0);
}

/* Whether the copy continues a run cut short (see note_if_there()). */
void
ferry_preflight_set_resuming (FerryPreflight *self, gboolean resuming)
{
  self->resuming = resuming;
}

/* How the copy settles a file already under a copy's name (see
 * note_if_there()). */
void
ferry_preflight_set_conflict_policy (FerryPreflight *self, FerryConflictPolicy policy)
{
  self->conflict_policy = policy;
}

/* Walking only what a name can be wrong with: on ext4, XFS, Btrfs or
 * tmpfs, a name longer than it takes (an exFAT stick's 200 "é" and
 * ".txt" are 404 bytes). A folder costs its listing, and an entry only
 * when its name is too long; the destination is not read, nor the
 * space counted. */
void
ferry_preflight_set_names_only (FerryPreflight *self, gboolean names_only)
{
  self->names_only = names_only;
}

/* A source to walk: its copy goes to the destination folder, which the
 * roots share. @walked FALSE: its names are claimed there (a name of
 * another source adapted does not take it), nothing below them is
 * looked at (a source whose names the destination takes, in a walk for
 * names alone). */
void
ferry_preflight_add_root (FerryPreflight *self, const FerryTreeRoot *root, gboolean walked)
{
  QueuedRoot queued = { *root, walked, NULL, NULL };

  g_array_append_val (self->roots, queued);
}

/* The destination folder, as the source @root walks it. */
static Folder
top_folder (FerryPreflight *self, const FerryTreeRoot *root)
{
  int dst_fd = self->names_only ? -1 : root->dst_dir_fd;

  return (Folder){ root->src_parent_fd, root->src_parent_path, dst_fd, "",
                   { self->top_existing, self->top_used, &self->rules } };
}

/* A copy named "." is the destination folder itself, already there: the
 * source folder's entries (its own entry ".") land beside the drive's. */
static void
claim_root_names (FerryPreflight *self, QueuedRoot *queued)
{
  Folder top = top_folder (self, &queued->root);
  Listed itself = { NULL, DT_UNKNOWN };

  if (strcmp (queued->root.dst_name, ".") == 0)
    {
      queued->listing = list_entries (queued->root.src_parent_fd);
      queued->kept = claim_kept_names (self, &top, queued->listing);
      return;
    }
  itself.name = g_strdup (queued->root.src_name);
  queued->listing = g_array_new (FALSE, FALSE, sizeof (Listed));
  g_array_set_clear_func (queued->listing, listed_clear);
  g_array_append_val (queued->listing, itself);
  queued->kept = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (queued->kept, claim_kept_name (self, &top, &itself, queued->root.dst_name));
}

static void
walk_root (FerryPreflight *self, QueuedRoot *queued)
{
  Folder top = top_folder (self, &queued->root);
  const Listed *itself;
  char *kept;

  if (strcmp (queued->root.dst_name, ".") == 0)
    {
      walk_listed (self, &top, queued->listing, queued->kept);
      return;
    }
  itself = &g_array_index (queued->listing, Listed, 0);
  kept = g_steal_pointer (&queued->kept->pdata[0]);
  if (self->names_only && !names_may_matter (itself, kept))
    g_free (kept);
  else
    walk_entry (self, &top, itself->name, queued->root.dst_name, kept);
}

/**
 * ferry_preflight_walk:
 * Walks the sources added, now. The names every source keeps in the
 * destination folder are claimed before any is walked, as in a folder
 * (see walk_entries()): "ferry-copy coll/CON coll/CON_ STICK/" copies
 * CON as "CON_ (2)" and CON_ as itself. Before, CON came first and took
 * "CON_", and the real CON_ lost its name.
 */
void
ferry_preflight_walk (FerryPreflight *self)
{
  Folder top;

  if (self->roots->len == 0)
    return;
  top = top_folder (self, &g_array_index (self->roots, QueuedRoot, 0).root);
  load_destination (self, &top);
  if (self->rules.folder_entries > 0)
    count_top_folder (self, top.dst_fd);
  for (guint i = 0; i < self->roots->len; i++)
    claim_root_names (self, &g_array_index (self->roots, QueuedRoot, i));
  for (guint i = 0; i < self->roots->len && !g_cancellable_is_cancelled (self->cancellable); i++)
    if (g_array_index (self->roots, QueuedRoot, i).walked)
      walk_root (self, &g_array_index (self->roots, QueuedRoot, i));
}

/* "“…/Camera” would hold 70010 entries, and a folder on a FAT32 drive
 * holds 65536 …": the drive would say it is full at the next name. */
static gboolean
refuse_crowded (FerryPreflight *self, const char *path, guint64 entries, GError **error)
{
  g_autofree char *display = ferry_path_display (path);
  g_autofree char *wanted = ferry_format_count (entries);
  g_autofree char *room = ferry_format_count (self->rules.folder_entries);

  g_set_error (error, FERRY_ERROR, FERRY_ERROR_NOT_ENOUGH_SPACE,
               /* Translators: a folder; the entries the copy would give it; FAT32; the
                * entries a folder there holds */
               _ ("“%s” would hold %s entries, and a folder on a %s drive holds %s (a long name "
                  "takes several): split it into smaller folders, or copy to a drive formatted "
                  "exFAT or NTFS"),
               display, wanted, self->rules.label, room);
  return FALSE;
}

/**
 * ferry_preflight_check_folders:
 * Refuses a copy that would give a FAT folder more entries than it
 * holds: any folder 65,536, the top folder of a FAT12 or FAT16 drive
 * its fixed room (512, as mkfs.fat makes it). The drive would say it
 * is full at the next name, with space to spare.
 */
gboolean
ferry_preflight_check_folders (FerryPreflight *self, const char *dst_path, GError **error)
{
  g_autofree char *display = NULL;
  g_autofree char *room = NULL;
  g_autofree char *wanted = NULL;
  g_autofree char *crowded = NULL;

  if (self->crowded_relpath != NULL)
    {
      crowded = g_build_filename (dst_path, self->crowded_relpath, NULL);
      return refuse_crowded (self, crowded, self->crowded_entries, error);
    }
  if (self->top_limit == 0 || self->top_entries <= self->top_limit)
    return TRUE;
  if (!self->top_is_fat_root)
    return refuse_crowded (self, dst_path, self->top_entries, error);
  display = ferry_path_display (dst_path);
  room = ferry_format_count (self->top_limit);
  wanted = ferry_format_count (self->top_entries);
  g_set_error (error, FERRY_ERROR, FERRY_ERROR_NOT_ENOUGH_SPACE,
               /* Translators: the drive's top folder; the entries it holds and those the copy
                * would need there (a long name takes several), like "The top folder of
                * “/media/CARD” holds only 512 entries, and the copy would need 803 there:
                * copy into a folder on the drive instead" */
               _ ("The top folder of “%s” holds only %s entries, and the copy would need %s "
                  "there: copy into a folder on the drive instead"),
               display, room, wanted);
  return FALSE;
}

/* (transfer none) (element-type FerryUnsupportedItem) */
GPtrArray *
ferry_preflight_get_items (FerryPreflight *self)
{
  return self->items;
}

/* The space the copy takes on the drive, in bytes. */
guint64
ferry_preflight_get_needed (FerryPreflight *self)
{
  return self->needed;
}

/* Ferry's temporary files that killed runs left in the destination
 * folders the copy writes to, as paths below the destination; and the
 * space they hold there.
 * (transfer none) (element-type filename) */
GPtrArray *
ferry_preflight_get_stale_temps (FerryPreflight *self)
{
  return self->stale_temps;
}

guint64
ferry_preflight_get_reclaimable (FerryPreflight *self)
{
  return self->reclaimable;
}

/* Files already under the copies' names (see note_existing()). */
const FerryPreflightExisting *
ferry_preflight_get_existing (FerryPreflight *self)
{
  return &self->existing;
}

/* What the copy does with each entry found, after @action. */
FerryAdaptations *
ferry_preflight_adapt (FerryPreflight *self, FerryUnsupportedAction action)
{
  FerryAdaptations *adaptations = ferry_adaptations_new ();

  for (guint i = 0; i < self->findings->len; i++)
    {
      Finding *finding = g_ptr_array_index (self->findings, i);
      FerryAdaptKind kind = action == FERRY_UNSUPPORTED_ACTION_ADAPT ? finding->adapt
                                                                      : FERRY_ADAPT_SKIP;
      ferry_adaptations_add (adaptations, finding->src_path, kind, finding->dst_name);
    }
  return adaptations;
}
