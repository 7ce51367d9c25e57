/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The window's actions (win.*), for its buttons and rows. */
#include "config.h"

#include "ferry-window-private.h"

static void
choose_folder_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  _ferry_window_choose_folder (FERRY_WINDOW (widget));
}

static void
unstage_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  _ferry_window_unstage (FERRY_WINDOW (widget));
}

void
_ferry_window_class_actions_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.choose-folder", NULL, choose_folder_action);
  gtk_widget_class_install_action (widget_class, "win.unstage", NULL, unstage_action);
}
