/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "ferry-format.h"
#include "ferry-unsupported-text.h"

/* The largest file FAT32 holds: the only drive with such a limit. Shown
 * in the same units as the sizes of the files, so that "6.2 GB" is seen
 * to be more than "4.3 GB". */
#define FAT32_LARGEST_FILE G_MAXUINT32

/* Why a name cannot stay, counted: "3 names use characters …". */
static char *
describe_name_group (FerryUnsupportedKind kind, guint n)
{
  g_autofree char *count = ferry_format_count (n);

  switch (kind)
    {
      case FERRY_UNSUPPORTED_NAME_CHARACTERS:
        return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                             "%s name uses characters this drive cannot store",
                                             "%s names use characters this drive cannot store", n),
                                count);
      case FERRY_UNSUPPORTED_NAME_ENDING:
        return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s name ends in a dot or a space",
                                             "%s names end in a dot or a space", n),
                                count);
      case FERRY_UNSUPPORTED_NAME_RESERVED:
        return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s name is reserved by Windows",
                                             "%s names are reserved by Windows", n),
                                count);
      case FERRY_UNSUPPORTED_NAME_TOO_LONG:
        return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s name is too long for this drive",
                                             "%s names are too long for this drive", n),
                                count);
      case FERRY_UNSUPPORTED_NAME_ENCODING:
        return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                             "%s name has characters in an unknown encoding",
                                             "%s names have characters in an unknown encoding", n),
                                count);
      case FERRY_UNSUPPORTED_CASE_COLLISION:
      default:
        return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                             /* TRANSLATORS: names like "Notes.txt" and
                                              * "notes.txt", which the drive sees as the
                                              * same name */
                                             "%s name differs from another only in capitals",
                                             "%s names differ only in capitals", n),
                                count);
    }
}

/**
 * ferry_unsupported_text_group:
 * What @n items of @kind in @report have in common, counted, like
 * "3 names use characters this drive cannot store".
 */
char *
ferry_unsupported_text_group (FerryUnsupportedReport *report, FerryUnsupportedKind kind, guint n)
{
  g_autofree char *count = ferry_format_count (n);
  g_autofree char *largest = NULL;

  switch (kind)
    {
      case FERRY_UNSUPPORTED_TOO_LARGE:
        largest = g_format_size (FAT32_LARGEST_FILE);
        return g_strdup_printf (
            /* TRANSLATORS: "1 file is larger than 4.3 GB, the most a FAT32 drive can hold" */
            g_dngettext (GETTEXT_PACKAGE, "%s file is larger than %s, the most a %s drive can hold",
                         "%s files are larger than %s, the most a %s drive can hold", n),
            count, largest, ferry_unsupported_report_get_filesystem (report));
      case FERRY_UNSUPPORTED_SYMLINK:
        return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s link", "%s links", n), count);
      case FERRY_UNSUPPORTED_HARDLINK:
        /* TRANSLATORS: hard links: one file reached by several names */
        return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s file with several names",
                                             "%s files with several names", n),
                                count);
      case FERRY_UNSUPPORTED_SPECIAL_FILE:
        return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                             "%s special file (FIFO, socket or device)",
                                             "%s special files (FIFOs, sockets or devices)", n),
                                count);
      default:
        return describe_name_group (kind, n);
    }
}

/**
 * ferry_unsupported_text_item:
 * The item as a person finds it: its name, and the name its copy gets
 * when @adapted renames it ("why?.txt → why？.txt"), or its size when
 * that is the trouble ("film.mkv (6.2 GB)").
 */
char *
ferry_unsupported_text_item (const FerryUnsupportedItem *item, gboolean adapted)
{
  const char *name = ferry_unsupported_item_get_name (item);
  g_autofree char *size = NULL;

  if (adapted && item->adapted != NULL && g_strcmp0 (item->adapted, name) != 0)
    /* TRANSLATORS: a name, and the name its copy gets: "why?.txt → why？.txt" */
    return g_strdup_printf (_ ("%s → %s"), name, item->adapted);
  if (item->kind != FERRY_UNSUPPORTED_TOO_LARGE)
    return g_strdup (name);
  size = g_format_size (item->size);
  /* TRANSLATORS: a file and its size: "film.mkv (6.2 GB)" */
  return g_strdup_printf (_ ("%s (%s)"), name, size);
}

