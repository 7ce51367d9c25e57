/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "ferry-cli-output.h"
#include "ferry-cli-unsupported.h"
#include "ferry-format.h"

/* Why one entry cannot go as it is, for a line of its own. */
static char *
describe (const FerryUnsupportedItem *item, const char *filesystem)
{
  g_autofree char *size = NULL;

  switch (item->kind)
    {
      case FERRY_UNSUPPORTED_NAME_CHARACTERS:
        /* Translators: %s is FAT32, exFAT or NTFS */
        return g_strdup_printf (_ ("uses characters %s cannot store"), filesystem);
      case FERRY_UNSUPPORTED_NAME_ENDING:
        return g_strdup (_ ("ends in a dot or a space"));
      case FERRY_UNSUPPORTED_NAME_RESERVED:
        return g_strdup (_ ("is a name Windows keeps for devices"));
      case FERRY_UNSUPPORTED_NAME_TOO_LONG:
        /* Translators: %s is FAT32, exFAT, NTFS, ext4, XFS…; FAT, exFAT and
         * NTFS count 255 characters, the others 255 bytes */
        return g_strdup_printf (_ ("is a longer name than %s can store"), filesystem);
      case FERRY_UNSUPPORTED_NAME_ENCODING:
        return g_strdup (_ ("is not valid UTF-8"));
      case FERRY_UNSUPPORTED_CASE_COLLISION:
        /* Translators: %s is FAT32, exFAT or NTFS */
        return g_strdup_printf (_ ("is the same name as another for %s (it ignores capitals)"),
                                filesystem);
      case FERRY_UNSUPPORTED_TOO_LARGE:
        size = g_format_size (item->size);
        /* Translators: the first %s is a size, the second FAT32 */
        return g_strdup_printf (_ ("is %s, larger than a %s file can be"), size, filesystem);
      case FERRY_UNSUPPORTED_SYMLINK:
        return g_strdup_printf (_ ("is a symbolic link, which %s cannot store"), filesystem);
      case FERRY_UNSUPPORTED_HARDLINK:
        return g_strdup_printf (_ ("is another name of a file, which %s cannot store"), filesystem);
      case FERRY_UNSUPPORTED_SPECIAL_FILE:
      default:
        return g_strdup_printf (_ ("is a FIFO, socket or device, which %s cannot store"),
                                filesystem);
    }
}

/* What "adapt" does with the item: a link is copied as what it leads to,
 * another name of a file as a file of its own, the rest get a new name
 * (or keep theirs: "a2.bin → a2.bin" said nothing). */
static char *
describe_adapted (const FerryUnsupportedItem *item)
{
  g_autofree char *adapted = NULL;

  if (item->kind == FERRY_UNSUPPORTED_SYMLINK)
    return g_strdup (_ ("copied as the file it points to"));
  if (item->kind == FERRY_UNSUPPORTED_HARDLINK)
    return g_strdup (_ ("copied as a separate file"));
  adapted = ferry_format_path (item->adapted);
  /* Translators: the name a copy gets on the drive */
  return g_strdup_printf (_ ("named “%s”"), adapted);
}

/**
 * ferry_cli_list_unsupported:
 * One line for every entry: where it would go, why it cannot, and what
 * "adapt" would do with it.
 */
void
ferry_cli_list_unsupported (FerryUnsupportedReport *report, FILE *out)
{
  GPtrArray *items = ferry_unsupported_report_get_items (report);
  const char *filesystem = ferry_unsupported_report_get_filesystem (report);

  for (guint i = 0; i < items->len; i++)
    {
      const FerryUnsupportedItem *item = g_ptr_array_index (items, i);
      g_autofree char *why = describe (item, filesystem);
      g_autofree char *how = item->adapted != NULL ? describe_adapted (item) : NULL;
      const char *path = item->path; /* escaped already */

      if (how != NULL)
        /* Translators: a path, why it cannot be stored, what adapting does:
         * "  a/b?.txt uses characters exFAT cannot store (adapted: named “b？.txt”)" */
        fprintf (out, _ ("  %s %s (adapted: %s)\n"), path, why, how);
      else
        /* Translators: a path and why it cannot be stored */
        fprintf (out, _ ("  %s %s (cannot be adapted: skipped)\n"), path, why);
    }
}

/**
 * ferry_cli_list_adapted:
 * After the copy: what was renamed, to what, and what was skipped.
 */
void
ferry_cli_list_adapted (FerryUnsupportedReport *report, FILE *out)
{
  FerryUnsupportedAction action = ferry_unsupported_report_get_action (report);
  GPtrArray *items = ferry_unsupported_report_get_items (report);

  for (guint i = 0; i < items->len; i++)
    {
      const FerryUnsupportedItem *item = g_ptr_array_index (items, i);
      const char *path = item->path; /* escaped already */
      g_autofree char *how = NULL;

      if (action == FERRY_UNSUPPORTED_ACTION_ADAPT && item->adapted != NULL)
        {
          how = describe_adapted (item);
          /* Translators: a path and what adapting did: "Adapted: a/b?.txt, named “b？.txt”" */
          fprintf (out, _ ("Adapted: %s, %s\n"), path, how);
        }
      else
        fprintf (out, _ ("Skipped: %s\n"), path);
    }
}

static const char *
nick_of (GType type, int value)
{
  g_autoptr (GEnumClass) enum_class = g_type_class_ref (type);
  GEnumValue *found = g_enum_get_value (enum_class, value);

  return found != NULL ? found->value_nick : "";
}

static void
append_item_json (GString *out, const FerryUnsupportedItem *item)
{
  g_string_append_printf (out, "{\"kind\":\"%s\",\"path\":",
                          nick_of (FERRY_TYPE_UNSUPPORTED_KIND, item->kind));
  ferry_cli_append_json_string (out, item->path);
  g_string_append (out, ",\"adapted\":");
  if (item->adapted != NULL)
    ferry_cli_append_json_string (out, item->adapted);
  else
    g_string_append (out, "null");
  g_string_append_printf (out, ",\"size\":%" G_GUINT64_FORMAT "}", item->size);
}

/* One line of JSON for the whole report, the decision with it. */
char *
ferry_cli_format_unsupported_json (FerryUnsupportedReport *report)
{
  GPtrArray *items = ferry_unsupported_report_get_items (report);
  GString *out = g_string_new ("{\"event\":\"unsupported\",\"filesystem\":");

  ferry_cli_append_json_string (out, ferry_unsupported_report_get_filesystem (report));
  g_string_append_printf (
      out, ",\"action\":\"%s\",\"items\":[",
      nick_of (FERRY_TYPE_UNSUPPORTED_ACTION, ferry_unsupported_report_get_action (report)));
  for (guint i = 0; i < items->len; i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      append_item_json (out, g_ptr_array_index (items, i));
    }
  g_string_append (out, "]}");
  return g_string_free (out, FALSE);
}
