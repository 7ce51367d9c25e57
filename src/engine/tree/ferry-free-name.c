/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "ferry-free-name.h"

/* "report.tar.gz" splits as "report" + ".tar.gz"; "notes" has no
 * extension, and neither has ".bashrc". */
static const char *
find_extension (const char *name)
{
  const char *dot = strrchr (name, '.');

  if (dot == NULL || dot == name)
    return name + strlen (name);
  if (dot - name > 4 && strncmp (dot - 4, ".tar", 4) == 0 && dot - 4 != name)
    return dot - 4;
  return dot;
}

/* "photo (2)" continues as "photo (3)", not "photo (2) (2)". */
static guint
strip_counter (const char *stem, gsize *stem_len)
{
  gsize len = *stem_len;
  gsize digits_end;
  guint64 n;

  if (len < 4 || stem[len - 1] != ')')
    return 1;
  digits_end = len - 1;
  while (len > 2 && g_ascii_isdigit (stem[len - 2]))
    len--;
  if (len - 1 == digits_end || len < 3 || stem[len - 2] != '(' || stem[len - 3] != ' ')
    return 1;
  n = g_ascii_strtoull (stem + len - 1, NULL, 10);
  if (n < 2 || n > G_MAXUINT / 2)
    return 1;
  *stem_len = len - 3;
  return (guint) n;
}

/* Where to cut @stem to at most @fits bytes. A UTF-8 name is cut between
 * characters; any other name (Latin-1 from an old stick) has no
 * characters to respect, and backing up over its bytes >= 0x80 as if they
 * continued one would throw the whole name away. */
static gsize
utf8_boundary_before (const char *stem, gsize stem_len, gsize fits)
{
  if (!g_utf8_validate_len (stem, stem_len, NULL))
    return fits;
  while (fits > 0 && ((guchar) stem[fits] & 0xC0) == 0x80)
    fits--;
  return fits;
}

static char *
numbered_name (const char *stem, gsize stem_len, const char *extension, guint n)
{
  g_autofree char *suffix = g_strdup_printf (" (%u)%s", n, extension);
  gsize suffix_len = strlen (suffix);

  /* Shorten the stem, not the number, when the name would be too long. */
  if (stem_len + suffix_len > NAME_MAX)
    {
      gsize fits = NAME_MAX > suffix_len ? NAME_MAX - suffix_len : 0;

      stem_len = utf8_boundary_before (stem, stem_len, fits);
    }
  return g_strdup_printf ("%.*s%s", (int) stem_len, stem, suffix);
}

/**
 * ferry_free_name_find_with:
 * The first of "name (2).ext", "name (3).ext", ... that @taken says is
 * free (a name ending in a number continues from it).
 */
char *
ferry_free_name_find_with (const char *name,
                           gboolean is_dir,
                           FerryNameTakenFunc taken,
                           gpointer user_data)
{
  const char *extension = is_dir ? name + strlen (name) : find_extension (name);
  gsize stem_len;
  guint n;

  /* An extension too long to keep whole after a number ("a.<254 bytes>")
   * counts as part of the stem, which can be shortened; kept, it would
   * make every candidate longer than NAME_MAX. */
  if (strlen (extension) + strlen (" (4294967295)") > NAME_MAX)
    extension = name + strlen (name);
  stem_len = extension - name;
  n = strip_counter (name, &stem_len) + 1;

  for (;; n++)
    {
      g_autofree char *candidate = numbered_name (name, stem_len, extension, n);

      if (!taken (candidate, user_data))
        return g_steal_pointer (&candidate);
    }
}

/* Only a name that exists is worth a next number; any other error would
 * repeat for every number, so creating the name reports it. */
static gboolean
exists_in (const char *candidate, gpointer user_data)
{
  struct stat st;

  return fstatat (GPOINTER_TO_INT (user_data), candidate, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

char *
ferry_free_name_find (int dir_fd, const char *name, gboolean is_dir)
{
  return ferry_free_name_find_with (name, is_dir, exists_in, GINT_TO_POINTER (dir_fd));
}