static const char *const reasons[] = {
  [FERRY_UNSUPPORTED_NAME_CHARACTERS] = N_ ("Uses characters this drive cannot store"),
  [FERRY_UNSUPPORTED_NAME_ENDING] = N_ ("Ends in a dot or a space"),
  [FERRY_UNSUPPORTED_NAME_RESERVED] = N_ ("A name Windows reserves"),
  [FERRY_UNSUPPORTED_NAME_TOO_LONG] = N_ ("A name too long for this drive"),
  [FERRY_UNSUPPORTED_NAME_ENCODING] = N_ ("A name in an unknown encoding"),
  [FERRY_UNSUPPORTED_CASE_COLLISION] = N_ ("Differs from another name only in capitals"),
  [FERRY_UNSUPPORTED_TOO_LARGE] = N_ ("Larger than this drive can hold"),
  [FERRY_UNSUPPORTED_SYMLINK] = N_ ("A link, which this drive cannot store"),
  [FERRY_UNSUPPORTED_HARDLINK] = N_ ("Another name of a file copied already"),
  [FERRY_UNSUPPORTED_SPECIAL_FILE] = N_ ("A FIFO, socket or device"),
};

/**
 * ferry_unsupported_text_outcome:
 * Why the item could not stay as it is or, for a link the copy followed,
 * what became of it.
 */
char *
ferry_unsupported_text_outcome (const FerryUnsupportedItem *item, gboolean adapted)
{
  if (adapted && item->kind == FERRY_UNSUPPORTED_SYMLINK)
    return g_strdup (_ ("Copied as the file it points to"));
  if (adapted && item->kind == FERRY_UNSUPPORTED_HARDLINK)
    return g_strdup (_ ("Copied as a separate file"));
  if ((guint) item->kind < G_N_ELEMENTS (reasons))
    return g_strdup (_ (reasons[item->kind]));
  return g_strdup ("");
}

/* Whether the copy of @item exists, in another form. */
gboolean
ferry_unsupported_text_was_adapted (FerryUnsupportedReport *report,
                                    const FerryUnsupportedItem *item)
{
  return ferry_unsupported_report_get_action (report) == FERRY_UNSUPPORTED_ACTION_ADAPT
         && item->adapted != NULL;
}

/* Whether every item adapted was adapted by a new name alone. */
static gboolean
only_renamed (FerryUnsupportedReport *report)
{
  GPtrArray *items = ferry_unsupported_report_get_items (report);

  for (guint i = 0; i < items->len; i++)
    {
      FerryUnsupportedItem *item = g_ptr_array_index (items, i);

      if (ferry_unsupported_text_was_adapted (report, item)
          && (item->kind == FERRY_UNSUPPORTED_SYMLINK || item->kind == FERRY_UNSUPPORTED_HARDLINK
              || g_strcmp0 (item->adapted, ferry_unsupported_item_get_name (item)) == 0))
        return FALSE;
    }
  return TRUE;
}

/**
 * ferry_unsupported_text_summary:
 * What a copy that went ahead did with the items, like "2 items renamed
 * for exFAT, 1 skipped"; NULL when it did not go ahead.
 */
char *
ferry_unsupported_text_summary (FerryUnsupportedReport *report)
{
  FerryUnsupportedAction action = ferry_unsupported_report_get_action (report);
  const char *fs = ferry_unsupported_report_get_filesystem (report);
  guint n = ferry_unsupported_report_get_items (report)->len;
  guint adapted = 0;
  g_autofree char *head = NULL;
  g_autofree char *done = NULL;
  g_autofree char *skipped = NULL;

  if (action != FERRY_UNSUPPORTED_ACTION_ADAPT && action != FERRY_UNSUPPORTED_ACTION_SKIP)
    return NULL;
  if (action == FERRY_UNSUPPORTED_ACTION_ADAPT)
    adapted = ferry_unsupported_report_count_adaptable (report);
  skipped = ferry_format_count (n - adapted);
  if (adapted == 0)
    return g_strdup_printf (
        /* TRANSLATORS: "3 items skipped for FAT32": the drive could not store them */
        g_dngettext (GETTEXT_PACKAGE, "%s item skipped for %s", "%s items skipped for %s", n),
        skipped, fs);
  done = ferry_format_count (adapted);
  if (only_renamed (report))
    head = g_strdup_printf (
        /* TRANSLATORS: "2 items renamed for exFAT" */
        g_dngettext (GETTEXT_PACKAGE, "%s item renamed for %s", "%s items renamed for %s", adapted),
        done, fs);
  else
    head = g_strdup_printf (
        /* TRANSLATORS: "2 items adapted for exFAT": renamed, or links copied as their files */
        g_dngettext (GETTEXT_PACKAGE, "%s item adapted for %s", "%s items adapted for %s", adapted),
        done, fs);
  if (adapted == n)
    return g_steal_pointer (&head);
  return g_strdup_printf (
      /* TRANSLATORS: what was adapted, then how many items were skipped:
       * "2 items renamed for exFAT, 1 skipped" */
      g_dngettext (GETTEXT_PACKAGE, "%s, %s skipped", "%s, %s skipped", n - adapted), head,
      skipped);
}
