/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "ferry-revealer.h"

/* Shown while it reveals its child or is still closing over it. */
static void
follow_reveal (GtkRevealer *revealer)
{
  gtk_widget_set_visible (GTK_WIDGET (revealer), gtk_revealer_get_reveal_child (revealer)
                                                     || gtk_revealer_get_child_revealed (revealer));
}

/**
 * ferry_revealer_collapse_when_closed:
 * Hides @revealer once it has closed, and shows it again when asked to
 * reveal. A closed revealer is 0 px high but still a child of its box,
 * which puts its spacing around it: 24 px more above "Drives", and
 * under a transfer's count, than the layout had.
 */
void
ferry_revealer_collapse_when_closed (GtkRevealer *revealer)
{
  g_signal_connect (revealer, "notify::reveal-child", G_CALLBACK (follow_reveal), NULL);
  g_signal_connect (revealer, "notify::child-revealed", G_CALLBACK (follow_reveal), NULL);
  follow_reveal (revealer);
}
