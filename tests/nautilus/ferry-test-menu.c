/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "ferry-test-menu.h"

/* Reading the menu items a provider gives Nautilus, as Nautilus reads
 * them: through their properties. */

char *
ferry_test_dup_item_string (NautilusMenuItem *item, const char *property)
{
  char *value = NULL;

  g_object_get (item, property, &value, NULL);
  return value;
}

/* Returns: (transfer full): the items of @item's submenu, if it has one. */
GList *
ferry_test_dup_submenu_items (NautilusMenuItem *item)
{
  g_autoptr (NautilusMenu) menu = NULL;

  g_object_get (item, "menu", &menu, NULL);
  return menu != NULL ? nautilus_menu_get_items (menu) : NULL;
}

void
ferry_test_free_items (GList *items)
{
  if (items != NULL)
    nautilus_menu_item_list_free (items);
}

/* "Send To {A; B}; Copy with Ferry…" */
static void
describe_items (GString *out, GList *items)
{
  for (GList *l = items; l != NULL; l = l->next)
    {
      g_autofree char *label = ferry_test_dup_item_string (l->data, "label");
      GList *submenu = ferry_test_dup_submenu_items (l->data);

      if (l != items)
        g_string_append (out, "; ");
      g_string_append (out, label);
      if (submenu != NULL)
        {
          g_string_append (out, " {");
          describe_items (out, submenu);
          g_string_append (out, "}");
        }
      ferry_test_free_items (submenu);
    }
}

/* The menu Nautilus would show for @files selected now, or "" for none. */
char *
ferry_test_describe_menu (NautilusMenuProvider *provider, GList *files)
{
  GList *items = nautilus_menu_provider_get_file_items (provider, files);
  GString *out = g_string_new (NULL);

  describe_items (out, items);
  ferry_test_free_items (items);
  return g_string_free (out, FALSE);
}
