/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "ferry-destination-row.h"

/**
 * FerryDestinationRow:
 * A drive or folder in the window, and a drop target: files or folders
 * dropped on it (a GdkFileList, which GTK also makes from text/uri-list)
 * are handed to the window with the "files-dropped" signal. A drive's row
 * has an Eject button, insensitive while a transfer to it runs, and a
 * check mark while it is the drive selected for Add Files… and Paste.
 */
struct _FerryDestinationRow
{
  AdwActionRow parent_instance;

  FerryDestination *destination;
  GtkWidget *selected_mark;
  GtkWidget *eject_button;
};

G_DEFINE_FINAL_TYPE (FerryDestinationRow, ferry_destination_row, ADW_TYPE_ACTION_ROW)

enum
{
  SIGNAL_FILES_DROPPED,
  SIGNAL_EJECT,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
update_subtitle (FerryDestinationRow *self)
{
  g_autofree char *known = ferry_destination_dup_space (self->destination);
  g_autofree char *space = NULL;
  g_autofree char *path = NULL;

  if (ferry_destination_get_write_protected (self->destination))
    /* TRANSLATORS: a drive whose lock switch is on, then its free space,
     * like "Write-protected · 14.2 GB free of 16.0 GB" */
    space = g_strdup_printf (_ ("Write-protected · %s"), known ? known : "");
  else if (ferry_destination_get_read_only (self->destination))
    /* TRANSLATORS: a drive that cannot be written now, then its free
     * space, like "Read-only · 14.2 GB free of 16.0 GB" */
    space = g_strdup_printf (_ ("Read-only · %s"), known ? known : "");
  else
    space = g_steal_pointer (&known);

  if (ferry_destination_get_kind (self->destination) == FERRY_DESTINATION_FOLDER)
    {
      g_autofree char *parse_name
          = g_file_get_parse_name (ferry_destination_get_root (self->destination));
      path = g_markup_escape_text (parse_name, -1);
    }
  if (path != NULL && space != NULL)
    {
      g_autofree char *both = g_strdup_printf ("%s · %s", path, space);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (self), both);
    }
  else
    adw_action_row_set_subtitle (ADW_ACTION_ROW (self), path ? path : space ? space : "");
}

/* Emits "files-dropped"; returns whether the drop was taken. */
gboolean
ferry_destination_row_drop_files (FerryDestinationRow *self, GSList *files)
{
  gboolean handled = FALSE;

  g_return_val_if_fail (FERRY_IS_DESTINATION_ROW (self), FALSE);
  if (files == NULL)
    return FALSE;
  g_signal_emit (self, signals[SIGNAL_FILES_DROPPED], 0, files, &handled);
  return handled;
}

static gboolean
on_drop (GtkDropTarget *target, const GValue *value, double x, double y, FerryDestinationRow *self)
{
  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  return ferry_destination_row_drop_files (self,
                                           gdk_file_list_get_files (g_value_get_boxed (value)));
}

static void
on_eject_clicked (GtkButton *button, FerryDestinationRow *self)
{
  g_signal_emit (self, signals[SIGNAL_EJECT], 0);
}

/* While a transfer writes to the drive, it is not to be ejected. */
void
ferry_destination_row_set_busy (FerryDestinationRow *self, gboolean busy)
{
  g_return_if_fail (FERRY_IS_DESTINATION_ROW (self));
  /* Only on a change: a tooltip set again makes GTK wait anew before
   * showing the one under the pointer. */
  if (self->eject_button == NULL || gtk_widget_get_sensitive (self->eject_button) == !busy)
    return;
  gtk_widget_set_sensitive (self->eject_button, !busy);
  gtk_widget_set_tooltip_text (self->eject_button,
                               busy ? _ ("Files are being copied to this drive") : _ ("Eject"));
}

/* The check mark of the drive Add Files… and Paste copy to. */
void
ferry_destination_row_set_selected (FerryDestinationRow *self, gboolean selected)
{
  g_return_if_fail (FERRY_IS_DESTINATION_ROW (self));
  gtk_widget_set_visible (self->selected_mark, selected);
}

