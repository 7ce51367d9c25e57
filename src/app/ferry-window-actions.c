/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The window's actions (win.*), for its buttons, menus and shortcuts.
 * They are the window's GActionMap, not widget class actions: GTK lists
 * them in the shortcuts window and exports them on D-Bus with the
 * window (org.gtk.Actions on /io/github/ferrycopy/Ferry/window/N). */
#include "config.h"

#include "ferry-window-private.h"

static void
add_files_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  _ferry_window_choose_files (user_data, FERRY_CHOOSE_FILES);
}

static void
add_folders_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  _ferry_window_choose_files (user_data, FERRY_CHOOSE_FOLDERS);
}

static void
paste_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  _ferry_window_paste (user_data);
}

static void
choose_folder_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  _ferry_window_choose_folder (user_data);
}

static void
unstage_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  _ferry_window_unstage (user_data);
}

void
_ferry_window_actions_init (FerryWindow *self)
{
  const GActionEntry actions[] = {
    { "add-files", add_files_activated },
    { "add-folders", add_folders_activated },
    { "paste", paste_activated },
    { "choose-folder", choose_folder_activated },
    { "unstage", unstage_activated },
  };

  g_action_map_add_action_entries (G_ACTION_MAP (self), actions, G_N_ELEMENTS (actions), self);
}
