/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The window's actions (win.*), for its buttons, menus and shortcuts.
 * They are the window's GActionMap, not widget class actions: GTK lists
 * them in the shortcuts window and exports them on D-Bus with the
 * window (org.gtk.Actions on /io/github/ferrycopy/Ferry/window/N). */
#include "config.h"

#include "ferry-window-private.h"

static const struct
{
  const char *name;
  void (*run) (FerryWindow *self);
} window_actions[] = {
  { "add-files", _ferry_window_add_files },
  { "add-folders", _ferry_window_add_folders },
  { "paste", _ferry_window_paste },
  { "choose-folder", _ferry_window_choose_folder },
  { "unstage", _ferry_window_unstage },
  { "clear-finished", _ferry_window_clear_finished },
  { "clear-recent-folders", _ferry_window_clear_recent_folders },
};

static void
on_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  const char *name = g_action_get_name (G_ACTION (action));

  for (guint i = 0; i < G_N_ELEMENTS (window_actions); i++)
    if (g_str_equal (window_actions[i].name, name))
      window_actions[i].run (user_data);
}

/* An action can be used only when it would do something; its buttons
 * follow. */
void
_ferry_window_enable_action (FerryWindow *self, const char *name, gboolean enabled)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), name);

  g_simple_action_set_enabled (G_SIMPLE_ACTION (action), enabled);
}

void
_ferry_window_actions_init (FerryWindow *self)
{
  for (guint i = 0; i < G_N_ELEMENTS (window_actions); i++)
    {
      g_autoptr (GSimpleAction) action = g_simple_action_new (window_actions[i].name, NULL);

      g_signal_connect_object (action, "activate", G_CALLBACK (on_activated), self, 0);
      g_action_map_add_action (G_ACTION_MAP (self), G_ACTION (action));
    }
}