GtkWidget *
ferry_destination_row_new (FerryDestination *destination)
{
  FerryDestinationRow *self = g_object_new (FERRY_TYPE_DESTINATION_ROW, NULL);
  g_autofree char *title = g_markup_escape_text (ferry_destination_get_name (destination), -1);
  GtkWidget *icon = gtk_image_new_from_gicon (ferry_destination_get_icon (destination));

  self->destination = g_object_ref (destination);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self), title);
  adw_action_row_add_prefix (ADW_ACTION_ROW (self), icon);
  self->selected_mark = gtk_image_new_from_icon_name ("object-select-symbolic");
  gtk_widget_set_visible (self->selected_mark, FALSE);
  gtk_widget_set_tooltip_text (self->selected_mark, _ ("Added and pasted files go here"));
  adw_action_row_add_suffix (ADW_ACTION_ROW (self), self->selected_mark);
  if (ferry_destination_can_eject (destination))
    {
      self->eject_button = gtk_button_new_from_icon_name ("media-eject-symbolic");
      gtk_widget_set_valign (self->eject_button, GTK_ALIGN_CENTER);
      gtk_widget_add_css_class (self->eject_button, "flat");
      gtk_widget_set_tooltip_text (self->eject_button, _ ("Eject"));
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->eject_button),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, _ ("Eject"), -1);
      g_signal_connect (self->eject_button, "clicked", G_CALLBACK (on_eject_clicked), self);
      adw_action_row_add_suffix (ADW_ACTION_ROW (self), self->eject_button);
    }
  update_subtitle (self);
  g_signal_connect_object (destination, "notify::space", G_CALLBACK (update_subtitle), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (destination, "notify::read-only", G_CALLBACK (update_subtitle), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (destination, "notify::write-protected", G_CALLBACK (update_subtitle),
                           self, G_CONNECT_SWAPPED);
  return GTK_WIDGET (self);
}

FerryDestination *
ferry_destination_row_get_destination (FerryDestinationRow *self)
{
  g_return_val_if_fail (FERRY_IS_DESTINATION_ROW (self), NULL);
  return self->destination;
}

static void
ferry_destination_row_dispose (GObject *object)
{
  FerryDestinationRow *self = FERRY_DESTINATION_ROW (object);

  g_clear_object (&self->destination);
  G_OBJECT_CLASS (ferry_destination_row_parent_class)->dispose (object);
}

/* Tab moves the focus to the row, then into it (its Eject button), then
 * on, as GtkListBoxRow does, but without selecting the row: the drive
 * list would choose every drive Tab passed, and one tabbing past the
 * list to Choose Folder… or the transfers was left with the last drive
 * chosen for Add Files… and Paste. The arrows, Enter and a click still
 * choose. */
static gboolean
ferry_destination_row_focus (GtkWidget *widget, GtkDirectionType direction)
{
  GtkWidget *focus_child = gtk_widget_get_focus_child (widget);
  GtkWidget *child = gtk_list_box_row_get_child (GTK_LIST_BOX_ROW (widget));

  if (direction != GTK_DIR_TAB_FORWARD && direction != GTK_DIR_TAB_BACKWARD)
    return GTK_WIDGET_CLASS (ferry_destination_row_parent_class)->focus (widget, direction);
  if (focus_child != NULL && gtk_widget_child_focus (focus_child, direction))
    return TRUE;
  if (direction == GTK_DIR_TAB_FORWARD)
    {
      if (focus_child != NULL)
        return FALSE;
      if (!gtk_widget_has_focus (widget))
        return gtk_widget_grab_focus (widget);
      return child != NULL && gtk_widget_child_focus (child, direction);
    }
  if (gtk_widget_has_focus (widget))
    return FALSE;
  if (focus_child == NULL && child != NULL && gtk_widget_child_focus (child, direction))
    return TRUE;
  return gtk_widget_grab_focus (widget);
}

static void
ferry_destination_row_class_init (FerryDestinationRowClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = ferry_destination_row_dispose;
  GTK_WIDGET_CLASS (klass)->focus = ferry_destination_row_focus;

  /**
   * FerryDestinationRow::files-dropped:
   * @files: (element-type GFile): what was dropped
   *
   * Returns: TRUE when the drop was taken
   */
  signals[SIGNAL_FILES_DROPPED] = g_signal_new (
      "files-dropped", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
      g_signal_accumulator_true_handled, NULL, NULL, G_TYPE_BOOLEAN, 1, G_TYPE_POINTER);
  signals[SIGNAL_EJECT] = g_signal_new ("eject", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                        NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
ferry_destination_row_init (FerryDestinationRow *self)
{
  GtkDropTarget *target = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);

  g_signal_connect (target, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (target));
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (self), TRUE);
}
